"""The net and the memory as a search asks them: the ``ask`` of the view a
tree policy is handed (engine.tree_policies.SearchView), so that the
policies call no member of ``Search`` and ``search.py`` names no tree.  It
holds the parts the search hands it (:meth:`NetAsk.bind`: the config, the
tree, the evaluator, the memory, the root board), never the search.

It owns what a search asks of its evaluator and of the M-MCTS memory:
- ``answer(reqs)``: the rave tree's net requests, one batched call, the
  priors (and the value, ``search.value_lambda`` / ``search.value_visits``) to
  each node's children, the features to the memory;
- ``evaluate(nodes, boards)``: the uct tree's net rows for new leaves;
- ``value_root_children()``: the value head for every child of the root;
- ``root_policy()``: the root's priors over the board's symmetries;
- the memory's steps (add, query, back up: Xiao et al., equation 9) and
  refreshes;
- the counts of a search: ``nets_asked``, ``mem_asked`` (reset by
  ``start()``).
"""
import math

from board_ext.board import BLACK
from board_ext.phases import board_phase


def _black_lead(lead, board):
    """The score head's lead for ``board``'s side to move, as Black's."""
    return float(lead) if board.to_move == BLACK else -float(lead)


class NetAsk:
    """What a search asks of its net and memory."""

    def __init__(self):
        self.cfg = self.tree = self.evaluator = self.memory = self.root_board = None
        self.mem_keys = {}       # node -> its memory key, for M-MCTS updates
        self.key_nodes = {}      # memory key -> {node: (move, parent, N, W)} of its nodes in this tree
        self.key_base = {}       # memory key -> (N, N*V) it held from elsewhere (memory_step)
        self.deferred = []       # memory steps held until the batch backs up (evaluate)
        self.nets_asked = 0
        self.mem_asked = 0

    def start(self):
        """A new search: its counts start at zero."""
        self.nets_asked = 0
        self.mem_asked = 0

    def forget_nodes(self):
        """A new root: no memory entry points into the tree any more."""
        self.mem_keys = {}
        self.key_nodes = {}
        self.key_base = {}
        self.deferred = []

    def bind(self, cfg, tree, evaluator, memory, root_board):
        """The search's parts as they stand (the search replaces them
        between moves: a new tree, a retuned config, another net), handed
        over at each new root and each search."""
        self.cfg, self.tree, self.evaluator, self.memory, self.root_board = \
            cfg, tree, evaluator, memory, root_board

    @property
    def net(self):
        """The evaluator the rave tree asks (a net; the torch-free prior
        knowledge evaluators add nothing to the tree's own), or None."""
        ev = self.evaluator
        if ev is None or getattr(ev, "prior_knowledge", False):
            return None
        return ev

    def want_memory(self):
        """M-MCTS adds (and queries) the new nodes of a search: every one as
        in the paper (memory.nodes = 0), or only the first memory.nodes of
        them.  Deviation, a knob: each memory node costs a net forward pass
        for its Conv7 features, which at equal time costs the search most of
        its simulations; with memory.nodes <= prior.dcnn_nodes the features
        come from the forward passes that give the priors anyway."""
        n = self.cfg.memory.nodes
        return self.memory is not None and (n == 0 or self.mem_asked < n)

    def want_net(self):
        return self.evaluator is not None and (
            self.nets_asked < self.cfg.prior.dcnn_nodes or self.want_memory())

    def evaluate(self, nodes, boards, defer_memory=False):
        """The uct tree's net rows for new leaves: the priors at once; the
        features to the memory at once, or, with ``defer_memory`` (the
        leaves of a batch still under virtual loss), held until
        :meth:`memory_flush` after the batch has backed up, so that no entry
        is written or read with a virtual loss in it.  Where the value is
        used (``search.value_lambda``, ``search.value_visits``), each new
        leaf also gets the value head's answer before its batch backs up, so
        that its own simulation's result mixes the leaf's value, AlphaGo's
        leaf evaluation (before, the uct tree never asked the net for a
        value and a value_lambda of 1 ran on rollouts alone)."""
        want = self.want_memory()
        values = leads = None
        if self.value_used():
            if self.lead_used():
                priors, feats, values, leads = self.evaluator.evaluate_all(boards, want_features=want, want_lead=True)
            else:
                priors, feats, values = self.evaluator.evaluate_all(boards, want_features=want)
        else:
            priors, feats = self.evaluator.evaluate(boards, want_features=want)
        for i, (node, b) in enumerate(zip(nodes, boards)):
            if values is not None and node != self.tree.root_id:
                bv = float(values[i]) if b.to_move == BLACK else 1.0 - float(values[i])
                bl = _black_lead(leads[i], b) if leads is not None else math.nan
                self.tree.add_value(node, min(1.0, max(0.0, bv)), self.value_visits(b), bl)
            if self.nets_asked < self.cfg.prior.dcnn_nodes:
                if self.tree.set_priors(node, priors[i]):
                    self.nets_asked += 1
            if want and feats is not None:
                if defer_memory:
                    self.deferred.append((node, b, feats[i]))
                else:
                    self.memory_step(node, b, feats[i])
                self.mem_asked += 1

    def memory_flush(self):
        """The memory steps :meth:`evaluate` held back, in the batch's order,
        now that the batch has backed up (each new leaf holds its real
        simulations)."""
        held, self.deferred = self.deferred, []
        for node, board, zeta in held:
            self.memory_step(node, board, zeta)

    def answer(self, reqs):
        """The rave tree's net requests [(node, move, parent, board)]: one
        batched call; the priors go to each node's children, the features
        (M-MCTS) to the memory."""
        want = self.want_memory()
        boards = [r[3] for r in reqs]
        values = leads = None
        if self.lead_used():
            priors, feats, values, leads = self.net.evaluate_all(boards, want_features=want, want_lead=True)
            if not self.value_used():
                values = None
        elif self.value_used():
            priors, feats, values = self.net.evaluate_all(boards, want_features=want)
        else:
            priors, feats = self.net.evaluate(boards, want_features=want)
        for i, (node, move, parent, board) in enumerate(reqs):
            bv, bl = -1.0, math.nan
            if values is not None:      # the value head speaks for the side to move
                bv = float(values[i]) if board.to_move == BLACK else 1.0 - float(values[i])
            if leads is not None:       # and so does the score head
                bl = _black_lead(leads[i], board)
            if self.tree.add_net_priors(node, priors[i], move, parent, bv, self.value_visits(board), bl):
                self.nets_asked += 1
                if want and feats is not None:
                    self.memory_step(node, board, feats[i])
                    self.mem_asked += 1

    def root_policy(self):
        """``net.root_symmetries`` above 1: the root's move priors as the
        mean of the net's answer over the first that many of the board's
        eight symmetries (KataGo's rootNumSymmetriesToSample; a net that is
        not quite symmetric errs differently in each, and the root's priors
        steer the search most), or None (one symmetry, or no net to ask)."""
        k = self.cfg.net.root_symmetries
        net = self.net
        if k <= 1 or net is None or not hasattr(net, "raw"):
            return None
        return net.raw(self.root_board, symmetries=range(k))["policy"]

    def value_used(self):
        t = self.cfg.search
        return (max(t.value_lambda) > 0 or max(t.value_visits) > 0) and getattr(self.net, "has_value", False)

    def lead_used(self):
        """The tree keeps each evaluated node's lead (and backs them up
        with the simulations) where the analysis reads the score head's
        leads backed up (``player.score_source = backup``) or the rave
        root's selection adds a score term (``rave.score_utility``), with a
        net that has a score head."""
        return (self.cfg.player.score_source == "backup" or self.cfg.rave.score_utility > 0) and \
            getattr(self.net, "has_aux", False)

    def value_visits(self, board):
        """search.value_visits for the phase of ``board``: what the value
        head is worth in rollouts there (opening, middle game, endgame);
        the phase is not read where every phase's is 0 (the default)."""
        vv = self.cfg.search.value_visits
        return vv[board_phase(board)] if max(vv) > 0 else 0.0

    def value_root_children(self):
        """search.value_visits: every child of the root without a value gets
        the value head's in one batch (the symmetric prior of the root's
        choice; a reused tree keeps what its nodes had)."""
        tree, b = self.tree, self.root_board
        todo, boards = [], []
        for ch in tree.children():
            move, node = ch[0], ch[6]
            if tree.net_value(node) is not None:
                continue
            nb = b.copy()
            nb.play(move)
            todo.append(node)
            boards.append(nb)
        if not todo:
            return
        if self.lead_used():
            _, _, values, leads = self.net.evaluate_all(boards, want_lead=True)
        else:
            (_, _, values), leads = self.net.evaluate_all(boards), None
        for i, (node, nb, v) in enumerate(zip(todo, boards, values)):
            bv = float(v) if nb.to_move == BLACK else 1.0 - float(v)
            bl = math.nan if leads is None else _black_lead(leads[i], nb)
            tree.add_value(node, min(1.0, max(0.0, bv)), self.value_visits(nb), bl)

    def memory_step(self, node, board, zeta):
        """M-MCTS: add the new node's state, query V_M, back it up (eq. 9).
        The state's own entry counts like any other, with what it held
        before this node: what an earlier search, a transposition or a node
        since recycled left (the paper's addressing tends to a transposition
        table as tau -> 0).  The node's own simulations are its V and N
        already; they enter the entry after the query (in the paper a new
        leaf has none yet when it is added and queried), so that the
        memory never hands a node its own statistics back; an entry that
        holds nothing yet is left out of the query."""
        mem = self.memory
        phi = mem.phi(zeta)
        key = board.hash
        st = self.tree.node(node)
        if key not in self.key_nodes:
            # what the entry holds from before this tree stays in it: re-adding merges
            old = mem.value_of(key)
            self.key_base[key] = (old[1], old[0] * old[1]) if old is not None else (0.0, 0.0)
            self.key_nodes[key] = {}
        n, w = self._merged(key)                 # the entry without this node
        if not mem.update(key, w / n if n > 0 else 0.5, n):
            mem.add_phi(key, phi, w / n if n > 0 else 0.5, n)
        # an entry of no visits is no knowledge: equation 8 gives it no
        # weight, and it must not stand as the nearest match (confidence)
        VM, NM, _ = mem.query(phi, exclude_key=key if n <= 0 else None)
        if NM > 0 and self.cfg.memory.confidence:
            # Deviation (memory.confidence): equation (8) normalises the
            # weights, so a state whose closest entry is far away still gets
            # the full N_M of unrelated states; scale N_M by the kernel of
            # the closest entry against an exact match; an estimate worth
            # less than one visit is dropped (equation 9 would count it as 1).
            NM *= math.exp((mem.last_max_cos - 1.0) / self.cfg.memory.tau)
            if NM < 1.0:
                NM = 0.0
        self.key_nodes[key][node] = (st["move"], st["parent"], 0.0, 0.0)
        self.mem_keys[node] = key
        self.memory_refresh(node)                # now with this node's own statistics
        if NM > 0:
            self.tree.memory_backup(node, VM, NM, self.cfg.memory.eta)

    def _merged(self, key):
        """(N, N*V) of the entry ``key``: what it held from before this tree
        plus the real statistics of each of its nodes in the tree.  A node
        counts its own simulations only: the prior's virtual visits (the
        net's, the prior knowledge's) are the same guess the net makes
        everywhere, and spread through the memory they outweighed what the
        search found.  A node since recycled leaves its last statistics in
        the base."""
        bn, bw = self.key_base[key]
        nodes = self.key_nodes[key]
        for node, (move, parent, ln, lw) in list(nodes.items()):
            st = self.tree.node(node)
            if (st["move"], st["parent"]) != (move, parent):
                del nodes[node]                  # recycled: its last statistics stay
                if self.mem_keys.get(node) == key:
                    del self.mem_keys[node]
                bn, bw = bn + ln, bw + lw
                self.key_base[key] = (bn, bw)
                continue
            n, w = float(st["N"]), float(st["W"])
            nodes[node] = (move, parent, n, w)
        return bn + sum(x[2] for x in nodes.values()), bw + sum(x[3] for x in nodes.values())

    def memory_refresh(self, node):
        """The paper's update(s) for the memory entry of ``node``: the
        entry's merged statistics (:meth:`_merged`) after a backup."""
        key = self.mem_keys.get(node)
        if key is None:
            return
        n, w = self._merged(key)
        if n > 0:
            self.memory.update(key, w / n, n)

    def memory_sync(self):
        """Bring every memory entry of a node still in the tree up to the
        node's N and V: what the per-backup updates would have left once
        the search ran on without the memory (memory.nodes > 0)."""
        for node in list(self.mem_keys):
            self.memory_refresh(node)

    def memory_update(self, paths):
        """M-MCTS: every backup also updates the memory entries of the nodes
        on the path."""
        seen = set()
        for path in paths:
            for node in path:
                if node not in seen:
                    seen.add(node)
                    self.memory_refresh(node)
