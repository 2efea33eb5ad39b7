"""How a net is measured on positions: move accuracy (top-1, top-5 over
the legal points), the value head against the games' results, and every
head against a teacher's targets.  nets.train reports them after a run;
nets.accuracy measures a shipped net on held-out sets.

    top1, top5, loss = evaluate_accuracy(model, X, y)
    evaluate_value(model, X, z, move_no)          # sign accuracy by phase, MSE
    evaluate_teacher(model, X, move_no, tt, ids)  # top-1 vs the teacher, Brier, score and ownership MAE
"""
from __future__ import annotations

import numpy as np


def legal_mask_from_planes(X):
    """(B, n*n+1) bool torch tensor: empty non-ko points (planes 8, 9) and pass."""
    import torch
    B, _, n, _ = X.shape
    pts = (X[:, 8] > 0) & ~(X[:, 9] > 0)
    return torch.cat([pts.reshape(B, n * n), torch.ones(B, 1, dtype=torch.bool)], 1)


def to_input(Xb: np.ndarray, channels_last: bool, device="cpu"):
    import torch
    x = torch.from_numpy(np.ascontiguousarray(Xb)).to(device).float()
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    return x


def autocast(precision: str, device="cpu"):
    import contextlib
    import torch
    if precision == "bf16":
        return torch.autocast(torch.device(device).type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def evaluate_accuracy(model, X, y, batch=512, precision="fp32", channels_last=False, device="cpu"):
    """(top1, top5, mean loss) over legal-masked logits, no augmentation."""
    import torch
    import torch.nn.functional as F
    if len(y) == 0:
        return float("nan"), float("nan"), float("nan")
    model.eval()
    c1 = c5 = 0
    loss_sum = 0.0
    with torch.inference_mode(), autocast(precision, device):
        for a in range(0, len(y), batch):
            xb = to_input(X[a:a + batch], channels_last, device)
            yb = torch.from_numpy(y[a:a + batch]).to(device)
            logits = model(xb).float()
            loss_sum += F.cross_entropy(logits, yb, reduction="sum").item()
            m = legal_mask_from_planes(torch.from_numpy(X[a:a + batch])).to(device)
            m[torch.arange(len(yb)), yb] = True   # a label never scores as illegal
            logits = logits.masked_fill(~m, float("-inf"))
            top = logits.topk(5, dim=1).indices
            c1 += (top[:, 0] == yb).sum().item()
            c5 += (top == yb[:, None]).any(1).sum().item()
    model.train()
    n = len(y)
    return c1 / n, c5 / n, loss_sum / n


PHASES = ((0, 20), (20, 40), (40, 60), (60, 1000))   # moves played before the position


def evaluate_value(model, X, z, move_no, batch=512, precision="fp32", channels_last=False,
                   device="cpu", min_move=20):
    """The value head against the games' results: the share of positions
    (from move ``min_move`` on, results known) where the sign of the value
    (above or below 1/2) names the winner, overall and by game phase, and
    the mean squared error of the probability against the 0/1 result."""
    import torch
    keep = (z != 0)
    out = {"positions": 0}
    if not keep.any():
        return out
    idx = np.nonzero(keep)[0]
    model.eval()
    probs = np.empty(len(idx), np.float32)
    with torch.inference_mode(), autocast(precision, device):
        for a in range(0, len(idx), batch):
            xb = to_input(X[idx[a:a + batch]], channels_last, device)
            _, vlog, _ = model.forward_all(xb)
            probs[a:a + batch] = torch.sigmoid(vlog.float()).cpu().numpy()
    model.train()
    won = z[idx] > 0
    right = (probs > 0.5) == won
    mv = move_no[idx]
    late = mv >= min_move
    out = {"positions": int(late.sum()),
           "sign_accuracy": float(right[late].mean()) if late.any() else float("nan"),
           "mse": float(np.mean((probs - won) ** 2)),
           "by_phase": {}}
    for a, b in PHASES:
        m = (mv >= a) & (mv < b)
        if m.any():
            out["by_phase"][f"{a}-{b - 1 if b < 1000 else 'end'}"] = {
                "positions": int(m.sum()), "sign_accuracy": float(right[m].mean())}
    return out


def evaluate_teacher(model, X, move_no, tt, ids, batch=512, precision="fp32", channels_last=False, device="cpu",
                     symmetries=(0,)):
    """The net against the teacher on the rows ``ids`` that have its
    targets: policy top-1 agreement with the teacher's best move, the
    value's Brier score against the teacher's win rate (by phase), the
    score's mean absolute error and the ownership's.  ``symmetries``: the
    net's answer is the mean over these (nets.model.symmetric_heads)."""
    from nets.model import symmetric_heads
    symmetries = tuple(int(s) for s in symmetries)
    import torch
    ids = np.asarray([i for i in ids if tt["has"][i]], np.int64)
    out = {"positions": int(len(ids))}
    if not len(ids):
        return out
    model.eval()
    agree, brier, s_err, o_err, phases = [], [], [], [], []
    with torch.inference_mode(), autocast(precision, device):
        for a in range(0, len(ids), batch):
            b = ids[a:a + batch]
            xb = to_input(X[b], channels_last, device)
            if symmetries == (0,):
                logits, vlog, score, own, _ = model.forward_heads(xb)
            else:
                probs, vp, score, own = symmetric_heads(model, xb.float(), symmetries)
                logits = torch.log(probs.clamp_min(1e-12))
                vlog = None if vp is None else torch.logit(vp.clamp(1e-6, 1 - 1e-6))
            m = legal_mask_from_planes(torch.from_numpy(X[b])).to(device)
            best_t = tt["policy"][b].astype(np.float32).argmax(1)
            pred = logits.float().masked_fill(~m, float("-inf")).argmax(1).cpu().numpy()
            agree.append(pred == best_t)
            if vlog is not None:
                brier.append((torch.sigmoid(vlog.float()).cpu().numpy() - tt["value"][b]) ** 2)
            if score is not None:
                s_err.append(np.abs(score.float().cpu().numpy() - tt["lead"][b]))
                o_err.append(np.abs(own.float().reshape(len(b), -1).cpu().numpy()
                                    - tt["own"][b].astype(np.float32) / 127).mean(1))
            phases.append(move_no[b])
    model.train()
    agree, ph = np.concatenate(agree), np.concatenate(phases)
    out["policy_top1_vs_teacher"] = float(agree.mean())
    if brier:
        br = np.concatenate(brier)
        out["value_brier_vs_teacher"] = float(br.mean())
        out["value_brier_by_phase"] = {f"{a}-{b - 1 if b < 1000 else 'end'}": float(br[(ph >= a) & (ph < b)].mean())
                                       for a, b in PHASES if ((ph >= a) & (ph < b)).any()}
    if s_err:
        out["score_mae"] = float(np.concatenate(s_err).mean())
        out["ownership_mae"] = float(np.concatenate(o_err).mean())
    return out
