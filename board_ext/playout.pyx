# cython: language_level=3
"""Rollout policies and the playout loop.

Owns: the uniform random policy, the expert (Fuego-like) policy, the MoGo 3x3
pattern table, and ``run_playout``.  A policy is a C function pointer
(``policy_fn``) so another policy (BHRF) can sit in front of these from
Cython.  Everything on the playout path is ``nogil`` with no Python objects.

Random policy: uniform among legal moves that do not fill a true own eye
(scan of the empty-point list from a random start, as libEGO does).

Expert policy (after Fuego's GoUctPlayoutPolicy, reduced): in order,
1. atari capture: the last move's chain is in atari -> take it;
2. atari defence: an own chain next to the last move is in atari -> capture
   an adjacent attacker in atari, else extend if that gives >= 2 liberties;
3. pattern replies: MoGo's 3x3 patterns on the 8 points around the last move
   (no self-atari), one chosen uniformly;
4. random as above, rejecting self-atari of an existing chain where it can.
Deviation from Fuego: no nakade, no low-liberty (2-lib) rule, no global
capture phase.

Moggy policy (after Pachi's playout/moggy.c and Fuego's
GoUctPlayoutPolicy; issue 33): the rules of the table below (``R_*``), in
order, each tried with its own probability (``[rollout]`` in the config,
``set_moggy_rates``); the first that fires and finds a move plays it, else
a random move.  The ladder rules read with board_ext/tactics.pyx on the
rollout's own board (moves played and taken back).  Every candidate is
legal under simple ko and is not a bad self-atari (``_bad_selfatari``:
a multi-stone self-atari always, unless it fills an eye space from inside;
a single stone that is neither a snapback nor a throw-in, when the
self-atari rule fires); when only bad self-ataris are left the policy
passes, so a seki stays a seki.  Not in it: Pachi's ko-fight rule (ko is
only respected), its eye-fix and seki-breaking checks, pattern weights
(the pattern candidates are drawn uniformly).  The counting variant
(``moggy_move_counting``) is the same body with the profile counters on,
used only by ``moggy_profile``.
"""
from libc.stdint cimport int16_t, uint64_t, uint8_t
from libc.string cimport memcpy
from board_ext.board cimport (board_t, rng_t, geom_t, board_copy, board_legal, board_play,
                              board_is_eye, board_playable, board_libs, board_chain_lib, board_score,
                              rng_int, rng_next, MAXNN, MAXW, EMPTY, BLACK, WHITE)
from board_ext.board cimport Board
from board_ext.tactics cimport MAX_ADJ, atari_neighbours, chain_libs_after, ladder_captures_inplace, ladder_works_inplace
import time

from board_ext.pat3 import pattern_table

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil

# ---------------------------------------------------------------- patterns
cdef uint8_t PAT3[65536]
cdef bytes _PAT3_TABLE = pattern_table()     # MoGo's 3x3 patterns (board_ext/pat3.py)
memcpy(PAT3, <const char*>_PAT3_TABLE, 65536)
N_PATTERN_CODES = sum(_PAT3_TABLE)


cdef inline int pat_code(const board_t* b, int p) noexcept nogil:
    """p's 3x3 ring, two bits a point (off-board points read the sentinel's
    OFFBOARD = 3)."""
    cdef const int16_t* r = b.g.nbr8[p]
    cdef const uint8_t* col = b.color
    return (col[r[0]] | (col[r[1]] << 2) | (col[r[2]] << 4) | (col[r[3]] << 6)
            | (col[r[4]] << 8) | (col[r[5]] << 10) | (col[r[6]] << 12) | (col[r[7]] << 14))


cdef int pattern_match(const board_t* b, int p) noexcept nogil:
    """p (empty) is the centre of a MoGo 3x3 pattern."""
    return PAT3[pat_code(b, p)]


def playable(Board board, int p, int color):
    """Python view of board_playable, the random policy's per-point test
    (for tests): p is empty, legal for color under simple ko and not a true
    eye of color."""
    if not 0 <= p < board.b.g.nn or board.b.color[p] != EMPTY:
        return False
    return bool(board_playable(board.b, p, color))


def matches_pattern(Board board, int p):
    """Python view of pattern_match (for tests and rollout profiles)."""
    if board.b.color[p] != EMPTY:
        return False
    return bool(pattern_match(board.b, p))


# ---------------------------------------------------------------- helpers
cdef inline bint has_own_nbr(const board_t* b, int p, int c) noexcept nogil:
    """A stone of colour c next to p (one read of p's neighbour counts)."""
    return ((b.nbc[p] >> (4 * c)) & 15) != 0


cdef inline bint libs_after_ge2(const board_t* b, int p, int c) noexcept nogil:
    """chain_libs_after(b, p, c) >= 2, out at once when p has two empty
    neighbours (two liberties whatever else it joins)."""
    return (b.nbc[p] & 15) >= 2 or chain_libs_after(b, p, c) >= 2


# ---------------------------------------------------------------- priors
# Weights of prior.evaluator = "expert" (engine/evaluator.py normalises
# them): Fuego-like prior knowledge (GoUctDefaultPriorKnowledge) from the
# expert policy's own rules, reduced; the values are this project's.
cdef float PRIOR_CAPTURE = 1.0      # takes an opponent chain in atari
cdef float PRIOR_DEFEND = 1.0       # gives an own chain in atari >= 2 liberties
cdef float PRIOR_PATTERN = 0.6      # centre of a MoGo 3x3 pattern
cdef float PRIOR_PLAIN = 0.25       # any other legal move
cdef float PRIOR_EDGE = 0.05        # first line, no stone within Manhattan distance 2
cdef float PRIOR_SELF_ATARI = 0.02  # leaves its own chain one liberty, captures nothing
cdef float PRIOR_OWN_EYE = 0.01     # fills a true eye of its own
cdef float PRIOR_PASS = 0.01
PRIOR_WEIGHTS = dict(capture=PRIOR_CAPTURE, defend=PRIOR_DEFEND, pattern=PRIOR_PATTERN,
                     plain=PRIOR_PLAIN, edge=PRIOR_EDGE, self_atari=PRIOR_SELF_ATARI,
                     own_eye=PRIOR_OWN_EYE, pass_=PRIOR_PASS)


cdef float _expert_weight(const board_t* b, int p, int c) noexcept nogil:
    cdef const geom_t* g = b.g
    cdef int i, n, x, y, dx, dy, s = g.size
    if not board_legal(b, p, c):
        return 0.0
    if board_is_eye(b, p, c):
        return PRIOR_OWN_EYE
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == 3 - c and board_libs(b, n) == 1:
            return PRIOR_CAPTURE
    cdef int la = chain_libs_after(b, p, c)
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == c and board_libs(b, n) == 1 and la >= 2:
            return PRIOR_DEFEND
    if la <= 1:
        return PRIOR_SELF_ATARI
    if PAT3[pat_code(b, p)]:
        return PRIOR_PATTERN
    x = p % s
    y = p // s
    if s >= 7 and (x == 0 or y == 0 or x == s - 1 or y == s - 1):
        # the diamond of radius 2 around p, clipped to the board
        for dy in range(-2, 3):
            for dx in range(abs(dy) - 2, 3 - abs(dy)):
                if 0 <= x + dx < s and 0 <= y + dy < s and b.color[(y + dy) * s + x + dx] != EMPTY:
                    return PRIOR_PLAIN
        return PRIOR_EDGE
    return PRIOR_PLAIN


def expert_priors(Board board, float[::1] out):
    """Unnormalised expert-knowledge prior weights of every move of the side
    to move into out (length nn + 1, pass last); 0 for a move illegal under
    simple ko (superko is the caller's)."""
    cdef const board_t* b = board.b
    cdef int nn = b.g.nn, p, c = b.to_move
    if out.shape[0] != nn + 1:
        raise ValueError(f"out must have {nn + 1} entries")
    with nogil:
        for p in range(nn):
            out[p] = _expert_weight(b, p, c) if b.color[p] == EMPTY else 0.0
        out[nn] = PRIOR_PASS


# ---------------------------------------------------------------- policies
cdef int random_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil:
    cdef int n = b.n_empty, c = b.to_move, i, j, p
    if n == 0:
        return b.g.nn
    j = rng_int(rng, n)
    p = b.empty_list[j]
    if b.nbc[p] & 15:
        return p    # the common case, an empty neighbour: playable, and out
                    # before the scan's register saves
    for i in range(n):
        p = b.empty_list[j]
        if board_playable(b, p, c):
            return p
        j += 1
        if j == n:
            j = 0
    return b.g.nn


cdef inline int _capture_next_to(const board_t* b, int r, int c) noexcept nogil:
    """The capture, legal for c, of an opponent chain in atari next to c's
    chain r (the first in the order of r's stones), or -1."""
    cdef int adj[MAX_ADJ]
    cdef int k, lib, n = atari_neighbours(b, r, adj)
    for k in range(n):
        lib = board_chain_lib(b, adj[k])
        if board_legal(b, lib, c):
            return lib
    return -1


cdef int _atari_defence(board_t* b, int r, int c) noexcept nogil:
    """A move saving own chain r (in atari): capture an adjacent opponent
    chain in atari, else extend to >= 2 liberties; -1 if none."""
    cdef int lib = _capture_next_to(b, r, c)
    if lib >= 0:
        return lib
    lib = board_chain_lib(b, r)
    if lib >= 0 and board_legal(b, lib, c) and libs_after_ge2(b, lib, c):
        return lib
    return -1


cdef extern from *:
    """
    static inline int __builtin_ctzll_(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int __builtin_ctzll_(unsigned long long) nogil


cdef int expert_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil:
    cdef const geom_t* g = b.g
    cdef int c = b.to_move, last = b.hist[0], i, n, p, k, lib, m
    cdef int cand[8]
    cdef int ncand = 0
    if last >= 0 and last != g.nn and b.color[last] != EMPTY:
        # 1. atari capture
        if board_libs(b, last) == 1:
            lib = board_chain_lib(b, last)
            if board_legal(b, lib, c):
                return lib
        # 2. atari defence
        for i in range(g.n_nbr[last]):
            n = g.nbr[last][i]
            if b.color[n] == c and board_libs(b, n) == 1:
                m = _atari_defence(b, b.chain[n], c)
                if m >= 0:
                    return m
        # 3. patterns around the last move
        for k in range(8):
            p = g.nbr8[last][k]
            if b.color[p] == EMPTY and PAT3[pat_code(b, p)] \
                    and board_legal(b, p, c) and libs_after_ge2(b, p, c):
                cand[ncand] = p
                ncand += 1
        if ncand:
            return cand[rng_int(rng, ncand)]
    # 4. random, avoiding self-atari of an existing chain
    cdef int ne = b.n_empty, j, fallback = -1
    if ne == 0:
        return g.nn
    j = rng_int(rng, ne)
    for i in range(ne):
        p = b.empty_list[j]
        if board_playable(b, p, c):
            if not has_own_nbr(b, p, c) or libs_after_ge2(b, p, c):
                return p
            if fallback < 0:
                fallback = p
        j += 1
        if j == ne:
            j = 0
    return fallback if fallback >= 0 else g.nn


include "moggy.pxi"     # the moggy rollout policy (board_ext/moggy.pxi)


cdef policy_fn get_policy(int policy_id) noexcept nogil:
    if policy_id == POLICY_EXPERT:
        return expert_move
    if policy_id == POLICY_MOGGY:
        return moggy_move
    return random_move


cdef double run_playout(board_t* b, rng_t* rng, policy_fn policy, void* ctx, double komi,
                        int max_moves, int16_t* moves_out, int* n_moves,
                        signed char* owner) noexcept nogil:
    """Play b to the end (two passes or max_moves); return the Tromp-Taylor
    score (black - white - komi). Moves go to moves_out (if not NULL)."""
    cdef int m, k = 0
    while b.passes < 2 and k < max_moves:
        m = policy(b, rng, ctx)
        board_play(b, m, b.to_move)
        if moves_out:
            moves_out[k] = m
        k += 1
    if n_moves:
        n_moves[0] = k
    return board_score(b, komi, owner)


# ---------------------------------------------------------------- Python API
POLICIES = {"random": POLICY_RANDOM, "expert": POLICY_EXPERT, "moggy": POLICY_MOGGY}


def policy_id(name):
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown rollout policy '{name}' (expected one of {sorted(POLICIES)})") from None


cdef inline void seed_rng(rng_t* r, uint64_t seed) noexcept nogil:
    r.s = seed * <uint64_t>0x9E3779B97F4A7C15 + <uint64_t>0x632BE59BD9B4E019
    if r.s == 0:
        r.s = 1
    rng_next(r)


def playout(Board board, policy="random", uint64_t seed=1, double komi=7.0, int max_moves=0):
    """One playout from a copy of board. Returns (score, moves), score as
    black minus white minus komi; the board itself is not changed."""
    cdef board_t tmp
    cdef rng_t rng
    cdef int16_t moves[3 * MAXNN]
    cdef int n = 0
    cdef int pid = policy_id(policy)
    if max_moves <= 0 or max_moves > 3 * MAXNN:
        max_moves = 3 * board.b.g.nn
    seed_rng(&rng, seed)
    board_copy(&tmp, board.b)
    cdef double s
    with nogil:
        s = run_playout(&tmp, &rng, get_policy(pid), NULL, komi, max_moves, moves, &n, NULL)
    return s, [moves[i] for i in range(n)]


def ownership(Board board, int n_playouts, policy="random", uint64_t seed=1, double komi=7.0):
    """Mean final owner per point over n playouts (+1 black, -1 white) and
    the mean score. For dead-stone estimates (final_status_list)."""
    cdef board_t tmp
    cdef rng_t rng
    cdef signed char own[MAXNN]
    cdef double acc[MAXNN]
    cdef int nn = board.b.g.nn, i, k
    cdef double total = 0.0
    cdef policy_fn pol = get_policy(policy_id(policy))
    if n_playouts <= 0:
        raise ValueError("n_playouts must be positive")
    seed_rng(&rng, seed)
    for i in range(nn):
        acc[i] = 0.0
    with nogil:
        for k in range(n_playouts):
            board_copy(&tmp, board.b)
            total += run_playout(&tmp, &rng, pol, NULL, komi, 3 * nn, NULL, NULL, own)
            for i in range(nn):
                acc[i] += own[i]
    return [acc[i] / n_playouts for i in range(nn)], total / n_playouts


def bench_playouts(Board board, policy="random", double seconds=1.0, uint64_t seed=1,
                   double komi=7.0):
    """Run playouts from board for about `seconds`; returns (count, elapsed,
    mean moves per playout). Checks the clock every 64 playouts."""
    cdef board_t tmp
    cdef rng_t rng
    cdef int nn = board.b.g.nn, n
    cdef long count = 0, moves = 0
    cdef policy_fn pol = get_policy(policy_id(policy))
    seed_rng(&rng, seed)
    t0 = time.perf_counter()
    while True:
        with nogil:
            for _ in range(64):
                board_copy(&tmp, board.b)
                run_playout(&tmp, &rng, pol, NULL, komi, 3 * nn, NULL, &n, NULL)
                moves += n
            count += 64
        el = time.perf_counter() - t0
        if el >= seconds:
            return count, el, moves / count


def set_moggy_rates(**rates):
    """Set rule probabilities of the moggy policy by name (RULE_NAMES;
    values in [0, 1]); the others keep theirs. Process-wide: the defaults
    of rollouts given no MoggyRates (benchmarks, profiles)."""
    _check_rates(rates)
    for name, v in rates.items():
        MOGGY_RATE[RULE_NAMES.index(name)] = <uint64_t>(float(v) * 4294967296.0)


def _check_rates(rates):
    for name, v in rates.items():
        if name not in RULE_NAMES:
            raise ValueError(f"moggy.{name}: unknown moggy rule (known: {', '.join(RULE_NAMES)})")
        v = float(v)
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"moggy.{name}: probability {v} is outside [0, 1]")


cdef class MoggyRates:
    """One set of moggy rule probabilities (RULE_NAMES, values in [0, 1];
    the others at the process defaults), for a tree to pass its rollouts
    as their ctx: two engines in one process each keep their own."""

    def __cinit__(self, **rates):
        _check_rates(rates)
        cdef int i
        for i in range(N_RATES):
            self.m.rate[i] = MOGGY_RATE[i]
        for name, v in rates.items():
            self.m.rate[RULE_NAMES.index(name)] = <uint64_t>(float(v) * 4294967296.0)


def moggy_rates():
    """The rule probabilities in use, by name."""
    return {name: MOGGY_RATE[i] / 4294967296.0 for i, name in enumerate(RULE_NAMES)}


set_moggy_rates(**DEFAULT_RATES)


def moggy_profile(Board board, int n_playouts, uint64_t seed=1, double komi=7.0):
    """Run n moggy playouts from board with the counting variant; returns
    {source: moves} over PROFILE_NAMES and the total moves played."""
    cdef board_t tmp
    cdef rng_t rng
    cdef int nn = board.b.g.nn, k, n
    cdef long total = 0
    if n_playouts <= 0:
        raise ValueError("n_playouts must be positive")
    for k in range(N_COUNTS):
        MOGGY_COUNT[k] = 0
    seed_rng(&rng, seed)
    with nogil:
        for k in range(n_playouts):
            board_copy(&tmp, board.b)
            run_playout(&tmp, &rng, moggy_move_counting, NULL, komi, 3 * nn, NULL, &n, NULL)
            total += n
    return {name: int(MOGGY_COUNT[i]) for i, name in PROFILE_NAMES.items()}, total
