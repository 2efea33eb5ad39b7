"""M-MCTS against the same search without memory in real games at equal
time, with counters: simulations, net forward passes and evaluator cache
hits of each side.

    python bench/mmcts_game.py --seeds 1 2 3 4 --seconds 0.5

Both sides ask the net at every new node (the equal-time rows of
configs/paper/mmcts-equal-time.toml with prior.dcnn_nodes unbounded); the
memory side alternates colour with the seed. The games are the experiment
runner's (tools.experiment.play_game). One line per game, then the
totals; the last line is the memory side's share of the baseline's net
forward passes, what the memory's own work (query, add, updates) costs it.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import experiment  # noqa: E402

COMMON = ["search.rollout=expert", "search.early_stop=false", "prior.evaluator=net",
          "uct.cnn_strength=200", "prior.dcnn_nodes=all", "search.playouts=1000000000"]
MEMORY = ["memory.enabled=true", "memory.M=50", "memory.tau=0.1"]


def game(seed, seconds, size, extra):
    """Counters of one game: memory side White for odd seeds."""
    mem, base = ("black", "white") if seed % 2 == 0 else ("white", "black")
    sets = {mem: COMMON + MEMORY + extra, base: COMMON}
    rec = experiment.play_game(sets["black"], sets["white"], size, 7.0, seed=seed, seconds=seconds)
    out = {"memory_color": mem, "moves": len(rec["moves"]), "memory": rec[f"memory_{mem}"]}
    for role, color in (("memory", mem), ("baseline", base)):
        sims, passes = rec[f"sims_{color}"], rec[f"net_{color}"]
        out[role + "_n"] = {"sims": sims, "passes": passes, "hits": sims - passes}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--set", nargs="*", default=[], help="more memory-side overrides")
    args = ap.parse_args()
    tot = {"memory_n": [0, 0, 0], "baseline_n": [0, 0, 0]}
    for seed in args.seeds:
        t = time.perf_counter()
        g = game(seed, args.seconds, args.size, args.set)
        m, o = g["memory_n"], g["baseline_n"]
        for role in tot:
            for i, k in enumerate(("sims", "passes", "hits")):
                tot[role][i] += g[role][k]
        print(f"seed {seed}: memory {g['memory_color']}, {g['moves']} moves, {time.perf_counter() - t:.0f} s; "
              f"simulations {m['sims']} / {o['sims']} ({m['sims'] / o['sims']:.2f}), "
              f"net passes {m['passes']} / {o['passes']} ({m['passes'] / o['passes']:.2f}), "
              f"cache hits {m['hits']} / {o['hits']} (memory / baseline); "
              f"{g['memory']['entries']} memory entries, {g['memory']['candidates']:.0f} SimHash "
              f"candidates a query", flush=True)
    m, o = tot["memory_n"], tot["baseline_n"]
    print(f"simulation ratio: {m[0] / o[0]:.3f}")
    print(f"cache hit ratio: {m[2] / max(o[2], 1):.3f}")
    print(f"net pass ratio: {m[1] / o[1]:.3f}")


if __name__ == "__main__":
    main()
