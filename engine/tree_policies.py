"""Tree policies as plug-ins: what differs between the search's trees, in
one place per policy, so that engine/search.py has one loop and no fork on
the tree's kind.

A policy declares
- ``name`` (the value of ``search.tree``) and ``table`` (the config table
  that holds its own knobs: ``[rave]`` for rave, ``[uct]`` for uct);
- ``kernel``: the Cython tree policy it drives (``engine/tree_rave.pyx``,
  ``engine/tree_uct.pyx``, registered in ``engine/walk.pyx``);
- ``threaded``: whether it can run on several threads sharing one tree
  (the one rule engine.config.threads_refused reads);
- ``lcb``: whether it can choose its move by lower confidence bound
  (``search.choose = lcb``);
- ``exclusive``: whether its table is its own (no other policy reads it),
  so that ``go-param`` of one of its keys under another policy is refused,
  naming the active one;

and does
- ``params(cfg)``: its kernel's parameters for ``Tree.set_params``, from
  its own table (the config of the board's size: engine.config.at_size),
  as a dict keyed by the fields of the kernel's struct
  (engine/tree_params.pxd), which are named as the table's keys: the
  table itself, so that a new knob passes through with no line here;
- ``new_root(view)``: what a new root needs (the uct tree's net rows are
  per search);
- ``start(view)``: the start of a search (the rave tree expands the root
  and asks the net for its priors and values);
- ``stepper(view)``: one step of the search loop (run up to k
  simulations and answer what they ask of the net; the simulations run,
  or -1 when only net requests were answered); a stepper with a
  ``close()`` runs threads between steps, and ``close()`` stops them and
  returns the simulations not yet counted;
- ``choose(cfg, rows, best)``: the move's row among the root's rows
  (best first by visits).

Each hook gets a :class:`SearchView`, never the search: the tree, the
net and memory as the search asks them (engine.netask.NetAsk), the config
of the board's size, the root board, the threads and the budget.

A new policy is one class (in this file or its own), one ``register`` line
and one config table (docs/HACKING.md's recipe; tests/unit/test_tree_policies.py
adds a toy policy that way).  This module imports nothing of the engine,
so engine.config can read the registry.
"""
from __future__ import annotations

import dataclasses

REGISTRY = {}


@dataclasses.dataclass(frozen=True)
class SearchView:
    """What a tree policy is handed: ``tree`` (engine.walk.Tree), ``ask``
    (engine.netask.NetAsk), ``cfg`` (the config of the board's size),
    ``root_board``, ``threads`` (search.threads) and ``budget`` (the
    simulations this search may run, None for the clock's)."""
    tree: object
    ask: object
    cfg: object
    root_board: object
    threads: int = 1
    budget: object = None


def register(policy):
    """Add ``policy`` (an instance) under its name; returns it."""
    REGISTRY[policy.name] = policy
    return policy


def foreign_key(key, active):
    """Why setting ``key`` means nothing under the active policy ``active``
    (a key of another policy's own table), or None."""
    table = key.split(".", 1)[0]
    for p in REGISTRY.values():
        if p.exclusive and p.table == table and p.name != active:
            return (f"{key} belongs to the {p.name} tree policy (search.tree = {p.name}); "
                    f"the active policy is {active}, which does not read it")
    return None


def get(name):
    """The policy ``search.tree`` names; KeyError naming the known ones."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown search.tree '{name}' (known: {', '.join(sorted(REGISTRY))})") from None


class TreePolicy:
    name = None
    table = None
    kernel = None
    threaded = False
    lcb = False
    exclusive = False       # no other policy reads its table (a live change there is refused under another)
    expands_all = False     # a leaf gets all its children at once (the pool must hold one expansion)
    reads_value = False     # the net's value enters its results (search.value_lambda, search.value_visits)

    def params(self, cfg):
        """The kernel's parameters from its table (a dict: Tree.set_params)."""
        return dataclasses.asdict(getattr(cfg, self.table))

    def value_mix(self, cfg, lam):
        """The weight of the subtree's value evaluations in a child's
        reported win rate (as in its selection), at the value weight
        ``lam`` of this root; 0: the win rates are the simulations' own."""
        return 0.0

    def new_root(self, view):
        pass

    def start(self, view):
        pass

    def stepper(self, view):
        tree = view.tree
        return lambda k: tree.simulate(k)

    def choose(self, cfg, rows, best):
        return best


class RavePolicy(TreePolicy):
    """The default tree (Fuego/Pachi style): a node gets all its children at
    once with a few visits of prior knowledge, ranked by RAVE, with the
    net's priors as a further term; threads share it."""
    name, table, kernel, threaded, lcb = "rave", "rave", "rave", True, True
    expands_all = reads_value = True

    def value_mix(self, cfg, lam):
        return lam if cfg.rave.value_backup else 0.0     # AlphaGo's mixing (tree_rave.pyx rave_value)

    def start(self, view):
        tree, ask, cfg = view.tree, view.ask, view.cfg
        net = ask.net
        root = tree.root_id
        tree.expand_root()
        if net is not None and cfg.prior.dcnn_nodes > 0:
            if not tree.has_net_priors(root):
                ask.answer([(root, -2, -2, view.root_board)])
            pol = ask.root_policy()          # net.root_symmetries: a reused root's too
            if pol is not None:
                tree.replace_net_priors(root, pol)
        if (max(cfg.search.value_visits) > 0 or self.value_mix(cfg, max(cfg.search.value_lambda)) > 0) \
                and ask.value_used():   # a net with a value head
            ask.value_root_children()
        tree.set_net_budget(cfg.prior.dcnn_nodes - ask.nets_asked if net is not None else 0)

    def stepper(self, view):
        if view.threads > 1:
            return self._threaded_stepper(view)
        tree, ask = view.tree, view.ask
        net = ask.net

        def step(k):
            n = tree.simulate(k)
            if net is not None:
                reqs = tree.take_net_requests()
                if reqs:
                    ask.answer(reqs)
                    if n == 0:
                        return -1
            return n
        return step

    @staticmethod
    def _threaded_stepper(view):
        """The step on several threads sharing the tree (Tree.threads_start):
        the threads run on; a step waits until they ran k more simulations
        (at most a few milliseconds) while this thread answers their net
        requests in batches, so a slow net never stalls them.  A full pool
        stops them for a garbage collection, then they run on.  ``close()``
        stops them and returns the simulations not yet counted."""
        tree, ask, threads = view.tree, view.ask, view.threads
        net = ask.net
        budget = view.budget if view.budget is not None else 1 << 30
        total = [0]

        def answer():
            reqs = tree.take_net_requests() if net is not None else []
            if reqs:
                ask.answer(reqs)
            return bool(reqs)

        def step(k):
            if not tree.threads_running:
                tree.threads_start(threads, budget - total[0])
            n = tree.threads_wait(k, 0.005)
            answer()
            if tree.stats()["full"] or not tree.threads_alive:
                n += tree.threads_stop()          # garbage collection when the pool ran out
                answer()
            total[0] += n
            return n

        def close():
            n = tree.threads_stop()
            answer()
            total[0] += n
            return n

        step.close = close
        return step

    def choose(self, cfg, rows, best):
        if cfg.search.choose == "lcb" and best["visits"] > 0:
            # the highest lower bound among the children with a tenth of the
            # leader's visits (Leela Zero's rule, in spirit)
            floor = 0.1 * best["visits"]
            return max((d for d in rows if d["visits"] >= floor), key=lambda d: d["lcb"])
        return best


class UctPolicy(TreePolicy):
    """The first round's tree (the paper reproductions): one child at a
    time, DCNN priors by Gelly-Silver initialisation (``cnn_strength``) or
    PUCT, net rows (priors and, where search.value_lambda asks, the leaf's
    value) for the first ``prior.dcnn_nodes`` nodes of a search, asked in
    batches under virtual loss; M-MCTS reads it."""
    name, table, kernel, exclusive = "uct", "uct", "uct", True
    reads_value = True      # the value of the leaves the net evaluates (NetAsk.evaluate)

    def params(self, cfg):
        return dict(dataclasses.asdict(cfg.uct), puct=cfg.uct.policy == "puct")

    def new_root(self, view):
        view.tree.reset_priors()          # the uct tree's net rows are per search

    def start(self, view):
        if view.ask.evaluator is not None and view.cfg.prior.dcnn_nodes > 0:
            view.ask.evaluate([view.tree.root_id], [view.root_board])
            pol = view.ask.root_policy()     # net.root_symmetries
            if pol is not None:
                view.tree.set_priors(view.tree.root_id, pol)

    def stepper(self, view):
        tree, ask, batch_size = view.tree, view.ask, view.cfg.search.batch_size

        def batch(k):
            # while it wants priors or memory: descend under virtual loss,
            # evaluate the new leaves in one batch, then roll out and back up;
            # the memory steps wait until the batch has backed up, so that no
            # entry is written or read with a virtual loss in it
            if not ask.want_net():
                return tree.simulate(k)
            leaves = tree.begin_batch(min(batch_size, k))
            nodes = [n for n in leaves if n >= 0]
            if nodes:
                boards = [tree.pending_board(i) for i, n in enumerate(leaves) if n >= 0]
                ask.evaluate(nodes, boards, defer_memory=True)
            paths = [tree.pending_path(i) for i in range(len(leaves))] if ask.memory else None
            tree.finish_batch()
            ask.memory_flush()
            if paths:
                ask.memory_update(paths)
            return len(leaves)
        return batch


register(RavePolicy())
register(UctPolicy())
