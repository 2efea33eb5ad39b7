"""bench/value_in_games.py picks the engine's positions and its search's
win rate from a match's SGF, and sums the errors against the teacher."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import value_in_games  # noqa: E402
from move_losses import phases  # noqa: E402


def _game(moves):
    body = "".join(f";{'BW'[i % 2]}[{mv}]" + (f"C[X winrate {r}% visits 10 playouts 10 time 0.1s]" if r is not None else "")
                   for i, (mv, r) in enumerate(moves))
    return f"(;FF[4]GM[1]SZ[9]KM[7]PB[eng]PW[kata]{body})"


def test_positions_are_the_turns_after_the_engines_moves_with_its_win_rate():
    text = _game([("aa", 55), ("bb", None), ("cc", 60.5), ("dd", None), ("", 70), ("ee", None), ("ff", None)])
    size, komi, gtp, ours = value_in_games.positions(text, "eng", 1)
    assert (size, komi, len(gtp)) == (9, 7, 7)
    # the pass (turn 5) and the comment-less move (turn 7) are left out
    assert ours == [(1, "B", 0.55), (3, "B", 0.605)]
    assert value_in_games.positions(text, "eng", 2)[3] == [(1, "B", 0.55)]
    # the engine as White: its moves carry no win rate here
    assert value_in_games.positions(text, "kata", 1)[3] == []
    with pytest.raises(ValueError, match="not 'nobody'"):
        value_in_games.positions(text, "nobody", 1)


def test_summary_by_phase_openness_and_all():
    # (turn, teacher, net, search)
    rows = [(1, 0.5, 0.6, 0.4), (3, 0.9, 0.7, 0.95), (60, 0.3, 0.3, 0.1)]
    s = {r[0]: r[1:] for r in value_in_games.summary(rows, phases("50"))}
    n, net, search, bias_net, bias_search = s["1-50"]
    assert n == 2 and net == pytest.approx(0.15) and search == pytest.approx(0.075)
    assert bias_net == pytest.approx(-0.05) and bias_search == pytest.approx(-0.025)
    assert s["51-"][0] == 1 and s["51-"][2] == pytest.approx(0.2)
    assert s["open"][0] == 2 and s["decided"][0] == 1 and s["all"][0] == 3
    assert s["all"][1] == pytest.approx((0.1 + 0.2 + 0.0) / 3)
