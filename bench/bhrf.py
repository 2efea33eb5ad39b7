"""Cost of BHRF rollouts: time per simulation with and without the forest.

    python bench/bhrf.py --size 9 [--playouts 5000] [--repeats 5] [--moves 0]

Searches one position with random rollouts, then with BHRF (epsilon = 1) in
front of the same random policy, for both selection processes: same seed,
same position, runs interleaved so machine drift hits all alike, the best
of the repeats kept.  Time is the searching thread's CPU time, so other
processes on a loaded machine do not enter the figure (on a quiet machine
it equals the wall time).

``--set KEY=VALUE`` (repeatable) adds a config setting to every run.
``--fallback expert`` puts the forest in front of the expert policy and
measures against the expert policy alone; ``--lr-epsilon`` and
``--su-epsilon`` set each selection's epsilon (default 1; Figure 11 of the
paper: 0.25 and 0.15).
``--uniform`` adds the uniform selection (``bhrf.selection = uniform``, a
deviation), its ratio printed before soft-UCT's.
``--moves K`` first searches the K positions of a fixed opening (the same
moves for every run), so the measured search starts with the forest those
searches left, as in a game (the forest is kept across moves); 0 measures
the empty board with an empty forest.

Prints ``last-reply cost ratio: X`` and, last, ``soft-UCT cost ratio: Y``.
The default is the issue's measure; ``--playouts 25000 --moves 20
--repeats 1`` measures at a 9x9 game's budget, where the forest is larger
(bench/PERFS.md has both).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext import playout  # noqa: E402
from board_ext.board import Board  # noqa: E402
from engine import config  # noqa: E402
from engine.search import Search  # noqa: E402


def opening(size, k):
    """The first k moves (no pass) of a fixed random game."""
    moves = [m for m in playout.playout(Board(size), "random", seed=12345)[1] if m < size * size]
    if len(moves) < k:
        raise SystemExit(f"--moves {k}: the fixed game has only {len(moves)} moves")
    return moves[:k]


def per_sim(size, n, sets, moves):
    """CPU seconds per simulation of one search after the opening moves."""
    cfg = config.load(None, [f"search.playouts={n}", "search.early_stop=false", "search.seed=3"] + sets)
    s = Search(cfg)
    b = Board(size)
    for m in moves:
        s.set_position(b, 7.0)
        s.run()
        b.play(m)
    s.set_position(b, 7.0)
    t0 = time.thread_time()
    r = s.run()
    return (time.thread_time() - t0) / r.playouts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--moves", type=int, default=0, help="opening moves searched first (forest kept)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config setting for every run, e.g. bhrf.capacity=30000")
    ap.add_argument("--fallback", choices=("random", "expert"), default="random",
                    help="the default policy: the baseline's rollouts and the forest's fallback")
    ap.add_argument("--lr-epsilon", type=float, default=1.0, help="last-reply's epsilon")
    ap.add_argument("--su-epsilon", type=float, default=1.0, help="soft-UCT's epsilon")
    ap.add_argument("--uniform", action="store_true",
                    help="also the uniform selection (a deviation), at soft-UCT's epsilon")
    args = ap.parse_args()
    moves = opening(args.size, args.moves)
    fb = f"bhrf.fallback={args.fallback}"
    runs = {args.fallback: [f"search.rollout={args.fallback}"],
            "last-reply": ["search.rollout=bhrf", "bhrf.selection=last-reply",
                           f"bhrf.epsilon={args.lr_epsilon}", fb],
            "soft-UCT": ["search.rollout=bhrf", "bhrf.selection=soft-uct",
                         f"bhrf.epsilon={args.su_epsilon}", fb]}
    if args.uniform:
        runs["uniform"] = ["search.rollout=bhrf", "bhrf.selection=uniform",
                           f"bhrf.epsilon={args.su_epsilon}", fb]
    best = {k: float("inf") for k in runs}
    for _ in range(args.repeats):
        for k, sets in runs.items():
            best[k] = min(best[k], per_sim(args.size, args.playouts, args.set + sets, moves))
    for k in runs:
        print(f"{k}: {1e6 * best[k]:.1f} us/sim")
    print(f"last-reply cost ratio: {best['last-reply'] / best[args.fallback]:.2f}")
    if args.uniform:
        print(f"uniform cost ratio: {best['uniform'] / best[args.fallback]:.2f}")
    print(f"soft-UCT cost ratio: {best['soft-UCT'] / best[args.fallback]:.2f}")


if __name__ == "__main__":
    main()
