"""Cost of BHRF rollouts: time per simulation with and without the forest.

    python bench/bhrf.py --size 9 [--playouts 5000] [--repeats 3]

Searches from the empty board with random rollouts, then with BHRF
(epsilon = 1) in front of the same random policy, for both selection
processes, interleaved so machine noise hits all alike.  Prints
``last-reply cost ratio: X`` and, last, ``soft-UCT cost ratio: Y``.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext.board import Board  # noqa: E402
from engine import config  # noqa: E402
from engine.search import Search  # noqa: E402


def per_sim(size, n, sets):
    cfg = config.load(None, [f"search.playouts={n}", "search.early_stop=false", "search.seed=3"] + sets)
    s = Search(cfg)
    s.set_position(Board(size), 7.0)
    t0 = time.perf_counter()
    r = s.run()
    return (time.perf_counter() - t0) / r.playouts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    runs = {"random": ["search.rollout=random"],
            "last-reply": ["search.rollout=bhrf", "bhrf.selection=last-reply", "bhrf.epsilon=1"],
            "soft-UCT": ["search.rollout=bhrf", "bhrf.selection=soft-uct", "bhrf.epsilon=1"]}
    best = {k: float("inf") for k in runs}
    for _ in range(args.repeats):
        for k, sets in runs.items():
            best[k] = min(best[k], per_sim(args.size, args.playouts, sets))
    for k in runs:
        print(f"{k}: {1e6 * best[k]:.1f} us/sim")
    print(f"last-reply cost ratio: {best['last-reply'] / best['random']:.2f}")
    print(f"soft-UCT cost ratio: {best['soft-UCT'] / best['random']:.2f}")


if __name__ == "__main__":
    main()
