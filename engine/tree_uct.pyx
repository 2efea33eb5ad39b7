# cython: language_level=3
"""The first round's tree policy (``search.tree = "uct"``), kept for the
paper reproductions.

Expansion adds one node per simulation: the first move chosen at a node
that is not yet a child ("untried").  Without priors an untried move has an
infinite UCB1 value and is drawn uniformly; with net priors (Gelly & Silver
2007, as the M-MCTS paper uses them) an untried move m has
``V0 = 0.5 * (1 + p_m / p_max)`` and ``N0 = cnn_strength * p_m / p_max``,
which become the new child's initial statistics.  UCB1 (``K``; ``K_prior``
at nodes with net priors) or PUCT (``c_puct``) selects; RAVE (``rave``)
blends AMAF values by ``beta = sqrt(k / (3n + k))``.
"""
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.string cimport memset, memcpy
from libc.math cimport log, sqrt, INFINITY
from board_ext.board cimport board_t, board_play, board_playable, rng_int, MAXNN
from engine.pool cimport (NodePool, MAXDEPTH, p_code, p_value, pick_better, reward_for, memory_blend,
                          deep_mask)
from engine.tree_policy cimport tree_policy_t




cdef double uct_value(NodePool t, int c) noexcept nogil:
    """The mean (real and prior statistics together), blended with AMAF by
    beta = sqrt(k / (3n + k)) when rave is on, then the M-MCTS memory blend
    when it is on (N + N0 > 0)."""
    cdef double n = t.N[c] + t.N0[c], q, beta
    q = (t.W[c] + t.W0[c]) / n
    if t.up.rave and t.aN[c] > 0:
        beta = sqrt(t.up.rave_equiv / (3.0 * n + t.up.rave_equiv))
        q = (1.0 - beta) * q + beta * t.aW[c] / t.aN[c]
    return memory_blend(t, c, q, n)


cdef int uct_legal_count(NodePool t, int node, const board_t* b) noexcept nogil:
    cdef int i, p, c = b.to_move, n = 1  # pass
    cdef bint at_root = node == t.root
    cdef const uint8_t* deep = deep_mask(t, node, c)
    if deep != NULL and deep[t.nn]:
        n = 0
    for i in range(b.n_empty):
        p = b.empty_list[i]
        if (at_root and t.root_forbid[p]) or (deep != NULL and deep[p]):
            continue
        if board_playable(b, p, c):
            n += 1
    return n


cdef inline void _forbid_marks(NodePool t, int node, int col, uint8_t* mark) noexcept nogil:
    """``mark`` [nn+1]: the moves ``node`` may not get a child for (the
    root's forbidden moves, an analysis's down to its depth)."""
    cdef int i
    cdef const uint8_t* deep = deep_mask(t, node, col)
    if node == t.root:
        memcpy(mark, t.root_forbid, t.nn + 1)
    else:
        memset(mark, 0, t.nn + 1)
    if deep != NULL:
        for i in range(t.nn + 1):
            mark[i] |= deep[i]


cdef int uct_random_untried(NodePool t, int node, const board_t* b) noexcept nogil:
    cdef uint8_t mark[MAXNN + 1]
    cdef int c = t.first_child[node], i, j, p, n = b.n_empty, col = b.to_move
    _forbid_marks(t, node, col, mark)
    while c >= 0:
        mark[t.move[c]] = 1
        c = t.next_sibling[c]
    if n:
        j = rng_int(&t.rng, n)
        for i in range(n):
            p = b.empty_list[j]
            if not mark[p] and board_playable(b, p, col):
                return p
            j += 1
            if j == n:
                j = 0
    if not mark[t.nn]:
        return t.nn
    return -1


cdef int uct_select(NodePool t, int node, const board_t* b, int* untried_move) noexcept nogil:
    """Best child of node, or -1 with *untried_move set to the move to expand."""
    cdef int c, best = -1, ties = 0, m, slot = t.prior_slot[node], nleg
    cdef double parentN = t.N[node] + t.N0[node], logN, score, bestscore = -INFINITY, n, p, pmax, N0
    cdef double fpu, sq, Kn, pvisited = 0
    cdef float* pr
    cdef uint8_t mark[MAXNN + 1]
    untried_move[0] = -1
    if t.n_untried[node] < 0:
        t.n_untried[node] = uct_legal_count(t, node, b) - t._n_children(node)
        if t.n_untried[node] < 0:
            t.n_untried[node] = 0
    if slot < 0 and not t.up.puct and t.n_untried[node] > 0:
        m = uct_random_untried(t, node, b)
        if m >= 0:
            untried_move[0] = m
            return -1
        t.n_untried[node] = 0
    logN = log(parentN if parentN > 1.0 else 1.0)
    sq = sqrt(parentN if parentN > 1.0 else 1.0)
    # at a node with net priors the prior visits do the exploring: UCB1
    # uses K_prior there (0 by default, as Fuego and libEGO run prior-
    # initialised UCT); elsewhere K
    Kn = t.up.K_prior if slot >= 0 else t.up.K
    c = t.first_child[node]
    while c >= 0:
        n = t.N[c] + t.N0[c]
        if n <= 0:
            score = INFINITY
        elif not t.up.puct:
            score = uct_value(t, c) + Kn * sqrt(logN / n)
        else:
            score = uct_value(t, c) + t.up.c_puct * p_value(t.P[c]) * sq / (1.0 + n)
            if t.N[c] > 0:
                pvisited += p_value(t.P[c])
        if pick_better(&t.rng, score, &bestscore, &ties):
            best = c
        c = t.next_sibling[c]
    if t.n_untried[node] <= 0:
        return best
    if slot >= 0:
        pr = &t.priors[<size_t>slot * (t.nn + 1)]
        _forbid_marks(t, node, b.to_move, mark)
        c = t.first_child[node]
        while c >= 0:
            mark[t.move[c]] = 1
            c = t.next_sibling[c]
        pmax = 0
        for m in range(t.nn + 1):
            if pr[m] > pmax:
                pmax = pr[m]
        if pmax <= 0:
            pmax = 1
        fpu = 1.0 - ((t.W[node] + t.W0[node]) / parentN if parentN > 0 else 0.5)
        if t.up.puct and t.up.fpu_reduction > 0:
            fpu -= t.up.fpu_reduction * sqrt(pvisited if pvisited < 1.0 else 1.0)
        for m in range(t.nn + 1):
            p = pr[m]
            if p <= 0 or mark[m]:
                continue
            if not t.up.puct:
                N0 = t.up.cnn_strength * p / pmax
                if N0 <= 0:
                    score = INFINITY if Kn > 0 else 0.5
                else:
                    score = 0.5 * (1 + p / pmax) + Kn * sqrt(logN / N0)
            else:
                score = fpu + t.up.c_puct * p * sq
            if pick_better(&t.rng, score, &bestscore, &ties):
                best = -2 - m
        if best <= -2:
            untried_move[0] = -2 - best
            return -1
        return best
    # PUCT without priors: untried moves share a uniform prior
    nleg = t.n_untried[node] + t._n_children(node)
    fpu = 1.0 - ((t.W[node] + t.W0[node]) / parentN if parentN > 0 else 0.5)
    score = fpu + t.up.c_puct * (1.0 / nleg) * sq
    if best < 0 or score > bestscore:
        m = uct_random_untried(t, node, b)
        if m >= 0:
            untried_move[0] = m
            return -1
        t.n_untried[node] = 0
    return best


cdef int uct_expand(NodePool t, int node, int m, const board_t* b) noexcept nogil:
    """Add child m under node (before the move is played); -1 if no node."""
    cdef int n = t._new_node(), slot = t.prior_slot[node], k
    cdef float* pr
    cdef double pmax = 0, p, N0
    if n < 0:
        return -1
    t._init_node(n, node, m)
    t._link_child(node, n)
    if t.n_untried[node] > 0:
        t.n_untried[node] -= 1
    if slot >= 0:
        pr = &t.priors[<size_t>slot * (t.nn + 1)]
        for k in range(t.nn + 1):
            if pr[k] > pmax:
                pmax = pr[k]
        p = pr[m]
        t.P[n] = p_code(p)
        if pmax > 0 and not t.up.puct:
            # Gelly & Silver initialisation, as in the M-MCTS paper
            N0 = t.up.cnn_strength * p / pmax
            t.N0[n] = N0
            t.W0[n] = 0.5 * (1.0 + p / pmax) * N0
    else:
        k = t.n_untried[node] + t._n_children(node)
        t.P[n] = p_code(1.0 / (k if k > 0 else 1))
    t.expansions += 1
    return n


cdef int uct_descend(NodePool t, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil:
    """Select and expand from the root; bd ends at the leaf position.
    Returns the path length; moves[i] is the move into path[i+1] (the
    last entry may be a stunted move with no node: then moves has one
    more entry than path - 1, signalled by a negative return)."""
    cdef int node = t.root, depth = 1, child, m, nxt
    path[0] = node
    t._lru_remove(node)
    t.N[node] += vloss
    while bd.passes < 2 and depth < MAXDEPTH - 1:
        child = uct_select(t, node, bd, &m)
        if child >= 0:
            moves[depth - 1] = t.move[child]
            board_play(bd, t.move[child], bd.to_move)
            node = child
            path[depth] = node
            depth += 1
            t._lru_remove(node)
            t.N[node] += vloss
            continue
        if m < 0:
            break
        nxt = uct_expand(t, node, m, bd)
        moves[depth - 1] = m
        board_play(bd, m, bd.to_move)
        if nxt < 0:
            return -depth       # stunted: move played, no node
        path[depth] = nxt
        t.N[nxt] += vloss
        depth += 1
        break
    return depth


cdef void uct_amaf(NodePool t, int32_t* path, int depth, const int16_t* moves, int nmoves,
                double black_reward, int root_color) noexcept nogil:
    """AMAF: every child of a path node whose move its player made later
    in the simulation gets the outcome (Gelly & Silver's RAVE), when
    ``rave`` is on."""
    cdef uint8_t seen[MAXNN + 1]
    cdef int i, j, c, col
    cdef double r
    if not t.up.rave:
        return
    for i in range(depth - 1):
        col = root_color if i % 2 == 0 else 3 - root_color
        memset(seen, 0, t.nn + 1)
        j = i
        while j < nmoves:
            if moves[j] < t.nn:
                seen[moves[j]] = 1
            j += 2
        r = reward_for(col, black_reward)
        c = t.first_child[path[i]]
        while c >= 0:
            if seen[t.move[c]]:
                t.aN[c] += 1
                t.aW[c] += r
            c = t.next_sibling[c]


cdef void uct_prepare_root(NodePool t) noexcept nogil:
    pass


cdef double uct_vloss(NodePool t) noexcept nogil:
    return t.up.virtual_loss


cdef tree_policy_t UCT
UCT.name = b"uct"
UCT.descend = uct_descend
UCT.descend_mt = NULL          # one thread only (virtual-loss batches serve the net)
UCT.value = uct_value
UCT.update = uct_amaf
UCT.prepare_root = uct_prepare_root
UCT.virtual_loss = uct_vloss
UCT.whole_child_sets = False
UCT.always_amaf = False


cdef const tree_policy_t* uct_policy() noexcept nogil:
    return &UCT
