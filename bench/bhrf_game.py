"""BHRF against the same search without it in a real game at equal time,
move by move: where in a game the forest's cost goes.

    python bench/bhrf_game.py --size 19 --seconds 0.1 --seeds 1

Both sides: the settings common to configs/paper/bhrf-equal-time-19.toml
(the expert prior knowledge on every node, random rollouts), read from
it; the BHRF side adds that file's soft-UCT horizon-50 series (epsilon 1,
horizon 50; --set adds overrides) and alternates colour with the seed (White for odd seeds).
``--config F --series S [--x X]`` takes both sides' settings and the BHRF
side's from another experiment file and series instead, e.g.
``--config configs/paper/bhrf-fig11-equal-time-19.toml --series "soft-UCT,
19h host" --x 0.15`` (the forest in front of the expert policy).
The game is the experiment runner's (tools.experiment.play_game).  For
each block of 50 moves: the mean simulations a move of each side, their
ratio, the mean rollout moves a simulation of each side (BHRF / baseline),
the share of the BHRF side's rollout moves within the horizon that the
forest played (the rest are the default policy's), and the forest's
pattern nodes and contexts at the block's end.
The last line is the BHRF side's simulations over the baseline's, all the
games together.

``--playouts N`` plays both sides at N simulations a move instead: with
the same settings the game is then the same in every build that leaves
the forest's moves as they are (a speed-up), so two builds compare move
for move; other forest settings (``--set``) play another game.  Each block also
gives each side's CPU time a simulation, and the last line is the BHRF
side's time a simulation over the baseline's (``cost ratio``).
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import experiment  # noqa: E402

# The equal-time experiment's settings, read from its config: both sides'
# common settings, its komi, and the BHRF side's sets of this series.
EXPERIMENT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "configs", "paper", "bhrf-equal-time-19.toml")
SERIES = "BHRF soft-UCT eps=1 horizon=50, expert priors"
BLOCK = 50


def game(exp, seed, seconds, size, extra, series=SERIES, x=None, playouts=None):
    """Per-move rows (color, simulations, forest stats or None, mean
    rollout moves a simulation, CPU seconds) of one game, and the BHRF
    side's colour (1 black, 2 white).  With playouts, both sides run that
    many simulations a move and seconds is not used."""
    found = [v["sets"] for v in exp["variant"]
             if v["series"] == series and (x is None or float(v["x"]) == x)]
    if not found:
        raise SystemExit(f"no variant of series {series!r}" + ("" if x is None else f" at x = {x:g}"))
    bhrf = found[0]
    bh = 2 if seed % 2 else 1
    fixed = [f"search.playouts={playouts}"] if playouts else []
    sets = {bh: exp["common"] + bhrf + extra + fixed, 3 - bh: exp["common"] + fixed}
    rows = []
    clock = [time.thread_time()]

    def on_move(color, search, result):
        st = search.bhrf.stats() if color == bh else None
        t = search.tree.stats()
        now = time.thread_time()
        rows.append((color, result.playouts, st, t["rollout_moves"] / max(t["sims"], 1), now - clock[0]))
        clock[0] = now

    experiment.play_game(sets[1], sets[2], size, exp["komi"], seed=seed,
                         seconds=None if playouts else seconds, on_move=on_move)
    return rows, bh


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--seconds", type=float, default=0.1)
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--set", nargs="*", default=[], help="more BHRF-side overrides, e.g. bhrf.horizon=20")
    ap.add_argument("--config", default=EXPERIMENT, help="experiment file with both sides' settings")
    ap.add_argument("--series", default=SERIES, help="the BHRF side's series in that file")
    ap.add_argument("--x", type=float, default=None, help="the variant's x, where the series has several")
    ap.add_argument("--playouts", type=int, default=None,
                    help="both sides at this many simulations a move, not --seconds")
    args = ap.parse_args()
    exp = experiment.load(args.config)
    tot_b = tot_r = cpu_b = cpu_r = 0
    for seed in args.seeds:
        t = time.perf_counter()
        rows, bh = game(exp, seed, args.seconds, args.size, args.set, args.series, args.x, args.playouts)
        print(f"seed {seed}: BHRF {'white' if bh == 2 else 'black'}, {len(rows)} moves, "
              f"{time.perf_counter() - t:.0f} s", flush=True)
        prev = {"asked": 0, "played": 0}
        for lo in range(0, len(rows), BLOCK):
            blk = rows[lo:lo + BLOCK]
            mine = [r for r in blk if r[0] == bh]
            base = [r for r in blk if r[0] != bh]
            if not (mine and base):
                continue
            bs, rs = statistics.mean(r[1] for r in mine), statistics.mean(r[1] for r in base)
            st = mine[-1][2]
            asked = st["asked"] - prev["asked"]
            played = (st["played"] - prev["played"]) / asked if asked else 0.0
            prev = st
            cpu = ""
            if args.playouts:
                cpu = (f"; {1e6 * sum(r[4] for r in mine) / sum(r[1] for r in mine):.1f} / "
                       f"{1e6 * sum(r[4] for r in base) / sum(r[1] for r in base):.1f} us a simulation")
            print(f"  moves {lo}-{lo + len(blk) - 1}: BHRF {bs:.0f}, baseline {rs:.0f} simulations a "
                  f"move, ratio {bs / rs:.2f}; rollout moves a simulation "
                  f"{statistics.mean(r[3] for r in mine):.0f} / {statistics.mean(r[3] for r in base):.0f}; "
                  f"forest played {100 * played:.0f}%; "
                  f"forest {st['nodes']} pattern nodes, {st['contexts']} contexts{cpu}")
        tot_b += sum(r[1] for r in rows if r[0] == bh)
        tot_r += sum(r[1] for r in rows if r[0] != bh)
        cpu_b += sum(r[4] for r in rows if r[0] == bh)
        cpu_r += sum(r[4] for r in rows if r[0] != bh)
    if args.playouts:
        print(f"cost ratio: {(cpu_b / tot_b) / (cpu_r / tot_r):.3f}")
    else:
        print(f"simulation ratio: {tot_b / tot_r:.3f}")


if __name__ == "__main__":
    main()
