"""How well kata-analyze's score lead agrees with its win rate: the
correlation over the well-visited candidates of a few positions.

    python bench/lead_winrate.py [--size 9] [--playouts 5000] [--positions 6]

The positions are the first moves of a fixed-seed self-play game of the
shipped engine; a candidate counts with at least 2% of the root's visits.
Prints the Pearson correlation of win rate and lead last.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.config import load  # noqa: E402
from engine.player import Player  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=5000)
    ap.add_argument("--positions", type=int, default=6)
    args = ap.parse_args()
    cfg = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs",
                       f"{args.size}x{args.size}.toml")
    p = Player(load(cfg, ["search.seed=2", "search.seconds=0", f"search.playouts={args.playouts}",
                          "search.early_stop=false"]))
    xs, ys, refs = [], [], []
    for k in range(args.positions):
        color = p.game.to_move
        got = []
        p.genmove(color, play=False)
        p.analyst.scored_rows(color, got.append)(p.search().analysis())
        rows = got[-1]
        ref = p.analyst.score_rows(color)      # the reference: dedicated playouts after each move
        total = sum(r["visits"] for r in rows)
        for r in rows:
            if r["visits"] >= 0.02 * total:
                xs.append(r["winrate"])
                ys.append(r["scoreLead"])
                refs.append(ref.move(r["move"])[0])
        p.genmove(color)
    print(f"{len(xs)} candidates over {args.positions} positions, {args.playouts} simulations each")
    print(f"reference (player.move_score_playouts dedicated playouts a move): {pearson(xs, refs):.2f} r")
    print(f"correlation of win rate and score lead: {pearson(xs, ys):.2f} r")


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = sum((x - mx) ** 2 for x in xs) ** 0.5
    sy = sum((y - my) ** 2 for y in ys) ** 0.5
    return cov / (sx * sy)


if __name__ == "__main__":
    main()
