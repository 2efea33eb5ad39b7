"""The MCTS driver.  Start here.

One simulation is ``descend -> expand -> rollout -> backup`` (the loop lives
in ``engine/walk.pyx`` over ``engine/pool.pyx``, in nogil Cython), through
the tree policy ``search.tree`` names (``engine/tree_policies.py``):

* the rave tree (``search.tree = "rave"``, the default; ``engine/tree_rave.pyx``):
  a child's value blends its mean with its AMAF (RAVE) value and the prior
  knowledge's virtual visits (Fuego/Pachi style, ``[rave]``); a leaf gets
  all its children at ``rave.expand_visits``; a node that reaches
  ``rave.net_visits`` asks the net once (queued, answered in batches) and
  its priors join the children as ``net_equiv * sqrt(p)`` visits;
  optionally the net's value is mixed into each result
  (``search.value_lambda``, AlphaGo's lambda) and the M-MCTS memory value into
  selection (Xiao et al., section 5);
* the first round's tree (``search.tree = "uct"``; ``engine/tree_uct.pyx``,
  kept for the paper reproductions): UCB1 or PUCT, one node a simulation,
  net priors for the first ``dcnn_nodes`` nodes;
* rollout: ``board_ext`` playout with the configured policy (random, expert,
  moggy, or BHRF in front of one);
* backup: N and W along the path, AMAF for the rave tree, the memory's V_M
  with decay ``eta`` (equation 9).

This module drives that loop: budgets and time, tree reuse, pass/resign
rules, and analysis for GUIs; the tree policy owns what differs between
trees.  It never imports torch.

State groups (as KataGo's search.h): constant config (``self.cfg``),
external objects (``self.evaluator``, ``self.memory``, ``self.bhrf``), and
the mutable tree (``self.tree``, ``self.root_board``).
"""
import math
import os
import threading
import time
from dataclasses import asdict, dataclass, field

from board_ext.phases import board_phase
from board_ext.playout import MoggyRates
from engine import config as config_mod
from engine import tree_policies
from engine.netask import NetAsk
from engine.walk import Tree

RESIGN = -1


@dataclass
class SearchResult:
    move: int                 # flat point, size*size = pass, RESIGN = -1
    winrate: float            # for the side to move at the root
    visits: int               # root visits (excluding prior visits)
    playouts: int             # simulations run by this search
    seconds: float
    pv: list = field(default_factory=list)
    stopped_by: str = ""      # budget | time | early | pool | interrupt
    child_visits: dict = field(default_factory=dict)   # {move: real visits} of the root's children
    rows: list = field(default_factory=list)           # the root's analysis the move was chosen from
    pool: dict = field(default_factory=dict)           # the pool after the search (Search.pool_stats)

    def words(self, vtx):
        """The search's result in words, after its move's name (``vtx(move)``
        spells a point): win rate, visits, PV, pool use; the move's SGF
        comment and gomill-explain_last_move."""
        txt = (f"winrate {100 * self.winrate:.1f}% visits {self.visits} playouts {self.playouts} "
               f"time {self.seconds:.2f}s")
        if self.pv:
            txt += " pv " + " ".join(vtx(m) for m in self.pv[:12])
        if self.pool:
            txt += f"; pool {self.pool.get('used')}/{self.pool.get('capacity')} nodes"
            if self.pool.get("recycled"):
                txt += f", recycled {self.pool.get('recycled')}"
        return txt


def dynamic_komi(handicap, move_number, points, per_stone, end_share):
    """Pachi's linear dynamic komi (uct/dynkomi.c): the points the search
    adds to White's komi in a handicap game, ``per_stone`` a stone at the
    start, falling to 0 at move ``end_share * points``; 0 without handicap."""
    if handicap < 2 or per_stone <= 0:
        return 0.0
    left = 1.0 - move_number / (end_share * points)
    return per_stone * handicap * left if left > 0 else 0.0


def search_threads(cfg):
    """The threads a search of ``cfg`` runs: ``search.threads``; 0 means one
    a core, or one where a seed is set (several threads never replay a
    game); one where the mode cannot run threaded
    (engine.config.threads_refused)."""
    n = cfg.search.threads
    if n == 0:
        n = 1 if cfg.search.seed else (os.cpu_count() or 1)
    return n if config_mod.threads_refused(cfg) is None else 1


# search.* keys that a built search cannot follow live (Search.retune)
RETUNE_REBUILDS = frozenset(("search.tree", "search.rollout", "search.threads", "search.seed", "search.batch_size"))


class Search:
    """MCTS over a memory-bounded node pool.

    Args:
        cfg: engine.config.Config.
        evaluator: an Evaluator (engine/evaluator.py) or None.
        memory: an engine.memory.Memory for M-MCTS, or None.
    """

    def __init__(self, cfg, evaluator=None, memory=None):
        self.cfg = cfg
        self.evaluator = evaluator
        self.memory = memory
        self.bhrf = None        # board_ext.bhrf.Forest when search.rollout = "bhrf"
        self.bhrf_size = 0
        # this search's moggy rule probabilities ([moggy]), passed to each
        # tree: two engines in one process keep their own
        self._moggy = MoggyRates(**asdict(cfg.moggy))
        self.tree = None
        self.root_board = None
        self.komi = 7.5
        self._stop = threading.Event()
        self.last_result = None
        self.value_mix = 0.0    # rave.value_backup's lambda at this root (_per_move), else 0
        self._seed = cfg.search.seed or (int(time.time() * 1e6) & 0x7FFFFFFF)
        self.ask = NetAsk()      # the net and the memory as this search asks them (engine/netask.py)
        self.threads = search_threads(cfg)
        self.policy = tree_policies.get(cfg.search.tree)     # what differs between the trees

    # ---------------------------------------------------------------- setup
    @property
    def seed(self):
        return self._seed

    def _at(self, size):
        """``self.cfg`` with the config's values for ``size`` (its per-size
        tables, engine.config.at_size), resolved once a size."""
        if config_mod.sized_for(self.cfg) != size:
            self.cfg = config_mod.at_size(self.cfg, size)
        return self.cfg

    def _new_tree(self, size):
        c = self._at(size)
        why = config_mod.pool_refused(c, size)
        if why is not None:
            raise config_mod.ConfigError(why)
        t = Tree(size, c.pool.pool_size, c.pool.full_policy, prior_rows=max(c.prior.dcnn_nodes, 1) + 1,
                 batch=c.search.batch_size, seed=self._seed)
        t.configure(tree=self.policy.kernel,
                    value_lambda=0.0,           # by the root's phase, at each move: _per_move
                    komi=self.komi, rollout=c.bhrf.fallback if c.search.rollout == "bhrf" else c.search.rollout,
                    gc_threshold=c.pool.gc_threshold,
                    use_memory=self.memory is not None, lambda_c=c.memory.lambda_c,
                    lambda_schedule=c.memory.lambda_schedule, moggy=self._moggy)
        self._set_params(t, size)
        if c.search.rollout == "bhrf":
            if self.bhrf is None or self.bhrf_size != size:
                from board_ext.bhrf import Forest
                b = c.bhrf
                self.bhrf = Forest(size, epsilon=b.epsilon, selection=b.selection, b=b.b,
                                   fallback=b.fallback, max_depth=b.max_depth, capacity=b.capacity,
                                   root_context=b.root_context, skip_expansion=b.skip_expansion,
                                   accept=b.accept, horizon=b.horizon, horizon_share=b.horizon_share,
                                   trials=b.trials, match=b.match)
                self.bhrf_size = size
            t.attach_bhrf(self.bhrf)
        return t

    def _set_params(self, tree, size):
        """The tree's constants that a change of setting may retune on a live
        tree (:meth:`retune`): the kernel's parameters from the policy's own
        table, and the rollouts' length."""
        c = self._at(size)
        tree.set_params(self.policy.kernel, self.policy.params(c))
        tree.configure(max_rollout_moves=c.search.max_rollout_moves)

    def retune(self, cfg, key):
        """Take ``cfg``, where setting ``key`` changed, without a new tree:
        True when the live search follows it (the budget and resignation
        keys are read at each search; the tree's constants are set again on
        the tree, whose nodes are kept: a new weight applies to the children
        expanded from now on, as the net's fade does); False when the search
        must be rebuilt (the tree's kind, its rollouts, threads, seed or
        batch, and every other table)."""
        table = key.split(".", 1)[0]
        if table not in ("search", self.policy.table) or key in RETUNE_REBUILDS:
            return False
        if (cfg.search.tree, cfg.search.rollout) != (self.cfg.search.tree, self.cfg.search.rollout):
            return False
        self.cfg = cfg
        if self.root_board is not None:
            self._at(self.root_board.size)
        if self.tree is not None and self.root_board is not None:
            self._set_params(self.tree, self.root_board.size)
            self._per_move(self.root_board)
        return True

    def set_position(self, board, komi, komi_drift=0.0):
        """Search from board next; keeps the subtree if board follows the
        previous root by one or two moves.  A new komi starts a new tree,
        unless it moved by at most ``komi_drift`` (the dynamic komi of
        handicap games, a little each move: the tree is kept and its
        rollouts count with the new komi, as Pachi does).  With
        ``memory.keep = search`` a new position also empties the memory."""
        board = board.copy()
        if self.memory is not None and self.cfg.memory.keep == "search" and self.root_board is not None \
                and (board.size != self.root_board.size or board.move_count != self.root_board.move_count
                     or board.position_hash != self.root_board.position_hash or komi != self.komi):
            self.memory.clear()
            self.ask.forget_nodes()
        if self.tree is not None and komi != self.komi and abs(komi - self.komi) <= komi_drift:
            self.komi = komi
            self.tree.configure(komi=komi)
        if self.tree is None or self.root_board is None or board.size != self.root_board.size \
                or komi != self.komi:
            self.komi = komi
            self.tree = self._new_tree(board.size)
            self.tree.set_root(board)
            self.root_board = board
            self.ask.forget_nodes()
            self._per_move(board)
            self._root_set()
            self._view()
            return False
        old = self.root_board
        k = board.move_count - old.move_count
        reused = False
        if self.cfg.search.reuse_tree and k in (1, 2) and len(board.last_moves) >= k:
            seq = list(reversed(board.last_moves[:k]))
            trial = old.copy()
            try:
                for m in seq:
                    trial.play(m)
                ok = trial.hash == board.hash and trial.position_hash == board.position_hash
            except ValueError:
                ok = False
            if ok:
                mid = old.copy()
                reused = True
                for m in seq:
                    mid.play(m)
                    reused = self.tree.advance(m, mid) and reused
                if not reused:
                    self.tree.set_root(board)
        if not reused:
            self.tree.set_root(board)
            self.ask.forget_nodes()
        self.root_board = board
        self.policy.new_root(self._view())
        self._per_move(board)
        self._root_set()
        return reused

    def _view(self, budget=None):
        """What the tree policy is handed (tree_policies.SearchView), the
        NetAsk bound to the search's parts as they stand now."""
        self.ask.bind(self.cfg, self.tree, self.evaluator, self.memory, self.root_board)
        return tree_policies.SearchView(self.tree, self.ask, self.cfg, self.root_board, self.threads, budget)

    def _per_move(self, board):
        """The value's weight in the simulations' results for the root's
        phase (``search.value_lambda``).  (The rave tree's net prior weight
        fades with the root's move number in its kernel: rave.net_fade.)"""
        lam = self.cfg.search.value_lambda
        self.value_mix = 0.0
        if getattr(self.evaluator, "has_value", False):       # 0 included: a setting may turn it off live
            lam = lam[board_phase(board)] if len(lam) == 3 else lam[0]
            self.tree.configure(value_lambda=lam)
            self.value_mix = self.policy.value_mix(self.cfg, lam)   # as the selection mixes them

    def _root_set(self):
        """After a new root: forbid its positional-superko moves (the tree
        checks simple ko only), and give the reply forest the root's last
        moves."""
        b = self.root_board
        if self.bhrf is not None:
            self.bhrf.set_root(b)
        self.tree.set_root_forbidden([p for p in range(b.size * b.size)
                                      if b.color_at(p) == 0 and b.illegal_reason(p) == "superko"])
        self.tree.set_deep_forbidden([])

    def set_root_avoid(self, moves):
        """Analysis ``avoid``/``allow`` (lz-analyze, kata-analyze): the root
        may not play ``moves`` either, on top of its superko moves, until
        the next :meth:`set_position`; children already there for them are
        dropped.  Used only when a client asks; the search's own choice is
        otherwise untouched."""
        b = self.root_board
        if b is None or self.tree is None:
            return
        sk = [p for p in range(b.size * b.size) if b.color_at(p) == 0 and b.illegal_reason(p) == "superko"]
        self.tree.set_root_forbidden(sk + [m for m in moves if 0 <= m <= b.size * b.size])

    def avoid(self, avoid):
        """Forbid ``avoid`` for this search only: its moves at the root
        (:meth:`set_root_avoid`), its ``deep`` entries below it
        (engine.analysis.Avoid, :meth:`set_deep_avoid`)."""
        deep = getattr(avoid, "deep", None)
        if deep:
            self.set_deep_avoid(deep)
        if avoid:
            self.set_root_avoid(sorted(avoid))

    def set_deep_avoid(self, specs):
        """Analysis avoid/allow below the root (KataGo's untilDepth > 1):
        ``specs`` [(colour, moves, until_depth)], until the next
        :meth:`set_position` (Tree.set_deep_forbidden)."""
        if self.tree is not None:
            self.tree.set_deep_forbidden([(int(c), sorted(m), int(u)) for c, m, u in specs])

    def clear(self):
        self.tree = None
        self.root_board = None
        if self.memory is not None:
            self.memory.clear()
        if self.bhrf is not None:
            self.bhrf.clear()

    def set_pool_size(self, n):
        self.cfg = config_mod.replace(self.cfg, **{"pool.pool_size": n})
        if self.root_board is not None:
            self.tree = self._new_tree(self.root_board.size)
            self.tree.set_root(self.root_board)

    def pool_stats(self):
        if self.tree is None:
            return {"capacity": self.cfg.pool.pool_size, "used": 0, "recycled": 0,
                    "policy": self.cfg.pool.full_policy, "bytes_per_node": None}
        return self.tree.stats()

    def stop(self):
        self._stop.set()

    # ---------------------------------------------------------------- run
    def run(self, playouts=None, seconds=None, stop_event=None, callback=None, callback_interval=0.1,
            extend_to=None, exact=False):
        """Search the position set by set_position; returns a SearchResult.
        ``exact``: no early stop (an analysis asked for so many visits gets them).

        Budget: `playouts` simulations and/or `seconds` (config defaults
        when both are None). Stops early when the best move cannot be
        overtaken, on stop_event / stop(), or when the pool policy 'stop'
        fires.  ``extend_to`` (seconds): when ``seconds`` run out on an
        unclear choice (:meth:`_unclear`) the search goes on until it is
        clear or ``extend_to`` (stopped_by "extended" then "time").
        """
        if self.tree is None:
            raise RuntimeError("set_position() first")
        c = self.cfg.search
        if playouts is None and seconds is None:
            playouts = c.playouts
            seconds = c.seconds or None
        if playouts is not None and playouts <= 0:
            raise ValueError("playouts must be positive")
        if seconds is not None and seconds <= 0:
            raise ValueError("seconds must be positive")
        self._stop.clear()
        self.ask.start()
        t0 = time.perf_counter()
        done = 0
        tree = self.tree
        view = self._view(playouts)
        self.policy.start(view)
        # early stop looks at this search's own visits (not those kept from
        # the previous move's tree) and at the rate of the loop itself
        start_visits = {ch[0]: ch[1] for ch in tree.children()}
        t_loop = time.perf_counter()
        step = self.policy.stepper(view)
        threaded = hasattr(step, "close")       # threads run between the steps
        try:
            done, stopped_by = self._loop(step, playouts, seconds, extend_to, stop_event, callback,
                                          callback_interval, t0, t_loop, start_visits, threaded, exact)
        finally:
            if threaded:
                done += step.close()
        if self.memory is not None and self.cfg.memory.nodes > 0:
            self.ask.memory_sync()
        res = self._result(done, time.perf_counter() - t0, stopped_by)
        self.last_result = res
        return res

    def _loop(self, step, playouts, seconds, extend_to, stop_event, callback, callback_interval, t0, t_loop,
              start_visits, threaded, exact=False):
        """The search loop: steps until the budget, the clock, an interrupt,
        a full pool or early stop ends it; returns (simulations, stopped_by)."""
        c = self.cfg.search
        tree = self.tree
        done, chunk, extended, stopped_by = 0, 16, False, "budget"
        last_cb = t0
        while True:
            left = (playouts - done) if playouts is not None else 1 << 30
            if left <= 0:
                break
            n_done = step(min(chunk * (self.threads if threaded else 1), left))
            if n_done < 0:          # net work answered, no simulation ran
                continue
            done += n_done
            if tree.stopped or (n_done == 0 and not threaded):
                stopped_by = "pool"
                break
            now = time.perf_counter()
            el = now - t0
            if chunk < 256 and (seconds is None or el < 0.02):
                # under a playout budget the chunks do not depend on the clock,
                # so the net answers at the same simulations and a seed replays
                chunk *= 2
            if callback is not None and now - last_cb >= callback_interval:
                last_cb = now
                callback(self)
            if self._stop.is_set() or (stop_event is not None and stop_event.is_set()):
                stopped_by = "interrupt"
                break
            if seconds is not None and el >= seconds:
                if extend_to is not None and el < extend_to and self._unclear():
                    extended = True
                    continue
                stopped_by = "extended" if extended else "time"
                break
            if c.early_stop and not exact and done > 64 and (seconds is None or now - t_loop >= 0.05):
                remaining = left if playouts is not None else 1 << 30
                if seconds is not None:
                    rate = done / max(now - t_loop, 1e-6)
                    remaining = min(remaining, rate * (seconds - el))
                first, second = self._top_two(start_visits)
                if first - second > remaining:
                    stopped_by = "early"
                    break
        return done, stopped_by

    def _unclear(self):
        """The choice is not settled (Pachi's time extension): the two most
        visited children are within a factor 1.5, or the most visited is
        not the best valued among the children with a tenth of its visits."""
        ch = [(c[1], c[2] / c[1]) for c in self.tree.children() if c[1] > 0]
        if len(ch) < 2:
            return False
        ch.sort(reverse=True)
        (n1, q1), (n2, _) = ch[0], ch[1]
        if n2 * 1.5 > n1:
            return True
        return max(q for n, q in ch if n >= 0.1 * n1) > q1 + 0.02

    def _top_two(self, start=None):
        """The two largest real visit counts at the root (gained since
        ``start``, {move: visits}, when given)."""
        start = start or {}
        ns = sorted((ch[1] - start.get(ch[0], 0.0) for ch in self.tree.children()), reverse=True)
        ns += [0.0, 0.0]
        return ns[0], ns[1]

    # ---------------------------------------------------------------- results
    def analysis(self, max_children=None):
        """Root children sorted by real visits (then by their prior value):
        move, visits and winrate (real simulations only, for the side to
        move at the root; with rave.value_backup, (1 - lambda) that +
        lambda the mean value of the child's evaluated subtree, as the
        selection reads it), prior (the net's P, else the prior knowledge's
        value), lcb, pv."""
        if self.tree is None:
            return []
        ch = self.tree.children()
        pri = self.tree.child_priors()
        scores = self.tree.root_scores()
        leads = self.tree.root_leads()
        out = []
        for move, N, W, P, NM, VM, node in ch:
            n0, w0 = pri[move][0], pri[move][1]
            pv0 = w0 / n0 if n0 > 0 else 0.5
            wr = W / N if N > 0 else pv0
            if self.value_mix > 0:
                st = self.tree.node(node)
                if st["VN"] > 0:
                    wr = (1.0 - self.value_mix) * wr + self.value_mix * st["VW"] / st["VN"]
            line = [self.tree.node(x) for x in self.tree.pv_nodes(node, 15)]
            out.append({"move": move, "visits": N, "winrate": wr, "prior": P if P > 0 else 0.0,
                        "pv": [move] + [d["move"] for d in line],
                        "pv_visits": [N] + [d["N"] for d in line],
                        "N": N, "prior_value": pv0})
            if move in scores:       # this search's own final scores through the move (black's view)
                out[-1]["score_n"], out[-1]["score_mean"], out[-1]["score_sd"] = scores[move]
            if move in leads:        # the score head's leads backed up through the move (black's view)
                out[-1]["lead_n"], out[-1]["lead_mean"], out[-1]["lead_sd"] = leads[move]
        if self.cfg.pool.full_policy == "ensemble":
            # ensemble MCTS decides on the visits summed over every tree it
            # built (Fern & Lewis; Powley et al.)
            by = {d["move"]: d for d in out}
            for move, (ev, ew) in enumerate(self.tree.ensemble_visits()):
                if ev <= 0:
                    continue
                d = by.get(move)
                if d is None:
                    d = by[move] = {"move": move, "visits": 0.0, "winrate": 0.5, "prior": 0.0,
                                    "pv": [move], "N": 0.0}
                    out.append(d)
                tot = d["visits"] + ev
                d["winrate"] = (d["winrate"] * d["visits"] + ew) / tot
                d["visits"] = tot
        for d in out:
            wr, visits = d["winrate"], d["visits"]
            sd = math.sqrt(max(wr * (1 - wr), 1e-9) / max(visits, 1.0))
            d["lcb"] = max(0.0, wr - 1.96 * sd)
            d["visits"] = int(round(visits))
        out.sort(key=lambda d: (-d["visits"], -d.get("prior_value", 0.5), -d["winrate"]))
        return out[:max_children] if max_children else out

    def root_score(self):
        """(n, mean, sd) of the final scores (black's view) of this root's
        simulations, or None before any."""
        return self.tree.root_scores().get(-1) if self.tree is not None else None

    def _result(self, done, seconds, stopped_by):
        an = self.analysis()
        res = self._decide(an, done, seconds, stopped_by)
        res.rows = an
        res.child_visits = {int(c[0]): float(c[1]) for c in self.tree.children()}
        res.pool = self.pool_stats()
        return res

    def _prior_floor(self, an, pas):
        """The root's candidates the final choice may take (search.min_prior):
        those with visits whose net prior is at least that share of the
        largest, and pass (move ``pas``); all of them when the share is 0,
        when no child has a prior, or when none with visits passes."""
        share = self.cfg.search.min_prior
        if share <= 0:
            return an
        top = max(d["prior"] for d in an)
        if top <= 0:
            return an
        kept = [d for d in an if d["visits"] > 0 and (d["move"] == pas or d["prior"] >= share * top)]
        return kept or an

    def _decide(self, an, done, seconds, stopped_by):
        nn = self.root_board.size ** 2
        if not an:
            return SearchResult(nn, 0.5, 0, done, seconds, [], stopped_by)
        # the policy's choice, pass included: whether a pass stands is the
        # Player's one decision (engine.endgame.Endgame.decide)
        rows = self._prior_floor(an, nn)
        best = self.policy.choose(self.cfg, rows, rows[0])
        move = best["move"]
        wr = best["winrate"]
        visits = sum(d["visits"] for d in an)
        c = self.cfg.search
        # resignation at any budget: the real visits must reach
        # resign_min_visits, or half of this move's simulations when fewer
        need = min(c.resign_min_visits, max(1, done // 2))
        if c.resign_threshold > 0 and visits >= need and best["visits"] > 0 \
                and best["winrate"] < c.resign_threshold:
            return SearchResult(RESIGN, best["winrate"], visits, done, seconds, best["pv"], stopped_by)
        return SearchResult(move, wr, visits, done, seconds, best["pv"], stopped_by)

