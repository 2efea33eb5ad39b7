"""Throughput of the move-prediction net: bare model vs the Evaluator.

* ``bare bN``: ``model.forward_with_features`` on a ready float32 tensor
  (channels_last, inference_mode, the precision of the Evaluator): the
  net alone.
* ``evaluator bN``: ``Evaluator.evaluate(boards, want_features=True)`` on
  the same positions with the cache disabled: planes from the boards, the
  net, legal-move masking and the softmax, features copied out.
* Both alternate in short rounds; rates are medians over the rounds and
  the ratio is the median of the per-round ratios (robust to drift from
  other processes on the machine).

Positions come from random legal games (fixed seed), the same for both.
Weights: nets/weights/<n>x<n>.pt when shipped, else a random init (printed).
``--second-round [WEIGHTS]`` instead times the Evaluator of the second
round's net (30 input planes and a value head: the given weights, or a
random init of that architecture) against today's shipped net, in the same
run, at batch ``--batch`` (8), priors, values and features as the search
asks them; the last line is ``second-round evaluator at batch 8: T ms a
position (R x the shipped net)`` (target: at most 1 ms a 9x9 position).
Otherwise the last line is ``evaluator/bare at batch 16: R`` (target >= 0.9).

Usage: ``python bench/net.py [--size 9] [--threads 1] [--precision fp32|bf16]
[--seconds 3] [--second-round [WEIGHTS] [--batch 8]]``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from board_ext.board import Board  # noqa: E402


def random_positions(size: int, count: int, seed: int = 1) -> list:
    """``count`` positions from random games (5..60 random legal moves each)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        b = Board(size)
        for _ in range(rng.randint(5, min(60, size * size))):
            legal = b.legal_moves()
            if not legal:
                break
            b.play(rng.choice(legal))
        out.append(b)
    return out


def rate(fn, batches, seconds: float) -> float:
    """Positions per second of ``fn(batch)`` cycling over ``batches``."""
    done = 0
    i = 0
    t0 = time.perf_counter()
    while True:
        bt = batches[i % len(batches)]
        fn(bt)
        done += len(bt)
        i += 1
        dt = time.perf_counter() - t0
        if dt >= seconds and i >= 3:
            return done / dt


def compare(fa, xa, fb, xb, seconds: float, rounds: int = 5):
    """Median rates of fa and fb and the median of the per-round ratios
    b/a; the two alternate in short rounds so that drift (another process
    on the machine, clock changes) hits both alike."""
    for x in xa[:2]:
        fa(x)   # warm-up
    for x in xb[:2]:
        fb(x)
    ra, rb = [], []
    for _ in range(rounds):
        ra.append(rate(fa, xa, seconds / rounds))
        rb.append(rate(fb, xb, seconds / rounds))
    ratio = float(np.median(np.array(rb) / np.array(ra)))
    return float(np.median(ra)), float(np.median(rb)), ratio


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    ap.add_argument("--seconds", type=float, default=3.0, help="timing per line")
    ap.add_argument("--batches", default="1,16,64")
    ap.add_argument("--second-round", nargs="?", const="", default=None, metavar="WEIGHTS",
                    help="time a second-round net (30 planes, value head) against the shipped one")
    ap.add_argument("--batch", type=int, default=8, help="batch of --second-round")
    args = ap.parse_args(argv)
    if args.second_round is not None:
        return second_round(args)

    import torch
    from board_ext.features import planes_batch
    from nets.evaluator import Evaluator, available_sizes, weights_path
    from nets.model import GoNet

    torch.set_num_threads(args.threads)
    if args.size in available_sizes():
        ev = Evaluator.load(args.size, threads=args.threads, cache_size=0,
                            precision=args.precision)
        print(f"weights: {weights_path(args.size)}")
    else:
        torch.manual_seed(0)
        ev = Evaluator(GoNet(board_size=args.size), threads=args.threads, cache_size=0,
                       precision=args.precision)
        print(f"weights: random init (no {weights_path(args.size)})")
    model = ev.model
    print(f"net {ev.config.name}, precision {args.precision}"
          f"{' channels_last' if ev.channels_last else ''}, threads {args.threads}, "
          f"torch {torch.__version__}")

    sizes = [int(s) for s in args.batches.split(",")]
    boards = random_positions(args.size, 4 * max(sizes))
    results = {}
    for B in sizes:
        groups = [boards[i:i + B] for i in range(0, len(boards) - B + 1, B)][:max(4, 256 // B)]
        tensors = []
        for g in groups:
            x = torch.from_numpy(planes_batch(g))
            if ev.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            tensors.append(x)

        def bare(x):
            with torch.inference_mode(), ev._autocast():
                model.forward_with_features(x)

        def evaluator(g):
            ev.evaluate(g, want_features=True)

        rb, re_, ratio = compare(bare, tensors, evaluator, groups, args.seconds)
        results[B] = ratio
        print(f"bare b{B}: {rb:.0f} pos/s")
        print(f"evaluator b{B}: {re_:.0f} pos/s")
    if 16 in results:
        print(f"evaluator/bare at batch 16: {results[16]:.3f}")


def second_round(args):
    """ms a position of the second round's Evaluator against the shipped
    one's, alternating in rounds (same positions, cache off)."""
    import torch
    from nets.evaluator import Evaluator
    from nets.model import ModelConfig, GoNet
    torch.set_num_threads(args.threads)
    ref = Evaluator.load(args.size, threads=args.threads, cache_size=0, precision=args.precision)
    if args.second_round:
        new = Evaluator.load(args.second_round, threads=args.threads, cache_size=0,
                             precision=args.precision)
        print(f"second round: {args.second_round}")
    else:
        torch.manual_seed(0)
        new = Evaluator(GoNet(ModelConfig(board_size=args.size, value_head=True)),
                        threads=args.threads, cache_size=0, precision=args.precision)
        print("second round: random init of its architecture")
    print(f"shipped {ref.config.name} ({ref.config.in_planes} planes, heads {ref.config.heads}); "
          f"second round {new.config.name} ({new.config.in_planes} planes, heads {new.config.heads}); "
          f"threads {args.threads}, precision {args.precision}, torch {torch.__version__}")
    B = args.batch
    boards = random_positions(args.size, 32 * B)
    groups = [boards[i:i + B] for i in range(0, len(boards), B)]
    r_ref, r_new, ratio = compare(lambda g: ref.evaluate_all(g, want_features=True), groups,
                                  lambda g: new.evaluate_all(g, want_features=True), groups,
                                  args.seconds)
    print(f"shipped evaluator b{B}: {1000 / r_ref:.3f} ms a position ({r_ref:.0f} pos/s)")
    print(f"second-round evaluator b{B}: {1000 / r_new:.3f} ms a position ({r_new:.0f} pos/s)")
    print(f"second-round evaluator at batch {B}: {1000 / r_new:.3f} ms a position "
          f"({1 / ratio:.2f} x the shipped net)")


if __name__ == "__main__":
    main()
