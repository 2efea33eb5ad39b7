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
- ``new_root(search)``: what a new root needs (the uct tree's net rows are
  per search);
- ``start(search)``: the start of a search (the rave tree expands the root
  and asks the net for its priors and values);
- ``stepper(search)``: one step of the search loop (run up to k
  simulations and answer what they ask of the net; the simulations run,
  or -1 when only net requests were answered);
- ``choose(cfg, rows, best)``: the move's row among the root's rows
  (best first by visits).

A new policy is one class (in this file or its own), one ``register`` line
and one config table (docs/HACKING.md's recipe; tests/test_tree_policies.py
adds a toy policy that way).  This module imports nothing of the engine,
so engine.config can read the registry.
"""
from __future__ import annotations

import dataclasses

REGISTRY = {}


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

    def new_root(self, search):
        pass

    def start(self, search):
        pass

    def stepper(self, search):
        tree = search.tree
        return lambda k: tree.simulate(k)

    def choose(self, cfg, rows, best):
        return best


class RavePolicy(TreePolicy):
    """The default tree (Fuego/Pachi style): a node gets all its children at
    once with a few visits of prior knowledge, ranked by RAVE, with the
    net's priors as a further term; threads share it."""
    name, table, kernel, threaded, lcb = "rave", "rave", "rave", True, True
    expands_all = reads_value = True

    def start(self, search):
        tree, ask, cfg = search.tree, search.ask, search.cfg
        net = ask.net
        root = tree.root_id
        tree.expand_root()
        if net is not None and cfg.prior.dcnn_nodes > 0 and not tree.has_net_priors(root):
            ask.answer([(root, -2, -2, search.root_board)])
        if max(cfg.search.value_visits) > 0 and ask.value_used():   # a net with a value head
            ask.value_root_children()
        tree.set_net_budget(cfg.prior.dcnn_nodes - ask.nets_asked if net is not None else 0)

    def stepper(self, search):
        tree, ask = search.tree, search.ask
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

    def new_root(self, search):
        search.tree.reset_priors()          # the uct tree's net rows are per search

    def start(self, search):
        if search.evaluator is not None and search.cfg.prior.dcnn_nodes > 0:
            search.ask.evaluate([search.tree.root_id], [search.root_board])

    def stepper(self, search):
        tree, ask, batch_size = search.tree, search.ask, search.cfg.search.batch_size

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
            paths = [tree.pending_path(i) for i in range(len(leaves))] if search.memory else None
            tree.finish_batch()
            ask.memory_flush()
            if paths:
                ask.memory_update(paths)
            return len(leaves)
        return batch


register(RavePolicy())
register(UctPolicy())
