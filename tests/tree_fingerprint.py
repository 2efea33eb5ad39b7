"""Fingerprints of whole search trees for fixed seeds: every node's move and
statistics, walked from the root in child order.  ``tests/data/
tree_fingerprints.json`` holds the ones the engine made before the tree was
split into its files; ``python -m tests.tree_fingerprint --write`` renews it
(only for a deliberate change of the trees; ``--add`` writes only new
cases).  The net case is pinned since the search's chunks stopped
depending on the clock under a playout budget (before, when the net's
answers came depended on timing).

The hash holds every node's move and statistics; the priors and the policy
probabilities (``P``), floats that a net's arithmetic rounds differently on
another CPU (its vector units: a last-digit difference flipped P's sixth
decimal between an Intel and an AMD machine with the same trees), are
summed apart and compared to a tolerance (``prior_sum``, ``prior_moment``,
``p_sum``, ``p_moment``: the sums, and the sums weighted by the node's place
in the walk)."""
import hashlib
import json
import os
import sys

from board_ext.board import Board
from engine import config
from engine.factory import load_evaluator, make_search

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "data", "tree_fingerprints.json")
ROOT = os.path.dirname(HERE)

# (name, config file or None, settings, board size, opening moves, simulations)
CASES = [
    # the default engine, net priors, at the net's weight, with the net the fingerprint was taken with and its value off
    ("rave-net-9", "configs/9x9.toml", ["rave.net_equiv=30", "net.weights=nets/weights/9x9.pt", "search.value_lambda=0"], 9, [40, 30], 1500),
    # the shipped 9x9 net with the net prior's growth and fade (added when the kernels took their parameter structs),
    # its arithmetic in float64 (net.precision: in float32 its residual trunk's answers differ in the sixth digit
    # between an AMD EPYC with AVX-512 and the machines the cases were first taken on, and so do the trees)
    ("rave-grow-fade-9", "configs/9x9.toml", ["rave.net_grow=200", "rave.net_fade=0.5", "net.precision=fp64"], 9, [40, 30], 1500),
    # (renewed when the uct tree began to mix the value of the leaves the net evaluates: the 9x9 config's
    # value_lambda 0.2 on its first 60 net nodes)
    ("uct-puct-net-9", "configs/9x9.toml", ["search.tree=uct", "uct.policy=puct", "prior.dcnn_nodes=60",
                                            "net.precision=fp64"], 9, [40], 800),
    ("rave-expert-9", "configs/9x9.toml", ["prior.evaluator=expert"], 9, [40], 1500),
    ("rave-recycle-9", "configs/9x9.toml", ["prior.evaluator=expert", "pool.pool_size=300"], 9, [], 1500),
    ("rave-moggy-19", "configs/19x19.toml", ["prior.evaluator=expert", "search.rollout=moggy"], 19, [72], 400),
    ("uct-expert-9", None, ["search.tree=uct", "prior.evaluator=expert", "uct.rave=true"], 9, [40], 1500),
    ("uct-bhrf-9", None, ["search.tree=uct", "prior.evaluator=none", "search.rollout=bhrf"], 9, [], 1500),
    ("uct-stunt-9", None, ["search.tree=uct", "prior.evaluator=uniform", "pool.pool_size=200",
                           "pool.full_policy=stunt"], 9, [], 1500),
]


def fingerprint(case):
    name, path, sets, size, opening, sims = case
    cfg = config.load(os.path.join(ROOT, path) if path else None,
                      sets + ["search.seed=11", "search.seconds=0", "search.early_stop=false",
                              "search.threads=1"])
    s = make_search(cfg, load_evaluator(cfg, size))
    b = Board(size)
    for m in opening:
        b.play(m)
    s.set_position(b, 7.5)
    s.run(playouts=sims)
    t = s.tree
    h = hashlib.sha256()
    stack = [t.root_id]
    nodes, k, psum, pmom, qsum, qmom = 0, 0, 0.0, 0.0, 0.0, 0.0
    while stack:
        x = stack.pop()
        nodes += 1
        for ch in t.children(x):
            pri = t.child_priors(x)[ch[0]]        # a number, or a tuple of them (the rave tree's)
            pri = sum(float(v) for v in pri) if isinstance(pri, tuple) else float(pri)
            h.update(repr((ch[0], ch[1], ch[2], ch[4], ch[5])).encode())
            k += 1
            psum += pri
            pmom += pri * (k % 97)
            qsum += float(ch[3])
            qmom += float(ch[3]) * (k % 97)
            stack.append(ch[6])
    root = sorted(((int(c[0]), float(c[1])) for c in t.children()), key=lambda r: -r[1])[:5]
    return {"nodes": nodes, "sha": h.hexdigest(), "top": root,
            "prior_sum": round(psum, 4), "prior_moment": round(pmom, 2),
            "p_sum": round(qsum, 4), "p_moment": round(qmom, 2)}


def main(argv):
    if "--add" in argv:         # fingerprint only the cases not in the file yet
        with open(PATH) as f:
            have = json.load(f)
        out = dict(have, **{c[0]: fingerprint(c) for c in CASES if c[0] not in have})
        argv = argv + ["--write"]
    else:
        out = {c[0]: fingerprint(c) for c in CASES}
    if "--write" in argv:
        with open(PATH, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
