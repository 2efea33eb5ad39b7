"""What the M-MCTS memory costs in a real game: one engine plays both sides
of a game for ``--moves`` moves at a fixed simulation budget, with the
memory on, and reports the SimHash candidates a query ranks and the
simulations a second, once with the SimHash centre fixed on the first 64
entries and once re-centred as the memory grows (``memory.recenter``).

    python bench/memory_candidates.py [--config configs/clark-storkey.toml] [--size 19]
                                      [--moves 120] [--playouts 1000] [--set memory.probe_radius=0]

The same seed both times, so the games start alike.  Prints one line a
setting, then last ``candidates_ratio: R`` (re-centred over fixed).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def play(config, size, moves, playouts, recenter, sets=(), seed=7):
    from board_ext.board import BLACK, WHITE
    from engine import config as configmod
    from engine.player import Player
    cfg = configmod.load(config, [f"gtp.boardsize={size}", "search.seconds=0", f"search.playouts={playouts}",
                                  "search.threads=1", f"search.seed={seed}", "memory.enabled=true",
                                  f"memory.recenter={str(recenter).lower()}", "search.resign_threshold=0", *sets])
    p = Player(cfg)
    p.new_game(size)
    t0, sims = time.time(), 0
    color = BLACK
    for _ in range(moves):
        mv = p.genmove(color)
        sims += p.last["result"].playouts if p.last.get("result") is not None else 0
        if mv < 0 or p.game.is_over():
            break
        color = WHITE if color == BLACK else BLACK
    secs = time.time() - t0
    st = p.search().memory.stats()
    return st, sims / secs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="configs/clark-storkey.toml")
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--moves", type=int, default=120)
    ap.add_argument("--playouts", type=int, default=1000)
    ap.add_argument("--set", action="append", default=[], help="a config key=value for both runs")
    a = ap.parse_args(argv)
    got = {}
    for recenter in (False, True):
        st, rate = play(a.config, a.size, a.moves, a.playouts, recenter, a.set)
        got[recenter] = st["mean_candidates"]
        print(f"recenter {str(recenter).lower()}: {st['entries']} entries, {st['queries']} queries, "
              f"{st['mean_candidates']:.1f} candidates a query, {rate:.0f} simulations a second")
    print(f"candidates_ratio: {got[True] / max(got[False], 1e-9):.3f}")


if __name__ == "__main__":
    main()
