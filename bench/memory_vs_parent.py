"""What the M-MCTS memory knows about a child that its parent does not:
the memory value V_M of each root child against the simplest prior there
is, the position's own value as the search read it (the visit-weighted
mean of the recorded children's Monte Carlo means, the most visited child
carrying most of it), both against the teacher's V*.

    python bench/memory_vs_parent.py [--size 19] [--sims 1000]

It reads the children the M-MCTS claim published
(``records/results/mmcts-claim-children-<n>.json.gz``, ``tools.mmcts_claim
--publish``: held-out positions, the paper's search at ``--sims`` simulations,
each child's visits N, Monte Carlo mean V, memory value VM, the blend and
g170-b6c96's win rate V* at 100 visits), and prints by the child's visits
the mean absolute error of each estimate against V*, and how well each
estimate's deviation from its position's mean follows V*'s (Pearson's r
over the children: the part of an estimate that tells one child from its
siblings).  The Theorem's comparison (V_M against V) says the memory is
nearer V* for rarely visited children; this one says whether it is nearer
than a constant per position.  The last line is the figure, for children of
fewer than 10 visits: ``memory_vs_parent: M MAE (the parent's value P,
r times)``.
"""
import argparse
import gzip
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
BUCKETS = (("1-9", 1, 10), ("10-99", 10, 100), ("100+", 100, 10 ** 12), ("all", 0, 10 ** 12))


def children(size, sims=1000):
    """[(N, V, VM, blend, V*, parent, V* mean, VM mean, V mean)] of every
    recorded child with visits."""
    from tools.mmcts_claim import children_name     # the file's name, where the claim writes it
    path = os.path.join(ROOT, "records", "results", children_name(size, sims))
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        recs = json.load(fh)["records"]
    out = []
    for rec in recs:
        ch = [c for c in rec["children"] if c["N"] > 0]
        total = sum(c["N"] for c in ch)
        if not ch:
            continue
        parent = sum(c["N"] * c["V"] for c in ch) / total
        vs = statistics.fmean(c["Vstar"] for c in ch)
        vm = statistics.fmean(c["VM"] for c in ch)
        v = statistics.fmean(c["V"] for c in ch)
        out += [(c["N"], c["V"], c["VM"], c["blend"], c["Vstar"], parent, vs, vm, v) for c in ch]
    return out


def corr(xs, ys):
    try:
        return statistics.correlation(xs, ys)
    except statistics.StatisticsError:   # fewer than two children or a constant
        return float("nan")


def table(rows):
    """{bucket: figures} of the rows."""
    out = {}
    for name, lo, hi in BUCKETS:
        r = [x for x in rows if lo <= x[0] < hi]
        if not r:
            continue
        mae = {k: statistics.fmean(abs(x[i] - x[4]) for x in r)
               for k, i in (("mc", 1), ("memory", 2), ("blend", 3), ("parent", 5))}
        dev = [x[4] - x[6] for x in r]
        out[name] = dict(children=len(r), **{f"mae_{k}": v for k, v in mae.items()},
                         r_memory=corr([x[2] - x[7] for x in r], dev),
                         r_mc=corr([x[1] - x[8] for x in r], dev))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--sims", type=int, default=1000, help="the claim's budget (its published children)")
    a = ap.parse_args()
    t = table(children(a.size, a.sims))
    print(f"{a.size}x{a.size}, the claim's children at {a.sims:,} simulations; MAE against V* (g170-b6c96, 100 visits)")
    print("visits  children  MC     memory  blend  parent | r(memory)  r(MC)")
    for name, f in t.items():
        print(f"{name:7} {f['children']:8d}  {f['mae_mc']:.3f}  {f['mae_memory']:.3f}   {f['mae_blend']:.3f}  "
              f"{f['mae_parent']:.3f}  | {f['r_memory']:9.3f}  {f['r_mc']:.3f}")
    f = t["1-9"]
    print(f"memory_vs_parent: {f['mae_memory']:.3f} MAE (the parent's value {f['mae_parent']:.3f}, "
          f"{f['mae_memory'] / f['mae_parent']:.2f} times)")


if __name__ == "__main__":
    main()
