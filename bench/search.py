"""Search speed and node size.

    python bench/search.py --size 9 --playouts 10000 [--policy random] [--pool-size N]

Prints sims/s of the full search, bytes/node, the recycling overhead (the
same search with a pool too small for the tree, node recycling on, against
an unbounded pool, at equal simulations) and, last, the search overhead:
time per simulation over time per bare rollout, measured in the same run.
"""
import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext import playout  # noqa: E402
from board_ext.board import Board  # noqa: E402
from engine.pool import BYTES_PER_NODE, Tree  # noqa: E402


def timed_search(size, n, policy, pool_size, full_policy, seed=1):
    t = Tree(size, pool_size, full_policy, seed=seed)
    t.configure(rollout=policy, komi=7.0)
    t.set_root(Board(size))
    t0 = time.perf_counter()
    t.simulate(n)
    return time.perf_counter() - t0, t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=10000)
    ap.add_argument("--policy", default="random", choices=["random", "expert"])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n = args.playouts
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    search_t, rollout_t, small_t, big_t = [], [], [], []
    for r in range(args.repeats):
        # interleave the measurements so machine noise hits all alike
        el, t = timed_search(args.size, n, args.policy, n + 10, "recycle", seed=r + 1)
        search_t.append(el)
        cnt, el2, _ = playout.bench_playouts(Board(args.size), args.policy, el, seed=r + 1)
        rollout_t.append(el2 / cnt)
        el3, t3 = timed_search(args.size, n, args.policy, max(n // 10, 100), "recycle", seed=r + 1)
        small_t.append(el3)
        big_t.append(el)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    per_sim = min(search_t) / n
    per_roll = min(rollout_t)
    print(f"pool stats (recycling run): {t3.stats()}")
    print(f"peak RSS growth: {(rss1 - rss0) / 1024:.1f} MB")
    print(f"sims/s: {1 / per_sim:.0f}")
    print(f"rollouts/s (bare, same run): {1 / per_roll:.0f}")
    print(f"bytes/node: {BYTES_PER_NODE}")
    print(f"recycling overhead vs unbounded pool: {100 * (min(small_t) / min(big_t) - 1):.1f}%")
    print(f"search overhead: {100 * (per_sim / per_roll - 1):.1f}%")


if __name__ == "__main__":
    main()
