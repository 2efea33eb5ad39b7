"""How near the net's value is to a strong reference where a search reads
it (issue 85, item 1): the root children of the searches of the M-MCTS
claim (tools.mmcts_claim: held-out positions, the uct tree at 1,000
simulations, rollouts only), each with KataGo g170-b6c96's win rate at 100
visits (V*) and the search's Monte Carlo mean (the rollouts' mean over the
child's visits), from records/results/mmcts-claim-children-<n>.json.gz.

    python bench/value_on_children.py [--size 9] [--weights W] [--symmetries 0|all] [--mix 0.2]

For each child the net's value of the position after it, for the side that
played it (the shipped net of the size unless ``--weights``; ``--symmetries
all``: the mean over the board's eight symmetries, nets.model.symmetric_heads),
and the mean absolute error against V* of the net, of the Monte Carlo mean,
and of their mix (``--mix`` the net's weight, the shipped search.value_lambda
is 0.2), by the child's visits and by the phase of the game (the search's
phases, board_ext.phases).  The figure, last: ``value_mae: X`` for the net,
with its ratio to the Monte Carlo mean's over the same children.
"""
import argparse
import gzip
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from board_ext.board import Board  # noqa: E402
from board_ext.phases import board_phase  # noqa: E402
from nets.shards import load_shard  # noqa: E402

BUCKETS = ((1, 10, "1-9"), (10, 100, "10-99"), (100, 10**9, "100+"))
PHASES = ("opening", "middle", "end")
SHIPPED = {9: "nets/weights/9x9-res3.pt", 19: "nets/weights/19x19-res4.pt"}


def children(size):
    """[(board after the child, V*, Monte Carlo mean, visits)] of the
    claim's archive for ``size``."""
    with gzip.open(os.path.join(ROOT, "records", "results", f"mmcts-claim-children-{size}.json.gz")) as f:
        data = json.load(f)
    shards = {}
    out = []
    for rec in data["records"]:
        where, turn = rec["tag"].rsplit("@", 1)
        shard, game = where.split("#")
        if shard not in shards:
            shards[shard] = load_shard(os.path.join(ROOT, data["held_out"], shard))
        sh = shards[shard]
        off = sh["offsets"]
        moves = [int(m) for m in sh["moves"][off[int(game)]:off[int(game) + 1]]][:int(turn)]
        root = Board(size)
        for m in moves:
            root.play(m)
        for c in rec["children"]:
            if c.get("Vstar") is None:
                continue
            b = root.copy()
            b.play(int(c["move"]))
            out.append((b, float(c["Vstar"]), float(c["V"]), int(c["N"])))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9, choices=(9, 19))
    ap.add_argument("--weights", default="")
    ap.add_argument("--symmetries", default="0", choices=("0", "all"))
    ap.add_argument("--mix", type=float, default=0.2, help="the net's weight in the mix with the Monte Carlo mean")
    args = ap.parse_args(argv)
    from nets.evaluator import Evaluator
    ev = Evaluator.load(os.path.join(ROOT, args.weights or SHIPPED[args.size]), board_size=args.size)
    syms = range(8) if args.symmetries == "all" else (0,)
    rows = []
    for b, vstar, mc, n in children(args.size):
        # the net speaks for the side to move after the child: the player
        # who played the child has the complement
        net = 1.0 - ev.raw(b, syms)["value"]
        rows.append((vstar, mc, net, n, board_phase(b)))
    print(f"{args.size}x{args.size}: {len(rows)} children of {ev.name} "
          f"(symmetries {args.symmetries}), MAE against V*:")
    print("| children | n | net | Monte Carlo | mix |\n|---|---|---|---|---|")

    def line(name, sel):
        if not sel:
            return
        e_net = statistics.mean(abs(r[0] - r[2]) for r in sel)
        e_mc = statistics.mean(abs(r[0] - r[1]) for r in sel)
        e_mix = statistics.mean(abs(r[0] - (args.mix * r[2] + (1 - args.mix) * r[1])) for r in sel)
        print(f"| {name} | {len(sel)} | {e_net:.3f} | {e_mc:.3f} | {e_mix:.3f} |")
    for lo, hi, name in BUCKETS:
        line(f"{name} visits", [r for r in rows if lo <= r[3] < hi])
    for k, name in enumerate(PHASES):
        line(name, [r for r in rows if r[4] == k])
    line("all", rows)
    e_net = statistics.mean(abs(r[0] - r[2]) for r in rows)
    e_mc = statistics.mean(abs(r[0] - r[1]) for r in rows)
    print(f"ratio net/Monte Carlo: {e_net / e_mc:.3f}")
    print(f"value_mae: {e_net:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
