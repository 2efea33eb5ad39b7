"""Clocks and the thinking time of one move.

Systems (GTP 2 ``time_settings`` and KGS ``kgs-time_settings``):

- ``none``: no limit; the search uses its playout / seconds budget.
- ``absolute``: main time only (``time_settings M 0 0``).
- ``canadian``: main time, then byo-yomi periods of ``byo_time`` seconds for
  ``byo_stones`` stones (``time_settings M B S`` with S > 0).
- ``byoyomi`` (Japanese, KGS only): main time, then ``periods`` periods of
  ``byo_time`` seconds each; a move within a period keeps the period.
- ``fischer`` (KataGo's ``kata-time_settings``): main time, and ``increment``
  seconds added to the clock after each move; ``fischer-capped`` also caps
  the clock after the increment (``main_limit``) and the time of one move
  (``move_limit``); a negative cap is no cap.

``time_settings M B 0`` with B > 0 means "no time limit" (GTP 2 spec,
section 6.3.3; GoGui sends ``time_settings 0 1 0`` when no clock runs).

``time_left COLOR T S``: S = 0 means T seconds of main time remain; S > 0
means byo-yomi with T seconds for S stones (Canadian) or T seconds of the
current period with S periods left (Japanese, KGS's convention).  Without
``time_left`` (gomill twogtp, GoGui's twogtp) the clock is kept from the
time the engine itself spent (:meth:`Clock.spend`).

:meth:`TimeControl.seconds_for_move` never plans to overrun: in main time
it shares the time left over this player's expected remaining moves
(``cfg.time.game_length`` times the board's points, half of them this
player's, at least ``min_moves_left``; Fuego's plan), weighted by game
phase when ``middle_weight`` is not 1 (Pachi's: more in the middle game),
at most ``main_fraction`` of it on one move; in byo-yomi the period's time per
stone, used in full; it always keeps ``cfg.time.safety_margin`` seconds
back for overhead and transport.  :meth:`TimeControl.extension_for` is how
far an unclear move may think past its plan (``cfg.time.extend``, Pachi's
extension), never past what the clock allows.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.player_errors import TimeSettingsError

SYSTEMS = ("none", "absolute", "canadian", "byoyomi", "fischer")
# kata-time_settings: kgs-time_settings' systems and Fischer's
KATA_SYSTEMS = ("none", "absolute", "byoyomi", "canadian", "fischer", "fischer-capped")


class TimeError(TimeSettingsError):
    """Bad time settings (negative values, unknown system): a request the
    player refuses (engine.player_errors), answered with its message."""


@dataclass
class Clock:
    """One player's clock."""
    main: float = 0.0            # main time left
    byo: float = 0.0             # time left in the current byo-yomi period
    stones: int = 0              # Canadian: stones left in this period
    periods: int = 0             # Japanese: periods left
    in_byoyomi: bool = False


class TimeControl:
    """The time system of a game and both players' clocks.

    Its knobs come from a ``time`` config table (engine.config's
    TimeConfig, where their defaults live: the default table when none is
    given), with keyword overrides.
    """

    # what the clock reads of the time table; apply() refuses any other key
    KNOBS = ("main_fraction", "middle_weight", "fuseki_end", "yose_start", "safety_margin", "min_seconds",
             "game_length", "min_moves_left", "extend")

    def __init__(self, table=None, **knobs):
        import dataclasses
        from engine.config import TimeConfig
        table = TimeConfig() if table is None else table
        if knobs:
            table = dataclasses.replace(table, **knobs)
        self.board_points = 361
        self.apply(table)
        self.set_none()

    @classmethod
    def from_config(cls, cfg):
        return cls(cfg.time)

    def apply(self, table):
        """Take every knob of a ``time`` config table (engine.config's
        TimeConfig): at start and on each ``go-param time.*``; a key of the
        table this class does not read is a ValueError, so none is accepted
        and ignored."""
        import dataclasses
        for f in dataclasses.fields(table):
            if f.name not in self.KNOBS:
                raise ValueError(f"time.{f.name}: TimeControl has no such knob")
            setattr(self, f.name, getattr(table, f.name))

    def moves_left(self, moves_played):
        """This player's expected remaining moves: half the expected game
        length (``game_length`` times the board's points) not yet played,
        at least ``min_moves_left``."""
        total = self.game_length * self.board_points
        return max(self.min_moves_left, (total - moves_played) / 2.0)

    def phase_weight(self, moves_played):
        """The shares of the plan a move at ``moves_played`` gets (Pachi's
        phases): rising from 1 to ``middle_weight`` through the opening
        (before ``fuseki_end`` times the board's points), ``middle_weight``
        in the middle game, 1 from ``yose_start`` on."""
        w = self.middle_weight
        if w == 1.0:
            return 1.0
        f, y = self.fuseki_end * self.board_points, self.yose_start * self.board_points
        if moves_played >= y:
            return 1.0
        if moves_played >= f:
            return w
        return 1.0 + (w - 1.0) * moves_played / f

    def main_share(self, main, moves_played):
        """This move's share of ``main`` seconds: ``main`` over the expected
        remaining moves, times this move's phase weight over the mean
        weight of the moves left (with even weights, main / moves_left)."""
        left = self.moves_left(moves_played)
        if self.middle_weight == 1.0:
            return main / left
        n = max(1, int(round(left)))
        mean = sum(self.phase_weight(moves_played + 2 * k) for k in range(n)) / n
        return main / left * self.phase_weight(moves_played) / mean

    # ------------------------------------------------------------ settings
    def set_none(self):
        self.system = "none"
        self.main_time = 0.0
        self.byo_time = 0.0
        self.byo_stones = 0
        self.byo_periods = 0
        self.increment = 0.0
        self.main_limit = -1.0
        self.move_limit = -1.0
        self.reset()

    def set_gtp(self, main_time, byo_time, byo_stones):
        """GTP ``time_settings``. Values are numbers (seconds, stones)."""
        main_time, byo_time = float(main_time), float(byo_time)
        byo_stones = int(byo_stones)
        if main_time < 0 or byo_time < 0 or byo_stones < 0:
            raise TimeError("time settings must not be negative")
        if byo_stones == 0 and byo_time > 0:
            self.set_none()              # GTP: no time limit
            return
        if byo_stones == 0 or byo_time == 0:
            if main_time == 0 and byo_time == 0 and byo_stones > 0:
                raise TimeError("byo-yomi of 0 seconds for stones is not playable")
            self._set("absolute", main_time, 0.0, 0, 0)
            return
        self._set("canadian", main_time, byo_time, byo_stones, 0)

    def set_kgs(self, system, *args, kata=False):
        """``kgs-time_settings none | absolute M | byoyomi M T P | canadian M T S``;
        with ``kata`` (``kata-time_settings``) also ``fischer M I`` and
        ``fischer-capped M I MAIN_LIMIT MOVE_LIMIT``."""
        system = system.lower()
        want = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if kata:
            want.update({"fischer": 2, "fischer-capped": 4})
        command = "kata-time_settings" if kata else "kgs-time_settings"
        if system not in want:
            raise TimeError(f"unknown time system '{system}' ({', '.join(want)})")
        if len(args) != want[system]:
            raise TimeError(f"{command} {system} takes {want[system]} values")
        if system.startswith("fischer"):
            main, inc = float(args[0]), float(args[1])
            main_limit, move_limit = (float(args[2]), float(args[3])) if len(args) == 4 else (-1.0, -1.0)
            if main < 0 or inc < 0:
                raise TimeError("time settings must not be negative")
            if 0 <= main_limit < main:
                raise TimeError(f"the main time limit {main_limit:g} is below the main time {main:g}")
            if move_limit == 0:
                raise TimeError("a move limit of 0 seconds is not playable")
            self._set("fischer", main, 0.0, 0, 0)
            self.increment, self.main_limit, self.move_limit = inc, main_limit, move_limit
            return
        vals = [float(a) for a in args]
        if any(v < 0 for v in vals):
            raise TimeError("time settings must not be negative")
        if system == "none":
            self.set_none()
        elif system == "absolute":
            self._set("absolute", vals[0], 0.0, 0, 0)
        elif system == "byoyomi":
            main, t, p = vals[0], vals[1], int(vals[2])
            if p == 0 or t == 0:
                self._set("absolute", main, 0.0, 0, 0)
            else:
                self._set("byoyomi", main, t, 0, p)
        else:
            main, t, s = vals[0], vals[1], int(vals[2])
            if s == 0 or t == 0:
                self._set("absolute", main, 0.0, 0, 0)
            else:
                self._set("canadian", main, t, s, 0)

    def _set(self, system, main, byo_time, byo_stones, periods):
        self.system = system
        self.main_time = main
        self.byo_time = byo_time
        self.byo_stones = byo_stones
        self.byo_periods = periods
        self.increment, self.main_limit, self.move_limit = 0.0, -1.0, -1.0
        self.reset()

    def reset(self):
        """Fresh clocks for a new game (and new settings)."""
        self.clocks = {c: self._fresh() for c in (1, 2)}
        self.reported = set()        # the colours whose time_left came since their last move

    def _fresh(self):
        c = Clock(main=self.main_time)
        if self.main_time <= 0 and self.system in ("canadian", "byoyomi"):
            self._enter_byoyomi(c)
        return c

    def _enter_byoyomi(self, c):
        c.in_byoyomi = True
        c.main = 0.0
        c.byo = self.byo_time
        c.stones = self.byo_stones
        c.periods = self.byo_periods

    @property
    def limited(self):
        return self.system != "none"

    def describe(self):
        if self.system == "none":
            return "no time limit"
        if self.system == "absolute":
            return f"absolute {self.main_time:g}s"
        if self.system == "canadian":
            return f"canadian {self.main_time:g}s + {self.byo_time:g}s/{self.byo_stones} stones"
        if self.system == "fischer":
            caps = ""
            if self.main_limit >= 0 or self.move_limit > 0:
                caps = (f", clock at most {self.main_limit:g}s" if self.main_limit >= 0 else "") + \
                       (f", a move at most {self.move_limit:g}s" if self.move_limit > 0 else "")
            return f"fischer {self.main_time:g}s + {self.increment:g}s a move{caps}"
        return f"byoyomi {self.main_time:g}s + {self.byo_periods}x{self.byo_time:g}s"

    # ------------------------------------------------------------ clocks
    def time_left(self, color, seconds, stones):
        """GTP ``time_left``: what the controller says is left."""
        seconds, stones = float(seconds), int(stones)
        if seconds < 0 or stones < 0:
            raise TimeError("time left must not be negative")
        self.reported.add(color)
        c = self.clocks[color]
        if self.system == "fischer" and stones:
            raise TimeError("a Fischer clock has no stones: time_left COLOR SECONDS 0")
        if stones == 0:
            c.main, c.in_byoyomi = seconds, False
            if self.system == "none":
                return
        else:
            c.in_byoyomi = True
            c.main = 0.0
            c.byo = seconds
            if self.system == "byoyomi":
                c.periods = stones
            else:
                c.stones = stones
        if self.system == "none":
            # a clock is running although no settings came: treat as Canadian
            # (stones > 0) or absolute (stones == 0) with these values
            self.system = "canadian" if stones else "absolute"

    def moved(self, color, seconds):
        """``color`` moved after thinking ``seconds``: its clock is charged
        unless the controller reported its time since its last move (then
        the controller's figure stands, and the next report brings the
        rest)."""
        if color not in self.reported:
            self.spend(color, seconds)
        self.reported.discard(color)

    def spend(self, color, seconds):
        """Charge ``seconds`` of thinking to ``color``'s clock (used when the
        controller sends no time_left)."""
        if self.system == "none":
            return
        c = self.clocks[color]
        if self.system == "fischer":
            c.main = max(0.0, c.main - seconds) + self.increment
            if self.main_limit >= 0:
                c.main = min(c.main, self.main_limit)
            return
        if not c.in_byoyomi:
            if seconds <= c.main:
                c.main -= seconds
                return
            seconds -= c.main
            c.main = 0.0
            if self.system == "absolute":
                return
            self._enter_byoyomi(c)
        if self.system == "canadian":
            c.byo -= seconds
            c.stones -= 1
            if c.stones <= 0:
                c.byo, c.stones = self.byo_time, self.byo_stones
        elif self.system == "byoyomi":
            while seconds > c.byo and c.periods > 1:
                seconds -= c.byo
                c.periods -= 1
            c.byo = self.byo_time

    # ------------------------------------------------------------ budget
    def seconds_for_move(self, color, moves_played=0):
        """Seconds to think for ``color``'s next move, or None for no limit.

        Never more than the clock allows minus ``safety_margin``; at least
        ``min_seconds`` unless even that would overrun.  When less than the
        margin is left: half of what is left (at most 10 ms), so the clock
        is never planned past zero.  Always > 0."""
        if self.system == "none":
            return None
        c = self.clocks[color]
        m = self.safety_margin
        if self.system == "fischer":
            # the main time's share plus the increment this move earns back;
            # never more than the clock holds now (the increment comes after)
            hard = c.main if self.move_limit <= 0 else min(c.main, self.move_limit)
            share = min(self.main_share(c.main, moves_played), c.main * self.main_fraction) + self.increment
            cap = hard - m
            t = min(max(share, self.min_seconds), cap)
            t = max(t, min(0.01, max(hard, 0.0) / 2))
            self.last_cap = max(cap, t)
            return t if t > 0 else 0.001
        if not c.in_byoyomi and c.main > 0:
            # the main time shared over the expected remaining moves (Fuego),
            # never more than main_fraction of it on one move
            share = min(self.main_share(c.main, moves_played), c.main * self.main_fraction)
            cap = c.main - m
            if self.system == "canadian":
                per_stone = self.byo_time / self.byo_stones - m
                share = max(share, per_stone)
                cap = c.main + per_stone      # main runs out, the rest comes from the period
            elif self.system == "byoyomi":
                per = self.byo_time - m
                share = max(share, per)
                cap = c.main + per
            t = min(max(share, self.min_seconds), cap)
            hard = c.main + (cap - c.main + m if self.system != "absolute" else 0.0)
        elif self.system == "absolute":
            hard = c.main
            t = hard - m
        elif self.system == "canadian":
            hard = c.byo / max(c.stones, 1)
            t = hard - m
        else:  # byoyomi: each move may use one period
            hard = c.byo
            t = hard - m
        # below the margin: half of what is really left (at most 10 ms), so a
        # clock that is almost out still never reaches zero
        t = max(t, min(0.01, max(hard, 0.0) / 2))
        self.last_cap = max(cap if not c.in_byoyomi and c.main > 0 else t, t)
        return t if t > 0 else 0.001          # the clock is already out

    def extension_for(self, seconds):
        """The most an unclear move planned at ``seconds`` may think: up to
        ``extend`` times the plan, never past what the clock allows that
        move (the main time's cap; in byo-yomi the period's plan, so a
        period is never overrun)."""
        if seconds is None or self.extend <= 1.0:
            return seconds
        return max(seconds, min(seconds * self.extend, getattr(self, "last_cap", seconds)))
