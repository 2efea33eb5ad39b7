"""tools.fanout: the tools' games on a local process pool or on Ray.

The Ray tests start a local Ray instance of 2 CPUs through the tools'
``--ray --ray-cpus 2`` (each run shuts it down) and play tiny 5x5 games.
"""
import json
import os
import subprocess

import pytest

from tests.conftest import PY, ROOT
from tools.fanout import Fanout

GAME = ["--size", "5", "--komi", "0.5", "--seed", "7", "--set", "search.playouts=20",
        "--set", "player.score_playouts=20", "--set", "prior.evaluator=none", "--set", "pool.pool_size=5000"]


def selfplay(out, *extra, env=None, timeout=120):
    args = [PY, "-m", "tools.selfplay", "--out", str(out), *GAME, *extra]
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env={**os.environ, **(env or {})})


def sgfs(out):
    return sorted(f for f in os.listdir(out) if f.endswith(".sgf"))


def _half(x):
    if x < 0:
        raise ValueError(f"negative {x}")
    return x / 2


def test_local_fanout_returns_values_and_errors_in_this_process():
    with Fanout(workers=1) as fan:
        got = {i: (v, type(e).__name__ if e else None) for i, v, e in fan.imap(_half, [(2,), (-1,), (6,)])}
    assert got == {0: (1.0, None), 1: (None, "ValueError"), 2: (3.0, None)}
    assert [r["jobs"] for r in fan.placement()] == [2]
    assert "2 games ran here on 1 node" in fan.summary()


@pytest.mark.slow
def test_selfplay_on_a_local_ray_instance(tmp_path):
    r = selfplay(tmp_path, "--games", "4", "--ray", "--ray-cpus", "2")
    assert r.returncode == 0, r.stderr
    assert sgfs(tmp_path) == [f"game-{i:05d}.sgf" for i in range(1, 5)]
    assert "4 games ran on Ray on 1 node:" in r.stderr
    data = json.load(open(tmp_path / "summary.json"))
    assert [x["index"] for x in data["records"]] == [0, 1, 2, 3]
    assert sum(p["jobs"] for p in data["ran_on"]) == 4
    assert json.loads(r.stdout.strip().splitlines()[-1])["games"] == 4


@pytest.mark.slow
def test_a_killed_ray_worker_game_is_played_again_and_recorded_once(tmp_path):
    out, marks = tmp_path / "out", tmp_path / "marks"
    marks.mkdir()
    r = selfplay(out, "--games", "1")              # a run stopped after one game, without Ray
    assert r.returncode == 0, r.stderr
    first = os.path.getmtime(out / "game-00001.sgf")
    r = selfplay(out, "--games", "4", "--ray", "--ray-cpus", "2",
                 env={"GOMCTS_FANOUT_CRASH_ONCE": str(marks)})
    assert r.returncode == 0, r.stderr
    assert (marks / "crashed").exists()           # a worker died mid-run
    assert sgfs(out) == [f"game-{i:05d}.sgf" for i in range(1, 5)]
    assert os.path.getmtime(out / "game-00001.sgf") == first       # resumed, not replayed
    data = json.load(open(out / "summary.json"))
    assert [x["index"] for x in data["records"]] == [0, 1, 2, 3]
    assert sum(p["jobs"] for p in data["ran_on"]) == 3             # each missing game once
    assert "3 games ran on Ray" in r.stderr
    assert not [f for f in os.listdir(out) if f.startswith(".tmp")]


TOOLS = {"selfplay": ["-m", "tools.selfplay", "--games", "1"],
         "match": ["-m", "tools.match", "--opponent", "gnugo", "--games", "1"],
         "experiment": ["-m", "tools.experiment"],
         "datagen": ["-m", "tools.datagen", "--games", "1"]}
TINY_EXPERIMENT = """name = "tiny"
size = 5
games = 1
common = ["search.playouts=10", "prior.evaluator=none"]
[[variant]]
series = "s"
x = 1
"""


def _tool_args(name, tmp_path, *extra):
    args = [PY, *TOOLS[name], "--out", str(tmp_path / "out"), *extra]
    if name == "experiment":
        (tmp_path / "tiny.toml").write_text(TINY_EXPERIMENT)
        args.insert(3, str(tmp_path / "tiny.toml"))
    return args


@pytest.mark.slow
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_ray_and_workers_together_name_the_conflict(tmp_path, tool):
    r = subprocess.run(_tool_args(tool, tmp_path, "--ray", "--workers", "2"),
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2
    assert "--ray and --workers 2" in r.stderr
    assert not (tmp_path / "out").exists() or not os.listdir(tmp_path / "out")


@pytest.mark.slow
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_an_unreachable_ray_address_fails_fast_with_one_line(tmp_path, tool):
    addr = "127.0.0.1:9"                            # discard port: nothing listens
    r = subprocess.run(_tool_args(tool, tmp_path, "--ray-address", addr),
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and "%|" not in ln]
    assert len(lines) == 1, r.stderr
    assert addr in lines[0] and "cannot reach" in lines[0]


@pytest.mark.slow
def test_a_silent_ray_address_fails_within_the_connection_timeout():
    from tools.fanout import FanoutError, check_reachable
    with pytest.raises(FanoutError, match="198.51.100.1:6379"):
        check_reachable("198.51.100.1:6379")       # TEST-NET-2: no answer, or no route


@pytest.mark.slow
def test_the_engine_and_the_tools_without_ray_never_import_it(tmp_path):
    code = f"""
import sys
sys.argv = ["gtp_main.py"]
import gtp_main, engine.player
from tools import selfplay, match, experiment, datagen
assert selfplay.main({[ "--out", str(tmp_path / "sp"), "--games", "2", "--workers", "2", *GAME]!r}) == 0
exp = {{"name": "no-ray", "size": 5, "komi": 0.5, "games": 1, "workers": 1, "baseline": [],
        "common": ["search.playouts=10", "prior.evaluator=none", "pool.pool_size=5000"],
        "variant": [{{"series": "s", "x": 1, "sets": []}}]}}
experiment.run(exp, {str(tmp_path / "exp")!r})
assert "ray" not in sys.modules, "ray was imported"
print("no ray")
"""
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "no ray" in r.stdout
    assert len(os.listdir(tmp_path / "sp")) >= 2


@pytest.mark.slow
def test_match_on_a_local_ray_instance_writes_sgfs_and_logs_here(tmp_path):
    engine = f"{PY} gtp_main.py --set search.playouts=10 --set prior.evaluator=none --set player.score_playouts=10"
    out = tmp_path / "out"
    r = subprocess.run([PY, "-m", "tools.match", "--engine", engine, "--opponent", engine + " --set search.seed=3",
                        "--games", "2", "--size", "5", "--komi", "0.5", "--out", str(out),
                        "--ray", "--ray-cpus", "2"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert sgfs(out) == ["game-0001.sgf", "game-0002.sgf"]
    assert sorted(os.listdir(out / "logs")) == [f"game-000{i}-{c}.log" for i in (1, 2) for c in "bw"]
    assert [g["index"] for g in json.load(open(out / "results.json"))["games"]] == [0, 1]
    assert "2 games ran on Ray on 1 node:" in r.stderr


@pytest.mark.slow
def test_experiment_on_a_local_ray_instance_writes_every_record_here(tmp_path):
    code = f"""
from tools import experiment
exp = {{"name": "ray-test", "size": 5, "komi": 0.5, "games": 3, "workers": 2, "baseline": [],
        "common": ["search.playouts=10", "prior.evaluator=none", "pool.pool_size=5000"],
        "variant": [{{"series": "s", "x": 1, "sets": []}}]}}
placement = experiment.run(exp, {str(tmp_path)!r}, ray="local", ray_cpus=2)
print(sum(p["jobs"] for p in placement))
"""
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "3"
    assert sorted(os.listdir(tmp_path / "s-1")) == ["game-0001.json", "game-0002.json", "game-0003.json"]
