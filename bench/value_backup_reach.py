"""How many value evaluations a root child's mean holds under
rave.value_backup (issue 85, item 2; docs/results/value-search.md): one
search of the shipped engine with value_backup on, at a given budget, after
a few opening moves; the evaluations below the root and those of the most
visited children (VN), at the shipped net budget and with ``--more`` (the
net at more nodes).

    python bench/value_backup_reach.py [--size 9] [--playouts 2000] [--moves E5,C4,G4] \\
        [--more rave.net_visits=4,prior.dcnn_nodes=all]

The figure, last: ``value_backup_reach: N evaluations`` with ``--more``,
and its ratio to the shipped budget's in the same process.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from board_ext.board import Board  # noqa: E402
from engine import config, coords  # noqa: E402
from engine.factory import load_evaluator  # noqa: E402
from engine.search import Search  # noqa: E402


def reach(size, playouts, moves, extra, seed=5):
    """(evaluations below the root, [(visits, VN)] of the root's children,
    most visited first) of one search."""
    sets = ["search.threads=1", "search.seconds=0", f"search.playouts={playouts}", "search.early_stop=false",
            f"search.seed={seed}", "rave.value_backup=true", f"size.{size}.search.value_lambda=[0.5]"] + extra
    cfg = config.at_size(config.load(os.path.join(ROOT, "configs", "engine.toml"), sets), size)
    s = Search(cfg, evaluator=load_evaluator(cfg, size))
    b = Board(size)
    for m in moves:
        b.play(coords.from_gtp(m, size))
    s.set_position(b, 7.0 if size < 19 else 7.5)
    s.run()
    kids = sorted(s.tree.children(), key=lambda c: -c[1])
    vn = [(int(c[1]), int(s.tree.node(c[6])["VN"])) for c in kids]
    return sum(v for _n, v in vn), vn


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", default="E5,C4,G4", help="the opening before the search, GTP vertices")
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--more", default="rave.net_visits=4,prior.dcnn_nodes=all",
                    help="the settings that put the net at more nodes, comma-separated")
    ap.add_argument("--playouts", type=int, default=2000)
    a = ap.parse_args(argv)
    moves = [m for m in a.moves.split(",") if m]
    out = {}
    for label, extra in (("shipped budget", []), (a.more, [x for x in a.more.split(",") if x])):
        total, vn = reach(a.size, a.playouts, moves, extra)
        out[label] = total
        print(f"{label}: {total} evaluations below the root ({len(vn)} children); the most visited "
              f"(visits, evaluations): {vn[:6]}")
    base, more = out["shipped budget"], out[a.more]
    print(f"value_backup_reach: {more} evaluations ({more / base:.2f} x the shipped budget's {base})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
