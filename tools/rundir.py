"""The output folder of a run of tools.match or tools.selfplay, and the
settings it was made with.

A run stores its settings (opponent, board size, komi, engine config ...)
in ``settings.json`` in its folder, written atomically when the folder is
first used.  A rerun into the same folder resumes only with the same
settings; otherwise :func:`claim` raises :class:`SettingsMismatch` naming
each setting that differs, so games played under other settings are never
mixed into one result.  A folder made before settings were stored (results
but no ``settings.json``) resumes as it did, and gets the rerun's settings.

Settings are compared as flat ``a.b.c`` keys after a JSON round trip (so a
tuple equals a list); a key that only one side has is not a difference (a
newer engine may have knobs an older run did not record).
"""
from __future__ import annotations

import json
import os

from atomicio import atomic_write

SETTINGS = "settings.json"


class SettingsMismatch(ValueError):
    """The folder holds a run made with other settings; the message names
    every difference."""


def flatten(d, prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def differences(stored, now):
    """["key: A there, B now", ...] for the keys both settings have."""
    a, b = flatten(stored), flatten(now)
    return [f"{k}: {json.dumps(a[k])} there, {json.dumps(b[k])} now"
            for k in sorted(a.keys() & b.keys()) if a[k] != b[k]]


def claim(out, settings):
    """Make the folder ``out`` for a run with ``settings`` (a JSON-able
    dict) and store them, or check them against the ones stored there."""
    settings = json.loads(json.dumps(settings))
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, SETTINGS)
    try:
        with open(path, encoding="utf-8") as fh:
            stored = json.load(fh)
    except FileNotFoundError:
        stored = None
    except (OSError, ValueError) as e:
        raise SettingsMismatch(f"{path} is unreadable ({e}); use another --out") from None
    if stored is not None:
        diff = differences(stored, settings)
        if diff:
            raise SettingsMismatch(f"{out} holds a run made with other settings; "
                                   f"use another --out, or the same settings to resume:\n  "
                                   + "\n  ".join(diff))
        if flatten(stored).keys() >= flatten(settings).keys():
            return
    atomic_write(path, json.dumps(settings, indent=1, sort_keys=True) + "\n")
