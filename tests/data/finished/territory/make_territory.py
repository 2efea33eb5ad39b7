"""Regenerate the finished games of this folder (Japanese scoring) and
their expected results.

    python tests/data/finished/territory/make_territory.py --size 9 --games 40 [--start 0] [--seki-only]
    python tests/data/finished/territory/make_territory.py --size 19 --games 4
    python tests/data/finished/territory/make_territory.py --size 9 --setups --games 4

Each game is played as in ``../make_finished.py`` (a few seeded random
opening moves, then GNU Go against GNU Go to two passes); ``--setups``
starts each game from one of the seki shapes of ``SETUPS`` (setup
stones, Black to move, levels 1 and 1).  The expected result is what a
fresh GNU Go ``--japanese-rules`` answers after ``loadsgf`` of the
finished game: ``final_score`` (``final_score_japanese``), and
``final_status_list dead`` and ``seki``.  ``--seki-only`` keeps only the
games with stones in seki (rare from an empty board: none in 80 GNU Go
9x9 games, hence the setups; two of their games also ended with a seki
that arose in play).  Results go to ``expected.json``; the score is
also the SGF's ``RE`` and, with the seki stones, its ``GC``.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))

from make_finished import dump, gnugo, play_game   # noqa: E402
from engine import coords                            # noqa: E402
from atomicio import atomic_write                 # noqa: E402

KOMI = {9: 7.0, 13: 6.5, 19: 6.5}

# Seki shapes (GTP vertices): (name, size, black stones, white stones)
SETUPS = [
    # no eyes, two shared liberties B1 B2: Black A1 A2 A3 B3 against
    # White C1 C2 C3; White owns the top left, Black the right
    ("corner", 9, "A1 A2 A3 B3 C4 D4 E4 F4 F5 F6 F7 F8 F9 D3 D2 D1",
     "C1 C2 C3 A4 B4 B5 C5 D5 E5 E6 E7 E8 E9"),
    # one eye each (A1 Black's, E1 White's) and one shared liberty C1
    ("eyes", 9, "B1 A2 B2 C2 A3 B3 C3 D4 E4 E3 F3 G3 G2 G1 D5 D6 D7 D8 D9",
     "D1 D2 D3 E2 F2 F1 A4 B4 C4 C5 C6 C7 C8 C9"),
    # the first shape's corner on 19x19, the rest of the board empty
    ("corner", 19, "A1 A2 A3 B3 C4 D4 E4 D3 D2 D1 E3 F2",
     "C1 C2 C3 A4 B4 B5 C5 D5 E5 F4 F5"),
]


def referee(path):
    ref = gnugo("--japanese-rules")
    try:
        ref.send(f"loadsgf {path}")
        score = ref.send("final_score").strip()
        dead = sorted(ref.send("final_status_list dead").split())
        seki = sorted(ref.send("final_status_list seki").split())
    finally:
        ref.close()
    return score, dead, seki


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seki-only", action="store_true", help="keep only games with stones in seki")
    ap.add_argument("--setups", action="store_true", help="start from the seki shapes of SETUPS")
    args = ap.parse_args()
    size, komi = args.size, KOMI.get(args.size, 7.0)
    exp_path = os.path.join(HERE, "expected.json")
    expected = json.load(open(exp_path)) if os.path.exists(exp_path) else {}
    for i in range(args.start, args.start + args.games):
        setup, levels, prefix = None, None, f"gnugo{size}"
        if args.setups:
            sname, size, black, white = [t for t in SETUPS if t[1] == args.size][i % len(
                [t for t in SETUPS if t[1] == args.size])]
            setup = ([coords.from_gtp(v, size) for v in black.split()],
                     [coords.from_gtp(v, size) for v in white.split()])
            levels, prefix = (1, 1), f"seki-{sname}{size}"
        elif size > 9:
            levels = (1, 1)
        out = play_game(i, size=size, komi=komi, setup=setup, levels=levels)
        if out is None:
            print(f"game {i}: resigned or too long, skipped", flush=True)
            continue
        game, lv = out
        name = f"{prefix}-{i:03d}.sgf"
        path = os.path.join(HERE, name)
        props = {"PB": lv[0], "PW": lv[1], "RU": "Japanese"}
        atomic_write(path, game.to_sgf(properties=props))
        score, dead, seki = referee(path)
        if args.seki_only and not seki:
            os.remove(path)
            print(f"game {i}: {score}, no seki, dropped", flush=True)
            continue
        props["GC"] = (f"GNU Go 3.8 --japanese-rules: final_score {score}; "
                       f"dead {' '.join(dead) or '-'}; seki {' '.join(seki) or '-'}")
        atomic_write(path, game.to_sgf(result=score, properties=props))
        expected[name] = {"final_score_japanese": score, "dead": dead, "seki": seki,
                          "size": size, "moves": game.move_number}
        print(f"{name}: {score} dead {' '.join(dead) or '-'} seki {' '.join(seki) or '-'} "
              f"({game.move_number} moves)", flush=True)
        atomic_write(exp_path, dump(expected))


if __name__ == "__main__":
    main()
