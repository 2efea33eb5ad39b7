"""tools.match and tools.selfplay output folders: a rerun with other
settings is refused naming the difference, a folder from before settings
were stored resumes, Ctrl-C ends a run with one line, files are 0644 (under
umask 022) and logs are numbered as the SGFs are.  No GNU Go: the engines
are small scripts and the referee is missing, so the estimate scores."""
import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from engine.config import load
from tools import match, selfplay
from tools.gtp_client import GNUGO
from tools.rundir import SETTINGS, SettingsMismatch, differences
from tests.conftest import PY, ROOT, sigint_default

SELFPLAY = ["search.playouts=20", "player.score_playouts=20", "prior.evaluator=none", "pool.pool_size=5000"]

# a GTP engine that passes at once, or (SLOW) sleeps a minute on genmove
PASSER = """import sys, time
for line in sys.stdin:
    w = line.split()
    if not w: continue
    if w[0] == 'genmove':
        if SLOW: time.sleep(60)
        print('= pass\\n', flush=True)
    elif w[0] == 'known_command': print('= false\\n', flush=True)
    elif w[0] == 'quit': print('=\\n', flush=True); break
    else: print('=\\n', flush=True)
"""


def engine(tmp_path, slow=False):
    path = tmp_path / ("slow.py" if slow else "passer.py")
    path.write_text(f"SLOW = {slow}\n" + PASSER)
    return [PY, str(path)]


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def file_mode():
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def test_differences_name_the_keys():
    assert differences({"size": 9, "config": {"search": {"playouts": 10, "new": 1}}},
                       {"size": 13, "config": {"search": {"playouts": 10}}}) == ["size: 9 there, 13 now"]


def test_match_numbers_logs_as_sgfs_and_writes_0644(tmp_path):
    out = tmp_path / "out"
    res = match.play_match(engine(tmp_path), engine(tmp_path), 2, 9, 7.0, str(out), 1,
                           referee="/nonexistent/referee", progress=False, move_timeout=30)
    assert [g["result"] for g in res["games"]] == ["W+7", "W+7"]     # two passes, komi
    assert sorted(os.listdir(out / "logs")) == ["game-0001-b.log", "game-0001-w.log",
                                                "game-0002-b.log", "game-0002-w.log"]
    assert sorted(f for f in os.listdir(out) if f.endswith(".sgf")) == ["game-0001.sgf", "game-0002.sgf"]
    for name in ("game-0001.sgf", "results.json", SETTINGS):
        assert mode(out / name) == file_mode(), name


def test_match_refuses_a_folder_of_other_settings(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert match.main(["--opponent", "gnugo --mode gtp --levle 10", "--games", "0", "--size", "9",
                       "--set", "search.playouts=100", "--out", out]) == 0
    capsys.readouterr()
    rc = match.main(["--opponent", "gnugo --mode gtp --level 10", "--games", "0", "--size", "13",
                     "--set", "search.playouts=200", "--out", out])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert '"gnugo --mode gtp --levle 10" there, "gnugo --mode gtp --level 10" now' in err
    assert "size: 9 there, 13 now" in err and "config.search.playouts: 100 there, 200 now" in err
    # the same settings resume; komi differs: refused
    assert match.main(["--opponent", "gnugo --mode gtp --levle 10", "--games", "0", "--size", "9",
                       "--set", "search.playouts=100", "--out", out]) == 0
    with pytest.raises(SettingsMismatch, match="komi: 7.0 there, 6.5 now"):
        match.play_match(["x"], ["y"], 0, 9, 6.5, out, 1, progress=False,
                         settings={"opponent": "gnugo --mode gtp --levle 10", "engine": None})


def test_match_resumes_a_folder_without_settings(tmp_path):
    out = tmp_path / "out"
    a = engine(tmp_path)
    match.play_match(a, a, 1, 9, 7.0, str(out), 1, referee="/nonexistent", progress=False)
    os.remove(out / SETTINGS)                 # as a folder made before settings were stored
    res = match.play_match(a, a, 2, 9, 6.5, str(out), 1, referee="/nonexistent", progress=False)
    assert [g["result"] for g in res["games"]] == ["W+7", "W+6.5"]
    assert json.loads((out / SETTINGS).read_text())["komi"] == 6.5


def test_selfplay_refuses_a_folder_of_other_settings(tmp_path):
    out = str(tmp_path)
    cfg = load(None, SELFPLAY)
    selfplay.run(cfg, 1, 5, 0.5, out, seed=7, progress=False)
    with pytest.raises(SettingsMismatch) as e:
        selfplay.run(load(None, SELFPLAY + ["search.playouts=30"]), 2, 6, 0.5, out, seed=7, progress=False)
    assert "size: 5 there, 6 now" in str(e.value) and "config.search.playouts: 20 there, 30 now" in str(e.value)
    assert len([f for f in os.listdir(out) if f.endswith(".sgf")]) == 1
    for name in ("game-00001.sgf", "summary.json", SETTINGS):
        assert mode(os.path.join(out, name)) == file_mode(), name
    os.remove(os.path.join(out, SETTINGS))    # a folder from before: resumes as it did
    assert selfplay.run(cfg, 2, 5, 1.5, out, seed=7, progress=False)["games"] == 2


def _interrupt(args, cwd, ready):
    p = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=sigint_default)
    try:
        end = time.time() + 300
        while not ready() and time.time() < end and p.poll() is None:
            time.sleep(0.1)
        assert ready(), "the run never got going"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, err


@pytest.mark.slow
def test_ctrl_c_ends_a_selfplay_run_with_one_line(tmp_path):
    out = tmp_path / "out"
    args = [PY, "-m", "tools.selfplay", "--games", "100", "--size", "5", "--komi", "0.5", "--out", str(out)]
    for s in SELFPLAY:
        args += ["--set", s]
    rc, err = _interrupt(args, ROOT, lambda: (out / "game-00001.sgf").exists())
    assert rc == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith("selfplay: interrupted")]
    assert len(lines) == 1 and "of 100 games are in" in lines[0], err


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_ends_a_match_with_one_line(tmp_path, workers):
    out = tmp_path / "out"
    slow = " ".join(engine(tmp_path, slow=True))
    args = [PY, "-m", "tools.match", "--engine", slow, "--opponent", slow, "--games", "4",
            "--workers", str(workers), "--referee", "/nonexistent", "--out", str(out)]
    rc, err = _interrupt(args, ROOT, lambda: (out / "logs" / "game-0001-w.log").exists())
    assert rc == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert [ln for ln in err.splitlines() if ln.startswith("match: interrupted")] == \
        [f"match: interrupted; 0 of 4 games are in {out} (the same command resumes)"], err
    assert not (out / "game-0001.sgf").exists()


def test_a_bare_python_is_the_matchs_interpreter():
    """"python gtp_main.py" in an engine command runs under the interpreter
    of the match (with torch), not whatever "python" the PATH finds first."""
    assert match.resolve_command("python gtp_main.py --set a=1") == [sys.executable, "gtp_main.py",
                                                                     "--set", "a=1"]
    assert match.resolve_command(["python3", "x.py"])[0] == sys.executable
    assert match.resolve_command("/usr/bin/python3 x.py")[0] == "/usr/bin/python3"


@pytest.mark.gnugo
@pytest.mark.parametrize("extra,words", [
    (["--opponent", "gnugo-typo --mode gtp"], "cannot play: cannot start"),
    (["--opponent", f"{GNUGO} --mode gtp", "--set", "net.required=true", "--set", "net.weights=/no/such.pt"],
     "net.required"),
])
def test_a_setup_error_is_no_game(tmp_path, extra, words):
    """An engine that cannot start aborts the run with one line and a
    non-zero exit; no forfeit is scored (it gave 100% and exit 0)."""
    r = subprocess.run([sys.executable, "-m", "tools.match", "--games", "2", "--size", "9",
                        "--out", str(tmp_path / "m")] + extra,
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("match:")]
    assert len(lines) == 1 and words in lines[0], r.stderr
    assert not (tmp_path / "m" / "results.json").exists()


@pytest.mark.parametrize("workers,threads", [(None, 0), (2, 1)])
def test_games_side_by_side_search_with_one_thread_each(tmp_path, workers, threads):
    """Our engine searches with every core (search.threads = 0) unless the
    match plays games side by side: then with one thread a game."""
    out = tmp_path / "m"
    argv = ["--opponent", "gnugo --mode gtp", "--games", "0", "--size", "9", "--out", str(out)]
    if workers:
        argv += ["--workers", str(workers)]
    assert match.main(argv) == 0
    import json
    settings = json.loads((out / "settings.json").read_text())
    assert settings["config"]["search"]["threads"] == threads


def test_recorded_command_lines_name_no_machine():
    """settings.json and results.json record our engine's command line with
    paths inside the project relative to it; others stay as given."""
    cmd = match.our_engine_command(None, ["search.playouts=5"])
    text = match._cmd_str(cmd)
    assert match.HERE not in text and "gtp_main.py" in text
    assert text.split()[1] == "gtp_main.py"
    assert match._cmd_str("/usr/games/gnugo --mode gtp") == "/usr/games/gnugo --mode gtp"


def test_a_handicap_match_gives_black_the_stones_and_keeps_our_colour(tmp_path):
    """--handicap 2 --our-color white: both games start from Black's two
    fixed stones with White to move, engine A is White in both, and the
    record and the SGF say so."""
    out = tmp_path / "out"
    a, b = engine(tmp_path), engine(tmp_path)
    res = match.play_match(a, b, 2, 9, 0.5, str(out), 1, names=("giver", "taker"), referee="/nonexistent",
                           progress=False, move_timeout=30, handicap=2, a_color="white")
    assert [g["a_color"] for g in res["games"]] == ["white", "white"]
    assert [g["white"] for g in res["games"]] == ["giver", "giver"]
    for g in res["games"]:
        assert g["result"].startswith("B+") and g["winner_engine"] == "taker"   # two stones, no moves
        sgf = (out / g["sgf"]).read_text()
        assert "AB[" in sgf and sgf.count("[") >= 2
    assert json.loads((out / SETTINGS).read_text())["handicap"] == 2
    with pytest.raises(SystemExit):
        match.main(["--opponent", "gnugo", "--handicap", "12", "--size", "19", "--out", str(tmp_path / "x")])


def test_a_packed_row_resumes_where_it_stopped(tmp_path):
    """A row whose games were packed (tools.sgfpack, which keeps three
    single files) resumes with its games counted, never played again."""
    from tools import sgfpack
    out = tmp_path / "out"
    a = engine(tmp_path)
    kw = dict(referee="/nonexistent", progress=False, move_timeout=30)
    first = match.play_match(a, a, 5, 9, 6.5, str(out), 1, **kw)
    assert sgfpack.pack(str(out), keep=3) == 5
    assert not (out / "game-0005.sgf").exists()
    res = match.play_match(a, a, 6, 9, 6.5, str(out), 1, **kw)
    assert [g["index"] for g in res["games"]] == list(range(6))
    assert res["games"][:5] == first["games"]        # the same records (times included): not replayed
    assert res["games"][5]["result"] == "W+6.5"
    assert (out / "game-0005.sgf").exists() and (out / "game-0006.sgf").exists()
