"""Playout speed: full games from the empty board, one thread.

    python bench/playouts.py --size 9 --policy random --seconds 5

Prints the reference (random policy on 9x9, measured in the same run) and,
last, ``playouts/s: X`` for the requested setting.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext import playout  # noqa: E402
from board_ext.board import Board  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--policy", default="random", choices=sorted(playout.POLICIES))
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    ref_n, ref_t, _ = playout.bench_playouts(Board(9), "random", min(1.0, args.seconds))
    n, t, moves = playout.bench_playouts(Board(args.size), args.policy, args.seconds)
    rate = n / t
    print(f"reference 9x9 random: {ref_n / ref_t:.0f} playouts/s")
    print(f"moves/playout: {moves:.1f}")
    print(f"moves/s: {rate * moves:.0f}")
    print(f"ratio to reference: {rate / (ref_n / ref_t):.3f}")
    print(f"playouts/s: {rate:.0f}")


if __name__ == "__main__":
    main()
