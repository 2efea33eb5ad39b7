"""Every reproduction command in the docs still parses: each ``--set
table.key=value`` and each ``--config`` file a command names loads through
engine.config (a renamed key would orphan its record)."""
import glob
import os
import re

import pytest

from engine.config import ConfigError, load
from tests.conftest import ROOT

PLACEHOLDERS = ("table.key", "TABLE.KEY")


def doc_files():
    return sorted(glob.glob(os.path.join(ROOT, "docs", "results", "*.md")) + glob.glob(os.path.join(ROOT, "docs", "*.md"))
                  + [os.path.join(ROOT, "README.md")])


def _trim(s):
    s = s.rstrip("`'\",):;")
    if s.endswith("]") and "[" not in s:
        s = s.rstrip("]")
    return s


def load_any(path):
    """A config of any kind the docs name: the engine's, the trainer's
    (configs/nets) or an experiment's (configs/paper)."""
    rel = os.path.relpath(path, ROOT)
    if rel.startswith(os.path.join("configs", "nets")):
        from nets.train import load_config
        return load_config(path)
    if rel.startswith(os.path.join("configs", "paper")):
        from tools import experiment
        return experiment.load(path)
    return load(path)


def commands():
    """(file, --set values, --config paths) of every command line (lines
    joined at a trailing backslash)."""
    out = []
    for f in doc_files():
        text = open(f).read().replace("\\\n", " ")
        for line in text.splitlines():
            if "--set" not in line and "--config" not in line:
                continue
            sets = [_trim(s) for s in re.findall(r"--set[ =]+['\"]?([a-z_]+\.[a-z_0-9]+=[^\s\"]+)", line)]
            sets = [s for s in sets if not s.startswith(PLACEHOLDERS) and not re.search(r"=[A-Z]$", s)]
            cfgs = [c.rstrip("`'\",):;") for c in re.findall(r"--config[ =]+(configs/[\w./-]+\.toml)", line)]
            if sets or cfgs:
                out.append((os.path.relpath(f, ROOT), sets, cfgs))
    return out


def test_the_docs_have_commands():
    assert len(commands()) > 50


@pytest.mark.parametrize("doc", sorted({c[0] for c in commands()}))
def test_every_command_of_a_doc_parses(doc):
    bad = []
    for _, sets, cfgs in (c for c in commands() if c[0] == doc):
        for s in sets:
            try:
                load(None, [s])
            except ConfigError as e:
                try:                   # a rule across keys: the line's other settings may satisfy it
                    load(None, sets)
                except ConfigError:
                    bad.append(f"--set {s}: {e}")
        for c in cfgs:
            path = os.path.join(ROOT, c)
            if not os.path.exists(path):
                bad.append(f"--config {c}: no such file")
                continue
            try:
                load_any(path)
            except (ConfigError, ValueError) as e:
                bad.append(f"--config {c}: {e}")
    assert bad == []
