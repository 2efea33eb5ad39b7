"""The player's settings: every config key readable and settable while
it serves (GTP ``go-param``, ``kata-set-param``, ``lz-setoption``), with
what depends on a key rebuilt, and the memory report.  A mixin of
:class:`engine.player.Player`, which owns ``cfg``, ``tc``, ``ponder``,
``seed``, ``size``, ``slot`` (engine.factory.SearchSlot: what a change rebuilds
of the search) and ``nets`` (engine.factory.Nets)."""
import logging
import os

from engine import config as configmod
from engine import tree_policies
from engine.factory import project_file
from engine.player_errors import OptionError

log = logging.getLogger("gomcts.player")


class PlayerOptions:
    def options(self):
        """(key, value, doc) of every config key (table.key)."""
        return configmod.describe(self.cfg)

    def option(self, key):
        for k, v, _doc in configmod.describe(self.cfg):
            if k == key:
                return v
        new = configmod.renamed(key)
        if new is not None:
            raise OptionError(f"config key '{key}' is now '{new}'")
        raise OptionError(f"unknown config key '{key}'")

    # settings read once, at start-up or at a new game: go-param cannot change them mid-game
    FIXED_KEYS = {"gtp.boardsize": "it is the first game's board size; send boardsize N",
                  "gtp.komi": "it is the first game's komi; send komi X",
                  "gtp.log_file": "the log is opened at start-up; restart with --set gtp.log_file=PATH"}

    def set_option(self, key, value):
        """Set config key ``table.key`` (a typed value or its text), checked
        against the key's type and range.  The live search follows the
        budget, resignation and tree-constant keys and keeps its tree
        (engine.search.Search.retune); for the other keys it reads (every
        table but ``time`` and GTP's own) it is rebuilt at its next use, the
        net for net.* keys.  A key that cannot
        change mid-game (FIXED_KEYS) is an OptionError that says why.
        ``size.<n>.table.key`` sets one size's value (a per-size table):
        live when the board is of that size, else from its next boardsize;
        a key for every size replaces its per-size values."""
        setting = key
        if key.startswith(configmod.SIZE + "."):
            parts = key.split(".")
            if len(parts) != 4:
                raise OptionError(f"a per-size key looks like {configmod.SIZE}.<n>.table.key, not '{key}'")
            setting = ".".join(parts[2:])
        self.option(setting)
        if setting in self.FIXED_KEYS:
            raise OptionError(f"{key} cannot change mid-game: {self.FIXED_KEYS[setting]}")
        try:
            new = configmod.replace(self.cfg, **{key: value})
        except configmod.ConfigError as e:
            raise OptionError(str(e)) from None
        if setting != key and getattr(getattr(new, setting.split(".")[0]), parts[3]) == \
                getattr(getattr(self.cfg, setting.split(".")[0]), parts[3]):
            self.cfg = new               # another size's table (or the same value): nothing live changes
            return
        key = setting
        old = self.cfg
        why = tree_policies.foreign_key(key, old.search.tree)
        if why is not None and new != old:          # the same value again (a GUI's whole page) is harmless
            raise OptionError(why)
        why = configmod.pool_refused(new, self.size)
        if why is not None:
            raise OptionError(why)
        if key == "gtp.name" and not new.gtp.name.strip():
            raise OptionError("gtp.name must not be empty")
        if key == "net.weights" and new.net.weights and not os.path.isfile(project_file(new.net.weights)):
            raise OptionError(f"net.weights: no such file '{new.net.weights}'")
        if key == "net.device":
            from engine.factory import net_device
            try:
                net_device(new)
            except configmod.ConfigError as e:
                raise OptionError(str(e)) from None
        self.cfg = new
        if key.split(".", 1)[0] == "time":
            self.tc.apply(new.time)
        elif key == "player.ponder":
            self.ponder = new.player.ponder
        elif key.startswith("net.") and old.net != new.net:
            self.nets.forget()
        self.slot.changed(old, new, key, self._search_cfg())
        if key == "search.seed":
            self.seed = new.search.seed or self.seed

    def set_ponder(self, on):
        self.ponder = bool(on)
        self.cfg = configmod.replace(self.cfg, **{"player.ponder": str(self.ponder).lower()})

    def memory_report(self):
        """Lines on the node pool, the process and the nets' caches."""
        lines = []
        if self.slot.built is not None:
            try:
                for k, v in self.slot.built.pool_stats().items():
                    lines.append(f"pool {k} {v}")
            except Exception as e:
                lines.append(f"pool unavailable ({e})")
        else:
            lines.append(f"pool not allocated yet (capacity {self.cfg.pool.pool_size} nodes, "
                         f"policy {self.cfg.pool.full_policy})")
        rss = _rss_bytes()
        if rss:
            lines.append(f"process rss_bytes {rss}")
        lines.extend(self.nets.stats())
        return lines


def _rss_bytes():
    try:
        with open("/proc/self/status") as fh:
            for ln in fh:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1]) * 1024
    except OSError:
        pass
    return 0

