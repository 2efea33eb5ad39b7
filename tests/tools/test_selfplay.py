"""tools.selfplay: one SGF per game with win rate/visits comments, a JSON
summary, resume without rewriting finished games."""
import json
import os
import subprocess

from engine.config import load
from tools.selfplay import run

from tests.conftest import PY, ROOT

SELFPLAY = ["search.playouts=20", "player.score_playouts=20", "prior.evaluator=none", "pool.pool_size=5000"]


def test_selfplay_writes_and_resumes(tmp_path):
    cfg = load(None, SELFPLAY)
    out = str(tmp_path)
    s = run(cfg, 2, 5, 0.5, out, workers=1, seed=7, progress=False)
    assert s["games"] == 2 and s["black_wins"] + s["white_wins"] + s["draws"] == 2
    files = sorted(f for f in os.listdir(out) if f.endswith(".sgf"))
    assert files == ["game-00001.sgf", "game-00002.sgf"]
    sgf = open(os.path.join(out, files[0])).read()
    assert "SZ[5]" in sgf and "RE[" in sgf and "winrate" in sgf and "visits" in sgf
    assert not [f for f in os.listdir(out) if f.startswith(".tmp")]
    mtime = os.path.getmtime(os.path.join(out, files[0]))
    s = run(cfg, 3, 5, 0.5, out, workers=1, seed=7, progress=False)
    assert s["games"] == 3
    assert os.path.getmtime(os.path.join(out, files[0])) == mtime     # not rewritten
    data = json.load(open(os.path.join(out, "summary.json")))
    assert [r["index"] for r in data["records"]] == [0, 1, 2]


def test_selfplay_cli(tmp_path):
    args = [PY, "-m", "tools.selfplay", "--games", "1", "--size", "5", "--komi", "0.5",
            "--out", str(tmp_path)]
    for s in SELFPLAY:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["games"] == 1


def test_selfplay_writes_training_shards(tmp_path):
    """--data: one shard per game with the root's visit distribution of
    every move and the result; nets.data reads it as policy and value
    targets; a resumed run writes the shards its games lack."""
    import numpy as np
    from nets import data as D
    cfg = load(None, ["search.playouts=40", "search.seconds=0", "prior.evaluator=none",
                      "search.rollout=random"])
    out, data = str(tmp_path / "sgf"), str(tmp_path / "data")
    run(cfg, 2, 5, 0.5, out, workers=1, seed=3, progress=False, data=data)
    names = sorted(os.listdir(data))
    assert names == ["SP_00001.npz", "SP_00002.npz"]
    with np.load(os.path.join(data, names[0])) as z:
        n = len(z["moves"])
        assert z["visits"].shape == (n, 26) and z["root_values"].shape == (n,)
        assert np.allclose(z["visits"].astype(np.float32).sum(1), 1.0, atol=1e-2)
        prov = json.loads(str(z["provenance"]))
        assert prov["seed"] == 3 and prov["config"]["search"]["playouts"] == 40
        score = float(z["scores"][0])
        # the visit distribution's favourite is the move played, passes aside
        played = z["moves"]
        fav = z["visits"].astype(np.float32).argmax(1)
        assert np.mean(fav == played) > 0.7
    assert (score > 0) == prov["result"].startswith("B+") or score == 0
    pos = D.load_positions(data)
    assert pos.pi is not None and len(pos) == pos.pi.shape[0] and not pos.bad_shards
    first = pos.game == 3
    if score != 0:
        assert pos.z[first][0] == (1 if score > 0 else -1)
    os.remove(os.path.join(data, names[1]))
    run(cfg, 2, 5, 0.5, out, workers=1, seed=3, progress=False, data=data)
    assert sorted(f for f in os.listdir(data) if f.endswith(".npz")) == names
