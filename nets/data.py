"""Training positions from the GNU Go teacher shards of ``tools.datagen``.

A shard (``data/9x9/L05_00000.npz``) stores only move sequences.  Each game
is replayed on a ``board_ext`` Board; before every labelled move (GNU Go's
own moves, ``is_label``; passes included) the input planes of the position
are written by ``board_ext.features.planes`` and the move is the label.

Planes are 0/1, so they are kept as ``uint8`` (N, NUM_PLANES, n, n) in
memory and bit-packed in the cache.  Each shard's arrays are cached in
``<data dir>/_planes/<shard name>`` (written to a temporary file and
renamed, so a killed run leaves no partial cache); the cache records a
fingerprint of its shard and the planes version and is rebuilt when either
changes.  Shards appearing later (datagen still running) are simply built on
the next run.

Value targets: a shard's ``scores`` (one per game, black minus white, komi
included; GNU Go's ``final_score`` in datagen shards, the engine's count in
self-play shards) give every position ``z``: +1 when the side to move won
the game, -1 when it lost, 0 for a jigo or a shard without scores (no value
loss there).  Self-play shards (``tools.selfplay --data``) also hold the
root's visit distribution of every labelled move (``visits``, the policy
target instead of the one-hot move) and the root's value (``root_values``).
A shard that does not read is skipped with its name logged, never used.

Game ids are the shard ``seeds`` (``level * 1_000_003 + g`` in datagen), so
they are unique across levels and stable as more shards appear;
:func:`split_by_game` draws the validation games by a hash of the id, so a
game never moves between train and validation when the data grows.
"""

from __future__ import annotations

import glob
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from board_ext.board import Board
from board_ext.features import NUM_PLANES, PLANE_COUNTS, planes
from nets.shards import load_shard, teacher_targets

CACHE_DIR = "_planes"
CACHE_VERSION = 2   # bump when the planes or the replay change


@dataclass
class Positions:
    """Labelled positions: ``X`` uint8 (N, planes, n, n), ``y`` int64
    (N,) flat move (pass = n*n), ``game`` int64 (N,) game id, ``z`` int8
    (N,) the game's result for the side to move (+1, -1, 0 unknown),
    ``move_no`` int16 (N,) moves played before the position, ``pi``
    float16 (N, n*n+1) the policy target (the root's visit distribution of
    self-play positions, one-hot elsewhere) or None when no shard has
    visits."""
    X: np.ndarray
    y: np.ndarray
    game: np.ndarray
    size: int
    levels: list = field(default_factory=list)
    n_games: int = 0
    shards: list = field(default_factory=list)
    skipped_moves: int = 0   # labels lost to replay errors (should be 0)
    z: np.ndarray | None = None
    move_no: np.ndarray | None = None
    pi: np.ndarray | None = None
    bad_shards: list = field(default_factory=list)

    def __len__(self):
        return len(self.y)


def one_hot(y: np.ndarray, n_moves: int) -> np.ndarray:
    """float16 (N, n_moves): the policy target of positions with no visit
    distribution, the move played."""
    out = np.zeros((len(y), n_moves), np.float16)
    out[np.arange(len(y)), y] = 1
    return out


def _stderr(msg):
    print(msg, file=sys.stderr, flush=True)


def list_shards(dirs) -> list[str]:
    """The shard files of one directory or a list of them (sorted; temporary
    files of a running datagen are skipped); a shard file named in the list
    stands for itself."""
    if isinstance(dirs, (str, os.PathLike)):
        dirs = [dirs]
    out = []
    for d in dirs:
        if str(d).endswith(".npz") and os.path.isfile(d):
            out.append(str(d))
            continue
        if not os.path.isdir(d):
            raise FileNotFoundError(f"data directory {d!r} does not exist")
        for p in sorted(glob.glob(os.path.join(d, "*.npz"))):
            if ".tmp" in os.path.basename(p):
                continue
            out.append(p)
    return out


def _fingerprint(sh) -> np.ndarray:
    m = sh["moves"].astype(np.int64)
    return np.array([CACHE_VERSION, len(m), int(m.sum()), int((m * np.arange(len(m)) % 1000003).sum()),
                     int(sh["is_label"].sum()), int(sh["seeds"].sum()), len(sh["offsets"])], np.int64)


def replay_shard(sh, n_planes: int = NUM_PLANES):
    """Replay the games of a loaded shard: (X uint8, y int64, game int64,
    z int8, move_no int16, skipped)."""
    size = int(sh["size"])
    moves = sh["moves"].astype(np.int64)
    is_label = sh["is_label"].astype(bool)
    offsets = sh["offsets"].astype(np.int64)
    seeds = sh["seeds"].astype(np.int64)
    n_lab = int(is_label.sum())
    nn_ = size * size
    scores = sh["scores"].astype(np.float64) if "scores" in sh else np.zeros(len(offsets) - 1)
    X = np.zeros((n_lab, n_planes, size, size), np.uint8)
    y = np.empty(n_lab, np.int64)
    game = np.empty(n_lab, np.int64)
    z = np.zeros(n_lab, np.int8)
    move_no = np.zeros(n_lab, np.int16)
    longest = int(np.max(np.diff(offsets))) if len(offsets) > 1 else 0
    buf = np.empty((max(longest, 1), n_planes, size, size), np.float32)
    k = 0
    skipped = 0
    for g in range(len(offsets) - 1):
        a, b = int(offsets[g]), int(offsets[g + 1])
        gm = moves[a:b].tolist()
        gl = is_label[a:b].tolist()
        # GNU Go plays simple-ko rules; positional superko must not reject its moves
        board = Board(size, superko=False)
        black_won = int(np.sign(scores[g]))      # +1 black, -1 white, 0 jigo / unknown
        j = 0
        for i, (m, lab) in enumerate(zip(gm, gl)):
            if lab:
                planes(board, out=buf[j], n_planes=n_planes)
                y[k + j] = m
                # the side to move: black before even-numbered moves
                z[k + j] = black_won if i % 2 == 0 else -black_won
                move_no[k + j] = i
                j += 1
            try:
                board.play(m)
            except Exception:      # never seen; a label the board rejects is dropped
                if lab:
                    j -= 1
                skipped += sum(gl[i:])
                break
        if j:
            X[k:k + j] = buf[:j]          # float32 0/1 -> uint8
            game[k:k + j] = seeds[g]
            k += j
    if k != n_lab:
        X, y, game, z, move_no = X[:k], y[:k], game[:k], z[:k], move_no[:k]
    assert np.all((y >= 0) & (y <= nn_))
    return X, y, game, z, move_no, skipped


def _cache_path(shard: str, n_planes: int = NUM_PLANES) -> str:
    d, name = os.path.split(shard)
    return os.path.join(d, CACHE_DIR, f"p{n_planes}", name)


@dataclass
class Shard:
    """The positions of one shard (``build_shard``)."""
    X: np.ndarray
    y: np.ndarray
    game: np.ndarray
    z: np.ndarray
    move_no: np.ndarray
    size: int
    level: int
    n_games: int
    skipped: int
    visits: np.ndarray | None = None       # float16 (N, n*n+1), self-play shards


def build_shard(shard: str, cache: bool = True, n_planes: int = NUM_PLANES) -> Shard:
    """The positions of one shard, from its cache if fresh."""
    if n_planes not in PLANE_COUNTS:
        raise ValueError(f"input planes must be one of {PLANE_COUNTS}, got {n_planes}")
    sh = load_shard(shard)
    size, level = int(sh["size"]), int(sh["level"])
    fp = _fingerprint(sh)
    cpath = _cache_path(shard, n_planes)
    n_games = len(sh["offsets"]) - 1
    visits = sh["visits"].astype(np.float16) if "visits" in sh else None
    if cache and os.path.exists(cpath):
        try:
            with np.load(cpath) as c:
                if np.array_equal(c["fingerprint"], fp):
                    n = len(c["y"])
                    X = np.unpackbits(c["Xp"], axis=1, count=n_planes * size * size)
                    X = X.reshape(n, n_planes, size, size)
                    return Shard(X, c["y"], c["game"], c["z"], c["move_no"], size, level,
                                 n_games, int(c["skipped"]), visits)
        except Exception:
            pass   # unreadable or stale cache: rebuild
    X, y, game, zz, move_no, skipped = replay_shard(sh, n_planes)
    if visits is not None and len(visits) != len(y):
        raise ValueError(f"{len(visits)} visit rows for {len(y)} labelled positions")
    if cache:
        from atomicio import atomic_save
        atomic_save(cpath, lambda f: np.savez(f, Xp=np.packbits(X.reshape(len(y), -1), axis=1), y=y, game=game,
                                              z=zz, move_no=move_no, fingerprint=fp, skipped=np.int64(skipped)))
    return Shard(X, y, game, zz, move_no, size, level, n_games, skipped, visits)


def load_positions(dirs, size: int | None = None, cache: bool = True,
                   max_shards: int | None = None, progress: bool = False,
                   n_planes: int = NUM_PLANES, log=None) -> Positions:
    """All labelled positions of the shards in ``dirs`` (a directory or a
    list).  A shard that does not read (truncated, not a shard, replay
    error) is skipped and named through ``log`` (stderr by default), and
    listed in ``bad_shards``; one of another board size is an error."""
    shards = list_shards(dirs)
    if max_shards is not None:
        shards = shards[:max_shards]
    if not shards:
        raise FileNotFoundError(f"no shards (*.npz) in {dirs!r}")
    log = log or _stderr
    parts, used, bad = [], [], []
    levels, n_games, skipped = set(), 0, 0
    it = shards
    if progress:
        from tqdm import tqdm
        it = tqdm(shards, desc="positions", unit="shard", file=sys.stderr, leave=False)
    for s in it:
        try:
            sh = build_shard(s, cache, n_planes)
        except Exception as e:         # a shard that does not read is never used
            log(f"skipping shard {s}: {type(e).__name__}: {e}")
            bad.append(s)
            continue
        if size is None:
            size = sh.size
        if sh.size != size:
            raise ValueError(f"{s}: board size {sh.size}, expected {size}")
        parts.append(sh)
        used.append(s)
        levels.add(sh.level)
        n_games += sh.n_games
        skipped += sh.skipped
    if not parts:
        raise FileNotFoundError(f"no shard of {dirs!r} reads")
    pi = None
    if any(p.visits is not None for p in parts):
        M = size * size + 1
        pi = np.concatenate([p.visits if p.visits is not None else one_hot(p.y, M) for p in parts])
    cat = np.concatenate
    return Positions(cat([p.X for p in parts]), cat([p.y for p in parts]),
                     cat([p.game for p in parts]), size, sorted(levels), n_games, used, skipped,
                     cat([p.z for p in parts]), cat([p.move_no for p in parts]), pi, bad)


@dataclass
class TeacherTargets:
    """A teacher's targets for positions, all for the side to move:
    ``policy`` float16 (N, n*n+1), ``value`` float32 (N,) the probability
    of winning, ``lead`` float32 (N,) points ahead (komi included),
    ``own`` int8 (N, n*n), the final owner times 127 (+ the side to move)."""
    policy: np.ndarray
    value: np.ndarray
    lead: np.ndarray
    own: np.ndarray


def replay_label_shard(sh, n_planes: int = NUM_PLANES):
    """The positions of a label shard (``tools.label``) with their teacher
    targets turned to the side to move: (Positions-style arrays X, y, game,
    z, move_no, pi or None, TeacherTargets).  ``pi`` is the source's own
    visit row of the position when the source had visits (self-play)."""
    size = int(sh["size"])
    nn_ = size * size
    moves = sh["moves"].astype(np.int64)
    offsets = sh["offsets"].astype(np.int64)
    is_label = sh["is_label"].astype(bool)
    seeds = sh["seeds"].astype(np.int64)
    scores = sh["scores"].astype(np.float64) if "scores" in sh else np.zeros(len(offsets) - 1)
    pg, pt = sh["pos_game"].astype(np.int64), sh["pos_turn"].astype(np.int64)
    N = len(pg)
    label_row = np.cumsum(is_label) - 1          # the visits row of each labelled move
    has_visits = "visits" in sh
    X = np.zeros((N, n_planes, size, size), np.uint8)
    y = np.empty(N, np.int64)
    z = np.zeros(N, np.int8)
    pi = np.zeros((N, nn_ + 1), np.float16) if has_visits else None
    buf = np.empty((1, n_planes, size, size), np.float32)
    order = np.lexsort((pt, pg))
    board, cur_g, cur_t = None, -1, 0
    for k in order:
        g, t = int(pg[k]), int(pt[k])
        a, b = int(offsets[g]), int(offsets[g + 1])
        if g != cur_g or t < cur_t:
            board, cur_g, cur_t = Board(size, superko=False), g, 0
        while cur_t < t:
            board.play(int(moves[a + cur_t]))
            cur_t += 1
        planes(board, out=buf[0], n_planes=n_planes)
        X[k] = buf[0]
        y[k] = moves[a + t] if a + t < b else nn_
        black_won = int(np.sign(scores[g])) if np.isfinite(scores[g]) else 0
        z[k] = black_won if t % 2 == 0 else -black_won
        if has_visits:
            if a + t < b and is_label[a + t]:
                pi[k] = sh["visits"][label_row[a + t]]
            else:
                pi[k, y[k]] = 1
    sign = np.where(pt % 2 == 0, 1.0, -1.0).astype(np.float32)
    t_pol, wr, t_lead, t_own = teacher_targets(sh)
    tt = TeacherTargets(policy=t_pol,
                        value=np.where(sign > 0, wr, 1.0 - wr).astype(np.float32),
                        lead=(sign * t_lead).astype(np.float32),
                        own=(t_own.astype(np.int16) * sign[:, None].astype(np.int16)).astype(np.int8))
    return X, y, seeds[pg], z, pt.astype(np.int16), pi, tt


def load_teacher(dirs, size: int | None = None, n_planes: int = NUM_PLANES, log=None):
    """Every position of the label shards in ``dirs`` (``tools.label``):
    (Positions, TeacherTargets); ``Positions.pi`` holds the engine's visit
    rows where the source had them (one-hot of the move played elsewhere).
    A shard that does not read is named through ``log`` and skipped."""
    shards = list_shards(dirs)
    if not shards:
        raise FileNotFoundError(f"no label shards (*.npz) in {dirs!r}")
    log = log or _stderr
    parts, used, bad = [], [], []
    for s in shards:
        try:
            sh = load_shard(s)
            for key in ("pos_game", "pos_turn", "t_winrate", "t_lead"):
                if key not in sh:
                    raise ValueError(f"not a label shard (no {key})")
            if size is None:
                size = int(sh["size"])
            if int(sh["size"]) != size:
                raise ValueError(f"board size {int(sh['size'])}, expected {size}")
            parts.append(replay_label_shard(sh, n_planes))
            used.append(s)
        except Exception as e:
            log(f"skipping label shard {s}: {type(e).__name__}: {e}")
            bad.append(s)
    if not parts:
        raise FileNotFoundError(f"no label shard of {dirs!r} reads")
    cat = np.concatenate
    M = size * size + 1
    pis = [p[5] if p[5] is not None else one_hot(p[1], M) for p in parts]
    game = cat([p[2] for p in parts])
    pos = Positions(cat([p[0] for p in parts]), cat([p[1] for p in parts]), game, size, [0],
                    int(len(np.unique(game))), used, 0, cat([p[3] for p in parts]),
                    cat([p[4] for p in parts]), cat(pis), bad)
    tt = TeacherTargets(*(cat([getattr(p[6], f) for p in parts]) for f in ("policy", "value", "lead", "own")))
    return pos, tt


def split_by_game(game: np.ndarray, val_fraction: float, salt: int = 0) -> np.ndarray:
    """Boolean mask, True for positions of validation games.  A game is in
    validation iff a hash of its id falls below ``val_fraction``: stable
    when data is added, and the same for every run."""
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError("val_fraction must be in [0, 1)")
    g = game.astype(np.uint64) + np.uint64(salt)
    with np.errstate(over="ignore"):   # splitmix64 finaliser, wraps by design
        g = (g ^ (g >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        g = (g ^ (g >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        g = g ^ (g >> np.uint64(31))
    u = (g >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    return u < val_fraction


# -- the 8 board symmetries ---------------------------------------------------

def sym_grid(a: np.ndarray, s: int) -> np.ndarray:
    """Apply symmetry ``s`` (0..7) to the last two axes (y, x) of ``a``:
    ``s & 4`` transposes, ``s & 2`` flips y, ``s & 1`` flips x (applied in
    that order).  s = 0 is the identity."""
    if s & 4:
        a = np.swapaxes(a, -1, -2)
    if s & 2:
        a = a[..., ::-1, :]
    if s & 1:
        a = a[..., :, ::-1]
    return a


def move_perms(size: int) -> np.ndarray:
    """(8, n*n+1) int64: ``perms[s][p]`` is the image of move p under
    symmetry s (pass maps to pass), consistent with :func:`sym_grid`."""
    nn_ = size * size
    perms = np.empty((8, nn_ + 1), np.int64)
    grid = np.arange(nn_).reshape(size, size)
    for s in range(8):
        t = np.ascontiguousarray(sym_grid(grid, s)).reshape(-1)   # t[new] = old
        perms[s, t] = np.arange(nn_)
        perms[s, nn_] = nn_
    return perms


def summary(pos: Positions) -> str:
    out = (f"{len(pos)} positions from {pos.n_games} games in {len(pos.shards)} shards, "
           f"{pos.size}x{pos.size}, levels {pos.levels}, pass labels "
           f"{int((pos.y == pos.size * pos.size).sum())}")
    if pos.z is not None:
        out += f", value targets {int((pos.z != 0).sum())}"
    if pos.pi is not None:
        out += ", visit distributions"
    if pos.bad_shards:
        out += f", {len(pos.bad_shards)} shards skipped"
    return out


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="build (and cache) the training positions")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--no-cache", action="store_true")
    a = ap.parse_args()
    print(summary(load_positions(a.dirs, cache=not a.no_cache, progress=True)))
