# cython: language_level=3
"""Input planes for the net, written into a buffer the caller supplies.

Planes (from the view of the side to move, each size x size). Version 1
(the first round's nets) is planes 0-14; version 2 adds 15-28 (what Clark &
Storkey and AlphaGo found worth most beyond them); version 3 adds 29, the
colour to move (AlphaGo's "player colour"): the planes are otherwise the
same for Black and White to move, and a value head cannot tell who gets
the komi without it:

====  ==========================================
0-3   own stones whose chain has 1, 2, 3, >=4 liberties
4-7   opponent stones, same split
8     empty points
9     the simple-ko point (the side to move may not play there)
10    on-board: all ones (zero padding then marks the edge)
11-14 the last 4 moves (11 = most recent), one-hot; passes leave them empty
15-18 the moves 5, 6, 7 and 8 turns ago (so 11-18: turns since a move)
19-22 liberties of the own chain after a legal move here: 1, 2, 3, >=4
23-24 self-atari: the move leaves its chain of 1 / >= 2 stones in atari
25-26 capture: the move takes 1-2 / >= 3 stones
27    ladder capture: the move ataris a chain that the ladder reader
      then takes
28    ladder escape: the move saves an own chain in atari (>= 3 liberties
      after it, or 2 that the ladder reader cannot take)
29    Black to move: all ones on the board (zero when White is to move)
====  ==========================================

Planes 19-28 are set only at legal points (simple ko) and read the board
as ``board_ext/priors.pyx`` does (``chain_libs_after`` counts one liberty
per captured chain, a lower bound once stones are taken).  The ladder reads
are bounded (``tactics.pyx``), so a plane costs at most a few hundred
positions read.

Cells are ``(plane, y, x)`` with ``y`` the row from the bottom, matching the
flat index ``p = y*size + x``.  A net stores how many planes it reads
(``in_planes``); the writers take that count and write the first planes.
"""
from board_ext.board cimport (Board, board_t, geom_t, board_libs, board_legal, EMPTY, BLACK, NHIST)
from board_ext.tactics cimport chain_libs_after, ladder_captures, ladder_works
cimport numpy as cnp
import numpy as np

cnp.import_array()

NUM_PLANES = 30          # the current version's planes (what new nets read)
NUM_PLANES_V1 = 15       # the first round's nets
NUM_PLANES_V2 = 29       # version 2: no colour plane
PLANE_COUNTS = (NUM_PLANES_V1, NUM_PLANES_V2, NUM_PLANES)
N_HISTORY_PLANES = 8

cdef void _move_planes(const board_t* b, float* out) noexcept nogil:
    """Planes 19-28 at the legal empty points of b for its side to move."""
    cdef const geom_t* g = b.g
    cdef int nn = g.nn, c = b.to_move, p, i, n, r, la, k, j
    cdef int depth = 4 * g.size, captured, own_size, escape, atari
    cdef int seen[4]
    cdef bint dup
    for p in range(nn):
        if b.color[p] != EMPTY or not board_legal(b, p, c):
            continue
        captured = 0
        own_size = 1
        escape = -1
        atari = 0
        k = 0
        for i in range(g.n_nbr[p]):
            n = g.nbr[p][i]
            if b.color[n] == EMPTY:
                continue
            r = b.chain[n]
            dup = False
            for j in range(k):
                if seen[j] == r:
                    dup = True
            if dup:
                continue
            seen[k] = r
            k += 1
            if b.color[n] == c:
                own_size += b.chain_size[r]
                if b.libcnt[r] == 1:
                    escape = n
            elif b.libcnt[r] == 1:
                captured += b.chain_size[r]
            elif b.libcnt[r] == 2:
                atari = 1
        la = chain_libs_after(b, p, c)
        if la >= 1:
            out[(19 + (la if la < 4 else 4) - 1) * nn + p] = 1.0
        if la <= 1 and captured == 0:
            out[(23 if own_size == 1 else 24) * nn + p] = 1.0
        if captured:
            out[(25 if captured <= 2 else 26) * nn + p] = 1.0
        if atari and la >= 2 and ladder_works(b, p, c, depth):
            out[27 * nn + p] = 1.0
        if escape >= 0 and la >= 2 and not (la == 2 and ladder_captures(b, escape, depth)):
            out[28 * nn + p] = 1.0


cdef void write_planes(const board_t* b, float* out, int n_planes) noexcept nogil:
    cdef int nn = b.g.nn, p, c = b.to_move, col, l, k, m
    for p in range(n_planes * nn):
        out[p] = 0.0
    for p in range(nn):
        col = b.color[p]
        out[10 * nn + p] = 1.0
        if col == EMPTY:
            out[8 * nn + p] = 1.0
        else:
            l = board_libs(b, p)
            if l > 4:
                l = 4
            out[((0 if col == c else 4) + l - 1) * nn + p] = 1.0
    if b.ko >= 0:
        out[9 * nn + b.ko] = 1.0
    for k in range(8 if n_planes > 15 else 4):
        m = b.hist[k]
        if 0 <= m < nn:
            out[(11 + k) * nn + m] = 1.0
    if n_planes > 19:
        _move_planes(b, out)
    if n_planes > 29 and c == BLACK:
        for p in range(nn):
            out[29 * nn + p] = 1.0


cdef int _check_count(int n_planes) except -1:
    if n_planes not in PLANE_COUNTS:
        raise ValueError(f"input planes must be one of {PLANE_COUNTS}, got {n_planes}")
    return 0


def planes(Board board, out=None, int n_planes=NUM_PLANES):
    """Write the first ``n_planes`` planes of board into out (float32,
    (n_planes, n, n)); a new array if out is None. Returns out."""
    cdef int s = board.b.g.size
    _check_count(n_planes)
    if out is None:
        out = np.empty((n_planes, s, s), np.float32)
    cdef cnp.ndarray[cnp.float32_t, ndim=3, mode="c"] arr = out
    if arr.shape[0] != n_planes or arr.shape[1] != s or arr.shape[2] != s:
        raise ValueError(f"planes buffer must be float32 ({n_planes}, {s}, {s})")
    write_planes(board.b, <float*>arr.data, n_planes)
    return out


def planes_batch(boards, out=None, int n_planes=NUM_PLANES):
    """Planes of many boards of one size into out (B, n_planes, n, n)."""
    cdef Board bd
    cdef int i, s
    _check_count(n_planes)
    boards = list(boards)
    if not boards:
        raise ValueError("planes_batch needs at least one board")
    s = (<Board>boards[0]).b.g.size
    if out is None:
        out = np.empty((len(boards), n_planes, s, s), np.float32)
    cdef cnp.ndarray[cnp.float32_t, ndim=4, mode="c"] arr = out
    if arr.shape[0] < len(boards) or arr.shape[1] != n_planes or arr.shape[2] != s:
        raise ValueError("planes buffer has the wrong shape")
    for i, bd in enumerate(boards):
        if bd.b.g.size != s:
            raise ValueError("planes_batch: boards of different sizes")
        write_planes(bd.b, <float*>arr.data + i * n_planes * s * s, n_planes)
    return out
