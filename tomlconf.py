"""The settings machinery, on the ground floor: typed fields with
defaults, ranges, choices, words and one-line docs (:func:`setting`),
dataclasses of them built from TOML values and ``key=value`` texts with
every bad key and value named (:func:`build_table`), TOML files with
``base = "other.toml"`` (:func:`read`), overrides (:func:`merge`), per-size
override tables laid under later settings (:func:`overlay`) and flat
settings files (:func:`load_flat`).  It imports nothing of the project:
the engine's tables (``engine/config.py``), the trainer's settings
(``nets/train.py``) and the experiments' (``tools/experiment.py``) stand on
it.
"""
import math
import os
import tomllib
from dataclasses import field, fields


class ConfigError(ValueError):
    """A bad configuration; the message names the key."""


def _f(default, lo=None, hi=None, choices=None, doc="", words=None, item=None, required=False,
       number=False):
    """A setting: default, range [lo, hi] or choices, the one-line doc of
    configs/default.toml, and ``words`` ({"all": n, ...}) that stand for
    numbers.  A ``tuple`` setting is a list of ``item`` (int, float, str;
    range and choices apply to each item).  ``required``: no default, the
    key must be given.  ``number`` (on a float): an int stays an int."""
    return field(default=default, metadata=dict(lo=lo, hi=hi, choices=choices, doc=doc, words=words or {},
                                                item=item, required=required, number=number))


setting = _f        # the name other modules declare their settings with


_TYPES = {"int": int, "float": float, "bool": bool, "str": str, "tuple": tuple}


def _type(f):
    return f.type if isinstance(f.type, type) else _TYPES[f.type]


class Text(str):
    """A value given as text (``--set``, ``go-param``): read as the
    setting's type.  A TOML file's values have their types already: a
    string there is only a string (or one of the setting's words)."""


def _toml_text(value):
    """The TOML value a text spells (a list, a quoted string), or None."""
    try:
        return tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return None


def _coerce(name, f, value):
    t = _type(f)
    if t is tuple:
        return _coerce_list(name, f, value)
    words = f.metadata.get("words") or {}
    if t is str and isinstance(value, Text):
        v = _toml_text(value.strip())
        return _check(name, f, v if isinstance(v, str) else str(value))
    if isinstance(value, str) and t is not str:
        v = value.strip().lower()
        if v in words:
            return words[v]
        if not isinstance(value, Text):
            also = "".join(f" or '{w}'" for w in words)
            raise ConfigError(f"{name}: expected {t.__name__}{also}, got '{value}'")
        try:
            if t is bool:
                if v not in ("true", "false", "1", "0", "on", "off", "yes", "no"):
                    raise ValueError
                value = v in ("true", "1", "on", "yes")
            else:
                value = t(v)
        except ValueError:
            also = "".join(f" or '{w}'" for w in words)
            raise ConfigError(f"{name}: expected {t.__name__}{also}, got '{value}'") from None
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        if not f.metadata.get("number"):
            value = float(value)
        return _check(name, f, value)
    if t is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, t) or (t is int and isinstance(value, bool)) or (t is float and isinstance(value, bool)):
        raise ConfigError(f"{name}: expected {t.__name__}, got {value!r}")
    return _check(name, f, value)


def _coerce_list(name, f, value):
    """A list setting: a TOML list (or a text spelling one), a lone value
    for a list of one; each item coerced as the item type with the range."""
    if isinstance(value, Text):
        v = _toml_text(value.strip())
        value = v if v is not None else str(value)
    if isinstance(value, (str, int, float)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{name}: expected a list, got {value!r}")
    item = f.metadata["item"]
    sub = field(default=None, metadata=dict(f.metadata, item=None))
    sub.type = item
    return tuple(_coerce(f"{name}[{i}]", sub, v) for i, v in enumerate(value))


def _check(name, f, value):
    m = f.metadata
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{name}: {value!r} is not a finite number")
    if m.get("choices") and value not in m["choices"]:
        raise ConfigError(f"{name}: '{value}' is not one of {', '.join(m['choices'])}")
    if m.get("lo") is not None and value < m["lo"]:
        raise ConfigError(f"{name}: {value} is below the minimum {m['lo']}")
    if m.get("hi") is not None and value > m["hi"]:
        raise ConfigError(f"{name}: {value} is above the maximum {m['hi']}")
    return value


def check_table(obj, prefix=""):
    """Every value of a settings dataclass instance built directly (not by
    :func:`build_table`: tests, benchmarks): its type, then its range or
    choices, as the loader checks them; ConfigError names ``prefix + key``."""
    for f in fields(obj):
        v, t = getattr(obj, f.name), _type(f)
        if t in (int, float):
            import numbers
            want = numbers.Integral if t is int else numbers.Real
            if isinstance(v, bool) or not isinstance(v, want):
                raise ConfigError(f"{prefix}{f.name}: {v!r} is not {'an integer' if t is int else 'a number'}")
        _check(prefix + f.name, f, v)


def build_table(cls, values, prefix=""):
    """An instance of the settings dataclass ``cls`` (fields declared with
    the defaults, ranges and docs of this module's tables) from {key:
    value}: every value coerced and range-checked; an unknown key, a
    missing required one and a bad value are named as ``prefix + key``.
    Serves the engine's tables, the trainer's settings (nets/train.py)
    and the paper experiments (tools/experiment.py)."""
    kf = {f.name: f for f in fields(cls)}
    vals = {}
    for k, v in values.items():
        if k not in kf:
            raise ConfigError(f"unknown config key '{prefix}{k}'")
        vals[k] = _coerce(f"{prefix}{k}", kf[k], v)
    for k, f in kf.items():
        if f.metadata.get("required") and k not in vals:
            raise ConfigError(f"missing config key '{prefix}{k}'")
    return cls(**vals)


SIZE = "size"      # the per-size override tables: [size.<n>.<table>] (engine/config.py)


def overlay(into, layer):
    """Lay ``layer`` ({table: {key: value}}; per-size tables under
    ``size``: {"<n>": {table: {key: value}}}) over ``into``, in place.  A
    key the layer sets for every size replaces the earlier value and every
    earlier per-size value of that key (what is said later wins); the
    layer's per-size keys then go over the per-size tables.  Top-level
    values that are not tables (a flat file's settings, arrays of tables)
    are replaced whole."""
    sizes = into.get(SIZE) if isinstance(into.get(SIZE), dict) else {}
    for tname, tval in layer.items():
        if tname == SIZE:
            continue
        if isinstance(tval, dict):
            for per in sizes.values():
                if isinstance(per, dict) and isinstance(per.get(tname), dict):
                    for k in tval:
                        per[tname].pop(k, None)
            if isinstance(into.get(tname), dict):
                into[tname].update(tval)
            else:
                into[tname] = dict(tval)
        else:
            into[tname] = tval
    if SIZE in layer:
        per_size = layer[SIZE]
        if not isinstance(per_size, dict):
            raise ConfigError(f"'{SIZE}' must hold per-size tables: [{SIZE}.<n>.<table>]")
        dst = into.setdefault(SIZE, {})
        for n, tables in per_size.items():
            if not isinstance(tables, dict) or not all(isinstance(v, dict) for v in tables.values()):
                raise ConfigError(f"'{SIZE}.{n}' must hold tables: [{SIZE}.{n}.<table>] key = value")
            d = dst.setdefault(str(n), {})
            for t, kv in tables.items():
                d.setdefault(t, {}).update(kv)
    return into


def merge(data, overrides, flat=False):
    """Apply ``table.key=value`` strings onto a nested dict (in place),
    one after another, each laid over what came before (:func:`overlay`;
    ``size.<n>.table.key=value`` sets a per-size key); ``flat``:
    ``key=value`` onto a dict of settings with no tables.  The values are
    :class:`Text`, read as their settings' types."""
    for o in overrides or ():
        key = o.split("=", 1)[0]
        if "=" not in o or (not flat and "." not in key) or not key.strip():
            raise ConfigError(f"override '{o}' must look like {'key' if flat else 'table.key'}=value")
        key, value = o.split("=", 1)
        if flat:
            data[key.strip()] = Text(value.strip())
            continue
        t, k = key.strip().split(".", 1)
        if t == SIZE:
            parts = k.split(".")
            if len(parts) != 3 or not all(parts):
                raise ConfigError(f"override '{o}' must look like {SIZE}.<n>.table.key=value")
            overlay(data, {SIZE: {parts[0]: {parts[1]: {parts[2]: Text(value.strip())}}}})
        else:
            overlay(data, {t: {k: Text(value.strip())}})
    return data


def read(path, _chain=()):
    """The nested dict of a TOML config file, its ``base`` files merged
    under it (the file laid over its base, :func:`overlay`: a base's tables
    are updated key by key by the file's)."""
    real = os.path.realpath(path)
    if real in _chain:
        names = [os.path.relpath(p) for p in _chain + (real,)]
        raise ConfigError("config files include each other: " + " -> ".join(names))
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        if _chain:
            raise ConfigError(f"config file '{os.path.relpath(path)}' not found "
                              f"(the base of '{os.path.relpath(_chain[-1])}')") from None
        raise ConfigError(f"config file '{path}' not found") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file '{path}': {e}") from None
    base = data.pop("base", None)
    if base is None:
        return data
    if not isinstance(base, str) or not base:
        raise ConfigError(f"config file '{path}': base must be the name of a TOML file")
    merged = read(os.path.join(os.path.dirname(path), base), _chain + (real,))
    return overlay(merged, data)


def load_flat(cls, path=None, overrides=()):
    """A settings dataclass with no tables (``cls``, declared with
    :func:`_f`) from a TOML file (``base =`` included) and ``key=value``
    overrides."""
    data = read(path) if path else {}
    return build_table(cls, merge(data, overrides, flat=True))
