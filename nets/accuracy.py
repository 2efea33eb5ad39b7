"""A net's move agreement and value calibration on held-out games.

    python -m nets.accuracy --weights nets/weights/19x19.pt --data records/datasets/19x19-test --size 19

Top-1 and top-3 (legal moves only) of the net's move priors against the
games' moves, and, for a net with a value head, the value's Brier score and
sign accuracy against the games' results, by game phase (moves played
before the position: opening < 20% of the board's points, middle < 50%,
end).  A fully convolutional net (``policy_head = "conv"``) is read at any
board size (``--size``).  The figures are printed as a Markdown table.

    python -m nets.accuracy --weights nets/weights/9x9.pt --teacher records/datasets/teacher/9x9 --val-fraction 0.1

With ``--teacher`` (label shards of ``tools.label``) the net is measured
against the teacher on the games that a training run with the same
``val_fraction`` holds out: top-1 agreement with the teacher's best move,
the value's Brier score against the teacher's win rate and against the
games' results by phase, and, for a net with score and ownership heads,
their mean absolute errors.

With ``--symmetries all`` (or a list such as ``0,5``) the net's answer is
the mean over those symmetries of the board (nets.model.symmetric_heads),
as kata-raw-nn's ``all`` is.

    python -m nets.accuracy --teacher records/datasets/teacher/13x13-play-test --source runs/play-test-src-13

With ``--source`` instead of ``--weights`` (the label shards' source, a set of
``tools.teacher_play`` whose shards keep the playing network's own policy),
the top-1 of that network's raw policy against the teacher's best move on
the same positions: the ceiling a net taught by the playing network alone
reaches.
"""
import argparse
import sys

import numpy as np


def evaluate(weights, data, size):
    """{"positions", "top1", "top3", "phases": {name: (n, brier, sign)}}."""
    import torch
    from nets.data import load_positions
    from nets.measures import legal_mask_from_planes
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


def evaluate_teacher(weights, dirs, val_fraction, size=None, symmetries=(0,), precision="fp32"):
    """The net against the teacher on the held-out games of ``dirs``
    (``size``: a fully convolutional net read at that board size;
    ``symmetries``: the net's answer is the mean over these; ``precision``:
    "bf16" runs the net under bf16 autocast, as ``net.precision`` does)."""
    import contextlib
    import torch
    from nets import data as D
    from nets.measures import PHASES, evaluate_teacher as ev_teacher
    from nets.train import join_teacher
    ev = _evaluator(weights, size)
    pos, tt = D.load_teacher(dirs, size=ev.board_size, n_planes=ev.config.in_planes, log=lambda m: None)
    pos, t = join_teacher(None, pos, tt)
    ids = np.nonzero(D.split_by_game(pos.game, val_fraction))[0] if val_fraction > 0 else np.arange(len(pos))
    cast = (lambda: torch.autocast("cpu", torch.bfloat16)) if precision == "bf16" else contextlib.nullcontext
    with cast():
        out = ev_teacher(ev.model, pos.X, pos.move_no, t, ids, symmetries=symmetries)
    out["games"] = int(len(np.unique(pos.game[ids])))
    out["precision"] = precision
    if ev.has_value:
        with torch.inference_mode(), cast():
            v = np.concatenate([torch.sigmoid(ev.model.forward_all(torch.from_numpy(pos.X[ids[a:a + 256]]).float())[1]
                                              .float()).numpy() for a in range(0, len(ids), 256)])
        z, mv = pos.z[ids], pos.move_no[ids]
        out["value_brier_vs_results_by_phase"] = {
            f"{a}-{b - 1 if b < 1000 else 'end'}": float(np.mean((v[m] - (z[m] > 0)) ** 2))
            for a, b in PHASES for m in [((mv >= a) & (mv < b) & (z != 0))] if m.any()}
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


def source_agreement(label_dirs, source_dirs):
    """(agreeing, positions): the label shards' positions that the source
    shards also hold (the same board size and moves played: a position
    reached by several games counts as often as it is labelled, as the nets' figures count it), and how many of them have the
    source's best move (its stored policy) equal to the teacher's."""
    from nets.data import list_shards
    from nets.shards import load_shard, teacher_targets

    def best_by_position(dirs):
        for f in list_shards(dirs):
            sh = load_shard(f)
            pol = teacher_targets(sh)[0]
            off = sh["offsets"]
            for k, (g, t) in enumerate(zip(sh["pos_game"], sh["pos_turn"])):
                mv = sh["moves"][off[g]:off[g] + int(t)]
                yield (int(sh["size"]), bytes(np.asarray(mv, np.int32))), int(np.argmax(pol[k]))

    src = dict(best_by_position(source_dirs))
    got = [(src[key], best) for key, best in best_by_position(label_dirs) if key in src]
    return sum(a == b for a, b in got), len(got)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights")
    ap.add_argument("--source", nargs="+", help="with --teacher, instead of --weights: the source set's own policy")
    ap.add_argument("--data", nargs="+")
    ap.add_argument("--teacher", nargs="+", help="label shards (tools.label): agreement with the teacher")
    ap.add_argument("--val-fraction", type=float, default=0.1,
                    help="with --teacher: the held-out games, as the training run's val_fraction (0: all)")
    ap.add_argument("--size", type=int, default=None, help="board size (a conv net at another size)")
    ap.add_argument("--symmetries", default="0",
                    help="with --teacher: the net's answer is the mean over these symmetries "
                         "(0-7, comma-separated, or all)")
    ap.add_argument("--precision", default="fp32", choices=("fp32", "bf16"),
                    help="with --teacher: the net in fp32 or under bf16 autocast (net.precision)")
    args = ap.parse_args(argv)
    try:
        syms = tuple(range(8)) if args.symmetries == "all" else tuple(int(s) for s in args.symmetries.split(","))
        if not syms or any(s < 0 or s > 7 for s in syms):
            raise ValueError
    except ValueError:
        ap.error(f"--symmetries takes 0-7, comma-separated, or all, not {args.symmetries!r}")
    if bool(args.data) == bool(args.teacher):
        ap.error("give --data or --teacher")
    if args.source:
        if not args.teacher or args.weights:
            ap.error("--source goes with --teacher, without --weights")
        hit, n = source_agreement(args.teacher, args.source)
        if not n:
            print(f"no position of {' '.join(args.teacher)} is in {' '.join(args.source)}", file=sys.stderr)
            return 1
        print(f"the source's own policy against the teacher: {hit} of {n} positions")
        print(f"top-1 against the teacher: {100 * hit / n:.1f} %")
        return 0
    if not args.weights:
        ap.error("give --weights (or --source with --teacher)")
    if args.teacher:
        import json
        r = evaluate_teacher(args.weights, args.teacher, args.val_fraction, args.size, symmetries=syms,
                             precision=args.precision)
        print(f"{args.weights} against the teacher on {' '.join(args.teacher)} "
              f"(held-out games, val_fraction {args.val_fraction}, symmetries {args.symmetries}):")
        print(json.dumps(r, indent=1))
        print(f"top-1 against the teacher: {100 * r.get('policy_top1_vs_teacher', float('nan')):.1f} %")
        return 0
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
