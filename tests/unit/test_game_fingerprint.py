"""The Player's games for fixed seeds are the games it played before the
engine's endgame rules moved into engine/endgame.py (tests/game_fingerprint.py)."""
import json

import pytest

from tests import game_fingerprint as gf

with open(gf.PATH) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("case", gf.CASES, ids=[c[0] for c in gf.CASES])
def test_same_game_for_fixed_seed(case):
    assert gf.play(case) == EXPECTED[case[0]]
