"""How often GNU Go at level L picks level 10's move, and how fast it plays.

    python -m tools.level_agreement --data data/gnugo/19x19 --levels 1 3 5 8 10 \\
        --positions 200 --out docs/results/level-agreement-19.md

Positions are drawn (fixed seed) from the labelled moves of datagen shards;
each level's GNU Go is asked ``reg_genmove`` on every position (the move it
would play, not played), after replaying the game to it.  A level's row gives
its agreement with level 10 on the same positions and its seconds a move, so
the training mix can be chosen from labels per core-hour and label quality.
The table is written atomically; the levels run one after another in one
process each (``--workers``).
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from engine import coords
from nets.shards import load_shard
from tools.gtp_client import GtpClient, gnugo_command


def sample_positions(shard_files, n, seed):
    """[(moves_before, colour_to_move, size, komi)] drawn from labelled moves."""
    rng = np.random.default_rng(seed)
    pool = []
    for f in shard_files:
        z = load_shard(f)
        moves, lab, off = z["moves"], z["is_label"], z["offsets"]
        size, komi = int(z["size"]), float(z["komi"])
        for g in range(len(off) - 1):
            a, b = int(off[g]), int(off[g + 1])
            for i in range(a, b):
                if lab[i] and moves[i] != size * size:
                    pool.append((moves[a:i].tolist(), (i - a) % 2, size, komi))
    idx = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
    return [pool[i] for i in sorted(idx)]


def ask_level(level, positions):
    """Level ``level``'s moves on ``positions`` and its mean seconds a move."""
    out, spent = [], 0.0
    with GtpClient(gnugo_command(level), timeout=600) as gtp:
        for moves, turn, size, komi in positions:
            gtp.send(f"boardsize {size}")
            gtp.send(f"komi {komi}")
            gtp.send("clear_board")
            for k, m in enumerate(moves):
                gtp.send(f"play {'bw'[k % 2]} {coords.to_gtp(m, size)}")
            t = time.perf_counter()
            v = gtp.send(f"reg_genmove {'bw'[turn]}")
            spent += time.perf_counter() - t
            out.append(v.upper())
    return out, spent / max(1, len(positions))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="a folder of datagen shards")
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 3, 5, 8, 10])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    files = sorted(os.path.join(args.data, f) for f in os.listdir(args.data) if f.endswith(".npz"))
    if not files:
        ap.error(f"no shards in {args.data}")
    pos = sample_positions(files, args.positions, args.seed)
    levels = sorted(set(args.levels) | {10})
    with ProcessPoolExecutor(max_workers=args.workers) as ex:
        res = dict(zip(levels, ex.map(ask_level, levels, [pos] * len(levels))))
    ref = res[10][0]
    lines = [f"# GNU Go levels against level 10 ({len(pos)} positions from {args.data})", "",
             f"    python -m tools.level_agreement --data {args.data} --levels "
             f"{' '.join(map(str, levels))} --positions {args.positions} --seed {args.seed} --out {args.out}",
             "", "| level | agrees with level 10 | seconds a move |", "|---|---|---|"]
    for lv in levels:
        moves, sec = res[lv]
        agree = sum(a == b for a, b in zip(moves, ref)) / len(ref)
        lines.append(f"| {lv} | {100 * agree:.1f}% | {sec:.3f} |")
    text = "\n".join(lines) + "\n"
    from atomicio import atomic_write
    atomic_write(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
