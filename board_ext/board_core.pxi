# board_t: the C board (bitsets, chains, liberties, moves, ko, scoring), textually part of
# board_ext/board.pyx (Cython include: one module, so everything inlines as before).

# ---------------------------------------------------------------- board_t
cdef void board_init(board_t* b, const geom_t* g) noexcept nogil:
    cdef int p
    b.g = g
    b.to_move = BLACK
    b.ko = -1
    b.passes = 0
    b.move_count = 0
    b.allow_suicide = 0
    b.captures[0] = b.captures[1] = b.captures[2] = 0
    b.hash = 0
    b.n_empty = g.nn
    for p in range(MAXW):
        b.empty_bits[p] = 0
    for p in range(g.nn):
        b.empty_bits[p >> 6] |= (<uint64_t>1) << (p & 63)
    for p in range(NHIST):
        b.hist[p] = -1
    for p in range(g.nn):
        b.color[p] = EMPTY
        b.nbc[p] = g.n_nbr[p]
        b.chain[p] = -1
        b.chain_size[p] = 0
        b.libcnt[p] = 0
        b.empty_list[p] = p
        b.empty_pos[p] = p
    b.color[SENT] = OFFBOARD
    b.chain[SENT] = 0       # any real index: read at the sentinel, never used
    memset(b.libs, 0, g.nn * g.nw * sizeof(uint64_t))
    memset(b.stones, 0, g.nn * g.nw * sizeof(uint64_t))


cdef void board_copy(board_t* dst, const board_t* src) noexcept nogil:
    """Copy only the parts of the arrays that this size uses."""
    cdef const geom_t* g = src.g
    cdef size_t head = <size_t>(<char*>&src.color[0] - <char*>src)
    memcpy(dst, src, head)
    memcpy(dst.color, src.color, g.nn * sizeof(uint8_t))
    dst.color[SENT] = OFFBOARD
    dst.chain[SENT] = 0
    memcpy(dst.nbc, src.nbc, g.nn * sizeof(uint16_t))
    memcpy(dst.chain, src.chain, g.nn * sizeof(int16_t))
    memcpy(dst.chain_size, src.chain_size, g.nn * sizeof(int16_t))
    memcpy(dst.libcnt, src.libcnt, g.nn * sizeof(int16_t))
    memcpy(dst.empty_list, src.empty_list, g.nn * sizeof(int16_t))
    memcpy(dst.empty_pos, src.empty_pos, g.nn * sizeof(int16_t))
    memcpy(dst.libs, src.libs, g.nn * g.nw * sizeof(uint64_t))
    memcpy(dst.stones, src.stones, g.nn * g.nw * sizeof(uint64_t))


cdef int board_illegal_reason(const board_t* b, int p, int c) noexcept nogil:
    """0 if colour c may play p under simple ko, else the R_* reason."""
    if p == b.g.nn:
        return R_OK
    if b.color[p] != EMPTY:
        return R_OCCUPIED
    if p == b.ko and c == b.to_move:
        return R_KO
    return R_OK if board_legal(b, p, c) else R_SUICIDE


cdef inline void _empty_remove(board_t* b, int p) noexcept nogil:
    cdef int i = b.empty_pos[p]
    cdef int last = b.empty_list[b.n_empty - 1]
    b.empty_list[i] = last
    b.empty_pos[last] = i
    b.n_empty -= 1
    b.empty_bits[p >> 6] &= ~((<uint64_t>1) << (p & 63))


cdef inline void _empty_add(board_t* b, int p) noexcept nogil:
    b.empty_list[b.n_empty] = p
    b.empty_pos[p] = b.n_empty
    b.n_empty += 1
    b.empty_bits[p >> 6] |= (<uint64_t>1) << (p & 63)


cdef int _merge(board_t* b, int a, int r) noexcept nogil:
    """Merge chains with representatives a and r; return the survivor. The
    caller recounts the survivor's liberties."""
    cdef int nw = b.g.nw, w, big = a, small = r, s
    cdef uint64_t word
    if b.chain_size[r] > b.chain_size[a]:
        big = r
        small = a
    cdef uint64_t* SS = &b.stones[small * nw]
    cdef uint64_t* SL = &b.libs[small * nw]
    cdef uint64_t* BS = &b.stones[big * nw]
    cdef uint64_t* BL = &b.libs[big * nw]
    for w in range(nw):
        word = SS[w]
        BS[w] |= word
        BL[w] |= SL[w]
        SS[w] = 0
        SL[w] = 0
        while word:
            s = (w << 6) + __builtin_ctzll(word)
            word &= word - 1
            b.chain[s] = big
    b.chain_size[big] += b.chain_size[small]
    b.libcnt[small] = 0
    return big


cdef int _remove_chain(board_t* b, int r) noexcept nogil:
    """Take chain r off the board; neighbours gain the liberties."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, w, s, i, n, rs, is_c, c = b.color[r], count = b.chain_size[r]
    cdef int capt = 3 - c
    cdef uint64_t word, bit, m, old
    cdef uint64_t SS[MAXW]
    cdef uint16_t delta = 1 - (1 << (4 * c))
    cdef const int16_t* nb
    for w in range(nw):
        SS[w] = b.stones[r * nw + w]
        b.stones[r * nw + w] = 0
        b.libs[r * nw + w] = 0
    b.libcnt[r] = 0
    # each stone leaves, and every capturer's stone next to it gains the
    # point (counted once).  A neighbour still to be removed has the
    # captured colour and gains nothing; the colour test is done without
    # branches: other slots OR nothing into the all-zero words of s (no
    # chain's representative now)
    for w in range(nw):
        word = SS[w]
        while word:
            s = (w << 6) + __builtin_ctzll(word)
            word &= word - 1
            b.color[s] = EMPTY
            b.chain[s] = -1
            b.hash ^= ZOB[c][s]
            _empty_add(b, s)
            bit = (<uint64_t>1) << (s & 63)
            nb = g.nbr[s]
            for i in range(4):
                n = nb[i]
                b.nbc[n] += delta
                is_c = b.color[n] == capt
                rs = b.chain[n] if is_c else s
                m = bit & (<uint64_t>0 - <uint64_t>is_c)
                old = b.libs[rs * nw + w]
                b.libs[rs * nw + w] = old | m
                b.libcnt[rs] += is_c & ((old & m) == 0)
    return count


cdef inline void _new_chain(board_t* b, int p, const int16_t* libs, int n) noexcept nogil:
    """A one-stone chain at p with liberties libs[0 .. n); libs[p] and
    stones[p] are zero before (p was no chain's representative)."""
    cdef int nw = b.g.nw, i
    cdef uint64_t* L = &b.libs[p * nw]
    b.chain[p] = p
    b.chain_size[p] = 1
    b.libcnt[p] = n
    b.stones[p * nw + (p >> 6)] = (<uint64_t>1) << (p & 63)
    for i in range(n):
        L[libs[i] >> 6] |= (<uint64_t>1) << (libs[i] & 63)


cdef int board_play(board_t* b, int p, int c) noexcept nogil:
    """Play colour c at p (or pass); the move must be legal. Returns captures."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, opp = 3 - c, i, j, n, r, col, rep, captured = 0, cap_pt = -1
    cdef int nown = 0, ncap = 0, nnb, dup, rs, has, q
    cdef int own[4]
    cdef int cap[4]
    cdef uint64_t lo, hi, bit, pw, pw2
    cdef uint64_t* L
    # hist[0..7] <- p, hist[0..6]: two 64-bit words shifted by one int16
    memcpy(&lo, &b.hist[0], 8)
    memcpy(&hi, &b.hist[4], 8)
    hi = (hi << 16) | (lo >> 48)
    lo = (lo << 16) | <uint16_t>p
    memcpy(&b.hist[0], &lo, 8)
    memcpy(&b.hist[4], &hi, 8)
    b.move_count += 1
    b.to_move = opp
    b.ko = -1
    if p == g.nn:
        b.passes += 1
        return 0
    b.passes = 0
    b.color[p] = c
    _empty_remove(b, p)
    b.hash ^= ZOB[c][p]
    bit = (<uint64_t>1) << (p & 63)
    pw = p >> 6
    cdef uint16_t delta = (1 << (4 * c)) - 1
    cdef const int16_t* nb = g.nbr[p]
    cdef int nemp = 0
    cdef int16_t emp[4]
    nnb = g.n_nbr[p]
    if (b.nbc[p] & 15) == nnb:
        # every neighbour empty (most moves early in a playout): a new
        # one-stone chain whose liberties are its neighbours
        for i in range(4):
            b.nbc[nb[i]] += delta
        _new_chain(b, p, nb, nnb)
        return 0
    # one pass over the four neighbour slots (off-board ones are the
    # sentinel): counts, empty neighbours, own chains (deduplicated), and p
    # taken from each opponent chain's liberties.  Written without branches
    # on the neighbour's colour (the outcomes are random in a playout):
    # every slot writes, and only the counts say which writes hold; own
    # chains are deduplicated after the loop, only when there are two.
    for i in range(4):
        n = nb[i]
        b.nbc[n] += delta
        col = b.color[n]
        r = b.chain[n]
        emp[nemp] = n
        nemp += col == EMPTY
        own[nown] = r
        nown += col == c
        # an opponent chain loses p (once: has is 0 for a second neighbour
        # of the same chain); any other slot works on p's own all-zero
        # liberty words (p is no chain's representative yet)
        rs = r if col == opp else p
        q = rs * nw + pw
        has = <int>((b.libs[q] >> (p & 63)) & 1)
        b.libs[q] &= ~bit
        b.libcnt[rs] -= has
        cap[ncap] = rs
        ncap += has & (b.libcnt[rs] == 0)
    if nown > 1:
        # two or more slots hold own stones: drop repeats of a chain
        j = 1
        for i in range(1, nown):
            r = own[i]
            dup = 0
            for q in range(j):
                dup |= own[q] == r
            own[j] = r
            j += dup == 0
        nown = j
    if nown == 1:
        # the common case: p joins one chain, whose liberties lose p and
        # gain p's empty neighbours (counted as they are added: no popcount)
        rep = own[0]
        b.chain[p] = rep
        b.chain_size[rep] += 1
        b.stones[rep * nw + pw] |= bit
        L = &b.libs[rep * nw]
        L[pw] &= ~bit                 # p was a liberty of every adjacent chain
        r = b.libcnt[rep] - 1
        for i in range(nemp):
            n = emp[i]
            pw2 = (<uint64_t>1) << (n & 63)
            if not (L[n >> 6] & pw2):
                L[n >> 6] |= pw2
                r += 1
        b.libcnt[rep] = r
    else:
        # a new chain at p (libs[p], stones[p] are zero: p was no chain's
        # representative), merged with its own neighbours if there are two
        # or more
        rep = p
        _new_chain(b, p, emp, nemp)
        if nown:
            for j in range(nown):
                rep = _merge(b, rep, own[j])
            L = &b.libs[rep * nw]
            L[pw] &= ~bit
            r = 0
            for j in range(nw):
                r += __builtin_popcountll(L[j])
            b.libcnt[rep] = r
    for j in range(ncap):
        captured += _remove_chain(b, cap[j])
        cap_pt = cap[j]
    if captured:
        b.captures[c] += captured
        if captured == 1 and b.chain_size[rep] == 1 and b.libcnt[rep] == 1:
            b.ko = cap_pt       # a one-stone chain's representative is the stone
    elif b.libcnt[rep] == 0:
        # suicide (only reached when allow_suicide)
        b.captures[opp] += _remove_chain(b, rep)
    return captured


cdef uint64_t board_hash_after(const board_t* b, int p, int c) noexcept nogil:
    """Positional hash after colour c plays the legal move p."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, i, j, n, r, w, s, any_lib = 0
    cdef uint64_t h = b.hash, word
    cdef int seen[4]
    cdef int nseen = 0
    cdef bint captured = False, dup
    if p == g.nn:
        return h
    h ^= ZOB[c][p]
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == EMPTY:
            any_lib = 1
        elif b.color[n] == 3 - c:
            r = b.chain[n]
            if b.libcnt[r] == 1:       # p is its last liberty
                dup = False
                for j in range(nseen):
                    dup = dup or seen[j] == r
                if not dup:
                    seen[nseen] = r
                    nseen += 1
                    captured = True
                    for w in range(nw):
                        word = b.stones[r * nw + w]
                        while word:
                            s = (w << 6) + __builtin_ctzll(word)
                            word &= word - 1
                            h ^= ZOB[3 - c][s]
        elif b.libcnt[b.chain[n]] > 1:
            any_lib = 1
    if not captured and not any_lib:
        # multi-stone suicide: the played stone and its own neighbours vanish
        h ^= ZOB[c][p]
        nseen = 0
        for i in range(g.n_nbr[p]):
            n = g.nbr[p][i]
            if b.color[n] == c:
                r = b.chain[n]
                dup = False
                for j in range(nseen):
                    dup = dup or seen[j] == r
                if not dup:
                    seen[nseen] = r
                    nseen += 1
                    for w in range(nw):
                        word = b.stones[r * nw + w]
                        while word:
                            s = (w << 6) + __builtin_ctzll(word)
                            word &= word - 1
                            h ^= ZOB[c][s]
    return h


cdef int board_chain_lib(const board_t* b, int p) noexcept nogil:
    """Some liberty of the chain at p (the lowest), or -1."""
    cdef int nw = b.g.nw, w
    cdef const uint64_t* L = &b.libs[b.chain[p] * nw]
    for w in range(nw):
        if L[w]:
            return (w << 6) + __builtin_ctzll(L[w])
    return -1


cdef double board_score(const board_t* b, double komi, signed char* owner) noexcept nogil:
    """Tromp-Taylor area score, black minus white minus komi.

    If owner is not NULL it receives +1 (black), -1 (white) or 0 per point.
    """
    cdef const geom_t* g = b.g
    cdef int nn = g.nn, p, q, i, n, top, cnt, black = 0, white = 0, reach
    cdef uint8_t seen[MAXNN]
    cdef int16_t stack[MAXNN]
    cdef int16_t region[MAXNN]
    cdef signed char val
    memset(seen, 0, nn)
    for p in range(nn):
        if b.color[p] == BLACK:
            black += 1
            if owner:
                owner[p] = 1
        elif b.color[p] == WHITE:
            white += 1
            if owner:
                owner[p] = -1
        elif not seen[p]:
            cnt = 1
            region[0] = p
            if b.nbc[p] & 15:
                # flood the empty region, noting which colours it touches
                reach = 0
                top = 1
                cnt = 0
                stack[0] = p
                seen[p] = 1
                while top:
                    top -= 1
                    q = stack[top]
                    region[cnt] = q
                    cnt += 1
                    for i in range(g.n_nbr[q]):
                        n = g.nbr[q][i]
                        if b.color[n] == EMPTY:
                            if not seen[n]:
                                seen[n] = 1
                                stack[top] = n
                                top += 1
                        else:
                            reach |= b.color[n]
            else:
                # no empty neighbour (most regions at the end of a
                # playout): the colours it touches from the neighbour counts
                reach = (BLACK if b.nbc[p] & 0xF0 else 0) | (WHITE if b.nbc[p] & 0xF00 else 0)
            val = 0
            if reach == BLACK:
                black += cnt
                val = 1
            elif reach == WHITE:
                white += cnt
                val = -1
            if owner:
                for i in range(cnt):
                    owner[region[i]] = val
    return black - white - komi
