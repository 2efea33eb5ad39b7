"""Simulations a CPU second of the engine users get (a Player on a shipped
config), against the same engine with other settings, in one process on
the same positions.

    python bench/engine_speed.py --size 19 --set net.precision=bf16 [--playouts 2000] [--positions 6]

Both engines search each position (a seeded sequence of legal moves, 10 to
10 + 10 * (positions - 1) moves deep) for ``--playouts`` simulations, no
early stop, one thread, the order of the two alternating; the time is the
process's CPU time (the net's threads included), so other jobs on the
machine move it less than the wall clock.  Prints one line a search, the
mean of each engine, and last ``speed_ratio: R x`` (the changed engine's
simulations a second over the reference's).
"""
import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext.board import BLACK, WHITE, Board  # noqa: E402
from engine.config import load  # noqa: E402
from engine.player import Player  # noqa: E402

CONFIGS = {9: "configs/9x9.toml", 13: "configs/13x13.toml", 19: "configs/19x19.toml"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def opening(size, n, seed):
    """``n`` seeded random legal moves from the empty board (no pass)."""
    rng = random.Random(seed)
    b = Board(size)
    moves = []
    for i in range(n):
        m = rng.choice(sorted(b.legal_moves(BLACK if i % 2 == 0 else WHITE)))
        b.play(m)
        moves.append(m)
    return moves


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=19, choices=sorted(CONFIGS))
    ap.add_argument("--set", action="append", default=[], help="the changed engine's settings (key=value)")
    ap.add_argument("--playouts", type=int, default=2000)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args(argv)
    base = ["search.seconds=0", f"search.playouts={a.playouts}", "search.threads=1",
            "search.early_stop=false", "search.resign_threshold=0", "search.seed=7"]
    players = {}
    for name, sets in (("reference", base), ("changed", base + a.set)):
        p = Player(load(os.path.join(ROOT, CONFIGS[a.size]), sets))
        p.new_game(a.size)
        p.prepare()
        players[name] = p
    moves = opening(a.size, 10 + 10 * (a.positions - 1), a.seed)
    rates = {"reference": [], "changed": []}
    for i in range(a.positions):
        order = ("reference", "changed") if i % 2 == 0 else ("changed", "reference")
        depth = 10 + 10 * i
        for name in order:
            p = players[name]
            p.new_game(a.size)
            for k, m in enumerate(moves[:depth]):
                p.play(BLACK if k % 2 == 0 else WHITE, m)
            t0 = time.process_time()
            p.genmove(BLACK if depth % 2 == 0 else WHITE, play=False)
            cpu = time.process_time() - t0
            r = p.last["result"]
            rates[name].append(r.playouts / cpu)
            print(f"{name:9s} position {i + 1} ({depth} moves): {r.playouts} simulations in {cpu:.2f} s CPU, "
                  f"{r.playouts / cpu:.0f}/s", flush=True)
    mean = {k: sum(v) / len(v) for k, v in rates.items()}
    print(f"reference: {mean['reference']:.0f} simulations/s; changed ({' '.join(a.set) or 'nothing'}): "
          f"{mean['changed']:.0f} simulations/s")
    print(f"speed_ratio: {mean['changed'] / mean['reference']:.2f} x")


if __name__ == "__main__":
    main()
