# cython: language_level=3
"""One simulation of the search tree (Pachi's ``uct/walk.c``): descend by
the tree policy, roll out, back up, update; the virtual-loss batches of the
uct tree, the net-request queue of the rave tree and the M-MCTS memory
backup.  ``Tree`` is the class the search uses: the node store of
``engine/pool.pyx`` with a tree policy (``TREES``, each a
``tree_policy_t`` of ``engine/tree_policy.pxd``) and a rollout policy.
"""
from libc.stdint cimport int16_t, int32_t, uint8_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.math cimport sqrt, NAN
from board_ext.board cimport board_t, Board, board_copy, MAXNN, rng_t, rng_next
from board_ext.playout cimport get_policy, run_playout, MoggyRates, POLICY_MOGGY
from board_ext.bhrf cimport Forest, bhrf_move, bhrf_update
from engine.pool cimport (NodePool, MAXDEPTH, MAXSEQ, FULL_STOP, EXPANDED, EXPANDING, NET_DONE, NET_PEND, NO_LEAD,
                          p_code, reward_for, memory_blend)
from engine.atomics cimport (atomic_add_f, atomic_add_d, atomic_fetch_add_i, atomic_fetch_add_l,
                             atomic_load_acq_i32, atomic_store_rel_i32, atomic_fetch_or_u8, atomic_fetch_and_u8)
from engine.tree_policy cimport tree_policy_t
from engine.tree_uct cimport uct_policy
from engine.tree_rave cimport rave_policy, rave_net_weight, rave_add_net_priors, rave_replace_net_priors
cimport numpy as cnp
import numpy as np
from board_ext.playout import POLICIES

cnp.import_array()

TREES = ("uct", "rave")
MAX_THREADS = 256

cdef extern from "<unistd.h>" nogil:
    int usleep(unsigned int usec)

cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t* th, const void* attr, void* (*fn)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t th, void** ret)

ctypedef struct worker_t:
    void* tree                  # the Tree (a borrowed reference)
    rng_t rng                   # the thread's own random generator
    long done                   # simulations it ran



cdef const tree_policy_t* tree_policy_named(str name):
    """The registered tree policy called name (see TREES), or NULL."""
    if name == "uct":
        return uct_policy()
    if name == "rave":
        return rave_policy()
    return NULL


cdef class Tree(NodePool):
    """A search tree: a NodePool searched by a tree policy
    (``configure(tree=...)``, uct until set) with a rollout policy.
    Same arguments as NodePool; a search needs its kernel's parameters
    (set_params; engine.factory.bare_tree: the config's)."""
    cdef const tree_policy_t* pol
    cdef int mt_claimed, mt_target     # threads: simulations claimed, asked for
    cdef int mt_stop, mt_live, n_threads
    cdef long mt_seen                  # simulations already reported by threads_wait
    cdef worker_t* workers
    cdef pthread_t* ths
    cdef set params_set                # kernels whose parameters set_params filled

    def __cinit__(self, *args, **kwargs):
        self.pol = uct_policy()
        self.whole_child_sets = self.pol.whole_child_sets
        self.rollout_fn = get_policy(1)
        self.params_set = set()

    cdef int _check_params(self) except -1:
        """A search needs its kernel's parameters (the config's:
        engine.factory.bare_tree, or the search's set_params)."""
        name = self.pol.name.decode()
        if name not in self.params_set:
            raise ValueError(f"Tree: no parameters for the {name} kernel: set_params('{name}', ...) first "
                             f"(engine.factory.bare_tree gives a tree with the config's)")
        return 0

    @property
    def tree_name(self):
        return self.pol.name.decode()

    def configure(self, *, komi=None, rollout=None, max_rollout_moves=None, gc_threshold=None,
                  use_memory=None, lambda_c=None, lambda_schedule=None, seed=None, tree=None,
                  value_lambda=None, moggy=None):
        """Set the search's constants that no one kernel owns (names as in
        the papers; a kernel's own knobs: :meth:`set_params`).  ``tree``:
        the kernel (``TREES``).  ``moggy``: a board_ext.playout.MoggyRates,
        the rule probabilities of this tree's moggy rollouts (without one
        they use the process defaults)."""
        if moggy is not None:
            if not isinstance(moggy, MoggyRates):
                raise TypeError("moggy must be a board_ext.playout.MoggyRates")
            self.moggy_owner = moggy
        if tree is not None:
            if tree_policy_named(tree) == NULL:
                raise ValueError(f"search.tree: unknown tree '{tree}'")
            self.pol = tree_policy_named(tree)
            self.whole_child_sets = self.pol.whole_child_sets
        if value_lambda is not None:
            if not 0.0 <= value_lambda <= 1.0:
                raise ValueError("search.value_lambda must be in [0, 1]")
            self.value_lambda = value_lambda
        if komi is not None: self.komi = komi
        if rollout is not None:
            if rollout not in POLICIES:
                raise ValueError(f"search.rollout: unknown rollout policy '{rollout}'")
            self.rollout_fn = get_policy(POLICIES[rollout])
            self.rollout_ctx = NULL
        if self.moggy_owner is not None and self.rollout_fn == get_policy(POLICY_MOGGY):
            self.rollout_ctx = <void*>&(<MoggyRates>self.moggy_owner).m
        if max_rollout_moves is not None:
            self.max_rollout_moves = max_rollout_moves if max_rollout_moves > 0 else 3 * self.nn
        if gc_threshold is not None: self.gc_threshold = gc_threshold
        if use_memory is not None: self.use_memory = use_memory
        if lambda_c is not None: self.lambda_c = lambda_c
        if lambda_schedule is not None:
            if lambda_schedule not in ("share", "capped"):
                raise ValueError(f"memory.lambda_schedule: unknown schedule {lambda_schedule!r} (share or capped)")
            self.lambda_capped = lambda_schedule == "capped"
        if seed is not None:
            self.rng.s = (<uint64_t>seed) * <uint64_t>0x9E3779B97F4A7C15 + 12345
            if self.rng.s == 0:
                self.rng.s = 1
        self._want_arrays()

    def _want_arrays(self):
        """The optional per-node arrays this tree now reads (NodePool.want_arrays)."""
        self.value_apart = self.rp.value_backup and self.pol.name.decode() == "rave"
        self.want_arrays(self.pol.always_amaf or self.up.rave, self.use_memory, self.value_apart)


    def set_params(self, str kernel, params):
        """Fill kernel ``kernel``'s parameter struct (engine/tree_params.pxd)
        whole from the mapping ``params``, which holds each of its fields
        by name (a policy's config table as a dict: the policy's
        ``params(cfg)``, engine/tree_policies.py); keys that are not fields
        are not read.  The config checks the values' ranges.  Between
        searches only."""
        if self.mt:
            raise RuntimeError("threads are running")
        if kernel == "rave":
            self.rp = params
        elif kernel == "uct":
            self.up = params
        else:
            raise ValueError(f"search.tree: unknown tree '{kernel}'")
        self.params_set.add(kernel)
        self._want_arrays()

    def params(self, str kernel):
        """Kernel ``kernel``'s parameters as a dict (what set_params took)."""
        if kernel == "rave":
            return self.rp
        if kernel == "uct":
            return self.up
        raise ValueError(f"search.tree: unknown tree '{kernel}'")

    def value(self, int n):
        """The value in-tree selection uses for node n (N + N0 > 0): its
        mean, blended with RAVE and the M-MCTS memory value as configured."""
        if self.N[n] + self.N0[n] <= 0:
            raise ValueError("node has no visits")
        return self.pol.value(self, n)

    # ------------------------------------------------------------ the walk
    cdef int _descend(self, board_t* bd, int32_t* path, int16_t* moves, double vloss) noexcept nogil:
        return self.pol.descend(self, bd, path, moves, vloss)

    cdef void _backup(self, int32_t* path, int depth, double black_reward, double vloss,
                      int root_color, bint mt) noexcept nogil:
        cdef int i, n, mover
        for i in range(depth - 1, -1, -1):
            n = path[i]
            mover = root_color if (i % 2 == 1) else 3 - root_color
            if mt:                      # atomic N and W; no LRU queue while threads run
                atomic_add_f(&self.N[n], <float>(1.0 - vloss))
                atomic_add_f(&self.W[n], <float>reward_for(mover, black_reward))
                continue
            self.N[n] += 1.0 - vloss
            self.W[n] += reward_for(mover, black_reward)
            if self.first_child[n] >= 0:
                self._lru_push_back(n)

    cdef inline void _add_lead(self, int m, double lead, bint mt) noexcept nogil:
        _tally(self.lead_n, self.lead_sum, self.lead_sq, m, lead, mt)

    cdef inline void _add_score(self, int m, double score, bint mt) noexcept nogil:
        _tally(self.score_n, self.score_sum, self.score_sq, m, score, mt)

    cdef double _finish(self, board_t* bd, int32_t* path, int depth, int16_t* moves,
                        int ntree, double vloss, rng_t* rng, bint mt) noexcept nogil:
        """Rollout from bd (on ``rng``), backup along path; returns the
        black reward.  ``mt``: one of several threads (atomic updates; the
        AMAF statistics stay racy, as in Fuego's lock-free search)."""
        cdef int nroll = 0, root_color = self.root_board.to_move
        if bd.passes >= 2:
            # a pass-pass in the tree: play on, so dead stones are taken off
            # before the area count (the rollout ends with two passes of its own)
            bd.passes = 0
        cdef double score = run_playout(bd, rng, self.rollout_fn, self.rollout_ctx, self.komi,
                                        self.max_rollout_moves, moves + ntree, &nroll, NULL)
        cdef double black_reward = 1.0 if score > 0 else (0.0 if score < 0 else 0.5)
        cdef int i
        if ntree + nroll > 0:           # the score evidence by the root's move (score lead)
            self._add_score(moves[0], score, mt)
        self._add_score(self.nn + 1, score, mt)
        # the score head's lead backed up as the value is: the deepest node of
        # the path below the root that has one (KataGo's scoreLead is the
        # visit-weighted mean of the leads below a node)
        if self.has_leads:
            for i in range(depth - 1, 0, -1):
                if self.SB[path[i]] != NO_LEAD:
                    self._add_lead(moves[0], self.SB[path[i]] / 32.0, mt)
                    self._add_lead(self.nn + 1, self.SB[path[i]] / 32.0, mt)
                    break
        if self.value_lambda > 0 and not self.value_apart:
            # AlphaGo's leaf evaluation, (1 - lambda) z + lambda v, with v the
            # value head at the deepest node of the path that the net has
            # evaluated (the net sees nodes that reached rave.net_visits, not
            # every leaf; the root's value would shift every child alike)
            for i in range(depth - 1, 0, -1):
                if self.VB[path[i]] >= 0:
                    black_reward = (1.0 - self.value_lambda) * black_reward \
                        + self.value_lambda * self.VB[path[i]]
                    break
        self._backup(path, depth, black_reward, vloss, root_color, mt)
        self.pol.update(self, path, depth, moves, ntree + nroll, black_reward, root_color)
        if mt:
            atomic_fetch_add_l(&self.sims, 1)
            atomic_fetch_add_l(&self.rollout_moves, nroll)
            return black_reward
        if self.descent_cb != NULL:
            self.descent_cb(self.descent_ctx, moves, ntree + nroll, ntree, root_color, black_reward)
        self.sims += 1
        self.rollout_moves += nroll
        return black_reward

    # ------------------------------------------------------------ Python API
    def attach_bhrf(self, Forest forest):
        """Put a BHRF forest in front of the rollout policy and feed it every
        descent (the rollout-policy hook and the descent-sequence callback)."""
        self.rollout_fn = bhrf_move
        forest.f.fallback_ctx = (<void*>&(<MoggyRates>self.moggy_owner).m
                                 if self.moggy_owner is not None else NULL)
        self.rollout_ctx = <void*>&forest.f
        self.descent_cb = bhrf_update
        self.descent_ctx = <void*>&forest.f
        self.hook_owner = forest

    def simulate(self, int n):
        """Run n simulations with no evaluator; returns how many ran (fewer
        if the pool policy 'stop' fired)."""
        self._check_params()
        cdef board_t bd
        cdef int32_t path[MAXDEPTH]
        cdef int16_t moves[MAXSEQ]
        cdef int i, depth, ntree, done = 0
        with nogil:
            for i in range(n):
                if self.stopped_full and self.full_policy == FULL_STOP:
                    break
                if self.n_req >= self.req_cap:
                    break           # net requests to answer first
                board_copy(&bd, self.root_board)
                depth = self._descend(&bd, path, moves, 0.0)
                ntree = depth - 1
                if depth < 0:
                    depth = -depth
                    ntree = depth
                self._finish(&bd, path, depth, moves, ntree, 0.0, &self.rng, False)
                self._after_full()
                done += 1
        return done

    def _threads_guard(self):
        """The kernel's own precondition for threads (which modes run
        threaded is engine.config.threads_refused's rule, read before a
        search is built): a RuntimeError where this tree was configured
        with something its threads cannot run."""
        if self.pol.descend_mt == NULL or self.descent_cb != NULL or self.use_memory:
            raise RuntimeError(f"internal: this tree ({self.tree_name}, descent callback "
                               f"{self.descent_cb != NULL}, memory {bool(self.use_memory)}) has no threaded "
                               f"descent; engine.config.threads_refused should have kept it to one thread")

    def simulate_threads(self, int n, int threads):
        """Run n simulations on ``threads`` threads sharing this tree and
        return when they are done (threads_start, then threads_stop once
        the n are claimed).  Net requests are queued, not answered.
        Returns how many ran."""
        self.threads_start(threads, n)
        with nogil:
            while self.mt_claimed < self.mt_target and self.mt_live > 0:
                usleep(200)
        return self.threads_stop()

    def threads_start(self, int threads, int target):
        """Start ``threads`` threads searching this tree, without the GIL,
        until ``target`` simulations are claimed or threads_stop: lock-free
        descents under virtual loss, atomic N and W, each expansion
        claimed by one thread and published whole, no recycling (a full
        pool stops the expansions until threads_stop collects garbage, as
        Fuego does between searches).  Their net requests go to a bounded
        queue the caller empties with take_net_requests while they run, so
        the net never stalls them.  Returns at once."""
        self._check_params()
        cdef int i
        self._threads_guard()
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"search.threads must be in 1..{MAX_THREADS}, got {threads}")
        if self.mt:
            raise RuntimeError("threads are running already")
        self.workers = <worker_t*>malloc(threads * sizeof(worker_t))
        self.ths = <pthread_t*>malloc(threads * sizeof(pthread_t))
        if not self.workers or not self.ths:
            free(self.workers); free(self.ths)
            self.workers, self.ths = NULL, NULL
            raise MemoryError("no memory for the search threads")
        for i in range(threads):
            self.workers[i].tree = <void*>self
            self.workers[i].rng.s = rng_next(&self.rng) | 1
            self.workers[i].done = 0
        self.mt_claimed = 0
        self.mt_target = max(target, 0)
        self.mt_stop = 0
        self.mt_seen = 0
        self.req_head = 0
        self.req_tail = 0
        for i in range(self.req_cap):
            self.req_seq[i] = 0
        self.n_req = 0
        self.stopped_full = self.free_head < 0 and self.bump >= self.capacity
        self.mt = True
        self.n_threads = 0
        self.mt_live = threads
        with nogil:
            for i in range(threads):
                if pthread_create(&self.ths[i], NULL, _worker_entry, &self.workers[i]) != 0:
                    break
                self.n_threads += 1
        if self.n_threads < threads:
            atomic_fetch_add_i(&self.mt_live, self.n_threads - threads)
            if self.n_threads == 0:
                self.threads_stop()
                raise RuntimeError("cannot start the search threads")

    def threads_wait(self, int k, double timeout):
        """Wait (without the GIL) until the threads ran k more simulations
        since the last wait, a net request is queued, the pool is full, the
        threads ended or ``timeout`` seconds passed; returns the
        simulations they ran since the last wait or stop."""
        cdef long waited = 0, limit = <long>(timeout * 1e6)
        if not self.mt:
            return 0
        with nogil:
            while (self._mt_done() - self.mt_seen < k and self.mt_live > 0 and not self.stopped_full
                   and self.req_seq[self.req_head % self.req_cap] != self.req_head + 1 and waited < limit):
                usleep(200)
                waited += 200
        return self._mt_take_done()

    def threads_stop(self):
        """Stop the threads (each ends its simulation), join them, collect
        garbage when the pool ran out; returns the simulations run since
        the last wait.  Queued net requests stay for take_net_requests."""
        cdef int i
        if not self.mt:
            return 0
        self.mt_stop = 1
        with nogil:
            for i in range(self.n_threads):
                pthread_join(self.ths[i], NULL)
        n = self._mt_take_done()
        free(self.workers); free(self.ths)
        self.workers, self.ths = NULL, NULL
        self.mt = False
        if self.stopped_full:
            # the pool ran out: Fuego's collection now that no thread runs
            with nogil:
                self._collect()
        return n

    @property
    def net_weight(self):
        """The net prior's visits at value 1 per sqrt(p) that expansions
        give now (rave.net_equiv for the board size, faded by rave.net_fade:
        engine/tree_rave.pyx rave_net_weight)."""
        return rave_net_weight(self)

    @property
    def threads_running(self):
        return bool(self.mt)

    @property
    def threads_alive(self):
        """Some thread still searches (the target is not reached)."""
        return bool(self.mt and self.mt_live > 0)

    cdef long _mt_done(self) noexcept nogil:
        cdef long s = 0
        cdef int i
        for i in range(self.n_threads):
            s += self.workers[i].done
        return s

    def _mt_take_done(self):
        cdef long d = self._mt_done()
        n = d - self.mt_seen
        self.mt_seen = d
        return n

    cdef void _work(self, worker_t* w) noexcept nogil:
        """One search thread: claim simulations until the target is reached
        or the threads are stopped."""
        cdef board_t bd
        cdef int32_t path[MAXDEPTH]
        cdef int16_t moves[MAXSEQ]
        cdef int depth, ntree
        while not self.mt_stop and atomic_fetch_add_i(&self.mt_claimed, 1) < self.mt_target:
            board_copy(&bd, self.root_board)
            depth = self.pol.descend_mt(self, &bd, path, moves, self.pol.virtual_loss(self), &w.rng)
            ntree = depth - 1
            self._finish(&bd, path, depth, moves, ntree, self.pol.virtual_loss(self), &w.rng, True)
            atomic_fetch_add_l(&w.done, 1)
        atomic_fetch_add_i(&self.mt_live, -1)

    def begin_batch(self, int k):
        """Descend k times under virtual loss; returns the new leaf nodes
        (node ids, -1 where a descent created no node)."""
        self._check_params()
        cdef int i, depth
        if k > self.pend_cap:
            k = self.pend_cap
        leaves = []
        for i in range(k):
            if self.stopped_full and self.full_policy == FULL_STOP:
                break
            board_copy(&self.pend_boards[i], self.root_board)
            depth = self._descend(&self.pend_boards[i], &self.pend_path[i * MAXDEPTH],
                                  &self.pend_moves[i * MAXSEQ], self.pol.virtual_loss(self))
            if depth < 0:
                self.pend_len[i] = -depth
                self.pend_nmoves[i] = -depth
                leaves.append(-1)
            else:
                self.pend_len[i] = depth
                self.pend_nmoves[i] = depth - 1
                leaves.append(self.pend_path[i * MAXDEPTH + depth - 1] if depth > 1 else -1)
            self.n_pend = i + 1
        return leaves

    @property
    def batch_pending(self):
        """The descents of the batch begun and not yet finished (their
        nodes carry the virtual loss)."""
        return self.n_pend

    def memory_lambda(self, int node):
        """lambda_s of ``node``: the weight of its V_M in the value in-tree
        selection reads (0 without a memory estimate), with the uct tree's
        count N + N0."""
        cdef double n = self.N[node] + self.N0[node]
        # the blend is affine in the mean: (1 - lambda_s) q + lambda_s V_M
        return 1.0 - (memory_blend(self, node, 1.0, n) - memory_blend(self, node, 0.0, n))

    def pending_board(self, int i):
        """The leaf position of pending descent i, as a Board (no history)."""
        cdef Board b = Board(int(round(sqrt(self.nn))))
        board_copy(b.b, &self.pend_boards[i])
        return b

    def pending_path(self, int i):
        return [self.pend_path[i * MAXDEPTH + j] for j in range(self.pend_len[i])]

    def finish_batch(self):
        """Roll out and back up every pending descent; clears the batch."""
        cdef int i
        for i in range(self.n_pend):
            self._finish(&self.pend_boards[i], &self.pend_path[i * MAXDEPTH], self.pend_len[i],
                         &self.pend_moves[i * MAXSEQ], self.pend_nmoves[i], self.pol.virtual_loss(self), &self.rng, False)
            self._after_full()
        self.n_pend = 0

    def expand_root(self):
        """The rave tree: give the root its children now (no-op when it has
        them); returns the number of root children."""
        with nogil:
            self.pol.prepare_root(self)
        return self._n_children(self.root)

    def set_net_budget(self, int n):
        """The rave tree: how many nodes may ask the net in this search."""
        self.net_budget = max(n, 0)

    def take_net_requests(self):
        """The rave tree: the queued net requests as [(node, Board)]; clears
        the queue (answer them with add_net_priors)."""
        cdef int i, h
        cdef Board b
        out = []
        if self.mt:
            # the threads' queue: slot h % cap is ready once its sequence is h + 1
            h = self.req_head
            while atomic_load_acq_i32(&self.req_seq[h % self.req_cap]) == h + 1:
                i = h % self.req_cap
                b = Board(int(round(sqrt(self.nn))))
                board_copy(b.b, &self.req_boards[i])
                out.append((self.req_node[i], int(self.req_move[i]), int(self.req_parent[i]), b))
                h += 1
            atomic_store_rel_i32(&self.req_head, h)
            return out
        for i in range(self.n_req):
            b = Board(int(round(sqrt(self.nn))))
            board_copy(b.b, &self.req_boards[i])
            out.append((self.req_node[i], int(self.req_move[i]), int(self.req_parent[i]), b))
        self.n_req = 0
        return out

    cdef void _add_lead_at(self, int node, double black_lead):
        """Keep the score head's lead (black's view, points) at ``node``."""
        if black_lead == black_lead and self.SB[node] == NO_LEAD:      # not NaN
            self.SB[node] = <int16_t>max(-32767.0, min(32767.0, black_lead * 32.0 + (0.5 if black_lead >= 0 else -0.5)))
            self.has_leads = True

    cdef bint _add_value(self, int node, double black_value, double visits):
        """Keep the value head's P(black wins) at ``node`` (for
        search.value_lambda) and give the node ``visits`` prior visits at that
        value for the player who moved into it (search.value_visits).  Once a
        node: a node whose value is known (the root's batch, then the net's
        call at the node) is not counted twice.  With rave.value_backup
        (``value_apart``) the value also enters the value evaluations of
        the node and of each of its ancestors below the root, once (VN, VW:
        AlphaGo's W_v / N_v, the mean value of the evaluated nodes of a
        subtree), for the player who moved into each."""
        cdef int depth = 0, x = node, mover
        if self.VB[node] >= 0:
            return False
        self.VB[node] = <float>black_value
        if (visits > 0 or self.value_apart) and node != self.root:
            while x != self.root and x >= 0:
                x = self.parent[x]
                depth += 1
            if x == self.root:      # the mover: the root's side at odd depths
                mover = self.root_board.to_move if depth % 2 == 1 else 3 - self.root_board.to_move
                if visits > 0:
                    self.N0[node] += visits
                    self.W0[node] += visits * reward_for(mover, black_value)
                if self.value_apart:
                    x = node
                    while x != self.root:
                        atomic_add_f(&self.VN[x], 1.0)
                        atomic_add_f(&self.VW[x], <float>reward_for(mover, black_value))
                        mover = 3 - mover
                        x = self.parent[x]
        return True

    def add_value(self, int node, double black_value, double visits, double black_lead=NAN):
        """The value head's P(black wins) at ``node`` as ``visits`` prior
        visits (see :meth:`_add_value`); False when the node had its value
        already.  Between searches only (no threads running)."""
        if node < 0 or node >= self.capacity or node == self.root:
            raise ValueError("bad node")
        if not 0.0 <= black_value <= 1.0 or visits < 0:
            raise ValueError("black_value must be in [0, 1], visits not negative")
        self._add_lead_at(node, black_lead)
        return self._add_value(node, black_value, visits)

    def add_net_priors(self, int node, priors, int move=-2, int parent=-2, double black_value=-1.0,
                       double value_visits=0.0, double black_lead=NAN):
        """The rave tree: add the net's move probabilities (length nn+1) to the
        children of node (engine/tree_rave.pyx rave_add_net_priors: p as P,
        the net weight * sqrt(p) prior wins at value 1, not to pass).
        move/parent (from take_net_requests) check that the node was not
        recycled meanwhile.  ``black_value`` (the value head's probability
        that black wins at the node, when >= 0) goes to :meth:`add_value`
        with ``value_visits``, ``black_lead`` (the score head's lead for
        black, points, when not NaN) is kept at the node for the
        simulations below it (:meth:`root_leads`).  Returns False when the node is gone, has no
        children or had the net's priors already."""
        cdef cnp.ndarray[cnp.float32_t, ndim=1] pr = np.ascontiguousarray(priors, np.float32)
        if pr.shape[0] != self.nn + 1:
            raise ValueError(f"priors must have {self.nn + 1} entries")
        if node < 0 or node >= self.capacity:
            raise ValueError("bad node")
        atomic_fetch_and_u8(&self.flags[node], <uint8_t>~NET_PEND)     # threads may be running
        if move != -2 and (self.move[node] != move or self.parent[node] != parent):
            return False
        if (self.flags[node] & NET_DONE) or not (self.flags[node] & EXPANDED) or self.first_child[node] < 0:
            return False
        if black_value >= 0:
            self._add_value(node, black_value, value_visits)
        self._add_lead_at(node, black_lead)
        rave_add_net_priors(self, node, &pr[0])
        atomic_fetch_or_u8(&self.flags[node], NET_DONE)
        return True

    def replace_net_priors(self, int node, priors):
        """The rave tree: the net's move probabilities (length nn+1) in
        place of those node's children were given (:meth:`add_net_priors`;
        engine/tree_rave.pyx rave_replace_net_priors), e.g. the root's as
        the mean over the board's symmetries (``net.root_symmetries``).
        Not while threads run.  Returns False when node has no net priors
        to replace."""
        cdef cnp.ndarray[cnp.float32_t, ndim=1] pr = np.ascontiguousarray(priors, np.float32)
        if pr.shape[0] != self.nn + 1:
            raise ValueError(f"priors must have {self.nn + 1} entries")
        if node < 0 or node >= self.capacity:
            raise ValueError("bad node")
        if not (self.flags[node] & NET_DONE) or self.first_child[node] < 0:
            return False
        rave_replace_net_priors(self, node, &pr[0])
        return True

    def memory_backup(self, int leaf, double VM, double NM, double eta):
        """M-MCTS equation (9): back V_M(s_h), N_M(s_h) of the new node up to
        the root with decay eta. VM is for the player who made move[leaf].
        Deviation: values flip between plies (the paper leaves perspective
        implicit)."""
        cdef int n = leaf, dist = 0
        cdef double X, R, v
        if NM <= 0:
            return
        while n >= 0:
            X = NM / (eta ** dist) if eta > 0 else NM
            if X < 1.0:
                X = 1.0
            v = VM if dist % 2 == 0 else 1.0 - VM
            R = v * X           # R = V_M(s_h) * N_M(s_h) scaled to X (eq. 9 with weight X)
            self.NM[n] += X
            self.VM[n] += (R - self.VM[n] * X) / self.NM[n]
            n = self.parent[n]
            dist += 1


cdef inline void _tally(double* n, double* total, double* sq, int m, double x, bint mt) noexcept nogil:
    """One more sample x of the root's move m: its count, sum and sum of squares."""
    if mt:
        atomic_add_d(&n[m], 1.0)
        atomic_add_d(&total[m], x)
        atomic_add_d(&sq[m], x * x)
    else:
        n[m] += 1
        total[m] += x
        sq[m] += x * x


cdef void* _worker_entry(void* arg) noexcept nogil:
    cdef worker_t* w = <worker_t*>arg
    (<Tree>w.tree)._work(w)
    return NULL
