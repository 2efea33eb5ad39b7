"""Every setting works live: for each key of the config, ``go-param KEY
VALUE`` over GTP is either refused with its reason (the keys that cannot
change mid-game, named) or reaches the component that reads it: the
search the engine uses next (its config, for every table it reads), the
clock (``time.*``), the Player (``player.*``, ``gtp.*``)."""
import dataclasses
import math
import os

import pytest

from engine import config as C
from engine.config import load
from engine.gtp.server import GtpServer
from tests.conftest import ROOT, SMALL

SEARCH_TABLES = ("search", "rave", "uct", "prior", "pool", "memory", "bhrf", "moggy", "net")
# a value for the keys whose type alone does not give a valid other one
SPECIAL = {"net.weights": os.path.join(ROOT, "nets", "weights", "9x9.pt"), "gtp.name": "other",
           "player.book_file": "some-book.json", "search.value_lambda": "0.25", "search.value_visits": "[4,2,1]",
           "search.threads": "1", "search.seed": "12345", "net.device": "cpu", "gtp.log_file": "engine.log"}


# keys that a rule across keys refuses alone: the refusal names the key it needs
NEEDS = {"player.book": "player.book_file"}


def other_value(key, f, current, base):
    """A valid value different from ``current``, as go-param text (one the
    rules across keys accept with ``base``'s other settings)."""
    if key in SPECIAL:
        return SPECIAL[key]
    m = f.metadata
    if m.get("choices"):
        return next(c for c in m["choices"] if c != current)
    if isinstance(current, bool):
        return "false" if current else "true"
    if isinstance(current, (int, float)):
        lo, hi = m.get("lo"), m.get("hi")
        lo = -1e9 if lo is None else lo
        hi = 1e9 if hi is None else hi
        cand = [current + 1, current - 1, current * 2, (lo + hi) / 2, lo, hi]
        for v in cand:
            if isinstance(current, int) and not isinstance(current, bool):
                v = int(v)
            if lo <= v <= hi and v != current and math.isfinite(v):
                try:
                    C.replace(base, **{key: str(v)})
                except C.ConfigError:
                    continue
                return str(v)
    return None


def keys():
    cfg = load(None, SMALL)
    out = []
    for tf in dataclasses.fields(cfg):
        sub = getattr(cfg, tf.name)
        for f in dataclasses.fields(sub):
            out.append((f"{tf.name}.{f.name}", f, getattr(sub, f.name)))
    return out


@pytest.mark.parametrize("prefix", ["", "size.9."], ids=["every size", "per size"])
def test_every_key_over_go_param_reaches_what_reads_it(prefix):
    """``prefix`` "size.9.": the same key in the per-size table of the
    board's size (a 9x9 board) reaches the same components."""
    refused, applied, no_value = [], [], []
    for key, f, current in keys():
        eng = GtpServer(load(None, SMALL + ["gtp.boardsize=9"]), out=open(os.devnull, "w"))
        p = eng.player
        p.search()                                   # a built search, as mid-game
        text = other_value(key, f, current, p.cfg)
        if text is None:
            no_value.append(key)
            continue
        reply = eng.respond(f"go-param {prefix}{key} {text}")
        if not reply.startswith("="):
            refused.append((key, reply.strip()))
            continue
        want = getattr(getattr(C.replace(load(None, SMALL + ["gtp.boardsize=9"]), **{key: text}),
                               key.split(".")[0]), key.split(".")[1])
        table, name = key.split(".")
        if table in SEARCH_TABLES:
            got = getattr(getattr(p.search().cfg, table), name)
        elif table == "time":
            got = getattr(p.tc, name)
        else:
            got = getattr(getattr(p.cfg, table), name)
        assert got == want, f"{key}: go-param {text} answered '=', but what reads it has {got!r}"
        applied.append(key)
    fixed = {k for k, r in refused if "cannot change mid-game" in r}
    assert fixed == set(p.FIXED_KEYS)                # refused only where the Player says why
    foreign = {k for k, r in refused if "the active policy is rave" in r}
    assert foreign == {k for k, _f, _c in keys() if k.startswith("uct.")}   # the uct tree's own keys, under rave
    others = [(k, r) for k, r in refused if k not in fixed | foreign and not (k in NEEDS and NEEDS[k] in r)]
    assert others == [], others
    assert no_value == []
    assert len(applied) >= 90
    # the uct tree's own keys reach its search when it is the active policy
    for key, f, current in keys():
        if not key.startswith("uct."):
            continue
        eng = GtpServer(load(None, SMALL + ["gtp.boardsize=9", "search.tree=uct"]), out=open(os.devnull, "w"))
        eng.player.search()
        text = other_value(key, f, current, eng.player.cfg)
        assert eng.respond(f"go-param {key} {text}").startswith("="), key
        want = getattr(C.replace(eng.player.cfg, **{key: text}).uct, key.split(".")[1])
        assert getattr(eng.player.search().cfg.uct, key.split(".")[1]) == want, key
