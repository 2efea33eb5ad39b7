"""tools.paper_queue: the queue file read in order, each entry's games
counted from what is on disk (so a restarted queue skips what is done)."""
import json

import pytest

from tools import paper_queue


def test_entries_and_what_each_has_left(tmp_path, monkeypatch):
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    (tmp_path / "configs" / "paper").mkdir(parents=True)
    exp = tmp_path / "configs" / "paper" / "t.toml"
    exp.write_text('name = "t"\nsize = 5\nkomi = 0.5\ngames = 3\nworkers = 1\ncommon = []\nbaseline = []\n'
                   '[[variant]]\nseries = "a"\nx = 1\nsets = []\n[[variant]]\nseries = "b"\nx = 2\nsets = []\n')
    q = tmp_path / "queue.txt"
    q.write_text("# the runs\nconfigs/paper/t.toml --x 2   # one variant\n"
                 "match --games 4 --out runs/m\n")
    got = paper_queue.entries(str(q))
    assert got == [("configs/paper/t.toml", ["--x", "2"]), ("match", ["--games", "4", "--out", "runs/m"])]
    from tools import experiment
    monkeypatch.setattr(experiment, "HERE", str(tmp_path))
    assert paper_queue.pending(*got[0]) == (3, 3)
    d = tmp_path / "runs" / "paper" / "t" / "b-2"            # made by the count above
    (d / "game-0001.json").write_text(json.dumps({"variant_won": 1.0, "moves": [], "seconds": 1.0}))
    assert paper_queue.pending(*got[0]) == (2, 3)
    assert paper_queue.pending(*got[1]) == (4, 4)
    (tmp_path / "runs" / "m").mkdir(parents=True)
    (tmp_path / "runs" / "m" / "results.json").write_text(json.dumps({"games": [{}, {}, {}]}))
    assert paper_queue.pending(*got[1]) == (1, 4)


@pytest.mark.parametrize("line, why", [("configs/paper/missing.toml", "no experiment file"),
                                       ("run python -m tools.x", "run needs --done PATH")])
def test_a_bad_queue_line_is_refused_by_its_number(tmp_path, monkeypatch, line, why):
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    q = tmp_path / "queue.txt"
    q.write_text("# the runs\n" + line + "\n")
    with pytest.raises(SystemExit, match=f":2: {why}"):
        paper_queue.entries(str(q))


def test_run_entries_are_done_once_their_path_exists_and_read_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    q = tmp_path / "queue.txt"
    q.write_text('run --done out/net.pt python -m tools.x --teacher "$KG6 -x" --workers {workers}\n')
    (config, opts), = paper_queue.entries(str(q))
    assert config == "run" and paper_queue.pending(config, opts) == (1, 1)
    monkeypatch.delenv("KG6", raising=False)
    with pytest.raises(ValueError, match=r"no \$KG6"):
        paper_queue.run_cmd(opts, 2)
    monkeypatch.setenv("KG6", "katago analysis -model m.bin.gz")
    cmd = paper_queue.run_cmd(opts, 3)
    assert cmd[1:] == ["-m", "tools.x", "--teacher", "katago analysis -model m.bin.gz -x", "--workers", "3"]
    assert cmd[0] == paper_queue.sys.executable
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "net.pt").write_bytes(b"x")
    assert paper_queue.pending(config, opts) == (0, 1)


def test_the_queue_reads_its_file_again_after_every_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    q = tmp_path / "queue.txt"
    q.write_text("run --done a.txt python -c 'open(\"a.txt\", \"w\").write(\"a\")'\n")
    ran = []

    def call(cmd, cwd):
        ran.append(cmd[2])
        if len(ran) == 1:       # the first entry adds a second line while it runs
            q.write_text(q.read_text() + "run --done b.txt python -c 'open(\"b.txt\", \"w\")'\n")
        return 0
    monkeypatch.setattr(paper_queue.subprocess, "call", call)
    assert paper_queue.main(["--queue", str(q)]) == 0
    assert ran == ["open(\"a.txt\", \"w\").write(\"a\")", "open(\"b.txt\", \"w\")"]


def test_fixed_only_leaves_the_equal_clock_matches_for_quiet_cores(tmp_path, monkeypatch):
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    q = tmp_path / "queue.txt"
    (tmp_path / "configs" / "paper").mkdir(parents=True)
    (tmp_path / "configs" / "paper" / "t.toml").write_text(
        'name = "t"\nsize = 5\nkomi = 0.5\ngames = 1\nworkers = 1\ncommon = []\nbaseline = []\n'
        '[[variant]]\nseries = "sims"\nx = 1\nsets = []\n'
        '[[variant]]\nseries = "clock"\nx = 2\nseconds = 0.5\nsets = []\n')
    q.write_text("match --engine a --opponent b --games 2 --time 30 --out runs/clock\n"
                 "match --engine a --opponent b --games 2 --out runs/fixed\n"
                 "run --done c.txt python -c pass\n")
    assert [paper_queue.timed("configs/paper/t.toml", o) for o in ([], ["--x", "1"], ["--only", "sims"])] == \
        [True, False, False]
    ran = []
    monkeypatch.setattr(paper_queue.subprocess, "call", lambda cmd, cwd: ran.append(cmd[1:]) or 0)
    assert paper_queue.main(["--queue", str(q), "--fixed-only", "--workers", "1"]) == 0
    assert [c[c.index("--out") + 1] if "--out" in c else c[-1] for c in ran] == ["runs/fixed", "pass"]
    ran.clear()
    assert paper_queue.main(["--queue", str(q), "--workers", "1"]) == 0
    assert len(ran) == 3 and "runs/clock" in ran[0]


def test_an_equal_clock_holds_the_cores_and_the_fixed_queue_waits_for_it(tmp_path, monkeypatch):
    """The queue that plays an equal clock holds runs/quiet-cores while it
    plays; the --fixed-only queue's matches are told to wait on it, and a
    file left by a dead process holds nothing."""
    from tools import quiet
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    q = tmp_path / "queue.txt"
    q.write_text("match --games 2 --time 30 --out runs/clock\nmatch --games 2 --out runs/fixed\n")
    path = tmp_path / "runs" / "quiet-cores"
    held = []
    monkeypatch.setattr(paper_queue.subprocess, "call",
                        lambda cmd, cwd: held.append((cmd, quiet.busy(str(path)))) or 0)
    assert paper_queue.main(["--queue", str(q), "--workers", "1"]) == 0
    assert [h for _, h in held] == [True, False] and not path.exists()
    assert all("--wait-while" not in c for c, _ in held)
    held.clear()
    assert paper_queue.main(["--queue", str(q), "--workers", "1", "--fixed-only"]) == 0
    (cmd, _), = held
    assert cmd[cmd.index("--wait-while") + 1] == str(path)
    # the teacher's self-play waits between chunks as a match between games; other runs are not told
    q.write_text("run --done a.txt python -m tools.teacher_play --size 9\nrun --done b.txt python -m nets.train\n")
    held.clear()
    assert paper_queue.main(["--queue", str(q), "--workers", "1", "--fixed-only"]) == 0
    (play, _), (train, _) = held
    assert play[play.index("--wait-while") + 1] == str(path) and "--wait-while" not in train
    import subprocess
    dead = subprocess.Popen(["true"])
    dead.wait()
    path.write_text(f"{dead.pid} gone\n")
    assert not quiet.busy(str(path))


def test_a_match_starts_no_game_while_the_cores_are_held(tmp_path, monkeypatch):
    import os
    from tools import match, quiet
    path = tmp_path / "quiet-cores"
    path.write_text(f"{os.getpid()} an equal clock\n")      # a live process holds the cores
    events = []

    def sleep(s):
        events.append("wait")
        if len(events) == 3:
            path.unlink()                    # the equal clock is over
    monkeypatch.setattr(quiet.time, "sleep", sleep)

    def fake_game(i, *a, **kw):
        events.append(f"game {i}")
        raise RuntimeError("one game is enough to see when it began")
    monkeypatch.setattr(match, "_one_game", fake_game)
    with pytest.raises(RuntimeError, match="one game"):
        match.play_match("a", "b", 1, 9, 7.0, str(tmp_path / "m"), progress=False, wait_while=str(path))
    assert events == ["wait", "wait", "wait", "game 0"]


def test_a_fresh_machine_resumes_a_match_from_its_published_row(tmp_path, monkeypatch):
    """runs/ does not outlive a machine: a match whose --out folder is gone
    is counted from, and resumed from, its row under records/games/."""
    monkeypatch.setattr(paper_queue, "HERE", str(tmp_path))
    row = tmp_path / "records" / "games" / "mmcts" / "m-2min"
    row.mkdir(parents=True)
    (row / "results.json").write_text(json.dumps({"games": [{}, {}, {}]}))
    (row / "games.sgf.xz").write_bytes(b"packed")
    (row / "games.names").write_text("game-0001.sgf\n")
    opts = ["--games", "5", "--time", "120", "--out", "runs/match/m-2min"]
    assert paper_queue.pending("match", opts) == (2, 5)
    out = tmp_path / "runs" / "match" / "m-2min"
    assert sorted(p.name for p in out.iterdir()) == ["games.names", "games.sgf.xz", "results.json"]
    (out / "results.json").write_text(json.dumps({"games": [{}, {}, {}, {}]}))   # played on: kept
    assert paper_queue.pending("match", opts) == (1, 5)
    assert paper_queue.pending("match", ["--games", "5", "--out", "runs/match/other"]) == (5, 5)
    assert not (tmp_path / "runs" / "match" / "other").exists()


def test_sigterm_stops_the_queue_and_the_entry_under_way(tmp_path):
    """make queues-stop: SIGTERM to a queue stops it and every process its
    entry started (here a child that started one of its own), so that no
    game of an old build plays on after it."""
    import os
    import signal
    import subprocess
    import sys
    from tests.conftest import ROOT, alive, wait_until
    q = tmp_path / "queue.txt"
    pidfile = tmp_path / "grandchild.pid"
    # the entry: a child that starts a grandchild, says its pid, and both run until stopped
    script = ("import subprocess, sys, time; "
              "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
              f"open({str(pidfile)!r} + '.tmp', 'w').write(str(p.pid)); "
              f"__import__('os').replace({str(pidfile)!r} + '.tmp', {str(pidfile)!r}); time.sleep(600)")
    q.write_text(f"run --done never.txt python -c {json.dumps(script)}\n")
    queue = subprocess.Popen([sys.executable, "-m", "tools.paper_queue", "--queue", str(q)], cwd=ROOT,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: pidfile.exists() or queue.poll() is not None, 120) is not None, \
            "the entry never started"
        assert queue.poll() is None, queue.stderr.read()
        grandchild = int(pidfile.read_text())
        assert grandchild in paper_queue.descendants(queue.pid)
        queue.send_signal(signal.SIGTERM)
        assert queue.wait(timeout=120) == 128 + signal.SIGTERM
        assert "stopped (SIGTERM)" in queue.stderr.read()
        assert wait_until(lambda: not alive(grandchild), 120) is not None, \
            "the entry's own child outlived the queue"
    finally:
        if queue.poll() is None:
            queue.kill()


def test_a_second_queue_on_the_same_file_says_who_runs_it_and_exits(tmp_path):
    """A second `make queues` would play every game of the first twice: a
    queue started on a file that another queue runs names that process and
    exits; another file runs beside it, and the file is free again once
    the first queue has stopped."""
    import signal
    import subprocess
    import sys
    from tests.conftest import ROOT, wait_until
    q, other = tmp_path / "queue.txt", tmp_path / "other.txt"
    started = tmp_path / "started"
    q.write_text(f"run --done never.txt python -c {json.dumps(f'open({str(started)!r}, {chr(39)}w{chr(39)}); __import__({chr(39)}time{chr(39)}).sleep(600)')}\n")
    other.write_text("# nothing to run\n")
    cmd = [sys.executable, "-m", "tools.paper_queue", "--queue"]
    first = subprocess.Popen(cmd + [str(q)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: started.exists() or first.poll() is not None, 120) is not None
        assert first.poll() is None, first.stderr.read()
        second = subprocess.run(cmd + [str(q)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert second.returncode == 3
        assert f"already runs in process {first.pid}" in second.stderr
        beside = subprocess.run(cmd + [str(other)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert beside.returncode == 0, beside.stderr
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=120) == 128 + signal.SIGTERM
        q.write_text("# done\n")
        third = subprocess.run(cmd + [str(q)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert third.returncode == 0, third.stderr
    finally:
        if first.poll() is None:
            first.kill()
