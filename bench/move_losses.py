"""Where a match row's games were lost: each move of a row's games graded
by a KataGo analysis engine, the win rate and points it gave away.

    python bench/move_losses.py --teacher "$KG6" --visits 50 \\
        --row records/games/strength-19/shipped-vs-g170-raw-sd120:shipped --row runs/match/vl-vs-g170-raw-sd120:value-led \\
        [--games 10]

A row is a match folder (``tools.match``'s single SGF files, or its packed
collection) and the player name to grade (``:NAME``, as the games' PB/PW name
it).  Each game is one query to the teacher (every turn at ``--visits``); the
loss of a move is the teacher's win rate (and lead) for the mover before it
less the same after it, so a move the teacher would play loses about 0 and a
blunder a large share.  Printed for each row and phase (moves 1-50, 51-150,
151 on; ``--phases 16,32`` for 1-16, 17-32, 33 on, as on 9x9), for the named
player and its opponent: moves, the mean win rate and points lost a move,
and the moves that lost at least 0.15 of win rate (per 100 moves).  The last
line is the first row's figure: ``move_losses: NAME P points a move (its opponent Q points, R times)``.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine import coords  # noqa: E402
from tools import sgfpack  # noqa: E402
from tools.label import Teacher, TeacherDied, game_query  # noqa: E402

BLUNDER = 0.15


def phases(bounds):
    """The phases ((first index, end index, label)) that the move numbers
    ``bounds`` (ascending, "50,150") cut a game into."""
    b = [int(x) for x in bounds.split(",") if x.strip()]
    if not b or any(x <= 0 for x in b) or b != sorted(set(b)):
        raise ValueError(f"--phases takes ascending positive move numbers, not {bounds!r}")
    edges = [0] + b + [10**6]
    return tuple((lo, hi, f"{lo + 1}-{hi}" if hi < 10**6 else f"{lo + 1}-")
                 for lo, hi in zip(edges, edges[1:]))


PHASES = phases("50,150")


def games(folder, limit):
    """[(SGF text)], the row's games in name order: its packed collection
    where it has one, and the single files the pack does not hold."""
    games = sgfpack.read(folder) if os.path.exists(os.path.join(folder, sgfpack.PACK)) else {}
    for n in os.listdir(folder):
        if n.endswith(".sgf") and n not in games:
            with open(os.path.join(folder, n), encoding="utf-8") as f:
                games[n] = f.read()
    out = [games[n] for n in sorted(games)]
    return out[:limit] if limit else out


def parse(text):
    """(size, komi, black name, white name, [(colour, move or None)])."""
    from sgfmill import sgf
    g = sgf.Sgf_game.from_string(text)
    size = g.get_size()
    moves = []
    for node in g.get_main_sequence()[1:]:
        c, mv = node.get_move()
        if c is None:
            continue
        moves.append(("B" if c == "b" else "W", mv))
    root = g.get_root()
    name = lambda k: root.get(k) if root.has_property(k) else ""   # noqa: E731
    return size, g.get_komi(), name("PB"), name("PW"), moves


def grade(teacher, text, visits, qid):
    """[(turn, colour, win rate lost, points lost)] of every move of a game."""
    size, komi, pb, pw, moves = parse(text)
    if any(c != "BW"[i % 2] for i, (c, _mv) in enumerate(moves)):
        raise ValueError(f"{qid}: the moves do not alternate from Black (a handicap game?)")
    gtp = [(c, coords.pass_move(size) if mv is None else coords.sgfmill_to_idx(mv, size)) for c, mv in moves]
    answers, errors = teacher.ask(game_query(qid, [m for _c, m in gtp], size, komi, range(len(gtp) + 1), visits))
    if len(answers) != len(gtp) + 1:
        raise TeacherDied(f"{qid}: {len(answers)} of {len(gtp) + 1} turns answered ({'; '.join(errors)[:200]})")
    wr = [float(answers[t]["rootInfo"]["winrate"]) for t in range(len(gtp) + 1)]      # Black's
    lead = [float(answers[t]["rootInfo"]["scoreLead"]) for t in range(len(gtp) + 1)]
    out = []
    for t, (c, _mv) in enumerate(gtp):
        s = 1.0 if c == "B" else -1.0
        out.append((t, c, s * (wr[t] - wr[t + 1]), s * (lead[t] - lead[t + 1])))
    return pb, pw, out


def summary(rows, cuts=PHASES):
    """{phase: (moves, mean win rate lost, mean points lost, blunders per 100)} and "all"."""
    out = {}
    for lo, hi, label in cuts + ((0, 10**6, "all"),):
        r = [x for x in rows if lo <= x[0] < hi]
        if r:
            out[label] = (len(r), sum(x[2] for x in r) / len(r), sum(x[3] for x in r) / len(r),
                          100.0 * sum(1 for x in r if x[2] >= BLUNDER) / len(r))
    return out


def row_options(ap, visits):
    """The options of a bench that grades match rows with a teacher:
    --teacher, --visits, --row (FOLDER:NAME, repeated), --games, --phases."""
    ap.add_argument("--teacher", required=True, help="a KataGo analysis command (docs/TEACHER.md)")
    ap.add_argument("--visits", type=int, default=visits)
    ap.add_argument("--row", action="append", required=True, metavar="FOLDER:NAME")
    ap.add_argument("--games", type=int, default=0, help="the first N games of each row (0: all)")
    ap.add_argument("--phases", default="50,150", help="move numbers that end each phase (default 50,150)")


def rows_of(ap, a):
    """(phases, [(folder, name)]) of :func:`row_options`' parsed ``a``; a bad
    one is ``ap.error``."""
    try:
        cuts = phases(a.phases)
    except ValueError as e:
        ap.error(str(e))
    out = []
    for spec in a.row:
        folder, _, name = spec.rpartition(":")
        if not folder or not os.path.isdir(folder):
            ap.error(f"--row takes FOLDER:NAME with an existing folder, not {spec!r}")
        out.append((folder, name))
    return cuts, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    row_options(ap, 50)
    a = ap.parse_args(argv)
    cuts, rows = rows_of(ap, a)
    teacher = Teacher(a.teacher, timeout=600.0)
    first = None
    try:
        for folder, name in rows:
            ours, theirs = [], []
            texts = games(folder, a.games)
            for k, text in enumerate(texts):
                pb, pw, moves = grade(teacher, text, a.visits, f"{name}-{k}")
                if name not in (pb, pw):
                    ap.error(f"{folder}: game {k + 1} has players {pb!r} and {pw!r}, not {name!r}")
                col = "B" if pb == name else "W"
                ours += [m for m in moves if m[1] == col]
                theirs += [m for m in moves if m[1] != col]
            print(f"\n{name} ({folder}, {len(texts)} games, the teacher at {a.visits} visits)")
            print(f"{'phase':8s} {'player':10s} {'moves':>6s} {'wr lost':>8s} {'points lost':>12s} "
                  f"{'blunders/100':>13s}")
            so, st = summary(ours, cuts), summary(theirs, cuts)
            for label in [p[2] for p in cuts] + ["all"]:
                for who, s in ((name, so), ("opponent", st)):
                    if label in s:
                        n, w, p, b = s[label]
                        print(f"{label:8s} {who[:10]:10s} {n:6d} {w:8.3f} {p:12.2f} {b:13.1f}")
            if first is None:
                first = (name, so["all"][2], st["all"][2])
    finally:
        teacher.close()
    name, p, q = first
    print(f"move_losses: {name} {p:.2f} points a move (its opponent {q:.2f} points, "
          f"{p / q if q else float('nan'):.2f} times)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
