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
from libc.string cimport memset
from board_ext.board cimport (board_t, rng_t, geom_t, board_copy, board_legal, board_play,
                              board_is_eye, board_playable, board_libs, board_chain_lib, board_score,
                              rng_int, rng_next, MAXNN, MAXW, EMPTY, BLACK, WHITE)
from board_ext.board cimport Board
from board_ext.tactics cimport MAX_ADJ, atari_neighbours, chain_libs_after, ladder_captures_inplace, ladder_works_inplace
import time

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil

# ---------------------------------------------------------------- patterns
# MoGo 3x3 patterns (Gelly et al. 2006) in michi's notation: X, O colours
# (both colour assignments are used), x = not X, o = not O, ? = anything,
# ' ' = off-board; the centre is the empty candidate point.
_PATTERN_SRC = [
    ["XOX", "...", "???"],   # hane: enclosing hane
    ["XO.", "...", "?.?"],   # hane: non-cutting hane
    ["XO?", "X..", "x.?"],   # hane: magari
    [".O.", "X..", "..."],   # katatsuke or diagonal attachment
    ["XO?", "O.o", "?o?"],   # cut1: unprotected cut
    ["XO?", "O.X", "???"],   # cut1: peeped cut
    ["?X?", "O.O", "ooo"],   # cut2
    ["OX?", "o.O", "???"],   # cut keima
    ["X.?", "O.?", "   "],   # side: chase
    ["OX?", "X.O", "   "],   # side: block side cut
    ["?X?", "x.O", "   "],   # side: block side connection
    ["?XO", "x.x", "   "],   # side: sagari
    ["?OX", "X.O", "   "],   # side: cut
]

cdef uint8_t PAT3[65536]


def _build_patterns():
    def rot90(p):
        return [p[2][0] + p[1][0] + p[0][0], p[2][1] + p[1][1] + p[0][1], p[2][2] + p[1][2] + p[0][2]]

    def vflip(p):
        return [p[2], p[1], p[0]]

    def hflip(p):
        return [r[::-1] for r in p]

    def swap(p):
        return [r.replace("X", "Z").replace("O", "X").replace("Z", "O")
                 .replace("x", "z").replace("o", "x").replace("z", "o") for r in p]

    def wild(s):
        alts = {"?": ".XO ", "x": ".O ", "o": ".X "}
        out = [""]
        for ch in s:
            out = [o + a for o in out for a in alts.get(ch, ch)]
        return out

    code = {".": 0, "X": 1, "O": 2, " ": 3}
    memset(PAT3, 0, sizeof(PAT3))
    n = 0
    for pat in _PATTERN_SRC:
        variants = []
        for p in (pat, swap(pat)):
            for q in (p, vflip(p), hflip(p), vflip(hflip(p))):
                variants += [q, rot90(q)]
        for v in variants:
            s = v[0] + v[1][0] + v[1][2] + v[2]
            for e in wild(s):
                k = 0
                for i, ch in enumerate(e):
                    k |= code[ch] << (2 * i)
                if not PAT3[k]:
                    n += 1
                PAT3[k] = 1
    return n

N_PATTERN_CODES = _build_patterns()


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


# ---------------------------------------------------------------- moggy
# The rules of the moggy policy, in the order they are tried; each fires
# with its own probability (MOGGY_RATE, set by set_moggy_rates), and the
# first that fires and finds a move plays it.  R_RANDOM and R_PASS are where
# a move comes from when no rule gives one (counted by the profile only).
cdef enum:
    R_CAPTURE = 0      # the last move's chain, or an opponent chain next to the last move or to our
                       # previous move, is in atari: take it
    R_DEFEND = 1       # an own chain next to the last move is in atari: counter-capture or run,
                       # unless the ladder reader says it is caught anyway
    R_LADDER = 2       # the last move's chain has two liberties: the atari that catches it in a ladder
    R_TWOLIB = 3       # two liberties: atari the last move's chain when running leaves it one,
                       # run own two-liberty chains next to it to three, or atari their two-liberty neighbours
    R_NAKADE = 4       # the vital point of a 3-6 point eye space next to the last move
    R_PATTERN = 5      # MoGo 3x3 patterns around the last two moves
    R_GCAPTURE = 6     # a chain in atari anywhere: capture it, else run an own one out to three
    R_FILLBOARD = 7    # a point whose 3x3 neighbourhood is empty
    N_RULES = 8
    R_SELFATARI = 8    # rate: a single-stone bad self-atari is replaced (multi-stone ones always are)
    N_RATES = 9
    R_RANDOM = 9       # profile: the random fallback
    R_PASS = 10        # profile: no move but bad self-ataris (or none at all)
    R_SA_REJECTED = 11 # profile: candidates dropped as bad self-ataris (not a move source)
    N_COUNTS = 12

RULE_NAMES = ("capture", "defend", "ladder", "twolib", "nakade", "pattern", "gcapture", "fillboard",
              "selfatari")
PROFILE_NAMES = {R_CAPTURE: "capture", R_DEFEND: "defend", R_LADDER: "ladder", R_TWOLIB: "twolib",
                 R_NAKADE: "nakade", R_PATTERN: "pattern", R_GCAPTURE: "gcapture",
                 R_FILLBOARD: "fillboard", R_RANDOM: "random", R_PASS: "pass",
                 R_SA_REJECTED: "selfatari_rejected"}
# Defaults after Pachi's moggy (lcapturerate 90, nakaderate 80, patternrate 100,
# capturerate 90, selfatarirate 60) and Fuego's GoUctPlayoutPolicy (every rule
# always); the values are this project's.
DEFAULT_RATES = dict(capture=0.9, defend=1.0, ladder=0.9, twolib=0.9, nakade=0.8, pattern=0.9,
                     gcapture=0.5, fillboard=0.3, selfatari=0.9)
cdef int FILLBOARD_TRIES = 3
cdef int ROLLOUT_LADDER_NODES = 80    # the ladder reader's bound on positions in a rollout
cdef uint64_t MOGGY_RATE[N_RATES]     # probability * 2**32, compared with 32 random bits
cdef uint64_t MOGGY_COUNT[N_COUNTS]   # rule counts of the profiling variant


cdef inline bint _fire(rng_t* rng, const uint64_t* rate, int r) noexcept nogil:
    return (rng_next(rng) >> 32) < rate[r]


cdef inline int _ok(const board_t* b, int p, int c) noexcept nogil:
    """c may play p (simple ko included) and p is not c's own true eye."""
    return b.color[p] == EMPTY and board_legal(b, p, c) and not board_is_eye(b, p, c)


cdef bint _nakade_fill(const board_t* b, int p, int c) noexcept nogil:
    """c's self-atari at p (joining own stones) makes a chain of at most
    three stones that, with its last liberty, fills a space enclosed by
    the opponent alone: when it is captured the opponent is left an eye
    space of at most three points, one eye (how an eye space is killed
    from inside)."""
    cdef const geom_t* g = b.g
    cdef int reg[4]
    cdef int n_reg = 1, i, j, k, n, q, r, w, s, nw = g.nw, lib = -1
    cdef bint inr
    cdef uint64_t word
    reg[0] = p
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == c:
            r = b.chain[n]
            for w in range(nw):
                word = b.stones[r * nw + w]
                while word:
                    s = (w << 6) + __builtin_ctzll_(word)
                    word &= word - 1
                    inr = False
                    for k in range(n_reg):
                        inr = inr or reg[k] == s
                    if not inr:
                        if n_reg == 3:
                            return 0
                        reg[n_reg] = s
                        n_reg += 1
    # the chain's liberty after the move (one; a self-atari)
    for k in range(n_reg):
        q = reg[k]
        for i in range(g.n_nbr[q]):
            n = g.nbr[q][i]
            if b.color[n] == EMPTY and n != p:
                lib = n
    if lib < 0:
        return 0
    reg[n_reg] = lib
    n_reg += 1
    for k in range(n_reg):
        q = reg[k]
        for i in range(g.n_nbr[q]):
            n = g.nbr[q][i]
            inr = False
            for j in range(n_reg):
                inr = inr or reg[j] == n
            if not inr and b.color[n] != 3 - c:
                return 0
    return 1


cdef int _bad_selfatari(const board_t* b, int p, int c, bint single_too) noexcept nogil:
    """c playing p (legal) leaves its chain one liberty, captures nothing,
    and is bad: 2: the chain has more than one stone (and is no nakade
    fill); 1 (only when
    single_too): one stone whose capture is not a snapback and that is not
    a throw-in into a two-point space of the opponent's."""
    cdef const geom_t* g = b.g
    cdef int nb = b.nbc[p], i, n, lib = -1, opp = 3 - c
    if (nb & 15) >= 2:
        return 0
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == opp and b.libcnt[b.chain[n]] == 1:
            return 0            # a capture
    if chain_libs_after(b, p, c) >= 2:
        return 0
    if (nb >> (4 * c)) & 15:
        # joins own stones: a multi-stone self-atari, bad unless it is a
        # nakade (see _nakade_fill)
        return 0 if _nakade_fill(b, p, c) else 2
    if not single_too:
        return 0
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == EMPTY:
            lib = n
    if lib < 0:
        return 0
    # snapback: the capturing stone at lib is left one liberty (p)
    if chain_libs_after(b, lib, opp) <= 1:
        return 0
    # throw-in: every other neighbour of p and of lib is the opponent's or off-board
    for i in range(g.n_nbr[lib]):
        n = g.nbr[lib][i]
        if n != p and b.color[n] != opp:
            return 1
    return 0


cdef int _defend_atari(board_t* b, int n, int c) noexcept nogil:
    """Save own chain at n (in atari): run when that gives three liberties;
    else, when running gives two, nothing if the ladder reader says the
    chain is caught whatever it does; then a counter-capture, else the run
    to two.  -1: nothing saves it."""
    cdef int r = b.chain[n], lib, q, la
    lib = board_chain_lib(b, r)
    la = chain_libs_after(b, lib, c) if (lib >= 0 and board_legal(b, lib, c)) else 0
    if la >= 3:
        return lib
    if la == 2 and ladder_captures_inplace(b, n, 0, ROLLOUT_LADDER_NODES):
        return -1
    q = _capture_next_to(b, r, c)
    if q >= 0:
        return q
    if la >= 2:
        return lib
    return -1


cdef inline int _two_libs(const board_t* b, int p, int* out) noexcept nogil:
    """The first two liberties of the chain at p into out; their count."""
    cdef int nw = b.g.nw, w, k = 0
    cdef const uint64_t* L = &b.libs[b.chain[p] * nw]
    cdef uint64_t word
    for w in range(nw):
        word = L[w]
        while word and k < 2:
            out[k] = (w << 6) + __builtin_ctzll_(word)
            word &= word - 1
            k += 1
    return k


cdef int _twolib(const board_t* b, int last, int c, rng_t* rng, bint sa) noexcept nogil:
    """Two-liberty attack and defence around the last move (see R_TWOLIB)."""
    cdef const geom_t* g = b.g
    cdef int cand[16]
    cdef int nc = 0, i, j, k, n, q, r, s, w, nw = g.nw, opp = 3 - c
    cdef int L[2]
    cdef int seen[4]
    cdef int nseen = 0
    cdef uint64_t word
    # attack: the last move's chain, if running at the other liberty gives
    # it at most one (a capture; two is the ladder rule's)
    if board_libs(b, last) == 2 and _two_libs(b, last, L) == 2:
        for i in range(2):
            if _ok(b, L[i], c) and chain_libs_after(b, L[1 - i], opp) - 1 <= 1 \
                    and _bad_selfatari(b, L[i], c, sa) == 0:
                cand[nc] = L[i]
                nc += 1
    # defence: own two-liberty chains next to the last move
    for k in range(g.n_nbr[last]):
        n = g.nbr[last][k]
        if b.color[n] != c or b.libcnt[b.chain[n]] != 2:
            continue
        r = b.chain[n]
        for j in range(nseen):
            if seen[j] == r:
                r = -1
                break
        if r < 0:
            continue
        seen[nseen] = r
        nseen += 1
        _two_libs(b, r, L)
        for i in range(2):
            if nc < 16 and _ok(b, L[i], c) and chain_libs_after(b, L[i], c) >= 3:
                cand[nc] = L[i]
                nc += 1
        # atari its two-liberty opponent neighbours (the capture race)
        for w in range(nw):
            word = b.stones[r * nw + w]
            while word:
                s = (w << 6) + __builtin_ctzll_(word)
                word &= word - 1
                for j in range(g.n_nbr[s]):
                    q = g.nbr[s][j]
                    if b.color[q] == opp and b.libcnt[b.chain[q]] == 2 and nc < 15:
                        _two_libs(b, q, L)
                        for i in range(2):
                            if nc < 16 and _ok(b, L[i], c) and _bad_selfatari(b, L[i], c, sa) == 0:
                                cand[nc] = L[i]
                                nc += 1
    if nc == 0:
        return -1
    return cand[rng_int(rng, nc)]


cdef int _nakade(const board_t* b, int last, int c) noexcept nogil:
    """The vital point of an eye space of 3 to 6 points that the last move
    was played into: the region of empty points and stones of the last
    mover's colour around the last move, enclosed by the other colour's
    stones (or the edge).  The vital point is the empty point with the most
    neighbours in the region, when it is the only one with that many
    (>= 2); straight and bent fours and other living shapes have a tie and
    give nothing.  Either side plays it: the attacker kills, the owner
    lives."""
    cdef const geom_t* g = b.g
    cdef int reg[7]
    cdef int j, k, n, m, size = 1, top = 0, q, deg, best = -1, bestdeg = 1, ties = 0
    cdef int z = 3 - b.color[last]
    cdef bint seen
    reg[0] = last
    while top < size:
        q = reg[top]
        top += 1
        for j in range(g.n_nbr[q]):
            n = g.nbr[q][j]
            if b.color[n] == z:
                continue
            seen = False
            for k in range(size):
                if reg[k] == n:
                    seen = True
                    break
            if not seen:
                if size == 6:
                    return -1       # more than six points: not an eye space
                reg[size] = n
                size += 1
    if size < 3:
        return -1
    for k in range(size):
        q = reg[k]
        deg = 0
        for j in range(g.n_nbr[q]):
            n = g.nbr[q][j]
            for m in range(size):
                if reg[m] == n:
                    deg += 1
                    break
        if deg > bestdeg:
            bestdeg = deg
            best = q
            ties = 0
        elif deg == bestdeg:
            ties += 1
    if best >= 0 and ties == 0 and b.color[best] == EMPTY and _ok(b, best, c) \
            and _bad_selfatari(b, best, c, False) == 0:
        return best
    return -1


cdef int _patterns(const board_t* b, int c, rng_t* rng) noexcept nogil:
    """A MoGo 3x3 pattern move next to one of the last two moves (not a
    self-atari), uniformly among them."""
    cdef const geom_t* g = b.g
    cdef int cand[16]
    cdef int nc = 0, h, k, p, mv
    for h in range(2):
        mv = b.hist[h]
        if mv < 0 or mv >= g.nn:
            continue
        for k in range(8):
            p = g.nbr8[mv][k]
            if b.color[p] == EMPTY and PAT3[pat_code(b, p)] \
                    and board_legal(b, p, c) and libs_after_ge2(b, p, c):
                cand[nc] = p
                nc += 1
    if nc == 0:
        return -1
    return cand[rng_int(rng, nc)]


cdef int _global_atari(const board_t* b, int c, rng_t* rng) noexcept nogil:
    """A chain in atari anywhere: capture an opponent's (the first found
    from a random point on), else save an own one by a run to three
    liberties (no reading here: the local rule reads).  One pass over the
    points; the test per point has no branch that is usually taken."""
    cdef const geom_t* g = b.g
    cdef int nn = g.nn, i, p, r, col, lib, opp = 3 - c, save = -1
    p = rng_int(rng, nn)
    for i in range(nn):
        col = b.color[p]
        r = b.chain[p]
        r = r if r >= 0 else 0
        if (col != EMPTY) & (r == p) & (b.libcnt[r] == 1):
            lib = board_chain_lib(b, p)
            if col == opp:
                if board_legal(b, lib, c):
                    return lib
            elif save < 0 and chain_libs_after(b, lib, c) >= 3 and board_legal(b, lib, c):
                save = lib
        p += 1
        if p == nn:
            p = 0
    return save


cdef int _local_capture(const board_t* b, int last, int c) noexcept nogil:
    """Capture the last move's chain, or an opponent chain next to the
    last move or to our previous move (one we put in atari that was left
    there), when one is in atari."""
    cdef const geom_t* g = b.g
    cdef int h, i, n, mv, m, opp = 3 - c
    if b.libcnt[b.chain[last]] == 1 and b.color[last] == opp:
        m = board_chain_lib(b, last)
        if board_legal(b, m, c):
            return m
    for h in range(2):
        mv = b.hist[h]
        if mv < 0 or mv >= g.nn or b.color[mv] == EMPTY:
            continue
        for i in range(g.n_nbr[mv]):
            n = g.nbr[mv][i]
            if b.color[n] == opp and b.libcnt[b.chain[n]] == 1:
                m = board_chain_lib(b, n)
                if board_legal(b, m, c):
                    return m
    return -1


cdef inline bint _near(const board_t* b, int chain_pt, int p) noexcept nogil:
    """p is a stone next to the chain at chain_pt."""
    cdef int i, n, r = b.chain[chain_pt]
    if p < 0 or p >= b.g.nn or b.color[p] == EMPTY:
        return 0
    for i in range(b.g.n_nbr[p]):
        n = b.g.nbr[p][i]
        if b.color[n] == b.color[chain_pt] and b.chain[n] == r:
            return 1
    return 0


cdef inline int _rec(bint prof, int r, int m) noexcept nogil:
    if prof:
        MOGGY_COUNT[r] += 1
    return m


cdef inline int _moggy(board_t* b, rng_t* rng, const uint64_t* rate, bint prof) noexcept nogil:
    cdef const geom_t* g = b.g
    cdef int c = b.to_move, last = b.hist[0], m, i, n, k, p, bad
    cdef int L[2]
    cdef bint sa = _fire(rng, rate, R_SELFATARI)
    if last >= 0 and last < g.nn and b.color[last] != EMPTY:
        if _fire(rng, rate, R_CAPTURE):
            m = _local_capture(b, last, c)
            if m >= 0:
                return _rec(prof, R_CAPTURE, m)
        if (b.nbc[last] >> (4 * c)) & 15 and _fire(rng, rate, R_DEFEND):
            for i in range(g.n_nbr[last]):
                n = g.nbr[last][i]
                if b.color[n] == c and b.libcnt[b.chain[n]] == 1:
                    m = _defend_atari(b, n, c)
                    if m >= 0:
                        if _bad_selfatari(b, m, c, sa) == 0:
                            return _rec(prof, R_DEFEND, m)
                        if prof:
                            MOGGY_COUNT[R_SA_REJECTED] += 1
        # the last move's chain has two liberties: the atari that catches
        # it in a ladder
        if board_libs(b, last) == 2 and b.color[last] == 3 - c:
            if _fire(rng, rate, R_LADDER) and _two_libs(b, last, L) == 2:
                for i in range(2):
                    # read only when running at the other liberty gives
                    # two: three is no ladder, one is the two-liberty rule's
                    if chain_libs_after(b, L[1 - i], 3 - c) == 3 and _ok(b, L[i], c) \
                            and ladder_works_inplace(b, L[i], c, 0, ROLLOUT_LADDER_NODES):
                        return _rec(prof, R_LADDER, L[i])
        if _fire(rng, rate, R_TWOLIB):
            m = _twolib(b, last, c, rng, sa)
            if m >= 0:
                return _rec(prof, R_TWOLIB, m)
        if b.nbc[last] & 15 and _fire(rng, rate, R_NAKADE):
            m = _nakade(b, last, c)
            if m >= 0:
                return _rec(prof, R_NAKADE, m)
    if _fire(rng, rate, R_PATTERN):
        m = _patterns(b, c, rng)
        if m >= 0:
            return _rec(prof, R_PATTERN, m)
    if _fire(rng, rate, R_GCAPTURE):
        m = _global_atari(b, c, rng)
        if m >= 0:
            if _bad_selfatari(b, m, c, sa) == 0:
                return _rec(prof, R_GCAPTURE, m)
            if prof:
                MOGGY_COUNT[R_SA_REJECTED] += 1
    cdef int ne = b.n_empty, j
    if ne == 0:
        return _rec(prof, R_PASS, g.nn)
    if _fire(rng, rate, R_FILLBOARD):
        for k in range(FILLBOARD_TRIES):
            p = b.empty_list[rng_int(rng, ne)]
            if (b.nbc[p] & 15) == 4 and b.color[g.diag[p][0]] == EMPTY and b.color[g.diag[p][1]] == EMPTY \
                    and b.color[g.diag[p][2]] == EMPTY and b.color[g.diag[p][3]] == EMPTY:
                return _rec(prof, R_FILLBOARD, p)
    # random, replacing bad self-ataris: multi-stone ones always, single
    # stones when the self-atari rule fires; none left: pass
    j = rng_int(rng, ne)
    for i in range(ne):
        p = b.empty_list[j]
        if board_playable(b, p, c):
            if (b.nbc[p] & 15) >= 2:
                return _rec(prof, R_RANDOM, p)
            bad = _bad_selfatari(b, p, c, sa)
            if bad == 0:
                return _rec(prof, R_RANDOM, p)
            if prof:
                MOGGY_COUNT[R_SA_REJECTED] += 1
        j += 1
        if j == ne:
            j = 0
    return _rec(prof, R_PASS, g.nn)


cdef int moggy_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil:
    """The moggy rollout policy (see the rule table above); ctx, when not
    NULL, is the caller's moggy_t (its own rule probabilities), else the
    process defaults (set_moggy_rates) apply."""
    if ctx != NULL:
        return _moggy(b, rng, &(<moggy_t*>ctx).rate[0], False)
    return _moggy(b, rng, &MOGGY_RATE[0], False)


cdef int moggy_move_counting(board_t* b, rng_t* rng, void* ctx) noexcept nogil:
    """moggy_move that also counts where each move came from (MOGGY_COUNT);
    for the rollout profile only (the counters are shared, one thread)."""
    if ctx != NULL:
        return _moggy(b, rng, &(<moggy_t*>ctx).rate[0], True)
    return _moggy(b, rng, &MOGGY_RATE[0], True)


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

    def as_dict(self):
        return {name: self.m.rate[i] / 4294967296.0 for i, name in enumerate(RULE_NAMES)}


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
