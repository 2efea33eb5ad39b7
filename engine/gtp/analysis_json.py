"""KataGo's JSON analysis protocol, as KaTrain speaks it (``katago analysis``):
``python gtp_main.py analysis [--config FILE] [--set ...]``.

One JSON object a line on stdin, one a line on stdout:

- a query: ``id``, ``moves`` ([["B", "D4"], ...]), ``initialStones``,
  ``initialPlayer``, ``rules`` (a name: chinese, japanese, aga, korean,
  tromp-taylor...; an object counts as chinese), ``komi``, ``boardXSize`` /
  ``boardYSize`` (square boards only), ``analyzeTurns`` (default: the last
  position), ``maxVisits``, ``includeOwnership``, ``includeMovesOwnership``
  (each candidate's ownership after it), ``includePolicy``, ``priority``,
  ``reportDuringSearchEvery`` (partial responses with ``isDuringSearch``
  true at that interval, then the final one), ``avoidMoves`` /
  ``allowMoves`` (the side to move's entries, at the root: the search
  forbids the moves; entries for the other side, which KataGo applies
  deeper, are not applied), ``overrideSettings`` (``maxVisits``,
  ``maxPlayouts``, ``maxTime``, ``reportAnalysisWinratesAs``; any other
  key gets a ``warning`` line naming it, as KataGo's); without maxVisits
  or maxTime a query thinks by the config's clock (``search.seconds``,
  capped by ``search.playouts``); a query that names its visits gets them
  all (no early stop), unless maxTime or a terminate ends it first; any
  other top-level key is answered with KataGo's warning line ("Unexpected
  or unused field", the field named), and rule names scored here by other
  rules (tromp-taylor, stone_scoring, rules objects ...) with a warning
  line saying how they are scored;
- a response per analysed turn: ``id``, ``turnNumber``, ``isDuringSearch``
  false, ``moveInfos`` (move, visits, edgeVisits and weight (both the
  visits: a node has one edge, a visit weighs 1), winrate, scoreLead,
  scoreMean, scoreSelfplay, scoreStdev, prior, lcb, utility, utilityLcb,
  order, pv), ``rootInfo`` (visits, winrate (the candidates' win rates
  weighted by their visits: the root's value over the whole search, as
  KataGo's), scoreLead (its best candidate's), scoreSelfplay,
  scoreStdev, utility, currentPlayer, and with a net rawWinrate,
  rawNoResultProb, rawLead and rawScoreSelfplay: the net's own answer at
  the root), ``ownership`` and ``policy`` when asked;
  win rates, score leads and ownership are Black's by default (KataGo's
  ``reportAnalysisWinratesAs = BLACK``, KaTrain's setting); ownership is
  row by row from the top;
- ``{"id": ..., "action": "query_version"}``: ``version``;
- ``{"id": ..., "action": "terminate", "terminateId": ..., ["turnNumbers": [...]]}``
  and ``{"id": ..., "action": "terminate_all", ["turnNumbers": [...]]}``:
  as KataGo, each queued turn is dropped and answered with ``noResults``,
  the one searching ends at once with what it has, and the action is echoed;
- ``{"id": ..., "action": "clear_cache"}``: echoed.

Queries are read on their own thread and answered by priority (higher
first), then in arrival order, so several can be in flight.  A client that
goes away (killed, crashed, or its end of our output closed:
``engine.gtp.peer``) ends the session within a fraction of a second, the
running search included; the end of input alone, with the output still
read, lets every query read before it be answered.  A malformed
line or query gets ``{"id": ..., "error": "...", "field": ...}`` and the
server keeps serving.  The protocol is parsed here; the engine work is the
Player's (search, score stats, net priors).
"""
from __future__ import annotations

import heapq
import math
import os
import re
import itertools
import json
import logging
import sys
import threading

from board_ext.board import BLACK, WHITE
from engine import coords
from engine.analysis import MAX_UNTIL_DEPTH, Avoid, ownership_stdev
from engine.game import MAX_GAME_LENGTH
from engine.gtp.peer import OutputWatch
from engine.player import Player, PlayerError

log = logging.getLogger("gomcts.analysis_json")

VERSION = "1.13.0"          # the KataGo analysis protocol version we follow

# KataGo's rule names (its parser ignores case, spaces, hyphens and
# underscores: "new zealand", "stone_scoring"), mapped to what the engine scores
RULES = {"chinese": "chinese", "chineseogs": "chinese", "chinesekgs": "chinese", "aga": "aga",
         "bga": "aga", "newzealand": "new_zealand", "nz": "new_zealand", "japanese": "japanese",
         "korean": "japanese", "tromptaylor": "chinese", "tt": "chinese", "stonescoring": "chinese",
         "agabutton": "aga", "ancientarea": "chinese", "ancientterritory": "japanese",
         "goe": "chinese", "ing": "chinese"}
# names scored here by other rules than their own: answered, with a warning line
RULES_APPROXIMATED = {"tromptaylor": "chinese (simple ko, no suicide; tromp-taylor allows suicide and uses superko)",
                      "tt": "chinese (simple ko, no suicide; tromp-taylor allows suicide and uses superko)",
                      "stonescoring": "chinese (area: stones and territory; stone scoring counts stones only)",
                      "ancientarea": "chinese", "ancientterritory": "japanese", "goe": "chinese (no Ing ko rules)",
                      "ing": "chinese (no Ing ko rules)"}
# the top-level query keys read here; any other gets KataGo's warning line
QUERY_KEYS = {"id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize", "boardYSize",
              "analyzeTurns", "maxVisits", "includeOwnership", "includeMovesOwnership", "includePolicy",
              "includeOwnershipStdev", "includeMovesOwnershipStdev", "includePVVisits", "includeNoResultValue",
              "priority", "reportDuringSearchEvery", "avoidMoves", "allowMoves", "overrideSettings"}
MAX_VISITS = 10**9
# overrideSettings keys with a meaning here (the others get a warning line)
OVERRIDES_HONOURED = ("maxVisits", "maxPlayouts", "maxTime", "reportAnalysisWinratesAs")


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
MAX_KOMI = 150.0           # KataGo's bound


def rules_name(rules):
    """The engine's rules for a query's ``rules`` (a KataGo name in any
    spelling, or a rules object, scored as area); None when unknown."""
    if isinstance(rules, dict):
        return "chinese"
    if not isinstance(rules, str):
        return None
    m = re.search(r"score(area|territory)", rules.lower())
    if m and rules.lower().startswith("ko"):     # KataGo's compact form, koSIMPLEscoreAREAtaxNONEsui0...
        return "chinese" if m.group(1) == "area" else "japanese"
    return RULES.get(rule_key(rules))


def rule_key(name):
    """A rule name as KataGo's parser reads it: case, spaces, hyphens and
    underscores ignored ("new zealand", "stone_scoring")."""
    return re.sub(r"[\s_\-]+", "", name.lower())


class QueryError(ValueError):
    def __init__(self, msg, field=None):
        super().__init__(msg)
        self.field = field


def _color(text, field):
    t = str(text).strip().upper()
    if t in ("B", "BLACK"):
        return BLACK
    if t in ("W", "WHITE"):
        return WHITE
    raise QueryError(f"bad player '{text}'", field)


class AnalysisServer:
    """The JSON analysis engine over one Player (``cfg``: the engine's config)."""

    def __init__(self, cfg=None, out=None, player=None):
        # the engine it serves: a Player handed in, or one built from cfg
        self.player = player if player is not None else Player(cfg)
        self.out = out if out is not None else sys.stdout
        self._lock = threading.Lock()          # one writer
        self._cv = threading.Condition()
        self._heap = []                        # (-priority, seq, query dict, turn)
        self._seq = itertools.count()
        self._eof = False

    # ------------------------------------------------------------ output
    _gone = False

    def _send(self, obj):
        with self._lock:
            if self._gone:
                return
            try:
                self.out.write(json.dumps(obj, separators=(",", ":")) + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError):
                self._client_gone()

    def _client_gone(self):
        """The client closed its end of the output (it disconnected): the
        queries it owned end, the one searching at once, and the server
        stops; nothing is left running for nobody."""
        self._gone = True
        with self._cv:                  # (no path takes the writer's lock while holding this one)
            self._eof = True
            self._heap = []
            self._cv.notify_all()
        self.player.interrupt.set()

    def _error(self, msg, qid=None, field=None):
        obj = {"error": msg}
        if qid is not None:
            obj["id"] = qid
        if field:
            obj["field"] = field
        self._send(obj)

    # ------------------------------------------------------------ input
    def handle_line(self, line):
        """Parse one input line: queue its turns, or answer an action.
        Whatever the line holds, it gets an answer or an error (with its
        id when one can be read) and the server keeps serving."""
        try:
            self._handle_line(line)
        except Exception as e:          # a bug must not end the session
            log.exception("line not handled")
            qid = None
            try:
                q = json.loads(line)
                qid = q.get("id") if isinstance(q, dict) and isinstance(q.get("id"), (str, int, float)) else None
            except Exception:
                pass
            self._error(f"internal error: {type(e).__name__}: {e}", qid)

    def _handle_line(self, line):
        line = line.strip()
        if not line:
            return
        try:
            q = json.loads(line)
        except (ValueError, RecursionError) as e:
            self._error(f"could not parse JSON: {str(e)[:200]}")
            return
        if not isinstance(q, dict):
            self._error("a query must be a JSON object")
            return
        qid = q.get("id")
        if qid is None:
            self._error("missing field 'id'", field="id")
            return
        if isinstance(qid, bool) or not isinstance(qid, (str, int, float)) or (
                isinstance(qid, float) and not math.isfinite(qid)):
            self._error("id must be a string or a number", field="id")
            return
        action = q.get("action")
        if action == "query_version":
            self._send({"id": qid, "action": "query_version", "version": VERSION, "git_hash": "gomcts"})
            return
        if action in ("terminate", "terminate_all"):
            self._terminate(q, qid, action)
            return
        if action == "query_models":
            self._send({"id": qid, "action": "query_models", "models": self._models()})
            return
        if action == "clear_cache":
            self._send(q)                     # KataGo echoes it; the net's cache needs no clearing between queries
            return
        if action is not None:
            self._error(f"unknown action '{action}': 'action' must be 'query_version', 'query_models', "
                        "'clear_cache', 'terminate' or 'terminate_all'", qid, "action")
            return
        try:
            turns = self._check(q)
        except QueryError as e:
            self._error(str(e), qid, e.field)
            return
        pri = int(q.get("priority", 0))
        with self._cv:
            for t in turns:
                heapq.heappush(self._heap, (-int(pri), next(self._seq), q, t))
            self._cv.notify()

    def _check(self, q):
        """The turns to analyse; QueryError naming the field at fault."""
        x, y = q.get("boardXSize", 19), q.get("boardYSize", q.get("boardXSize", 19))
        if not isinstance(x, int) or x != y or not 2 <= x <= coords.MAX_SIZE:
            raise QueryError(f"only square boards of 2..{coords.MAX_SIZE} (boardXSize {x}, boardYSize {y})",
                             "boardXSize")
        moves = q.get("moves", [])
        if not isinstance(moves, list):
            raise QueryError("moves must be a list of [player, vertex]", "moves")
        if len(moves) > MAX_GAME_LENGTH:
            raise QueryError(f"moves: at most {MAX_GAME_LENGTH} moves (this query has {len(moves)})", "moves")
        if not isinstance(q.get("initialStones", []) or [], list):
            raise QueryError("initialStones must be a list of [player, vertex]", "initialStones")
        for key in ("moves", "initialStones"):
            for m in q.get(key, []) or []:
                if not (isinstance(m, list) and len(m) == 2):
                    raise QueryError(f"{key}: each entry is [player, vertex]", key)
                _color(m[0], key)
                try:
                    coords.from_gtp(str(m[1]), x)
                except ValueError:
                    raise QueryError(f"{key}: bad vertex '{coords.shown(m[1])}'", key) from None
        turns = q.get("analyzeTurns", [len(moves)])
        if not isinstance(turns, list) or not all(isinstance(t, int) and not isinstance(t, bool)
                                                  and 0 <= t <= len(moves) for t in turns):
            raise QueryError(f"analyzeTurns must be turn numbers in 0..{len(moves)}", "analyzeTurns")
        if not turns:
            raise QueryError("analyzeTurns is empty: no turn to analyse", "analyzeTurns")
        mv = q.get("maxVisits", 1)
        if not isinstance(mv, int) or isinstance(mv, bool) or not 1 <= mv <= MAX_VISITS:
            raise QueryError(f"maxVisits must be an integer in 1..{MAX_VISITS}", "maxVisits")
        rules = q.get("rules", "chinese")
        if rules_name(rules) is None:
            raise QueryError(f"unknown rules '{rules}'", "rules")
        komi = q.get("komi", 7.5)
        if not isinstance(komi, (int, float)) or isinstance(komi, bool) or not math.isfinite(komi) \
                or abs(komi) > MAX_KOMI:
            raise QueryError(f"komi must be a number in -{MAX_KOMI:g}..{MAX_KOMI:g}", "komi")
        pri = q.get("priority", 0)
        if not isinstance(pri, int) or isinstance(pri, bool) or abs(pri) > 2**31:
            raise QueryError("priority must be an integer", "priority")
        every = q.get("reportDuringSearchEvery")
        if every is not None and (not _number(every) or every < 0):
            raise QueryError("reportDuringSearchEvery must be a non-negative number of seconds",
                             "reportDuringSearchEvery")
        self._check_moves_lists(q, x)
        self._check_overrides(q)
        for k in sorted(set(q) - QUERY_KEYS, key=str):      # as KataGo: answered, the field named
            hint = " (it belongs in overrideSettings)" if k in OVERRIDES_HONOURED else ""
            self._send({"id": q["id"], "warning": f"Unexpected or unused field{hint}", "field": str(k)[:100]})
        if isinstance(rules, dict):
            self._send({"id": q["id"], "warning": "rules objects are scored as chinese here", "field": "rules"})
        else:
            approx = RULES_APPROXIMATED.get(rule_key(rules))
            if approx:
                self._send({"id": q["id"], "warning": f"rules '{rules[:40]}' are scored as {approx} here",
                            "field": "rules"})
        return turns

    @staticmethod
    def _check_moves_lists(q, size):
        for key in ("avoidMoves", "allowMoves"):
            v = q.get(key)
            if v is None:
                continue
            if not isinstance(v, list) or not all(isinstance(e, dict) for e in v):
                raise QueryError(f"{key} must be a list of {{player, moves, untilDepth}}", key)
            for e in v:
                _color(e.get("player"), key)
                mv = e.get("moves")
                if not isinstance(mv, list):
                    raise QueryError(f"{key}: moves must be a list of vertices", key)
                for m in mv:
                    try:
                        coords.from_gtp(str(m), size)
                    except ValueError:
                        raise QueryError(f"{key}: bad vertex '{coords.shown(m)}'", key) from None
                d = e.get("untilDepth", 1)
                if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= MAX_UNTIL_DEPTH:
                    raise QueryError(f"{key}: untilDepth must be an integer from 1 to {MAX_UNTIL_DEPTH}", key)

    def _check_overrides(self, q):
        """overrideSettings: the keys with a meaning here are checked; the
        others are named in a warning line (as KataGo does) and ignored."""
        o = q.get("overrideSettings")
        if o is None:
            return
        if not isinstance(o, dict):
            raise QueryError("overrideSettings must be an object", "overrideSettings")
        for k in ("maxVisits", "maxPlayouts"):
            if k in o and (not isinstance(o[k], int) or isinstance(o[k], bool) or not 1 <= o[k] <= MAX_VISITS):
                raise QueryError(f"overrideSettings.{k} must be an integer in 1..{MAX_VISITS}", "overrideSettings")
        if "maxTime" in o and (not _number(o["maxTime"]) or not 0 < o["maxTime"] <= 86400):
            raise QueryError("overrideSettings.maxTime must be a number of seconds in (0, 86400]", "overrideSettings")
        persp = o.get("reportAnalysisWinratesAs")
        if persp is not None and str(persp).upper() not in ("BLACK", "WHITE", "SIDETOMOVE"):
            raise QueryError("overrideSettings.reportAnalysisWinratesAs must be BLACK, WHITE or SIDETOMOVE",
                             "overrideSettings")
        ignored = sorted(k for k in o if k not in OVERRIDES_HONOURED)
        if ignored:
            self._send({"id": q["id"], "warning": "overrideSettings not used here: " + ", ".join(ignored),
                        "field": "overrideSettings"})

    # ------------------------------------------------------------ work
    _current = None
    _current_turn = None

    def _terminate(self, q, qid, action):
        """KataGo's ``terminate`` (the turns of ``terminateId``) and
        ``terminate_all`` (every query's), both optionally only for
        ``turnNumbers``: each queued turn is dropped and answered with
        ``noResults``, the turn searching now ends and answers with what it
        has, and the action itself is echoed (an unknown id gets only the
        echo), as KataGo does."""
        target = q.get("terminateId")
        if action == "terminate" and (target is None or isinstance(target, bool)
                                      or not isinstance(target, (str, int, float))):
            self._error('a terminate action must have a "terminateId" field naming a query', qid, "terminateId")
            return
        turns = q.get("turnNumbers")
        if turns is not None and (not isinstance(turns, list) or not all(
                isinstance(t, int) and not isinstance(t, bool) for t in turns)):
            self._error("if provided, turnNumbers must be an array of integers indicating turns to terminate",
                        qid, "turnNumbers")
            return
        want = set(turns) if turns is not None else None

        def hit(query_id, turn):
            return (action == "terminate_all" or query_id == target) and (want is None or turn in want)
        with self._cv:
            gone = [h for h in self._heap if hit(h[2]["id"], h[3])]
            if gone:
                self._heap = [h for h in self._heap if not hit(h[2]["id"], h[3])]
                heapq.heapify(self._heap)
            if self._current is not None and hit(self._current, self._current_turn):
                self.player.interrupt.set()      # the turn searching now ends with what it has
        for h in sorted(gone, key=lambda h: (h[1])):
            self._send({"id": h[2]["id"], "turnNumber": h[3], "isDuringSearch": False, "noResults": True})
        self._send(q)

    def _worker(self):
        while True:
            with self._cv:
                while not self._heap and not self._eof:
                    self._cv.wait()
                if not self._heap:
                    return
                _, _, q, turn = heapq.heappop(self._heap)
                self._current, self._current_turn = q["id"], turn
            try:
                self._send(self.analyse(q, turn))
            except (PlayerError, QueryError) as e:
                msg = str(e)
                if msg.startswith("illegal move"):      # KataGo's wording, which KaTrain matches
                    msg = "Illegal move" + msg[len("illegal move"):]
                self._error(msg, q["id"], getattr(e, "field", None) or ("moves" if msg.startswith("Illegal") else None))
            except Exception as e:          # a bug must not end the session
                log.exception("analysis of %s failed", q["id"])
                self._error(f"internal error: {type(e).__name__}: {e}", q["id"])
            finally:
                self._current = self._current_turn = None
                self.player.arm_interrupt()          # unless the session is closed

    def analyse(self, q, turn):
        """The response object for turn ``turn`` of query ``q``; partial
        responses (``isDuringSearch`` true) go out every
        ``reportDuringSearchEvery`` seconds while it searches."""
        p = self.player
        size = q.get("boardXSize", 19)
        rules = q.get("rules", "chinese")
        p.set_option("player.rules", rules_name(rules))
        p.new_game(size, float(q.get("komi", 7.5)))
        stones = q.get("initialStones") or []
        if stones:
            black = [coords.from_gtp(v, size) for c, v in stones if _color(c, "initialStones") == BLACK]
            white = [coords.from_gtp(v, size) for c, v in stones if _color(c, "initialStones") == WHITE]
            try:
                p.setup(black, white)
            except PlayerError as e:
                raise QueryError(f"initialStones: {e}", "initialStones") from None
        if "initialPlayer" in q:
            p.set_to_move(_color(q["initialPlayer"], "initialPlayer"))
        for c, v in (q.get("moves") or [])[:turn]:
            p.play(_color(c, "moves"), coords.from_gtp(v, size))
        to_move = p.game.to_move
        visits, secs = self._budget(q)
        avoid = self._avoid_set(q, to_move, size)
        sink = []
        scored = p.analyst.scored_rows(to_move, sink.append, avoid)
        raw = p.nets.raw(p.position())                   # rootInfo's raw fields: the net's own answer at the root
        every = q.get("reportDuringSearchEvery")
        on_info = None
        if every:
            def on_info(rows):
                scored(rows)
                self._send(self._response(q, turn, sink[-1], scored.scored, to_move, during=True, raw=raw))
        asked = "maxVisits" in q or any(k in (q.get("overrideSettings") or {}) for k in ("maxVisits", "maxPlayouts"))
        p.genmove(to_move, play=False, budget=(visits, secs), on_info=on_info,
                  info_interval=float(every) if every else 0.1, avoid=avoid, exact=asked)
        scored(p.search().analysis(), final=True)
        return self._response(q, turn, sink[-1], scored.scored, to_move, during=False, raw=raw)

    def _budget(self, q):
        """(visits, seconds) of a query: maxVisits (or overrideSettings'
        maxVisits / maxPlayouts) and overrideSettings' maxTime; with
        neither, the config's clock (``search.seconds``, capped by
        ``search.playouts``), as a move of the engine thinks."""
        o = q.get("overrideSettings") or {}
        visits = o.get("maxVisits", o.get("maxPlayouts", q.get("maxVisits")))
        secs = o.get("maxTime")
        cfg = self.player.cfg.search
        if visits is None and secs is None:
            return cfg.playouts, (cfg.seconds or None)
        return (int(visits) if visits is not None else cfg.playouts), (float(secs) if secs is not None else None)

    def _avoid_set(self, q, to_move, size):
        """The moves the search may not play (engine.analysis.Avoid): at
        the root, avoidMoves entries of the side to move, or everything
        outside its allowMoves; below it, every entry's moves for its
        player down to its untilDepth (1: the root only)."""
        out, deep = set(), []
        side = "B" if to_move == BLACK else "W"
        for key in ("avoidMoves", "allowMoves"):
            for e in q.get(key) or []:
                player = str(e.get("player", "")).upper()[:1]
                pts = {coords.from_gtp(str(v), size) for v in e.get("moves", [])}
                banned = pts if key == "avoidMoves" else set(range(size * size + 1)) - pts
                if player == side:
                    out |= banned
                until = int(e.get("untilDepth", 1))
                if until > 1 and player in ("B", "W"):
                    deep.append((BLACK if player == "B" else WHITE, banned, until))
        return Avoid(out, deep)

    def _models(self):
        """KataGo's query_models: the net each board size reads (none: the
        search plays on its rollouts and prior knowledge)."""
        from engine.config import at_size
        out = []
        for size in (9, 13, 19):
            w = at_size(self.player.cfg, size).net.weights or f"nets/weights/{size}x{size}.pt"
            out.append({"name": w, "internalName": os.path.splitext(os.path.basename(w))[0],
                        "boardSize": size, "maxBatchSize": self.player.cfg.search.batch_size,
                        "usesHumanSLProfile": False, "version": 0, "usingFP16": False})
        return out

    def _response(self, q, turn, an, sc, to_move, during, raw=None):
        p = self.player
        size = q.get("boardXSize", 19)
        persp = str((q.get("overrideSettings") or {}).get("reportAnalysisWinratesAs", "BLACK")).upper()
        # rows are for the side to move; reported as Black's (KaTrain), White's or the mover's
        flip = (persp == "BLACK" and to_move != BLACK) or (persp == "WHITE" and to_move != WHITE)
        sign = -1.0 if flip else 1.0

        def wr_of(x):
            return 1.0 - x if flip else x
        infos = []
        shown = [x for x in an if x.get("visits", 0) > 0]
        for order, r in enumerate(shown):
            wr = wr_of(r["winrate"])
            lcb = wr_of(r.get("lcb", r["winrate"]))
            # a node has one edge here, and every visit weighs 1
            infos.append({"move": p.vtx(r["move"]), "visits": int(r["visits"]), "edgeVisits": int(r["visits"]),
                          "weight": float(r["visits"]), "winrate": wr,
                          "scoreLead": sign * r["scoreLead"], "scoreMean": sign * r["scoreLead"],
                          "scoreSelfplay": sign * r["scoreLead"],
                          "scoreStdev": r["scoreStdev"], "prior": float(r.get("prior", 0.0)),
                          "lcb": lcb, "utility": 2 * wr - 1, "utilityLcb": 2 * lcb - 1,
                          "order": order, "pv": [p.vtx(m) for m in r.get("pv") or [r["move"]]]})
            if q.get("includePVVisits") and r.get("pv_visits"):
                infos[-1]["pvVisits"] = [int(v) for v in r["pv_visits"]]
                infos[-1]["pvEdgeVisits"] = [int(v) for v in r["pv_visits"]]     # a node has one edge here
            if q.get("includeNoResultValue"):
                infos[-1]["noResultValue"] = 0.0        # these rules have no no-result outcome
        best = infos[0] if infos else None
        rwr = wr_of(an.root_winrate) if an.root_winrate is not None else (best["winrate"] if best else 0.5)
        out = {"id": q["id"], "turnNumber": turn, "isDuringSearch": bool(during), "moveInfos": infos,
               "rootInfo": {"visits": sum(i["visits"] for i in infos),
                            "winrate": rwr,
                            "scoreLead": sign * an.root_lead, "scoreSelfplay": sign * an.root_lead,
                            "scoreStdev": best["scoreStdev"] if best else 0.0,
                            "utility": 2 * rwr - 1,
                            "currentPlayer": "B" if to_move == BLACK else "W"}}
        if raw is not None:
            # the net's own answer at the root, before any search (KataGo's raw fields)
            ri = out["rootInfo"]
            if raw["value"] is not None:
                ri["rawWinrate"] = wr_of(raw["value"])
                ri["rawNoResultProb"] = 0.0
            if raw["lead"] is not None:
                ri["rawLead"] = ri["rawScoreSelfplay"] = sign * raw["lead"]

        def rows_from_top(own):
            own = [sign * v for v in own]
            return [own[yy * size + xx] for yy in range(size - 1, -1, -1) for xx in range(size)]
        if q.get("includeNoResultValue"):
            out["rootInfo"]["noResultValue"] = 0.0
        if q.get("includeOwnership"):
            out["ownership"] = rows_from_top(an.ownership)
            if q.get("includeOwnershipStdev"):
                out["ownershipStdev"] = [ownership_stdev(v) for v in rows_from_top(an.ownership)]
        if q.get("includeMovesOwnership") and not during:
            for i, r in zip(infos, shown):
                i["ownership"] = rows_from_top(sc.move_ownership(r["move"]))
                if q.get("includeMovesOwnershipStdev"):
                    i["ownershipStdev"] = [ownership_stdev(v) for v in i["ownership"]]
        if q.get("includePolicy"):
            pr = p.nets.priors(p.position())
            if pr is not None:
                nn = size * size
                out["policy"] = [float(pr[yy * size + xx]) for yy in range(size - 1, -1, -1)
                                 for xx in range(size)] + [float(pr[nn])]
        return out

    # ------------------------------------------------------------ session
    def serve(self, inp=None):
        """Answer queries until the end of input; every query read before
        it is answered."""
        inp = inp if inp is not None else sys.stdin
        w = threading.Thread(target=self._worker, name="analysis-worker", daemon=True)
        w.start()
        done = threading.Event()               # the input ended, or the client went away

        def read():
            try:
                for line in inp:
                    if self._gone:
                        break
                    self.handle_line(line)
            except (OSError, ValueError):
                pass
            done.set()

        def gone():
            self._client_gone()
            done.set()

        watch = OutputWatch(self.out, gone)
        threading.Thread(target=read, name="analysis-reader", daemon=True).start()
        try:
            done.wait()
            with self._cv:
                self._eof = True
                self._cv.notify_all()
            if self._gone:
                self.player.close()            # the client is gone: the search stops now
            while w.is_alive() and not self._gone:     # every query read is answered, unless the client goes
                w.join(0.1)
            w.join(1.0)                                # a search stops at once; start-up work is not waited on
        except KeyboardInterrupt:
            # Ctrl-C: the searching worker stops and ends before the
            # interpreter does (a search's native threads torn down under
            # it abort the process), then the interrupt goes on up
            self._client_gone()
            self.player.close()
            while w.is_alive():          # a search stops at once; a net still loading ends first
                w.join(0.1)              # (another Ctrl-C leaves at once)
            raise
        finally:
            watch.stop()
        self.player.close()
