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

DATA_ENV = "GOMCTS_DATA"


def data_root():
    """The data folder the tools share for bulk training data that does not
    belong in the repository (teacher labels): ``$GOMCTS_DATA``, else
    ``~/.cache/gomcts``.  Its sets are listed in ``records/DATA.json``."""
    return os.path.expanduser(os.environ.get(DATA_ENV) or os.path.join("~", ".cache", "gomcts"))


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
    """np.savez_compressed, written whole (atomicio.atomic_save: a hidden
    temporary file that no ``*.npz`` pattern matches, renamed into place,
    0644): a killed run leaves no partial shard, and an interrupted write
    removes its temporary file."""
    from atomicio import atomic_save
    atomic_save(path, lambda f: np.savez_compressed(f, **arrays), mode=0o644)


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


# -- teacher targets, dense and packed -----------------------------------------
#
# A label shard (``tools.label``, ``tools.teacher_play``) holds a row of
# targets a labelled position.  Dense (``tools.label``): ``t_policy`` float16
# (n*n+1), ``t_own`` int8 (Black's ownership times 127), ``t_winrate`` and
# ``t_lead`` float32.  Packed (``tools.teacher_play``, for the bulk sets that
# live outside the repository, under 300 bytes a 19x19 label):
#
# - ``t_pol_off`` int32 (N+1), ``t_pol_idx`` uint16, ``t_pol_q`` uint8: the
#   policy as the moves that carry it (at least POLICY_KEEP, at most
#   POLICY_MAX_MOVES a position, flat engine indices, pass = n*n), each
#   probability times 255 (at least 1); renormalised when read;
# - ``t_own4`` uint8 (N, ceil(n*n/2)): Black's ownership in 16 levels,
#   two points a byte (the low nibble first);
# - ``t_winrate`` and ``t_lead`` float16.

POLICY_KEEP = 2e-3
POLICY_MAX_MOVES = 24
OWN_LEVELS = 15


def pack_teacher(policy, own, winrate, lead):
    """Packed arrays of N positions' targets: ``policy`` (N, n*n+1)
    probabilities, ``own`` (N, n*n) in [-1, 1], Black's ``winrate`` and
    ``lead`` (N,)."""
    policy = np.asarray(policy, np.float32)
    own = np.clip(np.asarray(own, np.float32), -1, 1)
    N, nn = own.shape
    off, idx, q = [0], [], []
    for row in policy:
        keep = np.flatnonzero(row >= POLICY_KEEP)
        if len(keep) > POLICY_MAX_MOVES:
            keep = keep[np.argsort(-row[keep], kind="stable")[:POLICY_MAX_MOVES]]
        if not len(keep):
            keep = np.array([int(np.argmax(row))])
        keep = np.sort(keep)
        idx.append(keep.astype(np.uint16))
        q.append(np.clip(np.rint(row[keep] * 255), 1, 255).astype(np.uint8))
        off.append(off[-1] + len(keep))
    lv = np.rint((own + 1) * (OWN_LEVELS / 2)).astype(np.uint8)
    if nn % 2:
        lv = np.concatenate([lv, np.zeros((N, 1), np.uint8)], axis=1)
    own4 = (lv[:, 0::2] | (lv[:, 1::2] << 4)).astype(np.uint8)
    return dict(t_pol_off=np.asarray(off, np.int32),
                t_pol_idx=np.concatenate(idx) if idx else np.zeros(0, np.uint16),
                t_pol_q=np.concatenate(q) if q else np.zeros(0, np.uint8),
                t_own4=own4, t_winrate=np.asarray(winrate, np.float16),
                t_lead=np.asarray(lead, np.float16))


def teacher_targets(sh):
    """A label shard's targets, dense, whichever way it was written:
    (t_policy float16 (N, n*n+1) summing to 1, t_winrate float32,
    t_lead float32, t_own int8 (N, n*n), ownership times 127).  ShardError
    when the arrays do not agree."""
    n = int(sh["size"]) ** 2
    N = len(sh["pos_turn"])
    wr = np.asarray(sh["t_winrate"], np.float32)
    lead = np.asarray(sh["t_lead"], np.float32)
    if "t_policy" in sh:
        pol, own = np.asarray(sh["t_policy"], np.float16), np.asarray(sh["t_own"], np.int8)
    elif "t_pol_off" in sh:
        off = np.asarray(sh["t_pol_off"], np.int64)
        idx, q = np.asarray(sh["t_pol_idx"], np.int64), np.asarray(sh["t_pol_q"], np.float32)
        own4 = np.asarray(sh["t_own4"], np.uint8)
        if len(off) != N + 1 or off[-1] != len(idx) or len(q) != len(idx) or np.any(np.diff(off) < 1) \
                or (len(idx) and idx.max() > n) or own4.shape != (N, (n + 1) // 2):
            raise ShardError("packed teacher targets do not agree with their positions")
        rows = np.repeat(np.arange(N), np.diff(off))
        p = np.zeros((N, n + 1), np.float32)
        p[rows, idx] = q
        p /= p.sum(axis=1, keepdims=True)
        pol = p.astype(np.float16)
        lv = np.empty((N, 2 * own4.shape[1]), np.uint8)
        lv[:, 0::2], lv[:, 1::2] = own4 & 15, own4 >> 4
        own = np.rint((lv[:, :n].astype(np.float32) * (2 / OWN_LEVELS) - 1) * 127).astype(np.int8)
    else:
        raise ShardError("not a label shard (no t_policy or t_pol_off)")
    if pol.shape != (N, n + 1) or own.shape != (N, n) or wr.shape != (N,) or lead.shape != (N,):
        raise ShardError("teacher targets do not agree with their positions")
    return pol, wr, lead, own
