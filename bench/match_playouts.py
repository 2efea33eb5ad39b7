"""What each side of an equal-clock match between two of this engine's
configs searched: visits and playouts a move, read from the move comments
the engine writes into the games' SGF (``... visits V playouts P time T``).

    python bench/match_playouts.py runs/match/mmcts-19-2min

A side that pays for a feature with time (the M-MCTS memory, a bigger net)
shows it here as fewer playouts a move than the other.  Prints one line a
side, then last ``playouts_ratio: R`` (the first name's mean playouts a
move over the second's).
"""
import argparse
import json
import os
import re
import statistics
import sys

NODE = re.compile(r";((?:[^;\[]|\[(?:\\.|[^\]\\])*\])*)", re.S)
MOVE = re.compile(r"\b([BW])\[([a-s]{0,2})\]")
STATS = re.compile(r"visits (\d+) playouts (\d+) time ([0-9.]+)s")


def moves_with_stats(sgf):
    """[(colour 'B'/'W', visits, playouts, seconds)] of the moves whose comment has them."""
    out = []
    for node in NODE.findall(sgf):
        m, s = MOVE.search(node), STATS.search(node)
        if m and s:
            out.append((m.group(1), int(s.group(1)), int(s.group(2)), float(s.group(3))))
    return out


def by_side(folder):
    """{name: {"visits": [...], "playouts": [...]}} over the match's games."""
    with open(os.path.join(folder, "results.json")) as fh:
        res = json.load(fh)
    names = res["names"]
    out = {n: {"visits": [], "playouts": [], "seconds": []} for n in names}
    for g in res["games"]:
        path = os.path.join(folder, f"game-{g['index'] + 1:04d}.sgf")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            sgf = fh.read()
        a_black = g["a_color"] == "black"
        for colour, visits, playouts, seconds in moves_with_stats(sgf):
            name = names[0] if (colour == "B") == a_black else names[1]
            out[name]["visits"].append(visits)
            out[name]["playouts"].append(playouts)
            out[name]["seconds"].append(seconds)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="a tools.match --out folder (results.json and game-NNNN.sgf)")
    a = ap.parse_args(argv)
    sides = by_side(a.folder)
    means = []
    for name, t in sides.items():
        if not t["playouts"]:
            sys.exit(f"match_playouts: no move comments with playouts for {name}")
        means.append(statistics.mean(t["playouts"]))
        print(f"{name}: {len(t['playouts'])} moves, playouts a move mean {means[-1]:.0f} "
              f"median {statistics.median(t['playouts']):.0f}, visits mean {statistics.mean(t['visits']):.0f}, "
              f"seconds a move {statistics.mean(t['seconds']):.3f}, "
              f"playouts a second {sum(t['playouts']) / max(1e-9, sum(t['seconds'])):.0f}")
    print(f"playouts_ratio: {means[0] / means[1]:.3f}")


if __name__ == "__main__":
    main()
