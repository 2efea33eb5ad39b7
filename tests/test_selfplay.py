"""tools.selfplay: one SGF per game with win rate/visits comments, a JSON
summary, resume without rewriting finished games."""
import json
import os
import subprocess

from engine.config import load
from tools.selfplay import run

from tests.conftest import PY, ROOT

SELFPLAY = ["search.playouts=20", "gtp.score_playouts=20", "prior.evaluator=none", "pool.pool_size=5000"]


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
