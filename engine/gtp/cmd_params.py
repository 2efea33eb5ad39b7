"""GTP commands that read and change settings: ``go-param`` and GoGui's
parameter pages, KataGo's ``kata-*-param`` and Leela Zero's
``lz-setoption`` (names mapped in engine/gtp/params.py), pondering, the
node pool."""
from __future__ import annotations

import dataclasses

from engine.gtp import params
from engine.gtp.parse import GtpFail, fmt_value, parse_int

HELP = {
    "go-ponder": "go-ponder [on|off]: think on the opponent's time",
    "go-param": "go-param [KEY [VALUE]]: show or set a config key (table.key)",
    "go-param_page": "go-param_page TABLE [KEY VALUE]: GoGui param page",
    "go-memory_report": "node pool and memory use",
    "go-set_pool_size": "go-set_pool_size N: node pool capacity (memory cap)",
    "kata-set-param": "kata-set-param NAME VALUE: KataGo name (maxVisits, maxTime, ...) or table.key",
    "kata-get-param": "kata-get-param NAME",
    "kata-list-params": "the KataGo parameter names understood, then every table.key",
    "lz-setoption": "lz-setoption name NAME value VALUE: Leela Zero option (Playouts, Visits, ...) or table.key",
}


class ParamCommands:
    """Mixin of :class:`engine.gtp.server.GtpServer`: settings over GTP
    (the engine's table.key names, KataGo's and Leela Zero's names, GoGui
    parameter pages), pondering and the node pool."""

    # -- search control over GTP
    def cmd_go_ponder(self, args):
        self._nargs(args, 0, 1, usage="go-ponder [on|off]")
        if args:
            v = args[0].lower()
            if v not in ("on", "off", "1", "0", "true", "false"):
                raise GtpFail("syntax error: go-ponder on|off")
            self.player.set_ponder(v in ("on", "1", "true"))
            return ""
        return "on" if self.player.ponder else "off"

    def cmd_go_param(self, args):
        if not args:
            return "\n".join(f"{k} {fmt_value(v)}" for k, v, _ in self.player.options())
        if len(args) == 1:
            return fmt_value(self.player.option(args[0]))
        key, value = args[0], " ".join(args[1:])
        if "." not in key:
            raise GtpFail(f"unknown config key '{key}' (use table.key, e.g. search.playouts)")
        self.player.set_option(key, value)
        return ""

    # -- KataGo and Leela Zero parameters (engine/gtp/params.py)
    def cmd_kata_set_param(self, args):
        if len(args) < 2:
            raise GtpFail("syntax error: kata-set-param NAME VALUE")
        try:
            params.set_param(self.player, params.KATA, args[0], " ".join(args[1:]))
        except params.ParamError as e:
            raise GtpFail(str(e)) from None
        return ""

    def cmd_kata_get_param(self, args):
        self._nargs(args, 1, usage="kata-get-param NAME")
        try:
            return params.get_param(self.player, params.KATA, args[0])
        except params.ParamError as e:
            raise GtpFail(str(e)) from None

    def cmd_kata_list_params(self, args):
        self._nargs(args, 0, usage="kata-list-params")
        return "\n".join(list(params.KATA) + [k for k, _v, _d in self.player.options()])

    def cmd_lz_setoption(self, args):
        if not args:
            return "\n".join(params.lz_option_lines(self.player))
        low = [a.lower() for a in args]
        if low[0] != "name" or "value" not in low[1:] or len(args) < 4:
            raise GtpFail("syntax error: lz-setoption name NAME value VALUE")
        iv = len(low) - 1 - low[::-1].index("value")
        name, value = " ".join(args[1:iv]), " ".join(args[iv + 1:])
        if not name or not value:
            raise GtpFail("syntax error: lz-setoption name NAME value VALUE")
        try:
            params.set_param(self.player, params.LZ, name, value)
        except params.ParamError as e:
            raise GtpFail(str(e)) from None
        return ""

    def cmd_go_param_page(self, args):
        if not args:
            raise GtpFail("syntax error: go-param_page TABLE [KEY VALUE]")
        table = args[0]
        if table not in {f.name for f in dataclasses.fields(self.cfg)}:
            raise GtpFail(f"unknown config table '{table}'")
        if len(args) == 1:
            sub = getattr(self.cfg, table)
            lines = []
            for f in dataclasses.fields(sub):
                v = getattr(sub, f.name)
                choices = f.metadata.get("choices")
                if isinstance(v, bool):
                    lines.append(f"[bool] {f.name} {int(v)}")
                elif choices:
                    lines.append(f"[list/{'/'.join(choices)}] {f.name} {v}")
                else:
                    lines.append(f"[string] {f.name} {fmt_value(v)}")
            return "\n".join(lines)
        if len(args) < 3:
            raise GtpFail("syntax error: go-param_page TABLE KEY VALUE")
        self.player.set_option(f"{table}.{args[1]}", " ".join(args[2:]))
        return ""

    def cmd_go_memory_report(self, args):
        return "\n".join(self.player.memory_report())

    def cmd_go_set_pool_size(self, args):
        self._nargs(args, 1, usage="go-set_pool_size N")
        n = parse_int(args[0], "pool size")
        self.player.set_option("pool.pool_size", str(n))
        return ""
