"""Shipped configs: default.toml equals the dataclass defaults, every key is
commented, every config loads, and the ringmaster control file is valid."""
import dataclasses
import glob
import os
import re
import tomllib

import pytest

from engine import config as C

from tests.conftest import ROOT

CONFIGS = sorted(glob.glob(os.path.join(ROOT, "configs", "*.toml")))


def test_default_toml_matches_dataclasses():
    path = os.path.join(ROOT, "configs", "default.toml")
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    defaults = C.to_dict(C.Config())
    assert data == defaults, "configs/default.toml differs from engine/config.py defaults"
    assert C.load(path) == C.Config()


@pytest.mark.parametrize("path", CONFIGS, ids=os.path.basename)
def test_every_config_loads_and_every_key_is_commented(path):
    C.load(path)
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("["):
            continue
        assert re.match(r"^\w+\s*=", s), f"{path}:{n}: not a key line"
        assert "#" in s, f"{path}:{n}: key without a comment"
        assert "default" in s.split("#", 1)[1], f"{path}:{n}: comment should give the default"


def test_config_tables_are_all_in_default():
    text = open(os.path.join(ROOT, "configs", "default.toml"), encoding="utf-8").read()
    for f in dataclasses.fields(C.Config()):
        assert f"[{f.name}]" in text


def test_ringmaster_control_file():
    path = os.path.join(ROOT, "configs", "ringmaster-vs-gnugo.ctl")
    matchups = []

    def Player(command, **kw):
        return {"command": command, **kw}

    def Matchup(p1, p2, **kw):
        matchups.append((p1, p2, kw))
        return (p1, p2, kw)

    ns = {"Player": Player, "Matchup": Matchup}
    exec(compile(open(path).read(), path, "exec"), ns)
    assert ns["competition_type"] == "playoff"
    assert ns["board_size"] == 9
    ours = ns["players"]["gomcts"]
    words = ours["command"].split()
    exe = os.path.normpath(os.path.join(os.path.dirname(path), words[0]))
    cwd = os.path.normpath(os.path.join(os.path.dirname(path), ours["cwd"]))
    assert cwd == ROOT
    assert words[1] == "gtp_main.py" and os.path.exists(os.path.join(cwd, "gtp_main.py"))
    assert exe.endswith(os.path.join(".venv", "bin", "python"))
    cfg = words[words.index("--config") + 1]
    C.load(os.path.join(cwd, cfg))
    p1, p2, kw = matchups[0]
    assert {p1, p2} <= set(ns["players"]) and kw["alternating"]
