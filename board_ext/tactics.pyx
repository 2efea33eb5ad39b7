# cython: language_level=3
"""Tactical reading on the playout board: ladders.

Owns the ladder reader used by the moggy rollout policy (atari defence: do
not run out of a working ladder; atari attack: play the ladder when it
works) and by the tree's priors.  Everything is ``noexcept nogil`` on
``const board_t*``: the reader plays its moves on copies of the board.

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

Memory.  The copies live in a per-thread arena (one board per ply, grown
on demand, freed when the thread ends), so the recursion keeps only
pointers on the stack.
"""
from libc.stdint cimport uint64_t
from board_ext.board cimport (board_t, geom_t, Board, board_copy, board_play, board_legal,
                              board_libs, board_chain_lib, MAXW, EMPTY)

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
    LADDER_MAX_NODES = 500     # positions read per top-level call
    MAX_ADJ = 32               # adjacent attacker chains in atari looked at

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


cdef int _atari_neighbours(const board_t* b, int r, int* out) noexcept nogil:
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


cdef bint _defender_loses(rd_t* rd, const board_t* b, int pt, int depth, int ply) noexcept nogil:
    """b: the defender (owner of the chain at pt, in atari) to move.
    1 when every answer leaves the chain captured."""
    cdef int adj[MAX_ADJ]
    cdef int nadj, i, q, lib, la, d = b.color[pt]
    cdef board_t* nb = &rd.arena[ply]
    rd.nodes += 1
    if depth <= 0 or rd.nodes > rd.max_nodes:
        rd.cut = 1
        return 0
    # counter-captures
    nadj = _atari_neighbours(b, b.chain[pt], adj)
    for i in range(nadj):
        q = board_chain_lib(b, adj[i])
        if q < 0 or not board_legal(b, q, d):
            continue
        board_copy(nb, b)
        board_play(nb, q, d)
        la = board_libs(nb, pt)
        if la >= 3:
            return 0
        if la == 2 and not _attacker_wins(rd, nb, pt, depth - 1, ply + 1):
            return 0
        if rd.cut:
            return 0
    # extension
    lib = board_chain_lib(b, pt)
    if lib >= 0 and board_legal(b, lib, d):
        la = chain_libs_after(b, lib, d)
        if la >= 3:
            return 0
        if la <= 1 and not _captures_at(b, lib, d):
            return 0 if rd.cut else 1      # exact without a capture: caught
        board_copy(nb, b)
        board_play(nb, lib, d)
        la = board_libs(nb, pt)
        if la >= 3:
            return 0
        if la == 2 and not _attacker_wins(rd, nb, pt, depth - 1, ply + 1):
            return 0
    return 0 if rd.cut else 1


cdef bint _attacker_wins(rd_t* rd, const board_t* b, int pt, int depth, int ply) noexcept nogil:
    """b: the attacker to move, the chain at pt with two liberties.
    1 when an atari on one of them captures the chain in a ladder."""
    cdef const geom_t* g = b.g
    cdef int nw = g.nw, w, k = 0, i, a = 3 - b.color[pt]
    cdef int libs2[2]
    cdef uint64_t word
    cdef const uint64_t* L = &b.libs[b.chain[pt] * nw]
    cdef board_t* nb = &rd.arena[ply]
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
        # liberties is answered at once: skip the copy
        if chain_libs_after(b, libs2[1 - i], 3 - a) >= 4:
            continue
        board_copy(nb, b)
        board_play(nb, libs2[i], a)
        if board_libs(nb, pt) == 1 and _defender_loses(rd, nb, pt, depth - 1, ply + 1):
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


cdef bint ladder_captures_n(const board_t* b, int chain_pt, int max_depth, int max_nodes) noexcept nogil:
    """The chain at chain_pt is captured in a ladder.  With one liberty its
    owner is to move (it runs or counter-captures and is still caught);
    with two the attacker is to move (one of the two ataris works).  Any
    other liberty count, or a reading cut by the bounds (max_depth moves,
    max_nodes positions): 0."""
    cdef rd_t rd
    cdef int depth = _depth(b, max_depth), n, c
    cdef board_t* root
    if chain_pt < 0 or chain_pt >= b.g.nn or b.color[chain_pt] == EMPTY:
        return 0
    n = board_libs(b, chain_pt)
    if n != 1 and n != 2:
        return 0
    rd.arena = _arena(depth + 1)
    if rd.arena == NULL:
        return 0
    rd.nodes = 0
    rd.max_nodes = max_nodes
    rd.cut = 0
    c = b.color[chain_pt]
    if n == 2:
        c = 3 - c
    if b.to_move == c:
        # the right side is to move: read from b itself (no copy)
        if n == 1:
            return _defender_loses(&rd, b, chain_pt, depth, 0)
        return _attacker_wins(&rd, b, chain_pt, depth, 0)
    root = &rd.arena[0]
    board_copy(root, b)
    root.to_move = c
    root.ko = -1
    if n == 1:
        return _defender_loses(&rd, root, chain_pt, depth, 1)
    return _attacker_wins(&rd, root, chain_pt, depth, 1)


cdef bint ladder_works_n(const board_t* b, int atari_move, int attacker, int max_depth,
                         int max_nodes) noexcept nogil:
    """attacker plays atari_move (an empty point), which leaves an adjacent
    opponent chain in atari, and then captures that chain in a ladder
    whatever the defender answers.  0 when the move is illegal, puts no
    adjacent chain in atari, or the reading is cut by the bounds."""
    cdef rd_t rd
    cdef int depth = _depth(b, max_depth), i, n
    cdef const geom_t* g = b.g
    cdef board_t* root
    if atari_move < 0 or atari_move >= g.nn or b.color[atari_move] != EMPTY:
        return 0
    rd.arena = _arena(depth + 1)
    if rd.arena == NULL:
        return 0
    rd.nodes = 0
    rd.max_nodes = max_nodes
    rd.cut = 0
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
            if _defender_loses(&rd, root, n, depth, 1):
                return 1
    return 0


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
