"""How near the net's value and the search's win rate are to a strong
reference on the positions of the engine's own games (issue 85, item 1):
not the teacher's quiet self-play, but the fights a match reached.

    python bench/value_in_games.py --teacher "$KG6" --visits 100 \\
        --row records/games/strength-19/shipped-vs-g170-raw-sd120:shipped [--games 20] [--every 2]

A row is a match folder and the engine's name in it (``FOLDER:NAME``, as in
bench/move_losses.py); its SGF comments carry the search's win rate of each
move it chose (``winrate 51.5%``, the engine's GTP comment).  At the
positions after the engine's moves (every ``--every``-th), for the engine's
side: the teacher's win rate (a KataGo analysis engine at ``--visits``, one
query a game), the shipped net's value of the position (or ``--weights``)
and the search's win rate.  Printed by phase (moves 1-50, 51-150, 151 on;
``--phases``) and by how open the teacher reads the game (its win rate
within 0.2-0.8, or outside): positions, the mean absolute error against
the teacher of the net and of the search, and the mean signed error (above
0: more hopeful than the teacher).  The figure, last:
``value_in_games: X`` (the net's MAE), with its ratio to the search's.
"""
import argparse
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from board_ext.board import Board  # noqa: E402
from engine import coords  # noqa: E402
from move_losses import games, row_options, rows_of  # noqa: E402
from tools.label import Teacher, TeacherDied, game_query  # noqa: E402

SHIPPED = {9: "nets/weights/9x9-res3.pt", 19: "nets/weights/19x19-res4.pt"}
WINRATE = re.compile(r"winrate (\d+(?:\.\d+)?)%")


def parse(text):
    """(size, komi, black, white, [(colour, move or None, search win rate or None)])."""
    from sgfmill import sgf
    g = sgf.Sgf_game.from_string(text)
    moves = []
    for node in g.get_main_sequence()[1:]:
        c, mv = node.get_move()
        if c is None:
            continue
        m = WINRATE.search(node.get("C")) if node.has_property("C") else None
        moves.append(("B" if c == "b" else "W", mv, float(m.group(1)) / 100.0 if m else None))
    root = g.get_root()
    name = lambda k: root.get(k) if root.has_property(k) else ""   # noqa: E731
    return g.get_size(), g.get_komi(), name("PB"), name("PW"), moves


def positions(text, name, every):
    """(size, komi, [gtp moves], [(turn after the engine's move, its colour,
    the search's win rate)]) of one game, every ``every``-th such turn."""
    size, komi, pb, pw, moves = parse(text)
    if name not in (pb, pw):
        raise ValueError(f"the game's players are {pb!r} and {pw!r}, not {name!r}")
    col = "B" if pb == name else "W"
    gtp = [coords.pass_move(size) if mv is None else coords.sgfmill_to_idx(mv, size) for _c, mv, _w in moves]
    ours = [(t + 1, c, w) for t, (c, mv, w) in enumerate(moves) if c == col and w is not None and mv is not None]
    return size, komi, gtp, ours[::every]


def summary(rows, cuts):
    """[(label, n, net MAE, search MAE, net bias, search bias)] by phase, openness and all."""
    groups = [(label, [r for r in rows if lo <= r[0] - 1 < hi]) for lo, hi, label in cuts]
    groups += [("open", [r for r in rows if 0.2 <= r[1] <= 0.8]),
               ("decided", [r for r in rows if not 0.2 <= r[1] <= 0.8]), ("all", rows)]
    out = []
    for label, sel in groups:
        if sel:
            out.append((label, len(sel), statistics.mean(abs(r[2] - r[1]) for r in sel),
                        statistics.mean(abs(r[3] - r[1]) for r in sel),
                        statistics.mean(r[2] - r[1] for r in sel), statistics.mean(r[3] - r[1] for r in sel)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    row_options(ap, 100)
    ap.add_argument("--every", type=int, default=1, help="every N-th of the engine's moves")
    ap.add_argument("--weights", default="", help="the net (default: the shipped net of the board's size)")
    a = ap.parse_args(argv)
    cuts, specs = rows_of(ap, a)
    if a.every < 1:
        ap.error("--every takes a positive number")
    from nets.evaluator import Evaluator
    evs = {}
    teacher = Teacher(a.teacher, timeout=600.0)
    first = None
    try:
        for folder, name in specs:
            rows = []
            texts = games(folder, a.games)
            for k, text in enumerate(texts):
                try:
                    size, komi, gtp, ours = positions(text, name, a.every)
                except ValueError as e:
                    ap.error(f"{folder}: game {k + 1}: {e}")
                if not ours:
                    continue
                if size not in evs:
                    evs[size] = Evaluator.load(os.path.join(ROOT, a.weights or SHIPPED[size]), board_size=size)
                ev = evs[size]
                turns = [t for t, _c, _w in ours]
                answers, errors = teacher.ask(game_query(f"{name}-{k}", gtp, size, komi, turns, a.visits))
                if any(t not in answers for t in turns):
                    raise TeacherDied(f"{name}-{k}: {len(answers)} of {len(turns)} turns answered "
                                      f"({'; '.join(errors)[:200]})")
                b = Board(size)
                played = 0
                for t, c, w in ours:
                    while played < t:
                        b.play(gtp[played])
                        played += 1
                    black = float(answers[t]["rootInfo"]["winrate"])
                    ref = black if c == "B" else 1.0 - black
                    net = 1.0 - ev.raw(b, (0,))["value"]      # the net speaks for the side to move
                    rows.append((t, ref, net, w))
                print(f"value_in_games: {name} game {k + 1}/{len(texts)}, {len(rows)} positions", file=sys.stderr,
                      flush=True)
            print(f"\n{name} ({folder}, {len(texts)} games, every {a.every}, the teacher at {a.visits} visits, "
                  f"net {a.weights or 'shipped'})")
            print("| positions | n | net MAE | search MAE | net bias | search bias |\n|---|---|---|---|---|---|")
            s = summary(rows, cuts)
            for label, n, en, es, bn, bs in s:
                print(f"| {label} | {n} | {en:.3f} | {es:.3f} | {bn:+.3f} | {bs:+.3f} |")
            if first is None and s:
                first = s[-1]
    finally:
        teacher.close()
    if first is None:
        print("value_in_games: no positions")
        return 1
    _label, _n, en, es, _bn, _bs = first
    print(f"ratio net/search: {en / es if es else float('nan'):.3f}")
    print(f"value_in_games: {en:.3f} MAE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
