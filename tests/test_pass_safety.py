"""Pass safety: when the dead-stone estimate says a pass loses (or, in the
cleanup phase, dead stones are still on the board) the move played instead
is the search's best non-pass root move, or where the search has none a
move that makes sense there, never the first legal point in board order."""
import os

from engine.config import load
from engine.gtp.server import GtpServer
from tests.conftest import SMALL, passing_search

SMALL = SMALL + ["gtp.score_playouts=200"]

# White's wall on the D column, White's area to the right; the lone black
# stone at G7 is dead.  Komi 0.5: White wins by far.
POS = [".X.XO....",
       "XXXXOOOOO",
       "..XO..X..",
       "XXXO.....",
       "..XO.....",
       "XXXOOOOOO",
       "X.XO.....",
       ".XXO..O..",
       "..XO....."]
G7_LIBS = {"F7", "H7", "G6", "G8"}
BOARD_ORDER = {f"{c}{r}" for r in (1, 2) for c in "ABCDEFGHJ"}   # the old fallback's first picks


def engine(rows=()):
    return GtpServer(load(None, SMALL), out=open(os.devnull, "w"), search_factory=passing_search(rows))


def answer(eng, line):
    reply = eng.respond(line)
    assert reply.startswith("="), (line, reply)
    return reply[1:].strip()


def setup(eng, komi=0.5):
    answer(eng, f"komi {komi}")
    args = []
    for i, row in enumerate(POS):
        for x, ch in enumerate(row):
            if ch in "XO":
                args.append(f"{'b' if ch == 'X' else 'w'} {'ABCDEFGHJ'[x]}{9 - i}")
    answer(eng, "gogui-setup " + " ".join(args))
    assert answer(eng, "final_status_list dead") == "G7"


def test_losing_pass_without_search_candidates_plays_at_the_dead_stones():
    """Black loses by far; the search has no non-pass move: the fallback
    fights where the estimate is unsettled (G7's liberties), not at A1/A2."""
    eng = engine()
    setup(eng)
    mv = answer(eng, "genmove b")
    assert mv != "pass"
    assert mv in G7_LIBS, mv
    assert mv not in BOARD_ORDER


def test_cleanup_captures_the_dead_stones_first():
    eng = engine()
    setup(eng)
    answer(eng, "play b pass")
    mv = answer(eng, "kgs-genmove_cleanup w")
    assert mv in G7_LIBS, mv


def test_fallback_is_the_searchs_most_visited_non_pass_move():
    size = 9
    p = lambda v: "ABCDEFGHJ".index(v[0]) + (int(v[1:]) - 1) * size   # noqa: E731
    rows = [(size * size, 500), (p("J5"), 30), (p("E5"), 80), (p("A1"), 0), (p("B1"), 0)]
    eng = engine(rows)
    setup(eng)
    assert answer(eng, "genmove b") == "E5"


def test_search_candidates_that_fill_an_own_eye_are_skipped():
    size = 9
    rows = [(size * size, 500), (2 * size + 1, 90), (4 * size + 7, 40)]   # B3 (Black's eye), H5
    eng = engine(rows)
    setup(eng)
    assert eng.game.board.is_eye(2 * size + 1, 1)
    assert answer(eng, "genmove b") == "H5"


def test_a_winning_pass_stands():
    eng = engine()
    setup(eng, komi=0.5)
    assert answer(eng, "genmove w") == "pass"
