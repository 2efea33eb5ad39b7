"""One mechanism for what depends on the board size: per-size tables
([size.<n>.<table>], engine/config.py) taken anew at every boardsize.
gtp_main.py without --config serves the shipped, measured engine
(configs/engine.toml); configs/<n>x<n>.toml are that engine starting on a
size, so a boardsize after any of them gives that size's engine, with the
command line's --set and the session's go-param in it."""
import dataclasses
import os
import re
import subprocess

import pytest

from engine import config as C
from engine.config import SHIPPED_CONFIG, at_size, load, shipped_size
from engine.gtp.server import GtpServer
from tests.conftest import PY, ROOT

SHIPPED = load(SHIPPED_CONFIG)


def test_the_nearest_shipped_size_serves_other_sizes():
    assert [shipped_size(n) for n in (5, 9, 11, 12, 13, 15, 16, 19)] == [9, 9, 13, 13, 13, 13, 19, 19]
    for n in (9, 13, 19):
        own = load(f"{ROOT}/configs/{n}x{n}.toml")
        assert own.gtp.boardsize == n                               # where it starts
        assert dataclasses.replace(at_size(own, n), gtp=at_size(SHIPPED, n).gtp) == at_size(SHIPPED, n)
    c7 = at_size(SHIPPED, 7)
    assert C.sized_for(c7) == 7 and c7.search.seconds == at_size(SHIPPED, 9).search.seconds


def test_the_shipped_sizes_differ_where_they_were_measured_apart():
    """The per-size tables carry the clock, resignation, pool, estimate
    playouts and net of each size (the values the strength rows name)."""
    s9, s13, s19 = (at_size(SHIPPED, n) for n in (9, 13, 19))
    assert s9.search.seconds < s13.search.seconds < s19.search.seconds
    assert s9.pool.pool_size < s13.pool.pool_size < s19.pool.pool_size
    assert s9.net.weights.endswith("9x9-res3.pt") and s19.net.weights.endswith("19x19-res4.pt")
    assert s13.net.weights.endswith("19x19-res.pt")    # the residual 19x19 net read at 13x13
    assert s13.search.value_lambda == (0.2,) and s13.player.score_source == "playouts"
    assert s9.gtp.komi == 7.0 and s19.gtp.komi == 7.5
    assert s9.rave.net_equiv == 100.0 and s19.rave.net_equiv == C.SIZE_DEFAULTS["19"]["rave"]["net_equiv"]


def engine(config=SHIPPED_CONFIG, *sets):
    return GtpServer(load(config, list(sets) + ["prior.evaluator=expert"]))


@pytest.mark.parametrize("start", ["engine.toml", "9x9.toml"])
def test_boardsize_takes_the_size_s_values_and_keeps_the_session_s_settings(start):
    eng = engine(f"{ROOT}/configs/{start}", "player.book=false")
    p = eng.player
    eng.respond("boardsize 9")
    assert p.cfg.search.seconds == at_size(SHIPPED, 9).search.seconds
    assert p.cfg.pool.pool_size == at_size(SHIPPED, 9).pool.pool_size
    assert p.cfg.player.book is False                               # the command line's --set
    eng.respond("go-param search.resign_threshold 0.2")
    eng.respond("go-param time.middle_weight 3")
    eng.respond("boardsize 19")
    c19 = at_size(SHIPPED, 19)
    assert p.cfg.search.seconds == c19.search.seconds and p.cfg.pool.pool_size == c19.pool.pool_size
    assert p.cfg.rave.net_equiv == c19.rave.net_equiv and p.cfg.player.score_playouts == 200
    assert p.cfg.search.resign_threshold == 0.2                     # the session's go-param
    assert p.tc.middle_weight == 3.0
    assert eng.respond("go-param search.seconds").split()[-1] == repr(c19.search.seconds)
    eng.respond("boardsize 13")
    assert p.cfg.search.resign_min_visits == at_size(SHIPPED, 13).search.resign_min_visits


def test_a_key_for_every_size_replaces_the_per_size_values():
    """--set search.seconds=0 (the experiments' fixed simulations) holds on
    every size; a per-size --set after it sets one size's."""
    eng = engine(f"{ROOT}/configs/9x9.toml", "search.seconds=0", "size.19.search.seconds=2")
    p = eng.player
    assert p.cfg.search.seconds == 0
    eng.respond("boardsize 13")
    assert p.cfg.search.seconds == 0
    eng.respond("boardsize 19")
    assert p.cfg.search.seconds == 2
    eng.respond("go-param search.seconds 4")                        # a go-param for every size
    eng.respond("boardsize 9")
    assert p.cfg.search.seconds == 4


def test_go_param_of_a_per_size_key():
    """go-param size.<n>.table.key: live when the board is of that size,
    from the next boardsize of that size otherwise; bad ones named."""
    eng = engine(f"{ROOT}/configs/9x9.toml")
    p = eng.player
    assert eng.respond("go-param size.19.search.seconds 7").startswith("=")
    assert p.cfg.search.seconds == at_size(SHIPPED, 9).search.seconds
    assert eng.respond("go-param size.9.rave.rave_equiv 1234").startswith("=")
    assert p.cfg.rave.rave_equiv == 1234
    eng.respond("boardsize 19")
    assert p.cfg.search.seconds == 7 and p.cfg.rave.rave_equiv == C.RaveConfig().rave_equiv
    for bad, why in (("size.19.rave.nope 1", "unknown config key"), ("size.11.search.seconds 1", "per-size tables"),
                     ("size.19.search.seconds -1", "below the minimum"), ("size.19.seconds 1", "size.<n>.table.key"),
                     ("size.9.gtp.boardsize 9", "cannot")):
        r = eng.respond("go-param " + bad)
        assert r.startswith("?") and why in r, (bad, r)


def test_bad_per_size_tables_are_named(tmp_path):
    for text, why in (('[size.11.search]\nseconds = 1.0\n', "per-size tables are for 9, 13, 19"),
                      ('[size.9.search]\nsecondz = 1.0\n', "unknown config key 'size.9.search.secondz'"),
                      ('[size.9.nope]\nx = 1\n', "unknown config table '[size.9.nope]'"),
                      ('[size.9]\nseconds = 1.0\n', "'size.9' must hold tables"),
                      ('[size.19.search]\nthreads = 4\n[memory]\nenabled = true\n', "cannot run threaded"),
                      ('[size.19.gtp]\nboardsize = 9\n', "cannot set it")):
        (tmp_path / "c.toml").write_text(text)
        with pytest.raises(C.ConfigError, match=why.replace("[", r"\[").replace("]", r"\]")):
            load(str(tmp_path / "c.toml"))


def test_gtp_main_without_a_config_serves_the_size_s_engine():
    p = subprocess.run([PY, f"{ROOT}/gtp_main.py", "--log-level", "WARNING", "--set", "prior.evaluator=expert"],
                       input="boardsize 9\ngo-param search.seconds\nboardsize 19\ngo-param search.seconds\nquit\n",
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    replies = [ln for ln in p.stdout.splitlines() if ln.startswith("=")]
    s9, s19 = (at_size(SHIPPED, n).search.seconds for n in (9, 19))
    assert [r.split()[-1] for r in replies if len(r.split()) > 1] == [repr(s9), repr(s19)]


def test_the_servers_serve_a_player_handed_in():
    import io
    import json
    from engine.gtp.analysis_json import AnalysisServer
    from engine.player import Player
    from tests.conftest import SMALL
    p = Player(load(None, SMALL + ["prior.evaluator=expert"]))
    eng = GtpServer(player=p)
    assert eng.player is p
    eng.respond("play b E5")
    assert p.game.move_number == 1
    out = io.StringIO()
    srv = AnalysisServer(player=Player(load(None, SMALL + ["prior.evaluator=expert"])), out=out)
    srv.serve(io.StringIO(json.dumps({"id": "x", "boardXSize": 9, "maxVisits": 8}) + "\n"))
    assert json.loads(out.getvalue().splitlines()[0])["id"] == "x"


def lizzie_mode(command, replies):
    """Lizzie's own rule (featurecat/lizzie ebeb446, Leelaz.java: the
    constructor, startEngine() and parseLine()): the command line's
    override-version sets KataGo mode, startEngine() resets it, a ``name``
    reply whose first word starts with "KataGo" sets it again and skips the
    version check; otherwise ``version`` is read as Leela Zero's
    major.minor (a dialog below 0.15).  (analysis command, dialog?)."""
    is_katago = "override-version" in command.lower()      # the constructor
    is_katago = False                                       # startEngine()
    dialog = False
    name_line, version_line = replies
    params = name_line.strip().split(" ")
    if len(params) > 1 and params[1].startswith("KataGo"):
        is_katago = True
    if not is_katago:
        params = version_line.strip().split(" ")
        dialog = int(params[1].split(".")[1]) < 15
    return ("kata-analyze" if is_katago else "lz-analyze"), dialog


def _name_and_version(args):
    p = subprocess.run([PY, f"{ROOT}/gtp_main.py", "--log-level", "WARNING", "--set", "prior.evaluator=expert"] + args,
                       input="name\nversion\nquit\n", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("=")]
    return lines[0], lines[1]


def test_the_lizzie_recipe_gets_lizzies_katago_mode():
    """docs/GTP.md's Lizzie recipe, run through Lizzie's own engine-mode
    rule: kata-analyze (score leads, ownership) and no version dialog;
    the flag alone, which the last recipe documented, gets lz-analyze."""
    recipe = ["--set", "gtp.name=KataGo-gomcts", "-override-version", "0.17"]
    replies = _name_and_version(recipe)
    assert replies[0] == "= KataGo-gomcts" and replies[1] == "= 0.17"
    assert lizzie_mode("gtp_main.py " + " ".join(recipe), replies) == ("kata-analyze", False)
    flag_only = ["-override-version", "0.17"]
    assert lizzie_mode("gtp_main.py " + " ".join(flag_only), _name_and_version(flag_only)) == ("lz-analyze", False)


def test_the_shipped_net_path_works_from_any_folder(tmp_path, monkeypatch):
    """configs/9x9.toml names its net relative to the project: a GUI that
    starts the engine from another folder still gets that net."""
    from engine.factory import load_evaluator
    monkeypatch.chdir(tmp_path)
    cfg = at_size(load(f"{ROOT}/configs/9x9.toml"), 9)
    assert not os.path.isabs(cfg.net.weights)
    ev = load_evaluator(cfg, 9)
    assert getattr(ev, "has_aux", False)               # the teacher net, with its heads


def test_the_raw_net_configs_play_the_shipped_nets():
    """configs/rawnet-<n>x<n>.toml are the shipped engine with the search
    off: at every size the same nets and settings as configs/engine.toml
    but net.rawnet."""
    for n in (9, 19):
        raw = load(f"{ROOT}/configs/rawnet-{n}x{n}.toml")
        assert raw.gtp.boardsize == n and raw.net.rawnet
        for size in (9, 13, 19):
            got, want = at_size(raw, size), at_size(SHIPPED, size)
            assert got.net.weights == want.net.weights
            assert dataclasses.replace(got, net=want.net, gtp=want.gtp) == want


def test_named_weights_of_another_size_are_read_at_the_board_when_fully_convolutional():
    """``size.13.net.weights`` may name the 19x19 residual net: its heads are
    convolutional, so it is read at 13x13 (as a size without weights of its
    own reads the nearest shipped net); a fully connected net of another size
    is refused with both sizes named."""
    from engine.config import replace
    from engine.factory import NoNet, load_evaluator
    cfg = at_size(SHIPPED, 13)
    ev = load_evaluator(replace(cfg, **{"net.weights": "nets/weights/19x19-res.pt"}), 13)
    assert ev.board_size == 13 and ev.has_aux
    from board_ext.board import Board
    priors, _ = ev.evaluate([Board(13)])
    assert priors.shape == (1, 13 * 13 + 1)
    with pytest.raises(NoNet, match="9x9 net, the board is 13x13"):
        load_evaluator(replace(cfg, **{"net.weights": "nets/weights/9x9.pt"}), 13)


def test_a_board_under_13x13_of_the_13_table_searches_without_the_net_it_names(capfd):
    """The shipped table of 13 names the 19x19 residual net for 10x10 to
    15x15; under 13x13 a net of another size is not read, so 11x11 plays on
    expert priors, said on stderr, as before the table named one, and 13x13
    plays on the net."""
    from engine.factory import NotReadHere, load_evaluator
    with pytest.raises(NotReadHere, match="only from 13x13 up; the board is 11x11"):
        load_evaluator(SHIPPED, 11)
    eng = GtpServer(load(SHIPPED_CONFIG, ["search.seconds=0", "search.playouts=50"]))
    for size in (11, 13):
        assert eng.respond(f"boardsize {size}").startswith("=")
        assert re.fullmatch(r"= [A-T]\d+", eng.respond("genmove b").strip())
        assert (eng.player.nets.loaded(size) is None) == (size == 11)
    assert "no net for 11x11" in capfd.readouterr().err
    assert eng.player.nets.loaded(13).board_size == 13 and eng.player.nets.loaded(13).has_aux
