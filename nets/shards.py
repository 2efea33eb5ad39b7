"""The training-shard format, in one place: written by ``tools.datagen``
(GNU Go's games) and ``tools.selfplay --data`` (the engine's), read by
``nets.data`` and the tools that look at games.

A shard is one ``.npz`` (compressed) of whole games as move lists:

- ``moves`` int16, every game's moves one after another (pass = size*size);
- ``is_label`` bool, the moves that are training labels (random opening
  moves are not);
- ``offsets`` int64, game g is ``moves[offsets[g]:offsets[g+1]]``;
- ``seeds`` int64, a game id a game (datagen: ``level * 1_000_003 + g``);
- ``scores`` float32, a game's result, black minus white, komi included;
- ``size``, ``level`` (0 for self-play), ``komi``;
- self-play shards also: ``visits`` (float16, the root's visit share of
  every move, a row a labelled move), ``root_values`` and ``provenance``
  (JSON text).

Positions are rebuilt by replaying the moves (``nets.data``), so a shard of
ten 19x19 games is a few kilobytes.  Only numpy here: the tools that write
shards do not load torch.
"""
import os

import numpy as np

REQUIRED = ("moves", "is_label", "offsets", "seeds", "size", "level")


class ShardError(ValueError):
    """A shard that does not read; the message names the file."""


def make_shard(moves, is_label, offsets, seeds, scores, size, level, komi, **extra):
    """The arrays of a shard, typed as the format says (``extra``: the
    self-play arrays, stored as given)."""
    return dict(moves=np.asarray(moves, np.int16), is_label=np.asarray(is_label, np.bool_),
                offsets=np.asarray(offsets, np.int64), seeds=np.asarray(seeds, np.int64),
                scores=np.asarray(scores, np.float32), size=np.int32(size), level=np.int32(level),
                komi=np.float32(komi), **extra)


def save_shard(path, arrays):
    """np.savez_compressed to a hidden temporary file (``.NAME.tmp``, which
    no ``*.npz`` pattern matches), renamed into place (0644): a killed run
    leaves no partial shard, and an interrupted write removes its
    temporary file."""
    d, name = os.path.split(path)
    tmp = os.path.join(d, f".{name}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def load_shard(path):
    """A shard's arrays as a dict; ShardError naming the file when it does
    not read or its games do not add up."""
    try:
        with np.load(path) as z:
            sh = {k: z[k] for k in z.files}
    except Exception as e:
        raise ShardError(f"{path}: not a readable shard ({type(e).__name__}: {e})") from None
    missing = [k for k in REQUIRED if k not in sh]
    if missing:
        raise ShardError(f"{path}: missing {', '.join(missing)}")
    off = sh["offsets"]
    if len(off) < 1 or off[0] != 0 or off[-1] != len(sh["moves"]) or np.any(np.diff(off) < 0) \
            or len(sh["is_label"]) != len(sh["moves"]) or len(sh["seeds"]) != len(off) - 1:
        raise ShardError(f"{path}: offsets, moves, labels and seeds do not agree")
    return sh
