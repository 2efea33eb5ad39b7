# cython: language_level=3
"""The Go board: bitboard chains with exact liberty sets, rules, scoring.

Owns: the C struct ``board_t`` (plain data, copied with memcpy, used under
``nogil`` by playouts) and the Python-visible ``Board`` that adds positional
superko history and typed errors.  Imports no package of the project.

Representation.  Points are flat indices ``p = y*size + x``; pass is
``nn = size*size``.  Every chain has a representative point ``r``
(``chain[p] == r`` for its stones); ``libs[r*nw:(r+1)*nw]`` is its liberty set
and ``stones[r*nw:(r+1)*nw]`` its stone set, both bitsets of ``nw`` uint64
words, so a liberty count is a popcount and chains merge by OR.

Rules.  Captures; suicide illegal unless ``allow_suicide`` (Tromp-Taylor's
multi-stone suicide; a lone stone's suicide stays illegal since it would
repeat the position); simple ko on ``board_t``; positional superko on
``Board`` (Zobrist hashes of every earlier position); area scoring
(Tromp-Taylor) with komi.
"""
from libc.stdint cimport uint64_t, int16_t, uint8_t, uint16_t
from libc.string cimport memcpy, memset
from cpython.mem cimport PyMem_Malloc, PyMem_Realloc, PyMem_Free
cimport cython

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

# Reasons for an illegal move (board_illegal_reason); 0 is legal.
cdef enum:
    R_OK = 0
    R_OCCUPIED = 1
    R_SUICIDE = 2
    R_KO = 3
    R_SUPERKO = 4

REASONS = {R_OCCUPIED: "occupied", R_SUICIDE: "suicide", R_KO: "ko", R_SUPERKO: "superko"}
globals().update(BLACK=1, WHITE=2, EMPTY=0)   # the Python names of the colours


class IllegalMove(ValueError):
    """A move the rules forbid; ``reason`` is one of
    ``occupied``, ``suicide``, ``ko``, ``superko``, ``off-board``."""

    def __init__(self, reason, move=None, message=None):
        self.reason = reason
        self.move = move
        super().__init__(message or f"illegal move: {reason}")


# ---------------------------------------------------------------- tables
cdef uint64_t ZOB[3][MAXNN]
cdef geom_t GEOMS[MAXSIZE + 1]
cdef bint GEOM_READY[MAXSIZE + 1]


cdef uint64_t splitmix(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef void _init_zobrist():
    cdef uint64_t seed = 20150601
    cdef int c, p
    for c in range(3):
        for p in range(MAXNN):
            ZOB[c][p] = splitmix(&seed) if c else 0

_init_zobrist()


cdef const geom_t* get_geom(int size) except NULL:
    """The shared geometry of a board size (2..19)."""
    if size < 2 or size > MAXSIZE:
        raise ValueError(f"board size {size} is not supported: sizes 2 to {MAXSIZE}")
    cdef geom_t* g = &GEOMS[size]
    cdef int x, y, p, k, dx, dy, nx, ny
    cdef int DX[4]
    cdef int DY[4]
    if GEOM_READY[size]:
        return g
    DX[:] = [0, -1, 1, 0]
    DY[:] = [-1, 0, 0, 1]
    g.size = size
    g.nn = size * size
    g.nw = (g.nn + 63) // 64
    for y in range(size):
        for x in range(size):
            p = y * size + x
            k = 0
            for dx in range(4):
                nx = x + DX[dx]
                ny = y + DY[dx]
                if 0 <= nx < size and 0 <= ny < size:
                    g.nbr[p][k] = ny * size + nx
                    k += 1
            g.n_nbr[p] = k
            while k < 4:
                g.nbr[p][k] = SENT
                k += 1
            k = 0
            for dx in (-1, 1):
                for dy in (-1, 1):
                    nx = x + dx
                    ny = y + dy
                    if 0 <= nx < size and 0 <= ny < size:
                        g.diag[p][k] = ny * size + nx
                        k += 1
            g.n_diag[p] = k
            while k < 4:
                g.diag[p][k] = SENT
                k += 1
            k = 0
            for dy in (1, 0, -1):
                for dx in (-1, 0, 1):
                    if dx == 0 and dy == 0:
                        continue
                    nx = x + dx
                    ny = y + dy
                    g.nbr8[p][k] = ny * size + nx if (0 <= nx < size and 0 <= ny < size) else SENT
                    k += 1
    GEOM_READY[size] = True
    return g


# ---------------------------------------------------------------- rng
# rng_next, rng_int, rng_double are inline in board.pxd.


# ---------------------------------------------------------------- bitsets
include "board_core.pxi"     # board_t, the C board (board_ext/board_core.pxi)

from board_ext.points import handicap_points, parse_ascii   # noqa: F401 (re-exported)


# ---------------------------------------------------------------- Board
def _restore_board(int size, bint superko, bytes raw, history):
    cdef Board o = Board.__new__(Board, size, False, superko, _empty=True)
    cdef const geom_t* g = get_geom(size)
    if len(raw) != sizeof(board_t):
        raise ValueError("board pickle of another build")
    memcpy(o.b, <const char*>raw, sizeof(board_t))
    o.b.g = g
    o.b.color[SENT] = OFFBOARD
    o.b.chain[SENT] = 0
    o.n_history = 0
    for h in history:
        o._push_history(h)
    return o


cdef class Board:
    """A Go position with full rules: positional superko and typed errors.

    Colours are ``BLACK = 1`` and ``WHITE = 2``; moves are flat indices and
    ``pass_move == size*size``.
    """

    def __cinit__(self, int size=19, bint allow_suicide=False, bint superko=True, *, _empty=False):
        cdef const geom_t* g = get_geom(size)
        self.b = <board_t*>PyMem_Malloc(sizeof(board_t))
        if self.b == NULL:
            raise MemoryError()
        self.cap_history = 64
        self.history = <uint64_t*>PyMem_Malloc(self.cap_history * sizeof(uint64_t))
        if self.history == NULL:
            raise MemoryError()
        self.n_history = 0
        self.superko = superko
        if not _empty:
            board_init(self.b, g)
            self.b.allow_suicide = allow_suicide
            self._push_history(0)

    def __dealloc__(self):
        PyMem_Free(self.b)
        PyMem_Free(self.history)

    cdef void _push_history(self, uint64_t h) except *:
        cdef uint64_t* nh
        if self.n_history == self.cap_history:
            nh = <uint64_t*>PyMem_Realloc(self.history, 2 * self.cap_history * sizeof(uint64_t))
            if nh == NULL:
                raise MemoryError()
            self.history = nh
            self.cap_history *= 2
        self.history[self.n_history] = h
        self.n_history += 1

    def _history(self):
        """Positional hashes of every position so far (superko history)."""
        return [self.history[i] for i in range(self.n_history)]

    # -- properties
    @property
    def size(self):
        return self.b.g.size

    @property
    def pass_move(self):
        return self.b.g.nn

    @property
    def to_move(self):
        return self.b.to_move

    @to_move.setter
    def to_move(self, int c):
        if c != BLACK and c != WHITE:
            raise ValueError("to_move must be BLACK (1) or WHITE (2)")
        if c != self.b.to_move:
            self.b.ko = -1
        self.b.to_move = c

    @property
    def hash(self):
        """Zobrist hash of the stones (positional) mixed with the side to move."""
        return self.b.hash ^ (<uint64_t>0x5bd1e9955bd1e995 if self.b.to_move == WHITE else 0)

    @property
    def position_hash(self):
        return self.b.hash

    @property
    def ko(self):
        return None if self.b.ko < 0 else self.b.ko

    @property
    def passes(self):
        """Consecutive passes that ended the move sequence so far (2: over)."""
        return self.b.passes

    @passes.setter
    def passes(self, int n):
        # scoring plays out a finished game from a copy with the count cleared
        if not 0 <= n <= 2:
            raise ValueError("passes must be 0, 1 or 2")
        self.b.passes = n

    @property
    def move_count(self):
        return self.b.move_count

    @property
    def allow_suicide(self):
        return bool(self.b.allow_suicide)

    @property
    def last_moves(self):
        """Most recent first; pass is size*size."""
        return [self.b.hist[i] for i in range(NHIST) if self.b.hist[i] >= 0]

    @property
    def last_move(self):
        return None if self.b.hist[0] < 0 else self.b.hist[0]

    def captures(self, int color):
        """Stones captured by colour."""
        return self.b.captures[color]

    # -- queries
    def copy(self):
        cdef Board o = Board.__new__(Board, self.b.g.size, False, self.superko, _empty=True)
        board_copy(o.b, self.b)
        o.n_history = 0
        for i in range(self.n_history):
            o._push_history(self.history[i])
        return o

    def __reduce__(self):
        """Pickle support (root-parallel search sends positions to workers):
        the raw board_t bytes of the used size plus the superko history."""
        cdef const char* raw = <const char*>self.b
        return (_restore_board, (self.b.g.size, self.superko, raw[:sizeof(board_t)], self._history()))

    def color_at(self, int p):
        self._check_point(p)
        return self.b.color[p]

    def _check_point(self, p):
        if not 0 <= p < self.b.g.nn:
            raise IllegalMove("off-board", p, f"point {p} is off the {self.b.g.size}x{self.b.g.size} board")

    def liberties(self, int p):
        """Liberty count of the chain at p (0 if empty)."""
        self._check_point(p)
        return board_libs(self.b, p)

    def chain(self, int p):
        """Stones of the chain at p, sorted."""
        self._check_point(p)
        if self.b.color[p] == EMPTY:
            return []
        cdef int r = self.b.chain[p]
        return [q for q in range(self.b.g.nn) if self.b.chain[q] == r]

    def chain_liberties(self, int p):
        """Liberty points of the chain at p, sorted."""
        self._check_point(p)
        if self.b.color[p] == EMPTY:
            return []
        cdef int r = self.b.chain[p], nw = self.b.g.nw
        return [q for q in range(self.b.g.nn) if (self.b.libs[r * nw + (q >> 6)] >> (q & 63)) & 1]

    def stones(self, int color):
        return [p for p in range(self.b.g.nn) if self.b.color[p] == color]

    def colors(self):
        """Bytes of length size*size: 0 empty, 1 black, 2 white."""
        return bytes([self.b.color[p] for p in range(self.b.g.nn)])

    def is_eye(self, int p, int color):
        self._check_point(p)
        return bool(board_is_eye(self.b, p, color))

    cdef int _check(self, int p, int c) except -2:
        """The R_* reason colour c may not play p, with superko; 0 if legal."""
        cdef int r = board_illegal_reason(self.b, p, c)
        cdef uint64_t h
        if r or not self.superko or p == self.b.g.nn:
            return r
        h = board_hash_after(self.b, p, c)
        for i in range(self.n_history):
            if self.history[i] == h:
                return R_SUPERKO
        return R_OK

    def _color(self, color):
        if color is None:
            return self.b.to_move
        if color != BLACK and color != WHITE:
            raise ValueError(f"colour must be BLACK (1) or WHITE (2), not {color!r}")
        return color

    def illegal_reason(self, int p, color=None):
        """None if legal, else the reason string."""
        cdef int c = self._color(color)
        if not 0 <= p <= self.b.g.nn:
            return "off-board"
        r = self._check(p, c)
        return REASONS[r] if r else None

    def is_legal(self, int p, color=None):
        cdef int c = self._color(color)
        if not 0 <= p <= self.b.g.nn:
            return False
        return self._check(p, c) == R_OK

    def legal_moves(self, color=None):
        """Legal board points for colour (default: to move), superko included.
        Pass is always legal and is not listed."""
        cdef int c = self._color(color)
        return [p for p in range(self.b.g.nn) if self._check(p, c) == R_OK]

    def play(self, int p, color=None):
        """Play colour (default: to move) at p or pass; returns stones captured.

        Raises IllegalMove with the reason; the board is unchanged then.
        """
        cdef int c = self._color(color)
        if not 0 <= p <= self.b.g.nn:
            raise IllegalMove("off-board", p, f"point {p} is off the {self.b.g.size}x{self.b.g.size} board")
        cdef int r = self._check(p, c)
        if r:
            raise IllegalMove(REASONS[r], p)
        cdef int n = board_play(self.b, p, c)
        if p != self.b.g.nn:
            self._push_history(self.b.hash)
        return n

    def setup(self, black=(), white=()):
        """Place setup stones (handicap, SGF AB/AW, gogui-setup) without
        changing the side to move or the move history. Each stone must be a
        legal placement on the current board."""
        cdef int tm = self.b.to_move, mc = self.b.move_count
        cdef int16_t hist[NHIST]
        memcpy(hist, self.b.hist, sizeof(hist))
        for c, pts in ((BLACK, black), (WHITE, white)):
            for p in pts:
                if not 0 <= p < self.b.g.nn:
                    raise IllegalMove("off-board", p)
                r = board_illegal_reason(self.b, p, c)
                if r == R_KO:
                    r = R_OK
                if r:
                    raise IllegalMove(REASONS[r], p)
                self.b.ko = -1
                board_play(self.b, p, c)
        self._push_history(self.b.hash)
        self.b.to_move = tm
        self.b.move_count = mc
        self.b.ko = -1
        self.b.passes = 0
        memcpy(self.b.hist, hist, sizeof(hist))

    def check_consistency(self):
        """Recompute every derived array (chains, stone and liberty sets,
        liberty counts, neighbour counts, empty list) from the colours and
        raise AssertionError naming the first difference. For tests."""
        cdef const board_t* b = self.b
        cdef const geom_t* g = b.g
        cdef int nn = g.nn, nw = g.nw, p, q, i, w, r
        seen = {}
        for p in range(nn):
            col = b.color[p]
            cnt = [0, 0, 0]
            for i in range(g.n_nbr[p]):
                cnt[b.color[g.nbr[p][i]]] += 1
            want = cnt[0] | (cnt[1] << 4) | (cnt[2] << 8)
            if b.nbc[p] != want:
                raise AssertionError(f"nbc at {p}: {b.nbc[p]:#x}, want {want:#x}")
            if col == EMPTY:
                if b.chain[p] != -1 or b.empty_list[b.empty_pos[p]] != p:
                    raise AssertionError(f"empty point {p}: chain or empty list wrong")
            elif p not in seen:
                stones, libs, todo = {p}, set(), [p]
                while todo:
                    q = todo.pop()
                    for i in range(g.n_nbr[q]):
                        n = g.nbr[q][i]
                        if b.color[n] == EMPTY:
                            libs.add(n)
                        elif b.color[n] == col and n not in stones:
                            stones.add(n)
                            todo.append(n)
                r = b.chain[p]
                for q in stones:
                    seen[q] = r
                    if b.chain[q] != r:
                        raise AssertionError(f"chain of {q}: {b.chain[q]}, want {r}")
                got_s = {q for q in range(nn) if (b.stones[r * nw + (q >> 6)] >> (q & 63)) & 1}
                got_l = {q for q in range(nn) if (b.libs[r * nw + (q >> 6)] >> (q & 63)) & 1}
                if got_s != stones or b.chain_size[r] != len(stones):
                    raise AssertionError(f"stones of chain {r} wrong")
                if got_l != libs or b.libcnt[r] != len(libs):
                    raise AssertionError(f"liberties of chain {r}: {sorted(got_l)} "
                                         f"count {b.libcnt[r]}, want {sorted(libs)}")
        for p in range(nn):
            if bool(b.empty_bits[p >> 6] >> (p & 63) & 1) != (b.color[p] == EMPTY):
                raise AssertionError(f"empty bit at {p} wrong")
        if b.n_empty != sum(1 for p in range(nn) if b.color[p] == EMPTY):
            raise AssertionError("empty list length wrong")
        reps = set(seen.values())
        for p in range(nn):
            if p not in reps:
                for w in range(nw):
                    if b.libs[p * nw + w] or b.stones[p * nw + w]:
                        raise AssertionError(f"bitsets at non-representative {p} not zero")
                if b.libcnt[p]:
                    raise AssertionError(f"liberty count at non-representative {p} not zero")

    def score(self, double komi=0.0):
        """Tromp-Taylor area score: black minus white minus komi."""
        return board_score(self.b, komi, NULL)

    def area_owner(self):
        """Per point +1 black, -1 white, 0 neutral, by Tromp-Taylor area."""
        cdef signed char own[MAXNN]
        board_score(self.b, 0.0, own)
        return [own[p] for p in range(self.b.g.nn)]

    def to_ascii(self):
        """Rows top (row size) to bottom; X black, O white, . empty."""
        s = self.b.g.size
        rows = []
        for y in range(s - 1, -1, -1):
            rows.append("".join(".XO"[self.b.color[y * s + x]] for x in range(s)))
        return "\n".join(rows)

    @staticmethod
    def from_ascii(text, to_move=BLACK, **kw):
        """Board from rows (top first) of X, O and . (spaces ignored)."""
        size, blacks, whites = parse_ascii(text)
        b = Board(size, **kw)
        b.setup(blacks, whites)
        b.to_move = to_move
        return b

    def __repr__(self):
        return f"<Board {self.size}x{self.size} to_move={'BW'[self.to_move - 1]}>\n" + self.to_ascii()
