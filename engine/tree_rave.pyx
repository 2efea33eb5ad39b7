# cython: language_level=3
"""The default tree policy (``search.tree = "rave"``, Fuego/Pachi style).

A leaf gets a child for every legal move at once after ``expand_visits``
real visits; each child starts with a few visits of prior knowledge
(``board_ext/priors.pyx``) kept apart from its real statistics (N0, W0) and
as its first AMAF statistics; selection maximises the RAVE blend (no
exploration term by default); the net, where it runs, adds its priors to
the children of the nodes that reach ``net_visits`` (queued here, answered
between simulations by ``engine/walk.pyx``, so no descent waits for it).
"""
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.math cimport log, sqrt, atan, INFINITY, NAN
from board_ext.board cimport (board_t, board_copy, board_play, board_legal, board_is_eye,
                              MAXNN, rng_t, BLACK)
from board_ext.priors cimport move_prior
from engine.pool cimport (NodePool, MAXDEPTH, p_code, p_value, EXPANDED, EXPANDING, NET_DONE, NET_PEND, NOT_PLAYED,
                          NO_LEAD, pick_better, reward_for, memory_blend, deep_mask)
from engine.atomics cimport (atomic_add_f, atomic_fetch_add_i, atomic_fetch_add_l, atomic_fetch_or_u8,
                             atomic_fetch_and_u8, atomic_load_acq_i32, atomic_store_rel_i32, atomic_cas_i32)
from engine.tree_policy cimport tree_policy_t


cdef double rave_net_weight(NodePool t) noexcept nogil:
    """The net prior's visits at value 1 per sqrt(p) at this root:
    ``net_equiv``, less by the share ``net_fade`` at move ``net_fade_end *
    board points``, linearly in between (Pachi lets its prior's weight
    fall as the game goes on).  The children expanded from this root get
    it, and the growth term of rave_value reads it."""
    cdef double done
    if t.rp.net_fade <= 0:
        return t.rp.net_equiv
    done = (t.root_board.move_count if t.root_board.move_count > 0 else 0) / (t.rp.net_fade_end * t.nn)
    if done > 1.0:
        done = 1.0
    return t.rp.net_equiv * (1.0 - t.rp.net_fade * done)


cdef void rave_add_net_priors(NodePool t, int node, const float* pr) noexcept nogil:
    """The net's move probabilities pr[nn+1] on the children of ``node``:
    p as P, and the net weight * sqrt(p) prior wins at value 1 on each
    (Pachi's dcnn prior in spirit); pass keeps the prior knowledge's value
    (low unless the opponent just passed: the net likes passing in
    positions that only look finished)."""
    cdef double add, w = rave_net_weight(t), p
    cdef int c = t.first_child[node]
    while c >= 0:
        t.P[c] = p_code(pr[t.move[c]])
        if t.move[c] != t.nn:
            p = pr[t.move[c]]
            add = w * sqrt(p if p > 0 else 0.0)
            t.N0[c] += add
            t.W0[c] += add
        c = t.next_sibling[c]


cdef void rave_replace_net_priors(NodePool t, int node, const float* pr) noexcept nogil:
    """The net's move probabilities pr[nn+1] in place of those the
    children of ``node`` have (rave_add_net_priors gave them): each child's
    P, and its prior wins moved by the net weight * (sqrt(p new) - sqrt(p
    old)), never below none."""
    cdef double d, w = rave_net_weight(t), p, old
    cdef int c = t.first_child[node]
    while c >= 0:
        if t.move[c] != t.nn:
            p = pr[t.move[c]]
            old = p_value(t.P[c])
            d = w * (sqrt(p if p > 0 else 0.0) - sqrt(old if old > 0 else 0.0))
            if t.N0[c] + d < 0:
                d = -t.N0[c]
            if t.W0[c] + d < 0:
                d = -t.W0[c]
            t.N0[c] += d
            t.W0[c] += d
        t.P[c] = p_code(pr[t.move[c]])
        c = t.next_sibling[c]


cdef double rave_value(NodePool t, int c) noexcept nogil:
    """The mean and the AMAF mean by beta = aN / (aN + n + n aN / k)
    (Silver), fpu with no statistics; then the M-MCTS memory blend when it
    is on.  With ``net_grow`` > 0 the net's prior visits (the net weight *
    sqrt(p), in N0 and W0 once: rave_add_net_priors) grow as sqrt(N_parent / net_grow) once the
    parent has more than net_grow visits, so the prior's pull on a child
    with n visits stays ~ sqrt(p N_parent) / n, PUCT's shape, whatever the
    budget.  With rave.value_backup each real visit counts as (1 - lambda)
    its rollout + lambda the mean value of the evaluated nodes of the
    child's subtree (AlphaGo's mixing; walk.pyx _add_value keeps VN/VW),
    the prior's visits as they are."""
    cdef double n = t.N[c] + t.N0[c], w = t.W[c] + t.W0[c], q, beta, an = t.aN[c], g, np
    cdef int par
    if t.rp.net_grow > 0 and t.P[c] > 0 and t.move[c] != t.nn:
        par = t.parent[c]
        np = t.N[par] if par >= 0 else 0.0
        if np > t.rp.net_grow:
            g = (sqrt(np / t.rp.net_grow) - 1.0) * rave_net_weight(t) * sqrt(p_value(t.P[c]))
            n += g
            w += g
    if t.value_apart and t.VN[c] > 0:
        w += t.value_lambda * (t.N[c] * t.VW[c] / t.VN[c] - t.W[c])
    if t.rp.rave and an > 0:
        if n > 0:
            beta = an / (an + n + n * an / t.rp.rave_equiv)
            q = (1.0 - beta) * w / n + beta * t.aW[c] / an
        else:
            q = t.aW[c] / an
    elif n > 0:
        q = w / n
    else:
        return t.rp.fpu
    return memory_blend(t, c, q, n)


cdef int rave_expand_all(NodePool t, int node, const board_t* b) noexcept nogil:
    """Give node a child for every legal move (own true eyes left out,
    pass always in) with the prior knowledge's counts as N0/W0 and as
    the first AMAF statistics.  Returns the children made (0: the pool
    policy gave no node)."""
    cdef int16_t cand[MAXNN + 1]
    cdef int i, n, made = 0
    cdef int k = rave_candidates(t, node, b, cand)
    cdef float n0, w0
    t.flags[node] |= EXPANDED
    for i in range(k):
        n = t._new_node()
        if n < 0:
            break
        t._init_node(n, node, cand[i])
        t._link_child(node, n)
        move_prior(b, cand[i], &n0, &w0, t.rp.prior_scale)
        t.N0[n] = n0
        t.W0[n] = w0
        t.aN[n] = n0
        t.aW[n] = w0
        made += 1
    t.expansions += 1
    if made == 0:
        t.flags[node] &= ~EXPANDED
    return made


cdef int rave_candidates(NodePool t, int node, const board_t* b, int16_t* cand) noexcept nogil:
    """The moves a node gets children for: every legal move but own true
    eyes (and what superko forbids at the root, and what an analysis
    forbids down to its depth), pass last."""
    cdef int i, p, k = 0, col = b.to_move
    cdef bint at_root = node == t.root
    cdef const uint8_t* deep = deep_mask(t, node, col)
    for i in range(b.n_empty):
        p = b.empty_list[i]
        if (at_root and t.root_forbid[p]) or (deep != NULL and deep[p]):
            continue
        if board_legal(b, p, col) and not board_is_eye(b, p, col):
            cand[k] = p
            k += 1
    if not (at_root and t.root_forbid[t.nn]) and not (deep != NULL and deep[t.nn]):
        cand[k] = t.nn
        k += 1
    return k


cdef int rave_expand_mt(NodePool t, int node, const board_t* b) noexcept nogil:
    """rave_expand_all for one of several threads: the thread that sets
    EXPANDING makes the children (nodes from the pool's lock, the same
    order as rave_expand_all), links them among themselves and publishes
    the set with one release store of first_child; another thread finds
    the node a leaf until then.  Returns the children made."""
    cdef int16_t cand[MAXNN + 1]
    cdef int32_t ids[MAXNN + 1]
    cdef int i, n, k, made
    cdef float n0, w0
    cdef uint8_t old = atomic_fetch_or_u8(&t.flags[node], EXPANDING)
    if old & EXPANDING:
        return 0
    if old & EXPANDED:          # made meanwhile by another thread
        atomic_fetch_and_u8(&t.flags[node], <uint8_t>~EXPANDING)
        return 0
    k = rave_candidates(t, node, b, cand)
    made = t._alloc_many(k, ids)
    for i in range(made):
        n = ids[i]
        t._init_node(n, node, cand[i])
        t.next_sibling[n] = ids[i - 1] if i > 0 else -1
        move_prior(b, cand[i], &n0, &w0, t.rp.prior_scale)
        t.N0[n] = n0
        t.W0[n] = w0
        t.aN[n] = n0
        t.aW[n] = w0
    atomic_fetch_add_l(&t.expansions, 1)
    if made == 0:
        atomic_fetch_and_u8(&t.flags[node], <uint8_t>~EXPANDING)
        return 0
    atomic_store_rel_i32(&t.first_child[node], ids[made - 1])
    atomic_fetch_or_u8(&t.flags[node], EXPANDED)
    atomic_fetch_and_u8(&t.flags[node], <uint8_t>~EXPANDING)
    return made


cdef inline double rave_score_term(NodePool t, double gain) noexcept nogil:
    """KataGo's score utility of a child of the root whose lead, for the
    side to move, is ``gain`` points above the root's: score_utility times
    (2/pi) atan(gain / score_scale), in win-rate units."""
    return t.rp.score_utility * 0.6366197723675814 * atan(gain / t.rp.score_scale)


cdef inline double rave_child_lead(NodePool t, int c) noexcept nogil:
    """The lead, Black's view in points, that the root's score term reads
    for child ``c`` of the root: with rave.score_backup, the mean of the
    leads its simulations backed up (KataGo's scoreMean of the child) once
    it has any; else the score head's lead at the child; NAN if neither."""
    cdef int m = t.move[c]
    if t.rp.score_backup and m >= 0 and t.lead_n[m] > 0:
        return t.lead_sum[m] / t.lead_n[m]
    if t.SB[c] != NO_LEAD:
        return t.SB[c] / 32.0
    return NAN


cdef int rave_select(NodePool t, int node, rng_t* rng) noexcept nogil:
    """The child of highest value (RAVE-blended, with priors; K times the
    UCB1 term on total counts when K > 0), ties at random; -1 if none.  At
    the root, with rave.score_utility above 0, a child with a lead
    (:func:`rave_child_lead`) adds its score term (:func:`rave_score_term`)
    against the root's lead (with rave.score_backup, the mean of all the
    leads backed up this search once there are any), as KataGo adds a
    score utility to the win rate."""
    cdef int c = atomic_load_acq_i32(&t.first_child[node]), best = -1, ties = 0
    cdef double score, bestscore = -INFINITY, logN = 0.0, n, center = 0.0, sign = 0.0, lead
    if t.rp.K > 0:
        n = t.N[node] + t.N0[node]
        logN = log(n if n > 1.0 else 1.0)
    if t.rp.score_utility > 0 and node == t.root:
        if t.rp.score_backup and t.lead_n[t.nn + 1] > 0:
            center = t.lead_sum[t.nn + 1] / t.lead_n[t.nn + 1]
        elif t.SB[node] != NO_LEAD:
            center = t.SB[node] / 32.0
        else:
            center = NAN
        if center == center:          # a lead for the root: the term speaks for the side to move
            sign = 1.0 if t.root_board.to_move == BLACK else -1.0
            center *= sign
        else:
            center = 0.0
    while c >= 0:
        score = rave_value(t, c)
        if sign != 0.0:
            lead = rave_child_lead(t, c)
            if lead == lead:
                score += rave_score_term(t, sign * lead - center)
        if t.rp.K > 0:
            n = t.N[c] + t.N0[c]
            score += t.rp.K * sqrt(logN / (n if n > 1.0 else 1.0))
        if pick_better(rng, score, &bestscore, &ties):
            best = c
        c = t.next_sibling[c]
    return best


cdef int rave_descend(NodePool t, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil:
    return rave_walk(t, bd, path, moves, vloss, &t.rng, False)


cdef int rave_descend_mt(NodePool t, board_t* bd, int32_t* path, int16_t* moves, double vloss,
                         rng_t* rng) noexcept nogil:
    return rave_walk(t, bd, path, moves, vloss, rng, True)


cdef int rave_walk(NodePool t, board_t* bd, int32_t* path, int16_t* moves, double vloss, rng_t* rng,
                   bint mt) noexcept nogil:
    """TREE_RAVE descent: a leaf with expand_visits real visits gets all
    its children; a node that reached net_visits asks the net once
    (queued, answered between simulations).  Returns the path length.
    ``mt``: one of several threads (atomic virtual loss, expansion by one
    thread, net requests claimed atomically, no LRU queue)."""
    cdef int node = t.root, depth = 1, child
    path[0] = node
    if mt:
        atomic_add_f(&t.N[node], <float>vloss)
    else:
        t._lru_remove(node)
        t.N[node] += vloss
    while depth < MAXDEPTH - 1:
        if bd.passes >= 2 and node != t.root:
            break
        if not (t.flags[node] & EXPANDED):
            if node != t.root and t.N[node] < t.rp.expand_visits + vloss:
                break
            if mt:
                if t.stopped_full or rave_expand_mt(t, node, bd) == 0:
                    break
            elif rave_expand_all(t, node, bd) == 0:
                break
        if (t.net_budget > 0 and not (t.flags[node] & (NET_DONE | NET_PEND))
                and t.N[node] >= t.rp.net_visits + vloss and t.n_req < t.req_cap):
            if mt:
                rave_ask_net_mt(t, node, bd)
            else:
                rave_ask_net(t, node, bd, t.n_req)
                t.n_req += 1
                t.net_budget -= 1
        child = rave_select(t, node, rng)
        if child < 0:
            break
        moves[depth - 1] = t.move[child]
        board_play(bd, t.move[child], bd.to_move)
        node = child
        path[depth] = node
        depth += 1
        if mt:
            atomic_add_f(&t.N[node], <float>vloss)
        else:
            t._lru_remove(node)
            t.N[node] += vloss
    return depth


cdef inline void rave_ask_net(NodePool t, int node, const board_t* bd, int k) noexcept nogil:
    """Queue node's position for the net in request slot k."""
    t.req_node[k] = node
    t.req_move[k] = t.move[node]
    t.req_parent[k] = t.parent[node]
    board_copy(&t.req_boards[k], bd)
    t.flags[node] |= NET_PEND


cdef void rave_ask_net_mt(NodePool t, int node, const board_t* bd) noexcept nogil:
    """rave_ask_net for one of several threads: the node and a unit of the
    net budget are claimed atomically, then a slot of the bounded request
    queue (a ring the caller empties while the threads run: slot k % cap
    is published by setting its sequence to k + 1); what is not there is
    given back."""
    cdef int k, slot
    if atomic_fetch_or_u8(&t.flags[node], NET_PEND) & (NET_PEND | NET_DONE):
        return
    if atomic_fetch_add_i(&t.net_budget, -1) <= 0:
        atomic_fetch_add_i(&t.net_budget, 1)
        atomic_fetch_and_u8(&t.flags[node], <uint8_t>~NET_PEND)
        return
    while True:
        k = atomic_load_acq_i32(&t.req_tail)
        if k - atomic_load_acq_i32(&t.req_head) >= t.req_cap:
            atomic_fetch_add_i(&t.net_budget, 1)
            atomic_fetch_and_u8(&t.flags[node], <uint8_t>~NET_PEND)
            return
        if atomic_cas_i32(&t.req_tail, k, k + 1):
            break
    slot = k % t.req_cap
    t.req_node[slot] = node
    t.req_move[slot] = t.move[node]
    t.req_parent[slot] = t.parent[node]
    board_copy(&t.req_boards[slot], bd)
    atomic_store_rel_i32(&t.req_seq[slot], k + 1)


cdef void rave_amaf_first(NodePool t, int32_t* path, int depth, const int16_t* moves, int nmoves,
                      double black_reward, int root_color) noexcept nogil:
    """AMAF for TREE_RAVE: a child of path node i gets the outcome when
    its point was first played, from move i on, by the player to move
    at path node i (Gelly & Silver's first-play rule), when ``rave`` is on."""
    cdef int16_t first[MAXNN + 1]
    cdef int i, j = nmoves - 1, m, node, c, col
    cdef double r
    if not t.rp.rave:
        return
    for i in range(t.nn + 1):
        first[i] = NOT_PLAYED
    for i in range(depth - 1, -1, -1):
        while j >= i:
            m = moves[j]
            if 0 <= m < t.nn:
                first[m] = j
            j -= 1
        node = path[i]
        c = atomic_load_acq_i32(&t.first_child[node])
        if c < 0:
            continue
        col = root_color if i % 2 == 0 else 3 - root_color
        r = reward_for(col, black_reward)
        while c >= 0:
            m = t.move[c]
            if m < t.nn and first[m] != NOT_PLAYED and ((first[m] - i) & 1) == 0:
                t.aN[c] += 1
                t.aW[c] += r
            c = t.next_sibling[c]


cdef void rave_prepare_root(NodePool t) noexcept nogil:
    if not (t.flags[t.root] & EXPANDED):
        rave_expand_all(t, t.root, t.root_board)


cdef double rave_vloss(NodePool t) noexcept nogil:
    return t.rp.virtual_loss


cdef tree_policy_t RAVE
RAVE.name = b"rave"
RAVE.descend = rave_descend
RAVE.descend_mt = rave_descend_mt
RAVE.value = rave_value
RAVE.update = rave_amaf_first
RAVE.prepare_root = rave_prepare_root
RAVE.virtual_loss = rave_vloss
RAVE.whole_child_sets = True
RAVE.always_amaf = True


cdef const tree_policy_t* rave_policy() noexcept nogil:
    return &RAVE
