"""Whole self-play games of the Player for fixed seeds, to the two passes:
the moves a Player makes (search, pass rule, pass safety, estimate) before
and after a change that must not change them.  ``tests/data/
game_fingerprints.json`` holds them; ``python -m tests.game_fingerprint
--write`` renews it (only for a deliberate change of play)."""
import json
import os
import sys

from engine.config import load
from engine.player import Player

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "data", "game_fingerprints.json")

# (name, settings, board size)
CASES = [
    ("rave-expert-9", ["prior.evaluator=expert", "search.playouts=300"], 9),
    ("rave-expert-7-japanese", ["prior.evaluator=expert", "search.playouts=200", "player.rules=japanese"], 7),
    ("uct-expert-7", ["search.tree=uct", "prior.evaluator=expert", "search.playouts=200"], 7),
]


def play(case, max_moves=200):
    name, sets, size = case
    cfg = load(None, sets + ["search.seed=5", "search.seconds=0", "search.early_stop=false",
                             "search.threads=1", f"gtp.boardsize={size}", "gtp.komi=6.5"])
    p = Player(cfg)
    moves, passes = [], 0
    while passes < 2 and len(moves) < max_moves:
        m = p.genmove(1 + len(moves) % 2)
        moves.append(int(m))
        if m < 0:
            break
        passes = passes + 1 if m == size * size else 0
    return {"moves": moves, "score": p.final_score()}


def main(argv):
    out = {c[0]: play(c) for c in CASES}
    if "--write" in argv:
        with open(PATH, "w") as f:
            json.dump(out, f, sort_keys=True)
    print(json.dumps({k: (len(v["moves"]), v["score"]) for k, v in out.items()}))


if __name__ == "__main__":
    main(sys.argv[1:])
