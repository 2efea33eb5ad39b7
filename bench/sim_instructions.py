"""Instructions per simulation of the search tree, counted by valgrind's
callgrind (repeatable whatever else the machine is doing, unlike seconds).

    python bench/sim_instructions.py [--tree rave|uct] [--sims 3000] [--size 9]

Runs a child process twice under ``valgrind --tool=callgrind`` (0 and
``--sims`` simulations of a fresh 9x9 tree, expert rollouts, fixed seed)
and prints the difference per simulation last.  Needs valgrind.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = """
import sys
from board_ext.board import Board
from engine.factory import bare_tree
n, tree, size = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
t = bare_tree(size, 200000, "recycle", seed=3)
t.configure(rollout="expert", komi=7.0, tree=tree)
t.set_params(tree, dict(t.params(tree), rave=True, rave_equiv=3000.0, K=0.0 if tree == "rave" else 0.7))
t.set_root(Board(size))
t.simulate(n)
"""


def instructions(n, tree, size):
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", CHILD, str(n), tree, str(size)],
                         cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    m = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or not m:
        raise SystemExit(f"valgrind failed: {out.stderr[-500:]}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default="rave", choices=["rave", "uct"])
    ap.add_argument("--sims", type=int, default=3000)
    ap.add_argument("--size", type=int, default=9)
    args = ap.parse_args()
    base = instructions(0, args.tree, args.size)
    full = instructions(args.sims, args.tree, args.size)
    print(f"{args.tree} tree, {args.size}x{args.size}, {args.sims} simulations, expert rollouts")
    print(f"instructions per simulation: {(full - base) / args.sims:.0f} instructions")


if __name__ == "__main__":
    main()
