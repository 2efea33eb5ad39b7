# cython: language_level=3
"""The search tree in a fixed node pool, and the simulation loop.

Owns: the node pool (structure of arrays allocated up front, ``capacity``
nodes; no Python object per node), the policies for a full pool (Powley,
Cowling & Whitehouse, "Memory Bounded Monte Carlo Tree Search"), and one
MCTS simulation ``select -> expand -> rollout -> backup`` in ``nogil`` code.
Never imports torch; the evaluator is reached from engine/search.py.

Bytes per node: 63 (move 2, n_untried 2, parent/first_child/next_sibling 12,
lru_prev/lru_next 8, prior_slot 4, N/W 8, N0/W0 8, P 2, aN/aW 8, NM/VM 8,
flags 1), ``BYTES_PER_NODE``.  The paper's C++ nodes are 48 to 56 bytes.

Two trees (``search.tree``).  ``rave`` (the default, Fuego/Pachi style): a
leaf gets a child for every legal move at once after ``expand_visits`` real
visits; each child starts with a few visits of prior knowledge
(``board_ext/priors.pyx``) kept apart from its real statistics (N0, W0) and
as its first AMAF statistics; selection maximises the RAVE blend (no
exploration term by default); the net, where it runs, adds its priors to
the children of the nodes that reach ``net_visits`` (queued and answered
between simulations, so no descent waits for it).  ``uct`` is the first
round's tree, described next, kept for the paper reproductions.

Tree layout.  Left-child right-sibling, one node per move (the paper's
Figure 1).  Expansion adds one node per simulation: the first move chosen at
a node that is not yet a child ("untried").  Without priors an untried move
has an infinite UCB1 value and is drawn uniformly; with net priors
(Gelly & Silver 2007, as the M-MCTS paper uses them) an untried move m has
``V0 = 0.5 * (1 + p_m / p_max)`` and ``N0 = cnn_strength * p_m / p_max``,
which become the new child's initial statistics.

Values.  ``W[n] / N[n]`` is the mean reward, in [0, 1], of the player who
played ``move[n]``; a parent maximises it over its children.

Node recycling.  Theta is an intrusive doubly linked queue of non-leaf
nodes: a node leaves Theta while a descent passes through it and is pushed
to the back when backup updates it, so the front is the least recently
updated non-leaf node and its children are the least recently accessed
leaves; when the pool is empty the first child of the front node is
recycled (O(1)).
"""
from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset, memcpy
from libc.math cimport log, sqrt, INFINITY
from board_ext.board cimport (board_t, rng_t, Board, board_copy, board_play, board_legal,
                              board_is_eye, board_playable, board_score, rng_int, rng_next, rng_double,
                              MAXNN, EMPTY, BLACK, WHITE)
from board_ext.playout cimport policy_fn, get_policy, run_playout
from board_ext.priors cimport move_prior
from board_ext.bhrf cimport Forest, bhrf_move, bhrf_update
cimport numpy as cnp
import numpy as np
from board_ext.playout import POLICIES

cnp.import_array()

cdef enum:
    FULL_STOP = 0
    FULL_STUNT = 1
    FULL_ENSEMBLE = 2
    FULL_FLATTEN = 3
    FULL_RECYCLE = 4
    FULL_FUEGO_GC = 5
    IN_LRU = 1
    EXPANDED = 2          # TREE_RAVE: the node has (had) all its children
    NET_DONE = 4          # TREE_RAVE: the net's priors were added to the children
    NET_PEND = 8          # TREE_RAVE: a net request for the node is out
    TREE_UCT = 0
    TREE_RAVE = 1
    NOT_PLAYED = 0x7FFF
    MAXSEQ = 3 * MAXNN + 600
    MAXDEPTH = 600

FULL_POLICIES = {"stop": FULL_STOP, "stunt": FULL_STUNT, "ensemble": FULL_ENSEMBLE,
                 "flatten": FULL_FLATTEN, "recycle": FULL_RECYCLE, "fuego_gc": FULL_FUEGO_GC}
BYTES_PER_NODE = 2 + 2 + 4 * 3 + 4 * 2 + 4 + 4 * 2 + 2 + 4 * 2 + 4 * 2 + 4 * 2 + 1
TREES = {"uct": TREE_UCT, "rave": TREE_RAVE}


cdef double P_UNIT = 1.0 / 65535.0


cdef inline uint16_t p_code(double p) noexcept nogil:
    """A probability in [0, 1] as 16 bits (the node keeps P in 2 bytes)."""
    if p <= 0:
        return 0
    if p >= 1:
        return 65535
    return <uint16_t>(p * 65535.0 + 0.5)


cdef inline double reward_for(int color, double black_reward) noexcept nogil:
    return black_reward if color == BLACK else 1.0 - black_reward


cdef class Tree:
    """A search tree over a fixed pool of ``capacity`` nodes.

    Args:
        size: board size.
        capacity: pool size Phi (>= 2).
        full_policy: stop | stunt | ensemble | flatten | recycle | fuego_gc.
        prior_rows: how many nodes may hold priors in one search (dcnn_nodes;
            at most capacity + 1; the table grows to it as needed).
    """

    def __cinit__(self, int size, int capacity, full_policy="recycle", int prior_rows=128,
                  int batch=64, uint64_t seed=1):
        if capacity < 2:
            raise ValueError(f"pool.pool_size must be at least 2, got {capacity}")
        if full_policy not in FULL_POLICIES:
            raise ValueError(f"pool.full_policy: unknown policy '{full_policy}'")
        self.nn = size * size
        self.capacity = capacity
        self.full_policy = FULL_POLICIES[full_policy]
        self.gc_threshold = 16
        self.tree_policy = 0
        self.rave = False
        self.K = 0.7
        self.K_prior = 0.0
        self.c_puct = 1.5
        self.rave_equiv = 1000.0
        self.cnn_strength = 200.0
        self.vloss = 1.0
        self.komi = 7.5
        self.max_rollout_moves = 3 * self.nn
        self.use_memory = False
        self.lambda_c = 100.0
        self.lambda_capped = False
        self.tree_mode = TREE_UCT
        self.expand_visits = 3
        self.prior_scale = 1.0
        self.net_equiv = 30.0
        self.value_lambda = 0.0
        self.value_prior = 0.0
        self.fpu = 1.0
        self.net_visits = 16
        self.net_budget = 0
        self.rollout_fn = get_policy(1)
        self.rollout_ctx = NULL
        self.descent_cb = NULL
        self.descent_ctx = NULL
        self.move = <int16_t*>malloc(capacity * sizeof(int16_t))
        self.n_untried = <int16_t*>malloc(capacity * sizeof(int16_t))
        self.parent = <int32_t*>malloc(capacity * sizeof(int32_t))
        self.first_child = <int32_t*>malloc(capacity * sizeof(int32_t))
        self.next_sibling = <int32_t*>malloc(capacity * sizeof(int32_t))
        self.lru_prev = <int32_t*>malloc(capacity * sizeof(int32_t))
        self.lru_next = <int32_t*>malloc(capacity * sizeof(int32_t))
        self.prior_slot = <int32_t*>malloc(capacity * sizeof(int32_t))
        self.N = <float*>malloc(capacity * sizeof(float))
        self.W = <float*>malloc(capacity * sizeof(float))
        self.N0 = <float*>malloc(capacity * sizeof(float))
        self.W0 = <float*>malloc(capacity * sizeof(float))
        self.P = <uint16_t*>malloc(capacity * sizeof(uint16_t))
        self.aN = <float*>malloc(capacity * sizeof(float))
        self.aW = <float*>malloc(capacity * sizeof(float))
        self.NM = <float*>malloc(capacity * sizeof(float))
        self.VM = <float*>malloc(capacity * sizeof(float))
        self.VB = <float*>malloc(capacity * sizeof(float))
        self.flags = <uint8_t*>malloc(capacity * sizeof(uint8_t))
        # no more nodes than the pool holds can have priors in one search;
        # the table grows on demand up to that (set_priors)
        self.prior_rows = max(min(prior_rows, capacity + 1), 1)
        self.prior_alloc = min(self.prior_rows, 128)
        self.priors = <float*>malloc(<size_t>self.prior_alloc * (self.nn + 1) * sizeof(float))
        self.root_board = <board_t*>malloc(sizeof(board_t))
        self.pend_cap = max(batch, 1)
        self.pend_path = <int32_t*>malloc(self.pend_cap * MAXDEPTH * sizeof(int32_t))
        self.pend_len = <int*>malloc(self.pend_cap * sizeof(int))
        self.pend_moves = <int16_t*>malloc(self.pend_cap * MAXSEQ * sizeof(int16_t))
        self.pend_nmoves = <int*>malloc(self.pend_cap * sizeof(int))
        self.pend_boards = <board_t*>malloc(self.pend_cap * sizeof(board_t))
        self.ens_visits = <double*>calloc(self.nn + 1, sizeof(double))
        self.ens_wins = <double*>calloc(self.nn + 1, sizeof(double))
        self.root_forbid = <uint8_t*>calloc(self.nn + 1, sizeof(uint8_t))
        self.req_cap = max(batch, 1)
        self.n_req = 0
        self.req_node = <int32_t*>malloc(self.req_cap * sizeof(int32_t))
        self.req_move = <int16_t*>malloc(self.req_cap * sizeof(int16_t))
        self.req_parent = <int32_t*>malloc(self.req_cap * sizeof(int32_t))
        self.req_boards = <board_t*>malloc(self.req_cap * sizeof(board_t))
        if (not self.N0 or not self.W0 or not self.req_node or not self.req_move
                or not self.req_parent or not self.req_boards):
            raise MemoryError(f"cannot allocate a pool of {capacity} nodes")
        if (not self.move or not self.n_untried or not self.parent or not self.first_child
                or not self.next_sibling or not self.lru_prev or not self.lru_next
                or not self.prior_slot or not self.N or not self.W or not self.P or not self.aN
                or not self.aW or not self.NM or not self.VM or not self.VB or not self.flags or not self.priors
                or not self.root_board or not self.pend_path or not self.pend_boards
                or not self.pend_moves or not self.ens_visits or not self.ens_wins or not self.root_forbid):
            raise MemoryError(f"cannot allocate a pool of {capacity} nodes")
        self.rng.s = seed * <uint64_t>0x9E3779B97F4A7C15 + 12345
        self.n_pend = 0
        self._reset_pool()

    def __dealloc__(self):
        free(self.move); free(self.n_untried); free(self.parent); free(self.first_child)
        free(self.next_sibling); free(self.lru_prev); free(self.lru_next); free(self.prior_slot)
        free(self.N); free(self.W); free(self.P); free(self.aN); free(self.aW); free(self.NM)
        free(self.VM); free(self.VB); free(self.flags); free(self.priors); free(self.root_board)
        free(self.pend_path); free(self.pend_len); free(self.pend_moves); free(self.pend_nmoves)
        free(self.pend_boards); free(self.ens_visits); free(self.ens_wins); free(self.root_forbid)
        free(self.N0); free(self.W0); free(self.req_node); free(self.req_move); free(self.req_parent)
        free(self.req_boards)

    # ------------------------------------------------------------ config
    def configure(self, *, K=None, K_prior=None, c_puct=None, tree_policy=None, rave=None, rave_equiv=None,
                  cnn_strength=None, vloss=None, komi=None, rollout=None, max_rollout_moves=None,
                  gc_threshold=None, use_memory=None, lambda_c=None, lambda_schedule=None, seed=None,
                  tree=None, expand_visits=None, prior_scale=None, net_equiv=None, fpu=None,
                  net_visits=None, value_lambda=None, value_prior=None):
        """Set search constants (names as in the papers)."""
        if tree is not None:
            if tree not in TREES:
                raise ValueError(f"search.tree: unknown tree '{tree}'")
            self.tree_mode = TREES[tree]
        if expand_visits is not None:
            if expand_visits < 1:
                raise ValueError("tree.expand_visits must be at least 1")
            self.expand_visits = expand_visits
        if prior_scale is not None: self.prior_scale = prior_scale
        if net_equiv is not None: self.net_equiv = net_equiv
        if value_lambda is not None:
            if not 0.0 <= value_lambda <= 1.0:
                raise ValueError("tree.value_lambda must be in [0, 1]")
            self.value_lambda = value_lambda
        if value_prior is not None:
            if value_prior < 0:
                raise ValueError("tree.value_prior must not be negative")
            self.value_prior = value_prior
        if fpu is not None: self.fpu = fpu
        if net_visits is not None: self.net_visits = net_visits
        if K is not None: self.K = K
        if K_prior is not None: self.K_prior = K_prior
        if c_puct is not None: self.c_puct = c_puct
        if tree_policy is not None:
            if tree_policy not in ("ucb1", "puct"):
                raise ValueError(f"search.policy: unknown tree policy '{tree_policy}'")
            self.tree_policy = 0 if tree_policy == "ucb1" else 1
        if rave is not None: self.rave = rave
        if rave_equiv is not None: self.rave_equiv = rave_equiv
        if cnn_strength is not None: self.cnn_strength = cnn_strength
        if vloss is not None: self.vloss = vloss
        if komi is not None: self.komi = komi
        if rollout is not None:
            if rollout not in POLICIES:
                raise ValueError(f"search.rollout: unknown rollout policy '{rollout}'")
            self.rollout_fn = get_policy(POLICIES[rollout])
            self.rollout_ctx = NULL
        if max_rollout_moves is not None:
            self.max_rollout_moves = max_rollout_moves if max_rollout_moves > 0 else 3 * self.nn
        if gc_threshold is not None: self.gc_threshold = gc_threshold
        if use_memory is not None: self.use_memory = use_memory
        if lambda_c is not None: self.lambda_c = lambda_c
        if lambda_schedule is not None:
            if lambda_schedule not in ("nm", "capped"):
                raise ValueError(f"unknown lambda schedule {lambda_schedule!r}")
            self.lambda_capped = lambda_schedule == "capped"
        if seed is not None:
            self.rng.s = (<uint64_t>seed) * <uint64_t>0x9E3779B97F4A7C15 + 12345
            if self.rng.s == 0:
                self.rng.s = 1

    # ------------------------------------------------------------ pool
    cdef void _reset_pool(self) noexcept nogil:
        self.free_head = -1
        self.bump = 0
        self.n_used = 0
        self.lru_head = -1
        self.lru_tail = -1
        self.recycled = 0
        self.sims = 0
        self.rollout_moves = 0
        self.expansions = 0
        self.stopped_full = False
        self.prior_used = 0
        self.n_req = 0
        self.root = self._alloc_raw()
        self._init_node(self.root, -1, -1)

    cdef int _alloc_raw(self) noexcept nogil:
        cdef int n
        if self.free_head >= 0:
            n = self.free_head
            self.free_head = self.next_sibling[n]
        elif self.bump < self.capacity:
            n = self.bump
            self.bump += 1
        else:
            return -1
        self.n_used += 1
        return n

    cdef void _init_node(self, int n, int par, int m) noexcept nogil:
        self.move[n] = m
        self.parent[n] = par
        self.first_child[n] = -1
        self.next_sibling[n] = -1
        self.n_untried[n] = -1
        self.prior_slot[n] = -1
        self.N[n] = 0
        self.W[n] = 0
        self.N0[n] = 0
        self.W0[n] = 0
        self.P[n] = 0
        self.aN[n] = 0
        self.aW[n] = 0
        self.NM[n] = 0
        self.VM[n] = 0
        self.VB[n] = -1
        self.flags[n] = 0
        self.lru_prev[n] = -1
        self.lru_next[n] = -1

    cdef void _lru_remove(self, int n) noexcept nogil:
        if not (self.flags[n] & IN_LRU):
            return
        cdef int p = self.lru_prev[n], q = self.lru_next[n]
        if p >= 0:
            self.lru_next[p] = q
        else:
            self.lru_head = q
        if q >= 0:
            self.lru_prev[q] = p
        else:
            self.lru_tail = p
        self.flags[n] &= ~IN_LRU

    cdef void _lru_push_back(self, int n) noexcept nogil:
        self._lru_remove(n)
        self.lru_prev[n] = self.lru_tail
        self.lru_next[n] = -1
        if self.lru_tail >= 0:
            self.lru_next[self.lru_tail] = n
        else:
            self.lru_head = n
        self.lru_tail = n
        self.flags[n] |= IN_LRU

    cdef void _release(self, int n) noexcept nogil:
        """Return one node to the free list."""
        self._lru_remove(n)
        self.parent[n] = -1
        self.first_child[n] = -1
        self.next_sibling[n] = self.free_head
        self.free_head = n
        self.n_used -= 1

    cdef void _free_children(self, int n) noexcept nogil:
        """Free every node below n (n stays, as a leaf)."""
        cdef int c = self.first_child[n], nxt, top = 0, x, y
        cdef int* stack
        if c < 0:
            return
        stack = <int*>malloc(self.capacity * sizeof(int))
        while c >= 0:
            stack[top] = c
            top += 1
            c = self.next_sibling[c]
        while top:
            top -= 1
            x = stack[top]
            y = self.first_child[x]
            while y >= 0:
                stack[top] = y
                top += 1
                y = self.next_sibling[y]
            self._release(x)
        free(stack)
        self.first_child[n] = -1
        self.n_untried[n] = -1
        self._lru_remove(n)

    cdef int _recycle(self) noexcept nogil:
        """Unlink and return the least recently accessed leaf, or -1."""
        cdef int v, c
        if self.tree_mode == TREE_RAVE:
            return self._recycle_children()
        while self.lru_head >= 0:
            v = self.lru_head
            c = self.first_child[v]
            if c < 0:
                self._lru_remove(v)
                continue
            if self.first_child[c] >= 0:
                # invariant broken (a non-leaf child): push v back, try the next
                self._lru_push_back(v)
                if self.lru_head == v:
                    return -1
                continue
            self.first_child[v] = self.next_sibling[c]
            if self.n_untried[v] >= 0:
                self.n_untried[v] += 1
            if self.first_child[v] < 0:
                self._lru_remove(v)
            self.recycled += 1
            return c
        return -1

    cdef int _recycle_children(self) noexcept nogil:
        """TREE_RAVE: free every child of the least recently updated node
        whose children are all leaves (it becomes a leaf and expands again
        when visited); returns one of the freed nodes, or -1."""
        cdef int v, c, nxt, k
        cdef bint leaves
        while self.lru_head >= 0:
            v = self.lru_head
            c = self.first_child[v]
            if c < 0:
                self._lru_remove(v)
                self.flags[v] &= ~(EXPANDED | NET_DONE)
                continue
            leaves = True
            while c >= 0:
                if self.first_child[c] >= 0:
                    leaves = False
                    break
                c = self.next_sibling[c]
            if not leaves:
                # invariant broken (a non-leaf child): push v back, try the next
                self._lru_push_back(v)
                if self.lru_head == v:
                    return -1
                continue
            c = self.first_child[v]
            k = 0
            while c >= 0:
                nxt = self.next_sibling[c]
                self._release(c)
                k += 1
                c = nxt
            self.first_child[v] = -1
            self._lru_remove(v)
            self.flags[v] &= ~(EXPANDED | NET_DONE)
            self.recycled += k
            return self._alloc_raw()
        return -1

    cdef int _new_node(self) noexcept nogil:
        """A node for expansion, or -1 when the pool policy says no."""
        cdef int n = self._alloc_raw()
        if n >= 0:
            return n
        if self.full_policy == FULL_RECYCLE:
            return self._recycle()
        self.stopped_full = True
        return -1

    # ------------------------------------------------------------ tree ops
    cdef int _legal_count(self, int node, const board_t* b) noexcept nogil:
        cdef int i, p, c = b.to_move, n = 1  # pass
        cdef bint at_root = node == self.root
        for i in range(b.n_empty):
            p = b.empty_list[i]
            if at_root and self.root_forbid[p]:
                continue
            if board_playable(b, p, c):
                n += 1
        return n

    cdef int _n_children(self, int node) noexcept nogil:
        cdef int c = self.first_child[node], k = 0
        while c >= 0:
            k += 1
            c = self.next_sibling[c]
        return k

    cdef int _random_untried(self, int node, const board_t* b) noexcept nogil:
        cdef uint8_t mark[MAXNN + 1]
        cdef int c = self.first_child[node], i, j, p, n = b.n_empty, col = b.to_move
        if node == self.root:
            memcpy(mark, self.root_forbid, self.nn + 1)
        else:
            memset(mark, 0, self.nn + 1)
        while c >= 0:
            mark[self.move[c]] = 1
            c = self.next_sibling[c]
        if n:
            j = rng_int(&self.rng, n)
            for i in range(n):
                p = b.empty_list[j]
                if not mark[p] and board_playable(b, p, col):
                    return p
                j += 1
                if j == n:
                    j = 0
        if not mark[self.nn]:
            return self.nn
        return -1

    cdef inline bint _better(self, double score, double* bestscore, int* ties) noexcept nogil:
        """A candidate of this score takes the lead: above the best so far,
        or level with it and drawn among the ties at random (reservoir)."""
        if score > bestscore[0]:
            bestscore[0] = score
            ties[0] = 1
            return True
        if score == bestscore[0]:
            ties[0] += 1
            return rng_int(&self.rng, ties[0]) == 0
        return False

    cdef double _child_value(self, int c) noexcept nogil:
        """The value selection uses (real and prior statistics together).
        TREE_UCT: the mean, blended with AMAF by beta = sqrt(k / (3n + k))
        when rave is on (n > 0).  TREE_RAVE: the mean and the AMAF mean by
        beta = aN / (aN + n + n aN / k) (Silver), fpu with no statistics.
        Then the M-MCTS memory blend when it is on."""
        cdef double n = self.N[c] + self.N0[c], q, beta, lam, nm, an
        if self.tree_mode == TREE_RAVE:
            an = self.aN[c]
            if self.rave and an > 0:
                if n > 0:
                    beta = an / (an + n + n * an / self.rave_equiv)
                    q = (1.0 - beta) * (self.W[c] + self.W0[c]) / n + beta * self.aW[c] / an
                else:
                    q = self.aW[c] / an
            elif n > 0:
                q = (self.W[c] + self.W0[c]) / n
            else:
                return self.fpu
        else:
            q = (self.W[c] + self.W0[c]) / n
            if self.rave and self.aN[c] > 0:
                beta = sqrt(self.rave_equiv / (3.0 * n + self.rave_equiv))
                q = (1.0 - beta) * q + beta * self.aW[c] / self.aN[c]
        if self.use_memory and self.NM[c] > 0:
            # M-MCTS: (1 - lambda_s) V + lambda_s V_M.  The paper leaves the
            # schedule open.  "nm": lambda_s = N_M / (N_M + N + c).  N_M of an
            # inner node sums the decayed N_M of every node added below it
            # (equation 9), so it grows with the subtree and lambda_s does not
            # go to 0.  "capped": N_M counts for at most c visits,
            # lambda_s = min(N_M, c) / (min(N_M, c) + N), which goes to 0 as
            # the node's own visits grow (unbiased asymptotically).
            nm = self.NM[c]
            if self.lambda_capped:
                if nm > self.lambda_c:
                    nm = self.lambda_c
                lam = nm / (nm + n)
            else:
                lam = nm / (nm + n + self.lambda_c)
            q = (1.0 - lam) * q + lam * self.VM[c]
        return q

    cdef int _select(self, int node, const board_t* b, int* untried_move) noexcept nogil:
        """Best child of node, or -1 with *untried_move set to the move to expand."""
        cdef int c, best = -1, ties = 0, m, slot = self.prior_slot[node], nleg
        cdef double parentN = self.N[node] + self.N0[node], logN, score, bestscore = -INFINITY, n, p, pmax, N0
        cdef double fpu, sq, Kn
        cdef float* pr
        cdef uint8_t mark[MAXNN + 1]
        untried_move[0] = -1
        if self.n_untried[node] < 0:
            self.n_untried[node] = self._legal_count(node, b) - self._n_children(node)
            if self.n_untried[node] < 0:
                self.n_untried[node] = 0
        if slot < 0 and self.tree_policy == 0 and self.n_untried[node] > 0:
            m = self._random_untried(node, b)
            if m >= 0:
                untried_move[0] = m
                return -1
            self.n_untried[node] = 0
        logN = log(parentN if parentN > 1.0 else 1.0)
        sq = sqrt(parentN if parentN > 1.0 else 1.0)
        # at a node with net priors the prior visits do the exploring: UCB1
        # uses K_prior there (0 by default, as Fuego and libEGO run prior-
        # initialised UCT); elsewhere K
        Kn = self.K_prior if slot >= 0 else self.K
        c = self.first_child[node]
        while c >= 0:
            n = self.N[c] + self.N0[c]
            if n <= 0:
                score = INFINITY
            elif self.tree_policy == 0:
                score = self._child_value(c) + Kn * sqrt(logN / n)
            else:
                score = self._child_value(c) + self.c_puct * (self.P[c] * P_UNIT) * sq / (1.0 + n)
            if self._better(score, &bestscore, &ties):
                best = c
            c = self.next_sibling[c]
        if self.n_untried[node] <= 0:
            return best
        if slot >= 0:
            pr = &self.priors[<size_t>slot * (self.nn + 1)]
            if node == self.root:
                memcpy(mark, self.root_forbid, self.nn + 1)
            else:
                memset(mark, 0, self.nn + 1)
            c = self.first_child[node]
            while c >= 0:
                mark[self.move[c]] = 1
                c = self.next_sibling[c]
            pmax = 0
            for m in range(self.nn + 1):
                if pr[m] > pmax:
                    pmax = pr[m]
            if pmax <= 0:
                pmax = 1
            fpu = 1.0 - ((self.W[node] + self.W0[node]) / parentN if parentN > 0 else 0.5)
            for m in range(self.nn + 1):
                p = pr[m]
                if p <= 0 or mark[m]:
                    continue
                if self.tree_policy == 0:
                    N0 = self.cnn_strength * p / pmax
                    if N0 <= 0:
                        score = INFINITY if Kn > 0 else 0.5
                    else:
                        score = 0.5 * (1 + p / pmax) + Kn * sqrt(logN / N0)
                else:
                    score = fpu + self.c_puct * p * sq
                if self._better(score, &bestscore, &ties):
                    best = -2 - m
            if best <= -2:
                untried_move[0] = -2 - best
                return -1
            return best
        # PUCT without priors: untried moves share a uniform prior
        nleg = self.n_untried[node] + self._n_children(node)
        fpu = 1.0 - ((self.W[node] + self.W0[node]) / parentN if parentN > 0 else 0.5)
        score = fpu + self.c_puct * (1.0 / nleg) * sq
        if best < 0 or score > bestscore:
            m = self._random_untried(node, b)
            if m >= 0:
                untried_move[0] = m
                return -1
            self.n_untried[node] = 0
        return best

    cdef int _expand(self, int node, int m, const board_t* b) noexcept nogil:
        """Add child m under node (before the move is played); -1 if no node."""
        cdef int n = self._new_node(), slot = self.prior_slot[node], k
        cdef float* pr
        cdef double pmax = 0, p, N0
        if n < 0:
            return -1
        self._init_node(n, node, m)
        self.next_sibling[n] = self.first_child[node]
        self.first_child[node] = n
        if self.n_untried[node] > 0:
            self.n_untried[node] -= 1
        if slot >= 0:
            pr = &self.priors[<size_t>slot * (self.nn + 1)]
            for k in range(self.nn + 1):
                if pr[k] > pmax:
                    pmax = pr[k]
            p = pr[m]
            self.P[n] = p_code(p)
            if pmax > 0 and self.tree_policy == 0:
                # Gelly & Silver initialisation, as in the M-MCTS paper
                N0 = self.cnn_strength * p / pmax
                self.N0[n] = N0
                self.W0[n] = 0.5 * (1.0 + p / pmax) * N0
        else:
            k = self.n_untried[node] + self._n_children(node)
            self.P[n] = p_code(1.0 / (k if k > 0 else 1))
        self.expansions += 1
        return n

    # ------------------------------------------------------------ TREE_RAVE
    cdef int _expand_all(self, int node, const board_t* b) noexcept nogil:
        """Give node a child for every legal move (own true eyes left out,
        pass always in) with the prior knowledge's counts as N0/W0 and as
        the first AMAF statistics.  Returns the children made (0: the pool
        policy gave no node)."""
        cdef int16_t cand[MAXNN + 1]
        cdef int i, p, k = 0, n, col = b.to_move, made = 0
        cdef bint at_root = node == self.root
        cdef float n0, w0
        for i in range(b.n_empty):
            p = b.empty_list[i]
            if at_root and self.root_forbid[p]:
                continue
            if board_legal(b, p, col) and not board_is_eye(b, p, col):
                cand[k] = p
                k += 1
        if not (at_root and self.root_forbid[self.nn]):
            cand[k] = self.nn
            k += 1
        self.flags[node] |= EXPANDED
        for i in range(k):
            n = self._new_node()
            if n < 0:
                break
            self._init_node(n, node, cand[i])
            self.next_sibling[n] = self.first_child[node]
            self.first_child[node] = n
            move_prior(b, cand[i], &n0, &w0, self.prior_scale)
            self.N0[n] = n0
            self.W0[n] = w0
            self.aN[n] = n0
            self.aW[n] = w0
            made += 1
        self.expansions += 1
        if made == 0:
            self.flags[node] &= ~EXPANDED
        return made

    cdef int _select_rave(self, int node) noexcept nogil:
        """The child of highest value (RAVE-blended, with priors; K times the
        UCB1 term on total counts when K > 0), ties at random; -1 if none."""
        cdef int c = self.first_child[node], best = -1, ties = 0
        cdef double score, bestscore = -INFINITY, logN = 0.0, n
        if self.K > 0:
            n = self.N[node] + self.N0[node]
            logN = log(n if n > 1.0 else 1.0)
        while c >= 0:
            score = self._child_value(c)
            if self.K > 0:
                n = self.N[c] + self.N0[c]
                score += self.K * sqrt(logN / (n if n > 1.0 else 1.0))
            if self._better(score, &bestscore, &ties):
                best = c
            c = self.next_sibling[c]
        return best

    cdef int _descend_rave(self, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil:
        """TREE_RAVE descent: a leaf with expand_visits real visits gets all
        its children; a node that reached net_visits asks the net once
        (queued, answered between simulations).  Returns the path length."""
        cdef int node = self.root, depth = 1, child, k
        path[0] = node
        self._lru_remove(node)
        self.N[node] += vloss
        while depth < MAXDEPTH - 1:
            if bd.passes >= 2 and node != self.root:
                break
            if not (self.flags[node] & EXPANDED):
                if node != self.root and self.N[node] < self.expand_visits + vloss:
                    break
                if self._expand_all(node, bd) == 0:
                    break
            if (self.net_budget > 0 and not (self.flags[node] & (NET_DONE | NET_PEND))
                    and self.N[node] >= self.net_visits + vloss and self.n_req < self.req_cap):
                k = self.n_req
                self.req_node[k] = node
                self.req_move[k] = self.move[node]
                self.req_parent[k] = self.parent[node]
                board_copy(&self.req_boards[k], bd)
                self.n_req += 1
                self.net_budget -= 1
                self.flags[node] |= NET_PEND
            child = self._select_rave(node)
            if child < 0:
                break
            moves[depth - 1] = self.move[child]
            board_play(bd, self.move[child], bd.to_move)
            node = child
            path[depth] = node
            depth += 1
            self._lru_remove(node)
            self.N[node] += vloss
        return depth

    cdef void _amaf_first(self, int32_t* path, int depth, const int16_t* moves, int nmoves,
                          double black_reward, int root_color) noexcept nogil:
        """AMAF for TREE_RAVE: a child of path node i gets the outcome when
        its point was first played, from move i on, by the player to move
        at path node i (Gelly & Silver's first-play rule)."""
        cdef int16_t first[MAXNN + 1]
        cdef int i, j = nmoves - 1, m, node, c, col
        cdef double r
        for i in range(self.nn + 1):
            first[i] = NOT_PLAYED
        for i in range(depth - 1, -1, -1):
            while j >= i:
                m = moves[j]
                if 0 <= m < self.nn:
                    first[m] = j
                j -= 1
            node = path[i]
            c = self.first_child[node]
            if c < 0:
                continue
            col = root_color if i % 2 == 0 else 3 - root_color
            r = reward_for(col, black_reward)
            while c >= 0:
                m = self.move[c]
                if m < self.nn and first[m] != NOT_PLAYED and ((first[m] - i) & 1) == 0:
                    self.aN[c] += 1
                    self.aW[c] += r
                c = self.next_sibling[c]

    cdef int _descend(self, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil:
        """Select and expand from the root; bd ends at the leaf position.
        Returns the path length; moves[i] is the move into path[i+1] (the
        last entry may be a stunted move with no node: then moves has one
        more entry than path - 1, signalled by a negative return)."""
        cdef int node = self.root, depth = 1, child, m, nxt
        if self.tree_mode == TREE_RAVE:
            return self._descend_rave(bd, path, moves, vloss)
        path[0] = node
        self._lru_remove(node)
        self.N[node] += vloss
        while bd.passes < 2 and depth < MAXDEPTH - 1:
            child = self._select(node, bd, &m)
            if child >= 0:
                moves[depth - 1] = self.move[child]
                board_play(bd, self.move[child], bd.to_move)
                node = child
                path[depth] = node
                depth += 1
                self._lru_remove(node)
                self.N[node] += vloss
                continue
            if m < 0:
                break
            nxt = self._expand(node, m, bd)
            moves[depth - 1] = m
            board_play(bd, m, bd.to_move)
            if nxt < 0:
                return -depth       # stunted: move played, no node
            path[depth] = nxt
            self.N[nxt] += vloss
            depth += 1
            break
        return depth

    cdef void _backup(self, int32_t* path, int depth, double black_reward, double vloss,
                      int root_color) noexcept nogil:
        cdef int i, n, mover
        for i in range(depth - 1, -1, -1):
            n = path[i]
            mover = root_color if (i % 2 == 1) else 3 - root_color
            self.N[n] += 1.0 - vloss
            self.W[n] += reward_for(mover, black_reward)
            if self.first_child[n] >= 0:
                self._lru_push_back(n)

    cdef void _amaf(self, int32_t* path, int depth, const int16_t* moves, int nmoves,
                    double black_reward, int root_color) noexcept nogil:
        """AMAF: every child of a path node whose move its player made later
        in the simulation gets the outcome (Gelly & Silver's RAVE)."""
        cdef uint8_t seen[MAXNN + 1]
        cdef int i, j, c, col
        cdef double r
        for i in range(depth - 1):
            col = root_color if i % 2 == 0 else 3 - root_color
            memset(seen, 0, self.nn + 1)
            j = i
            while j < nmoves:
                if moves[j] < self.nn:
                    seen[moves[j]] = 1
                j += 2
            r = reward_for(col, black_reward)
            c = self.first_child[path[i]]
            while c >= 0:
                if seen[self.move[c]]:
                    self.aN[c] += 1
                    self.aW[c] += r
                c = self.next_sibling[c]

    cdef double _finish(self, board_t* bd, int32_t* path, int depth, int16_t* moves,
                        int ntree, double vloss) noexcept nogil:
        """Rollout from bd, backup along path; returns the black reward."""
        cdef int nroll = 0, root_color = self.root_board.to_move
        if bd.passes >= 2:
            # a pass-pass in the tree: play on, so dead stones are taken off
            # before the area count (the rollout ends with two passes of its own)
            bd.passes = 0
        cdef double score = run_playout(bd, &self.rng, self.rollout_fn, self.rollout_ctx, self.komi,
                                        self.max_rollout_moves, moves + ntree, &nroll, NULL)
        cdef double black_reward = 1.0 if score > 0 else (0.0 if score < 0 else 0.5)
        cdef int i
        if self.value_lambda > 0:
            # AlphaGo's leaf evaluation, (1 - lambda) z + lambda v, with v the
            # value head at the deepest node of the path that the net has
            # evaluated (the net sees nodes that reached tree.net_visits, not
            # every leaf; the root's value would shift every child alike)
            for i in range(depth - 1, 0, -1):
                if self.VB[path[i]] >= 0:
                    black_reward = (1.0 - self.value_lambda) * black_reward \
                        + self.value_lambda * self.VB[path[i]]
                    break
        self._backup(path, depth, black_reward, vloss, root_color)
        if self.rave:
            if self.tree_mode == TREE_RAVE:
                self._amaf_first(path, depth, moves, ntree + nroll, black_reward, root_color)
            else:
                self._amaf(path, depth, moves, ntree + nroll, black_reward, root_color)
        if self.descent_cb != NULL:
            self.descent_cb(self.descent_ctx, moves, ntree + nroll, ntree, root_color, black_reward)
        self.sims += 1
        self.rollout_moves += nroll
        return black_reward

    cdef void _after_full(self) noexcept nogil:
        """Apply the pool policy between simulations once the pool ran out."""
        cdef int c
        cdef double thr
        if not self.stopped_full:
            return
        if self.full_policy == FULL_ENSEMBLE:
            c = self.first_child[self.root]
            while c >= 0:
                self.ens_visits[self.move[c]] += self.N[c]
                self.ens_wins[self.move[c]] += self.W[c]
                c = self.next_sibling[c]
            self._free_children(self.root)
            self.N[self.root] = 0
            self.W[self.root] = 0
            self.stopped_full = False
        elif self.full_policy == FULL_FLATTEN:
            c = self.first_child[self.root]
            while c >= 0:
                self._free_children(c)
                c = self.next_sibling[c]
            self.stopped_full = False
        elif self.full_policy == FULL_FUEGO_GC:
            # as Fuego: double the threshold until at most half the pool is used
            thr = self.gc_threshold
            self._gc(thr)
            while self.n_used > self.capacity // 2 and thr < 1e12:
                thr *= 2
                self._gc(thr)
            self.stopped_full = False

    cdef int _gc(self, double threshold) noexcept nogil:
        """Fuego-style collection (SgUctTree::CopyPruneLowCount): the children
        of a node with fewer than `threshold` visits are dropped; the root
        keeps its children. Returns the nodes freed."""
        cdef int before = self.n_used, top = 0, x, c
        cdef int* stack = <int*>malloc(self.capacity * sizeof(int))
        c = self.first_child[self.root]
        while c >= 0:
            stack[top] = c
            top += 1
            c = self.next_sibling[c]
        while top:
            top -= 1
            x = stack[top]
            if self.N[x] < threshold:
                self._free_children(x)
                continue
            c = self.first_child[x]
            while c >= 0:
                stack[top] = c
                top += 1
                c = self.next_sibling[c]
        free(stack)
        return before - self.n_used

    # ------------------------------------------------------------ Python API
    def set_root_forbidden(self, moves):
        """Moves the root may not play (positional superko: the tree below
        the root checks simple ko only). Children already there for such a
        move are dropped."""
        cdef int m, c, prev, nxt
        memset(self.root_forbid, 0, self.nn + 1)
        for m in moves:
            if 0 <= m <= self.nn:
                self.root_forbid[m] = 1
        prev = -1
        c = self.first_child[self.root]
        while c >= 0:
            nxt = self.next_sibling[c]
            if self.root_forbid[self.move[c]]:
                self._free_children(c)
                if prev >= 0:
                    self.next_sibling[prev] = nxt
                else:
                    self.first_child[self.root] = nxt
                self._release(c)
            else:
                prev = c
            c = nxt
        self.n_untried[self.root] = -1

    def set_root(self, Board board):
        """Start a new tree at board (drops the old tree)."""
        if board.b.g.nn != self.nn:
            raise ValueError(f"tree is for {int(sqrt(self.nn))}x{int(sqrt(self.nn))}, board is {board.size}x{board.size}")
        board_copy(self.root_board, board.b)
        self._reset_pool()
        memset(self.ens_visits, 0, (self.nn + 1) * sizeof(double))
        memset(self.ens_wins, 0, (self.nn + 1) * sizeof(double))

    def advance(self, int m, Board board):
        """Make the child for move m the root (tree reuse); board is the new
        root position. Returns True if the subtree was kept."""
        cdef int c = self.first_child[self.root], keep = -1, x, nxt
        while c >= 0:
            if self.move[c] == m:
                keep = c
                break
            c = self.next_sibling[c]
        if keep < 0:
            self.set_root(board)
            return False
        c = self.first_child[self.root]
        while c >= 0:
            nxt = self.next_sibling[c]
            if c != keep:
                self._free_children(c)
                self._release(c)
            c = nxt
        self._release(self.root)
        self.root = keep
        self.parent[keep] = -1
        self.next_sibling[keep] = -1
        self.move[keep] = -1
        self.n_untried[keep] = -1   # superko may differ at the new root: recount
        board_copy(self.root_board, board.b)
        memset(self.ens_visits, 0, (self.nn + 1) * sizeof(double))
        memset(self.ens_wins, 0, (self.nn + 1) * sizeof(double))
        self.stopped_full = False
        return True

    def attach_bhrf(self, Forest forest):
        """Put a BHRF forest in front of the rollout policy and feed it every
        descent (the rollout-policy hook and the descent-sequence callback)."""
        self.rollout_fn = bhrf_move
        self.rollout_ctx = <void*>&forest.f
        self.descent_cb = bhrf_update
        self.descent_ctx = <void*>&forest.f
        self.hook_owner = forest

    def simulate(self, int n):
        """Run n simulations with no evaluator; returns how many ran (fewer
        if the pool policy 'stop' fired)."""
        cdef board_t bd
        cdef int32_t path[MAXDEPTH]
        cdef int16_t moves[MAXSEQ]
        cdef int i, depth, ntree, done = 0
        with nogil:
            for i in range(n):
                if self.stopped_full and self.full_policy == FULL_STOP:
                    break
                if self.n_req >= self.req_cap:
                    break           # net requests to answer first
                board_copy(&bd, self.root_board)
                depth = self._descend(&bd, path, moves, 0.0)
                ntree = depth - 1
                if depth < 0:
                    depth = -depth
                    ntree = depth
                self._finish(&bd, path, depth, moves, ntree, 0.0)
                self._after_full()
                done += 1
        return done

    def begin_batch(self, int k):
        """Descend k times under virtual loss; returns the new leaf nodes
        (node ids, -1 where a descent created no node)."""
        cdef int i, depth
        if k > self.pend_cap:
            k = self.pend_cap
        leaves = []
        for i in range(k):
            if self.stopped_full and self.full_policy == FULL_STOP:
                break
            board_copy(&self.pend_boards[i], self.root_board)
            depth = self._descend(&self.pend_boards[i], &self.pend_path[i * MAXDEPTH],
                                  &self.pend_moves[i * MAXSEQ], self.vloss)
            if depth < 0:
                self.pend_len[i] = -depth
                self.pend_nmoves[i] = -depth
                leaves.append(-1)
            else:
                self.pend_len[i] = depth
                self.pend_nmoves[i] = depth - 1
                leaves.append(self.pend_path[i * MAXDEPTH + depth - 1] if depth > 1 else -1)
            self.n_pend = i + 1
        return leaves

    def pending_board(self, int i):
        """The leaf position of pending descent i, as a Board (no history)."""
        cdef Board b = Board(int(round(sqrt(self.nn))))
        board_copy(b.b, &self.pend_boards[i])
        return b

    def pending_path(self, int i):
        return [self.pend_path[i * MAXDEPTH + j] for j in range(self.pend_len[i])]

    def finish_batch(self):
        """Roll out and back up every pending descent; clears the batch."""
        cdef int i
        for i in range(self.n_pend):
            self._finish(&self.pend_boards[i], &self.pend_path[i * MAXDEPTH], self.pend_len[i],
                         &self.pend_moves[i * MAXSEQ], self.pend_nmoves[i], self.vloss)
            self._after_full()
        self.n_pend = 0

    def set_priors(self, int node, priors):
        """Give node net priors (length nn+1, zero on illegal moves).
        Returns False when the priors table is full."""
        cdef cnp.ndarray[cnp.float32_t, ndim=1] pr = np.ascontiguousarray(priors, np.float32)
        if pr.shape[0] != self.nn + 1:
            raise ValueError(f"priors must have {self.nn + 1} entries")
        if node < 0 or node >= self.capacity:
            raise ValueError("bad node")
        cdef int rows
        cdef float* grown
        if self.prior_slot[node] < 0:
            if self.prior_used >= self.prior_rows:
                return False
            if self.prior_used >= self.prior_alloc:
                rows = min(2 * self.prior_alloc, self.prior_rows)
                grown = <float*>realloc(self.priors, <size_t>rows * (self.nn + 1) * sizeof(float))
                if grown == NULL:
                    return False
                self.priors = grown
                self.prior_alloc = rows
            self.prior_slot[node] = self.prior_used
            self.prior_used += 1
        memcpy(&self.priors[<size_t>self.prior_slot[node] * (self.nn + 1)], pr.data, (self.nn + 1) * sizeof(float))
        return True

    def expand_root(self):
        """TREE_RAVE: give the root its children now (no-op when it has
        them); returns the number of root children."""
        if self.tree_mode == TREE_RAVE and not (self.flags[self.root] & EXPANDED):
            self._expand_all(self.root, self.root_board)
        return self._n_children(self.root)

    def set_net_budget(self, int n):
        """TREE_RAVE: how many nodes may ask the net in this search."""
        self.net_budget = max(n, 0)

    def take_net_requests(self):
        """TREE_RAVE: the queued net requests as [(node, Board)]; clears
        the queue (answer them with add_net_priors)."""
        cdef int i
        cdef Board b
        out = []
        for i in range(self.n_req):
            b = Board(int(round(sqrt(self.nn))))
            board_copy(b.b, &self.req_boards[i])
            out.append((self.req_node[i], int(self.req_move[i]), int(self.req_parent[i]), b))
        self.n_req = 0
        return out

    def add_net_priors(self, int node, priors, int move=-2, int parent=-2, double black_value=-1.0):
        """TREE_RAVE: add the net's move probabilities (length nn+1) to the
        children of node as prior wins at value 1, net_equiv * sqrt(p)
        visits each (Pachi's dcnn prior in spirit; not to pass), and keep p
        as P.
        move/parent (from take_net_requests) check that the node was not
        recycled meanwhile.  ``black_value`` (the value head's probability
        that black wins at the node, when >= 0) is kept for the value mixing
        of tree.value_lambda, and with tree.value_prior the node itself gets
        value_prior visits at that value (for the player who moved to it) in
        its prior statistics.  Returns False when the node is gone, has no
        children or had the net's priors already."""
        cdef cnp.ndarray[cnp.float32_t, ndim=1] pr = np.ascontiguousarray(priors, np.float32)
        cdef int c, x, depth
        cdef double add
        if pr.shape[0] != self.nn + 1:
            raise ValueError(f"priors must have {self.nn + 1} entries")
        if node < 0 or node >= self.capacity:
            raise ValueError("bad node")
        self.flags[node] &= ~NET_PEND
        if move != -2 and (self.move[node] != move or self.parent[node] != parent):
            return False
        if (self.flags[node] & NET_DONE) or not (self.flags[node] & EXPANDED) or self.first_child[node] < 0:
            return False
        if black_value >= 0:
            self.VB[node] = <float>black_value
            if self.value_prior > 0 and node != self.root:
                depth = 0
                x = node
                while x != self.root and x >= 0:
                    x = self.parent[x]
                    depth += 1
                if x == self.root:      # the mover: the root's side at odd depths
                    self.N0[node] += self.value_prior
                    self.W0[node] += self.value_prior * reward_for(
                        self.root_board.to_move if depth % 2 == 1 else 3 - self.root_board.to_move,
                        black_value)
        c = self.first_child[node]
        while c >= 0:
            self.P[c] = p_code(pr[self.move[c]])
            if self.move[c] == self.nn:
                # pass keeps the prior knowledge's value (low unless the
                # opponent just passed): the net likes passing in positions
                # that only look finished
                c = self.next_sibling[c]
                continue
            add = self.net_equiv * sqrt(pr[self.move[c]] if pr[self.move[c]] > 0 else 0.0)
            self.N0[c] += add
            self.W0[c] += add
            c = self.next_sibling[c]
        self.flags[node] |= NET_DONE
        return True

    def net_value(self, int node):
        """The value head's P(black wins) kept at node, or None."""
        return None if self.VB[node] < 0 else float(self.VB[node])

    def has_net_priors(self, int node):
        return bool(self.flags[node] & NET_DONE)

    def reset_priors(self):
        """Forget all priors (start of a new search keeps nodes, not rows)."""
        cdef int i
        for i in range(self.bump):
            self.prior_slot[i] = -1
        self.prior_used = 0

    def memory_backup(self, int leaf, double VM, double NM, double eta):
        """M-MCTS equation (9): back V_M(s_h), N_M(s_h) of the new node up to
        the root with decay eta. VM is for the player who made move[leaf].
        Deviation: values flip between plies (the paper leaves perspective
        implicit)."""
        cdef int n = leaf, dist = 0
        cdef double X, R, v
        if NM <= 0:
            return
        while n >= 0:
            X = NM / (eta ** dist) if eta > 0 else NM
            if X < 1.0:
                X = 1.0
            v = VM if dist % 2 == 0 else 1.0 - VM
            R = v * X           # R = V_M(s_h) * N_M(s_h) scaled to X (eq. 9 with weight X)
            self.NM[n] += X
            self.VM[n] += (R - self.VM[n] * X) / self.NM[n]
            n = self.parent[n]
            dist += 1

    # ------------------------------------------------------------ views
    @property
    def root_id(self):
        return self.root

    @property
    def n_used(self):
        return self.n_used

    @property
    def capacity(self):
        return self.capacity

    @property
    def prior_nodes(self):
        """Nodes given priors in this search (set_priors)."""
        return self.prior_used

    @property
    def sims(self):
        return self.sims

    @property
    def stopped(self):
        return bool(self.stopped_full and self.full_policy == FULL_STOP)

    def stats(self):
        return {"capacity": self.capacity, "used": self.n_used, "recycled": self.recycled,
                "expansions": self.expansions, "sims": self.sims, "rollout_moves": self.rollout_moves,
                "policy": [k for k, v in FULL_POLICIES.items() if v == self.full_policy][0],
                "bytes_per_node": BYTES_PER_NODE, "full": self.n_used >= self.capacity}

    def node(self, int n):
        """Statistics of node n as a dict."""
        return {"move": self.move[n], "N": self.N[n], "W": self.W[n], "N0": self.N0[n], "W0": self.W0[n],
                "P": self.P[n] * P_UNIT, "aN": self.aN[n], "aW": self.aW[n], "NM": self.NM[n], "VM": self.VM[n],
                "parent": self.parent[n]}

    def value(self, int n):
        """The value in-tree selection uses for node n (N + N0 > 0): its
        mean, blended with RAVE and the M-MCTS memory value as configured."""
        if self.N[n] + self.N0[n] <= 0:
            raise ValueError("node has no visits")
        return self._child_value(n)

    def children(self, int n=-1):
        """(move, N, W, P, NM, VM, node) of every child of n (root by
        default); N and W are real visits and rewards, without priors."""
        if n < 0:
            n = self.root
        out = []
        cdef int c = self.first_child[n]
        while c >= 0:
            out.append((self.move[c], self.N[c], self.W[c], self.P[c] * P_UNIT, self.NM[c], self.VM[c], c))
            c = self.next_sibling[c]
        return out

    def child_priors(self, int n=-1):
        """{move: (N0, W0, aN, aW)} of every child of n (root by default)."""
        if n < 0:
            n = self.root
        out = {}
        cdef int c = self.first_child[n]
        while c >= 0:
            out[self.move[c]] = (self.N0[c], self.W0[c], self.aN[c], self.aW[c])
            c = self.next_sibling[c]
        return out

    def best_child(self, int n):
        """The child of n with the most real visits (-1 if none visited)."""
        cdef int c = self.first_child[n], best = -1
        cdef double bn = 0
        while c >= 0:
            if self.N[c] > bn:
                bn = self.N[c]
                best = c
            c = self.next_sibling[c]
        return best

    def pv(self, int n, int max_len=20):
        """Most-visited line from node n (n's own move excluded)."""
        out = []
        c = self.best_child(n)
        while c >= 0 and len(out) < max_len:
            out.append(self.move[c])
            c = self.best_child(c)
        return out

    def ensemble_visits(self):
        """Root visits and rewards per move accumulated by the ensemble
        policy over the trees it discarded: [(visits, wins)] by move."""
        return [(self.ens_visits[m], self.ens_wins[m]) for m in range(self.nn + 1)]

    def check_invariants(self):
        """Walk the tree: every node reachable once, counts consistent.
        Returns the number of reachable nodes (tests)."""
        seen = set()
        stack = [self.root]
        while stack:
            x = stack.pop()
            assert x not in seen, "node reached twice"
            seen.add(x)
            c = self.first_child[x]
            while c >= 0:
                assert self.parent[c] == x, "parent link broken"
                stack.append(c)
                c = self.next_sibling[c]
        assert len(seen) == self.n_used, f"{len(seen)} reachable, {self.n_used} in use"
        return len(seen)

    def lru_order(self):
        out = []
        x = self.lru_head
        while x >= 0:
            out.append(x)
            x = self.lru_next[x]
        return out
