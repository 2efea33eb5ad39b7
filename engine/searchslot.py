"""The Player's search: built on first use, for the config and board size
of now, and what a change of setting or size rebuilds of it.

    slot = SearchSlot(factory=None)        # factory(cfg): a fake search (tests)
    s = slot.get(cfg, size, nets)          # built now if none fits
    slot.changed(old, new, key)            # a setting changed: retuned, resized or dropped
    slot.drop_tree()                       # the same search, its tree forgotten
    slot.new_board(old_size, size)         # a new game: the tree, and a search whose net fits the old size, dropped

A search whose evaluator fits one board size (a net) is dropped with a
game of another size and rebuilt at its next use; one built by
``factory`` or with no net serves every size.  The slot holds no size:
the search it holds always serves the game's board.
"""
from __future__ import annotations

import logging

log = logging.getLogger("gomcts.player")

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
                from engine import factory
                self.built, self._bound = factory.build_search(cfg, size, net_for_size)
        return self.built

    def drop_tree(self):
        """Forget the tree (the search stays built)."""
        if self.built is not None:
            try:
                self.built.clear()
            except Exception:
                log.exception("search.clear failed")

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
            log.exception("analysis failed")
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
                    log.exception("set_pool_size failed; the search is rebuilt")
                    self.built = None
            return
        if getattr(old, table) != getattr(new, table):
            if self.built is None or not self.built.retune(search_cfg, key):
                self.built = None
