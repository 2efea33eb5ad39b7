"""GTP text: preprocessing, argument parsing and reply cleaning, shared by
the server (engine/gtp/server.py) and its command groups
(engine/gtp/cmd_*.py).  Nothing here knows the engine."""
from __future__ import annotations

import math
import re

from board_ext.board import BLACK, WHITE

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
ID_RE = re.compile(r"[0-9]+")
# a GTP float: what a controller writes (Python's float() would also take
# '1_000', 'inf' or 'nan')
_FLOAT_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


class GtpFail(Exception):
    """A command failed: the reply is ``? message``."""


def preprocess(line):
    """GTP 2 section 2.2 input preprocessing; '' for a line to ignore."""
    line = _CONTROL_RE.sub("", line.replace("\r", ""))
    line = line.replace("\t", " ")
    if "#" in line:
        line = line[:line.index("#")]
    return line.strip()


def parse_color(text):
    t = text.lower()
    if t in ("b", "black"):
        return BLACK
    if t in ("w", "white"):
        return WHITE
    raise GtpFail(f"invalid color '{text}'")


def color_letter(color):
    return "B" if color == BLACK else "W"


def parse_int(text, what="value", lo=None, hi=None):
    try:
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise ValueError
        v = int(text)
    except (ValueError, TypeError):
        raise GtpFail(f"syntax error: {what} must be an integer, not '{text}'") from None
    if lo is not None and v < lo or hi is not None and v > hi:
        raise GtpFail(f"{what} out of range: {v}")
    return v


def parse_float(text, what="value", lo=None, hi=None):
    """A GTP float (digits, a point, an exponent); ``lo``/``hi`` bound it."""
    if not isinstance(text, str) or not _FLOAT_RE.fullmatch(text):
        raise GtpFail(f"syntax error: {what} must be a number, not '{text}'")
    v = float(text)
    if not math.isfinite(v):
        raise GtpFail(f"syntax error: {what} must be finite")
    if lo is not None and v < lo or hi is not None and v > hi:
        raise GtpFail(f"{what} out of range: {v:g}")
    return v


def gfx_lines(infl, labels):
    """GoGui gfx INFLUENCE and LABEL lines (omitted when empty)."""
    out = []
    if infl:
        out.append("INFLUENCE " + " ".join(infl))
    if labels:
        out.append("LABEL " + " ".join(labels))
    return out


def permyriad(x):
    try:
        v = int(round(float(x) * 10000))
    except (TypeError, ValueError):
        v = 0
    return max(0, min(10000, v))


def fmt_value(v):
    """A config value as the config file writes it, so that a client can
    send it back as it reads it: a list as ``[0.2, 0.3]``, not a Python
    tuple."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(f'"{x}"' if isinstance(x, str) else fmt_value(x) for x in v) + "]"
    if v == "":
        return '""'
    return str(v)


def clean_reply(text):
    """A reply body must not contain blank lines (they end the reply)."""
    lines = [ln.rstrip() for ln in str(text).replace("\r", "").split("\n")]
    out = []
    for i, ln in enumerate(lines):
        if ln == "" and i > 0:
            ln = " "
        out.append(ln)
    return "\n".join(out).rstrip() if len(out) > 1 else out[0]


def gfx_visits(rows, vtx, pass_move):
    """GoGui's graphics of a search's root rows: each move's visits as a
    label and as influence against the most visited, then the best move."""
    total = max(1, max((r.get("visits", 0) for r in rows), default=1))
    labels, infl = [], []
    for r in rows:
        if r["move"] == pass_move or r.get("visits", 0) <= 0:
            continue
        v = vtx(r["move"])
        labels.append(f"{v} {r['visits']}")
        infl.append(f"{v} {r['visits'] / total:.2f}")
    out = gfx_lines(infl, labels)
    if rows:
        best = rows[0]
        out.append(f"TEXT best {vtx(best['move'])} visits {best['visits']} "
                   f"winrate {100 * best.get('winrate', 0.5):.1f}%")
    return "\n".join(out)


def gfx_pv(rows, color, vtx):
    """GoGui's VAR line of the best row's principal variation, ``color``
    to move first."""
    if not rows:
        return ""
    seq = []
    for m in rows[0].get("pv") or [rows[0]["move"]]:
        seq.append(f"{color_letter(color).lower()} {vtx(m)}")
        color = WHITE if color == BLACK else BLACK
    return "VAR " + " ".join(seq)
