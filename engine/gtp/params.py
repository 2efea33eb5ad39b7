"""Settings the way KataGo and Leela Zero clients set them.

``kata-set-param`` / ``kata-get-param`` / ``kata-list-params`` (KataGo's
names, from its gtp_example.cfg and docs/GTP_Extensions.md) and
``lz-setoption name X value Y`` (Leela Zero's options, from its GTP.cpp;
Lizzie sends them) map onto config keys (engine.config), with the same
type and range checks as ``go-param``.  Every ``table.key`` of the config is
accepted by both commands as well.

A client name maps to (config key, to_config, from_config): functions that
convert the client's unit to ours and back.  Names with no counterpart
here are listed in :data:`UNSUPPORTED` with the reason, so the client gets
a clear ``? message`` instead of ``unknown parameter``.
"""
from __future__ import annotations

from engine.pool import BYTES_PER_NODE

MAX_PLAYOUTS = 10**9


class ParamError(ValueError):
    """A client parameter that is unknown, unsupported or malformed."""


def _int(text, name):
    try:
        return int(str(text).strip())
    except ValueError:
        raise ParamError(f"{name}: expected an integer, got '{text}'") from None


def _float(text, name):
    try:
        v = float(str(text).strip())
    except ValueError:
        raise ParamError(f"{name}: expected a number, got '{text}'") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise ParamError(f"{name}: expected a finite number, got '{text}'")
    return v


def _same(v, name):
    return str(v).strip()


def _bool_text(v):
    return "true" if v else "false"


def _visits_in(v, name):
    """KataGo/LZ visit and playout caps: 0 (LZ) = unlimited."""
    n = _int(v, name)
    if n < 0:
        raise ParamError(f"{name}: {n} is below the minimum 0")
    return str(n if n > 0 else MAX_PLAYOUTS)


def _visits_out(v):
    return "0" if v >= MAX_PLAYOUTS else str(v)


def _mib_in(v, name):
    mib = _int(v, name)
    if mib < 1:
        raise ParamError(f"{name}: {mib} is below the minimum 1")
    return str(max(2, mib * 2**20 // BYTES_PER_NODE))


def _mib_out(v):
    return str(max(1, round(v * BYTES_PER_NODE / 2**20)))


def _cs_in(v, name):
    cs = _float(v, name)
    if cs < 0:
        raise ParamError(f"{name}: {cs:g} is below the minimum 0")
    return repr(cs / 100.0)


def _cs_out(v):
    return f"{round(v * 100):d}"


def _resign_pct_in(v, name):
    pct = _float(v, name)
    if pct == -1:          # Leela Zero's "default"
        return "0.0"
    if not 0 <= pct <= 50:
        raise ParamError(f"{name}: {pct:g} is out of range (-1, or 0 .. 50 percent)")
    return repr(pct / 100.0)


def _resign_pct_out(v):
    return f"{v * 100:g}"


def _bool_in(v, name):
    t = str(v).strip().lower()
    if t not in ("true", "false", "1", "0", "on", "off", "yes", "no"):
        raise ParamError(f"{name}: expected true or false, got '{v}'")
    return t


def _plain_out(v):
    return _bool_text(v) if isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else str(v)


# KataGo names (kata-set-param) -> (config key, to config text, from config value)
KATA = {
    "maxVisits": ("search.playouts", _visits_in, _visits_out),
    "maxPlayouts": ("search.playouts", _visits_in, _visits_out),
    "maxTime": ("search.seconds", lambda v, n: repr(_float(v, n)), _plain_out),
    "numSearchThreads": ("search.threads", lambda v, n: str(_int(v, n)), _plain_out),
    "ponderingEnabled": ("player.ponder", _bool_in, _plain_out),
    "cpuctExploration": ("uct.c_puct", lambda v, n: repr(_float(v, n)), _plain_out),
    "lagBuffer": ("time.safety_margin", lambda v, n: repr(_float(v, n)), _plain_out),
}

# Leela Zero option names (lz-setoption; matched case-insensitively, as LZ
# lower-cases its input) -> as above
LZ = {
    "Maximum Memory Use (MiB)": ("pool.pool_size", _mib_in, _mib_out),
    "Visits": ("search.playouts", _visits_in, _visits_out),
    "Playouts": ("search.playouts", _visits_in, _visits_out),
    "Lagbuffer": ("time.safety_margin", _cs_in, _cs_out),
    "Resign Percentage": ("search.resign_threshold", _resign_pct_in, _resign_pct_out),
    "Pondering": ("player.ponder", _bool_in, _plain_out),
}

UNSUPPORTED = {
    "playoutdoublingadvantage": "needs a net trained with playout doubling (KataGo's); this engine has none",
    "analysiswiderootnoise": "the search adds no root noise",
    "rootpolicytemperature": "the search has no root policy temperature",
    "rootpolicytemperatureearly": "the search has no root policy temperature",
    "humanslprofile": "no human-style net",
    "percentage of memory for cache": "the net cache is not sized from a memory share",
}


def _lookup(table, name):
    for k, v in table.items():
        if k.lower() == name.lower():
            return k, v
    return None, None


def resolve(name, table, options):
    """(client name, (key, to, frm)) for ``name`` in ``table`` or a
    ``table.key`` of ``options`` (the Player's keys); ParamError else."""
    k, ent = _lookup(table, name)
    if ent is not None:
        return k, ent
    if name in options:
        return name, (name, _same, _plain_out)
    why = UNSUPPORTED.get(name.lower())
    if why:
        raise ParamError(f"unsupported parameter '{name}': {why}")
    raise ParamError(f"unknown parameter '{name}' (see kata-list-params)")


def set_param(player, table, name, value):
    """Set a client parameter on ``player``: converted, then checked by
    Player.set_option (engine.player.OptionError on a bad value)."""
    _k, (key, to, _frm) = resolve(name, table, {k for k, _v, _d in player.options()})
    player.set_option(key, to(value, name))


def get_param(player, table, name):
    _k, (key, _to, frm) = resolve(name, table, {k for k, _v, _d in player.options()})
    return frm(player.option(key))


def lz_option_lines(player):
    """Leela Zero's 'option name ... type ... default ...' lines for our
    options (lz-setoption without arguments)."""
    out = []
    for name, (key, _to, frm) in LZ.items():
        v = frm(player.option(key))
        kind = "check" if v in ("true", "false") else "spin"
        out.append(f"option name {name} type {kind} default {v}")
    return out
