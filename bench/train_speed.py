"""Where a training step's time goes: the model alone against the trainer's
whole step (batch assembly, symmetries, the teacher's targets, the losses).

    python bench/train_speed.py [--size 9] [--batch 256] [--threads 2] [--steps 30] [--aux]

On random 0/1 planes of the shipped net's architecture (``--aux``: with the
score and ownership heads and the teacher's loss terms).  Each part is timed
over the same number of steps in this process: the model's forward,
backward and optimiser step on a fixed batch (the reference), then each
part the trainer adds.  Prints samples a second of each and, last,
``train_step: N samples/s`` for the trainer's whole step with its ratio to
the model alone.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--aux", action="store_true")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    from nets.model import ModelConfig, build
    from nets.train import Augmenter, _sym_grids, _sym_rows, make_optimizer, teacher_loss, to_input
    torch.set_num_threads(args.threads)
    n, B, M = args.size, args.batch, args.size * args.size + 1
    mcfg = ModelConfig(board_size=n, value_head=True, aux_heads=args.aux,
                       policy_head="fc" if n == 9 else "conv",
                       widths=(64, 64, 64, 48, 48, 32, 32) if n == 9 else (48,) * 8,
                       kernels=(7, 5, 5, 5, 5, 5, 5) if n == 9 else (5,) + (3,) * 7)
    model = build(mcfg).to(memory_format=torch.channels_last)
    cfg = {"lr": 1e-3, "weight_decay": 1e-4, "optimizer": "adam", "visits_weight": 0.5, "value_weight": 1.0,
           "score_weight": 1.0, "own_weight": 1.0}
    opt = make_optimizer(cfg, model)
    rng = np.random.default_rng(0)
    N = 20 * B
    X = (rng.random((N, mcfg.in_planes, n, n)) < 0.3).astype(np.uint8)
    y = rng.integers(0, M, N)
    pi = np.zeros((N, M), np.float16)
    pi[np.arange(N), y] = 1
    z = rng.choice([-1, 1], N).astype(np.int8)
    tt = {"has": np.ones(N, bool), "policy": pi.copy(), "value": rng.random(N).astype(np.float32),
          "lead": rng.normal(0, 10, N).astype(np.float32),
          "own": rng.integers(-127, 128, (N, n * n)).astype(np.int8)}
    aug = Augmenter(n, rng, True)
    xb_fixed = to_input(X[:B], True)
    yb_fixed = torch.from_numpy(y[:B])

    def model_step(xb, yb):
        logits, v, score, own, _ = model.forward_heads(xb)
        loss = F.cross_entropy(logits.float(), yb)
        loss = loss + F.binary_cross_entropy_with_logits(v.float(), (yb % 2).float())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    def timed(fn):
        fn(0)                   # warm-up
        t = time.perf_counter()
        for s in range(args.steps):
            fn(s)
        return args.steps * B / (time.perf_counter() - t)

    ref = timed(lambda s: model_step(xb_fixed, yb_fixed))
    parts = {}

    def assemble(s):
        idx = np.sort(rng.permutation(N)[:B])
        syms = rng.integers(0, 8, B)
        Xb, yb, pib = aug(X[idx], y[idx], syms=syms, pi=pi[idx])
        return idx, syms, to_input(Xb, True), torch.from_numpy(yb), pib
    parts["batch assembly and symmetries alone"] = timed(lambda s: assemble(s))
    if args.aux:
        def targets(s):
            idx = np.sort(rng.permutation(N)[:B])
            syms = rng.integers(0, 8, B)
            _sym_rows(tt["policy"][idx], syms, aug.perms)
            _sym_grids(tt["own"][idx].reshape(-1, n, n), syms)
        parts["teacher targets' symmetries alone"] = timed(targets)

    def full(s):
        idx, syms, xb, yb, pib = assemble(s)
        logits, v, score, own, _ = model.forward_heads(xb)
        if args.aux:
            loss = teacher_loss(cfg, tt, idx, syms, aug.perms, logits.float(), v, score, own, pib, z,
                                np.ones(N, bool), "cpu")
        else:
            loss = F.cross_entropy(logits.float(), torch.from_numpy(pib.astype(np.float32)))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        (logits.argmax(1) == yb).float().mean().item()
        loss.item()
    whole = timed(full)
    print(f"{mcfg.name}, batch {B}, {args.threads} threads, {args.steps} steps")
    print(f"model alone (forward, backward, step): {ref:.0f} samples/s")
    for k, v in parts.items():
        print(f"{k}: {v:.0f} samples/s")
    print(f"ratio whole step / model alone: {whole / ref:.2f}")
    print(f"train_step: {whole:.0f} samples/s")


if __name__ == "__main__":
    main()
