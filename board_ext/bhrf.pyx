# cython: language_level=3
"""BHRF: the Background History Reply Forest (Fabbri, Armetta, Duchene and
Hassas) and its rollout policy.

Owns: the forest (one reply tree per reply move; a node below the root of
reply ``r`` is a context, the moves that preceded ``r``, deepest = longest),
its update from each descent (Algorithms 1 and 2) and the rollout policy that
reads it at every rollout move (Algorithms 3 and 4).  Plain C arrays; the
lookup and the update are ``nogil`` with no Python objects.

Lookup.  Every node carries the hash of its whole context (a Zobrist-style
XOR of per-(depth, move) keys); a hash table maps a context to the chain of
nodes (one per reply) sharing it.  The longest matching patterns are found
by probing the contexts of the last ``max_depth``, ``max_depth - 1``, ...
moves: a few table probes per rollout move, not a scan of the forest.

Deviations from the paper, each a knob or stated here:
* contexts are capped at ``max_depth`` moves (<= 7, the board keeps the last
  8 moves); the paper bounds them only by the depth of the search tree;
* pass is never suggested as a rollout reply (it is stored as context), and
  neither is a move filling the mover's own true eye (the default policies'
  rule; without it BHRF rollouts kill their own groups and run to the cap);
* soft-UCT: a reply is drawn with probability ``P(r|c)`` of equation (1)
  and then played with probability ``min(1, u_r)``, ``u_r`` being its UCT
  estimate ``mean + b sqrt(ln(sum n) / n_r)``;
* when the node arrays are full no new pattern is added (existing ones are
  still updated); the context table starts at 16k slots and doubles at half
  load, so its probes stay in cache while the forest is small.
"""
from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t
from libc.string cimport memset
from libc.stdlib cimport malloc, free
from libc.math cimport log, sqrt
from board_ext.board cimport (board_t, rng_t, Board, board_legal, board_is_eye, board_copy, rng_double,
                              rng_int, MAXNN, BLACK, NHIST)
from board_ext.playout cimport policy_fn, get_policy, run_playout

SELECTIONS = {"soft-uct": 0, "last-reply": 1}
FALLBACKS = {"random": 0, "expert": 1}

cdef enum:
    MAXCAND = MAXNN + 1
    MAXD = 8

cdef uint64_t CTXZ[MAXD][MAXNN + 1]


cdef void _init_keys():
    cdef uint64_t x = 0x2545F4914F6CDD1D
    cdef int d, m
    for d in range(MAXD):
        for m in range(MAXNN + 1):
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            CTXZ[d][m] = x * <uint64_t>0x9E3779B97F4A7C15

_init_keys()


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= <uint64_t>0xff51afd7ed558ccd
    h ^= h >> 33
    return h


cdef int _table_find(const forest_t* f, uint64_t h) noexcept nogil:
    """First node with context hash h, or -1."""
    cdef uint64_t i = _mix(h) & f.table_mask
    cdef int32_t node
    while True:
        node = f.table[i]
        if node < 0:
            return -1
        if f.chash[node] == h:
            return node
        i = (i + 1) & f.table_mask


cdef void _index_add(forest_t* f, int head, int node) noexcept nogil:
    """Append node to its context's contiguous block (grown by doubling at
    the end of cidx; when cidx is full the node is left out of the block)."""
    cdef int k, cap
    if head == node:
        if f.cidx_used + 4 > f.cidx_cap:
            f.clen[head] = 0
            f.ccap[head] = 0
            return
        f.cstart[head] = <int32_t>f.cidx_used
        f.ccap[head] = 4
        f.clen[head] = 0
        f.ctot[head] = 0
        f.cidx_used += 4
    elif f.clen[head] == f.ccap[head]:
        cap = 2 * f.ccap[head] if f.ccap[head] else 4
        if f.cidx_used + cap > f.cidx_cap:
            return
        for k in range(f.clen[head]):
            f.cidx[f.cidx_used + k] = f.cidx[f.cstart[head] + k]
        f.cstart[head] = <int32_t>f.cidx_used
        f.ccap[head] = cap
        f.cidx_used += cap
    f.cidx[f.cstart[head] + f.clen[head]] = node
    f.clen[head] += 1


cdef void _table_add(forest_t* f, int node) noexcept nogil:
    """Chain node into the list of its context."""
    cdef uint64_t h = f.chash[node], i = _mix(h) & f.table_mask
    cdef int32_t first
    while True:
        first = f.table[i]
        if first < 0:
            f.table[i] = node
            f.ctx_next[node] = -1
            f.look[node].ctx_next = -1
            return
        if f.chash[first] == h:
            f.ctx_next[node] = f.ctx_next[first]
            f.ctx_next[first] = node
            f.look[node].ctx_next = f.ctx_next[node]
            f.look[first].ctx_next = node
            return
        i = (i + 1) & f.table_mask


cdef int _child(const forest_t* f, int parent_first, int m) noexcept nogil:
    cdef int c = parent_first
    while c >= 0:
        if f.move[c] == m:
            return c
        c = f.sibling[c]
    return -1


cdef void _rehash(forest_t* f) noexcept nogil:
    """Double the context table and re-chain every node (the table starts
    small so that its probes stay in cache)."""
    cdef uint64_t tl = (f.table_mask + 1) * 2
    cdef int32_t* nt = <int32_t*>malloc(tl * sizeof(int32_t))
    cdef int i, head
    if nt == NULL:
        return
    free(f.table)
    f.table = nt
    f.table_mask = tl - 1
    memset(f.table, 0xFF, tl * sizeof(int32_t))
    for i in range(f.n_nodes):
        _table_add(f, i)
    for i in range(f.n_nodes):
        head = _table_find(f, f.chash[i])
        if head == i:
            f.last[i] = i
    for i in range(f.n_nodes):
        head = _table_find(f, f.chash[i])
        if f.stamp[i] >= f.stamp[f.last[head]]:
            f.last[head] = i


cdef int _new_node(forest_t* f, int m, int r, uint64_t h) noexcept nogil:
    if f.n_nodes >= f.capacity:
        return -1
    if 2 * (f.n_nodes + 1) > <int>(f.table_mask + 1):
        _rehash(f)
    cdef int i = f.n_nodes
    f.n_nodes += 1
    f.move[i] = m
    f.reply[i] = r
    f.child[i] = -1
    f.sibling[i] = -1
    f.ctx_next[i] = -1
    f.n[i] = 0
    f.w[i] = 0
    f.look[i].reply = r
    f.look[i].n = 0
    f.look[i].mean = 0
    f.look[i].isq = 0
    f.stamp[i] = 0
    f.chash[i] = h
    f.last[i] = i
    _table_add(f, i)
    _index_add(f, _table_find(f, h), i)
    return i


cdef inline void _sync(forest_t* f, int c) noexcept nogil:
    f.look[c].n = f.n[c]
    f.look[c].mean = f.w[c] / f.n[c]
    f.look[c].isq = 1.0 / sqrt(f.n[c])


cdef inline void _record(forest_t* f, int c, uint64_t h, double outcome) noexcept nogil:
    """One outcome for pattern node c (context hash h): its mean, its
    recency for last-reply, and its context's visit total."""
    cdef int k
    f.n[c] += 1
    f.w[c] += outcome
    _sync(f, c)
    f.stamp[c] = f.clock
    k = _table_find(f, h)
    f.last[k] = c
    f.ctot[k] += 1


cdef void _update_tree(forest_t* f, const int16_t* seq, int i, double outcome) noexcept nogil:
    """Algorithm 2: walk the context seq[i-1], seq[i-2], ... of reply seq[i],
    updating existing nodes and creating at most one new one."""
    cdef int r = seq[i], depth = 0, m, c, parent = -1
    cdef uint64_t h = 0
    f.clock += 1
    while i > 0 and depth < f.max_depth:
        i -= 1
        m = seq[i]
        h ^= CTXZ[depth][m]
        c = _child(f, f.root_child[r] if parent < 0 else f.child[parent], m)
        if c < 0:
            c = _new_node(f, m, r, h)
            if c < 0:
                return
            if parent < 0:
                f.sibling[c] = f.root_child[r]
                f.root_child[r] = c
            else:
                f.sibling[c] = f.child[parent]
                f.child[parent] = c
            _record(f, c, h, outcome)
            return
        _record(f, c, h, outcome)
        parent = c
        depth += 1


cdef void bhrf_update(void* ctx, const int16_t* moves, int n, int n_tree,
                      int first_color, double black_reward) noexcept nogil:
    """Algorithm 1: every move of the descent sequence updates its reply
    tree with the outcome from its mover's point of view."""
    cdef forest_t* f = <forest_t*>ctx
    cdef int i, color
    cdef double out
    for i in range(n_tree - 1, -1, -1):
        if moves[i] >= f.nn:
            continue
        color = first_color if i % 2 == 0 else 3 - first_color
        out = black_reward if color == BLACK else 1.0 - black_reward
        _update_tree(f, moves, i, out)


cdef inline int _context_hashes(const forest_t* f, const board_t* b, uint64_t* hs) noexcept nogil:
    """hs[d] = hash of the last d+1 moves (newest first) for every context
    length the forest matches; returns how many."""
    cdef uint64_t h = 0
    cdef int D = 0
    while D < f.max_depth and D < NHIST and b.hist[D] >= 0:
        h ^= CTXZ[D][b.hist[D]]
        hs[D] = h
        D += 1
    return D


cdef int _longest(const forest_t* f, const board_t* b, int* cand, int* cnode) noexcept nogil:
    """Replies of the longest contexts matching the last moves; returns how
    many (their matching nodes in cnode)."""
    cdef uint64_t hs[MAXD]
    cdef int d, D = 0, node, nc = 0
    D = _context_hashes(f, b, hs)
    for d in range(D - 1, -1, -1):
        node = _table_find(f, hs[d])
        while node >= 0:
            if f.look[node].reply < f.nn:
                cand[nc] = f.look[node].reply
                cnode[nc] = node
                nc += 1
            node = f.look[node].ctx_next
        if nc:
            return nc
    return 0


cdef int bhrf_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil:
    cdef forest_t* f = <forest_t*>ctx
    cdef int i, j, c = b.to_move, node
    cdef double total_n, est, lg
    cdef uint64_t hs[MAXD]
    cdef int d, D = 0, head, r
    if f.epsilon > 0 and rng_double(rng) < f.epsilon and f.selection == 1:
        # last-reply: the chain head of the longest matching context knows
        # the reply chosen last in a descent for it
        f.asked += 1
        D = _context_hashes(f, b, hs)
        for d in range(D - 1, -1, -1):
            head = _table_find(f, hs[d])
            if head >= 0:
                r = f.reply[f.last[head]]
                if r < f.nn:
                    f.suggested += 1
                    if not board_is_eye(b, r, c) and board_legal(b, r, c):
                        f.played += 1
                        return r
                break
        return f.fallback(b, rng, NULL)
    if f.epsilon > 0 and rng_double(rng) < f.epsilon:
        # soft-UCT (equation 1) over the legal replies of the longest
        # matching context, by rejection sampling: draw a reply of the
        # context uniformly and accept it with probability u_r / (1 + lg)
        # (u_r <= 1 + lg), which draws r with probability u_r / sum u; an
        # illegal or eye-filling draw is rejected too, so the draw is exact
        # over the legal replies. At most 32 draws, then the default policy.
        # Deviation: sum n in the log term runs over all replies of the
        # context (kept per context, no legality test per reply).
        f.asked += 1
        D = _context_hashes(f, b, hs)
        head = -1
        for d in range(D - 1, -1, -1):
            node = _table_find(f, hs[d])
            if node >= 0 and f.clen[node] > 0:
                head = node
                break
        if head < 0:
            return f.fallback(b, rng, NULL)
        total_n = f.ctot[head]
        lg = f.b * sqrt(log(total_n if total_n > 1 else 1))
        for i in range(32):
            j = f.cidx[f.cstart[head] + rng_int(rng, f.clen[head])]
            est = f.look[j].mean + lg * f.look[j].isq
            if rng_double(rng) * (1.0 + lg) >= est:
                continue
            r = f.look[j].reply
            if board_is_eye(b, r, c) or not board_legal(b, r, c):
                continue
            f.suggested += 1
            if rng_double(rng) < est:
                f.played += 1
                return r
            break
    return f.fallback(b, rng, NULL)


cdef class Forest:
    """The reply forest and its policy settings.

    Args:
        size: board size.
        epsilon: probability of asking the forest at a rollout move.
        selection: "soft-uct" or "last-reply".
        b: soft-UCT exploration constant (paper: 0.7).
        fallback: default policy, "random" or "expert".
        max_depth: longest context (1..7).
        capacity: most pattern nodes kept.
    """

    def __cinit__(self, int size, double epsilon=1.0, selection="soft-uct", double b=0.7,
                  fallback="random", int max_depth=3, int capacity=1_000_000):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"bhrf.epsilon must be in [0, 1], got {epsilon}")
        if selection not in SELECTIONS:
            raise ValueError(f"bhrf.selection: unknown selection process '{selection}'")
        if fallback not in FALLBACKS:
            raise ValueError(f"bhrf.fallback: unknown policy '{fallback}'")
        if not 1 <= max_depth <= NHIST - 1:
            raise ValueError(f"bhrf.max_depth must be in 1..{NHIST - 1}")
        cdef forest_t* f = &self.f
        f.nn = size * size
        f.capacity = capacity
        f.max_depth = max_depth
        f.selection = SELECTIONS[selection]
        f.epsilon = epsilon
        f.b = b
        f.fallback = get_policy(FALLBACKS[fallback])
        f.move = <int16_t*>malloc(capacity * sizeof(int16_t))
        f.reply = <int16_t*>malloc(capacity * sizeof(int16_t))
        f.child = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.sibling = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.ctx_next = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.n = <float*>malloc(capacity * sizeof(float))
        f.w = <float*>malloc(capacity * sizeof(float))
        f.stamp = <uint32_t*>malloc(capacity * sizeof(uint32_t))
        f.last = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.look = <look_t*>malloc(capacity * sizeof(look_t))
        f.cstart = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.clen = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.ccap = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.ctot = <float*>malloc(capacity * sizeof(float))
        f.cidx_cap = 4 * <long>capacity
        f.cidx = <int32_t*>malloc(f.cidx_cap * sizeof(int32_t))
        f.root_child = <int32_t*>malloc((f.nn + 1) * sizeof(int32_t))
        f.chash = <uint64_t*>malloc(capacity * sizeof(uint64_t))
        cdef uint64_t tl = 1 << 14
        f.table_mask = tl - 1
        f.table = <int32_t*>malloc(tl * sizeof(int32_t))
        if not (f.move and f.reply and f.child and f.sibling and f.ctx_next and f.n and f.w
                and f.stamp and f.last and f.look and f.cstart and f.clen and f.ccap and f.ctot and f.cidx and f.root_child and f.chash and f.table):
            raise MemoryError("cannot allocate the reply forest")
        self.clear()

    def __dealloc__(self):
        free(self.f.move); free(self.f.reply); free(self.f.child); free(self.f.sibling)
        free(self.f.ctx_next); free(self.f.n); free(self.f.w); free(self.f.stamp)
        free(self.f.root_child); free(self.f.chash); free(self.f.table); free(self.f.last); free(self.f.look)
        free(self.f.cstart); free(self.f.clen); free(self.f.ccap); free(self.f.ctot); free(self.f.cidx)

    def clear(self):
        """Forget every pattern (new game)."""
        cdef int i
        self.f.n_nodes = 0
        self.f.cidx_used = 0
        self.f.clock = 0
        self.f.asked = self.f.suggested = self.f.played = 0
        for i in range(self.f.nn + 1):
            self.f.root_child[i] = -1
        if self.f.table_mask + 1 > (1 << 14):
            free(self.f.table)
            self.f.table_mask = (1 << 14) - 1
            self.f.table = <int32_t*>malloc((self.f.table_mask + 1) * sizeof(int32_t))
            if self.f.table == NULL:
                raise MemoryError("cannot allocate the reply forest table")
        memset(self.f.table, 0xFF, (self.f.table_mask + 1) * sizeof(int32_t))

    def update(self, moves, int first_color, double black_reward):
        """Python entry to Algorithm 1 (tests): moves is the descent sequence."""
        cdef int16_t buf[3 * MAXNN]
        cdef int i, n = len(moves)
        for i in range(n):
            buf[i] = moves[i]
        bhrf_update(&self.f, buf, n, n, first_color, black_reward)

    def patterns(self, int reply):
        """All (context tuple newest-first, n, mean) stored for reply."""
        out = []
        def walk(int node, tuple ctx):
            while node >= 0:
                c2 = ctx + (self.f.move[node],)
                out.append((c2, self.f.n[node], self.f.w[node] / self.f.n[node]))
                walk(self.f.child[node], c2)
                node = self.f.sibling[node]
        walk(self.f.root_child[reply], ())
        return out

    def suggest(self, Board board):
        """The replies of the longest matching contexts for board's last
        moves (legality not checked)."""
        cdef int cand[MAXCAND]
        cdef int cnode[MAXCAND]
        cdef int nc = _longest(&self.f, board.b, cand, cnode)
        return sorted(cand[i] for i in range(nc))

    def playout(self, Board board, unsigned long long seed=1, double komi=7.0):
        """One BHRF rollout from a copy of board: (score, moves)."""
        cdef board_t tmp
        cdef rng_t rng
        cdef int16_t moves[3 * MAXNN]
        cdef int n = 0
        rng.s = (<unsigned long long>seed) * <unsigned long long>0x9E3779B97F4A7C15 + 7
        board_copy(&tmp, board.b)
        s = run_playout(&tmp, &rng, bhrf_move, &self.f, komi, 3 * self.f.nn, moves, &n, NULL)
        return s, [moves[i] for i in range(n)]

    def stats(self):
        return {"nodes": self.f.n_nodes, "capacity": self.f.capacity, "asked": self.f.asked,
                "suggested": self.f.suggested, "played": self.f.played,
                "bytes": self.f.capacity * (2 + 2 + 4 * 3 + 4 * 2 + 4 + 8 + 4 + 20 + 16 + 16) + 4 * (self.f.table_mask + 1)}

    @property
    def epsilon(self):
        return self.f.epsilon
