# cython: language_level=3
"""Tactical reading on the playout board: ladders.

Owns the ladder reader used by the moggy rollout policy (atari defence: do
not run out of a working ladder; atari attack: play the ladder when it
works) and by the tree's priors.  Everything is ``noexcept nogil``.  The
``const board_t*`` functions (``ladder_captures``, ``ladder_works`` and
their ``_n`` forms with a bound on positions) read from a copy of the
board; the ``_inplace`` forms, for a caller that owns its board (a
rollout), play on the board itself and leave it exactly as it was.

Reading.  A chain in atari whose owner is to move (the defender) is read
with two kinds of answer: capture an adjacent attacker chain that is itself
in atari (the counter-capture), or extend at the last liberty.  An answer
that leaves the chain three or more liberties escapes; one that leaves one
liberty (or none) fails; one that leaves two hands the move to the
attacker, who tries an atari on each of the two liberties (the attacker's
stone may then be in atari itself, which the defender's counter-capture
reads).  The chain is captured when every answer fails.  Own stones of the
defender on the ladder's path (breakers) are read by the same rule: the
extension then joins them and reaches three liberties.

Bounds.  ``max_depth`` moves along one line (``<= 0``: four times the board
size), and at most ``LADDER_MAX_NODES`` positions per top-level call
(``max_nodes`` in the ``_n`` variants, which the rollouts call with less).
A reading cut by either bound counts as an escape: the reader says
"captured" only when it has proved it.

Moves and memory.  A move that captures nothing is played in place and
taken back (``_play_u`` saves what ``board_play`` changes: the fields before
``color[]``, the point, its neighbour counts, the rows of its neighbour
chains; ``_undo`` restores them), so a reading copies no board.  A capture
(or a suicide, on a board that allows them) is played on a copy in a
per-thread arena (one board per ply, grown on demand, freed when the thread
ends); so is the root of a ``const`` reading.  Before any reading a bitset
test (``_runs_clear``) lets most chains in atari out at once: running gives
three liberties, or two from which either atari is answered by a second
run to three.
"""
from libc.stdint cimport uint64_t, uint16_t, int16_t
from libc.string cimport memcpy
from board_ext.board cimport (board_t, geom_t, Board, board_copy, board_play, board_legal,
                              board_libs, board_chain_lib, MAXW, EMPTY, SENT, OFFBOARD)

cdef extern from *:
    """
    #include <stdlib.h>
    #include <pthread.h>
    static pthread_key_t tactics_key;
    static pthread_once_t tactics_once = PTHREAD_ONCE_INIT;
    typedef struct { void* buf; int n; } tactics_arena_t;
    static void tactics_free(void* p) {
        tactics_arena_t* a = (tactics_arena_t*)p;
        if (a) { free(a->buf); free(a); }
    }
    static void tactics_make_key(void) { pthread_key_create(&tactics_key, tactics_free); }
    /* n boards of size sz for this thread, or NULL when out of memory */
    static void* tactics_arena(int n, size_t sz) {
        tactics_arena_t* a;
        pthread_once(&tactics_once, tactics_make_key);
        a = (tactics_arena_t*)pthread_getspecific(tactics_key);
        if (!a) {
            a = (tactics_arena_t*)calloc(1, sizeof(tactics_arena_t));
            if (!a) return NULL;
            pthread_setspecific(tactics_key, a);
        }
        if (n > a->n) {
            void* nb = realloc(a->buf, (size_t)n * sz);
            if (!nb) return NULL;
            a->buf = nb;
            a->n = n;
        }
        return a->buf;
    }
    static inline int tactics_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int tactics_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    """
    void* tactics_arena(int n, size_t sz) nogil
    int tactics_ctz(unsigned long long) nogil
    int tactics_popcount(unsigned long long) nogil

cdef enum:
    HEADMAX = 512              # bytes of board_t before color[] (checked at import)
    LADDER_MAX_NODES = 500     # positions read per top-level call

ctypedef struct rd_t:
    board_t* arena             # one board per ply
    int nodes                  # positions read so far
    int max_nodes              # the bound on nodes
    int cut                    # a bound was hit


cdef int chain_libs_after(const board_t* b, int p, int c) noexcept nogil:
    """A lower bound of the liberties of colour c's chain at p after c
    plays p: p's empty neighbours, the liberties of c's adjacent chains and
    one per adjacent opponent chain in atari (captured), less p itself."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, i, n, w, r, cnt = 0
    cdef uint64_t L[MAXW]
    for w in range(nw):
        L[w] = 0
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == EMPTY:
            L[n >> 6] |= (<uint64_t>1) << (n & 63)
        elif b.color[n] == c:
            r = b.chain[n]
            for w in range(nw):
                L[w] |= b.libs[r * nw + w]
        elif b.libcnt[b.chain[n]] == 1:
            L[n >> 6] |= (<uint64_t>1) << (n & 63)
    L[p >> 6] &= ~((<uint64_t>1) << (p & 63))
    for w in range(nw):
        cnt += tactics_popcount(L[w])
    return cnt


cdef inline bint _captures_at(const board_t* b, int p, int c) noexcept nogil:
    """c playing p captures (an adjacent opponent chain is in atari)."""
    cdef int i, n
    for i in range(b.g.n_nbr[p]):
        n = b.g.nbr[p][i]
        if b.color[n] == 3 - c and b.libcnt[b.chain[n]] == 1:
            return 1
    return 0


cdef bint _runs_clear(const board_t* b, int pt) noexcept nogil:
    """The chain at pt (in atari, its owner to move) gets out without
    reading: running gives three liberties, or two from which either
    atari is answered by a second run to three (bitsets, no copy).  0 does
    not mean caught: the reader decides."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, d = b.color[pt], w, i, k, j, n, q, r, lib, cnt
    cdef int e[2]
    cdef uint64_t E[MAXW]
    cdef uint64_t F[MAXW]
    cdef uint64_t word
    lib = board_chain_lib(b, pt)
    if lib < 0 or not board_legal(b, lib, d):
        return 0
    if _captures_at(b, lib, d):
        return 0
    # E: the liberties after running at lib
    for w in range(nw):
        E[w] = b.libs[b.chain[pt] * nw + w]
    for i in range(g.n_nbr[lib]):
        n = g.nbr[lib][i]
        if b.color[n] == EMPTY:
            E[n >> 6] |= (<uint64_t>1) << (n & 63)
        elif b.color[n] == d:
            r = b.chain[n]
            for w in range(nw):
                E[w] |= b.libs[r * nw + w]
    E[lib >> 6] &= ~((<uint64_t>1) << (lib & 63))
    cnt = 0
    k = 0
    for w in range(nw):
        word = E[w]
        cnt += tactics_popcount(word)
        while word and k < 2:
            e[k] = (w << 6) + tactics_ctz(word)
            word &= word - 1
            k += 1
    if cnt >= 3:
        return 1
    if cnt < 2:
        return 0
    # two: after an atari on e[j], the run at the other must give three
    for j in range(2):
        n = e[1 - j]
        if _captures_at(b, n, 3 - d) or _captures_at(b, e[j], 3 - d):
            return 0
        for w in range(nw):
            F[w] = E[w]
        for i in range(g.n_nbr[n]):
            q = g.nbr[n][i]
            if b.color[q] == EMPTY:
                F[q >> 6] |= (<uint64_t>1) << (q & 63)
            elif b.color[q] == d and b.chain[q] != b.chain[pt]:
                r = b.chain[q]
                for w in range(nw):
                    F[w] |= b.libs[r * nw + w]
        F[n >> 6] &= ~((<uint64_t>1) << (n & 63))
        F[e[j] >> 6] &= ~((<uint64_t>1) << (e[j] & 63))
        F[lib >> 6] &= ~((<uint64_t>1) << (lib & 63))
        cnt = 0
        for w in range(nw):
            cnt += tactics_popcount(F[w])
        if cnt < 3:
            return 0
    return 1


cdef int atari_neighbours(const board_t* b, int r, int* out) noexcept nogil:
    """Representatives of the opponent chains in atari next to chain r
    (at most MAX_ADJ)."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, w, s, i, j, n, q, k = 0, c = b.color[r], dup
    cdef uint64_t word
    for w in range(nw):
        word = b.stones[r * nw + w]
        while word:
            s = (w << 6) + tactics_ctz(word)
            word &= word - 1
            for i in range(g.n_nbr[s]):
                n = g.nbr[s][i]
                if b.color[n] == 3 - c and b.libcnt[b.chain[n]] == 1:
                    q = b.chain[n]
                    dup = 0
                    for j in range(k):
                        if out[j] == q:
                            dup = 1
                            break
                    if not dup and k < MAX_ADJ:
                        out[k] = q
                        k += 1
    return k


ctypedef struct undo_t:
    # what a move that captures nothing changes on the board (see _play_u)
    char head[HEADMAX]          # the board's fields before color[]
    int p, i, last              # the point, its index in the empty list, the list's last entry
    int nr                      # neighbour chains saved
    uint16_t nbc[4]             # p's four neighbour slots' counts
    int16_t chain_p, size_p, lib_p
    uint64_t libs_p[MAXW]
    uint64_t stones_p[MAXW]
    int16_t rep[4]
    int16_t size_r[4]
    int16_t lib_r[4]
    uint64_t libs_r[4][MAXW]
    uint64_t stones_r[4][MAXW]


cdef inline size_t _head(const board_t* b) noexcept nogil:
    return <size_t>(<const char*>&b.color[0] - <const char*>b)


cdef void _play_u(board_t* b, int p, int c, undo_t* u) noexcept nogil:
    """board_play of a legal move that captures nothing, saving in u what
    it changes so that _undo puts the board back exactly (no copy)."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, i, j, n, r, w, dup
    memcpy(u.head, b, _head(b))
    u.p = p
    u.i = b.empty_pos[p]
    u.last = b.empty_list[b.n_empty - 1]
    for i in range(4):
        u.nbc[i] = b.nbc[g.nbr[p][i]]
    u.chain_p = b.chain[p]
    u.size_p = b.chain_size[p]
    u.lib_p = b.libcnt[p]
    for w in range(nw):
        u.libs_p[w] = b.libs[p * nw + w]
        u.stones_p[w] = b.stones[p * nw + w]
    u.nr = 0
    for i in range(g.n_nbr[p]):
        n = g.nbr[p][i]
        if b.color[n] == EMPTY:
            continue
        r = b.chain[n]
        dup = 0
        for j in range(u.nr):
            dup |= u.rep[j] == r
        if dup:
            continue
        u.rep[u.nr] = r
        u.size_r[u.nr] = b.chain_size[r]
        u.lib_r[u.nr] = b.libcnt[r]
        for w in range(nw):
            u.libs_r[u.nr][w] = b.libs[r * nw + w]
            u.stones_r[u.nr][w] = b.stones[r * nw + w]
        u.nr += 1
    board_play(b, p, c)


cdef void _undo(board_t* b, const undo_t* u) noexcept nogil:
    """Take back the move _play_u saved in u."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, i, k, r, w, s, p = u.p, n_old
    cdef uint64_t word
    for k in range(u.nr):
        r = u.rep[k]
        b.chain_size[r] = u.size_r[k]
        b.libcnt[r] = u.lib_r[k]
        for w in range(nw):
            b.libs[r * nw + w] = u.libs_r[k][w]
            word = u.stones_r[k][w]
            b.stones[r * nw + w] = word
            while word:
                s = (w << 6) + tactics_ctz(word)
                word &= word - 1
                b.chain[s] = r
    for w in range(nw):
        b.libs[p * nw + w] = u.libs_p[w]
        b.stones[p * nw + w] = u.stones_p[w]
    b.chain[p] = u.chain_p
    b.chain_size[p] = u.size_p
    b.libcnt[p] = u.lib_p
    b.color[p] = EMPTY
    for i in range(3, -1, -1):
        b.nbc[g.nbr[p][i]] = u.nbc[i]
    memcpy(b, u.head, _head(b))        # n_empty back too
    n_old = b.n_empty
    b.empty_list[n_old - 1] = u.last
    b.empty_pos[u.last] = n_old - 1
    b.empty_list[u.i] = p
    b.empty_pos[p] = u.i
    b.color[SENT] = OFFBOARD
    b.chain[SENT] = 0


cdef bint _escapes_by(rd_t* rd, board_t* b, int m, int pt, int depth, int ply) noexcept nogil:
    """The defender (owner of pt) plays m: 1 when the chain gets out (three
    liberties, or two from which no atari catches it).  b is unchanged
    after (a capture is played on the ply's arena board, anything else in
    place and taken back)."""
    cdef undo_t u
    cdef board_t* cur = b
    cdef int la, d = b.color[pt]
    cdef bint r
    if _captures_at(b, m, d) or chain_libs_after(b, m, d) == 0:
        cur = &rd.arena[ply]          # a capture (or a suicide): on a copy
        board_copy(cur, b)
        board_play(cur, m, d)
    else:
        _play_u(b, m, d, &u)
    la = board_libs(cur, pt)
    r = la >= 3 or (la == 2 and not _attacker_wins(rd, cur, pt, depth - 1, ply + 1))
    if cur == b:
        _undo(b, &u)
    return r


cdef bint _catches_by(rd_t* rd, board_t* b, int m, int pt, int depth, int ply) noexcept nogil:
    """The attacker plays the atari m: 1 when the chain at pt is then
    caught whatever it does.  b is unchanged after."""
    cdef undo_t u
    cdef board_t* cur = b
    cdef int a = 3 - b.color[pt]
    cdef bint r
    if _captures_at(b, m, a) or chain_libs_after(b, m, a) == 0:
        cur = &rd.arena[ply]          # a capture (or a suicide): on a copy
        board_copy(cur, b)
        board_play(cur, m, a)
    else:
        _play_u(b, m, a, &u)
    r = board_libs(cur, pt) == 1 and _defender_loses(rd, cur, pt, depth - 1, ply + 1)
    if cur == b:
        _undo(b, &u)
    return r


cdef bint _defender_loses(rd_t* rd, board_t* b, int pt, int depth, int ply) noexcept nogil:
    """b: the defender (owner of the chain at pt, in atari) to move.
    1 when every answer leaves the chain captured."""
    cdef int adj[MAX_ADJ]
    cdef int nadj, i, q, lib, la, d = b.color[pt]
    rd.nodes += 1
    if depth <= 0 or rd.nodes > rd.max_nodes:
        rd.cut = 1
        return 0
    # counter-captures
    nadj = atari_neighbours(b, b.chain[pt], adj)
    for i in range(nadj):
        q = board_chain_lib(b, adj[i])
        if q < 0 or not board_legal(b, q, d):
            continue
        if _escapes_by(rd, b, q, pt, depth, ply) or rd.cut:
            return 0
    # extension
    lib = board_chain_lib(b, pt)
    if lib >= 0 and board_legal(b, lib, d):
        la = chain_libs_after(b, lib, d)
        if la >= 3:
            return 0
        if la <= 1 and not _captures_at(b, lib, d):
            return 0 if rd.cut else 1      # exact without a capture: caught
        if _escapes_by(rd, b, lib, pt, depth, ply):
            return 0
    return 0 if rd.cut else 1


cdef bint _attacker_wins(rd_t* rd, board_t* b, int pt, int depth, int ply) noexcept nogil:
    """b: the attacker to move, the chain at pt with two liberties.
    1 when an atari on one of them captures the chain in a ladder."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, w, k = 0, i, a = 3 - b.color[pt]
    cdef int libs2[2]
    cdef uint64_t word
    cdef const uint64_t* L = &b.libs[b.chain[pt] * nw]
    rd.nodes += 1
    if depth <= 0 or rd.nodes > rd.max_nodes:
        rd.cut = 1
        return 0
    for w in range(nw):
        word = L[w]
        while word and k < 2:
            libs2[k] = (w << 6) + tactics_ctz(word)
            word &= word - 1
            k += 1
    for i in range(k):
        if not board_legal(b, libs2[i], a):
            continue
        # an atari from which the defender's extension reaches three
        # liberties is answered at once: skip it
        if chain_libs_after(b, libs2[1 - i], 3 - a) >= 4:
            continue
        if _catches_by(rd, b, libs2[i], pt, depth, ply):
            return 1
        if rd.cut:
            return 0
    return 0


cdef board_t* _arena(int depth) noexcept nogil:
    return <board_t*>tactics_arena(depth + 2, sizeof(board_t))


cdef inline int _depth(const board_t* b, int max_depth) noexcept nogil:
    return max_depth if max_depth > 0 else 4 * b.g.size


cdef bint ladder_captures(const board_t* b, int chain_pt, int max_depth) noexcept nogil:
    return ladder_captures_n(b, chain_pt, max_depth, LADDER_MAX_NODES)


cdef bint ladder_works(const board_t* b, int atari_move, int attacker, int max_depth) noexcept nogil:
    return ladder_works_n(b, atari_move, attacker, max_depth, LADDER_MAX_NODES)


cdef inline bint _rd_init(rd_t* rd, int depth, int max_nodes) noexcept nogil:
    rd.arena = _arena(depth + 1)
    rd.nodes = 0
    rd.max_nodes = max_nodes
    rd.cut = 0
    return rd.arena != NULL


cdef bint _captures_read(board_t* b, int chain_pt, int depth, int max_nodes, bint inplace) noexcept nogil:
    """ladder_captures on b; inplace: b may be played on and is put back
    exactly (else it is only read: the reading starts from a copy)."""
    cdef rd_t rd
    cdef int n, c, ply = 0
    cdef board_t* root = b
    if chain_pt < 0 or chain_pt >= b.g.nn or b.color[chain_pt] == EMPTY:
        return 0
    n = board_libs(b, chain_pt)
    if n != 1 and n != 2:
        return 0
    if n == 1 and _runs_clear(b, chain_pt):
        return 0
    if not _rd_init(&rd, depth, max_nodes):
        return 0
    c = b.color[chain_pt]
    if n == 2:
        c = 3 - c
    if not inplace or b.to_move != c:
        root = &rd.arena[0]
        board_copy(root, b)
        ply = 1
        if root.to_move != c:
            root.to_move = c
            root.ko = -1
    if n == 1:
        return _defender_loses(&rd, root, chain_pt, depth, ply)
    return _attacker_wins(&rd, root, chain_pt, depth, ply)


cdef bint _works_read(board_t* b, int atari_move, int attacker, int depth, int max_nodes,
                      bint inplace) noexcept nogil:
    """ladder_works on b; inplace as in _captures_read."""
    cdef rd_t rd
    cdef undo_t u
    cdef int i, n, ply = 1
    cdef bint r = 0
    cdef const geom_t* g = b.g
    cdef board_t* root
    if atari_move < 0 or atari_move >= g.nn or b.color[atari_move] != EMPTY:
        return 0
    if not _rd_init(&rd, depth, max_nodes):
        return 0
    inplace = inplace and b.to_move == attacker and not _captures_at(b, atari_move, attacker) \
        and chain_libs_after(b, atari_move, attacker) > 0
    if inplace:
        if not board_legal(b, atari_move, attacker):
            return 0
        root = b
        _play_u(b, atari_move, attacker, &u)
        ply = 0
    else:
        root = &rd.arena[0]
        board_copy(root, b)
        if root.to_move != attacker:
            root.to_move = attacker
            root.ko = -1
        if not board_legal(root, atari_move, attacker):
            return 0
        board_play(root, atari_move, attacker)
    for i in range(g.n_nbr[atari_move]):
        n = g.nbr[atari_move][i]
        if root.color[n] == 3 - attacker and board_libs(root, n) == 1:
            rd.cut = 0
            if _defender_loses(&rd, root, n, depth, ply):
                r = 1
                break
    if inplace:
        _undo(b, &u)
    return r


cdef bint ladder_captures_n(const board_t* b, int chain_pt, int max_depth, int max_nodes) noexcept nogil:
    """The chain at chain_pt is captured in a ladder.  With one liberty its
    owner is to move (it runs or counter-captures and is still caught);
    with two the attacker is to move (one of the two ataris works).  Any
    other liberty count, or a reading cut by the bounds (max_depth moves,
    max_nodes positions): 0."""
    return _captures_read(<board_t*>b, chain_pt, _depth(b, max_depth), max_nodes, False)


cdef bint ladder_works_n(const board_t* b, int atari_move, int attacker, int max_depth,
                         int max_nodes) noexcept nogil:
    """attacker plays atari_move (an empty point), which leaves an adjacent
    opponent chain in atari, and then captures that chain in a ladder
    whatever the defender answers.  0 when the move is illegal, puts no
    adjacent chain in atari, or the reading is cut by the bounds."""
    return _works_read(<board_t*>b, atari_move, attacker, _depth(b, max_depth), max_nodes, False)


cdef bint ladder_captures_inplace(board_t* b, int chain_pt, int max_depth, int max_nodes) noexcept nogil:
    """ladder_captures_n reading on b itself when the right side is to
    move (no copy of the board): moves are played on b and taken back, so b
    is exactly as before on return; b must not be read by anyone else
    meanwhile (the rollout's own board)."""
    return _captures_read(b, chain_pt, _depth(b, max_depth), max_nodes, True)


cdef bint ladder_works_inplace(board_t* b, int atari_move, int attacker, int max_depth,
                               int max_nodes) noexcept nogil:
    """ladder_works_n reading on b itself, as ladder_captures_inplace."""
    return _works_read(b, atari_move, attacker, _depth(b, max_depth), max_nodes, True)


# ---------------------------------------------------------------- Python API
def ladder_status(Board board, int point, int max_depth=0, int max_nodes=LADDER_MAX_NODES):
    """True when the chain at point is captured in a ladder (see
    ladder_captures: one liberty, its owner to move; two, the attacker to
    move); for tests and tools."""
    if not 0 <= point < board.b.g.nn:
        raise ValueError(f"point {point} is off the board")
    cdef bint r
    with nogil:
        r = ladder_captures_n(board.b, point, max_depth, max_nodes)
    return bool(r)


def check_inplace_reading(Board board):
    """For tests: run the in-place readers on every chain with one or two
    liberties and every atari move of board's side to move; returns their
    answers. The board must be exactly as before afterwards (the caller
    checks)."""
    cdef board_t* b = board.b
    cdef int p, i, n
    out = []
    for p in range(b.g.nn):
        if b.color[p] != EMPTY and b.chain[p] == p and board_libs(b, p) <= 2:
            out.append(("captures", p, bool(ladder_captures_inplace(b, p, 0, LADDER_MAX_NODES)),
                        bool(ladder_captures_n(b, p, 0, LADDER_MAX_NODES))))
        elif b.color[p] == EMPTY:
            for i in range(b.g.n_nbr[p]):
                n = b.g.nbr[p][i]
                if b.color[n] == 3 - b.to_move and board_libs(b, n) == 2:
                    out.append(("works", p, bool(ladder_works_inplace(b, p, b.to_move, 0, LADDER_MAX_NODES)),
                                bool(ladder_works_n(b, p, b.to_move, 0, LADDER_MAX_NODES))))
                    break
    return out


def ladder_atari_works(Board board, int move, int attacker, int max_depth=0,
                       int max_nodes=LADDER_MAX_NODES):
    """True when attacker's atari at move captures the chain it ataris in a
    ladder (see ladder_works); for tests and tools."""
    if not 0 <= move < board.b.g.nn:
        raise ValueError(f"move {move} is off the board")
    cdef bint r
    with nogil:
        r = ladder_works_n(board.b, move, attacker, max_depth, max_nodes)
    return bool(r)


def _check_head():
    cdef board_t tmp
    if _head(&tmp) > HEADMAX:
        raise ImportError(f"board_t's head is {_head(&tmp)} bytes, HEADMAX {HEADMAX}")

_check_head()
