"""How steady the analysis's score lead is, as KaTrain reads it: the same
query five times over, the root's scoreLead's standard deviation, and the
points the order-0 move loses (KaTrain's grading: the root's lead minus the
move's, for the side to move).

    python bench/lead_stability.py [--size 9] [--visits 500] [--positions 20] [--repeats 5] \\
        [--weights nets/weights/9x9-teacher.pt] [--teacher records/datasets/teacher/19x19-test] \\
        [--sources net,backup,playouts] [--set KEY=VALUE ...]

The positions are every tenth position of the held-out GNU Go games of
``records/datasets/<n>x<n>-test`` (from move 10 on), each asked through the JSON
analysis server (``gtp_main.py analysis``'s AnalysisServer) of the shipped
config for the size, with the given weights, once to each of ``--repeats``
engines that differ only in their seed (one engine answers the same query
the same way: its search is seeded).  Three runs in one process: the score
from the net's heads (``player.score_source = net``: a candidate's lead the
head's after it), the same heads backed up through the tree (``backup``), and
the reference, from playouts (``playouts``).  Prints the mean standard
deviation of each, the points the order-0 move and every candidate lose
(below -1: a move read better in points than the engine's choice), the net's
ratio to playouts, the root win rate's standard deviation over the same
queries (in points of percent), and last ``lead_stdev: X points`` for the
net.  With
``--teacher`` (label shards of ``tools.label`` over the same held-out games),
also how far each source's mean root lead lies from the teacher's lead
(mean absolute error in points, Black's view, komi included).
"""
import argparse
import io
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine import coords  # noqa: E402
from engine.config import load  # noqa: E402
from engine.gtp.analysis_json import AnalysisServer  # noqa: E402
from nets.data import list_shards  # noqa: E402
from nets.shards import load_shard  # noqa: E402


def positions(size, count):
    out = []
    for f in list_shards(os.path.join(ROOT, "records", "datasets", f"{size}x{size}-test")):
        sh = load_shard(f)
        off = sh["offsets"]
        for g in range(len(off) - 1):
            mv = [int(m) for m in sh["moves"][off[g]:off[g + 1]]]
            for t in range(10, len(mv) - 5, 10):
                out.append(mv[:t])
                if len(out) == count:
                    return out
    return out


def teacher_leads(folder):
    """{moves played, as a tuple: the teacher's lead for Black} over the
    label shards in ``folder``."""
    out = {}
    for f in list_shards(folder):
        sh = load_shard(f)
        off = sh["offsets"]
        for g, t, lead in zip(sh["pos_game"], sh["pos_turn"], sh["t_lead"]):
            mv = [int(m) for m in sh["moves"][off[g]:off[g + 1]]]
            out[tuple(mv[:int(t)])] = float(lead)
    return out


def run(size, visits, games, repeats, sets, ref_leads=None):
    cfg = os.path.join(ROOT, "configs", f"{size}x{size}.toml")
    stdevs, lost, err, cand, wstd, wmstd, tenth = [], [], [], [], [], [], []
    mstd, mlost, merr = [], [], []      # the root's lead as the candidates' visit-weighted mean
    for k, mv in enumerate(games):
        cols = "BW"
        q = {"moves": [[cols[i % 2], coords.to_gtp(m, size)] for i, m in enumerate(mv)], "rules": "chinese",
             "komi": 7.0 if size == 9 else 7.5, "boardXSize": size, "maxVisits": visits}
        got = []
        for r in range(repeats):        # the same query to engines that differ only in their seed
            out = io.StringIO()
            srv = AnalysisServer(load(cfg, ["search.seconds=0", f"search.seed={1000 * k + r + 1}"] + sets),
                                 out=out)
            srv.serve(io.StringIO(json.dumps(dict(q, id=str(r))) + "\n"))
            got += [json.loads(ln) for ln in out.getvalue().splitlines()]
        leads = [r["rootInfo"]["scoreLead"] for r in got]
        stdevs.append(statistics.pstdev(leads))
        wstd.append(100 * statistics.pstdev(r["rootInfo"]["winrate"] for r in got))     # in points of percent
        wmstd.append(100 * statistics.pstdev(visit_mean(r, "winrate") for r in got))
        means = [visit_mean(r) for r in got]
        mstd.append(statistics.pstdev(means))
        if (leads_ref := (ref_leads or {}).get(tuple(mv))) is not None:
            err.append(abs(statistics.mean(leads) - leads_ref))
            merr.append(abs(statistics.mean(means) - leads_ref))
        sign = 1.0 if len(mv) % 2 == 0 else -1.0         # Black's view -> the side to move's
        mlost.extend(sign * (m - r["moveInfos"][0]["scoreLead"]) for m, r in zip(means, got))
        lost.extend(sign * (r["rootInfo"]["scoreLead"] - r["moveInfos"][0]["scoreLead"]) for r in got)
        # every candidate's points lost (KaTrain's grading of the alternatives):
        # below 0, a move the analysis reads as better in points than its choice
        cand.extend(sign * (r["rootInfo"]["scoreLead"] - m["scoreLead"]) for r in got for m in r["moveInfos"]
                    if m.get("visits", 0) > 0)
        # issue 85's grading target: the candidates with a tenth of the chosen move's visits
        for r in got:
            top = r["moveInfos"][0]
            near = [sign * (top["scoreLead"] - m["scoreLead"]) for m in r["moveInfos"][1:]
                    if m.get("visits", 0) >= 0.1 * top.get("visits", 0) > 0]
            tenth.append(min(near, default=0.0))
    return (statistics.mean(stdevs), max(stdevs), max(abs(x) for x in lost),
            statistics.mean(err) if err else None, len(err), min(cand),
            sum(1 for x in cand if x < -1.0) / len(cand),
            (statistics.mean(mstd), max(mstd), max(mlost), statistics.mean(merr) if merr else None),
            (statistics.mean(wstd), max(wstd), statistics.mean(wmstd), max(wmstd)),
            (sum(1 for x in tenth if x < -1.0), len(tenth), min(tenth)))


def visit_mean(answer, key="scoreLead"):
    """The candidates' ``key`` (their leads, or win rates) weighted by
    their visits (KataGo's root scoreLead and winrate are such means over
    the root's simulations): what the answer's root would show if it read
    the search's whole root, not its best move alone."""
    rows = [m for m in answer["moveInfos"] if m.get("visits", 0) > 0]
    n = sum(m["visits"] for m in rows)
    return sum(m["visits"] * m[key] for m in rows) / n if n else answer["rootInfo"][key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--visits", type=int, default=500)
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--weights", default="", help="net weights (default: the shipped net of the size)")
    ap.add_argument("--teacher", default="", help="label shards of the same games: the leads' error against them")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting for every engine of the run (as gtp_main's --set)")
    ap.add_argument("--sources", default="net,backup,playouts",
                    help="score sources to run, comma-separated (net is always run: its figure is printed last)")
    args = ap.parse_args()
    sources = set(args.sources.split(",")) | {"net"}
    games = positions(args.size, args.positions)
    ref_leads = teacher_leads(args.teacher) if args.teacher else None
    w = ([f"net.weights={args.weights}"] if args.weights else []) + args.set
    net = run(args.size, args.visits, games, args.repeats, w + ["player.score_source=net"], ref_leads)
    ref = run(args.size, args.visits, games, args.repeats, w + ["player.score_source=playouts"], ref_leads) \
        if "playouts" in sources else None
    backup = run(args.size, args.visits, games, args.repeats, w + ["player.score_source=backup"], ref_leads) \
        if "backup" in sources else None
    print(f"{len(games)} positions, {args.repeats} identical queries each at {args.visits} visits")
    for name, r in (("playouts", ref), ("backup", backup), ("net", net)):
        if r is None:
            continue
        line = (f"{name + ':':9s} root lead stdev mean {r[0]:.2f} max {r[1]:.2f}; "
                f"order-0 points lost at most {r[2]:.2f}; candidates' points lost at least {r[5]:.2f} "
                f"({100 * r[6]:.1f}% below -1)")
        if r[3] is not None:
            line += f"; mean lead off the teacher's by {r[3]:.2f} points ({r[4]} positions)"
        print(line)
        m = r[7]
        line = (f"{'':9s} as the candidates' visit-weighted mean: stdev mean {m[0]:.2f} max {m[1]:.2f}; "
                f"order-0 points lost at most {m[2]:.2f}")
        if m[3] is not None:
            line += f"; off the teacher's by {m[3]:.2f} points"
        print(line)
        print(f"{'':9s} root win rate stdev mean {r[8][0]:.2f} max {r[8][1]:.2f} points (percent); as the "
              f"candidates' visit-weighted mean {r[8][2]:.2f} max {r[8][3]:.2f}")
        print(f"{'':9s} answers with a candidate of a tenth of the choice's visits read over 1 point better: "
              f"{r[9][0]} of {r[9][1]} (the worst {r[9][2]:.2f} points)")
    if ref is not None:
        print(f"ratio net/playouts: {net[0] / ref[0] if ref[0] else float('nan'):.3f}")
    print(f"winrate_stdev: {net[8][0]:.2f} points (percent)")
    print(f"lead_stdev: {net[0]:.2f} points")


if __name__ == "__main__":
    main()
