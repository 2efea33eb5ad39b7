"""Root-parallel speedup: simulations per second with search.threads = 2
against 1, same position and budget, measured in one run.

    python bench/parallel.py [--size 9] [--playouts 40000]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext.board import Board  # noqa: E402
from engine import config, factory  # noqa: E402


def rate(threads, size, n, policy):
    cfg = config.load(None, [f"search.playouts={n}", f"search.rollout={policy}", f"search.threads={threads}",
                             "search.early_stop=false", "prior.evaluator=none"])
    s = factory.make_search(cfg)
    s.set_position(Board(size), 7.0)
    s.run(playouts=100 * threads)       # start the workers
    s.set_position(Board(size), 7.0)
    t0 = time.perf_counter()
    r = s.run()
    el = time.perf_counter() - t0
    if hasattr(s, "close"):
        s.close()
    return r.playouts / el


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=40000)
    ap.add_argument("--policy", default="random")
    args = ap.parse_args()
    one = rate(1, args.size, args.playouts, args.policy)
    two = rate(2, args.size, args.playouts, args.policy)
    print(f"1 process: {one:.0f} sims/s")
    print(f"2 processes: {two:.0f} sims/s")
    print(f"root-parallel speedup on 2 cores: {two / one:.2f}")


if __name__ == "__main__":
    main()
