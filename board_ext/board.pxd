# See board.pyx for details.
from libc.stdint cimport uint64_t, int16_t, uint8_t, int32_t, uint16_t

cdef enum:
    MAXSIZE = 19
    MAXNN = 361            # MAXSIZE * MAXSIZE
    MAXW = 6               # uint64 words for MAXNN bits
    NHIST = 8              # last moves kept for input planes (board_play shifts
                           # them as two 64-bit words: must stay 8)
    EMPTY = 0
    BLACK = 1
    WHITE = 2
    OFFBOARD = 3           # colour of the sentinel point
    SENT = MAXNN + 1       # the off-board sentinel: nbr/diag entries past n_nbr/n_diag,
                           # so the per-move loops run a fixed four times
    MAXPT = MAXNN + 2      # length of the per-point arrays the sentinel indexes

# Geometry of one board size, shared by every board of that size.
ctypedef struct geom_t:
    int size               # side length, 2..19
    int nn                 # size * size; also the pass move
    int nw                 # uint64 words per bitset: ceil(nn / 64)
    int16_t nbr[MAXNN][4]  # orthogonal neighbours, first n_nbr valid, then SENT
    uint8_t n_nbr[MAXNN]   # 2..4 (1 on a 1-wide board never happens)
    int16_t diag[MAXNN][4] # diagonal neighbours, first n_diag valid, then SENT
    uint8_t n_diag[MAXNN]
    int16_t nbr8[MAXNN][8]   # 3x3 ring NW N NE W E SW S SE (rows top first), SENT off-board

# The playout-grade board: plain data, copied with memcpy, used under nogil.
ctypedef struct board_t:
    const geom_t* g        # never NULL
    int to_move            # BLACK or WHITE
    int ko                 # point the side to move may not retake at, or -1
    int passes             # consecutive passes just played
    int move_count         # moves (incl. passes) played since the start
    int allow_suicide      # 1: Tromp-Taylor multi-stone suicide is legal
    int captures[3]        # stones captured by BLACK, WHITE (index by colour)
    uint64_t hash          # Zobrist hash of the stones (positional)
    int n_empty            # entries in empty_list
    int16_t hist[NHIST]    # last moves, hist[0] newest; pass = nn; -1 none
    uint64_t empty_bits[MAXW]  # bit p set iff p is empty (p < nn), kept with empty_list
    uint8_t color[MAXPT]   # EMPTY/BLACK/WHITE per point; OFFBOARD at SENT
    uint16_t nbc[MAXPT]    # neighbour counts: bits 0-3 empty, 4-7 black, 8-11 white
                           # (nbc[SENT] takes writes and is never read)
    int16_t chain[MAXPT]   # representative point of the chain at p (stones only); at SENT
                           # any real point (read by the four-slot loops, never used)
    int16_t chain_size[MAXNN]    # stones of chain, valid at the representative
    int16_t libcnt[MAXNN]        # liberties of chain (popcount of its libs), at the rep.
    int16_t empty_list[MAXNN]    # the empty points, unordered
    int16_t empty_pos[MAXNN]     # index of p in empty_list, valid when empty
    uint64_t libs[MAXNN * MAXW]  # liberty bitset of chain r at [r*nw .. r*nw+nw);
                                 # all zero at points that are not representatives
    uint64_t stones[MAXNN * MAXW]  # stone bitset of chain r, same layout and invariant

ctypedef struct rng_t:
    uint64_t s

cdef const geom_t* get_geom(int size) except NULL
cdef void board_init(board_t* b, const geom_t* g) noexcept nogil
cdef void board_copy(board_t* dst, const board_t* src) noexcept nogil
cdef int board_illegal_reason(const board_t* b, int p, int c) noexcept nogil
cdef int board_play(board_t* b, int p, int c) noexcept nogil
cdef int board_chain_lib(const board_t* b, int p) noexcept nogil
cdef uint64_t board_hash_after(const board_t* b, int p, int c) noexcept nogil
cdef double board_score(const board_t* b, double komi, signed char* owner) noexcept nogil

cdef class Board:
    cdef board_t* b            # owned, never NULL after __cinit__
    cdef uint64_t* history     # positional hashes of every position so far
    cdef int n_history
    cdef int cap_history
    cdef public bint superko   # enforce positional superko in play/is_legal
    cdef int _check(self, int p, int c) except -2
    cdef void _push_history(self, uint64_t h) except *


# The per-move tests of every rollout policy, inline here so that the
# policies in other modules (playout, bhrf, pool) compile them into their
# loops instead of calling across modules through a function pointer.

cdef inline int board_libs(const board_t* b, int p) noexcept nogil:
    """Liberties of the chain at p (0 for an empty point)."""
    if b.color[p] == EMPTY:
        return 0
    return b.libcnt[b.chain[p]]


cdef inline int _legal_surrounded(const board_t* b, int p, int c, int nb) noexcept nogil:
    """board_legal for an empty p with no empty neighbour (nb: its
    neighbour counts), ko checked here: p is a liberty of every adjacent
    chain, so c may play it iff an own neighbour's chain keeps another
    liberty or an opponent neighbour's chain is in atari (a capture).

    The four slots (off-board ones the sentinel) without branches: slot
    code = colour + 4 min(liberties, 2), and bit code of the mask is set
    for the two codes that make p legal, own with two or more liberties
    (c + 8) and opponent with one (3 - c + 4)."""
    cdef const geom_t* g = b.g
    cdef int i, n, lc
    cdef unsigned ok = 0, mask = (1u << (c + 8)) | (1u << (7 - c))
    if p == b.ko and c == b.to_move:
        return 0
    for i in range(4):
        n = g.nbr[p][i]
        lc = b.libcnt[b.chain[n]]
        lc = lc if lc < 2 else 2
        ok |= mask >> (b.color[n] + 4 * lc)
    if ok & 1:
        return 1
    return b.allow_suicide and ((nb >> (4 * c)) & 15) != 0


cdef inline int board_legal(const board_t* b, int p, int c) noexcept nogil:
    """Colour c may play p (or pass) under simple ko; same answer as
    board_illegal_reason(b, p, c) == 0."""
    cdef const geom_t* g = b.g
    cdef int nb
    if p == g.nn:
        return 1
    if b.color[p] != EMPTY:
        return 0
    nb = b.nbc[p]
    if nb & 15:
        # an empty neighbour is a liberty; p is then not the ko point
        # (a point just retaken in a ko has no empty neighbour)
        return 1
    return _legal_surrounded(b, p, c, nb)


cdef inline int _diag_ok(const board_t* b, int p, int c) noexcept nogil:
    """The diagonal half of the eye test: no opponent stone on a diagonal
    of an edge point, at most one in the centre (the four diagonal slots,
    off-board ones the sentinel, without branches)."""
    cdef int i, col, bad = 0, off = 0
    for i in range(4):
        col = b.color[b.g.diag[p][i]]
        bad += col == 3 - c
        off |= col == OFFBOARD
    return bad + off < 2


cdef inline int board_is_eye(const board_t* b, int p, int c) noexcept nogil:
    """p is a true (one-point) eye of colour c: all neighbours c and the
    diagonals not controlled by the opponent (none on the edge, at most one
    in the centre)."""
    if b.color[p] != EMPTY or ((b.nbc[p] >> (4 * c)) & 15) != b.g.n_nbr[p]:
        return 0
    return _diag_ok(b, p, c)


cdef inline int board_playable(const board_t* b, int p, int c) noexcept nogil:
    """The random-policy test for an empty point p: colour c may play it
    under simple ko and it is not a true own eye; same answer as
    ``not board_is_eye(b, p, c) and board_legal(b, p, c)``, with one read
    of p's neighbour counts in the common case."""
    cdef const geom_t* g = b.g
    cdef int nb = b.nbc[p]
    if nb & 15:
        return 1    # an empty neighbour: a liberty, no eye, and not the ko point
                    # (a point just retaken in a ko has no empty neighbour)
    if ((nb >> (4 * c)) & 15) == g.n_nbr[p] and _diag_ok(b, p, c):
        return 0        # a true eye of c
    return _legal_surrounded(b, p, c, nb)


cdef inline uint64_t rng_next(rng_t* r) noexcept nogil:
    # xorshift64*
    r.s ^= r.s >> 12
    r.s ^= r.s << 25
    r.s ^= r.s >> 27
    return r.s * <uint64_t>2685821657736338717


cdef inline int rng_int(rng_t* r, int n) noexcept nogil:
    """Uniform in [0, n) (Lemire's multiply-shift; n < 2**32)."""
    return <int>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)


cdef inline double rng_double(rng_t* r) noexcept nogil:
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)
