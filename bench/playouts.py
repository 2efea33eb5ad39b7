"""Playout speed: full games from the empty board, one thread.

    python bench/playouts.py --size 9 --policy random --seconds 5
    python bench/playouts.py --size 19 --policy moggy --reference expert
    python bench/playouts.py --size 9 --profile [--playouts 2000]

Prints the reference (``--reference``, random by default, on the same board
size when given, else 9x9 random; measured in the same run) and, last,
``playouts/s: X`` for the requested setting.

``--profile``: the share of moggy rollout moves that each rule gave
(board_ext/playout.pyx, the counting variant of the policy; the normal
policy counts nothing), from the empty board of ``--size``.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext import playout  # noqa: E402
from board_ext.board import Board  # noqa: E402


def profile(size, n, seed):
    counts, total = playout.moggy_profile(Board(size), n, seed)
    print(f"moggy rollout profile, {size}x{size}, {n} playouts from the empty board, {total} moves "
          f"({total / n:.1f} a playout)")
    print(f"rates: {', '.join(f'{k}={v:.2f}' for k, v in playout.moggy_rates().items())}")
    for name, c in counts.items():
        if name != "selfatari_rejected":
            print(f"  {name:<10} {c:>9}  {100.0 * c / total:6.2f}%")
    print(f"  bad self-ataris replaced: {counts['selfatari_rejected']} "
          f"({counts['selfatari_rejected'] / n:.1f} a playout)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--policy", default="random", choices=sorted(playout.POLICIES))
    ap.add_argument("--reference", choices=sorted(playout.POLICIES),
                    help="reference policy, measured on --size in the same run (default: 9x9 random)")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--profile", action="store_true", help="moggy: the share of moves from each rule")
    ap.add_argument("--playouts", type=int, default=2000, help="playouts for --profile")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.profile:
        profile(args.size, args.playouts, args.seed)
        return
    ref_size, ref_pol = (args.size, args.reference) if args.reference else (9, "random")
    ref_n, ref_t, _ = playout.bench_playouts(Board(ref_size), ref_pol, min(1.0, args.seconds)
                                             if not args.reference else args.seconds)
    n, t, moves = playout.bench_playouts(Board(args.size), args.policy, args.seconds)
    rate = n / t
    print(f"reference {ref_size}x{ref_size} {ref_pol}: {ref_n / ref_t:.0f} playouts/s")
    print(f"moves/playout: {moves:.1f}")
    print(f"moves/s: {rate * moves:.0f}")
    print(f"ratio to reference: {rate / (ref_n / ref_t):.3f}")
    print(f"playouts/s: {rate:.0f}")


if __name__ == "__main__":
    main()
