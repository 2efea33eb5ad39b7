"""bench/match_views.py reads what each side of a match reported."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import match_views  # noqa: E402


def _game(rates):
    moves = "".join(f";{'BW'[i % 2]}[{'abcdefghi'[i]}a]C[X winrate {r}% visits 10 playouts 10 time 0.1s]"
                    for i, r in enumerate(rates))
    return f"(;FF[4]GM[1]SZ[9]{moves})"


def test_gaps_and_costs_are_read_for_the_side_that_played(tmp_path, capsys):
    # a plays Black in game 1: a reports 60, b answers 30 (b's view of a's position: a at 70), a 65, b 40
    (tmp_path / "game-0001.sgf").write_text(_game([60, 30, 65, 40]))
    (tmp_path / "results.json").write_text(json.dumps(
        {"names": ["a", "b"], "games": [{"index": 0, "a_color": "black"}]}))
    names, gaps, cost = match_views.gaps(str(tmp_path))
    assert names == ["a", "b"]
    # a's own 60 against b's view 70, a's 65 against 60: gaps -10 and +5
    assert [round(d, 3) for _, d in gaps["a"]] == [-0.1, 0.05]
    # b's 30 against a's view 1 - 0.65
    assert [round(d, 3) for _, d in gaps["b"]] == [-0.05]
    # a's move 2 (index 2): b's rate went 30 -> 40 across it, a cost of +10
    assert [(i, round(d, 3)) for i, d in cost["a"]] == [(2, 0.1)]
    # b's move 1: a's rate went 60 -> 65, a cost of +5
    assert [(i, round(d, 3)) for i, d in cost["b"]] == [(1, 0.05)]
    match_views.main([str(tmp_path)])
    assert capsys.readouterr().out.strip().splitlines()[-1] == "move_cost_difference: +5.00 points a move"
