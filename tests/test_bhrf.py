"""BHRF: forest updates (Algorithms 1, 2) and the rollout policy (3, 4)."""
import pytest

from board_ext.bhrf import Forest
from board_ext.board import BLACK, WHITE, Board
from engine import config
from engine.search import Search


def test_update_adds_one_node_per_tree_per_update():
    f = Forest(9, max_depth=3)
    seq = [10, 20, 30, 40]
    f.update(seq, BLACK, 1.0)
    # reply 40 (black's 2nd... index 3 = white) learns context (30,) only
    assert [p[0] for p in f.patterns(40)] == [(30,)]
    f.update(seq, BLACK, 1.0)
    assert sorted(p[0] for p in f.patterns(40)) == [(30,), (30, 20)]
    f.update(seq, BLACK, 1.0)
    f.update(seq, BLACK, 1.0)
    pats = dict((p[0], p) for p in f.patterns(40))
    # capped at max_depth = 3
    assert set(pats) == {(30,), (30, 20), (30, 20, 10)}
    # the reply 40 was white's move; black won: mean 0 for white
    assert pats[(30,)][2] == 0.0 and pats[(30,)][1] == 4
    # reply 30 is black's: mean 1
    assert f.patterns(30)[0][2] == 1.0
    # the first move has no context
    assert f.patterns(10) == []


def test_longest_context_wins():
    f = Forest(9, max_depth=3)
    f.update([1, 2, 3], BLACK, 1.0)        # reply 3 after (2,)
    f.update([5, 2, 7], BLACK, 1.0)        # reply 7 after (2,)
    f.update([5, 2, 7], BLACK, 1.0)        # reply 7 after (2, 5)
    b = Board(9)
    for m in (5, 2):
        b.play(m)
    assert f.suggest(b) == [7]              # context (2, 5) beats (2,)
    b2 = Board(9)
    for m in (1, 2):
        b2.play(m)
    assert f.suggest(b2) == [3, 7]          # only (2,) matches: both replies


@pytest.mark.parametrize("selection", ["soft-uct", "last-reply"])
def test_rollouts_follow_the_forest(selection):
    f = Forest(9, epsilon=1.0, selection=selection)
    for _ in range(50):
        f.update([40, 41], BLACK, 0.0)     # white's reply 41 to 40 always wins
    b = Board(9)
    b.play(40)
    firsts = [f.playout(b, seed=s)[1][0] for s in range(40)]
    assert firsts.count(41) > 30
    assert f.stats()["played"] > 0
    off = Forest(9, epsilon=0.0, selection=selection)
    for _ in range(50):
        off.update([40, 41], BLACK, 0.0)
    assert [off.playout(b, seed=s)[1][0] for s in range(40)].count(41) < 10


def test_search_with_bhrf_persists_and_clears():
    cfg = config.load(None, ["search.playouts=800", "search.rollout=bhrf"])
    s = Search(cfg)
    b = Board(9)
    s.set_position(b, 7.0)
    r = s.run()
    n1 = s.bhrf.stats()["nodes"]
    assert n1 > 0
    b.play(r.move)
    s.set_position(b, 7.0)
    s.run()
    assert s.bhrf.stats()["nodes"] >= n1      # kept across moves
    s.clear()
    assert s.bhrf.stats()["nodes"] == 0


def test_bad_bhrf_config_names_key():
    with pytest.raises(config.ConfigError, match="bhrf.epsilon"):
        config.load(None, ["bhrf.epsilon=1.5"])
    with pytest.raises(config.ConfigError, match="bhrf.selection"):
        config.load(None, ["bhrf.selection=greedy"])
    with pytest.raises(ValueError, match="bhrf.epsilon"):
        Forest(9, epsilon=-0.1)
