"""Regenerate the finished 9x9 games of this folder and their expected results.

    python tests/data/finished/make_finished.py [--games 12] [--start 0]

Each game: a few random opening moves (seeded), then GNU Go against GNU Go
(levels and seeds vary by game) until two passes; with ``--ours`` this
engine (in-process, expert priors, ``--playouts`` simulations a move)
takes one colour against GNU Go.  Games that end by resignation are
skipped.  GNU Go passes with dead stones still on the board, which is what
the scoring test needs.  The
expected result is what a fresh GNU Go ``--chinese-rules`` says after
``loadsgf`` of the finished game: ``final_score`` and
``final_status_list dead``.  Results go to ``expected.json``;
``--japanese`` adds GNU Go ``--japanese-rules``'s ``final_score``
(``final_score_japanese``) to every game listed.
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))

from engine import coords                      # noqa: E402
from atomicio import atomic_write     # noqa: E402
from engine.game import Game     # noqa: E402
from tools.gtp_client import GNUGO, GtpClient  # noqa: E402

SIZE, KOMI = 9, 7.0
CNAME = {1: "b", 2: "w"}


def gnugo(*args):
    return GtpClient([GNUGO, "--mode", "gtp", *args], timeout=120)


class Ours:
    """This engine in-process, with the GtpClient interface used here."""

    def __init__(self, seed, playouts):
        from engine.config import load
        from engine.gtp.server import GtpServer
        self.eng = GtpServer(load(None, ["prior.evaluator=expert", f"search.playouts={playouts}",
                                         f"search.seed={seed}", "search.resign_threshold=0.1",
                                         "search.resign_min_visits=0"]),
                             out=open(os.devnull, "w"))

    def send(self, line):
        reply = self.eng.respond(line)
        assert reply.startswith("="), (line, reply)
        return reply[1:].strip()

    def close(self):
        pass


def play_game(i, ours=False, playouts=1000, size=SIZE, komi=KOMI, setup=None, levels=None):
    """One game to two passes (None when it ends by resignation or runs
    too long).  ``setup``: (black, white) flat points placed before the
    first move (Black to move); ``levels``: the two GNU Go levels (else
    drawn from the game's seed)."""
    rng = random.Random(1000 + i)
    drawn = (rng.choice([0, 1, 3, 6, 10]), rng.choice([0, 1, 3, 6, 10]))
    levels = levels or drawn
    players = {c: gnugo("--level", str(levels[c - 1]), "--seed", str(7 * i + c)) for c in (1, 2)}
    if ours:
        c = 1 + i % 2
        players[c].close()
        players[c] = Ours(i + 1, playouts)
        levels = tuple("gomcts" if k == c else f"GNU Go level {levels[k - 1]}" for k in (1, 2))
    else:
        levels = tuple(f"GNU Go level {v}" for v in levels)
    game = Game(size, komi, superko=False)
    for p in players.values():
        p.send(f"boardsize {size}")
        p.send("clear_board")
        p.send(f"komi {komi:g}")
    if setup:
        game.setup(*setup, to_move=1)
        for p in players.values():
            for c, pts in zip((1, 2), setup):
                for q in pts:
                    p.send(f"play {CNAME[c]} {coords.to_gtp(q, size)}")
    try:
        n_random = rng.choice([2, 4, 6, 8])
        while game.consecutive_passes() < 2 and game.move_number < 3 * size * size:
            c = game.to_move
            if game.move_number < n_random:
                moves = [m for m in game.board.legal_moves(c) if not game.board.is_eye(m, c)]
                m = rng.choice(moves)
            else:
                word = players[c].send(f"genmove {CNAME[c]}").strip()
                if word.lower() == "resign":
                    return None
                m = coords.from_gtp(word, size)
            game.play(c, m)
            for q in ((1, 2) if game.move_number <= n_random else (3 - c,)):
                players[q].send(f"play {CNAME[c]} {coords.to_gtp(m, size)}")
    finally:
        for p in players.values():
            p.close()
    if game.consecutive_passes() < 2:
        return None
    return game, levels


def referee(path):
    ref = gnugo("--chinese-rules")
    try:
        ref.send(f"loadsgf {path}")
        score = ref.send("final_score").strip()
        dead = sorted(ref.send("final_status_list dead").split())
    finally:
        ref.close()
    return score, dead


def japanese_score(path):
    """GNU Go ``--japanese-rules`` final_score after ``loadsgf``."""
    ref = gnugo("--japanese-rules")
    try:
        ref.send(f"loadsgf {path}")
        return ref.send("final_score").strip()
    finally:
        ref.close()


def dump(expected):
    """expected.json text: one game a line."""
    lines = [f" {json.dumps(k)}: {json.dumps(expected[k], sort_keys=True)}" for k in sorted(expected)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--ours", action="store_true", help="this engine plays one colour")
    ap.add_argument("--playouts", type=int, default=1000, help="its simulations a move")
    ap.add_argument("--japanese", action="store_true",
                    help="only add GNU Go's --japanese-rules final_score to every game listed")
    args = ap.parse_args()
    exp_path = os.path.join(HERE, "expected.json")
    expected = json.load(open(exp_path)) if os.path.exists(exp_path) else {}
    if args.japanese:
        for name in sorted(expected):
            expected[name]["final_score_japanese"] = japanese_score(os.path.join(HERE, name))
            print(f"{name}: {expected[name]['final_score_japanese']} (japanese)", flush=True)
        atomic_write(exp_path, dump(expected))
        return
    for i in range(args.start, args.start + args.games):
        out = play_game(i, args.ours, args.playouts)
        if out is None:
            print(f"game {i}: resigned or too long, skipped", flush=True)
            continue
        game, levels = out
        name = f"{'gomcts' if args.ours else 'gnugo'}-{i:03d}.sgf"
        path = os.path.join(HERE, name)
        atomic_write(path, game.to_sgf(properties={"PB": levels[0], "PW": levels[1]}))
        score, dead = referee(path)
        expected[name] = {"final_score": score, "dead": dead, "moves": game.move_number}
        print(f"{name}: {score} dead {' '.join(dead) or '-'} ({game.move_number} moves)", flush=True)
        atomic_write(exp_path, dump(expected))


if __name__ == "__main__":
    main()
