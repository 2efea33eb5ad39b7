# See board.pyx for details.
from libc.stdint cimport uint64_t, int16_t, uint8_t, int32_t, uint16_t

cdef enum:
    MAXSIZE = 19
    MAXNN = 361            # MAXSIZE * MAXSIZE
    MAXW = 6               # uint64 words for MAXNN bits
    NHIST = 8              # last moves kept for input planes
    EMPTY = 0
    BLACK = 1
    WHITE = 2

# Geometry of one board size, shared by every board of that size.
ctypedef struct geom_t:
    int size               # side length, 2..19
    int nn                 # size * size; also the pass move
    int nw                 # uint64 words per bitset: ceil(nn / 64)
    int16_t nbr[MAXNN][4]  # orthogonal neighbours, first n_nbr valid
    uint8_t n_nbr[MAXNN]   # 2..4 (1 on a 1-wide board never happens)
    int16_t diag[MAXNN][4] # diagonal neighbours, first n_diag valid
    uint8_t n_diag[MAXNN]
    int16_t nbr8[MAXNN][8]   # 3x3 ring NW N NE W E SW S SE (rows top first), -1 off-board

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
    uint8_t color[MAXNN]   # EMPTY/BLACK/WHITE per point
    uint16_t nbc[MAXNN]    # neighbour counts: bits 0-3 empty, 4-7 black, 8-11 white
    int16_t chain[MAXNN]   # representative point of the chain at p (stones only)
    int16_t chain_size[MAXNN]    # stones of chain, valid at the representative
    int16_t empty_list[MAXNN]    # the empty points, unordered
    int16_t empty_pos[MAXNN]     # index of p in empty_list, valid when empty
    uint64_t libs[MAXNN * MAXW]  # liberty bitset of chain r at [r*nw .. r*nw+nw)
    uint64_t stones[MAXNN * MAXW]  # stone bitset of chain r, same layout

ctypedef struct rng_t:
    uint64_t s

cdef const geom_t* get_geom(int size) except NULL
cdef void board_init(board_t* b, const geom_t* g) noexcept nogil
cdef void board_copy(board_t* dst, const board_t* src) noexcept nogil
cdef int board_legal(const board_t* b, int p, int c) noexcept nogil
cdef int board_illegal_reason(const board_t* b, int p, int c) noexcept nogil
cdef int board_play(board_t* b, int p, int c) noexcept nogil
cdef int board_is_eye(const board_t* b, int p, int c) noexcept nogil
cdef int board_libs(const board_t* b, int p) noexcept nogil
cdef int board_chain_lib(const board_t* b, int p) noexcept nogil
cdef uint64_t board_hash_after(const board_t* b, int p, int c) noexcept nogil
cdef double board_score(const board_t* b, double komi, signed char* owner) noexcept nogil
cdef uint64_t rng_next(rng_t* r) noexcept nogil
cdef int rng_int(rng_t* r, int n) noexcept nogil
cdef double rng_double(rng_t* r) noexcept nogil

cdef class Board:
    cdef board_t* b            # owned, never NULL after __cinit__
    cdef uint64_t* history     # positional hashes of every position so far
    cdef int n_history
    cdef int cap_history
    cdef public bint superko   # enforce positional superko in play/is_legal
    cdef int _check(self, int p, int c) except -2
    cdef void _push_history(self, uint64_t h) except *
