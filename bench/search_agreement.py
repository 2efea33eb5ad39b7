"""How often a search plays the teacher's move: the engine's move after a
search of fixed simulations, against KataGo b10c384h6's best move, on the
held-out positions of a teacher set, for the raw net and for each search
given, in one process.  A search that evaluates its leaves with a net
taught by KataGo should agree with KataGo more than that net's raw policy
does, as KataGo's own search does; one that agrees less spoils what the net
knows (issue 85, item 1).

    python bench/search_agreement.py [--size 19] [--positions 100] [--playouts 500] \\
        [--teacher records/datasets/teacher/19x19-play-test] [--variant NAME=KEY=VALUE,KEY=VALUE ...] \\
        [--grade "$KG6" --grade-visits 50]

Each position is replayed from its game on the shipped engine (configs/engine.toml) through GTP
(``gtp_main.py``'s GtpServer in this process: ``clear_board``, ``komi``,
``play``..., ``reg_genmove``), one thread, ``search.seconds = 0`` and
``--playouts`` simulations a move, the opening book off (the search is what
is measured).  Variants (default): ``raw`` (``net.rawnet``: the net's most
probable move), ``shipped`` (the engine's defaults for the size) and
``value-led`` (the search as AlphaGo Zero would run it with the engine's
settings: the uct tree, PUCT, the net at every new leaf, its value as
each simulation's result).  ``--grade "KATAGO ANALYSIS COMMAND"`` also
reads the points each chosen move gives away (the mover's lead before the
move less the mover's lead after it, KataGo at ``--grade-visits``; the
teacher's own best move graded alike as the reference): how much a miss
costs, which agreement does not say.  The last line is the figure:
``search_agreement: shipped X% (raw net R%, x.xx times)``.
"""
import argparse
import io
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine import coords  # noqa: E402
from engine.config import SHIPPED_CONFIG, load  # noqa: E402
from engine.gtp.server import GtpServer  # noqa: E402
from nets.data import list_shards  # noqa: E402
from nets.shards import load_shard, teacher_targets  # noqa: E402
from tools.label import Teacher, game_query  # noqa: E402

VARIANTS = {
    "raw": ["net.rawnet=true"],
    "shipped": [],
    "value-led": ["search.tree=uct", "uct.policy=puct", "prior.dcnn_nodes=all", "search.value_lambda=[1.0]"],
}


def positions(teacher, count):
    """[(moves before, teacher's best move, komi)], every k-th labelled
    position of the set so that ``count`` spread over all its games."""
    out = []
    for f in list_shards(teacher):
        sh = load_shard(f)
        pol = teacher_targets(sh)[0]
        off, komi = sh["offsets"], float(sh["komi"])
        for k, (g, t) in enumerate(zip(sh["pos_game"], sh["pos_turn"])):
            out.append(([int(m) for m in sh["moves"][off[g]:off[g] + int(t)]], int(np.argmax(pol[k])), komi))
    step = max(1, len(out) // count)
    return out[::step][:count]


class Grader:
    """The points a move gives away, as a KataGo analysis engine reads them
    (``--grade``): the mover's lead before the move less the mover's lead
    after it, each at ``visits``; the position's own reading is asked once."""

    def __init__(self, command, visits):
        self.teacher, self.visits, self.roots = Teacher(command, timeout=600.0), visits, {}

    def lead(self, moves, size, komi):
        """Black's lead after ``moves``."""
        answers, errors = self.teacher.ask(game_query("g", moves, size, komi, [len(moves)], self.visits))
        if not answers:
            raise SystemExit(f"the grader gave no answer: {'; '.join(errors)[:200]}")
        return float(next(iter(answers.values()))["rootInfo"]["scoreLead"])

    def loss(self, moves, move, size, komi):
        key = (tuple(moves), komi)
        if key not in self.roots:
            self.roots[key] = self.lead(moves, size, komi)
        sign = 1.0 if len(moves) % 2 == 0 else -1.0        # Black to move
        return sign * (self.roots[key] - self.lead(list(moves) + [move], size, komi))

    def close(self):
        self.teacher.close()


def agreement(size, pos, sets, grader=None):
    """(share of positions where the engine's move is the teacher's, seconds a
    move, mean points a move gives away by ``grader`` or None)."""
    cfg = load(SHIPPED_CONFIG, ["player.book=false", "search.threads=1"] + sets)
    srv = GtpServer(cfg, out=io.StringIO())
    srv.respond(f"boardsize {size}")
    hits, secs, lost = 0, [], []
    for moves, best, komi in pos:
        srv.respond("clear_board")
        srv.respond(f"komi {komi}")
        for i, m in enumerate(moves):
            r = srv.respond(f"play {'BW'[i % 2]} {coords.to_gtp(m, size)}")
            if not r.startswith("="):
                raise SystemExit(f"replay failed: {r.strip()}")
        t0 = time.perf_counter()
        r = srv.respond(f"reg_genmove {'BW'[len(moves) % 2]}")
        secs.append(time.perf_counter() - t0)
        hits += r[1:].strip().upper() == coords.to_gtp(best, size).upper()
        if grader is not None:
            mv = r[1:].strip()
            if mv.lower() != "resign":
                lost.append(grader.loss(moves, coords.from_gtp(mv, size), size, komi))
    return hits / len(pos), statistics.median(secs), (statistics.fmean(lost) if lost else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--playouts", type=int, default=500)
    ap.add_argument("--teacher", default="", help="a teacher set (default: records/datasets/teacher/<n>x<n>-play-test)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=KEY=VALUE,KEY=VALUE",
                    help="a search to measure beside the raw net (default: shipped and value-led)")
    ap.add_argument("--grade", default="", metavar="KATAGO_ANALYSIS_COMMAND",
                    help="also the points each chosen move gives away, by this KataGo analysis engine")
    ap.add_argument("--grade-visits", type=int, default=50)
    a = ap.parse_args()
    teacher = a.teacher or os.path.join(ROOT, "records", "datasets", "teacher", f"{a.size}x{a.size}-play-test")
    pos = positions(teacher, a.positions)
    variants = {"raw": VARIANTS["raw"]}
    if a.variant:
        for v in a.variant:
            name, _, sets = v.partition("=")
            variants[name] = [s for s in sets.split(",") if s]
    else:
        variants.update({k: VARIANTS[k] for k in ("shipped", "value-led")})
    budget = ["search.seconds=0", f"search.playouts={a.playouts}"]
    print(f"{len(pos)} positions of {os.path.relpath(teacher, ROOT)}, {a.size}x{a.size}, "
          f"{a.playouts} simulations a move, one thread, against the teacher's best move")
    got = {}
    grader = Grader(a.grade, a.grade_visits) if a.grade else None
    try:
        for name, sets in variants.items():
            got[name] = agreement(a.size, pos, (budget if name != "raw" else []) + sets, grader)
            lost = f", {got[name][2]:.2f} points lost a move" if got[name][2] is not None else ""
            print(f"{name:12s} {100 * got[name][0]:5.1f}%  ({got[name][1]:.2f} s a move{lost})  {' '.join(sets)}",
                  flush=True)
        if grader is not None:          # the reference: the teacher's own best move, graded alike
            ref = statistics.fmean(grader.loss(moves, best, a.size, komi) for moves, best, komi in pos)
            print(f"{'teacher':12s}  the teacher's best move: {ref:.2f} points lost a move", flush=True)
    finally:
        if grader is not None:
            grader.close()
    first = next(n for n in variants if n != "raw") if len(variants) > 1 else "raw"
    r = got["raw"][0]
    print(f"search_agreement: {first} {100 * got[first][0]:.1f}% (raw net {100 * r:.1f}%, "
          f"{got[first][0] / r if r else float('nan'):.2f} times)")


if __name__ == "__main__":
    main()
