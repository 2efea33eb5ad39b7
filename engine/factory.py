"""What is built from a config, and what a Player keeps of it: one place
for the evaluator, the M-MCTS memory and the search (used by GTP, the
experiment runner and the root-parallel workers), and the Player's two
holders of what it built, which own what a change of setting rebuilds:

    nets = Nets(cfg_fn, factory=None)      # a net per board size, loaded once (``Player.nets``)
    slot = SearchSlot(factory=None)        # the search, built on first use (``Player.slot``)
    s = slot.get(cfg, size, nets.get)      # built now if none fits
    slot.changed(old, new, key, cfg)       # a setting changed: retuned, resized or dropped
    slot.new_board(old_size, size)         # a new game: the tree, and a search whose net fits the old size, dropped

``load_evaluator`` imports ``nets`` (and so torch) only when a net is asked
for and its weights exist, so the GTP server starts fast.

A net named by the user (``net.weights``) that does not load is an error
(PlayerError); without a named net a size that has none gets None, said
once on stderr, and the search falls back to expert priors.  So does a
board under 13x13 whose size table names a net of another size (the table
of 13 serves 10x10 to 15x15; a net is read at another size only from 13x13
up: NotReadHere).  A search whose evaluator fits one board size (a net) is
dropped with a game of another size and rebuilt at its next use; one built
by a test's factory or with no net serves every size.  The slot holds no
size: the search it holds always serves the game's board.
"""
from __future__ import annotations

import logging
import os
import sys

from board_ext.board import BLACK
from engine import config as configmod
from engine import tree_policies
from engine.player_errors import NoNetError, PlayerError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

log = logging.getLogger("gomcts.factory")
plog = logging.getLogger("gomcts.player")     # the Player's holders log as the Player


class NoNet(RuntimeError):
    """No usable weights for a board size (the message says why)."""


class NotReadHere(NoNet):
    """Named weights of another size on a board smaller than CONV_MIN_SIZE:
    a size table serves a range of boards (the table of 13 those from 10x10),
    and a net of another size is read only from CONV_MIN_SIZE up, so that
    board has no net, as a size without weights of its own below it."""


def project_file(path):
    """A file a config names (``net.weights``, ``player.book_file``): as
    given when it exists (absolute, or relative to the working directory),
    else relative to the project (the shipped configs name ``nets/weights/...``
    and ``records/games/book/...``, and a GUI may start the engine from any
    folder)."""
    if os.path.isabs(path) or os.path.exists(path):
        return path
    here = os.path.join(ROOT, path)
    return here if os.path.exists(here) else path


def load_evaluator(cfg, size):
    """The Evaluator the config asks for at this board size.

    prior.evaluator = none -> None; uniform -> UniformEvaluator; expert ->
    ExpertEvaluator (prior knowledge, no net); net -> the
    torch net (nets.evaluator.Evaluator). Raises NoNet when the net is asked
    for but no fitting weights exist.  The config's values for ``size``
    (its per-size tables: engine.config.at_size) choose.
    """
    cfg = configmod.at_size(cfg, size)
    kind = cfg.prior.evaluator
    if kind == "none":
        return None
    if kind == "uniform":
        from engine.evaluator import UniformEvaluator
        return UniformEvaluator()
    if kind == "expert":
        from engine.evaluator import ExpertEvaluator
        return ExpertEvaluator()
    from nets.evaluator import Evaluator, available_sizes, weights_path   # torch stays lazy here
    device = net_device(cfg)    # a GPU asked for and absent: a config error, not "no net"
    src = project_file(cfg.net.weights) if cfg.net.weights else size
    path = project_file(cfg.net.weights) if cfg.net.weights else weights_path(size)
    kw = dict(threads=cfg.net.threads, cache_size=cfg.net.cache_size, device=device, precision=cfg.net.precision,
              symmetry=cfg.net.symmetry)
    if not os.path.exists(path):
        ev = None if cfg.net.weights else _conv_net_from_another_size(size, kw)
        if ev is None:
            raise NoNet(f"{path} does not exist (shipped sizes: {available_sizes() or 'none'})")
    else:
        try:
            # named weights are read at the board when fully convolutional (as a size without
            # weights of its own reads the nearest shipped net); a fully connected net keeps its size
            ev = Evaluator.load(src, board_size=size if cfg.net.weights and size >= CONV_MIN_SIZE else None, **kw)
        except ValueError as e:
            raise NoNet(str(e)) from None
    if ev.board_size != size:
        if cfg.net.weights and size < CONV_MIN_SIZE:
            raise NotReadHere(f"{path} is a {ev.board_size}x{ev.board_size} net, read at another size only "
                              f"from {CONV_MIN_SIZE}x{CONV_MIN_SIZE} up; the board is {size}x{size}")
        raise NoNet(f"{path} is a {ev.board_size}x{ev.board_size} net, the board is {size}x{size}")
    for key in ("value_lambda", "value_visits"):
        v = getattr(cfg.search, key)
        if (max(v) if isinstance(v, tuple) else v) > 0 and tree_policies.get(cfg.search.tree).reads_value \
                and not ev.has_value:
            raise configmod.ConfigError(f"{path}: the net has no value head (heads {ev.config.heads}), "
                              f"and search.{key} = {v} uses its value")
    return ev


# the smallest board a net of another size is read at: the 19x19 net's
# agreement on 13x13 positions was measured (docs/results/nets.md), not below
CONV_MIN_SIZE = 13


def _conv_net_from_another_size(size, kw):
    """A shipped fully convolutional net (policy head "conv") read at
    ``size`` (nearest size first), for a board of at least CONV_MIN_SIZE
    without weights of its own; None when there is none."""
    from nets.evaluator import Evaluator, available_sizes, weights_path
    if size < CONV_MIN_SIZE:
        return None
    for other in sorted(available_sizes(), key=lambda s: (abs(s - size), -s)):
        try:
            ev = Evaluator.load(weights_path(other), board_size=size, **kw)
        except ValueError:
            continue            # a fully connected head fits its own size only
        if ev.board_size == size:
            log.info("no %dx%d weights: the %dx%d net, fully convolutional, read at %dx%d",
                     size, size, other, other, size, size)
            return ev
    return None


def require_net(cfg, size):
    """Raise NoNet where ``net.required`` is set (for priors or the raw net)
    and no weights fit ``size``: the check a tool makes once, before its
    first game, so a setup error is one line, not a lost game each."""
    cfg = configmod.at_size(cfg, size)
    if not cfg.net.required or not (cfg.prior.evaluator == "net" or cfg.net.rawnet):
        return
    load_evaluator(configmod.replace(cfg, **{"prior.evaluator": "net"}), size)


def fallback_evaluator():
    """What prior.evaluator = net searches with where no net fits the board
    size: the expert prior knowledge (no net; what it is worth:
    docs/results/baseline-gnugo.md)."""
    from engine.evaluator import ExpertEvaluator
    return ExpertEvaluator()


def check_weights(cfg, sizes=(9, 13, 19)):
    """Every ``net.weights`` the config names (for every size, and each
    shipped size's table) is a readable file: ConfigError naming the key
    and the path otherwise.  A net asked for by name that is not there is
    an error at start-up, never a weaker engine in silence; an empty
    ``net.weights`` keeps the shipped fallback (nets/weights/<n>x<n>.pt,
    the 19x19 net read at 13x13, expert priors where there is none)."""
    seen = set()
    for size in sizes:
        c = configmod.at_size(cfg, size)
        w = c.net.weights
        if not w or c.prior.evaluator != "net" or w in seen:
            continue
        seen.add(w)
        path = project_file(w)
        if not os.path.isfile(path):
            what = "a directory, not a weights file" if os.path.isdir(path) else "no such file"
            raise configmod.ConfigError(f"net.weights: {w}: {what}" + ("" if cfg.net.weights == w else
                                                             f" (the {size}x{size} table's)"))
        if not os.access(path, os.R_OK):
            raise configmod.ConfigError(f"net.weights: {w}: not readable")


def net_device(cfg):
    """The torch device of ``net.device`` ("cpu" without importing torch);
    ConfigError naming the key when it asks for a GPU that torch does not
    see."""
    if cfg.net.device == "cpu":
        return "cpu"
    from nets.evaluator import resolve_device
    try:
        return resolve_device(cfg.net.device)
    except ValueError as e:
        raise configmod.ConfigError(f"net.device: {e}") from None


def make_memory(cfg, evaluator):
    """The M-MCTS memory when memory.enabled and the evaluator gives features."""
    if not cfg.memory.enabled:
        return None
    dim = getattr(evaluator, "feature_dim", 0) or 0
    if dim <= 0:
        log.warning("memory.enabled needs the net's Conv7 features (prior.evaluator = net with "
                    "weights); M-MCTS memory disabled")
        return None
    from engine.memory import Memory
    return Memory(cfg.memory, dim, seed=cfg.search.seed)


def make_search(cfg, evaluator=None):
    """A Search (``search.threads`` threads on its tree; it passes the moggy
    rule probabilities of ``[moggy]`` to its own trees; nothing is set
    process-wide)."""
    memory = make_memory(cfg, evaluator)
    from engine.search import Search
    return Search(cfg, evaluator=evaluator, memory=memory)


def build_search(cfg, size, net_for_size=None):
    """A search for ``size`` with the evaluator the config asks for (see
    engine.factory).  ``net_for_size(size)`` gives the torch net or None
    (unavailable).  Returns (search, size_bound): size_bound is True when
    the evaluator only fits this board size."""
    ev, bound = None, False
    if cfg.prior.evaluator == "net":
        ev = net_for_size(size) if net_for_size is not None else None
        bound = True
        if ev is None:
            if cfg.net.required:
                raise NoNetError(f"no net weights for {size}x{size} (net.required is set)")
            log.warning("prior.evaluator = net but no net for %dx%d: searching with expert priors",
                        size, size)
            ev = fallback_evaluator()
    else:
        ev = load_evaluator(cfg, size)
    return make_search(cfg, ev), bound


def bare_tree(size, capacity, full_policy="recycle", cfg=None, **kw):
    """A walk.Tree on its own (no Search): NodePool's arguments, every tree
    kernel's parameters from ``cfg`` (default: the config's defaults), as a
    search sets them.  For tests and benchmarks of the kernels."""
    from engine.walk import TREES, Tree
    cfg = cfg if cfg is not None else configmod.load(None)
    t = Tree(size, capacity, full_policy, **kw)
    for name in TREES:
        t.set_params(name, tree_policies.get(name).params(cfg))
    return t


# ============================================================ the Player's nets
class Nets:
    """The Player's evaluators by board size; ``cfg()`` gives the Player's
    config (its board size's values) when a net is loaded."""

    _told_no_heads = False           # said once a process, as GUIs start one engine

    def __init__(self, cfg, factory=None):
        self._cfg = cfg
        self._factory = factory
        self._by_size = {}           # size -> Evaluator or None (unavailable)

    def get(self, size):
        """The net for ``size``, or None (said once) if there is none."""
        if size in self._by_size:
            return self._by_size[size]
        cfg = self._cfg()
        ev = None
        try:
            if self._factory is not None:
                ev = self._factory(size)
            else:
                ev = load_evaluator(configmod.replace(cfg, **{"prior.evaluator": "net"}), size)
        except Exception as e:
            if self._factory is None and configmod.at_size(cfg, size).net.weights and not isinstance(e, NotReadHere):
                # a net named by the user that does not load: an error, never a weaker engine in silence
                raise PlayerError(f"cannot use net.weights for {size}x{size}: {e}") from None
            plog.warning("no net for %dx%d: %s", size, size, e)
            print(f"gomcts: no net for {size}x{size} ({e}); continuing without it", file=sys.stderr, flush=True)
            ev = None
        self._by_size[size] = ev
        return ev

    def loaded(self, size):
        """The net for ``size`` if it is loaded already (None otherwise): no load."""
        return self._by_size.get(size)

    def forget(self):
        """The net settings changed: every net is loaded anew when asked."""
        self._by_size.clear()

    def clear_caches(self):
        """Forget the nets' cached evaluations (KataGo's clear_cache)."""
        for ev in self._by_size.values():
            if ev is not None and hasattr(ev, "clear_cache"):
                ev.clear_cache()

    def stats(self):
        """A line a loaded net: its size and its cache's figures."""
        out = []
        for size, ev in self._by_size.items():
            if ev is not None:
                try:
                    out.append(f"net {size}x{size} cache {ev.cache_info()}")
                except Exception:
                    pass
        return out

    # -- what the commands ask of the net for one position ---------------------
    def evaluate(self, board):
        """(priors, value) of ``board``: priors of length size*size + 1
        (pass last), value the side to move's win probability (None
        without a value head); None without a net."""
        ev = self.get(board.size)
        if ev is None:
            return None
        p, _, v = ev.evaluate_all([board])
        return p[0], (None if v is None else float(v[0]))

    def priors(self, board):
        """The net's move priors for ``board`` (length size*size + 1, pass
        last), or None without a net."""
        got = self.evaluate(board)
        return None if got is None else got[0]

    def raw_move(self, board):
        """The net's most probable move in ``board`` (net.rawnet: no search;
        a pass when it rates no point; with ``net.root_symmetries`` above 1
        the mean over that many of the board's symmetries, as a search's
        root reads it), or None without a net."""
        ev = self.get(board.size)
        if ev is None:
            return None
        k = configmod.at_size(self._cfg(), board.size).net.root_symmetries
        if k > 1 and hasattr(ev, "raw"):
            pr = list(ev.raw(board, symmetries=range(k))["policy"])
        else:
            pr = list(ev.evaluate([board])[0][0])
        best = max(range(len(pr)), key=lambda i: pr[i])
        return board.pass_move if pr[best] <= 0 else best

    def scorer(self, size):
        """The net whose score and ownership heads analysis reads
        (``player.score_source = net`` or ``backup``), or None: playouts then.  A net
        without those heads is said once on stderr."""
        cfg = self._cfg()
        if cfg.player.score_source not in ("net", "backup") or cfg.prior.evaluator != "net":
            return None         # playouts; a search without a net loads none for its scores
        ev = self.get(size)
        if ev is not None and getattr(ev, "has_aux", False):
            return ev
        if not Nets._told_no_heads:
            Nets._told_no_heads = True
            why = "no net" if ev is None else f"the net {getattr(ev, 'name', '?')} has no score and ownership heads"
            print(f"gomcts: {size}x{size}: {why}; score leads and ownership come from playouts",
                  file=sys.stderr, flush=True)
        return None

    def estimate(self, board):
        """(Black's lead in points, ownership by flat point, +1 Black) of
        ``board`` from the net's score and ownership heads, or None when the
        net has none (``player.score_source``)."""
        return self._heads(self.scorer(board.size), board)

    def raw(self, board, symmetries=(0,)):
        """The net of ``board``'s size as it stands (whatever
        ``player.score_source`` says), the mean over ``symmetries`` (0-7):
        nets.evaluator.Evaluator.raw's dict, for ``board``'s side to move;
        None without a net."""
        ev = self.get(board.size) if self._cfg().prior.evaluator == "net" else None
        if ev is None or not hasattr(ev, "raw"):
            return None
        return ev.raw(board, symmetries)

    @staticmethod
    def _heads(ev, board):
        if ev is None:
            return None
        _, lead, own = ev.evaluate_aux([board])
        sign = 1.0 if board.to_move == BLACK else -1.0
        return sign * float(lead[0]), [sign * float(v) for v in own[0]]


# ============================================================ the Player's search
# keys whose change the search never reads
NOT_READ = ("gtp.name", "player.rules", "player.superko_play")


class SearchSlot:
    def __init__(self, factory=None):
        self.factory = factory
        self.built = None          # the search, or None until its next use
        self._bound = False        # whether the built search's net fits only the board it was built for

    def get(self, cfg, size, net_for_size):
        """The search, built now for a ``size`` board with ``cfg`` when
        none is (``net_for_size(size)``: the net or None)."""
        if self.built is None:
            if self.factory is not None:
                self.built, self._bound = self.factory(cfg), False
            else:
                self.built, self._bound = build_search(cfg, size, net_for_size)
        return self.built

    def drop_tree(self):
        """Forget the tree (the search stays built)."""
        if self.built is not None:
            try:
                self.built.clear()
            except Exception:
                plog.exception("search.clear failed")

    def new_board(self, old_size, size):
        """A new game on a ``size`` board after one on ``old_size``: the tree
        is forgotten, and the search too when its net fits only the old
        size (rebuilt at its next use)."""
        if self._bound and size != old_size:
            self.forget()
        else:
            self.drop_tree()

    def forget(self):
        """Drop the tree and the search: rebuilt at its next use."""
        self.drop_tree()
        self.built = None

    def rows(self):
        """The built search's root analysis, or [] (none built, or it failed)."""
        if self.built is None:
            return []
        try:
            return self.built.analysis()
        except Exception:
            plog.exception("analysis failed")
            return []

    def changed(self, old, new, key, search_cfg):
        """Setting ``key`` went from config ``old`` to ``new``: the pool is
        resized in place, a key the search can take live is retuned
        (Search.retune, with ``search_cfg``), any other key it reads drops
        the search, rebuilt at its next use."""
        table = key.split(".", 1)[0]
        if table == "time" or key == "player.ponder" or key in NOT_READ:
            return
        if key == "pool.pool_size":
            if self.built is not None:
                try:
                    self.built.set_pool_size(new.pool.pool_size)
                except Exception:
                    plog.exception("set_pool_size failed; the search is rebuilt")
                    self.built = None
            return
        if getattr(old, table) != getattr(new, table):
            if self.built is None or not self.built.retune(search_cfg, key):
                self.built = None
