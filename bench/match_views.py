"""How each side of a match between two of this engine's configs judged
the positions of its games, read from the move comments the engine writes
into the SGF (``<move> winrate W% visits ...``: the win rate of the move it
chose, for the side that played it).

    python bench/match_views.py runs/match/mmcts-19-4000

For every move of a side that the other side answered, the side's own
win rate after its move against the other side's view of the same
position (one minus the win rate the other side reported for its answer).
A side that misjudges positions as a whole (a value pulled up or down
everywhere, a resignation taken too early) shows a gap the other side
does not; both sides carry the same upward bias of reporting the best of
their moves.  Then what each move cost as the other side saw it: the
other side's win rate after its answer to the move less its win rate
before the move, by move number (a side that plays many slightly worse
moves shows a small cost spread over the game; one that blunders, a few
large ones).  Prints a line a side for each, then last
``move_cost_difference: D points a move`` (the first name's mean cost
minus the second's, in percentage points).
"""
import argparse
import json
import os
import re
import statistics
import sys

from match_playouts import MOVE, NODE           # bench/: the SGF's nodes and moves, read the same way

RATE = re.compile(r"C\[\S+ winrate ([0-9.]+)%")
PHASES = ((0, 50), (50, 100), (100, 150), (150, 200), (200, 1 << 30))
BUCKETS = (("other side's view below 35%", 0.0, 0.35), ("35-65%", 0.35, 0.65), ("above 65%", 0.65, 1.01))


def rates(sgf):
    """[(colour, win rate or None)] of the game's moves in order, the win
    rate the mover reported for its move."""
    out = []
    for node in NODE.findall(sgf):
        m = MOVE.search(node)
        if not m:
            continue
        r = RATE.search(node)
        out.append((m.group(1), float(r.group(1)) / 100 if r else None))
    return out


def gaps(folder):
    """(names, {name: [(other side's view, own rate - other side's view)]},
    {name: [(move number from 0, the other side's rate after its answer
    less its rate before the move)]}) over the match's games."""
    with open(os.path.join(folder, "results.json")) as fh:
        res = json.load(fh)
    names = res["names"]
    out = {n: [] for n in names}
    cost = {n: [] for n in names}
    for g in res["games"]:
        path = os.path.join(folder, f"game-{g['index'] + 1:04d}.sgf")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            moves = rates(fh.read())
        a_black = g["a_color"] == "black"
        for (colour, own), (_, answer) in zip(moves, moves[1:]):
            if own is None or answer is None:
                continue
            name = names[0] if (colour == "B") == a_black else names[1]
            other = 1.0 - answer
            out[name].append((other, own - other))
        for i in range(1, len(moves) - 1):
            before, after = moves[i - 1][1], moves[i + 1][1]
            if before is not None and after is not None:
                name = names[0] if (moves[i][0] == "B") == a_black else names[1]
                cost[name].append((i, after - before))
    return names, out, cost


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="a tools.match --out folder (results.json and game-NNNN.sgf)")
    a = ap.parse_args(argv)
    names, sides, cost = gaps(a.folder)
    means = []
    for name in names:
        rows = sides[name]
        if not rows:
            sys.exit(f"match_views: no answered moves with win rates for {name}")
        means.append(100 * statistics.mean(d for _, d in rows))
        parts = []
        for label, lo, hi in BUCKETS:
            ds = [d for o, d in rows if lo <= o < hi]
            if ds:
                parts.append(f"{label}: {100 * statistics.mean(ds):+.1f} points over {len(ds)}")
        print(f"{name}: {len(rows)} moves, own win rate minus the other side's view {means[-1]:+.1f} points; "
              + "; ".join(parts))
    print(f"view_gap_difference: {means[0] - means[1]:+.1f} points")
    costs = []
    for name in names:
        rows = cost[name]
        costs.append(100 * statistics.mean(d for _, d in rows) if rows else 0.0)
        parts = []
        for lo, hi in PHASES:
            ds = [d for i, d in rows if lo <= i < hi]
            if ds:
                parts.append(f"moves {lo}-{hi - 1 if hi < 1 << 30 else ''}: {100 * statistics.mean(ds):+.2f}")
        print(f"{name}: what a move cost as the other side saw it {costs[-1]:+.2f} points; " + "; ".join(parts))
    print(f"move_cost_difference: {costs[0] - costs[1]:+.2f} points a move")


if __name__ == "__main__":
    main()
