"""The board through its Python API: Board.play per move (superko kept)
and Board.is_legal per call (superko included), one thread.

    python bench/board.py [--size 9] [--games 200]

Plays ``--games`` random legal games (fixed seed, at most 3*N*N moves,
two passes end one) once to fix their moves, then times replaying them
(``play``) and testing every point of every position reached
(``is_legal``), best of ``--repeats``.  These are the costs GTP, the
scoring and the tools pay; the rollouts play on the C board inside the
playout loop (bench/playouts.py).
"""
import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext.board import Board  # noqa: E402


def random_games(size, games, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        b, moves = Board(size), []
        while len(moves) < 3 * size * size and b.passes < 2:
            legal = b.legal_moves()
            p = rng.choice(legal) if legal and rng.random() > 0.02 else b.pass_move
            b.play(p)
            moves.append(p)
        out.append(moves)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    games = random_games(args.size, args.games, args.seed)
    n_moves = sum(len(g) for g in games)
    nn = args.size * args.size
    best_play = best_legal = float("inf")
    for _ in range(args.repeats):
        t_play = t_legal = 0.0
        for moves in games:
            b = Board(args.size)
            t0 = time.perf_counter()
            for p in moves:
                b.play(p)
            t_play += time.perf_counter() - t0
        for moves in games[: max(1, len(games) // 10)]:
            b = Board(args.size)
            for p in moves:
                t0 = time.perf_counter()
                for q in range(nn):
                    b.is_legal(q)
                t_legal += time.perf_counter() - t0
                b.play(p)
        best_play, best_legal = min(best_play, t_play), min(best_legal, t_legal)
    n_legal = sum(len(g) for g in games[: max(1, len(games) // 10)]) * nn
    print(f"{args.size}x{args.size}: {args.games} random games, {n_moves} moves")
    print(f"Board.play: {1e6 * best_play / n_moves:.2f} us a move")
    print(f"Board.is_legal: {1e6 * best_legal / n_legal:.3f} us a call ({n_legal} calls)")


if __name__ == "__main__":
    main()
