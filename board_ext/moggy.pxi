# the moggy rollout policy (Pachi's playout rules), textually part of board_ext/playout.pyx
# (Cython include: one module, so its helpers inline as before).

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
