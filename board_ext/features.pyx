# cython: language_level=3
"""Input planes for the net, written into a buffer the caller supplies.

Planes (from the view of the side to move, ``NUM_PLANES`` of size x size):

====  ==========================================
0-3   own stones whose chain has 1, 2, 3, >=4 liberties
4-7   opponent stones, same split
8     empty points
9     the simple-ko point (the side to move may not play there)
10    on-board: all ones (zero padding then marks the edge)
11-14 the last 4 moves (11 = most recent), one-hot; passes leave them empty
====  ==========================================

Cells are ``(plane, y, x)`` with ``y`` the row from the bottom, matching the
flat index ``p = y*size + x``.
"""
from board_ext.board cimport Board, board_t, board_libs, EMPTY, NHIST
cimport numpy as cnp
import numpy as np

cnp.import_array()

NUM_PLANES = 15
N_HISTORY_PLANES = 4


cdef void write_planes(const board_t* b, float* out) noexcept nogil:
    cdef int nn = b.g.nn, p, c = b.to_move, col, l, k, m
    for p in range(NUM_PLANES_C * nn):
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
    for k in range(4):
        m = b.hist[k]
        if 0 <= m < nn:
            out[(11 + k) * nn + m] = 1.0

cdef enum:
    NUM_PLANES_C = 15


def planes(Board board, out=None):
    """Write the planes of board into out (float32, (NUM_PLANES, n, n)); a
    new array if out is None. Returns out."""
    cdef int s = board.b.g.size
    if out is None:
        out = np.empty((NUM_PLANES, s, s), np.float32)
    cdef cnp.ndarray[cnp.float32_t, ndim=3, mode="c"] arr = out
    if arr.shape[0] != NUM_PLANES or arr.shape[1] != s or arr.shape[2] != s:
        raise ValueError(f"planes buffer must be float32 ({NUM_PLANES}, {s}, {s})")
    write_planes(board.b, <float*>arr.data)
    return out


def planes_batch(boards, out=None):
    """Planes of many boards of one size into out (B, NUM_PLANES, n, n)."""
    cdef Board bd
    cdef int i, s
    boards = list(boards)
    if not boards:
        raise ValueError("planes_batch needs at least one board")
    s = (<Board>boards[0]).b.g.size
    if out is None:
        out = np.empty((len(boards), NUM_PLANES, s, s), np.float32)
    cdef cnp.ndarray[cnp.float32_t, ndim=4, mode="c"] arr = out
    if arr.shape[0] < len(boards) or arr.shape[1] != NUM_PLANES or arr.shape[2] != s:
        raise ValueError("planes buffer has the wrong shape")
    for i, bd in enumerate(boards):
        if bd.b.g.size != s:
            raise ValueError("planes_batch: boards of different sizes")
        write_planes(bd.b, <float*>arr.data + i * NUM_PLANES_C * s * s)
    return out
