"""The nets a Player plays with, one per board size: ``Nets`` loads each
once (through ``engine.factory`` or a test's factory), keeps it, forgets
them when the net settings change, and answers what the GTP and JSON
commands ask of the net for a position: its priors and value, its score
and ownership heads (when it has them), its caches and their stats.

A net named by the user (``net.weights``) that does not load is an error
(PlayerError); without a named net a size that has none gets None, said
once on stderr, and the search falls back to expert priors.  So does a
board under 13x13 whose size table names a net of another size (the table
of 13 serves 10x10 to 15x15; a net is read at another size only from 13x13
up: engine.factory.NotReadHere).
"""
from __future__ import annotations

import logging
import sys

from board_ext.board import BLACK
from engine import config as configmod
from engine import factory
from engine.player_errors import PlayerError

log = logging.getLogger("gomcts.player")


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
                ev = factory.load_evaluator(configmod.replace(cfg, **{"prior.evaluator": "net"}), size)
        except Exception as e:
            if self._factory is None and configmod.at_size(cfg, size).net.weights and not isinstance(e, factory.NotReadHere):
                # a net named by the user that does not load: an error, never a weaker engine in silence
                raise PlayerError(f"cannot use net.weights for {size}x{size}: {e}") from None
            log.warning("no net for %dx%d: %s", size, size, e)
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
        a pass when it rates no point), or None without a net."""
        ev = self.get(board.size)
        if ev is None:
            return None
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
