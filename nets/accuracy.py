"""A net's move agreement and value calibration on held-out games.

    python -m nets.accuracy --weights nets/weights/19x19.pt --data datasets/19x19-test --size 19

Top-1 and top-3 (legal moves only) of the net's move priors against the
games' moves, and, for a net with a value head, the value's Brier score and
sign accuracy against the games' results, by game phase (moves played
before the position: opening < 20% of the board's points, middle < 50%,
end).  A fully convolutional net (``policy_head = "conv"``) is read at any
board size (``--size``).  The figures are printed as a Markdown table.
"""
import argparse
import sys

import numpy as np


def evaluate(weights, data, size):
    """{"positions", "top1", "top3", "phases": {name: (n, brier, sign)}}."""
    import torch
    from nets.data import load_positions
    from nets.train import legal_mask_from_planes
    ev = _evaluator(weights, size)
    model = ev.model
    model.eval()
    pos = load_positions(data, size=ev.board_size, n_planes=ev.config.in_planes, log=lambda m: None)
    X, y = pos.X, pos.y
    c1 = c3 = 0
    vals = []
    with torch.inference_mode():
        for a in range(0, len(y), 256):
            xb = torch.from_numpy(X[a:a + 256]).float()
            logits, value, _ = model.forward_all(xb)
            m = legal_mask_from_planes(torch.from_numpy(X[a:a + 256]))
            yb = torch.from_numpy(y[a:a + 256])
            m[torch.arange(len(yb)), yb] = True
            top = logits.float().masked_fill(~m, float("-inf")).topk(3, dim=1).indices
            c1 += (top[:, 0] == yb).sum().item()
            c3 += (top == yb[:, None]).any(1).sum().item()
            if value is not None:
                vals.append(torch.sigmoid(value.float()).numpy())
    out = {"positions": len(y), "games": pos.n_games, "top1": c1 / len(y), "top3": c3 / len(y), "phases": {}}
    if vals and pos.z is not None:
        v = np.concatenate(vals)
        z = pos.z.astype(np.float64)
        pts = ev.board_size ** 2
        phase = np.where(pos.move_no < 0.2 * pts, 0, np.where(pos.move_no < 0.5 * pts, 1, 2))
        for k, name in enumerate(("opening", "middle", "end")):
            sel = (phase == k) & (z != 0)
            if sel.any():
                target = (z[sel] > 0).astype(np.float64)
                out["phases"][name] = (int(sel.sum()), float(np.mean((v[sel] - target) ** 2)),
                                       float(np.mean((v[sel] > 0.5) == (target > 0.5))))
    return out


def _evaluator(weights, size):
    """The net of ``weights`` at board size ``size`` (None: its own); a
    fully connected net fits its own size only (WeightsError otherwise)."""
    from nets.evaluator import Evaluator, WeightsError
    ev = Evaluator.load(weights, threads=1, board_size=size)
    if size is not None and ev.board_size != size:
        raise WeightsError(f"{weights}: a {ev.config.policy_head} net for {ev.board_size}x{ev.board_size} "
                           f"fits one board size only")
    return ev


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", required=True)
    ap.add_argument("--data", required=True, nargs="+")
    ap.add_argument("--size", type=int, default=None, help="board size (a conv net at another size)")
    args = ap.parse_args(argv)
    r = evaluate(args.weights, args.data, args.size)
    print(f"{args.weights} on {' '.join(args.data)}: {r['positions']} positions of {r['games']} games")
    print("| top-1 | top-3 |\n|---|---|")
    print(f"| {100 * r['top1']:.1f}% | {100 * r['top3']:.1f}% |")
    if r["phases"]:
        print("\n| phase | positions | value Brier | value sign right |\n|---|---|---|---|")
        for name, (n, brier, sign) in r["phases"].items():
            print(f"| {name} | {n} | {brier:.3f} | {100 * sign:.1f}% |")
    print(f"top-1: {100 * r['top1']:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
