# The node store of the search tree: see pool.pyx.  The tree policies
# (tree_uct.pyx, tree_rave.pyx, behind tree_policy.pxd) and the walk
# (walk.pyx) work on a NodePool through the fields and helpers declared here.
from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint64_t
from board_ext.board cimport board_t, rng_t, rng_int, MAXNN, BLACK
from board_ext.playout cimport policy_fn
from engine.tree_params cimport rave_params_t, uct_params_t

cdef enum:
    NO_LEAD = -32768              # SB of a node without the score head's lead
    FULL_STOP = 0
    FULL_STUNT = 1
    FULL_ENSEMBLE = 2
    FULL_FLATTEN = 3
    FULL_RECYCLE = 4
    FULL_FUEGO_GC = 5
    IN_LRU = 1
    EXPANDED = 2          # rave: the node has (had) all its children
    NET_DONE = 4          # rave: the net's priors were added to the children
    NET_PEND = 8          # rave: a net request for the node is out
    EXPANDING = 16        # rave, threaded: one thread is making the node's children
    NOT_PLAYED = 0x7FFF
    MAXSEQ = 3 * MAXNN + 600
    MAXDEPTH = 600

# Called after every simulation with the whole descent + rollout sequence:
# moves[0..n) alternate colours starting with first_color; n_tree of them
# were played in the tree; black_reward in [0, 1].
ctypedef void (*descent_fn)(void* ctx, const int16_t* moves, int n, int n_tree,
                            int first_color, double black_reward) noexcept nogil

cdef class NodePool:
    # -- constant during a search (set from config; each read by the policy named)
    cdef int capacity             # nodes in the pool (Phi)
    cdef int full_policy          # FULL_* above
    cdef int gc_threshold
    cdef bint whole_child_sets    # recycling frees all children of a node (rave) or one leaf (uct)
    cdef rave_params_t rp         # the rave kernel's knobs (engine/tree_params.pxd; Tree.set_params)
    cdef uct_params_t up          # the uct kernel's knobs
    cdef double komi
    cdef int max_rollout_moves
    cdef bint use_memory
    cdef double lambda_c
    cdef bint lambda_capped
    cdef double value_lambda      # weight of the value head in a simulation's result (search.value_lambda)
    cdef bint value_apart         # rave.value_backup on a rave tree: the value in each node's mean, not in the results
    cdef int net_budget           # net requests left in this search
    # -- external hooks (rollout policy, descent callback)
    cdef policy_fn rollout_fn
    cdef void* rollout_ctx
    cdef descent_fn descent_cb
    cdef void* descent_ctx
    cdef object hook_owner        # keeps the owner of the ctx pointers alive
    cdef object moggy_owner       # this tree's MoggyRates (moggy rollouts' ctx), or None
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
    cdef float* aN                # AMAF visits (NULL unless a tree reads them: want_arrays)
    cdef float* aW                # AMAF rewards
    cdef float* NM                # memory evaluations N_M (M-MCTS; NULL unless the memory is on)
    cdef float* VM                # memory value V_M, for the player who made `move`
    cdef float* VB                # the value head's P(black wins) at the node; -1 if none
    cdef float *VN, *VW           # rave.value_backup (else NULL): the subtree's value evaluations and their sum (mover's)
    cdef int16_t* SB              # the score head's lead at the node, black's view, in 1/32 point; NO_LEAD if none
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
    cdef int node_bytes           # bytes a node: the sum over the per-node arrays
    # pending leaves of a batch (virtual loss)
    cdef int32_t* pend_path       # [batch][MAXDEPTH]
    cdef int* pend_len
    cdef int16_t* pend_moves      # [batch][MAXSEQ]
    cdef int* pend_nmoves
    cdef board_t* pend_boards
    cdef int pend_cap, n_pend
    cdef double* ens_visits       # ensemble: accumulated root visits per move
    cdef double* ens_wins         # ensemble: accumulated root rewards per move
    cdef double* score_n          # [nn+2] simulations by the root's move (nn+1: all), this root
    cdef double* score_sum        # their final scores (black minus white, komi in), summed
    cdef double* score_sq         # and their squares
    cdef double* lead_n           # [nn+2] the same for the score head's leads backed up (the deepest node
    cdef double* lead_sum         # of the path with a lead, as the value: KataGo's scoreLead), their sum
    cdef double* lead_sq          # and their squares
    cdef uint8_t* root_forbid     # [nn+1] moves positional superko forbids at the root
    cdef uint8_t* deep_forbid     # [2][nn+1] moves a colour may not play below the root (analysis untilDepth)
    cdef int deep_until[2]        # ... at nodes fewer than this many moves from the root (0: none)
    cdef bint has_deep            # any deep_until > 0
    cdef bint has_leads           # some node was given a lead (SB): simulations back leads up
    # net requests of the rave tree: nodes that reached net_visits, their positions
    cdef int32_t* req_node
    cdef int16_t* req_move
    cdef int32_t* req_parent
    cdef board_t* req_boards
    cdef int req_cap, n_req
    # threads on one tree (walk.pyx simulate_threads)
    cdef bint mt                  # a threaded search is running: atomics, no LRU, no recycling
    cdef int32_t req_head, req_tail   # threads: the request queue (a ring over the req_* slots)
    cdef int32_t* req_seq         # threads: slot i holds request h when req_seq[i] == h + 1
    cdef int alloc_lock           # spin lock of _alloc_many
    # -- node store (see pool.pyx)
    cdef void* _node_array(self, size_t elem)
    cpdef want_arrays(self, bint amaf, bint memory, bint value_backup=*)
    cdef float* _zeroed_array(self, str what) except NULL
    cdef void _reset_pool(self) noexcept nogil
    cdef int _alloc_raw(self) noexcept nogil
    cdef void _init_node(self, int n, int par, int m) noexcept nogil
    cdef void _reset_scores(self) noexcept nogil
    cdef void _link_child(self, int node, int n) noexcept nogil
    cdef void _lru_remove(self, int n) noexcept nogil
    cdef void _lru_push_back(self, int n) noexcept nogil
    cdef void _release(self, int n) noexcept nogil
    cdef void _free_children(self, int n) noexcept nogil
    cdef int _recycle(self) noexcept nogil
    cdef int _recycle_children(self) noexcept nogil
    cdef int _new_node(self) noexcept nogil
    cdef int _alloc_many(self, int k, int32_t* out) noexcept nogil
    cdef int _n_children(self, int node) noexcept nogil
    cdef void _after_full(self) noexcept nogil
    cdef int _gc(self, double threshold) noexcept nogil
    cdef void _collect(self) noexcept nogil



cdef inline uint16_t p_code(double p) noexcept nogil:
    """A probability in [0, 1] as 16 bits (the node keeps P in 2 bytes)."""
    if p <= 0:
        return 0
    if p >= 1:
        return 65535
    return <uint16_t>(p * 65535.0 + 0.5)


cdef inline double p_value(uint16_t code) noexcept nogil:
    """The probability a p_code stands for."""
    return code * (1.0 / 65535.0)


cdef inline double reward_for(int color, double black_reward) noexcept nogil:
    return black_reward if color == BLACK else 1.0 - black_reward


cdef inline bint pick_better(rng_t* rng, double score, double* bestscore, int* ties) noexcept nogil:
    """A candidate of this score takes the lead: above the best so far,
    or level with it and drawn among the ties at random (reservoir)."""
    if score > bestscore[0]:
        bestscore[0] = score
        ties[0] = 1
        return True
    if score == bestscore[0]:
        ties[0] += 1
        return rng_int(rng, ties[0]) == 0
    return False


cdef inline const uint8_t* deep_mask(NodePool t, int node, int col) noexcept nogil:
    """The moves colour ``col`` may not play from ``node`` (analysis
    avoid/allow with an untilDepth past the root: Tree.set_deep_forbidden),
    or NULL: none at this depth.  Depth is counted up the parent links
    from the root (0 at the root)."""
    cdef int d = 0, x = node, until
    if not t.has_deep or col < 1 or col > 2:
        return NULL
    until = t.deep_until[col - 1]
    if until <= 0:
        return NULL
    while x != t.root and x >= 0 and d < until:
        x = t.parent[x]
        d += 1
    if d >= until:
        return NULL
    return &t.deep_forbid[(col - 1) * (t.nn + 1)]


cdef inline double memory_blend(NodePool t, int c, double q, double n) noexcept nogil:
    """M-MCTS: (1 - lambda_s) V + lambda_s V_M when the memory is on.  The paper gives no
    formula for lambda_s, only that it is "a decay parameter to guarantee no bias
    asymptotically".  "capped" (the default): lambda_s = min(N_M, c) / (min(N_M, c) + N), the
    memory's estimate worth at most c of the node's own visits, as the Gelly-Silver prior is
    worth N0: lambda_s <= c / (c + N), which goes to 0 as the node's own visits grow.
    "share": lambda_s = N_M / (N_M + N + c), the memory's share of all counts; N_M of an inner
    node sums the decayed N_M of every node added below it (equation 9), so it grows with the
    subtree and lambda_s stays near 1/2 or above at any budget: it does not decay."""
    cdef double nm, lam
    if not (t.use_memory and t.NM[c] > 0):
        return q
    nm = t.NM[c]
    if t.lambda_capped:
        if nm > t.lambda_c:
            nm = t.lambda_c
        lam = nm / (nm + n)
    else:
        lam = nm / (nm + n + t.lambda_c)
    return (1.0 - lam) * q + lam * t.VM[c]
