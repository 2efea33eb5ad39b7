"""Scoring of finished games: ``final_score`` and ``final_status_list``
agree with GNU Go ``--chinese-rules`` whatever the pass history.

tests/data/finished/ holds 9x9 games that ended with two passes, most
with dead stones still on the board (GNU Go against GNU Go, and this
engine against GNU Go), and ``expected.json`` with what GNU Go
``--chinese-rules`` answers after ``loadsgf`` of each
(``make_finished.py`` there regenerates them).
"""
import json
import os

import pytest

from board_ext.board import Board
from engine import coords
from engine.config import load
from engine.game import Game
from engine.gtp.server import GtpServer
from engine.scoring import Estimate
from tests.conftest import DATA

FINISHED = os.path.join(DATA, "finished")
with open(os.path.join(FINISHED, "expected.json")) as _fh:
    EXPECTED = json.load(_fh)
# Japanese scoring: 9x9 and 19x19 games, some with seki on the board at the
# end (finished/territory/make_territory.py); with the games above, every
# game that has GNU Go --japanese-rules's final_score recorded.
TERRITORY = os.path.join(FINISHED, "territory")
with open(os.path.join(TERRITORY, "expected.json")) as _fh:
    TERRITORY_EXPECTED = json.load(_fh)
JAPANESE = {**{name: (os.path.join(FINISHED, name), e) for name, e in EXPECTED.items()},
            **{f"territory/{name}": (os.path.join(TERRITORY, name), e)
               for name, e in TERRITORY_EXPECTED.items()}}
SETS = ["gtp.boardsize=9", "prior.evaluator=none", "search.seed=1", "pool.pool_size=2000"]


def score_value(text):
    """'B+4.0' -> 4.0, 'W+2' -> -2.0, '0' -> 0.0."""
    text = text.strip()
    if text == "0":
        return 0.0
    assert text[:2] in ("B+", "W+"), text
    return float(text[2:]) * (1 if text[0] == "B" else -1)


def engine(*extra):
    return GtpServer(load(None, SETS + list(extra)), out=open(os.devnull, "w"))


def answer(eng, line):
    reply = eng.respond(line)
    assert reply.startswith("="), (line, reply)
    return reply[1:].strip()


def result_at(eng, path, move_number=None):
    answer(eng, f"loadsgf {path}" + (f" {move_number}" if move_number else ""))
    return score_value(answer(eng, "final_score")), sorted(answer(eng, "final_status_list dead").split())


def test_the_set_has_dead_stones_and_every_outcome():
    assert len(EXPECTED) >= 10
    assert sum(1 for e in EXPECTED.values() if e["dead"]) >= 8
    vals = [score_value(e["final_score"]) for e in EXPECTED.values()]
    assert any(v > 0 for v in vals) and any(v < 0 for v in vals)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_finished_game_scored_as_gnugo_chinese(name):
    """After two passes, after the first pass and before both passes: the
    winner, the margin and the dead stones are GNU Go's."""
    exp = EXPECTED[name]
    path = os.path.join(FINISHED, name)
    eng = engine()
    want = (score_value(exp["final_score"]), sorted(exp["dead"]))
    n = exp["moves"]
    assert eng.game.move_number == 0
    assert result_at(eng, path) == want                       # both passes played
    assert eng.game.consecutive_passes() == 2 and eng.game.board.passes == 2
    assert result_at(eng, path, n) == want                     # one move before the end
    assert eng.game.consecutive_passes() == 1
    assert result_at(eng, path, n - 1) == want                 # before either pass


def test_estimate_leaves_the_board_alone_and_ignores_passes():
    g = Game.from_sgf_bytes(open(os.path.join(FINISHED, "gnugo-006.sgf"), "rb").read())
    board = g.board
    assert board.passes == 2
    colors = board.colors()
    est = Estimate(board, g.komi, 200, seed=3)
    assert board.passes == 2 and board.colors() == colors
    before = g.copy()
    before.undo(2)
    assert before.board.passes == 0
    est0 = Estimate(before.board, g.komi, 200, seed=3)
    assert est.score == est0.score and est.dead == est0.dead
    assert est.dead                               # dead stones on the board: not Tromp-Taylor
    assert est.score != board.score(g.komi)


def test_board_passes_setter():
    b = Board(5)
    b.play(b.pass_move)
    b.play(b.pass_move)
    assert b.passes == 2
    c = b.copy()
    c.passes = 0
    assert c.passes == 0 and b.passes == 2
    with pytest.raises(ValueError):
        c.passes = 3


def test_match_fallback_scorer_agrees():
    """tools.match scores with the engine's estimate when the referee fails."""
    from tools.referee import own_score as _own_score
    for name in ("gnugo-000.sgf", "gomcts-113.sgf"):
        g = Game.from_sgf_bytes(open(os.path.join(FINISHED, name), "rb").read())
        assert g.consecutive_passes() == 2
        assert score_value(_own_score(g, 200)) == score_value(EXPECTED[name]["final_score"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_finished_game_scored_as_gnugo_japanese(name):
    """kgs-rules japanese: territory scoring (prisoners, dead stones) equals
    GNU Go ``--japanese-rules`` final_score on the same finished games."""
    exp = EXPECTED[name]
    eng = engine()
    answer(eng, "kgs-rules japanese")
    answer(eng, f"loadsgf {os.path.join(FINISHED, name)}")
    assert score_value(answer(eng, "final_score")) == score_value(exp["final_score_japanese"])
    assert sorted(answer(eng, "final_status_list dead").split()) == sorted(exp["dead"])
    answer(eng, "kata-set-rules chinese")
    assert score_value(answer(eng, "final_score")) == score_value(exp["final_score"])


def test_territory_score_prisoners_dead_stones_and_seki():
    from engine.scoring import territory_score
    # 3x3: black on the left and right columns, the middle column empty
    colors = bytes([1, 0, 1, 1, 0, 1, 1, 0, 1])
    assert territory_score(3, colors, [], [], {1: 0, 2: 0}, 0.5) == 3 - 0.5
    assert territory_score(3, colors, [], [], {1: 2, 2: 1}, 0) == 3 + 2 - 1
    # a region touching a stone in seki is nobody's territory
    assert territory_score(3, colors, [], [0], {1: 0, 2: 0}, 0) == 0
    # a dead white stone: its point is black territory and it is a prisoner
    colors = bytes([1, 2, 1, 1, 0, 1, 1, 0, 1])
    assert territory_score(3, colors, [1], [], {1: 0, 2: 0}, 0) == 3 + 1


def test_the_japanese_set_has_19x19_games_and_sekis():
    assert len(JAPANESE) >= 20
    sizes = [e.get("size", 9) for _, e in JAPANESE.values()]
    assert sizes.count(19) >= 3 and sizes.count(9) >= 20
    seki = [name for name, (_, e) in JAPANESE.items() if e.get("seki")]
    assert len(seki) >= 5
    assert any(JAPANESE[name][1]["size"] == 19 for name in seki)


@pytest.mark.parametrize("name", sorted(TERRITORY_EXPECTED))
def test_finished_game_with_seki_scored_as_gnugo_japanese(name):
    """Territory scoring of 9x9 and 19x19 games, sekis included: the
    score, the dead stones and the stones in seki are GNU Go
    ``--japanese-rules``'s (recorded in expected.json and the SGF's RE);
    points in seki, eyes included, are nobody's territory."""
    exp = TERRITORY_EXPECTED[name]
    path = os.path.join(TERRITORY, name)
    g = Game.from_sgf_bytes(open(path, "rb").read())
    assert g.size == exp["size"] and g.consecutive_passes() == 2
    assert g.result == exp["final_score_japanese"]
    eng = engine()
    answer(eng, "kgs-rules japanese")
    answer(eng, f"loadsgf {path}")
    assert score_value(answer(eng, "final_score")) == score_value(exp["final_score_japanese"])
    assert sorted(answer(eng, "final_status_list dead").split()) == exp["dead"]
    assert sorted(answer(eng, "final_status_list seki").split()) == exp["seki"]


def test_seki_is_read_not_left_to_the_playouts():
    """The playouts fill the shared liberties of a seki and call one side
    dead; the reading keeps both alive: no-eye seki (two shared liberties)
    and one eye each with one shared liberty, and nothing on a board of
    two-eyed groups with dame between them."""
    from engine.scoring import seki_points
    for name, want in (("seki-corner9-002.sgf", "A1 A2 A3 B3 C1 C2 C3"),
                       ("seki-eyes9-001.sgf", "A2 A3 B1 B2 B3 C2 C3 D1 D2 D3 E2 F1 F2")):
        g = Game.from_sgf_bytes(open(os.path.join(TERRITORY, name), "rb").read())
        pts = seki_points(g.board)
        assert sorted(coords.to_gtp(p, g.size) for p in pts) == sorted(want.split())
    for name in EXPECTED:
        g = Game.from_sgf_bytes(open(os.path.join(FINISHED, name), "rb").read())
        assert not seki_points(g.board), name


@pytest.mark.gnugo
@pytest.mark.parametrize("name", sorted(JAPANESE))
def test_gnugo_japanese_score_is_the_recorded_one_and_ours(name):
    """GNU Go --japanese-rules, asked again: its final_score is the one
    recorded, and ours under kgs-rules japanese is the same."""
    from tools.gtp_client import GNUGO, GtpClient
    path, exp = JAPANESE[name]
    ref = GtpClient([GNUGO, "--mode", "gtp", "--japanese-rules"], timeout=120)
    try:
        ref.send(f"loadsgf {path}")
        theirs = score_value(ref.send("final_score"))
    finally:
        ref.close()
    assert theirs == score_value(exp["final_score_japanese"])
    eng = engine()
    answer(eng, "kgs-rules japanese")
    answer(eng, f"loadsgf {path}")
    assert score_value(answer(eng, "final_score")) == theirs
