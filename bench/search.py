"""Search speed and node size.

    python bench/search.py --size 9 --playouts 10000 [--policy random] [--tree rave]

Prints sims/s of the full search, bytes/node, the recycling overhead (the
same search with a pool too small for the tree, node recycling on, against
an unbounded pool, at equal simulations), the search overhead (time per
simulation over time per bare rollout) and, last, the time per simulation
of the tree asked for (--tree, default the rave tree) over the first
round's uct tree, measured in the same run on the same positions.
"""
import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext import playout  # noqa: E402
from board_ext.board import Board  # noqa: E402
from engine.pool import BASE_BYTES_PER_NODE, BYTES_PER_NODE  # noqa: E402
from engine.factory import bare_tree  # noqa: E402


def timed_search(size, n, policy, pool_size, full_policy, seed=1, tree="uct"):
    t = bare_tree(size, pool_size, full_policy, seed=seed)
    t.configure(rollout=policy, komi=7.0, tree=tree)     # the kernel's knobs: the config's defaults
    t.set_root(Board(size))
    t0 = time.process_time()            # CPU time: other jobs on the machine count less
    t.simulate(n)
    return time.process_time() - t0, t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=10000)
    ap.add_argument("--policy", default="expert", choices=sorted(playout.POLICIES))
    ap.add_argument("--tree", default="rave", choices=["rave", "uct"])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n = args.playouts
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    search_t, rollout_t, small_t, big_t, ref_t = [], [], [], [], []
    pool = n * (args.size * args.size + 2) if args.tree == "rave" else n + 10
    for r in range(args.repeats):
        # interleave the measurements so machine noise hits all alike
        el, t = timed_search(args.size, n, args.policy, pool, "recycle", seed=r + 1, tree=args.tree)
        ref_t.append(timed_search(args.size, n, args.policy, n + 10, "recycle", seed=r + 1)[0])
        search_t.append(el)
        c0 = time.process_time()
        cnt, _, _ = playout.bench_playouts(Board(args.size), args.policy, el, seed=r + 1)
        rollout_t.append((time.process_time() - c0) / cnt)
        el3, t3 = timed_search(args.size, n, args.policy, max(pool // 10, 100), "recycle", seed=r + 1,
                               tree=args.tree)
        small_t.append(el3)
        big_t.append(el)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    per_sim = min(search_t) / n
    per_roll = min(rollout_t)
    print(f"pool stats (recycling run): {t3.stats()}")
    print(f"peak RSS growth: {(rss1 - rss0) / 1024:.1f} MB")
    print(f"sims/s: {1 / per_sim:.0f}")
    print(f"rollouts/s (bare, same run): {1 / per_roll:.0f}")
    print(f"bytes/node: {t3.stats()['bytes_per_node']} (the uct tree: {BASE_BYTES_PER_NODE}; every array: {BYTES_PER_NODE})")
    print(f"recycling overhead vs unbounded pool: {100 * (min(small_t) / min(big_t) - 1):.1f}%")
    print(f"search overhead: {100 * (per_sim / per_roll - 1):.1f}%")
    print(f"uct tree (reference, same run): {n / min(ref_t):.0f} sims/s")
    print(f"time per simulation, {args.tree} over uct: {per_sim / (min(ref_t) / n):.2f}x")


if __name__ == "__main__":
    main()
