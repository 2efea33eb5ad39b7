"""Threads on one tree: simulations per second with search.threads = N
against 1, the same position and budget, measured in one run (the rave
tree, expert rollouts, no net); ``--stress K`` runs K short searches with
tree reuse and a pool that runs out, and checks the tree's invariants
after each.

    python bench/threads.py [--size 9] [--threads 2] [--playouts 20000]
    python bench/threads.py --stress 1000 [--threads 4]
    python bench/threads.py --curve 1,2,4,8,16 [--size 19]   (the scaling curve;
        each count searches playouts x threads simulations)
"""
import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext.board import Board  # noqa: E402
from engine import config, factory  # noqa: E402


def rate(threads, size, n, policy):
    cfg = config.load(None, [f"search.playouts={n}", f"search.rollout={policy}", f"search.threads={threads}",
                             "search.early_stop=false", "prior.evaluator=none", "pool.pool_size=3000000"])
    s = factory.make_search(cfg)
    s.set_position(Board(size), 7.0)
    t0 = time.perf_counter()
    r = s.run()
    el = time.perf_counter() - t0
    s.tree.check_invariants()
    return r.playouts / el


def stress(k, threads, seed=1):
    """k short searches (50..700 simulations) on a 9x9 game with tree
    reuse, a 4,000-node pool that runs out, the shipped 9x9 net answering
    the threads' requests while they run, analysis after each; returns how
    many broke an invariant."""
    rnd = random.Random(seed)
    cfg = config.load(None, [f"search.threads={threads}", "pool.pool_size=4000", "search.early_stop=false",
                             "prior.evaluator=net", "prior.dcnn_nodes=20", "rave.net_visits=4",
                             "rave.expand_visits=2", f"search.seed={seed}"])
    s = factory.make_search(cfg, factory.load_evaluator(cfg, 9))
    b, broken = Board(9), 0
    for i in range(k):
        s.set_position(b, 7.0)
        r = s.run(playouts=rnd.choice((50, 200, 700)))
        try:
            s.tree.check_invariants()
        except AssertionError as e:
            broken += 1
            print(f"search {i}: {e}", file=sys.stderr)
        s.analysis()
        legal = list(b.legal_moves()) + [81]
        b = b.copy()
        b.play(r.move if r.move in legal and rnd.random() < 0.8 else rnd.choice(legal))
        if b.passes >= 2 or b.move_count > 120:
            b = Board(9)
    return broken


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=20000)
    ap.add_argument("--policy", default="expert")
    ap.add_argument("--stress", type=int, default=0, metavar="K")
    ap.add_argument("--curve", default="", metavar="N,N,...", help="thread counts, each against 1 thread")
    args = ap.parse_args()
    if args.curve:
        try:
            counts = [int(t) for t in args.curve.split(",")]
        except ValueError:
            ap.error(f"--curve takes thread counts such as 1,2,4, got {args.curve!r}")
        if any(not 1 <= t <= 256 for t in counts):
            ap.error("--curve: thread counts must be in 1..256")
        one = rate(1, args.size, args.playouts, args.policy)
        print(f"{'threads':>7} {'sims/s':>9} {'speedup':>8}")
        print(f"{1:>7} {one:>9.0f} {1.0:>8.2f}")
        best = 1.0
        for t in counts:
            if t == 1:
                continue
            r = rate(t, args.size, args.playouts * t, args.policy)
            best = r / one
            print(f"{t:>7} {r:>9.0f} {best:>8.2f}", flush=True)
        print(f"threads speedup ({counts[-1]} threads, {os.cpu_count()} cores, {args.size}x{args.size}): "
              f"{best:.2f} x")
        return 0
    if args.stress:
        broken = stress(args.stress, args.threads)
        print(f"stress: {args.stress} searches on {args.threads} threads, {broken} broke an invariant")
        print(f"broken searches: {broken} searches")
        return 1 if broken else 0
    one = rate(1, args.size, args.playouts, args.policy)
    many = rate(args.threads, args.size, args.playouts, args.policy)
    print(f"1 thread: {one:.0f} sims/s")
    print(f"{args.threads} threads: {many:.0f} sims/s")
    print(f"threads speedup ({args.threads} threads, {os.cpu_count()} cores, {args.size}x{args.size}): "
          f"{many / one:.2f} x")


if __name__ == "__main__":
    sys.exit(main())
