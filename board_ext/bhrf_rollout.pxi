# the BHRF rollout policy (the forest asked move by move), textually part of board_ext/bhrf.pyx
# (Cython include: one module, so its helpers inline as before).

# ---------------------------------------------------------------- rollout
cdef inline int _matches(const forest_t* f, const board_t* b, int* slots) noexcept nogil:
    """The slots of the contexts matching b's last moves, shortest first,
    into slots; returns how many (0: none).  The longest is the last."""
    cdef uint64_t h
    cdef int d, m, s, n
    m = b.hist[0]
    if m < 0:
        return 0
    s = f.ctx1[m]                       # depth 1: a direct index, no hashing
    if s < 0:
        return 0
    slots[0] = s
    n = 1
    h = CTXZ[0][m]
    for d in range(1, f.max_depth):
        m = b.hist[d]
        if m < 0:
            break
        h ^= CTXZ[d][m]
        s = _ctx_find(f, h)
        if s < 0:
            break
        slots[n] = s
        n += 1
    return n


cdef inline int _longest(const forest_t* f, const board_t* b) noexcept nogil:
    """Slot of the longest context matching b's last moves, or -1."""
    cdef int slots[NHIST]
    cdef int n = _matches(f, b, slots)
    return slots[n - 1] if n > 0 else -1


cdef inline bint _playable(const board_t* b, int r, int c) noexcept nogil:
    """r is legal for c and fills no own true eye (the colour test first:
    most rejected replies are simply occupied)."""
    return b.color[r] == EMPTY and board_playable(b, r, c)


cdef inline float _trial_y(uint64_t x, float top) noexcept nogil:
    """A rejection trial's test value, uniform on [0, top), from bits 8-31
    of the trial's random number (its high half picks the candidate)."""
    return <float>((x >> 8) & 0xFFFFFF) * <float>5.9604644775390625e-08 * top


cdef inline bint _trial_plays(const forest_t* f, float mean, float u, float y) noexcept nogil:
    """Whether an accepted trial (y < u) plays its reply: y / u is uniform
    on [0, 1) and independent of the choice, so this plays with probability
    min(1, u_r), or mean_r (accept_mean), without another draw."""
    return y < u * (mean if f.accept_mean else (u if u < 1 else 1))


cdef inline int _candidates(const forest_t* f, const board_t* b, const uint64_t* rb,
                            uint64_t* cand, int* cnt) noexcept nogil:
    """A context's replies on empty points (its reply bits rb AND the
    board's empty points) into cand, their count per word into cnt;
    returns the total."""
    cdef int w, nc = 0
    for w in range(f.nw):
        cand[w] = b.empty_bits[w] & rb[w]
        cnt[w] = popcount64(cand[w])
        nc += cnt[w]
    return nc


cdef inline int _kth(const uint64_t* cand, const int* cnt, int k, int* word) noexcept nogil:
    """The k-th (from 0) candidate: its word into word, its bit returned."""
    cdef int w = 0
    while k >= cnt[w]:
        k -= cnt[w]
        w += 1
    word[0] = w
    return bhrf_select64(cand[w], k)


cdef int _weighed_draw(const forest_t* f, const board_t* b, rng_t* rng, const rec_t* recs,
                       const uint64_t* rb, float lgb, uint64_t* cand, bint* play) noexcept nogil:
    """The end of the soft-UCT draw (recs, rb, lgb: the context's records,
    reply bits and b lg), out of line so that its arrays do not weigh on
    every call's frame: the remaining candidates weighed by u_r, drawn by
    the running sum, striking out as before."""
    cdef float wt[MAXNN]
    cdef int idx[MAXNN]
    cdef uint64_t x
    cdef int c = b.to_move, w, k, j, r, live
    cdef float u, y, tot
    live = 0
    tot = 0
    for w in range(f.nw):
        x = cand[w]
        while x:
            r = ctz64(x)
            x &= x - 1
            j = _rank(rb, w, r)
            u = recs[j].mean + lgb * recs[j].isq
            wt[live] = u
            idx[live] = j
            tot += u
            live += 1
    while live > 0 and tot > 0:
        y = _unit(rng) * tot
        k = 0
        while k < live - 1:             # the last weight absorbs rounding
            y -= wt[k]
            if y < 0:
                break
            k += 1
        j = idx[k]
        if wt[k] > 0 and board_playable(b, recs[j].reply, c):   # candidates are empty
            # P(r|c) = u_r / sum u over the candidates not struck out
            play[0] = _unit(rng) * (tot if f.accept_p else 1) < (recs[j].mean if f.accept_mean else wt[k])
            return recs[j].reply
        tot -= wt[k]
        live -= 1
        wt[k] = wt[live]
        idx[k] = idx[live]
    return -1


cdef inline int _soft_uct(const forest_t* f, const board_t* b, rng_t* rng, int s, bint* play) noexcept nogil:
    """Algorithm 3's draw: a legal, non-eye reply of context s with
    probability u_r / sum u over those replies (equation 1), u_r = mean +
    b sqrt(ln tot / n_r); returns it (-1 if there is none, or all their u_r
    are 0), and in play whether to play it, with probability min(1, u_r)
    (or P(r|c) = u_r / sum u, accept_p; or mean_r, accept_mean).

    The candidates are the context's replies on empty points: its reply
    bitset AND the board's empty points.  By rejection: a trial picks a
    candidate uniformly (the k-th set bit) and accepts it with probability
    u_r / (1 + b lg) (u_r <= 1 + b lg since mean <= 1 and n_r >= 1); an
    accepted candidate that is an own eye or illegal is struck out of the
    candidates (they still hold every playable reply, so the draw stays
    exact) and the trials go on.  After TRIES trials, weigh the remaining
    candidates by u_r and draw by the running sum, striking out as before.

    Play: an accepted trial's uniform y (y < u_r / top) gives y top / u_r,
    uniform on [0, 1) and independent of the choice, so "y top < u_r
    min(1, u_r)" plays with probability min(1, u_r) without another draw
    (and "y top < u_r mean_r" with probability mean_r)."""
    cdef const ctx_t* C = &f.ctx[s]
    cdef const rec_t* recs = f.rec + C.start
    cdef const uint64_t* rb = f.cbits + s * f.nw
    cdef uint64_t cand[MAXW]
    cdef int cnt[MAXW]
    cdef uint64_t x
    cdef int c = b.to_move, w, k, t, j, r
    cdef int nc = _candidates(f, b, rb, cand, cnt)
    cdef float lgb = f.b * C.lg, top = 1 + lgb, u, y
    # accept_p needs equation (1)'s denominator, which the weighed draw
    # below sums anyway: it skips the rejection trials.
    for t in range(0 if f.accept_p else TRIES):
        if nc == 0:
            return -1
        x = _rnd(rng)                   # high half: the candidate; bits 8-31: the test
        k = <int>(((x >> 32) * <uint64_t>nc) >> 32)
        r = _kth(cand, cnt, k, &w)
        j = _rank(rb, w, r)
        u = recs[j].mean + lgb * recs[j].isq
        y = _trial_y(x, top)
        if y >= u:
            continue
        if board_playable(b, (w << 6) + r, c):     # candidates are empty
            play[0] = _trial_plays(f, recs[j].mean, u, y)
            return (w << 6) + r
        cand[w] &= ~((<uint64_t>1) << r)
        cnt[w] -= 1
        nc -= 1
    return _weighed_draw(f, b, rng, recs, rb, lgb, cand, play)


cdef inline int _soft_uct_trials(const forest_t* f, const board_t* b, rng_t* rng, int s,
                                 bint* play) noexcept nogil:
    """Soft-UCT's draw in at most f.trials trials over the context's whole
    reply block (a deviation, ``trials``): a trial picks a record
    uniformly, accepts it with probability u_r / (1 + b lg) and returns it
    if it is playable; -1 when no trial succeeds, and the default policy
    plays.  No candidate set is built: a trial costs a draw, a record read
    and the board's test.  Conditional on success the reply is drawn with
    probability u_r / sum u over the playable replies, as in _soft_uct
    (rejection sampling over the block); what differs is that the forest is
    left with probability (1 - p)^trials, p the chance that one trial
    succeeds, which grows as the rollout fills the board.  Play: as in
    _soft_uct, with probability min(1, u_r) (or mean_r, accept_mean)."""
    cdef const ctx_t* C = &f.ctx[s]
    cdef const rec_t* recs = f.rec + C.start
    cdef uint64_t n = <uint64_t>C.len, x
    cdef int c = b.to_move, t, j, r
    cdef float lgb = f.b * C.lg, top = 1 + lgb, u, y
    for t in range(f.trials):
        x = _rnd(rng)                   # high half: the record; bits 8-31: the test
        j = <int>(((x >> 32) * n) >> 32)
        u = recs[j].mean + lgb * recs[j].isq
        y = _trial_y(x, top)
        if y >= u:
            continue
        r = recs[j].reply
        if _playable(b, r, c):
            play[0] = _trial_plays(f, recs[j].mean, u, y)
            return r
    return -1


cdef inline int _uniform(const forest_t* f, const board_t* b, rng_t* rng, int s) noexcept nogil:
    """The uniform selection (a deviation, ``selection = "uniform"``): a
    reply of context s drawn uniformly among those that are legal and
    fill no own true eye, -1 if there is none.  Soft-UCT's draw with every
    u_r equal and always played: no record is read, no trial rejected.
    The candidates are the context's reply bits AND the board's empty
    points; one that the board's test refuses is struck out and the draw
    goes on among the rest, so the draw is exact."""
    cdef const uint64_t* rb = f.cbits + s * f.nw
    cdef uint64_t cand[MAXW]
    cdef int cnt[MAXW]
    cdef int c = b.to_move, w, k, r, p
    cdef int nc = _candidates(f, b, rb, cand, cnt)
    while nc > 0:
        k = <int>(((_rnd(rng) >> 32) * <uint64_t>nc) >> 32)
        r = _kth(cand, cnt, k, &w)
        p = (w << 6) + r
        if board_playable(b, p, c):     # candidates are empty
            return p
        cand[w] &= ~((<uint64_t>1) << r)
        cnt[w] -= 1
        nc -= 1
    return -1


cdef inline int _draw(const forest_t* f, const board_t* b, rng_t* rng, int s,
                      bint* play) noexcept nogil:
    """The drawing selections' reply in context s and, in play, whether to
    play it: soft-UCT as the forest is set, in trials (trials > 0) or
    exact, or the uniform draw (always played)."""
    if f.selection == SEL_UNIFORM:
        play[0] = True
        return _uniform(f, b, rng, s)
    if f.trials > 0:
        return _soft_uct_trials(f, b, rng, s, play)
    return _soft_uct(f, b, rng, s, play)


cdef int _ask(forest_t* f, board_t* b, rng_t* rng) noexcept nogil:
    """Algorithm 3 (soft-UCT) or 4 (last-reply), or the uniform draw, in
    front of the default policy, for a position within the horizon."""
    cdef int s, r
    cdef bint play = False
    if f.epsilon < 1.0 and (f.epsilon <= 0.0 or _unit(rng) >= f.epsilon):
        return f.fallback(b, rng, f.fallback_ctx)
    cdef int slots[NHIST]
    cdef int n, i
    f.asked += 1
    n = _matches(f, b, slots)
    # Algorithm 3 takes the longest context, then tests its replies; the
    # paper's prose ("only the patterns whose reply complies with the
    # rules") keeps the longest context that has a playable reply
    # (bhrf.match = legal): a shorter one is tried when the longer's are
    # all occupied or illegal
    for i in range(n - 1, (-1 if f.legal_first or n == 0 else n - 2), -1):
        s = slots[i]
        if f.selection == SEL_LAST_REPLY:
            # the reply chosen last in a descent for this context, if legal
            r = f.ctx[s].last
            if not f.legal_first or i == n - 1:
                f.suggested += 1
            if _playable(b, r, b.to_move):
                f.played += 1
                return r
        else:
            # soft-UCT: draw by equation (1), play with probability u_r
            # (the uniform draw: equal weights, always played)
            r = _draw(f, b, rng, s, &play)
            if r >= 0:
                f.suggested += 1
                if play:
                    f.played += 1
                    return r
                break               # drawn and declined: the default policy plays
    return f.fallback(b, rng, f.fallback_ctx)


# _ask through a pointer set at import: the compiler cannot inline it, so
# bhrf_move's own frame stays empty and a position past the horizon costs
# a compare and a tail call (inlined, the lookup's six register saves
# came first).
cdef int (*_ASK)(forest_t* f, board_t* b, rng_t* rng) noexcept nogil
_ASK = _ask


cdef int bhrf_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil:
    """The rollout policy: the forest within the horizon, else the default
    policy alone."""
    cdef forest_t* f = <forest_t*>ctx
    if b.move_count >= f.stop_at:
        return f.fallback(b, rng, f.fallback_ctx)
    return _ASK(f, b, rng)
