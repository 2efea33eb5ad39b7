# cython: language_level=3
"""The node store of the search tree: a fixed pool of nodes.

Owns: the node pool (structure of arrays allocated up front, ``capacity``
nodes; no Python object per node), allocation and the free list, the LRU
queue Theta, and the policies for a full pool (Powley, Cowling &
Whitehouse, "Memory Bounded Monte Carlo Tree Search").  How a tree grows
and is searched lives elsewhere, as Pachi splits ``uct/tree.c`` from
``uct/walk.c`` and ``uct/policy/``: the tree policies in
``engine/tree_uct.pyx`` and ``engine/tree_rave.pyx`` (one interface,
``engine/tree_policy.pxd``), one simulation in ``engine/walk.pyx``, whose
``Tree`` is the class the search uses.

Bytes per node: 53 (move 2, n_untried 2, parent/first_child/next_sibling 12,
lru_prev/lru_next 8, prior_slot 4, N/W 8, N0/W0 8, P 2, VB 4, SB 2, flags
1), ``BASE_BYTES_PER_NODE``, within the paper's 48 to 56 (56 with the queue
Theta's pointers); a tree that reads AMAF statistics (the rave tree, the uct
tree with ``uct.rave``) adds aN/aW (8), the M-MCTS memory NM/VM (8), the rave
tree's ``rave.value_backup`` VN/VW (8): those arrays are allocated only when a tree needs them
(:meth:`NodePool.want_arrays`), so the uct tree of the papers' searches
takes 53 bytes a node, the shipped rave tree 61.  ``bytes_per_node`` is the
sum the pool's own per-node allocations count (``_node_array``), so it
cannot drift from them; ``BYTES_PER_NODE`` is the most a node takes (77,
every array: what a memory budget in MiB is divided by).

Tree layout.  Left-child right-sibling, one node per move (the paper's
Figure 1).  Values: ``W[n] / N[n]`` is the mean reward, in [0, 1], of the
player who played ``move[n]``; a parent maximises it over its children.

Node recycling.  Theta is an intrusive doubly linked queue of non-leaf
nodes: a node leaves Theta while a descent passes through it and is pushed
to the back when backup updates it, so the front is the least recently
updated non-leaf node and its children are the least recently accessed
leaves; when the pool is empty the first child of the front node is
recycled (O(1)), or, for a policy that expands whole child sets, all the
children of the front node whose children are all leaves.
"""
from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset, memcpy
from libc.math cimport sqrt
from board_ext.board cimport board_t, Board, board_copy
from engine.atomics cimport spin_lock, spin_unlock
cimport numpy as cnp
import numpy as np

cnp.import_array()

FULL_POLICIES = {"stop": FULL_STOP, "stunt": FULL_STUNT, "ensemble": FULL_ENSEMBLE,
                 "flatten": FULL_FLATTEN, "recycle": FULL_RECYCLE, "fuego_gc": FULL_FUEGO_GC}


cdef object _VIEW = None


cdef object _view():
    """engine.pool_view, imported at first use (it cimports this module)."""
    global _VIEW
    if _VIEW is None:
        from engine import pool_view
        _VIEW = pool_view
    return _VIEW


cdef class NodePool:
    """A search tree's nodes in a fixed pool of ``capacity`` nodes (the
    state the tree policies and the walk share; ``engine.walk.Tree`` adds
    the search).

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
        # Until Tree.configure and Tree.set_params (engine.search.Search
        # sets them from the config; a bare Tree takes the config's defaults
        # of the kernels' knobs, engine/walk.pyx):
        self.gc_threshold = 16
        self.komi = 7.5
        self.max_rollout_moves = 3 * self.nn
        self.use_memory = False
        self.lambda_c = 100.0
        self.lambda_capped = False
        self.whole_child_sets = False
        self.value_lambda = 0.0
        self.net_budget = 0
        self.rollout_ctx = NULL
        self.descent_cb = NULL
        self.descent_ctx = NULL
        self.move = <int16_t*>self._node_array(sizeof(int16_t))
        self.n_untried = <int16_t*>self._node_array(sizeof(int16_t))
        self.parent = <int32_t*>self._node_array(sizeof(int32_t))
        self.first_child = <int32_t*>self._node_array(sizeof(int32_t))
        self.next_sibling = <int32_t*>self._node_array(sizeof(int32_t))
        self.lru_prev = <int32_t*>self._node_array(sizeof(int32_t))
        self.lru_next = <int32_t*>self._node_array(sizeof(int32_t))
        self.prior_slot = <int32_t*>self._node_array(sizeof(int32_t))
        self.N = <float*>self._node_array(sizeof(float))
        self.W = <float*>self._node_array(sizeof(float))
        self.N0 = <float*>self._node_array(sizeof(float))
        self.W0 = <float*>self._node_array(sizeof(float))
        self.P = <uint16_t*>self._node_array(sizeof(uint16_t))
        self.aN = self.aW = self.NM = self.VM = self.VN = self.VW = NULL   # want_arrays: only for the trees that read them
        self.VB = <float*>self._node_array(sizeof(float))
        self.SB = <int16_t*>self._node_array(sizeof(int16_t))
        self.flags = <uint8_t*>self._node_array(sizeof(uint8_t))
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
        self.score_n = <double*>calloc(self.nn + 2, sizeof(double))
        self.score_sum = <double*>calloc(self.nn + 2, sizeof(double))
        self.score_sq = <double*>calloc(self.nn + 2, sizeof(double))
        self.lead_n = <double*>calloc(self.nn + 2, sizeof(double))
        self.lead_sum = <double*>calloc(self.nn + 2, sizeof(double))
        self.lead_sq = <double*>calloc(self.nn + 2, sizeof(double))
        self.root_forbid = <uint8_t*>calloc(self.nn + 1, sizeof(uint8_t))
        self.deep_forbid = <uint8_t*>calloc(2 * (self.nn + 1), sizeof(uint8_t))
        self.deep_until[0] = self.deep_until[1] = 0
        self.has_deep = False
        self.has_leads = False
        self.req_cap = max(batch, 1)
        self.n_req = 0
        self.req_node = <int32_t*>malloc(self.req_cap * sizeof(int32_t))
        self.req_move = <int16_t*>malloc(self.req_cap * sizeof(int16_t))
        self.req_parent = <int32_t*>malloc(self.req_cap * sizeof(int32_t))
        self.req_boards = <board_t*>malloc(self.req_cap * sizeof(board_t))
        self.req_seq = <int32_t*>calloc(self.req_cap, sizeof(int32_t))
        if (not self.N0 or not self.W0 or not self.req_seq or not self.req_node or not self.req_move
                or not self.req_parent or not self.req_boards
                or not self.move or not self.n_untried or not self.parent or not self.first_child
                or not self.next_sibling or not self.lru_prev or not self.lru_next
                or not self.prior_slot or not self.N or not self.W or not self.P
                or not self.VB or not self.flags or not self.priors
                or not self.root_board or not self.pend_path or not self.pend_boards
                or not self.pend_moves or not self.ens_visits or not self.ens_wins or not self.root_forbid or not self.deep_forbid
                or not self.score_n or not self.score_sum or not self.score_sq or not self.SB
                or not self.lead_n or not self.lead_sum or not self.lead_sq):
            raise MemoryError(f"cannot allocate a pool of {capacity} nodes")
        self.rng.s = seed * <uint64_t>0x9E3779B97F4A7C15 + 12345
        self.n_pend = 0
        self._reset_pool()

    cdef void* _node_array(self, size_t elem):
        """One per-node array of ``capacity`` elements of ``elem`` bytes;
        counted in ``node_bytes`` (BYTES_PER_NODE)."""
        self.node_bytes += <int>elem
        return malloc(<size_t>self.capacity * elem)

    cpdef want_arrays(self, bint amaf, bint memory, bint value_backup=False):
        """Allocate the optional per-node arrays a tree needs, zeroed: the
        AMAF statistics (aN/aW) where it reads them, the memory's (NM/VM) where
        it is on, the subtree's value evaluations (VN/VW) with rave.value_backup;
        each counted in ``bytes_per_node`` once it exists.  Never freed before
        the pool (a tree switched back keeps them).  Between searches only."""
        if amaf and self.aN == NULL:
            self.aN = self._zeroed_array("AMAF")
            self.aW = self._zeroed_array("AMAF")
        if memory and self.NM == NULL:
            self.NM = self._zeroed_array("memory")
            self.VM = self._zeroed_array("memory")
        if value_backup and self.VN == NULL:
            self.VN = self._zeroed_array("value")
            self.VW = self._zeroed_array("value")

    cdef float* _zeroed_array(self, str what) except NULL:
        """One zeroed per-node float array, counted in ``bytes_per_node``."""
        cdef float* a = <float*>calloc(<size_t>self.capacity, sizeof(float))
        if not a:
            raise MemoryError(f"cannot allocate the {what} statistics of {self.capacity} nodes")
        self.node_bytes += sizeof(float)
        return a

    @property
    def bytes_per_node(self):
        return self.node_bytes

    def __dealloc__(self):
        free(self.move); free(self.n_untried); free(self.parent); free(self.first_child)
        free(self.next_sibling); free(self.lru_prev); free(self.lru_next); free(self.prior_slot)
        free(self.N); free(self.W); free(self.P); free(self.aN); free(self.aW); free(self.NM)
        free(self.VM); free(self.VB); free(self.flags); free(self.priors); free(self.root_board)
        free(self.pend_path); free(self.pend_len); free(self.pend_moves); free(self.pend_nmoves)
        free(self.pend_boards); free(self.ens_visits); free(self.ens_wins); free(self.root_forbid)
        free(self.deep_forbid); free(self.VN); free(self.VW)
        free(self.N0); free(self.W0); free(self.req_node); free(self.req_move); free(self.req_parent)
        free(self.req_boards); free(self.req_seq); free(self.score_n); free(self.score_sum); free(self.score_sq)
        free(self.SB); free(self.lead_n); free(self.lead_sum); free(self.lead_sq)


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
        if self.aN != NULL:
            self.aN[n] = self.aW[n] = 0
        if self.NM != NULL:
            self.NM[n] = self.VM[n] = 0
        if self.VN != NULL:
            self.VN[n] = self.VW[n] = 0
        self.VB[n] = -1
        self.SB[n] = NO_LEAD
        self.flags[n] = 0
        self.lru_prev[n] = -1
        self.lru_next[n] = -1

    cdef void _reset_scores(self) noexcept nogil:
        memset(self.score_n, 0, (self.nn + 2) * sizeof(double))
        memset(self.score_sum, 0, (self.nn + 2) * sizeof(double))
        memset(self.score_sq, 0, (self.nn + 2) * sizeof(double))
        memset(self.lead_n, 0, (self.nn + 2) * sizeof(double))
        memset(self.lead_sum, 0, (self.nn + 2) * sizeof(double))
        memset(self.lead_sq, 0, (self.nn + 2) * sizeof(double))

    cdef void _link_child(self, int node, int n) noexcept nogil:
        """Put the initialised node n first among node's children."""
        self.next_sibling[n] = self.first_child[node]
        self.first_child[node] = n

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
        self.flags[n] &= ~(EXPANDED | NET_DONE)      # a leaf again: it may expand (and ask the net) anew
        self._lru_remove(n)

    cdef int _recycle(self) noexcept nogil:
        """Unlink and return the least recently accessed leaf, or -1."""
        cdef int v, c
        if self.whole_child_sets:
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
        """Whole child sets: free every child of the least recently updated node
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

    cdef int _alloc_many(self, int k, int32_t* out) noexcept nogil:
        """Up to k nodes for one expansion of a threaded search, under the
        pool's spin lock: the free list, then fresh nodes; no recycling (a
        full pool stops the expansions until the search ends, as Fuego's
        lock-free search does).  Returns how many were given."""
        cdef int i = 0, n
        spin_lock(&self.alloc_lock)
        while i < k:
            n = self._alloc_raw()
            if n < 0:
                self.stopped_full = True
                break
            out[i] = n
            i += 1
        spin_unlock(&self.alloc_lock)
        return i

    # ------------------------------------------------------------ tree ops
    cdef int _n_children(self, int node) noexcept nogil:
        cdef int c = self.first_child[node], k = 0
        while c >= 0:
            k += 1
            c = self.next_sibling[c]
        return k

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
            self._collect()

    cdef void _collect(self) noexcept nogil:
        """Fuego's garbage collection: prune low-count subtrees, doubling
        the threshold until at most half the pool is used."""
        cdef double thr = self.gc_threshold
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
    # ------------------------------------------------------------ Python API
    def set_deep_forbidden(self, specs):
        """Moves a colour may not play below the root too (KataGo's
        avoidMoves/allowMoves with untilDepth > 1): ``specs`` is a list of
        (colour, moves, until_depth), the moves forbidden at every node
        fewer than until_depth moves from the root where that colour is to
        move; [] clears them.  The root's own restriction stays
        set_root_forbidden's; children already below are left (a new
        search starts from a new root)."""
        cdef int col, m, until
        memset(self.deep_forbid, 0, 2 * (self.nn + 1))
        self.deep_until[0] = self.deep_until[1] = 0
        for col, moves, until in specs:
            if col not in (1, 2) or until < 1:
                raise ValueError(f"deep forbidden: colour 1 or 2 and until_depth >= 1, got {col}, {until}")
            self.deep_until[col - 1] = max(self.deep_until[col - 1], until)
            for m in moves:
                if 0 <= m <= self.nn:
                    self.deep_forbid[(col - 1) * (self.nn + 1) + m] = 1
        self.has_deep = self.deep_until[0] > 0 or self.deep_until[1] > 0

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
        self._reset_scores()

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
        self._reset_scores()
        self.stopped_full = False
        return True

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

    # reads and checks for Python callers: engine/pool_view.pyx
    def stats(self):
        return _view().stats(self)

    def node(self, int n):
        return _view().node(self, n)

    def children(self, int n=-1):
        return _view().children(self, n)

    def child_priors(self, int n=-1):
        return _view().child_priors(self, n)

    def best_child(self, int n):
        return _view().best_child(self, n)

    def pv_nodes(self, int n, int max_len=20):
        return _view().pv_nodes(self, n, max_len)

    def pv(self, int n, int max_len=20):
        return _view().pv(self, n, max_len)

    def root_scores(self):
        return _view().root_scores(self)

    def root_leads(self):
        return _view().root_leads(self)

    def net_lead(self, int node):
        """The score head's lead (black's view) kept at node, or None."""
        return None if self.SB[node] == NO_LEAD else self.SB[node] / 32.0

    def ensemble_visits(self):
        return _view().ensemble_visits(self)

    def check_invariants(self):
        return _view().check_invariants(self)

    def lru_order(self):
        return _view().lru_order(self)


BASE_BYTES_PER_NODE = NodePool(2, 2).bytes_per_node
_every = NodePool(2, 2)
_every.want_arrays(True, True, True)
BYTES_PER_NODE = _every.bytes_per_node
del _every
