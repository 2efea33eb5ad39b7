"""engine.timecontrol: GTP/KGS time settings, clocks, and a move budget
that never overruns."""
import pytest

from tools import stats
from engine.timecontrol import TimeControl, TimeError

B, W = 1, 2


def tc(**kw):
    d = dict(main_fraction=0.05, safety_margin=0.3, min_seconds=0.05, middle_weight=1.0)   # even shares
    d.update(kw)
    return TimeControl(**d)


def test_default_is_no_limit():
    t = tc()
    assert t.system == "none" and not t.limited
    assert t.seconds_for_move(B) is None


def test_gogui_no_clock_is_no_limit():
    t = tc()
    t.set_gtp(600, 0, 0)
    assert t.limited
    t.set_gtp(0, 1, 0)          # GoGui without a clock; GTP spec: no time limit
    assert t.system == "none" and t.seconds_for_move(B) is None


def test_absolute_uses_fraction_and_margin():
    t = tc()
    t.set_gtp(600, 0, 0)
    assert t.system == "absolute"
    # the main time shared over the expected own moves left (19x19: 0.8 * 361 / 2)
    assert t.moves_left(0) == pytest.approx(144.4)
    assert t.seconds_for_move(B) == pytest.approx(600 / 144.4)
    t.time_left(B, 10, 0)
    assert t.seconds_for_move(B, 300) == pytest.approx(10 * t.main_fraction)   # min_moves_left: 10
    t.time_left(B, 0.2, 0)      # less than the margin: think minimally, never overrun
    assert t.seconds_for_move(B) <= 0.2


def test_absolute_never_runs_out_over_a_long_game():
    t = tc()
    t.set_gtp(60, 0, 0)
    used = 0.0
    for _ in range(400):
        s = t.seconds_for_move(B)
        t.spend(B, s)
        used += s
    assert used < 60
    assert t.clocks[B].main > 0


def test_canadian_byoyomi_per_stone_minus_margin():
    t = tc()
    t.set_gtp(0, 30, 5)          # no main time: straight into byo-yomi
    assert t.system == "canadian"
    assert t.seconds_for_move(B) == pytest.approx(30 / 5 - 0.3)
    t.time_left(B, 10, 2)        # 10 s for the last 2 stones
    assert t.seconds_for_move(B) == pytest.approx(10 / 2 - 0.3)
    t.time_left(B, 3, 1)
    assert t.seconds_for_move(B) == pytest.approx(2.7)


def test_canadian_period_never_overrun_by_spending():
    t = tc()
    t.set_gtp(0, 20, 4)
    for _ in range(12):          # three periods
        s = t.seconds_for_move(W)
        before = t.clocks[W].byo
        stones = t.clocks[W].stones
        assert s * stones <= before + 1e-9
        t.spend(W, s)


def test_main_time_then_canadian():
    t = tc()
    t.set_gtp(100, 10, 1)
    s = t.seconds_for_move(B)
    # in main time: max(5% of 100, per-stone byo-yomi budget) but never
    # more than main + one stone's share
    assert s == pytest.approx(max(5.0, 10 - 0.3))
    t.time_left(B, 1.0, 0)       # almost no main time left
    assert t.seconds_for_move(B) <= 1.0 + 10 - 0.3 + 1e-9
    t.spend(B, 5.0)              # main runs out during the move: byo-yomi
    assert t.clocks[B].in_byoyomi


def test_kgs_time_settings():
    t = tc()
    t.set_kgs("none")
    assert t.system == "none"
    t.set_kgs("absolute", 300)
    assert t.system == "absolute" and t.main_time == 300
    t.set_kgs("byoyomi", 0, 30, 3)
    assert t.system == "byoyomi"
    assert t.seconds_for_move(B) == pytest.approx(29.7)
    t.time_left(B, 30, 2)        # KGS: in byo-yomi the stones field counts periods
    assert t.clocks[B].periods == 2
    assert t.seconds_for_move(B) == pytest.approx(29.7)
    t.set_kgs("canadian", 60, 300, 25)
    assert t.system == "canadian" and t.byo_stones == 25
    with pytest.raises(TimeError):
        t.set_kgs("hourglass", 10)
    with pytest.raises(TimeError):
        t.set_kgs("byoyomi", 10)


def test_japanese_spend_keeps_period():
    t = tc()
    t.set_kgs("byoyomi", 0, 10, 3)
    t.spend(B, 9)
    assert t.clocks[B].periods == 3 and t.clocks[B].byo == 10
    t.spend(B, 15)              # overran one period
    assert t.clocks[B].periods == 2


def test_bad_settings():
    t = tc()
    with pytest.raises(TimeError):
        t.set_gtp(-1, 0, 0)
    with pytest.raises(TimeError):
        t.time_left(B, -5, 0)


def test_reset_restores_clocks():
    t = tc()
    t.set_gtp(50, 0, 0)
    t.spend(B, 20)
    assert t.clocks[B].main == pytest.approx(30)
    t.reset()
    assert t.clocks[B].main == 50


def test_from_config():
    from engine.config import load
    cfg = load(None, ["time.safety_margin=1.0", "time.main_fraction=0.5", "time.game_length=0.1",
                      "time.min_moves_left=4", "time.middle_weight=1"])
    t = TimeControl.from_config(cfg)
    t.set_gtp(100, 0, 0)
    assert t.moves_left(0) == pytest.approx(0.1 * 361 / 2)
    assert t.seconds_for_move(B) == pytest.approx(100 / 18.05)
    assert t.moves_left(1000) == 4


def test_the_phase_plan_spends_more_in_the_middle_game():
    """The shipped time.middle_weight (2) on 9x9 with 30 s: the opening
    rises to the middle game, which gets about twice an endgame move; the
    plan keeps the clock; with the weight 1 it is the even plan."""
    from engine.config import ConfigError, load
    even = TimeControl.from_config(load(None, ["time.middle_weight=1"]))
    phase = TimeControl.from_config(load(None, []))
    plans = {}
    for name, t in (("even", even), ("phase", phase)):
        t.board_points = 81
        t.set_gtp(30, 0, 0)
        got = []
        for k in range(30):
            s = t.seconds_for_move(B, 2 * k)
            got.append(s)
            t.spend(B, s)
        assert t.clocks[B].main > 0
        plans[name] = got
    ev, ph = plans["even"], plans["phase"]
    assert max(ev[:20]) == pytest.approx(min(ev[:20]))           # even shares before the end
    assert ph[0] < ev[0] and ph[10] > 1.3 * ev[10]               # less in the opening, more mid-game
    assert ph[10] > 1.8 * ph[20] and ph[0] < ph[4] < ph[8]       # the middle twice the endgame
    assert phase.phase_weight(0) == 1.0 and phase.phase_weight(20) == 2.0 and phase.phase_weight(40) == 1.0
    with pytest.raises(ConfigError, match="time.fuseki_end"):
        load(None, ["time.fuseki_end=0.5", "time.yose_start=0.3"])


# -- match statistics live in tools.stats; small enough to test here too
def test_wilson_and_elo():
    lo, hi = stats.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert stats.wilson(0, 0) == (0.0, 1.0)
    assert stats.elo(0.5) == pytest.approx(0.0)
    assert stats.elo(0.75) == pytest.approx(190.85, abs=0.1)
    s = stats.summarize(7, 3, 0)
    assert s["winrate"] == 0.7 and s["elo_lo"] < s["elo"] < s["elo_hi"]
    assert stats.fmt_elo(float("inf")) == "+inf" and stats.fmt_elo(None) == "n/a"


def test_the_plan_does_not_starve_a_long_game():
    """19x19, 30 minutes: the 100th own move gets what the first got (the
    old 5%-of-what-is-left rule gave it 0.6% of the first's share)."""
    t = tc()
    t.set_gtp(1800, 0, 0)
    first = t.seconds_for_move(B, 0)
    for k in range(100):
        t.spend(B, t.seconds_for_move(B, 2 * k))
    assert t.seconds_for_move(B, 200) >= 0.9 * first
    assert t.clocks[B].main > 0


def test_extension_stays_inside_the_clock():
    t = tc()
    t.set_gtp(600, 0, 0)
    s = t.seconds_for_move(B, 0)
    assert t.extension_for(s) == pytest.approx(s * t.extend)
    t.time_left(B, 2.0, 0)                  # little main time left: never past the cap
    s = t.seconds_for_move(B, 0)
    assert s <= t.extension_for(s) <= 2.0 - t.safety_margin + 1e-9
    t.set_gtp(0, 10, 5)                     # Canadian byo-yomi: a period is never overrun
    s = t.seconds_for_move(B, 0)
    assert t.extension_for(s) == pytest.approx(s) and s <= 10 / 5


@pytest.mark.parametrize("settings,knobs,plies", [((0, 1, 1), {}, 120), ((6, 0, 0), {}, 60), ((0, 3, 10), {}, 60),
                                                  ((60, 0, 0), {}, 120), ((0, 30, 10), {}, 120),
                                                  ((6, 0, 0), {"middle_weight": 1.0}, 60),
                                                  ((60, 0, 0), {"middle_weight": 1.0}, 120)])
def test_whole_games_of_planned_moves_never_lose_on_time(settings, knobs, plies):
    """The clock's plan over whole games, on the pure TimeControl (no wall
    clock: a busy machine cannot fail it): each move thinks the most it
    may, its plan stretched to the extension (an unclear move), plus 20 ms
    of overhead (answering GTP, building the search); no
    move ever overruns what its clock had left, and the clock charged
    with it (as when no time_left comes, gomill's ringmaster) stays in
    time.  ``0 1 1`` as GTP sends it; the issue's absolute and Canadian
    clocks (60 0 0, 0 30 10) over a 9x9 game's 120 plies, and a tenth of
    them over a 5x5 game's 60."""
    from engine.config import load
    t = TimeControl.from_config(load(None, [f"time.{k}={v}" for k, v in knobs.items()]))
    t.set_gtp(*settings)
    overhead = 0.02
    for moves in range(plies):
        color = 1 + moves % 2
        c = t.clocks[color]
        allowed = (c.byo / max(c.stones, 1) if t.system == "canadian" else c.byo) if c.in_byoyomi \
            else c.main + (t.byo_time / max(t.byo_stones, 1) if t.system == "canadian" else 0.0)
        plan = t.seconds_for_move(color, moves)
        took = t.extension_for(plan) + overhead
        assert 0 < plan and took < allowed, (settings, moves, plan, took, allowed)
        t.spend(color, took)
        assert c.main >= 0 and (not c.in_byoyomi or c.byo > 0), (settings, moves)


@pytest.mark.slow
def test_a_whole_game_on_the_clock_stops_its_searches_by_time():
    """Whole 5x5 games with the engine on both sides keeping its own
    clocks at ``0 1 1``: every search of an unbounded budget stops by its
    clock (the wall time a move takes is the machine's; the plan is tested
    above)."""
    from engine.config import load
    from engine.player import Player
    p = Player(load(None, ["gtp.boardsize=5", "prior.evaluator=expert", "search.playouts=100000000",
                           "search.early_stop=false", "search.seed=3", "player.score_playouts=50"]))
    p.tc.set_gtp(0, 1, 1)
    passes, moves = 0, 0
    while passes < 2 and moves < 60:
        m = p.genmove(1 + moves % 2)
        assert p.last["result"] is None or p.last["result"].stopped_by in ("time", "extended", "early")
        moves += 1
        passes = passes + 1 if m == 25 else 0
        if m < 0:
            break
    assert moves >= 2


def test_fischer_clock_adds_the_increment_and_keeps_its_caps():
    """KataGo's kata-time_settings fischer and fischer-capped: the plan is
    the main time's share plus the increment, never more than the clock
    holds now (nor the move limit); spending adds the increment after the
    move, up to the main time limit."""
    t = tc()
    t.set_kgs("fischer", 60, 5, kata=True)
    assert t.system == "fischer" and t.describe() == "fischer 60s + 5s a move"
    s = t.seconds_for_move(B)
    assert s == pytest.approx(min(60 / t.moves_left(0), 60 * t.main_fraction) + 5)
    t.spend(B, 10)
    assert t.clocks[B].main == pytest.approx(55)
    t.time_left(B, 2, 0)                      # almost out: the increment is not there yet
    assert t.seconds_for_move(B) <= 2 - 0.3 + 1e-9
    with pytest.raises(TimeError):
        t.time_left(B, 10, 3)                 # a Fischer clock has no stones
    t.set_kgs("fischer-capped", 60, 5, 62, 4, kata=True)
    t.spend(B, 1)
    assert t.clocks[B].main == 62             # 60 - 1 + 5, capped at 62
    assert t.seconds_for_move(B) <= 4 - 0.3 + 1e-9
    for bad in (("fischer", 60), ("fischer-capped", 60, 5, 30, -1), ("fischer", -1, 5),
                ("fischer-capped", 60, 5, -1, 0)):
        with pytest.raises(TimeError):
            t.set_kgs(*bad, kata=True)
    with pytest.raises(TimeError):
        t.set_kgs("fischer", 60, 5)            # kgs-time_settings has no Fischer
    used, t2 = 0.0, tc()
    t2.set_kgs("fischer", 30, 1, kata=True)
    for _ in range(300):                      # a long game: the clock never runs out
        s = t2.seconds_for_move(B)
        assert s < t2.clocks[B].main
        t2.spend(B, s)
        used += s
    assert t2.clocks[B].main > 0


def test_every_time_key_reaches_the_clock_live():
    """go-param of any time.* key changes the clock's knob at once (the
    keys were a hand list, and time.middle_weight was accepted and ignored)."""
    import dataclasses
    from engine.config import TimeConfig, load
    from engine.player import Player
    from tests.conftest import SMALL
    p = Player(load(None, SMALL))
    for f in dataclasses.fields(TimeConfig):
        v = getattr(p.cfg.time, f.name)
        new = v + 1 if isinstance(v, int) else (v * 0.75 if v else 0.01)
        if f.name == "fuseki_end":
            new = min(new, p.cfg.time.yose_start)
        p.set_option(f"time.{f.name}", new)
        assert getattr(p.tc, f.name) == pytest.approx(new), f.name
    p.set_option("time.middle_weight", 4)
    assert p.tc.middle_weight == 4.0


def test_a_move_is_charged_unless_the_controller_reported_the_time():
    """TimeControl.moved: the engine charges its own clock after a move,
    except when the controller sent time_left since that colour's last
    move (its figure stands); new settings forget the reports."""
    t = TimeControl()
    t.set_gtp(60, 0, 0)
    t.moved(B, 5.0)
    assert t.clocks[B].main == pytest.approx(55.0)
    t.time_left(B, 50, 0)
    t.moved(B, 5.0)
    assert t.clocks[B].main == pytest.approx(50.0)      # the controller's figure
    t.moved(B, 5.0)
    assert t.clocks[B].main == pytest.approx(45.0)      # no report since: charged
    t.time_left(B, 40, 0)
    t.set_gtp(30, 0, 0)
    t.moved(B, 5.0)
    assert t.clocks[B].main == pytest.approx(25.0)      # new settings: the report is forgotten
