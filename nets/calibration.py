"""What the value head is worth in rollouts: its Brier score against the
games' results beside the Brier score of the mean of k expert rollouts, by
game phase, on held-out positions.

    python -m nets.calibration --weights nets/weights/9x9.pt --data records/datasets/9x9-test \\
        --komi 7 --out docs/results/value-calibration-9.md

``--data`` takes directories of shards or shard files; ``--every N``
scores every N-th labelled position (the big boards' sets are large).

For every labelled position of the held-out games: the value head's
probability that the side to move wins, and the fraction of k expert
rollouts (k = 1, 2, 4 ... 256, from the position, the side to move first)
that it wins; each scored against the game's result by Brier (mean squared
error; 0.25 is a coin).  "Worth" is the k whose rollouts' Brier is the
value's, interpolated in log k: how many rollouts one evaluation of the net
replaces in each phase.  The table is written atomically.
"""
import argparse
import math
import sys

import numpy as np

from board_ext.phases import NAMES, phase_of

KS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
PHASES = NAMES


def positions(data, size):
    """[(board, result for the side to move (1/0), moves played)] of the
    labelled positions with a decided result."""
    from board_ext.board import Board
    from nets.data import list_shards
    from nets.shards import load_shard
    out = []
    for path in list_shards(data):
        sh = load_shard(path)
        off, moves, lab, scores = sh["offsets"], sh["moves"], sh["is_label"], sh["scores"]
        for g in range(len(off) - 1):
            if scores[g] == 0:
                continue
            b = Board(int(sh["size"]))
            for i in range(int(off[g]), int(off[g + 1])):
                if lab[i]:
                    black_won = scores[g] > 0
                    out.append((b.copy(), 1.0 if black_won == (b.to_move == 1) else 0.0, i - int(off[g])))
                b.play(int(moves[i]))
    return out


def rollout_wins(board, k, komi, seed):
    """Fraction of k expert rollouts from ``board`` that its side to move wins."""
    from board_ext.playout import playout
    start = board.copy()
    start.passes = 0
    wins = 0.0
    for i in range(k):
        s, _ = playout(start, "expert", seed=seed + 7919 * i, komi=komi)
        black = 1.0 if s > 0 else (0.5 if s == 0 else 0.0)
        wins += black if board.to_move == 1 else 1.0 - black
    return wins / k


def calibrate(weights, data, komi, seed=1, ks=KS, max_positions=None, every=1):
    """{phase: {"n", "value", k: brier...}} over the positions of ``data``
    (every ``every``-th, the first ``max_positions`` of them when given)."""
    from nets.evaluator import Evaluator
    ev = Evaluator.load(weights, threads=1)
    if not ev.has_value:
        raise SystemExit(f"{weights}: the net has no value head")
    if every < 1:
        raise ValueError("every must be at least 1")
    pos = positions(data, ev.board_size)[::every][:max_positions]
    points = ev.board_size ** 2
    sq = {p: {"value": [], **{k: [] for k in ks}} for p in range(3)}
    for j, (b, z, move_no) in enumerate(pos):
        ph = phase_of(move_no, points)
        _, _, values = ev.evaluate_all([b])
        sq[ph]["value"].append((float(values[0]) - z) ** 2)
        for k in ks:
            sq[ph][k].append((rollout_wins(b, k, komi, seed + 104729 * j) - z) ** 2)
    out = {}
    for p in range(3):
        if sq[p]["value"]:
            out[PHASES[p]] = {"n": len(sq[p]["value"]), **{key: float(np.mean(v)) for key, v in sq[p].items()}}
    return out


def worth(row, ks=KS):
    """The k (log-interpolated) whose rollouts match the value's Brier, or a bound."""
    KS = ks
    v = row["value"]
    if v >= row[KS[0]]:
        return f"< {KS[0]}"
    for a, b in zip(KS, KS[1:]):
        if row[a] >= v >= row[b]:
            t = (row[a] - v) / (row[a] - row[b]) if row[a] != row[b] else 0.0
            return f"{math.exp(math.log(a) + t * (math.log(b) - math.log(a))):.0f}"
    return f"> {KS[-1]}"


def table(res, weights, data, komi, every=1):
    head = "| phase | positions | value | " + " | ".join(f"k={k}" for k in KS) + " | value worth (rollouts) |"
    lines = [f"# Value calibration: {weights} on {' '.join(data)}", "",
             f"    python -m nets.calibration --weights {weights} --data {' '.join(data)} --komi {komi:g}"
             + (f" --every {every}" if every > 1 else ""), "",
             "Brier scores against the games' results (0.25: a coin); k: the mean of k expert rollouts.", "",
             head, "|" + "---|" * (4 + len(KS))]
    for name, row in res.items():
        lines.append(f"| {name} | {row['n']} | {row['value']:.3f} | "
                     + " | ".join(f"{row[k]:.3f}" for k in KS) + f" | {worth(row)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", required=True)
    ap.add_argument("--data", required=True, nargs="+")
    ap.add_argument("--komi", type=float, default=7.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=1, help="score every N-th labelled position (default: all)")
    ap.add_argument("--out", help="write the table here (atomically)")
    args = ap.parse_args(argv)
    if args.every < 1:
        ap.error("--every must be at least 1")
    res = calibrate(args.weights, args.data, args.komi, args.seed, every=args.every)
    text = table(res, args.weights, args.data, args.komi, args.every)
    if args.out:
        from atomicio import atomic_write
        atomic_write(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
