"""BHRF against the same search without it in a real game at equal time,
move by move: where in a game the forest's cost goes.

    python bench/bhrf_game.py --size 19 --seconds 0.1 --seeds 1

Both sides: the expert prior knowledge on every node and random rollouts
(the setting of configs/paper/bhrf-equal-time-19.toml); the BHRF side puts
the forest in front of them (soft-UCT, epsilon 1, horizon 50 unless --set
says otherwise) and alternates colour with the seed (White for odd seeds).
The game is the experiment runner's (engine.experiment.play_game).  For
each block of 50 moves: the mean simulations a move of each side, their
ratio, the mean rollout moves a simulation of each side (BHRF / baseline),
and the forest's pattern nodes and contexts at the block's end.
The last line is the BHRF side's simulations over the baseline's, all the
games together.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import experiment  # noqa: E402

COMMON = ["search.rollout=random", "search.early_stop=false", "prior.evaluator=expert",
          "prior.dcnn_nodes=1000000000", "prior.cnn_strength=20", "search.playouts=1000000000"]
BHRF = ["search.rollout=bhrf", "bhrf.epsilon=1.0", "bhrf.selection=soft-uct", "bhrf.fallback=random",
        "bhrf.horizon=50"]
BLOCK = 50


def game(seed, seconds, size, extra):
    """Per-move rows (move index, color, simulations, forest stats or
    None) of one game, and the BHRF side's colour (1 black, 2 white)."""
    bh = 2 if seed % 2 else 1
    sets = {bh: COMMON + BHRF + extra, 3 - bh: COMMON}
    rows = []

    def on_move(color, search, result):
        st = search.bhrf.stats() if color == bh else None
        t = search.tree.stats()
        rows.append((len(rows), color, result.playouts, st, t["rollout_moves"] / max(t["sims"], 1)))

    experiment.play_game(sets[1], sets[2], size, 7.5, seed=seed, seconds=seconds, on_move=on_move)
    return rows, bh


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--seconds", type=float, default=0.1)
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--set", nargs="*", default=[], help="more BHRF-side overrides, e.g. bhrf.horizon=20")
    args = ap.parse_args()
    tot_b = tot_r = 0
    for seed in args.seeds:
        t = time.perf_counter()
        rows, bh = game(seed, args.seconds, args.size, args.set)
        print(f"seed {seed}: BHRF {'white' if bh == 2 else 'black'}, {len(rows)} moves, "
              f"{time.perf_counter() - t:.0f} s", flush=True)
        for lo in range(0, len(rows), BLOCK):
            blk = rows[lo:lo + BLOCK]
            bs = [p for _, c, p, _, _ in blk if c == bh]
            rs = [p for _, c, p, _, _ in blk if c != bh]
            st = [s for _, _, _, s, _ in blk if s is not None]
            lb = statistics.mean(x for _, c, _, _, x in blk if c == bh)
            lr = statistics.mean(x for _, c, _, _, x in blk if c != bh)
            if bs and rs:
                print(f"  moves {lo}-{lo + len(blk) - 1}: BHRF {statistics.mean(bs):.0f}, "
                      f"baseline {statistics.mean(rs):.0f} simulations a move, "
                      f"ratio {statistics.mean(bs) / statistics.mean(rs):.2f}; rollout moves a "
                      f"simulation {lb:.0f} / {lr:.0f}; forest "
                      f"{st[-1]['nodes']} pattern nodes, {st[-1]['contexts']} contexts")
        tot_b += sum(p for _, c, p, _, _ in rows if c == bh)
        tot_r += sum(p for _, c, p, _, _ in rows if c != bh)
    print(f"simulation ratio: {tot_b / tot_r:.3f}")


if __name__ == "__main__":
    main()
