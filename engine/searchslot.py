"""The Player's search: built on first use, for the config and board size
of now, and what a change of setting or size rebuilds of it.

    slot = SearchSlot(factory=None)        # factory(cfg): a fake search (tests)
    s = slot.get(cfg, size, nets)          # built now if none fits
    slot.changed(old, new, key)            # a setting changed: retuned, resized or dropped
    slot.drop_tree()                       # the same search, its tree forgotten
    slot.new_board(size)                   # a new game: the tree, and a search of another size, dropped

A search whose evaluator fits one board size (a net) is rebuilt at the
next size; one built by ``factory`` or with no net serves every size.
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
        self._size = None          # the board size the built search's net fits; None: every size

    def get(self, cfg, size, net_for_size):
        """The search for ``size`` (built with ``cfg`` when none fits;
        ``net_for_size(size)``: the net or None)."""
        if self.built is not None and self._size not in (None, size):
            self.built = None
        if self.built is None:
            if self.factory is not None:
                self.built, bound = self.factory(cfg), False
            else:
                from engine import factory
                self.built, bound = factory.build_search(cfg, size, net_for_size)
            self._size = size if bound else None
        return self.built

    def fits(self, size):
        """Whether a search is built and serves ``size``."""
        return self.built is not None and self._size in (None, size)

    def drop_tree(self):
        """Forget the tree (the search stays built)."""
        if self.built is not None:
            try:
                self.built.clear()
            except Exception:
                log.exception("search.clear failed")

    def new_board(self, size):
        """A new game on a ``size`` board: the tree is forgotten, and the
        search too when it does not serve ``size`` (rebuilt at its next use),
        so the search :attr:`built` always serves the game's board."""
        if self.fits(size):
            self.drop_tree()
        else:
            self.forget()

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
