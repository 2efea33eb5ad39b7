"""GTP commands of the game: board and komi, handicap, moves, undo, seeds,
clocks, scoring, rules, SGF, GoGui setup and gomill's extensions.  Each
``cmd_NAME`` turns its arguments into a call on the Player
(engine/player.py) and its result into the reply text."""
from __future__ import annotations

import logging
import os

from board_ext.board import BLACK, WHITE
from engine import coords
from engine.game import color_name, MAX_SIZE, MIN_SIZE
from engine.gtp import VERSION
from engine.gtp.parse import GtpFail, gfx_pv, gfx_visits, parse_color, parse_float, parse_int
from engine.scoring import fmt_score
from engine.timecontrol import KATA_SYSTEMS

log = logging.getLogger("gomcts.gtp")

HELP = {
    "boardsize": "boardsize N (2..19): new empty board, komi kept",
    "clear_board": "empty the board, komi kept",
    "komi": "komi K",
    "get_komi": "the komi in force (KataGo)",
    "rectangular_boardsize": "rectangular_boardsize X Y: boardsize for X = Y (KataGo; square boards only)",
    "get_handicap": "the number of handicap stones (GNU Go)",
    "captures": "captures COLOR: stones COLOR has captured (GNU Go)",
    "fixed_handicap": "fixed_handicap N: GTP standard points",
    "place_free_handicap": "place_free_handicap N: engine chooses",
    "set_free_handicap": "set_free_handicap V V ...",
    "play": "play COLOR VERTEX|pass",
    "genmove": "genmove COLOR: search, play and reply the move (or resign)",
    "reg_genmove": "reg_genmove COLOR: like genmove, not played",
    "undo": "take back the last move",
    "time_settings": "time_settings MAIN BYO STONES (0 1 0 = no limit)",
    "time_left": "time_left COLOR SECONDS STONES",
    "kata-time_settings": "kata-time_settings as kgs-time_settings, or fischer M INC, "
                          "or fischer-capped M INC MAIN_LIMIT MOVE_LIMIT (KataGo)",
    "kata-list_time_settings": "the systems kata-time_settings takes (KataGo)",
    "final_score": "score with dead stones estimated from playouts",
    "final_status_list": "final_status_list dead|alive|seki",
    "estimate_score": "the playout estimate of the score, with White's bounds (GNU Go)",
    "top_moves": "the last genmove's candidates: vertex and win rate in percent, best first (GNU Go)",
    "top_moves_black": "top_moves_black: search for Black (nothing played), then top_moves (GNU Go)",
    "top_moves_white": "top_moves_white: search for White (nothing played), then top_moves (GNU Go)",
    "clear_cache": "forget the search tree and the net's cached evaluations (KataGo)",
    "loadsgf": "loadsgf FILE [MOVE_NUMBER]",
    "printsgf": "printsgf [FILE]: the game as SGF",
    "showboard": "ASCII board",
    "kgs-genmove_cleanup": "genmove that captures dead stones before passing",
    "kgs-time_settings": "kgs-time_settings none|absolute M|byoyomi M T P|canadian M T S",
    "gomill-describe_engine": "name, version, every setting and the seed",
    "gomill-explain_last_move": "win rate, visits, PV of the last generated move",
    "gomill-cpu_time": "CPU seconds used (all threads)",
    "cputime": "CPU seconds used (all threads)",
    "gg-undo": "gg-undo [N]: take back N moves",
    "gogui-play_sequence": "gogui-play_sequence COLOR VERTEX ...",
    "gogui-setup": "gogui-setup COLOR VERTEX ... (setup stones)",
    "gogui-setup_player": "gogui-setup_player COLOR",
    "gogui-interrupt": "the '# interrupt' line stops a running search",
    "set_random_seed": "set_random_seed N: seed of the search and the estimates (0: a fresh one)",
    "get_random_seed": "the random seed in use",
    "is_legal": "is_legal COLOR VERTEX: 1 if play would accept it, else 0",
    "all_legal": "all_legal COLOR: the vertices play would accept (pass not listed)",
    "kgs-rules": "kgs-rules chinese|aga|new_zealand|japanese",
    "kata-set-rules": "kata-set-rules NAME: chinese, chinese-kgs, chinese-ogs, aga, bga, new-zealand, japanese, korean",
    "kata-get-rules": "the rules in force, as KataGo's JSON",
    "kgs-game_over": "the game is over (KGS): stop pondering",
}


class GameCommands:
    """Mixin of :class:`engine.gtp.server.GtpServer`: the game's commands."""

    # -- setup
    def cmd_boardsize(self, args):
        self._nargs(args, 1, usage="boardsize N")
        n = parse_int(args[0], "board size")
        if not MIN_SIZE <= n <= MAX_SIZE:
            raise GtpFail("unacceptable size")
        self.player.set_board_size(n)
        return ""

    def cmd_clear_board(self, args):
        self.player.new_game()
        return ""

    def cmd_komi(self, args):
        self._nargs(args, 1, usage="komi FLOAT")
        self.player.set_komi(parse_float(args[0], "komi", -1000, 1000))
        return ""

    def cmd_get_komi(self, args):
        self._nargs(args, 0, usage="get_komi")
        return f"{self.game.komi:g}"

    def cmd_rectangular_boardsize(self, args):
        self._nargs(args, 2, usage="rectangular_boardsize X Y")
        x, y = parse_int(args[0], "board width"), parse_int(args[1], "board height")
        if x != y or not MIN_SIZE <= x <= MAX_SIZE:
            raise GtpFail("unacceptable size" + (" (square boards only)" if x != y else ""))
        self.player.set_board_size(x)
        return ""

    def cmd_get_handicap(self, args):
        self._nargs(args, 0, usage="get_handicap")
        return str(self.game.handicap)

    def cmd_captures(self, args):
        self._nargs(args, 1, usage="captures COLOR")
        return str(self.game.board.captures(parse_color(args[0])))

    def cmd_fixed_handicap(self, args):
        self._nargs(args, 1, usage="fixed_handicap N")
        n = parse_int(args[0], "number of stones")
        return " ".join(self.vtx(p) for p in self.player.fixed_handicap(n))

    def cmd_place_free_handicap(self, args):
        self._nargs(args, 1, usage="place_free_handicap N")
        n = parse_int(args[0], "number of stones")
        return " ".join(self.vtx(p) for p in self.player.place_free_handicap(n))

    def cmd_set_free_handicap(self, args):
        if len(args) < 2:
            raise GtpFail("invalid number of stones: at least 2 handicap stones")
        self.player.set_free_handicap([self.vertex(a) for a in args])
        return ""

    # -- moves
    def cmd_play(self, args):
        self._nargs(args, 2, usage="play COLOR VERTEX")
        color = parse_color(args[0])
        self.player.play(color, self.vertex(args[1]))
        return ""

    def cmd_genmove(self, args):
        self._nargs(args, 1, usage="genmove COLOR")
        color = parse_color(args[0])
        return self.vtx(self.player.genmove(color, play=True, **self._live_gfx(color)))

    # -- GoGui live graphics while genmove searches (gtp.live_gfx)
    def _live_gfx(self, color):
        """genmove's keyword arguments for GoGui's live graphics: a
        ``gogui-gfx:`` block on stderr every ``gtp.live_gfx_interval``
        seconds while the search runs (visit counts or the PV); {} when off."""
        what = self.cfg.gtp.live_gfx
        if what == "none":
            return {}

        def on_info(rows):
            try:
                body = (gfx_visits(rows, self.vtx, self.game.pass_move) if what == "visits"
                        else gfx_pv(rows, color, self.vtx))
            except Exception:
                log.exception("live graphics failed")
                return
            if body:
                self._stderr("gogui-gfx:\n" + body + "\n\n")
        return {"on_info": on_info, "info_interval": self.cfg.gtp.live_gfx_interval}

    def cmd_reg_genmove(self, args):
        self._nargs(args, 1, usage="reg_genmove COLOR")
        return self.vtx(self.player.genmove(parse_color(args[0]), play=False))

    def cmd_kgs_genmove_cleanup(self, args):
        self._nargs(args, 1, usage="kgs-genmove_cleanup COLOR")
        return self.vtx(self.player.genmove(parse_color(args[0]), play=True, cleanup=True))

    def cmd_undo(self, args):
        self._nargs(args, 0, usage="undo")
        self.player.undo(1, message="cannot undo")
        return ""

    def cmd_gg_undo(self, args):
        self._nargs(args, 0, 1, usage="gg-undo [N]")
        n = parse_int(args[0], "number of moves", 0) if args else 1
        self.player.undo(n)
        return ""

    def cmd_gogui_play_sequence(self, args):
        if len(args) % 2:
            raise GtpFail("syntax error: gogui-play_sequence COLOR VERTEX [COLOR VERTEX ...]")
        self.player.play_sequence([(parse_color(args[i]), self.vertex(args[i + 1]))
                                   for i in range(0, len(args), 2)])
        return ""

    def cmd_gogui_setup(self, args):
        if len(args) % 2:
            raise GtpFail("syntax error: gogui-setup COLOR VERTEX [COLOR VERTEX ...]")
        black, white = [], []
        for i in range(0, len(args), 2):
            c, m = parse_color(args[i]), self.vertex(args[i + 1])
            if m == self.game.pass_move:
                raise GtpFail("pass is not a setup stone")
            (black if c == BLACK else white).append(m)
        self.player.setup(black, white)
        return ""

    def cmd_gogui_setup_player(self, args):
        self._nargs(args, 1, usage="gogui-setup_player COLOR")
        self.player.set_to_move(parse_color(args[0]))
        return ""

    def cmd_gogui_interrupt(self, args):
        return ""

    def cmd_is_legal(self, args):
        self._nargs(args, 2, usage="is_legal COLOR VERTEX")
        color = parse_color(args[0])
        return "1" if self.player.is_legal(color, self.vertex(args[1])) else "0"

    def cmd_all_legal(self, args):
        self._nargs(args, 1, usage="all_legal COLOR")
        return " ".join(self.vtx(p) for p in self.player.legal_moves(parse_color(args[0])))

    # -- seeds (GNU Go; its twogtp.py writes get_random_seed into the SGF)
    def cmd_set_random_seed(self, args):
        self._nargs(args, 1, usage="set_random_seed N")
        self.player.set_seed(parse_int(args[0], "seed", 0, 2**63 - 1))
        return ""

    def cmd_get_random_seed(self, args):
        self._nargs(args, 0, usage="get_random_seed")
        return str(self.player.seed)

    # -- time
    def cmd_time_settings(self, args):
        self._nargs(args, 3, usage="time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES")
        m = parse_float(args[0], "main time")
        b = parse_float(args[1], "byo-yomi time")
        s = parse_int(args[2], "byo-yomi stones")
        self.player.tc.set_gtp(m, b, s)
        return ""

    def cmd_kgs_time_settings(self, args):
        if not args:
            raise GtpFail("syntax error: kgs-time_settings none|absolute|byoyomi|canadian ...")
        vals = [parse_float(a) for a in args[1:]]
        self.player.tc.set_kgs(args[0], *vals)
        return ""

    def cmd_kata_time_settings(self, args):
        if not args:
            raise GtpFail("syntax error: kata-time_settings " + "|".join(KATA_SYSTEMS) + " ...")
        vals = [parse_float(a, "time value", hi=1e9) for a in args[1:]]
        self.player.tc.set_kgs(args[0], *vals, kata=True)
        return ""

    def cmd_kata_list_time_settings(self, args):
        self._nargs(args, 0, usage="kata-list_time_settings")
        return " ".join(KATA_SYSTEMS)

    def cmd_time_left(self, args):
        self._nargs(args, 3, usage="time_left COLOR TIME STONES")
        c = parse_color(args[0])
        t = parse_float(args[1], "time")
        s = parse_int(args[2], "stones")
        self.player.tc.time_left(c, t, s)
        return ""

    # -- scoring
    def cmd_final_score(self, args):
        return fmt_score(self.player.final_score())

    def cmd_estimate_score(self, args):
        """GNU Go's form: the winner's margin, then bounds as White's score
        (positive: White ahead): the estimate with every unsettled point
        (ownership under 0.6 either way) given to White or to Black.  The
        estimate and the ownership are the net's heads' when it has them,
        else the dead-stone estimate's playouts'."""
        self._nargs(args, 0, usage="estimate_score")
        net = self.player.nets.estimate(self.player.position())
        if net is not None:         # the score and ownership heads, where the net has them
            lead, own = net
            white = -round(2 * lead) / 2
            unsettled = sum(1 for v in own if abs(v) < 0.6)
            head = fmt_score(-white) if white else "0"
            return f"{head} (upper bound: {white + unsettled:.1f}, lower: {white - unsettled:.1f})"
        est = self.player.estimate()
        white = -self.player.final_score()
        unsettled = sum(1 for v in est.own if abs(v) < 0.6)
        head = fmt_score(-white) if white else "0"
        return f"{head} (upper bound: {white + unsettled:.1f}, lower: {white - unsettled:.1f})"

    def cmd_top_moves(self, args):
        self._nargs(args, 0, usage="top_moves")
        return " ".join(f"{self.vtx(r['move'])} {100 * float(r.get('winrate', 0.5)):.2f}"
                        for r in self.player.analyst.top_moves()[:10])

    def _top_moves_for(self, args, color, name):
        self._nargs(args, 0, usage=name)
        self.player.genmove(color, play=False)
        return self.cmd_top_moves([])

    def cmd_top_moves_black(self, args):
        return self._top_moves_for(args, BLACK, "top_moves_black")

    def cmd_top_moves_white(self, args):
        return self._top_moves_for(args, WHITE, "top_moves_white")

    def cmd_clear_cache(self, args):
        self._nargs(args, 0, usage="clear_cache")
        self.player.clear_cache()
        return ""

    def cmd_final_status_list(self, args):
        self._nargs(args, 1, usage="final_status_list dead|alive|seki")
        what = args[0].lower()
        if what not in ("dead", "alive", "seki"):
            raise GtpFail(f"syntax error: unknown status '{args[0]}' (dead, alive, seki)")
        return " ".join(self.vtx(p) for p in self.player.final_status(what))

    # -- rules (KGS, KataGo)
    def cmd_kgs_rules(self, args):
        self._nargs(args, 1, usage="kgs-rules chinese|aga|new_zealand|japanese")
        name = args[0].lower()
        if name not in ("chinese", "aga", "new_zealand", "japanese"):
            raise GtpFail(f"unknown rules '{args[0]}' (chinese, aga, new_zealand, japanese)")
        self.player.set_rules(name)
        return ""

    def cmd_kata_set_rules(self, args):
        if len(args) != 1:
            raise GtpFail("syntax error: kata-set-rules NAME (JSON rules are not supported)")
        name = _KATA_RULES.get(args[0].lower())
        if name is None:
            raise GtpFail(f"unknown or unsupported rules '{args[0]}' ({', '.join(_KATA_RULES)})")
        self.player.set_rules(name)
        return ""

    def cmd_kata_get_rules(self, args):
        self._nargs(args, 0, usage="kata-get-rules")
        r = self.cfg.player.rules
        jp = r == "japanese"
        # whiteHandicapBonus as KataGo writes it; the count applies it
        # (engine.game.handicap_bonus)
        bonus = {"chinese": "N", "aga": "N-1"}.get(r, "0")
        return ('{"hasButton":false,"ko":"POSITIONAL","scoring":"%s","suicide":false,"tax":"%s",'
                '"whiteHandicapBonus":"%s"}' % ("TERRITORY" if jp else "AREA", "SEKI" if jp else "NONE", bonus))

    def cmd_kgs_game_over(self, args):
        self.player.color = None          # nothing to ponder on
        return ""

    # -- SGF
    def cmd_loadsgf(self, args):
        self._nargs(args, 1, 2, usage="loadsgf FILE [MOVE_NUMBER]")
        n = parse_int(args[1], "move number", 1) if len(args) > 1 else None
        self.player.load_sgf(args[0], n)
        return ""

    def cmd_printsgf(self, args):
        self._nargs(args, 0, 1, usage="printsgf [FILE]")
        text = self.player.sgf()
        if args:
            d = os.path.dirname(os.path.abspath(args[0]))
            if not os.path.isdir(d):
                raise GtpFail(f"cannot write '{args[0]}': no folder {d}")
            try:
                from atomicio import atomic_write
                atomic_write(args[0], text)
            except OSError as e:
                raise GtpFail(f"cannot write '{args[0]}': {e.strerror or e}") from None
            return ""
        return text.strip()

    def cmd_showboard(self, args):
        b = self.game.board
        n = self.size
        letters = " ".join(coords.GTP_LETTERS[:n])
        rows = ["", f"    {letters}"]
        last = b.last_move
        for y in range(n - 1, -1, -1):
            cells = []
            for x in range(n):
                p = y * n + x
                c = b.color_at(p)
                cells.append(".XO"[c])
            rows.append(f"{y + 1:3d} {' '.join(cells)} {y + 1}")
        rows.append(f"    {letters}")
        rows.append(f"{color_name(b.to_move)} to move, komi {self.game.komi:g}, move {self.game.move_number}"
                    f"{', last ' + self.vtx(last) if last is not None else ''}; "
                    f"captured by black {b.captures(BLACK)}, by white {b.captures(WHITE)}")
        return "\n".join(rows)

    # -- gomill
    def cmd_gomill_describe_engine(self, args):
        p = self.player
        lines = [f"{self.cfg.gtp.name} {VERSION}", f"seed {p.seed}",
                 f"time: {p.tc.describe()}", f"ponder: {'on' if p.ponder else 'off'}"]
        for key, value, _doc in p.options():
            lines.append(f"{key} = {value}")
        return "\n".join(lines)

    def cmd_gomill_explain_last_move(self, args):
        return self.player.explain()

    def cmd_gomill_cpu_time(self, args):
        t = os.times()
        return f"{t.user + t.system + t.children_user + t.children_system:.3f}"

    def cmd_cputime(self, args):
        return self.cmd_gomill_cpu_time(args)


# kata-set-rules names (KataGo's shorthands) -> player.rules
_KATA_RULES = {"chinese": "chinese", "chinese-kgs": "chinese", "chinese-ogs": "chinese", "aga": "aga",
               "bga": "aga", "new-zealand": "new_zealand", "new_zealand": "new_zealand",
               "japanese": "japanese", "korean": "japanese"}
