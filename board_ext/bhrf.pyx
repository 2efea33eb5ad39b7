# cython: language_level=3
"""BHRF: the Background History Reply Forest (Fabbri, Armetta, Duchene and
Hassas) and its rollout policy.

Owns: the forest (one reply tree per reply move; a node below the root of
reply ``r`` is a context, the moves that preceded ``r``, deepest = longest),
its update from each descent (Algorithms 1 and 2) and the rollout policy that
reads it at every rollout move (Algorithms 3 and 4).  Plain C arrays; the
lookup and the update are ``nogil`` with no Python objects.  Imports nothing
of the project but ``board_ext``.

The design (terms, the two tables, the lookup) and every deviation from
the paper, each a knob or stated: docs/BHRF.md.
"""
from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy, memmove
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.math cimport log, sqrt
from board_ext.board cimport (board_t, rng_t, Board, board_legal, board_is_eye, board_playable, board_copy,
                              MAXNN, MAXW, BLACK, EMPTY, NHIST)
from board_ext.playout cimport (policy_fn, get_policy, run_playout, POLICY_RANDOM, POLICY_EXPERT,
                                POLICY_MOGGY)

cdef extern from "bhrf_select.h":     # the select (board_ext/bhrf_select.h)
    int bhrf_select64(uint64_t x, int k) nogil
    int bhrf_select64_bw(uint64_t x, int k) nogil
    int bhrf_pdep_check() nogil

cdef extern from *:
    int popcount64 "__builtin_popcountll"(uint64_t x) nogil
    int ctz64 "__builtin_ctzll"(uint64_t x) nogil


SELECTIONS = {"soft-uct": 0, "last-reply": 1, "uniform": 2}
from board_ext.playout import POLICIES
FALLBACKS = dict(POLICIES)      # every rollout policy of the registry can stand behind the forest

cdef enum:
    SEL_SOFT_UCT = 0
    SEL_LAST_REPLY = 1
    SEL_UNIFORM = 2
    MAXD = 8
    TABLE_BITS0 = 12        # both tables start at 4096 slots
    REC0 = 1 << 14          # reply records allocated at first
    TRIES = 16              # soft-UCT rejection trials before the weighed draw
    NO_STOP = 1 << 30       # stop_at without a horizon: past every move count

cdef uint64_t CTXZ[MAXD][MAXNN + 1]
cdef uint64_t RZ[MAXNN + 1]


cdef void _init_keys():
    cdef uint64_t x = 0x2545F4914F6CDD1D
    cdef int d, m
    for d in range(MAXD + 1):
        for m in range(MAXNN + 1):
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            if d < MAXD:
                CTXZ[d][m] = x * <uint64_t>0x9E3779B97F4A7C15
            else:
                RZ[m] = x * <uint64_t>0x9E3779B97F4A7C15

_init_keys()


# ---------------------------------------------------------------- random
# The board's xorshift64* on the same state, inline here: the rollout draws
# several numbers per move and a call across modules costs more than the draw.
cdef inline uint64_t _rnd(rng_t* r) noexcept nogil:
    r.s ^= r.s >> 12
    r.s ^= r.s << 25
    r.s ^= r.s >> 27
    return r.s * <uint64_t>2685821657736338717


cdef inline float _unit(rng_t* r) noexcept nogil:
    """Uniform in [0, 1), 24 bits."""
    return <float>(_rnd(r) >> 40) * <float>5.9604644775390625e-08


# ---------------------------------------------------------------- tables
cdef inline int _ctx_find(const forest_t* f, uint64_t h) noexcept nogil:
    """Slot of context h, or -1.  The presence bits answer most misses
    without touching the table (they stay in cache, the table need not)."""
    cdef uint64_t i = h & (8 * (f.ctx_mask + 1) - 1)
    if not (f.cfilt[i >> 6] >> (i & 63)) & 1:
        return -1
    i = h >> f.ctx_shift
    while True:
        if f.ctx[i].len == 0:
            return -1
        if f.ctx[i].h == h:
            return <int>i
        i = (i + 1) & f.ctx_mask


cdef inline int _node_find(const forest_t* f, uint64_t h, int r) noexcept nogil:
    """Pattern node (context h, reply r), or -1."""
    cdef uint64_t key = h ^ RZ[r]
    cdef uint64_t i = key >> f.ntab_shift
    while True:
        if f.ntab[i].node < 0:
            return -1
        if f.ntab[i].key == key:
            return f.ntab[i].node
        i = (i + 1) & f.ntab_mask


cdef inline int _rank(const uint64_t* bits, int w, int r) noexcept nogil:
    """Set bits before bit r of word w: the block index of reply 64 w + r."""
    cdef int i, k = popcount64(bits[w] & (((<uint64_t>1) << r) - 1))
    for i in range(w):
        k += popcount64(bits[i])
    return k


cdef void _ntab_put(nslot_t* t, uint64_t mask, int shift, uint64_t key, int node) noexcept nogil:
    cdef uint64_t i = key >> shift
    while t[i].node >= 0:
        i = (i + 1) & mask
    t[i].key = key
    t[i].node = node


cdef int _ctx_put(ctx_t* t, uint64_t mask, int shift, uint64_t h) noexcept nogil:
    """First empty slot on h's probe path (h known to be absent)."""
    cdef uint64_t i = h >> shift
    while t[i].len != 0:
        i = (i + 1) & mask
    t[i].h = h
    return <int>i


cdef bint _grow_ntab(forest_t* f) noexcept nogil:
    cdef uint64_t size = (f.ntab_mask + 1) * 2, i
    cdef nslot_t* t = <nslot_t*>malloc(size * sizeof(nslot_t))
    if t == NULL:
        return False
    memset(t, 0xFF, size * sizeof(nslot_t))
    for i in range(f.ntab_mask + 1):
        if f.ntab[i].node >= 0:
            _ntab_put(t, size - 1, f.ntab_shift - 1, f.ntab[i].key, f.ntab[i].node)
    free(f.ntab)
    f.ntab = t
    f.ntab_mask = size - 1
    f.ntab_shift -= 1
    return True


cdef inline void _filt_set(uint64_t* filt, uint64_t mask, uint64_t h) noexcept nogil:
    cdef uint64_t i = h & (8 * (mask + 1) - 1)
    filt[i >> 6] |= (<uint64_t>1) << (i & 63)


cdef bint _grow_ctx(forest_t* f) noexcept nogil:
    cdef uint64_t size = (f.ctx_mask + 1) * 2, i
    cdef ctx_t* t = <ctx_t*>malloc(size * sizeof(ctx_t))
    cdef uint64_t* bits = <uint64_t*>malloc(size * f.nw * sizeof(uint64_t))
    cdef uint64_t* filt = <uint64_t*>malloc(size // 8 * sizeof(uint64_t))
    cdef int s
    if t == NULL or bits == NULL or filt == NULL:
        free(t)
        free(bits)
        free(filt)
        return False
    memset(t, 0, size * sizeof(ctx_t))
    memset(filt, 0, size // 8 * sizeof(uint64_t))
    for i in range(f.ctx_mask + 1):
        if f.ctx[i].len != 0:
            s = _ctx_put(t, size - 1, f.ctx_shift - 1, f.ctx[i].h)
            t[s] = f.ctx[i]
            memcpy(bits + s * f.nw, f.cbits + i * f.nw, f.nw * sizeof(uint64_t))
            _filt_set(filt, size - 1, f.ctx[i].h)
    free(f.ctx)
    free(f.cbits)
    free(f.cfilt)
    f.ctx = t
    f.cbits = bits
    f.cfilt = filt
    f.ctx_mask = size - 1
    f.ctx_shift -= 1
    for i in range(f.nn + 1):
        if f.ctx1[i] >= 0:
            f.ctx1[i] = _ctx_find(f, CTXZ[0][i])
    return True


cdef bint _reserve(forest_t* f, long k) noexcept nogil:
    """Room for k more reply records at the end of rec."""
    cdef long cap
    cdef rec_t* p
    if f.rec_used + k <= f.rec_cap:
        return True
    cap = 2 * f.rec_cap
    if cap < f.rec_used + k:
        cap = f.rec_used + k
    p = <rec_t*>realloc(f.rec, cap * sizeof(rec_t))
    if p == NULL:
        return False
    f.rec = p
    f.rec_cap = cap
    return True


# ---------------------------------------------------------------- update
cdef int _new_node(forest_t* f, int m, int r, uint64_t h, int parent) noexcept nogil:
    """Pattern node (context h, reply r) below parent; its reply record is
    inserted in its context's block at the rank of r. -1 (nothing changed)
    when full."""
    cdef int i, s, k
    cdef ctx_t* C
    cdef uint64_t* bits
    if f.n_nodes >= f.capacity:
        return -1
    if 2 * (f.n_nodes + 1) > <long>(f.ntab_mask + 1) and not _grow_ntab(f):
        return -1
    s = _ctx_find(f, h)
    if s < 0:
        if 2 * (f.n_ctx + 1) > <long>(f.ctx_mask + 1) and not _grow_ctx(f):
            return -1
        if not _reserve(f, 4):
            return -1
        s = _ctx_put(f.ctx, f.ctx_mask, f.ctx_shift, h)
        _filt_set(f.cfilt, f.ctx_mask, h)
        if parent < 0:
            f.ctx1[m] = s
        C = &f.ctx[s]
        C.start = <int32_t>f.rec_used
        C.cap = 4
        C.len = 0
        C.tot = 0
        C.lg = 0
        C.last = r
        memset(f.cbits + s * f.nw, 0, f.nw * sizeof(uint64_t))
        f.rec_used += 4
        f.n_ctx += 1
    else:
        C = &f.ctx[s]
        if C.len == C.cap:
            if not _reserve(f, 2 * C.cap):
                return -1
            memcpy(f.rec + f.rec_used, f.rec + C.start, C.len * sizeof(rec_t))
            C.start = <int32_t>f.rec_used
            C.cap *= 2
            f.rec_used += C.cap
    bits = f.cbits + s * f.nw
    k = _rank(bits, r >> 6, r & 63)
    memmove(f.rec + C.start + k + 1, f.rec + C.start + k, (C.len - k) * sizeof(rec_t))
    f.rec[C.start + k].reply = r
    f.rec[C.start + k].mean = 0
    f.rec[C.start + k].isq = 0
    bits[r >> 6] |= (<uint64_t>1) << (r & 63)
    C.len += 1
    i = f.n_nodes
    f.n_nodes += 1
    f.h[i] = h
    f.reply[i] = r
    f.move[i] = m
    f.parent[i] = parent
    f.n[i] = 0
    f.w[i] = 0
    _ntab_put(f.ntab, f.ntab_mask, f.ntab_shift, h ^ RZ[r], i)
    return i


cdef inline void _record(forest_t* f, int c, double outcome) noexcept nogil:
    """One outcome for pattern node c: its mean and 1/sqrt(n) in its reply
    record, its context's visit total, log term and last reply."""
    cdef int s = _ctx_find(f, f.h[c]), r = f.reply[c]
    cdef ctx_t* C = &f.ctx[s]
    cdef rec_t* R = &f.rec[C.start + _rank(f.cbits + s * f.nw, r >> 6, r & 63)]
    f.n[c] += 1
    f.w[c] += outcome
    R.mean = <float>(f.w[c] / f.n[c])
    R.isq = <float>(1.0 / sqrt(<double>f.n[c]))
    C.tot += 1
    C.lg = <float>sqrt(log(<double>C.tot))
    C.last = r


cdef void _update_tree(forest_t* f, const int16_t* seq, int i, double outcome) noexcept nogil:
    """Algorithm 2: walk the context seq[i-1], seq[i-2], ... of reply seq[i],
    updating existing nodes and creating at most one new one.  The direct
    child with move m of node (context, r) is the node (context + m, r),
    found in the node table."""
    cdef int r = seq[i], depth = 0, m, c, parent = -1
    cdef uint64_t h = 0
    while i > 0 and depth < f.max_depth:
        i -= 1
        m = seq[i]
        h ^= CTXZ[depth][m]
        c = _node_find(f, h, r)
        if c < 0:
            c = _new_node(f, m, r, h, parent)
            if c >= 0:
                _record(f, c, outcome)
            return
        _record(f, c, outcome)
        parent = c
        depth += 1


cdef void bhrf_update(void* ctx, const int16_t* moves, int n, int n_tree,
                      int first_color, double black_reward) noexcept nogil:
    """Algorithm 1: every move of the descent sequence updates its reply
    tree with the outcome from its mover's point of view.

    Two deviations, both off by default (the paper's setting):
    skip_expansion leaves out the last descent move, the move into the node
    the simulation added (without priors the tree picks it at random, and
    the forest would learn random replies); root_context puts the game
    moves before the root in front of the sequence as context only, so the
    first descent moves get a context too (the paper's Algorithm 2 gives
    the first descent move none)."""
    cdef forest_t* f = <forest_t*>ctx
    cdef int i, color, k = f.n_prefix if f.root_context else 0
    cdef double out
    cdef int16_t seq[8 + 3 * MAXNN]
    if f.skip_expansion and n_tree > 0:
        n_tree -= 1
    if n_tree > 3 * MAXNN:
        n_tree = 3 * MAXNN
    # seq = the context before the root (k moves, none by default) + the descent
    for i in range(k):
        seq[i] = f.prefix[i]
    for i in range(n_tree):
        seq[k + i] = moves[i]
    for i in range(k + n_tree - 1, k - 1, -1):
        if seq[i] >= f.nn:
            continue
        color = first_color if (i - k) % 2 == 0 else 3 - first_color
        out = black_reward if color == BLACK else 1.0 - black_reward
        _update_tree(f, seq, i, out)


include "bhrf_rollout.pxi"     # the rollout policy (board_ext/bhrf_rollout.pxi)


# ---------------------------------------------------------------- Python API
bhrf_pdep_check()       # PDEP or the broadword select, once per process


def select64(uint64_t x, int k, bint broadword=False):
    """Position of the k-th (from 0) set bit of x, by the select the
    rollout uses on this machine or (broadword) the portable one; for
    tests."""
    if not 0 <= k < popcount64(x):
        raise ValueError("k must be below the number of set bits of x")
    return bhrf_select64_bw(x, k) if broadword else bhrf_select64(x, k)


cdef class Forest:
    """The reply forest and its policy settings.

    Args:
        size: board size.
        epsilon: probability of asking the forest at a rollout move.
        selection: "soft-uct", "last-reply" (the paper's two) or
            "uniform" (a deviation, see the module notes).
        b: soft-UCT exploration constant (paper: 0.7).
        fallback: default policy, "random", "expert" or "moggy".
        max_depth: longest context (1..7).
        capacity: most pattern nodes kept.
        root_context: the game moves before the root are context for the
            first descent moves (deviation; see bhrf_update).
        skip_expansion: the move into the node a simulation added is not
            stored as a reply (deviation; see bhrf_update).
        accept: soft-UCT plays the drawn reply with probability
            "estimate" min(1, u_r) (u_r the numerator of equation 1) or
            "probability" P(r|c) = u_r / sum u over the replies on empty
            points (equation 1 itself), or "mean" the reply's win rate
            w / n without the exploration term (the paper's "uctEstimate"
            admits all three readings).
        horizon: ask the forest only in positions fewer than this many
            moves past the root (set_root); 0 asks it at every rollout
            move (the paper). A deviation, see the module notes.
        trials: soft-UCT draws from the context's whole reply block in at
            most this many trials, then leaves the move to the default
            policy; 0 (the paper) draws exactly among the replies on empty
            points. A deviation, see the module notes.
    """

    def __cinit__(self, int size, double epsilon=1.0, selection="soft-uct", double b=0.7,
                  fallback="random", int max_depth=3, int capacity=1_000_000,
                  bint root_context=False, bint skip_expansion=False, accept="estimate",
                  int horizon=0, double horizon_share=0.0, int trials=0, match="longest"):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"bhrf.epsilon must be in [0, 1], got {epsilon}")
        if selection not in SELECTIONS:
            raise ValueError(f"bhrf.selection: unknown selection process '{selection}'")
        if fallback not in FALLBACKS:
            raise ValueError(f"bhrf.fallback: unknown policy '{fallback}'")
        if not 1 <= max_depth <= NHIST - 1:
            raise ValueError(f"bhrf.max_depth must be in 1..{NHIST - 1}")
        if capacity < 1:
            raise ValueError("bhrf capacity must be positive")
        if horizon < 0:
            raise ValueError(f"bhrf.horizon must be >= 0, got {horizon}")
        if not 0.0 <= horizon_share <= 1.0:
            raise ValueError(f"bhrf.horizon_share must be in [0, 1], got {horizon_share}")
        cdef forest_t* f = &self.f
        f.horizon = horizon
        f.horizon_share = <float>horizon_share
        f.stop_at = NO_STOP
        f.nn = size * size
        f.nw = (f.nn + 63) // 64
        f.capacity = capacity
        f.max_depth = max_depth
        f.selection = SELECTIONS[selection]
        f.epsilon = epsilon
        f.b = <float>b
        f.fallback = get_policy(FALLBACKS[fallback])
        f.fallback_ctx = NULL
        if accept not in ("estimate", "probability", "mean"):
            raise ValueError(f"bhrf.accept: unknown rule '{accept}'")
        f.accept_p = accept == "probability"
        if not 0 <= trials <= 1000:
            raise ValueError(f"bhrf.trials must be in 0..1000, got {trials}")
        if trials > 0 and f.accept_p:
            raise ValueError("bhrf.trials: the trials draw has no accept = 'probability' "
                             "(it sums u over no candidate set)")
        f.trials = trials
        f.accept_mean = accept == "mean"
        if match not in ("longest", "legal"):
            raise ValueError(f"bhrf.match: unknown rule '{match}' (longest or legal)")
        f.legal_first = match == "legal"
        f.root_context = root_context
        f.skip_expansion = skip_expansion
        f.n_prefix = 0
        f.h = <uint64_t*>malloc(capacity * sizeof(uint64_t))
        f.reply = <int16_t*>malloc(capacity * sizeof(int16_t))
        f.move = <int16_t*>malloc(capacity * sizeof(int16_t))
        f.parent = <int32_t*>malloc(capacity * sizeof(int32_t))
        f.n = <uint32_t*>malloc(capacity * sizeof(uint32_t))
        f.w = <double*>malloc(capacity * sizeof(double))
        f.ctx = NULL
        f.cbits = NULL
        f.cfilt = NULL
        f.ctx1 = <int32_t*>malloc((f.nn + 1) * sizeof(int32_t))
        f.ntab = NULL
        f.rec = NULL
        if not (f.h and f.reply and f.move and f.parent and f.n and f.w and f.ctx1):
            raise MemoryError("cannot allocate the reply forest")
        self.clear()

    def __dealloc__(self):
        free(self.f.h); free(self.f.reply); free(self.f.move); free(self.f.parent)
        free(self.f.n); free(self.f.w); free(self.f.ctx1)
        free(self.f.ctx); free(self.f.cbits); free(self.f.cfilt); free(self.f.ntab); free(self.f.rec)

    def set_root(self, Board board):
        """The position the next searches start from: with root_context,
        its last moves (at most max_depth, passes included) become the
        context in front of every descent sequence; the horizon (horizon,
        horizon_share) counts from it."""
        cdef forest_t* f = &self.f
        cdef int k = 0, d, h, hs
        if board.b.g.nn != f.nn:
            raise ValueError("board size differs from the forest's")
        while k < f.max_depth and board.b.hist[k] >= 0:
            k += 1
        for d in range(k):
            f.prefix[d] = board.b.hist[k - 1 - d]
        f.n_prefix = k
        h = f.horizon if f.horizon > 0 else NO_STOP
        if f.horizon_share > 0:
            hs = <int>(f.horizon_share * board.b.n_empty)
            h = min(h, max(hs, 1))
        f.stop_at = board.b.move_count + h if h < NO_STOP else NO_STOP

    def clear(self):
        """Forget every pattern (new game); the tables go back to their
        first size."""
        cdef forest_t* f = &self.f
        cdef uint64_t size = 1 << TABLE_BITS0
        free(f.ctx); free(f.cbits); free(f.cfilt); free(f.ntab); free(f.rec)
        f.ctx = <ctx_t*>malloc(size * sizeof(ctx_t))
        f.cbits = <uint64_t*>malloc(size * f.nw * sizeof(uint64_t))
        f.cfilt = <uint64_t*>calloc(size // 8, sizeof(uint64_t))
        f.ntab = <nslot_t*>malloc(size * sizeof(nslot_t))
        f.rec = <rec_t*>malloc(REC0 * sizeof(rec_t))
        if not (f.ctx and f.cbits and f.cfilt and f.ntab and f.rec):
            raise MemoryError("cannot allocate the reply forest tables")
        memset(f.ctx, 0, size * sizeof(ctx_t))
        memset(f.ntab, 0xFF, size * sizeof(nslot_t))
        f.ctx_mask = f.ntab_mask = size - 1
        f.ctx_shift = f.ntab_shift = 64 - TABLE_BITS0
        memset(f.ctx1, 0xFF, (f.nn + 1) * sizeof(int32_t))
        f.rec_used = 0
        f.rec_cap = REC0
        f.n_nodes = 0
        f.n_ctx = 0
        f.asked = f.suggested = f.played = 0

    def update(self, moves, int first_color, double black_reward):
        """Python entry to Algorithm 1 (tests): moves is the descent sequence."""
        cdef int16_t buf[3 * MAXNN]
        cdef int i, n = len(moves)
        if n > 3 * MAXNN:
            raise ValueError(f"descent sequence too long ({n} moves)")
        for i in range(n):
            buf[i] = moves[i]
        bhrf_update(&self.f, buf, n, n, first_color, black_reward)

    def patterns(self, int reply):
        """All (context tuple newest-first, n, mean) stored for reply."""
        out = []
        cdef int i, k
        for i in range(self.f.n_nodes):
            if self.f.reply[i] != reply:
                continue
            ctx = []
            k = i
            while k >= 0:
                ctx.append(self.f.move[k])
                k = self.f.parent[k]
            out.append((tuple(reversed(ctx)), self.f.n[i], self.f.w[i] / self.f.n[i]))
        return out

    def suggest(self, Board board):
        """The replies of the longest matching context for board's last
        moves (legality not checked), sorted."""
        cdef int s = _longest(&self.f, board.b), j
        if s < 0:
            return []
        cdef ctx_t* C = &self.f.ctx[s]
        return sorted(self.f.rec[C.start + j].reply for j in range(C.len))

    def estimates(self, Board board):
        """{reply: u_r} (equation 1's UCT estimate) for the playable replies
        of the longest matching context, computed directly (tests)."""
        cdef int s = _longest(&self.f, board.b), j, r
        out = {}
        if s < 0:
            return out
        cdef ctx_t* C = &self.f.ctx[s]
        cdef rec_t* R
        for j in range(C.len):
            R = &self.f.rec[C.start + j]
            r = R.reply
            if _playable(board.b, r, board.b.to_move):
                out[r] = R.mean + self.f.b * C.lg * R.isq
        return out

    def draws(self, Board board, int n, unsigned long long seed=1, bint plays=False):
        """{reply: times drawn} over n soft-UCT draws for board (the draw of
        Algorithm 3 before its play-with-probability step, exact or in
        trials as the forest is set; the uniform draw with selection
        "uniform", always played; None counts the draws that found no
        reply); with plays, also the number of draws that would be played.
        For tests."""
        cdef rng_t rng
        cdef int s = _longest(&self.f, board.b), k, j
        cdef bint play = False
        cdef long played = 0
        rng.s = (<unsigned long long>seed) * <unsigned long long>0x9E3779B97F4A7C15 + 7
        out = {}
        for k in range(n):
            j = _draw(&self.f, board.b, &rng, s, &play) if s >= 0 else -1
            key = None if j < 0 else j
            out[key] = out.get(key, 0) + 1
            if j >= 0 and play:
                played += 1
        return (out, played) if plays else out

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
        cdef forest_t* f = &self.f
        return {"nodes": f.n_nodes, "contexts": f.n_ctx, "capacity": f.capacity, "asked": f.asked,
                "suggested": f.suggested, "played": f.played,
                "bytes": f.capacity * (8 + 2 + 2 + 4 + 4 + 8) + (f.nn + 1) * 4
                + (f.ctx_mask + 1) * (sizeof(ctx_t) + f.nw * sizeof(uint64_t) + 1)
                + (f.ntab_mask + 1) * sizeof(nslot_t) + f.rec_cap * sizeof(rec_t)}

    @property
    def epsilon(self):
        return self.f.epsilon
