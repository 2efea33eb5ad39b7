"""Building a search from a config: one place for the evaluator, the M-MCTS
memory and the parallel wrapper, used by GTP, the experiment runner and the
root-parallel workers.

``load_evaluator`` imports ``nets`` (and so torch) only when a net is asked
for and its weights exist, so the GTP server starts fast.
"""
import logging
import os

from engine import tree_policies

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

log = logging.getLogger("gomcts.factory")


class NoNet(RuntimeError):
    """No usable weights for a board size (the message says why)."""


class NotReadHere(NoNet):
    """Named weights of another size on a board smaller than CONV_MIN_SIZE:
    a size table serves a range of boards (the table of 13 those from 10x10),
    and a net of another size is read only from CONV_MIN_SIZE up, so that
    board has no net, as a size without weights of its own below it."""


def weights_file(path):
    """``net.weights`` as a file: as given when it exists (absolute, or
    relative to the working directory), else relative to the project (the
    shipped configs name ``nets/weights/...``, and a GUI may start the engine
    from any folder)."""
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
    from engine.config import at_size
    cfg = at_size(cfg, size)
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
    src = weights_file(cfg.net.weights) if cfg.net.weights else size
    path = weights_file(cfg.net.weights) if cfg.net.weights else weights_path(size)
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
            from engine.config import ConfigError
            raise ConfigError(f"{path}: the net has no value head (heads {ev.config.heads}), "
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
    from engine.config import at_size, replace
    cfg = at_size(cfg, size)
    if not cfg.net.required or not (cfg.prior.evaluator == "net" or cfg.net.rawnet):
        return
    load_evaluator(replace(cfg, **{"prior.evaluator": "net"}), size)


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
    from engine.config import ConfigError, at_size
    seen = set()
    for size in sizes:
        c = at_size(cfg, size)
        w = c.net.weights
        if not w or c.prior.evaluator != "net" or w in seen:
            continue
        seen.add(w)
        path = weights_file(w)
        if not os.path.isfile(path):
            what = "a directory, not a weights file" if os.path.isdir(path) else "no such file"
            raise ConfigError(f"net.weights: {w}: {what}" + ("" if cfg.net.weights == w else
                                                             f" (the {size}x{size} table's)"))
        if not os.access(path, os.R_OK):
            raise ConfigError(f"net.weights: {w}: not readable")


def net_device(cfg):
    """The torch device of ``net.device`` ("cpu" without importing torch);
    ConfigError naming the key when it asks for a GPU that torch does not
    see."""
    if cfg.net.device == "cpu":
        return "cpu"
    from engine.config import ConfigError
    from nets.evaluator import resolve_device
    try:
        return resolve_device(cfg.net.device)
    except ValueError as e:
        raise ConfigError(f"net.device: {e}") from None


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
    from engine.player_errors import NoNetError
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
    from engine import config
    from engine.walk import TREES, Tree
    cfg = cfg if cfg is not None else config.load(None)
    t = Tree(size, capacity, full_policy, **kw)
    for name in TREES:
        t.set_params(name, tree_policies.get(name).params(cfg))
    return t
