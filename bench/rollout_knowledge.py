"""What a rollout must know: the share of playouts that get each of six
9x9 positions right, for each rollout policy.

    python bench/rollout_knowledge.py [--playouts 1000] [--show]

Positions (built below; --show prints them as ASCII, X black, O white):
  ladder   white's last move put black's stone in atari in a ladder that
           works (empty board around it), black to move: right when the
           stone is not black at the end (it does not live).
  breaker  the same with a living black corner group on the ladder's path:
           right when the stone lives (runs and connects).
  snapback a black corner group whose two-point eye space holds its only
           two liberties, white to move: white's throw-in (a one-stone
           self-atari) is answered by a capture and a snapback; right when
           the group is captured.
  nakade   white's group has a straight-three eye space and nothing else,
           black to move: right when it is captured (black takes the vital
           point).
  semeai   a capture race of two chains with two liberties each and no eyes,
           black to move: right when white's chain is captured.
  seki     two chains without eyes that share their only two liberties:
           right when both are alive at the end (neither side plays in).
The walls around the last four are alive (two true eyes each), so only the
local fight decides.  Every playout starts from the position itself with
the seed of its index; a playout's end is replayed on a board to read it.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext import playout  # noqa: E402
from board_ext.board import BLACK, WHITE, Board  # noqa: E402

S = 9


def _pt(x, y):
    return y * S + x


def _board(black, white, to_move):
    b = Board(S, superko=False)
    b.setup([_pt(*q) for q in black], [_pt(*q) for q in white])
    b.to_move = to_move
    return b


def _fill(white, empty, to_move):
    """Every point black except the white and empty ones."""
    w, e = set(white), set(empty)
    black = [(x, y) for x in range(S) for y in range(S) if (x, y) not in w and (x, y) not in e]
    return _board(black, white, to_move)


def ladder(breaker=False):
    """White's last move (above the black stone) put it in atari."""
    x0, y0 = 3, 3
    white = [(x0 - 1, y0), (x0, y0 - 1), (x0 + 1, y0 + 1)]
    black = [(x0, y0)]
    if breaker:
        # a living corner group: eyes at (7, 1) and (8, 0)
        black += [(6, 0), (7, 0), (6, 1), (8, 1), (6, 2), (7, 2), (8, 2)]
    b = _board(black, white, WHITE)
    b.play(_pt(x0, y0 + 1), WHITE)
    return b, _pt(x0, y0)


def snapback():
    stones = [(0, 1), (1, 1), (2, 1), (2, 0)]          # eye space (0, 0), (1, 0)
    empty = [(0, 0), (1, 0), (6, 6), (4, 3)]           # + white's two eyes
    white = [(x, y) for x in range(S) for y in range(S) if (x, y) not in stones and (x, y) not in empty]
    return _board(stones, white, WHITE), _pt(1, 1)


def nakade():
    white = [(0, 7), (1, 7), (2, 7), (3, 7), (3, 8)]
    empty = [(0, 8), (1, 8), (2, 8), (6, 1), (2, 3)]   # the eye space + black's two eyes
    return _fill(white, empty, BLACK), _pt(0, 7)


def _walls(extra_black, extra_white, empty):
    """Black wall on columns 0-1 (eyes (0, 2), (0, 6)), white wall on
    columns 7-8 (eyes (8, 2), (8, 6)); the rest as given."""
    black = [(x, y) for x in (0, 1) for y in range(S) if (x, y) not in ((0, 2), (0, 6))] + extra_black
    white = [(x, y) for x in (7, 8) for y in range(S) if (x, y) not in ((8, 2), (8, 6))] + extra_white
    return black, white


def semeai():
    W = [(x, y) for x in (2, 3, 4) for y in range(8)] + [(4, 8)]      # libs (2, 8), (3, 8)
    B = [(x, y) for x in (5, 6) for y in range(7)] + [(5, 7), (5, 8)]  # libs (6, 7), (6, 8)
    black, white = _walls(B, W, ())
    return _board(black, white, BLACK), (_pt(3, 3), _pt(5, 3))


def seki():
    W = [(x, y) for x in (2, 3) for y in range(S)] + [(4, y) for y in range(1, 8)]  # libs (4, 0), (4, 8)
    B = [(x, y) for x in (5, 6) for y in range(S)]                                  # the same two
    black, white = _walls(B, W, ())
    return _board(black, white, BLACK), (_pt(3, 3), _pt(5, 3))


def _final(board, moves):
    b = board.copy()
    for m in moves:
        b.play(m)
    return b


def positions():
    lad, lp = ladder()
    brk, bp = ladder(breaker=True)
    snp, sp = snapback()
    nak, np_ = nakade()
    sem, (sw, sb) = semeai()
    sek, (kw, kb) = seki()
    return [
        ("ladder", lad, lambda f: f.color_at(lp) != BLACK),
        ("breaker", brk, lambda f: f.color_at(bp) == BLACK),
        ("snapback", snp, lambda f: f.color_at(sp) != BLACK),
        ("nakade", nak, lambda f: f.color_at(np_) != WHITE),
        ("semeai", sem, lambda f: f.color_at(sw) != WHITE),
        ("seki", sek, lambda f: f.color_at(kw) == WHITE and f.color_at(kb) == BLACK),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--playouts", type=int, default=1000)
    ap.add_argument("--policies", default="random,expert,moggy")
    ap.add_argument("--show", action="store_true", help="print the positions")
    args = ap.parse_args()
    pols = args.policies.split(",")
    rows = positions()
    if args.show:
        for name, b, _ in rows:
            print(f"{name} ({'BW'[b.to_move - 1]} to move)\n{b.to_ascii()}\n")
    print(f"share of {args.playouts} playouts right, 9x9, komi 7")
    print("| position | " + " | ".join(pols) + " |")
    print("|---|" + "---:|" * len(pols))
    for name, b, right in rows:
        cells = []
        for pol in pols:
            ok = sum(bool(right(_final(b, playout.playout(b, pol, seed, komi=7.0)[1])))
                     for seed in range(1, args.playouts + 1))
            cells.append(f"{100.0 * ok / args.playouts:.1f}%")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
