# See pool.pyx for details.
from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint64_t
from board_ext.board cimport board_t, rng_t
from board_ext.playout cimport policy_fn

# Called after every simulation with the whole descent + rollout sequence:
# moves[0..n) alternate colours starting with first_color; n_tree of them
# were played in the tree; black_reward in [0, 1].
ctypedef void (*descent_fn)(void* ctx, const int16_t* moves, int n, int n_tree,
                            int first_color, double black_reward) noexcept nogil

cdef class Tree:
    # -- constant during a search (set from config)
    cdef int capacity             # nodes in the pool (Phi)
    cdef int full_policy          # FULL_* below
    cdef int gc_threshold
    cdef int tree_policy          # 0 UCB1, 1 PUCT
    cdef bint rave
    cdef double K, K_prior, c_puct, rave_equiv, cnn_strength, vloss, komi
    cdef int max_rollout_moves
    cdef bint use_memory
    cdef double lambda_c
    cdef bint lambda_capped
    cdef int tree_mode            # TREE_UCT (one node a simulation) or TREE_RAVE (all children)
    cdef int expand_visits        # TREE_RAVE: real visits before a leaf gets its children
    cdef double prior_scale       # TREE_RAVE: multiplies the prior knowledge's counts
    cdef double net_equiv         # TREE_RAVE: net prior visits at value 1 per sqrt(p)
    cdef double value_lambda      # TREE_RAVE: weight of the value head in a simulation's result
    cdef double value_prior       # TREE_RAVE: virtual visits at the value head's value on an evaluated node
    cdef double fpu               # TREE_RAVE: value of a child with no statistics at all
    cdef double net_visits        # TREE_RAVE: real visits before a node asks the net
    cdef int net_budget           # net requests left in this search
    # -- external hooks (rollout policy, descent callback)
    cdef policy_fn rollout_fn
    cdef void* rollout_ctx
    cdef descent_fn descent_cb
    cdef void* descent_ctx
    cdef object hook_owner        # keeps the owner of the ctx pointers alive
    # -- node pool (structure of arrays)
    cdef int16_t* move            # move into the node; -1 for the root
    cdef int16_t* n_untried       # legal moves not yet children; -1 = not counted
    cdef int32_t* parent          # -1 for the root / free nodes
    cdef int32_t* first_child     # -1 if leaf
    cdef int32_t* next_sibling    # next child of the parent; free-list link when free
    cdef int32_t* lru_prev        # queue Theta of non-leaf nodes (Powley et al.)
    cdef int32_t* lru_next
    cdef int32_t* prior_slot      # row of the priors table, -1 if none
    cdef float* N                 # real visits (simulations through the node)
    cdef float* W                 # summed real rewards for the player who made `move`
    cdef float* N0                # prior visits (equivalent experience), kept apart
    cdef float* W0                # prior wins, kept apart
    cdef uint16_t* P              # prior probability of `move` at the parent, in 1/65535
    cdef float* aN                # AMAF visits
    cdef float* aW                # AMAF rewards
    cdef float* NM                # memory evaluations N_M (M-MCTS)
    cdef float* VM                # memory value V_M, for the player who made `move`
    cdef float* VB                # the value head's P(black wins) at the node; -1 if none
    cdef uint8_t* flags           # IN_LRU | EXPANDED | NET_DONE | NET_PEND
    # -- mutable tree state
    cdef int root
    cdef int free_head            # free list through next_sibling
    cdef int bump                 # nodes [bump, capacity) never used yet
    cdef int n_used
    cdef int lru_head, lru_tail
    cdef long recycled, sims, expansions
    cdef long rollout_moves     # rollout moves over the sims since the last reset
    cdef bint stopped_full
    cdef board_t* root_board
    cdef rng_t rng
    # priors table: rows of nn+1 floats for the nodes that got net priors
    cdef float* priors
    cdef int prior_rows, prior_used, prior_alloc   # most rows, rows in use, rows allocated
    cdef int nn
    # pending leaves of a batch (virtual loss)
    cdef int32_t* pend_path       # [batch][MAXDEPTH]
    cdef int* pend_len
    cdef int16_t* pend_moves      # [batch][MAXSEQ]
    cdef int* pend_nmoves
    cdef board_t* pend_boards
    cdef int pend_cap, n_pend
    cdef double* ens_visits       # ensemble: accumulated root visits per move
    cdef double* ens_wins         # ensemble: accumulated root rewards per move
    cdef uint8_t* root_forbid     # [nn+1] moves positional superko forbids at the root
    # net requests of TREE_RAVE: nodes that reached net_visits, their positions
    cdef int32_t* req_node
    cdef int16_t* req_move
    cdef int32_t* req_parent
    cdef board_t* req_boards
    cdef int req_cap, n_req
    # -- methods (see pool.pyx)
    cdef void _reset_pool(self) noexcept nogil
    cdef int _alloc_raw(self) noexcept nogil
    cdef void _init_node(self, int n, int par, int m) noexcept nogil
    cdef void _lru_remove(self, int n) noexcept nogil
    cdef void _lru_push_back(self, int n) noexcept nogil
    cdef void _release(self, int n) noexcept nogil
    cdef void _free_children(self, int n) noexcept nogil
    cdef int _recycle(self) noexcept nogil
    cdef int _recycle_children(self) noexcept nogil
    cdef int _new_node(self) noexcept nogil
    cdef int _legal_count(self, int node, const board_t* b) noexcept nogil
    cdef int _n_children(self, int node) noexcept nogil
    cdef int _random_untried(self, int node, const board_t* b) noexcept nogil
    cdef bint _better(self, double score, double* bestscore, int* ties) noexcept nogil
    cdef double _child_value(self, int c) noexcept nogil
    cdef int _select(self, int node, const board_t* b, int* untried_move) noexcept nogil
    cdef int _expand(self, int node, int m, const board_t* b) noexcept nogil
    cdef int _expand_all(self, int node, const board_t* b) noexcept nogil
    cdef int _select_rave(self, int node) noexcept nogil
    cdef int _descend_rave(self, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil
    cdef void _amaf_first(self, int32_t* path, int depth, const int16_t* moves, int nmoves, double black_reward, int root_color) noexcept nogil
    cdef int _descend(self, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil
    cdef void _after_full(self) noexcept nogil
    cdef int _gc(self, double threshold) noexcept nogil
    cdef void _backup(self, int32_t* path, int depth, double black_reward, double vloss, int root_color) noexcept nogil
    cdef void _amaf(self, int32_t* path, int depth, const int16_t* moves, int nmoves, double black_reward, int root_color) noexcept nogil
    cdef double _finish(self, board_t* bd, int32_t* path, int depth, int16_t* moves, int ntree, double vloss) noexcept nogil
