"""tools.datagen: GNU Go teacher games with their final scores."""
import numpy as np
import pytest

from nets import data as D
from tools import datagen


def test_parse_score():
    assert datagen.parse_score("B+3.5") == 3.5
    assert datagen.parse_score("W+0.5") == -0.5
    assert datagen.parse_score(" w+12 ") == -12.0
    assert datagen.parse_score("0") == 0.0
    with pytest.raises(ValueError, match="final_score"):
        datagen.parse_score("? cannot score")


@pytest.mark.gnugo
def test_a_shard_holds_moves_and_scores(tmp_path):
    """Two GNU Go level-1 games on 7x7: the shard's scores are GNU Go's
    final_score and become the value targets of nets.data."""
    arrays = datagen.play_shard(7, 7.0, 1, 0, 2, 2)
    assert arrays["scores"].shape == (2,) and len(arrays["offsets"]) == 3
    path = datagen.write_shard(str(tmp_path), 1, 0, arrays)
    pos = D.load_positions(str(tmp_path))
    assert len(pos) == int(arrays["is_label"].sum())
    for g, score in zip(arrays["seeds"], arrays["scores"]):
        z = pos.z[pos.game == g]
        mv = pos.move_no[pos.game == g]
        want = int(np.sign(score))
        assert np.all(z == np.where(mv % 2 == 0, want, -want))
    assert path.endswith("L01_00000.npz")
