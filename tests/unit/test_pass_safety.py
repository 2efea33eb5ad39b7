"""Pass safety: when the dead-stone estimate says a pass loses (or, in the
cleanup phase, dead stones are still on the board) the move played instead
is the search's best non-pass root move, or where the search has none a
move that makes sense there, never the first legal point in board order."""
import os

from engine.config import load
from engine.gtp.server import GtpServer
from tests.conftest import DEAD_G7, SMALL, passing_search

SMALL = SMALL + ["player.score_playouts=200"]

# White's wall on the D column, White's area to the right; the lone black
# stone at G7 is dead.  Komi 0.5: White wins by far.
POS = DEAD_G7           # the lone X at G7 is dead in White's area (tests.conftest)
G7_LIBS = {"F7", "H7", "G6", "G8"}      # its neighbours (G8 is White's)
G7_LIBERTIES = {"F7", "H7", "G6"}
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


def moving_search(move_vertex):
    """A stand-in search whose move is ``move_vertex`` (e.g. a point
    inside White's own area)."""
    base = passing_search()

    class MovingSearch(base):
        def run(self, **kw):
            from engine.search import SearchResult
            size = self.board.size
            m = "ABCDEFGHJ".index(move_vertex[0]) + (int(move_vertex[1:]) - 1) * size
            return SearchResult(m, 0.5, 100, 100, 0.0, [m], rows=self.analysis())
    return MovingSearch


def cleanup_until_pass(eng, color="w", limit=10):
    """kgs-genmove_cleanup for ``color`` against an opponent that passes,
    until it passes; the moves played."""
    other = "b" if color == "w" else "w"
    moves = []
    for _ in range(limit):
        answer(eng, f"play {other} pass")
        mv = answer(eng, f"kgs-genmove_cleanup {color}")
        if mv == "pass":
            return moves
        moves.append(mv)
    raise AssertionError(f"no pass after {moves}")


def test_cleanup_under_japanese_rules_captures_the_dead_stones_then_passes():
    """Territory rules: every cleanup move is on a liberty of the dead
    stone (three moves capture it, none inside White's area elsewhere),
    then a pass; the captured stone is a prisoner in the count."""
    eng = engine()
    answer(eng, "kgs-rules japanese")
    setup(eng)
    before = float(answer(eng, "final_score")[2:])
    moves = cleanup_until_pass(eng)
    assert sorted(moves) == sorted(G7_LIBERTIES), moves
    assert answer(eng, "final_status_list dead") == ""
    assert eng.game.board.captures(2) == 1
    # three stones in White's own area; the prisoner and its point were
    # counted before as well: the cleanup costs White its three moves
    assert float(answer(eng, "final_score")[2:]) == before - 3


def test_cleanup_under_japanese_rules_does_not_fill_own_territory():
    """The search wants a point inside White's own area (H3): under
    territory rules the cleanup passes instead once no dead stone is
    left; under area rules the search's move stands, as before."""
    eng = GtpServer(load(None, SMALL), out=open(os.devnull, "w"), search_factory=moving_search("H3"))
    answer(eng, "kgs-rules japanese")
    setup(eng)
    moves = cleanup_until_pass(eng)
    assert sorted(moves) == sorted(G7_LIBERTIES), moves
    assert answer(eng, "kgs-genmove_cleanup w") == "pass"
    assert answer(eng, "genmove w") == "H3"           # not the cleanup phase: the search's move
    eng = GtpServer(load(None, SMALL), out=open(os.devnull, "w"), search_factory=moving_search("H3"))
    answer(eng, "kgs-rules chinese")
    setup(eng)
    answer(eng, "play b pass")
    assert answer(eng, "kgs-genmove_cleanup w") == "H3"


def test_cleanup_under_chinese_rules_still_removes_the_dead_stones():
    eng = engine()
    answer(eng, "kata-set-rules chinese")
    setup(eng)
    moves = cleanup_until_pass(eng)
    assert G7_LIBERTIES <= set(moves), moves
    assert answer(eng, "final_status_list dead") == ""


def test_japanese_pass_rule_counts_territory_and_skips_own_area():
    """A losing pass under territory rules: the move played instead is
    never inside the mover's own area."""
    eng = engine()
    answer(eng, "kgs-rules japanese")
    setup(eng)
    mv = answer(eng, "genmove b")
    assert mv in G7_LIBS, mv


def test_one_dead_stone_estimate_a_genmove(monkeypatch):
    """The search's pass rule and the Player's pass safety share the one
    estimate of the position (engine.endgame), on one seed."""
    import engine.endgame as eg_mod
    from engine import coords
    from engine.config import load as load_cfg
    from engine.player import Player
    made = []
    real = eg_mod.Estimate

    def counting(*a, **kw):
        made.append(kw.get("seed"))
        return real(*a, **kw)
    monkeypatch.setattr(eg_mod, "Estimate", counting)
    p = Player(load_cfg(None, ["gtp.boardsize=7", "prior.evaluator=expert", "search.playouts=300",
                               "search.seconds=0", "search.seed=9"]))
    for v in ("D4", "C3", "E5"):
        p.play(1, coords.from_gtp(v, 7))
        p.play(2, 49)                   # white passes
    before = len(made)
    m = p.genmove(1)                    # after white's pass: the pass rule and pass safety both look
    assert m == 49                      # black is far ahead: it passes and ends the game
    assert len(made) - before == 1 and made[-1] == 9
