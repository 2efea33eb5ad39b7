"""tools.netloop: the gate plays a candidate net against the shipped one
through tools.match and ships it only when it passes."""
import json
import os

import pytest
import torch

from nets.model import ModelConfig, GoNet
from tools import netloop


def _tiny(path, **kw):
    torch.save({k: v.half() for k, v in GoNet(ModelConfig.tiny(9, **kw)).state_dict().items()}, path)
    return str(path)


@pytest.mark.slow
def test_gate_plays_and_ship_copies(tmp_path):
    cand = _tiny(tmp_path / "9x9-next.pt", value_head=True)
    (tmp_path / "9x9-next.json").write_text(json.dumps({"name": "9x9-next", "model_config":
                                                        ModelConfig.tiny(9, value_head=True).to_dict()}))
    v = netloop.gate(9, cand, str(tmp_path / "gate"), games=2, playouts=8, threshold=0.0,
                     sets=["player.score_playouts=8", "pool.pool_size=5000"],
                     cand_sets=["search.value_lambda=0.5"], progress=False)
    assert v["games"] == 2 and v["passed"] and v["candidate_sets"] == ["search.value_lambda=0.5"]
    on_disk = json.loads((tmp_path / "gate" / "gate.json").read_text())
    assert on_disk["wins"] + on_disk["losses"] + on_disk["draws"] == 2
    sgfs = sorted(f for f in os.listdir(tmp_path / "gate") if f.endswith(".sgf"))
    assert len(sgfs) == 2
    # the threshold decides; a resumed gate replays nothing
    v2 = netloop.gate(9, cand, str(tmp_path / "gate"), games=2, playouts=8, threshold=1.01,
                      sets=["player.score_playouts=8", "pool.pool_size=5000"],
                      cand_sets=["search.value_lambda=0.5"], progress=False)
    assert not v2["passed"] and v2["wins"] == v["wins"]
    wdir = tmp_path / "weights"
    wdir.mkdir()
    dst = netloop.ship(9, cand, v, weights_dir=str(wdir))
    assert os.path.basename(dst) == "9x9.pt"
    meta = json.loads((wdir / "9x9.json").read_text())
    assert meta["name"] == "9x9" and meta["gate"]["passed"] and meta["model_config"]["value_head"]


def test_ship_refuses_what_does_not_load(tmp_path):
    bad = tmp_path / "junk.pt"
    bad.write_bytes(b"not weights")
    with pytest.raises(ValueError):
        netloop.ship(9, str(bad), weights_dir=str(tmp_path))
    assert not (tmp_path / "9x9.pt").exists()
    with pytest.raises(FileNotFoundError):
        netloop.gate(9, str(tmp_path / "missing.pt"), str(tmp_path / "g"), games=2)
