"""gtp_main.py without --config serves the shipped, measured engine of each
board size: configs/<n>x<n>.toml, taken anew at every boardsize, with the
command line's --set and the session's go-param on top."""
import os
import subprocess

from engine.config import load, load_for_size, shipped_size
from engine.gtp.server import GtpServer
from tests.conftest import PY, ROOT


def test_the_nearest_shipped_size_serves_other_sizes():
    assert [shipped_size(n) for n in (5, 9, 11, 12, 13, 15, 16, 19)] == [9, 9, 13, 13, 13, 13, 19, 19]
    c9 = load_for_size(9)
    assert c9 == load(f"{ROOT}/configs/9x9.toml")
    assert load_for_size(7).gtp.boardsize == 7 and load_for_size(7).search.seconds == c9.search.seconds


def engine(*sets):
    sets = list(sets) + ["prior.evaluator=expert"]
    return GtpServer(load_for_size(load(None, sets).gtp.boardsize, sets),
                     size_configs=lambda n: load_for_size(n, sets))


def test_boardsize_takes_the_size_s_config_and_keeps_the_session_s_settings():
    eng = engine("player.book=false")
    p = eng.player
    assert p.cfg == load_for_size(19, ["player.book=false", "prior.evaluator=expert"])
    eng.respond("boardsize 9")
    assert p.cfg.search.seconds == load(f"{ROOT}/configs/9x9.toml").search.seconds
    assert p.cfg.pool.pool_size == load(f"{ROOT}/configs/9x9.toml").pool.pool_size
    assert p.cfg.player.book is False                               # the command line's --set
    eng.respond("go-param search.resign_threshold 0.2")
    eng.respond("go-param time.middle_weight 3")
    eng.respond("boardsize 19")
    c19 = load(f"{ROOT}/configs/19x19.toml")
    assert p.cfg.search.seconds == c19.search.seconds and p.cfg.pool.pool_size == c19.pool.pool_size
    assert p.cfg.search.resign_threshold == 0.2                     # the session's go-param
    assert p.tc.middle_weight == 3.0
    eng.respond("boardsize 13")
    assert p.cfg.search.resign_min_visits == load(f"{ROOT}/configs/13x13.toml").search.resign_min_visits


def test_a_config_file_keeps_one_config_for_every_size():
    eng = GtpServer(load(f"{ROOT}/configs/9x9.toml", ["prior.evaluator=expert"]))
    before = eng.player.cfg.search.seconds
    eng.respond("boardsize 19")
    assert eng.player.cfg.search.seconds == before


def test_gtp_main_without_a_config_serves_the_size_s_engine():
    p = subprocess.run([PY, f"{ROOT}/gtp_main.py", "--log-level", "WARNING", "--set", "prior.evaluator=expert"],
                       input="boardsize 9\ngo-param search.seconds\nboardsize 19\ngo-param search.seconds\nquit\n",
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    replies = [ln for ln in p.stdout.splitlines() if ln.startswith("=")]
    s9, s19 = (load(f"{ROOT}/configs/{n}x{n}.toml").search.seconds for n in (9, 19))
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


def test_override_version_for_lizzie():
    """Lizzie reads `version` as Leela Zero's (0.15 or later, or a dialog)
    and uses kata-analyze when the command line names override-version."""
    p = subprocess.run([PY, f"{ROOT}/gtp_main.py", "--log-level", "WARNING", "-override-version", "0.17",
                        "--set", "prior.evaluator=expert"], input="version\nquit\n",
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0 and "= 0.17" in p.stdout.splitlines()


def test_the_shipped_net_path_works_from_any_folder(tmp_path, monkeypatch):
    """configs/9x9.toml names its net relative to the project: a GUI that
    starts the engine from another folder still gets that net."""
    from engine.factory import load_evaluator
    monkeypatch.chdir(tmp_path)
    cfg = load_for_size(9, [])
    assert not os.path.isabs(cfg.net.weights)
    ev = load_evaluator(cfg, 9)
    assert getattr(ev, "has_aux", False)               # the teacher net, with its heads
