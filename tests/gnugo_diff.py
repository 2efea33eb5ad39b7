"""Differential check of board_ext against GNU Go 3.8 over GTP.

Random games are played in both; after every move the stones agree
(``list_stones``) and the legal moves of the side to move agree
(``all_legal``), except where positional superko forbids a move that GNU Go's
simple ko allows: then the move is checked to really repeat a position.

    python -m tests.gnugo_diff --games 300 --sizes 9 13 19   # the long run
"""
import argparse
import random
import sys

from board_ext.board import BLACK, WHITE, Board
from engine import coords
from tools.gtp_client import GNUGO, GtpClient

CNAME = {BLACK: "black", WHITE: "white"}


def _points(reply, size):
    return sorted(coords.from_gtp(v, size) for v in reply.split())


def check_game(gtp, size, seed, max_moves=None, handicap=0):
    """Play one random game in both engines; return (moves, superko_cases).

    Raises AssertionError on the first disagreement.
    """
    rng = random.Random(seed)
    board = Board(size)
    gtp.send(f"boardsize {size}")
    gtp.send("clear_board")
    if handicap:
        pts = _points(gtp.send(f"fixed_handicap {handicap}"), size)
        from board_ext.board import handicap_points
        assert pts == sorted(handicap_points(size, handicap)), (size, handicap)
        board.setup(black=pts)
        board.to_move = WHITE
    max_moves = max_moves or 2 * size * size
    superko_cases = 0
    for n in range(max_moves):
        c = board.to_move
        ours = set(board.legal_moves(c))
        theirs = set(_points(gtp.send(f"all_legal {CNAME[c]}"), size))
        for p in theirs - ours:
            # only positional superko may forbid more than GNU Go does
            assert board.illegal_reason(p, c) == "superko", (size, seed, n, coords.to_gtp(p, size),
                                                              board.illegal_reason(p, c))
            trial = board.copy()
            trial.superko = False
            trial.play(p, c)
            assert trial.position_hash in _history_hashes(board), "superko case is no repetition"
            superko_cases += 1
        extra = ours - theirs
        assert not extra, (size, seed, n, [coords.to_gtp(p, size) for p in extra])
        # prefer non-eye-filling moves so games run long and fight kos
        cands = [p for p in ours if not board.is_eye(p, c)]
        if not cands or rng.random() < 0.02:
            move = size * size
        else:
            move = rng.choice(cands)
        board.play(move, c)
        gtp.send(f"play {CNAME[c]} {coords.to_gtp(move, size)}")
        if move != size * size:
            for col in (BLACK, WHITE):
                got = _points(gtp.send(f"list_stones {CNAME[col]}"), size)
                assert got == board.stones(col), (size, seed, n, CNAME[col])
        if board.passes >= 2:
            break
    return n + 1, superko_cases


def _history_hashes(board):
    # replay is not needed: Board keeps its history; expose via trial play
    return set(board._history())


def main(argv=None):
    ap = argparse.ArgumentParser(description="board_ext vs GNU Go differential run")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--sizes", type=int, nargs="+", default=[9, 13, 19])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    total = sk = 0
    with GtpClient(f"{GNUGO} --mode gtp --chinese-rules") as gtp:
        for g in range(args.games):
            size = args.sizes[g % len(args.sizes)]
            m, s = check_game(gtp, size, args.seed + g)
            total += m
            sk += s
            print(f"game {g + 1}/{args.games} {size}x{size}: {m} moves agree, "
                  f"{s} superko cases", file=sys.stderr)
    print(f"moves checked: {total}")
    print(f"superko cases: {sk}")
    print(f"games agreeing: {args.games}")


if __name__ == "__main__":
    main()
