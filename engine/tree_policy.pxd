# The interface of a tree policy (Pachi's uct/policy/*.c in spirit): one
# struct of functions, named once in walk.pyx's tree_policy_named.  The walk
# calls descend once a simulation, then the rollout, backup (walk.pyx) and
# update; value is what selection and the analysis read of a child;
# prepare_root runs before a search.
from libc.stdint cimport int16_t, int32_t
from board_ext.board cimport board_t, rng_t
from engine.pool cimport NodePool

# from the root to a leaf: plays the moves on bd, fills path (node ids) and
# moves (moves[i] into path[i+1]); returns the path length, negated when the
# last move was played without a node (a stunted expansion)
ctypedef int (*descend_fn)(NodePool t, board_t* bd, int32_t* path, int16_t* moves,
                           double vloss) noexcept nogil
# the same, run by one of several threads on one tree (walk.pyx's
# simulate_threads): the thread's own random generator; atomic updates,
# expansion claimed by one thread and published whole, no recycling
ctypedef int (*descend_mt_fn)(NodePool t, board_t* bd, int32_t* path, int16_t* moves,
                              double vloss, rng_t* rng) noexcept nogil
# the value selection uses for child c (N + N0 > 0, or the policy's first-play value)
ctypedef double (*value_fn)(NodePool t, int c) noexcept nogil
# after backup: AMAF statistics from the whole sequence moves[0..nmoves)
ctypedef void (*update_fn)(NodePool t, int32_t* path, int depth, const int16_t* moves,
                           int nmoves, double black_reward, int root_color) noexcept nogil
# before a search: give the root what the policy needs (children, for rave)
ctypedef void (*prepare_root_fn)(NodePool t) noexcept nogil
# the visits of virtual loss a pending descent holds (its own params' virtual_loss)
ctypedef double (*vloss_fn)(NodePool t) noexcept nogil

ctypedef struct tree_policy_t:
    const char* name
    descend_fn descend
    descend_mt_fn descend_mt      # NULL: the policy cannot run threaded
    value_fn value
    update_fn update
    prepare_root_fn prepare_root
    vloss_fn virtual_loss
    bint whole_child_sets     # expands all children at once; recycling frees them together
    bint always_amaf          # reads AMAF (aN/aW) whatever its params (rave); else only as they say (uct.rave)
