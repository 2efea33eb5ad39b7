# See tactics.pyx for details. ladder_captures / ladder_works read from a copy
# (const board); the _n forms bound the positions read; the _inplace forms play
# on the caller's own board and leave it exactly as it was.
from board_ext.board cimport board_t

cdef enum:
    MAX_ADJ = 32               # adjacent attacker chains in atari looked at

cdef int atari_neighbours(const board_t* b, int r, int* out) noexcept nogil

cdef int chain_libs_after(const board_t* b, int p, int c) noexcept nogil
cdef bint ladder_captures(const board_t* b, int chain_pt, int max_depth) noexcept nogil
cdef bint ladder_works(const board_t* b, int atari_move, int attacker, int max_depth) noexcept nogil
cdef bint ladder_captures_n(const board_t* b, int chain_pt, int max_depth, int max_nodes) noexcept nogil
cdef bint ladder_works_n(const board_t* b, int atari_move, int attacker, int max_depth,
                         int max_nodes) noexcept nogil
cdef bint ladder_captures_inplace(board_t* b, int chain_pt, int max_depth, int max_nodes) noexcept nogil
cdef bint ladder_works_inplace(board_t* b, int atari_move, int attacker, int max_depth,
                               int max_nodes) noexcept nogil
