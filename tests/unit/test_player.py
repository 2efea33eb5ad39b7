"""The Player: the engine as GTP, self-play, matches and experiments drive
it, with typed values in and typed errors out.  Small budgets keep it fast."""
import pytest

from board_ext.board import BLACK, WHITE
from engine.config import load
from engine.player import (GameStateError, IllegalMoveError, OptionError, Player, PlayerError,
                           TimeSettingsError)
from engine.scoring import area_score
from tests.conftest import SMALL, passing_search

SMALL = SMALL + ["search.playouts=40", "player.score_playouts=200"]
N = 9


def player(*extra, **kw):
    return Player(load(None, SMALL + list(extra)), **kw)


def pt(v):
    return "ABCDEFGHJ".index(v[0]) + (int(v[1:]) - 1) * N


def walls(p, extra_white=()):
    """Black's wall on the C column, White's on D; ``extra_white`` inside
    Black's two columns."""
    p.setup([y * N + 2 for y in range(N)], [y * N + 3 for y in range(N)] + list(extra_white))


def test_genmove_plays_a_legal_move_and_records_it():
    p = player()
    p.new_game(9, 7.5)
    assert p.game.komi == 7.5 and p.game.move_number == 0
    mv = p.genmove(BLACK)
    assert 0 <= mv < N * N                       # a board move on an empty board, not pass/resign
    assert p.game.move_number == 1 and p.game.board.color_at(mv) == BLACK
    assert p.game.to_move == WHITE and p.color == BLACK
    assert p.last["move"] == mv and p.last["result"].playouts > 0
    assert p.explain().startswith(p.vtx(mv) + " winrate")
    assert p.game.history[-1].comment == p.explain()    # the SGF comment of the move


def test_genmove_without_play_leaves_the_game_alone():
    p = player()
    mv = p.genmove(BLACK, play=False)
    assert 0 <= mv < N * N
    assert p.game.move_number == 0 and p.game.board.color_at(mv) == 0


def test_genmove_is_deterministic_for_a_seed():
    a, b = player(), player()
    for _ in range(3):
        assert a.genmove(a.game.to_move) == b.genmove(b.game.to_move)


def test_budget_and_info_callback():
    p = player("search.early_stop=false")
    infos = []
    p.genmove(BLACK, budget=(200, None), on_info=infos.append, info_interval=1e-6)
    assert p.last["result"].playouts == 200 and p.last["result"].stopped_by == "budget"
    assert infos and all(isinstance(r, list) and "visits" in r[0] for r in infos)


def test_play_and_undo():
    p = player()
    p.play(BLACK, pt("E5"))
    p.play(WHITE, pt("C3"))
    p.genmove(BLACK)
    assert p.game.move_number == 3
    p.undo(2)
    assert p.game.move_number == 1 and p.game.board.color_at(pt("C3")) == 0
    assert p.game.board.color_at(pt("E5")) == BLACK and p.game.to_move == WHITE
    p.undo()
    assert p.game.move_number == 0
    with pytest.raises(GameStateError):
        p.undo()
    with pytest.raises(GameStateError, match="cannot undo"):
        p.undo(1, message="cannot undo")


def test_an_illegal_move_is_refused_and_changes_nothing():
    p = player()
    p.play(BLACK, pt("E5"))
    with pytest.raises(IllegalMoveError, match="E5") as e:
        p.play(WHITE, pt("E5"))
    assert isinstance(e.value, PlayerError)
    assert p.game.move_number == 1 and p.game.to_move == WHITE
    with pytest.raises(IllegalMoveError):
        p.play_sequence([(WHITE, pt("D4")), (BLACK, pt("D4"))])   # all or nothing
    assert p.game.move_number == 1


def test_final_score_takes_off_dead_stones():
    p = player()
    walls(p, extra_white=[pt("A5")])
    assert p.final_status("dead") == [pt("A5")]
    colors = p.game.board.colors()
    assert p.final_score() == area_score(N, colors, [pt("A5")], 7) == 27 - 54 - 7
    assert pt("A5") not in p.final_status("alive") and len(p.final_status("alive")) == 18
    with pytest.raises(PlayerError):
        p.final_status("undecided")


def test_a_losing_pass_is_replaced_by_a_board_move():
    """The Player's pass rule: a search that wants to pass while the count
    says it loses plays on (at the dead stone's liberties here)."""
    p = player(search_factory=passing_search())
    walls(p, extra_white=[pt("A5")])
    assert p.genmove(WHITE) == N * N           # White wins by far: its pass stands
    mv = p.genmove(BLACK)                      # Black loses by 34: no pass
    assert mv != N * N and mv in {pt("A4"), pt("A6"), pt("B5")}


def test_set_option_checks_and_applies():
    p = player()
    s = p.search()
    p.set_option("search.playouts", 25)
    assert p.cfg.search.playouts == 25 and p.option("search.playouts") == 25
    assert p.search() is s and s.cfg.search.playouts == 25     # the live search follows it
    p.genmove(BLACK)
    assert p.last["result"].playouts <= 25
    p.set_option("time.safety_margin", "0.5")
    assert p.tc.safety_margin == 0.5


@pytest.mark.parametrize("key,value,words", [
    ("search.nope", 1, ["search.nope"]),
    ("search.playouts", -5, ["search.playouts", "minimum"]),
    ("search.playouts", "many", ["search.playouts", "expected int"]),
    ("pool.full_policy", "random", ["pool.full_policy", "not one of"]),
    ("gtp.name", " ", ["gtp.name"]),
])
def test_set_option_errors_name_the_key_and_keep_the_config(key, value, words):
    p = player()
    before = p.cfg
    with pytest.raises(OptionError) as e:
        p.set_option(key, value)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert p.cfg == before


def test_time_settings_and_think_seconds():
    p = player()
    assert p.think_seconds(BLACK) is None           # playouts only
    p.tc.set_gtp(600, 0, 0)
    even = 600 / p.tc.moves_left(0)                  # the shipped plan by phase: the first move gets
    assert p.think_seconds(BLACK) == pytest.approx(p.tc.main_share(600, 0))   # less than an even share
    assert 0.5 * even < p.think_seconds(BLACK) < even
    with pytest.raises(TimeSettingsError):
        p.tc.set_gtp(-1, 0, 0)
    p.tc.time_left(BLACK, 10, 0)
    assert p.think_seconds(BLACK) < 10


def test_new_game_and_sizes():
    p = player()
    p.play(BLACK, pt("E5"))
    p.set_board_size(13)
    assert p.size == 13 and p.game.move_number == 0 and p.game.komi == 7
    mv = p.genmove(BLACK)
    assert 0 <= mv < 169
    with pytest.raises(GameStateError):
        p.new_game(1)


def test_handicap_needs_an_empty_board():
    p = player()
    assert len(p.fixed_handicap(2)) == 2
    with pytest.raises(GameStateError, match="not empty"):
        p.fixed_handicap(2)


def test_load_sgf(tmp_path):
    p = player()
    for c, v in ((BLACK, "E5"), (WHITE, "C3"), (BLACK, "G7")):
        p.play(c, pt(v))
    path = tmp_path / "g.sgf"
    path.write_text(p.sgf())
    q = player()
    q.load_sgf(str(path), 3)            # the position before move 3
    assert q.game.move_number == 2 and q.game.board.color_at(pt("C3")) == WHITE
    with pytest.raises(GameStateError):
        q.load_sgf(str(tmp_path / "missing.sgf"))


def test_pondering_runs_only_on_the_opponents_turn():
    p = player("player.ponder=true")
    assert p.analyst.start_pondering() is None              # no move of ours yet
    p.genmove(BLACK)
    th = p.analyst.start_pondering()
    assert th is not None
    th.stop()
    assert th.done.is_set()
    p.set_ponder(False)
    assert p.analyst.start_pondering() is None and p.cfg.player.ponder is False


@pytest.mark.parametrize("key,value,read", [
    ("moggy.pattern", "0.25", lambda c: c.moggy.pattern == 0.25),
    ("player.score_playouts", "77", lambda c: c.player.score_playouts == 77),
    ("search.rollout", "moggy", lambda c: c.search.rollout == "moggy")])
def test_set_option_rebuilds_the_search_for_what_it_reads(key, value, read):
    p = player()
    before = p.search()
    p.set_option(key, value)
    after = p.search()
    assert after is not before and read(after.cfg)


@pytest.mark.parametrize("key,value,read", [
    ("rave.K", "0.5", lambda c: c.rave.K == 0.5),
    ("uct.rave_equiv", "1234", lambda c: c.uct.rave_equiv == 1234),
    ("search.resign_threshold", "0.2", lambda c: c.search.resign_threshold == 0.2)])
def test_set_option_retunes_the_live_search_for_its_constants(key, value, read):
    p = player(*(["search.tree=uct"] if key.startswith("uct.") else []))
    before = p.search()
    p.set_option(key, value)
    assert p.search() is before and read(before.cfg)


def test_set_option_keeps_the_search_for_what_it_does_not_read():
    p = player()
    before = p.search()
    p.set_option("time.min_seconds", "0.2")
    p.set_option("gtp.name", "other")
    assert p.search() is before


@pytest.mark.parametrize("key", ["gtp.boardsize", "gtp.komi", "gtp.log_file"])
def test_set_option_refuses_what_cannot_change_mid_game(key):
    p = player()
    with pytest.raises(OptionError, match="cannot change mid-game"):
        p.set_option(key, "9")
    assert p.option(key) == load(None, SMALL).__getattribute__("gtp").__getattribute__(key.split(".")[1])


def test_scored_rows_carry_lead_and_ownership():
    """The engine computes kata-analyze's score lead and ownership; GTP only formats them."""
    p = player("search.early_stop=false", "player.score_playouts=40", "player.move_score_playouts=8")
    got = []
    p.genmove(BLACK, budget=(100, None), on_info=p.analyst.scored_rows(BLACK, got.append), info_interval=1e-6)
    rows = got[-1]
    n = p.size * p.size
    assert len(rows.ownership) == n and all(-1 <= v <= 1 for v in rows.ownership)
    assert all("scoreLead" in r and r["scoreStdev"] >= 0 for r in rows)
    assert sum(1 for r in rows if r["visits"] > 0) >= 1


@pytest.mark.parametrize("rules,ru", [("chinese", "Chinese"), ("japanese", "Japanese"), ("aga", "AGA"),
                                      ("new_zealand", "NZ")])
def test_sgf_names_the_rules_set(rules, ru):
    p = player()
    p.set_rules(rules)
    p.play(BLACK, pt("E5"))
    assert f"RU[{ru}]" in p.sgf() and p.sgf().count("RU[") == 1


def test_dynamic_komi_of_handicap_games():
    """Pachi's linear dynamic komi: in a handicap game the search plays for
    White's komi plus player.handicap_komi a stone, falling to 0 by move
    handicap_komi_end * points; the count keeps the real komi; a small
    change keeps the tree."""
    from board_ext.board import Board
    from engine import factory
    p = Player(load(None, ["gtp.boardsize=19", "prior.evaluator=none", "search.playouts=200",
                           "search.seed=4", "search.early_stop=false"]))
    p.set_komi(0.5)
    assert p.dynamic_komi() == 0 and p.search_komi() == p.score_komi
    p.fixed_handicap(4)
    assert p.dynamic_komi() == pytest.approx(28.0)
    assert p.score_komi == 4.5 and p.search_komi() == pytest.approx(32.5)      # chinese: 0.5 + 4 + 28
    p.genmove(2)
    assert p.search().komi == pytest.approx(32.5)
    p.play(1, 180)
    later = p.search_komi()
    assert 4.5 < later < 32.5
    p.genmove(2)
    assert p.search().komi == pytest.approx(later)
    p.set_option("player.handicap_komi", "0")
    assert p.search_komi() == p.score_komi
    # falls to 0 at move 0.55 * 361
    p.set_option("player.handicap_komi", "7")
    p.set_option("player.handicap_komi_end", "0.05")      # 0 at move 18.05
    assert p.dynamic_komi() == pytest.approx(28 * (1 - p.game.move_number / 18.05))
    for i in range(18):
        p.play(p.game.to_move, p.legal_moves(p.game.to_move)[0])
    assert p.game.move_number >= 19 and p.dynamic_komi() == 0
    s = factory.make_search(load(None, ["prior.evaluator=none", "search.playouts=100", "search.seed=2"]))
    b = Board(9)
    s.set_position(b, 7.5)
    s.run()
    b2 = b.copy()
    b2.play(s.last_result.move)
    assert s.set_position(b2, 7.8, komi_drift=1.0) is True and s.komi == 7.8
    b3 = b2.copy()
    b3.play(b3.legal_moves()[0])
    assert s.set_position(b3, 9.5, komi_drift=1.0) is False and s.komi == 9.5     # too far: a new tree


def test_a_key_of_another_tree_policy_is_refused_naming_the_active_one():
    p = player()
    with pytest.raises(OptionError, match="the active policy is rave"):
        p.set_option("uct.c_puct", "2.0")
    assert p.cfg.uct.c_puct == 1.5
    q = player("search.tree=uct")
    q.set_option("uct.c_puct", "2.0")
    assert q.cfg.uct.c_puct == 2.0

