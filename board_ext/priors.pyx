# cython: language_level=3
"""Prior knowledge of the search tree: a few visits of equivalent experience
for every move of a new node (Fuego's GoUctDefaultPriorKnowledge and
Pachi's uct/prior.c in spirit; the values are this project's).

Each legal move gets ``(value, count)``: ``count`` pretend visits at win
rate ``value`` for the player making the move, kept by the tree apart from
real visits (``engine/pool.pyx``).  A few visits, not hundreds: tens of
real visits overturn any of them.  In order, the first rule that matches:

=====================  =========  =====  ==========================================
rule                   value      count  what
=====================  =========  =====  ==========================================
capture                1.0        9      takes an opponent chain in atari
escape                 1.0        9      gives an own chain in atari >= 3 liberties,
                                         or 2 that a ladder cannot take
dead escape            0.1        9      runs an own chain in atari into a ladder
self-atari (group)     0.0        12     leaves an own chain of 2+ stones in atari
self-atari (stone)     0.2        6      a lone stone in atari (throw-ins stay possible)
ladder atari           1.0        9      ataris a chain that then dies in a ladder
atari                  0.7        4      ataris an opponent chain
pattern                0.9        3      centre of a MoGo 3x3 pattern
first line, empty      0.1        6      size >= 9, no stone within Manhattan 2
second line, empty     0.35       4      size >= 9, no stone within Manhattan 2
third/fourth, empty    0.8        6      size >= 13, no stone within Manhattan 2
plain                  0.5        3      any other move
pass                   0.1        9      unless the opponent just passed (0.5, 3)
=====================  =========  =====  ==========================================

plus a locality bonus of 2 visits at 1.0 within Manhattan distance 2 of the
last move.  An own true eye is not a child at all (the tree skips it).
``scale`` multiplies every count (0 = no prior knowledge).
Everything here is ``nogil``; ``engine/pool.pyx`` calls ``move_prior`` at
expansion.
"""
from libc.stdint cimport uint8_t
from board_ext.board cimport (board_t, geom_t, Board, board_legal, board_is_eye, board_libs,
                              board_chain_lib, EMPTY, BLACK, WHITE, MAXNN)
from board_ext.playout cimport pattern_match
from board_ext.tactics cimport chain_libs_after, ladder_captures, ladder_works


cdef inline void _set(float* n0, float* w0, double v, double n, double scale) noexcept nogil:
    n0[0] = <float>(n * scale)
    w0[0] = <float>(v * n * scale)


cdef inline bint _empty_area(const board_t* b, int p) noexcept nogil:
    """No stone within Manhattan distance 2 of p."""
    cdef int s = b.g.size, x = p % s, y = p // s, dx, dy
    for dy in range(-2, 3):
        for dx in range(abs(dy) - 2, 3 - abs(dy)):
            if 0 <= x + dx < s and 0 <= y + dy < s and b.color[(y + dy) * s + x + dx] != EMPTY:
                return False
    return True


cdef void move_prior(const board_t* b, int p, float* n0, float* w0, double scale) noexcept nogil:
    """Prior (count n0, wins w0) of move p (legal, not an own true eye) for
    the side to move of b."""
    cdef const geom_t* g = b.g
    cdef int c = b.to_move, nn = g.nn, i, n, s = g.size, x, y, line, la, last
    cdef int lx, ly
    cdef int escape = -1, depth = 4 * g.size
    cdef bint capture = False, atari = False, ladder_atari = False
    if p == nn:
        if b.hist[0] == nn:
            _set(n0, w0, 0.5, 3, scale)
        else:
            _set(n0, w0, 0.1, 9, scale)
        return
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == 3 - c:
            if board_libs(b, n) == 1:
                capture = True
            elif board_libs(b, n) == 2:
                atari = True
        elif b.color[n] == c and board_libs(b, n) == 1:
            escape = n
    if capture:
        _set(n0, w0, 1.0, 9, scale)
    else:
        la = chain_libs_after(b, p, c)
        if escape >= 0 and la >= 2:
            if la == 2 and ladder_captures(b, escape, depth):
                _set(n0, w0, 0.1, 9, scale)
            else:
                _set(n0, w0, 1.0, 9, scale)
        elif la <= 1:
            if _chain_after_size(b, p, c) >= 2:
                _set(n0, w0, 0.0, 12, scale)
            else:
                _set(n0, w0, 0.2, 6, scale)
        else:
            if atari:
                ladder_atari = ladder_works(b, p, c, depth)
            if ladder_atari:
                _set(n0, w0, 1.0, 9, scale)
            elif atari:
                _set(n0, w0, 0.7, 4, scale)
            elif pattern_match(b, p):
                _set(n0, w0, 0.9, 3, scale)
            else:
                x = p % s
                y = p // s
                line = min(min(x, y), min(s - 1 - x, s - 1 - y))
                if s >= 9 and line <= 1 and _empty_area(b, p):
                    if line == 0:
                        _set(n0, w0, 0.1, 6, scale)
                    else:
                        _set(n0, w0, 0.35, 4, scale)
                elif s >= 13 and 2 <= line <= 3 and _empty_area(b, p):
                    _set(n0, w0, 0.8, 6, scale)
                else:
                    _set(n0, w0, 0.5, 3, scale)
    last = b.hist[0]
    if 0 <= last < nn:
        lx = last % s
        ly = last // s
        if abs(lx - p % s) + abs(ly - p // s) <= 2:
            n0[0] += <float>(2 * scale)
            w0[0] += <float>(2 * scale)


cdef int _chain_after_size(const board_t* b, int p, int c) noexcept nogil:
    """Stones of c's chain through p after c plays p (no captures assumed)."""
    cdef const geom_t* g = b.g
    cdef int i, j, n, r, k = 0, total = 1
    cdef int seen[4]
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] != c:
            continue
        r = b.chain[n]
        for j in range(k):
            if seen[j] == r:
                break
        else:
            seen[k] = r
            k += 1
            total += b.chain_size[r]
    return total


def tree_priors(Board board, double scale=1.0):
    """(n0, w0): the prior count and wins of every legal move of the side to
    move (length nn + 1, pass last; 0 where illegal or an own true eye)."""
    cdef const board_t* b = board.b
    cdef int nn = b.g.nn, p, c = b.to_move
    cdef float n0, w0
    counts = [0.0] * (nn + 1)
    wins = [0.0] * (nn + 1)
    for p in range(nn + 1):
        if p < nn and (b.color[p] != EMPTY or not board_legal(b, p, c) or board_is_eye(b, p, c)):
            continue
        move_prior(b, p, &n0, &w0, scale)
        counts[p] = n0
        wins[p] = w0
    return counts, wins
