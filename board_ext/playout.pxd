# See playout.pyx for details.
from libc.stdint cimport int16_t, uint64_t
from board_ext.board cimport board_t, rng_t

# A rollout policy: the move (or pass = nn) for b.to_move. ctx is the policy's
# own state (NULL for the built-in ones); BHRF passes its forest here.
ctypedef int (*policy_fn)(board_t* b, rng_t* rng, void* ctx) noexcept nogil

cdef enum:
    POLICY_RANDOM = 0
    POLICY_EXPERT = 1
    POLICY_MOGGY = 2

cdef int random_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil
cdef int expert_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil
cdef int moggy_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil
cdef int pattern_match(const board_t* b, int p) noexcept nogil
cdef policy_fn get_policy(int policy_id) noexcept nogil
cdef double run_playout(board_t* b, rng_t* rng, policy_fn policy, void* ctx, double komi,
                        int max_moves, int16_t* moves_out, int* n_moves,
                        signed char* owner) noexcept nogil

# moggy's rule probabilities (* 2**32), one table per engine: the ctx of moggy_move
ctypedef struct moggy_t:
    uint64_t rate[16]

cdef class MoggyRates:
    cdef moggy_t m
