"""Rollout profiles (Fabbri et al., Figures 7 to 10): how local rollout
moves are and how often they play a local 3x3 pattern.

    python -m tools.rollout_profile [--size 9] [--games 4] [--playouts 2000] [--samples 20]
                                     [--set KEY=VALUE ...] [--name NAME] [--out-dir DIR]

Self-play games with a BHRF search (epsilon = 1, soft-UCT, random fallback)
give the positions and a forest trained by the search itself; from every
position, ``--samples`` rollouts of each policy (random, expert, BHRF) are
drawn and their moves classified:

* local: within Manhattan distance 3 of the previous move (the paper's
  criterion; passes and the first move are not counted);
* local pattern: local and the centre of one of the expert policy's MoGo 3x3
  patterns just before it is played.

``--set`` adds a config setting to the search (prior knowledge, say).
Writes <out-dir>/<name>.md and .png (out-dir: docs/results by default;
name: bhrf-profiles on 9x9, bhrf-profiles-<size> on other sizes).
"""
import argparse
import os
import sys

from board_ext import playout
from board_ext.board import Board
from engine import config
from tools.experiment import HERE
from atomicio import atomic_savefig, atomic_write
from engine.search import RESIGN, Search
from engine.endgame import Endgame


def classify(start, moves):
    """(counted, local, local_pattern) over a rollout from board start."""
    b = start.copy()
    b.superko = False
    n = b.size
    nn = n * n
    prev = b.last_move
    counted = local = pat = 0
    for m in moves:
        if m != nn and prev is not None and prev != nn:
            counted += 1
            d = abs(m % n - prev % n) + abs(m // n - prev // n)
            if d <= 3:
                local += 1
                if playout.matches_pattern(b, m):
                    pat += 1
        b.play(m)
        prev = m
    return counted, local, pat


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.rollout_profile", description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--playouts", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config setting for the search, e.g. prior.evaluator=expert")
    ap.add_argument("--name", help="report name under docs/results/")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "docs", "results"), help="default: docs/results")
    args = ap.parse_args(argv)
    report = args.name or ("bhrf-profiles" if args.size == 9 else f"bhrf-profiles-{args.size}")
    cfg = config.load(None, [f"search.playouts={args.playouts}", "search.rollout=bhrf", "bhrf.epsilon=1.0",
                             "bhrf.selection=soft-uct", "bhrf.fallback=random", "prior.evaluator=none",
                             "search.seed=11"] + args.set)
    acc = {k: [0, 0, 0] for k in ("random", "expert", "BHRF")}
    fed = [0, 0]
    seed = 0
    for g in range(args.games):
        s = Search(cfg)
        b = Board(args.size)
        while b.passes < 2 and b.move_count < 2 * args.size * args.size:
            s.set_position(b, 7.0)
            r = s.run()
            for _ in range(args.samples):
                seed += 1
                for name in ("random", "expert"):
                    c = classify(b, playout.playout(b, name, seed)[1])
                    acc[name] = [x + y for x, y in zip(acc[name], c)]
                st0 = s.bhrf.stats()
                _, mv = s.bhrf.playout(b, seed)
                st1 = s.bhrf.stats()
                fed[0] += st1["played"] - st0["played"]
                fed[1] += len(mv)
                c = classify(b, mv)
                acc["BHRF"] = [x + y for x, y in zip(acc["BHRF"], c)]
            # the pass decision the Player makes after its search
            move = Endgame(b, 7.0, 30, 11).decide(b.to_move, r.move, s.analysis())
            if move == RESIGN:
                break
            b.play(move)
        print(f"game {g + 1}/{args.games}: {b.move_count} moves", file=sys.stderr)
    rows = []
    for k, (n, loc, pat) in acc.items():
        rows.append((k, n, loc / n, pat / n))
    lines = ["# Rollout profiles (Fabbri et al., Figures 7 to 10), 9x9" if args.size == 9 else
             f"# Rollout profiles, {args.size}x{args.size}", "",
             f"Command: `python -m tools.rollout_profile --size {args.size} --games {args.games} "
             f"--playouts {args.playouts} --samples {args.samples}"
             + "".join(f" --set {x}" for x in args.set) + (f" --name {args.name}" if args.name else "") + "`", "",
             f"Positions from {args.games} self-play games of a BHRF search ({args.playouts} simulations "
             f"per move, epsilon 1, soft-UCT, random fallback"
             + (", " + " ".join(args.set) if args.set else "") + f"); {args.samples} rollouts per policy from "
             "every position. BHRF rollouts use the forest the search built.", "",
             "| rollout policy | moves counted | local (Manhattan <= 3) | local 3x3 pattern |",
             "|---|---|---|---|"]
    for k, n, lo, pa in rows:
        lines.append(f"| {k} | {n} | {100 * lo:.1f}% | {100 * pa:.1f}% |")
    lines += ["", f"Share of BHRF rollout moves chosen by the forest: {100 * fed[0] / max(fed[1], 1):.1f}% "
              "(the paper: about 51%).",
              "", "The paper (19x19 Fuego): BHRF about as local as the expert policy (48%), and about "
              "four times as many local patterns as random rollouts."]
    os.makedirs(args.out_dir, exist_ok=True)
    atomic_write(os.path.join(args.out_dir, f"{report}.md"), "\n".join(lines) + "\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.6))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [100 * r[2] for r in rows], 0.4, label="local (Manhattan <= 3)")
    ax.bar([x + 0.2 for x in xs], [100 * r[3] for r in rows], 0.4, label="local 3x3 pattern")
    ax.set_xticks(list(xs), [r[0] for r in rows])
    ax.set_ylabel("% of rollout moves")
    ax.legend(fontsize=8)
    ax.set_title(f"Rollout profiles ({args.size}x{args.size})", fontsize=9)
    fig.tight_layout()
    p = os.path.join(args.out_dir, f"{report}.png")
    atomic_savefig(fig, p, dpi=110)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
