"""The real KaTrain 1.20.0 (from the package registry, installed into a
throwaway environment here) drives the engine's JSON analysis server
headless, through its own engine, game and AI classes
(tests/clients/katrain/driver.py): analysis of a 9x9 and a 19x19 game,
find-alternatives, continuous analysis with partial results, and its
``ai:default`` and ``ai:simple`` AIs playing moves."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "tests", "clients", "katrain", "driver.py")
KATRAIN = "katrain==1.20.0"


@pytest.fixture(scope="module")
def katrain_python(tmp_path_factory):
    env_dir = tmp_path_factory.mktemp("katrain-env")
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = str(env_dir / "bin" / "python")
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", KATRAIN],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"pip install {KATRAIN} failed:\n{r.stderr[-3000:]}"
    return py


@pytest.mark.slow
def test_katrain_analyses_finds_alternatives_ponders_and_plays(katrain_python, tmp_path):
    home = tmp_path / "home"
    (home / ".kivy").mkdir(parents=True)
    out = tmp_path / "katrain.json"
    # the engine users get: gtp_main.py's shipped per-size configs, bounded by KaTrain's own visits;
    # the custom command as docs/GTP.md gives it (KaTrain runs it through a shell: exec)
    engine = f"exec {sys.executable} {os.path.join(ROOT, 'gtp_main.py')} analysis"
    env = dict(os.environ, HOME=str(home), KIVY_HOME=str(home / ".kivy"))
    r = subprocess.run([katrain_python, DRIVER, engine, str(out)], capture_output=True, text=True,
                       timeout=900, env=env, cwd=tmp_path)
    assert r.returncode == 0 and out.exists(), r.stderr[-3000:]
    got = json.loads(out.read_text())
    assert "error" not in got, got["error"]
    assert got["messages"] == []                          # no error popup KaTrain would have shown
    for size in (9, 19):
        a = got[f"analysis_{size}"]
        assert a["complete"] and a["nodes"] == 6 and a["root_visits"] > 0
        assert a["ownership_len"] == size * size and a["policy_ranking"]
        cands = a["candidates"]
        assert cands and cands[0][4] == 0
        assert abs(cands[0][3]) < 1e-6                    # KaTrain grades the engine's own choice as no loss
        assert a["format_score"][:2] in ("B+", "W+")
        alt = got[f"alternatives_{size}"]
        assert alt["done"] and alt["new"] and not set(alt["new"]) & set(alt["before"])
    assert got["ponder"]["started"] and got["ponder"]["ended"]   # each waited for under a 120 s deadline
    ponder = got["ponder"]["results"]
    during = [v for partial, v in ponder if partial]
    assert len(during) >= 3 and ponder[-1][0] is False    # partial results while it searched, then the final
    assert during == sorted(during)
    for mode in ("ai:default", "ai:simple"):
        assert got["ai"][mode].get("move") and got["ai"][mode]["played"], got["ai"][mode]
