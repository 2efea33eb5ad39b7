"""GTP analysis: Leela Zero's and KataGo's ``*-analyze`` streams and
``*-genmove_analyze``, the GoGui views (gfx, dboard, the analyze command
list).  The Player computes the rows (engine/analysis.py); this module only
parses the options and formats the lines."""
from __future__ import annotations

import dataclasses
import logging

from board_ext.board import BLACK, WHITE
from engine.analysis import MAX_UNTIL_DEPTH, Avoid, ownership_stdev
from engine.gtp.parse import (GtpFail, ID_RE, gfx_lines, gfx_pv, gfx_visits, parse_color, parse_int,
                              permyriad)
from engine.player import PlayerError
from engine.scoring import fmt_score

log = logging.getLogger("gomcts.gtp")

INFO_MIN_INTERVAL_CS = 5

# KataGo's kata-analyze flags: pvVisits, pvEdgeVisits (the same here: a node
# is reached by one edge), rootInfo and ownershipStdev (of the playouts'
# final ownership, sqrt(1 - m^2) for a point of mean m) are emitted;
# movesOwnership is not, and says so on stderr
KATA_FLAG_NAMES = ("pvVisits", "rootInfo", "movesOwnership", "ownershipStdev", "pvEdgeVisits")
KATA_UNSUPPORTED = ("movesOwnership",)
KATA_FLAGS = tuple(k.lower() for k in KATA_FLAG_NAMES)
KATA_FLAGS_BY_LOWER = {k.lower(): k for k in KATA_FLAG_NAMES}


HELP = {
    "gogui-analyze_commands": "GoGui analyze commands",
    "go-gfx_visits": "gfx: visit counts of the root's children",
    "go-gfx_priors": "gfx: net move priors",
    "go-gfx_ownership": "gfx: playout ownership",
    "go-gfx_pv": "gfx: principal variation",
    "go-ownership": "dboard: playout ownership (-1 white .. +1 black)",
    "lz-analyze": "lz-analyze [COLOR] [INTERVAL] [minmoves N] [maxmoves N] [avoid|allow C V,.. N] "
                  "[ownership true]: streams info lines",
    "analyze": "analyze [COLOR] [INTERVAL] ...: as lz-analyze",
    "lz-genmove_analyze": "lz-genmove_analyze COLOR [INTERVAL] [options]: info lines, then 'play V'",
    "genmove_analyze": "genmove_analyze COLOR [INTERVAL]: as lz-genmove_analyze",
    "kata-analyze": "kata-analyze [COLOR] [INTERVAL] [ownership true] ...: KataGo's info lines (scores, ownership)",
    "heatmap": "heatmap: the net's move priors in Leela Zero's form (per mille, on stderr)",
    "kata-raw-nn": "kata-raw-nn SYMMETRY (0-7 or all): the net's raw output in KataGo's form (priors, win and loss, lead and ownership)",
    "kata-genmove_analyze": "kata-genmove_analyze COLOR [INTERVAL] ...: kata-analyze lines, then 'play V'",
}


class AnalysisCommands:
    """Mixin of :class:`engine.gtp.server.GtpServer`: analysis streams
    (Leela Zero's and KataGo's formats) and GoGui's views."""

    # ---------------------------------------------------------- analysis lines
    def _info_line(self, rows, opts):
        """One analysis line: an ``info`` group per candidate (Leela Zero's
        integer format, or KataGo's float format with score fields when
        ``opts['kata']``), then `` ownership ...`` when asked (KataGo puts it
        on the same line, after the infos).  Avoided moves are left out."""
        minmoves, maxmoves = opts.get("minmoves", 0), opts.get("maxmoves", 0)
        avoid = opts.get("avoid") or ()
        kata = opts.get("kata", False)
        parts = []
        for r in rows:
            if maxmoves and len(parts) >= maxmoves:
                break
            if r["move"] in avoid:
                continue
            if r.get("visits", 0) <= 0 and len(parts) >= minmoves:
                continue
            pv = " ".join(self.vtx(m) for m in (r.get("pv") or [r["move"]]))
            mv, visits, order = self.vtx(r["move"]), int(r.get("visits", 0)), len(parts)
            wr = min(1.0, max(0.0, float(r.get("winrate", 0.5))))
            lcb = min(1.0, max(0.0, float(r.get("lcb", wr))))
            prior = min(1.0, max(0.0, float(r.get("prior", 0.0))))
            if kata:
                lead, sd = r.get("scoreLead", 0.0), r.get("scoreStdev", 0.0)
                # KataGo's fields in KataGo's order; the playout mean is the
                # lead, the mean and the self-play score at once
                info = (f"info move {mv} visits {visits} utility {2 * wr - 1:.6g} winrate {wr:.6g} "
                        f"scoreMean {lead:.6g} scoreStdev {sd:.6g} scoreLead {lead:.6g} "
                        f"scoreSelfplay {lead:.6g} prior {prior:.6g} lcb {lcb:.6g} "
                        f"utilityLcb {2 * lcb - 1:.6g} order {order} pv {pv}")
                if opts.get("pvVisits") and r.get("pv_visits"):
                    info += " pvVisits " + " ".join(str(int(v)) for v in r["pv_visits"])
                if opts.get("pvEdgeVisits") and r.get("pv_visits"):
                    info += " pvEdgeVisits " + " ".join(str(int(v)) for v in r["pv_visits"])
                parts.append(info)
            else:
                parts.append(f"info move {mv} visits {visits} winrate {permyriad(wr)} "
                             f"prior {permyriad(prior)} lcb {permyriad(lcb)} order {order} pv {pv}")
        if kata and opts.get("rootInfo") and rows:
            # the root as KataGo reports it: all visits, the root's value for
            # the side to move over all of them (Rows.root_winrate), its lead
            best = rows[0]
            rwr = getattr(rows, "root_winrate", None)
            wr = min(1.0, max(0.0, float(rwr if rwr is not None else best.get("winrate", 0.5))))
            lead = getattr(rows, "root_lead", best.get("scoreLead", 0.0))
            parts.append(f"rootInfo visits {sum(int(r.get('visits', 0)) for r in rows)} "
                         f"utility {2 * wr - 1:.6g} winrate {wr:.6g} scoreMean {lead:.6g} "
                         f"scoreLead {lead:.6g} scoreSelfplay {lead:.6g}")
        own = getattr(rows, "ownership", None)
        if opts.get("ownership") and own is not None:
            n = self.size         # KataGo's order: the top row (A19 on 19x19) first, left to right
            rows_top_first = [own[y * n + x] for y in range(n - 1, -1, -1) for x in range(n)]
            parts.append("ownership " + " ".join(f"{round(v, 4) or 0.0:g}" for v in rows_top_first))
            if opts.get("ownershipStdev"):
                parts.append("ownershipStdev " + " ".join(f"{round(ownership_stdev(v), 4) or 0.0:g}"
                                                          for v in rows_top_first))
        return " ".join(parts)

    def _emit_info(self, rows, opts):
        try:
            line = self._info_line(rows, opts or {})
        except Exception:
            log.exception("analysis line failed")
            return
        if line:
            self._write(line + "\n")

    def _emit_analysis(self, analysis, on_info):
        """An info line of the rows ``analysis()`` gives, through ``on_info``
        (the callback of :meth:`_info_callback`)."""
        try:
            rows = analysis()
        except Exception:
            log.exception("analysis line failed")
            return
        on_info(rows)

    def _parse_analyze_args(self, args, need_color, kata=False):
        """[COLOR] [INTERVAL] then key/value pairs: interval CS, minmoves N,
        maxmoves N, ownership true|false, avoid COLOR V[,V...] UNTIL, allow
        COLOR V[,V...] UNTIL (Leela Zero's and KataGo's analyze options).
        Returns (color, interval in seconds, opts); opts['avoid'] is the set
        of root moves to leave out (avoid and allow entries of the colour to
        move, with UNTIL >= 1: the root is the first move)."""
        color = self.game.to_move
        interval = 10
        opts = {"minmoves": 0, "maxmoves": 0, "ownership": False, "kata": kata, "avoid": set()}
        avoid = {BLACK: set(), WHITE: set()}
        allow = {BLACK: None, WHITE: None}
        deep = []                          # (avoid|allow, colour, moves, until-moves > 1)
        i = 0
        if i < len(args) and args[i].lower() in ("b", "w", "black", "white"):
            color = parse_color(args[i])
            i += 1
        elif need_color:
            raise GtpFail("syntax error: a colour is required")
        if i < len(args) and ID_RE.fullmatch(args[i]):
            interval = int(args[i])
            i += 1
        while i < len(args):
            key = args[i].lower()
            if key in ("avoid", "allow"):
                if i + 3 >= len(args):
                    raise GtpFail(f"syntax error: {key} COLOR VERTEX[,VERTEX...] UNTIL_MOVES")
                c = parse_color(args[i + 1])
                moves = self._vertex_list(args[i + 2])
                until = parse_int(args[i + 3], f"{key} until-moves", 1, MAX_UNTIL_DEPTH)
                if key == "avoid":
                    avoid[c].update(moves)
                else:
                    allow[c] = (allow[c] or set()) | set(moves)
                if until > 1:
                    deep.append((key, c, set(moves), until))
                i += 4
                continue
            if i + 1 >= len(args):
                raise GtpFail(f"syntax error: '{key}' needs a value")
            val = args[i + 1]
            if key == "interval":
                interval = parse_int(val, "interval", 0)
            elif key in ("minmoves", "maxmoves"):
                opts[key] = parse_int(val, key, 0)
            elif key in ("ownership",) + KATA_FLAGS:
                if val.lower() not in ("true", "false"):
                    raise GtpFail(f"syntax error: {args[i]} true|false, not '{val}'")
                name = key if key == "ownership" else KATA_FLAGS_BY_LOWER[key]
                opts[name] = val.lower() == "true"
                if opts[name] and name in KATA_UNSUPPORTED:
                    log.warning("%s: %s is not given by this engine; the analysis goes on without it",
                                "kata-analyze", name)
                    self._stderr(f"warning: {name} is not given by this engine; the analysis goes on without it\n")
            else:
                raise GtpFail(f"unsupported analyze option '{args[i]}'")
            i += 2
        nn = self.game.pass_move
        for c in (BLACK, WHITE):
            if allow[c] is not None and any(m != nn for m in avoid[c]):
                raise GtpFail("allow and avoid of board points cannot be combined for one colour")
        root = set(avoid[color])
        if allow[color] is not None:
            root |= {p for p in range(nn) if p not in allow[color]}
        below = [(c, m if key == "avoid" else {p for p in range(nn) if p not in m}, until)
                 for key, c, m, until in deep]
        opts["avoid"] = Avoid(root, below)      # until-moves past the root: below it too
        return color, max(interval, INFO_MIN_INTERVAL_CS) / 100.0, opts

    def _vertex_list(self, text):
        """``D4,Q16`` or ranges ``A1:C3`` (Leela Zero) as flat points."""
        out = []
        for part in text.split(","):
            if not part:
                raise GtpFail(f"syntax error: empty vertex in '{text}'")
            if ":" in part:
                lo, _, hi = part.partition(":")
                a, b = self.vertex(lo), self.vertex(hi)
                nn = self.game.pass_move
                if nn in (a, b):
                    raise GtpFail(f"syntax error: pass in a vertex range '{part}'")
                n = self.size
                for y in range(min(a, b) // n, max(a, b) // n + 1):
                    for x in range(min(a % n, b % n), max(a % n, b % n) + 1):
                        out.append(y * n + x)
            else:
                out.append(self.vertex(part))
        return out

    def _info_callback(self, color, opts):
        """on_info for the Player: an info line per call; KataGo's fields
        ask the Player for rows that carry score lead and ownership
        (Player.analyst.scored_rows), which this layer only formats."""
        def emit(rows):
            self._emit_info(rows, opts)
        if opts["kata"] or opts["ownership"]:
            return self.player.analyst.scored_rows(color, emit, avoid=opts["avoid"])
        return emit

    def _stream_analysis(self, color, interval, opts):
        """lz-analyze/analyze/kata-analyze: '=' then info lines every
        interval until the next input line, then the closing blank line."""
        on_info = self._info_callback(color, opts)
        thinking = self.player.analyst.analyze(color, on_info, interval, avoid=opts["avoid"])
        self._write(f"={self._cid}\n")
        self._streamed = True
        if self._sync:
            self._write("\n")
            return
        thinking.start()
        while not self._wait_for_input(interval):
            if thinking.done.is_set():   # the search ended by itself (pool full): repeat its result
                self._emit_analysis(thinking.search.analysis, on_info)
        thinking.stop()
        self._write("\n")

    # -- the net's raw output (Leela Zero, KataGo)
    def _net_output(self):
        got = self.player.nets.evaluate(self.player.position())
        if got is None:
            raise GtpFail(f"no net for {self.size}x{self.size}")
        return got

    def cmd_heatmap(self, args):
        """Leela Zero's heatmap: rows top first, each point's prior in per
        mille, then the pass prior and the value, on stderr (where Leela
        Zero writes them and Lizzie reads them); the reply is empty."""
        self._nargs(args, 0, 1, usage="heatmap [sym|average]")
        if args and args[0].lower() not in ("sym", "average", "avg", "0"):
            raise GtpFail(f"syntax error: heatmap [sym|average], not '{args[0]}'")
        pr, value = self._net_output()
        n = self.size
        lines = ["".join(f"{int(float(pr[y * n + x]) * 1000):3d} " for x in range(n))
                 for y in range(n - 1, -1, -1)]
        lines.append(f"pass: {int(float(pr[n * n]) * 1000)}")
        lines.append(f"winrate: {value if value is not None else 0.5:f}")
        self._stderr("\n".join(lines) + "\n")
        return ""

    def cmd_kata_raw_nn(self, args):
        """KataGo's kata-raw-nn SYMMETRY: the net's own answer under that
        symmetry (0-7, turned back to the board's orientation) or the mean
        over all eight (``all``): whiteWin/whiteLoss when the net has a
        value head, whiteLead and whiteOwnership (rows top first) when it
        has score and ownership heads, the policy as rows top first (NAN on
        illegal points) and policyPass."""
        self._nargs(args, 1, usage="kata-raw-nn SYMMETRY")
        sym = args[0].lower()
        if sym == "all":
            syms = range(8)
        elif sym in tuple("01234567"):
            syms = (int(sym),)
        else:
            raise GtpFail(f"syntax error: kata-raw-nn SYMMETRY takes 0-7 or all, not '{args[0]}'")
        self._net_output()                  # no net, or a named one that does not load: the usual error
        got = self.player.nets.raw(self.player.position(), syms)
        if got is None:
            raise GtpFail(f"no net for {self.size}x{self.size}")
        n = self.size
        white_sign = 1.0 if self.game.to_move == WHITE else -1.0     # the net speaks for the side to move
        legal = set(self.game.board.legal_moves())
        out = [f"symmetry {sym}"]
        if got["value"] is not None:
            white = got["value"] if white_sign > 0 else 1.0 - got["value"]
            out += [f"whiteWin {white:.6f}", f"whiteLoss {1.0 - white:.6f}", "noResult 0"]
        if got["lead"] is not None:
            own = got["ownership"]
            out.append(f"whiteLead {white_sign * got['lead']:.6f}")
            out.append("whiteOwnership")
            for y in range(n - 1, -1, -1):
                out.append(" ".join(f"{white_sign * float(own[y * n + x]):.6f}" for x in range(n)))
        pr = got["policy"]
        out.append("policy")
        for y in range(n - 1, -1, -1):
            out.append(" ".join(f"{float(pr[y * n + x]):.6f}" if y * n + x in legal else "NAN"
                                for x in range(n)))
        out.append(f"policyPass {float(pr[n * n]):.6f}")
        return "\n".join(out)

    # -- GoGui views
    def cmd_gogui_analyze_commands(self, args):
        lines = [f"param/{t.name.capitalize()} Settings/go-param_page {t.name}"
                 for t in dataclasses.fields(self.cfg)]
        lines += [
            "gfx/Visit Counts/go-gfx_visits",
            "gfx/Net Priors/go-gfx_priors",
            "gfx/Ownership/go-gfx_ownership",
            "gfx/Principal Variation/go-gfx_pv",
            "dboard/Ownership Board/go-ownership",
            "string/Memory Report/go-memory_report",
            "none/Set Pool Size/go-set_pool_size %s",
            "string/Explain Last Move/gomill-explain_last_move",
            "string/Ponder/go-ponder %o",
            "string/Final Score/final_score",
            "plist/Dead Stones/final_status_list dead",
            "plist/Seki Stones/final_status_list seki",
        ]
        return "\n".join(lines)

    def cmd_go_gfx_visits(self, args):
        return gfx_visits(self.player.analyst.rows(), self.vtx, self.game.pass_move)

    def cmd_go_gfx_priors(self, args):
        pr = self.player.nets.priors(self.player.position())
        if pr is None:
            return f"TEXT no net for {self.size}x{self.size} (see stderr)"
        top = max(float(pr[:self.game.pass_move].max()), 1e-9)
        infl, labels = [], []
        for p in range(self.game.pass_move):
            if pr[p] >= 0.005:
                v = self.vtx(p)
                infl.append(f"{v} {float(pr[p]) / top:.2f}")
                labels.append(f"{v} {int(round(100 * float(pr[p])))}")
        out = gfx_lines(infl, labels)
        out.append(f"TEXT pass prior {100 * float(pr[self.game.pass_move]):.1f}%")
        return "\n".join(out)

    def cmd_go_gfx_ownership(self, args):
        est = self.player.estimate()
        infl = " ".join(f"{self.vtx(p)} {v:.2f}" for p, v in enumerate(est.own) if abs(v) >= 0.05)
        out = []
        if infl:
            out.append("INFLUENCE " + infl)
        if est.dead:
            out.append("MARK " + " ".join(self.vtx(p) for p in est.dead))
        out.append(f"TEXT estimate {fmt_score(est.score)} (mean playout score {est.mean_score:+.1f})")
        return "\n".join(out)

    def cmd_go_ownership(self, args):
        est = self.player.estimate()
        n = self.size
        return "\n".join(" ".join(f"{est.own[y * n + x]:.2f}" for x in range(n))
                         for y in range(n - 1, -1, -1))

    def cmd_go_gfx_pv(self, args):
        return gfx_pv(self.player.analyst.rows(), self.game.to_move, self.vtx)

    # -- analysis (Leela Zero and KataGo formats)
    def cmd_lz_analyze(self, args):
        color, interval, opts = self._parse_analyze_args(args, need_color=False)
        self._stream_analysis(color, interval, opts)

    def cmd_analyze(self, args):
        return self.cmd_lz_analyze(args)

    def cmd_kata_analyze(self, args):
        color, interval, opts = self._parse_analyze_args(args, need_color=False, kata=True)
        self._stream_analysis(color, interval, opts)

    def _genmove_analyze(self, args, kata):
        name = "kata-genmove_analyze" if kata else "lz-genmove_analyze"
        if not args:
            raise GtpFail(f"syntax error: {name} COLOR [INTERVAL] [KEY VALUE ...]")
        color, interval, opts = self._parse_analyze_args(args, need_color=True, kata=kata)
        on_info = self._info_callback(color, opts)
        self._write(f"={self._cid}\n")
        self._streamed = True
        try:
            move = self.player.genmove(color, play=True, on_info=on_info,
                                       info_interval=interval, avoid=opts["avoid"])
        except (GtpFail, PlayerError) as e:
            log.error("%s failed: %s", name, e)
            move = None
        if move is not None:
            p = self.player
            if p.last and p.last.get("result") is not None and p.slot.built is not None:
                self._emit_analysis(p.analyst.last_rows, on_info)
            self._write(f"play {self.vtx(move)}\n")
        self._write("\n")

    def cmd_lz_genmove_analyze(self, args):
        self._genmove_analyze(args, kata=False)

    def cmd_genmove_analyze(self, args):
        self._genmove_analyze(args, kata=False)

    def cmd_kata_genmove_analyze(self, args):
        self._genmove_analyze(args, kata=True)
