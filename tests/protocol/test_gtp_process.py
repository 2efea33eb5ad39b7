"""gtp_main.py as controllers run it: a process on pipes (streaming
analysis, GoGui's interrupt, pondering, start-up, piped input, a closed
output, Ctrl-C, ``make gtp``), and the server's handling of the lines it
reads (an interrupt belongs to the command read before it).  Split from
test_gtp.py, which drives the server by text in-process."""
import os
import re
import subprocess
import threading
import time

import pytest

from engine.config import load
from tests.conftest import PY, ROOT, SMALL, cpu_seconds, sigint_default, wait_until
from tests.protocol.test_gtp import fail, make_engine, ok


class Proc:
    """gtp_main.py in a subprocess, read line by line."""

    def __init__(self, *sets):
        args = [PY, os.path.join(ROOT, "gtp_main.py"), "--log-level", "WARNING"]
        for s in SMALL + list(sets):
            args += ["--set", s]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=ROOT)
        self.lines = []
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for ln in self.p.stdout:
            with self.cv:
                self.lines.append(ln.rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.lines.append(None)
            self.cv.notify_all()

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_for(self, pred, timeout=120):
        end = time.time() + timeout
        with self.cv:
            while not pred(self.lines):
                left = end - time.time()
                assert left > 0, f"timeout; got {self.lines[-5:]}"
                self.cv.wait(left)

    def reply(self, timeout=120):
        """Pop lines up to and including the next blank line."""
        self.wait_for(lambda ls: "" in ls or None in ls, timeout)
        with self.cv:
            i = self.lines.index("") if "" in self.lines else self.lines.index(None)
            out, self.lines = self.lines[:i], self.lines[i + 1:]
        return out

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=60)
        except Exception:
            self.p.kill()


INFO_RE = re.compile(r"info move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (\d+) order (\d+) pv(( \S+)+)")


@pytest.mark.slow
def test_lz_analyze_streams_until_next_line():
    pr = Proc()
    try:
        pr.send("boardsize 9")
        pr.send("play b E5")
        assert pr.reply() == ["="] and pr.reply() == ["="]
        pr.send("7 lz-analyze w 10")
        pr.wait_for(lambda ls: sum(1 for x in ls if x and x.startswith("info")) >= 3)
        pr.send("name")
        out = pr.reply()
        assert out[0] == "=7"
        infos = out[1:]
        assert len(infos) >= 3
        for line in infos:
            assert line.startswith("info move ")
            for chunk in re.split(r"\s*(?=info move )", line):
                if chunk:
                    m = INFO_RE.fullmatch(chunk.strip())
                    assert m, chunk
                    assert 0 <= int(m.group(3)) <= 10000 and 0 <= int(m.group(4)) <= 10000
        assert pr.reply() == ["= gomcts"]          # the line that ended the stream is answered
        pr.send("analyze b interval 5 maxmoves 3")
        pr.wait_for(lambda ls: any(x and x.startswith("info") for x in ls))
        pr.send("protocol_version")                # Sabaki's abort
        out = pr.reply()
        assert out[0] == "="
        assert all(ln.count("info move") <= 3 for ln in out[1:])
        assert pr.reply() == ["= 2"]
        pr.send("lz-analyze b 10 avoid b D4")          # avoid needs COLOR VERTICES UNTIL
        assert pr.reply()[0].startswith("?")
        pr.send("lz-genmove_analyze b 5")
        out = pr.reply()
        assert out[0] == "=" and re.fullmatch(r"play ([A-HJ]\d|pass|resign)", out[-1])
        pr.send("go-param search.playouts 100000000")
        assert pr.reply() == ["="]
        pr.send("go-param search.seconds 0")
        assert pr.reply() == ["="]
        pr.send("3 genmove w\n# interrupt")       # GoGui's interrupt, on the command's heels
        out = pr.reply(timeout=120)                # 10^8 playouts would take hours
        assert out[0].startswith("=3 ")
    finally:
        pr.close()
    assert pr.p.returncode == 0


def _serve_lines(text, *sets):
    import io
    srv = make_engine(*sets)
    srv.serve(io.StringIO(text), out=io.StringIO())
    return srv


def _root_visits(srv):
    return sum(r["visits"] for r in srv.player.analyst.last_rows())


def test_an_interrupt_read_before_the_search_is_built_stops_it():
    """GoGui's '# interrupt' right behind its genmove: the reader takes it
    before the command has built its search, and the search still stops
    at once (it was cleared by the genmove it was meant for)."""
    srv = _serve_lines("boardsize 9\ngenmove b\n# interrupt\nquit\n",
                       "search.seconds=0", "search.playouts=1000000", "search.early_stop=false")
    assert _root_visits(srv) < 1000000


def test_an_interrupt_for_an_earlier_command_is_forgotten():
    """An interrupt that came before a command was read was meant for an
    earlier one: the next genmove searches its whole budget."""
    srv = _serve_lines("# interrupt\ngenmove b\nquit\n",
                       "search.seconds=0", "search.playouts=400", "search.early_stop=false")
    assert _root_visits(srv) >= 390


@pytest.mark.slow
def test_pondering_searches_between_commands():
    pr = Proc("search.playouts=20")
    try:
        for line in ("boardsize 9", "go-ponder on", "genmove b"):
            pr.send(line)
            assert pr.reply()[0].startswith("=")
        # more nodes than the 20-playout genmove made: pondering has run
        # between the commands (each report ends it, the next wait resumes it)
        def used():
            pr.send("go-memory_report")
            m = re.search(r"pool used (\d+)", "\n".join(pr.reply()))
            assert m
            return int(m.group(1))
        assert wait_until(lambda: used() > 21, 60, interval=0.5) is not None
    finally:
        pr.close()


@pytest.mark.slow
def test_name_answers_without_torch_at_start():
    """The first reply does not wait for torch: the server and the search
    never import it, only the first net evaluation does."""
    out = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py"), "--log-level", "WARNING"],
                         input="name\nquit\n", capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.stdout.startswith("= gomcts\n\n")
    code = ("import sys, gtp_main, engine.gtp.server, engine.search; "
            "print('torch' in sys.modules)")
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.stdout.strip() == "False"


def _gtp_main(*sets):
    """gtp_main.py in a subprocess on pipes, stderr kept, a search of 10^8
    playouts a move (hours: only an interrupt ends it)."""
    args = [PY, os.path.join(ROOT, "gtp_main.py"), "--log-level", "WARNING"]
    for s in SMALL + ["search.seconds=0", "search.playouts=100000000"] + list(sets):
        args += ["--set", s]
    return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=sigint_default)


@pytest.mark.slow
def test_piped_input_is_answered_at_full_strength():
    """A batch of commands piped in and closed (gtp_main.py < batch.gtp): the
    genmove read before the end of input searches its whole budget, as GNU
    Go, Pachi and Fuego answer piped commands (it ran 16 visits before)."""
    p = _gtp_main("search.playouts=3000", "search.early_stop=false")
    out, err = p.communicate("boardsize 9\n1 genmove b\n2 gomill-explain_last_move\nquit\n", timeout=120)
    assert p.returncode == 0 and "Traceback" not in err, err
    assert re.search(r"^=1 ([A-HJ]\d|pass)$", out, re.M), out
    assert re.search(r"^=2 .* playouts 3000 ", out, re.M), out


@pytest.mark.slow
def test_end_of_input_ends_an_open_analysis():
    """Only an open-ended command stops at the end of input: lz-analyze
    streams until the next line, and the end of input is one."""
    p = _gtp_main()
    out, err = p.communicate("boardsize 9\n1 lz-analyze b 10\n", timeout=300)
    assert p.returncode == 0 and "Traceback" not in err, err
    assert "\n=1\n" in out and out.endswith("\n\n"), out


@pytest.mark.slow
def test_closed_stdout_exits_quietly():
    """The controller is gone (its end of stdout closed): the first reply
    that cannot be written ends the session without a traceback."""
    p = _gtp_main()
    p.stdout.close()
    try:
        try:
            p.stdin.write("name\nboardsize 9\nprotocol_version\n")
            p.stdin.flush()
        except BrokenPipeError:                # it may be gone already
            pass
        err = p.stderr.read()                  # until it exits (stdin stays open)
        p.wait(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_bad_config_on_command_line():
    r = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py"), "--set", "search.nope=1"],
                       input="", capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 2 and "search.nope" in r.stderr and r.stdout == ""


@pytest.mark.parametrize("where", ["file", "size-table", "set", "directory"])
def test_a_bad_weights_path_says_what_and_where(tmp_path, where):
    """A weights path that is a directory says so; one set in a config file
    names that file (the top table or a size's), one given by --set does not."""
    cfg = tmp_path / "mine.toml"
    cfg.write_text({"file": '[net]\nweights = "nets/nope.pt"\n',
                    "size-table": '[size.19.net]\nweights = "nets/nope19.pt"\n',
                    "set": '[net]\nweights = "nets/nope.pt"\n',
                    "directory": "[net]\nweights = \"nets\"\n"}[where])
    extra = ["--set", "net.weights=nets/other.pt"] if where == "set" else []
    r = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py"), "--config", str(cfg)] + extra,
                       input="", capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 2 and "net.weights" in r.stderr
    if where == "directory":
        assert "a directory, not a weights file" in r.stderr
    elif where == "set":
        assert "nets/other.pt: no such file" in r.stderr and str(cfg) not in r.stderr
    else:
        assert f"(set in {cfg})" in r.stderr


@pytest.mark.slow
def test_net_device_without_gpu_is_refused():
    """net.device = cuda where torch sees no GPU: gtp_main stops with the
    key named, go-param refuses it and keeps the old value; auto is taken
    (it falls back to the CPU)."""
    import torch
    from engine import factory
    if torch.cuda.is_available():
        assert factory.net_device(load(None, ["net.device=cuda"])) == "cuda"
        return
    r = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py"), "--set", "net.device=cuda"],
                       input="", capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 2 and "net.device" in r.stderr and "no CUDA device" in r.stderr
    eng = make_engine()
    assert "net.device" in fail(eng, "go-param net.device cuda")
    assert eng.cfg.net.device == "cpu"
    ok(eng, "go-param net.device auto")
    assert eng.cfg.net.device == "auto" and factory.net_device(eng.cfg) == "cpu"


@pytest.mark.slow
def test_ctrl_c_ends_gtp_main_with_one_line():
    """Ctrl-C at a terminal during a search: exit code 130 and one line on
    stderr, no traceback (it printed 15 lines of KeyboardInterrupt)."""
    import signal
    p = _gtp_main()
    try:
        p.stdin.write("boardsize 9\n")
        p.stdin.flush()
        assert p.stdout.readline().strip() == "=" and p.stdout.readline().strip() == ""   # serving
        base = cpu_seconds(p.pid)
        p.stdin.write("1 genmove b\n")
        p.stdin.flush()
        # the 10^8-playout search is running once it has used CPU time of its own
        assert wait_until(lambda: cpu_seconds(p.pid) >= base + 0.5, 120) is not None
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "gtp_main: interrupted", err


@pytest.mark.slow
def test_make_gtp_writes_only_gtp_on_stdout():
    """``make gtp`` is what README tells users to start: its stdout is the
    GTP channel, so make's own lines (the build's recipe) go elsewhere."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    r = subprocess.run(["make", "gtp", "CONFIG=configs/default.toml"], input="name\nprotocol_version\nquit\n",
                       capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)   # as from a shell
    assert r.returncode == 0, r.stderr
    assert r.stdout == "= gomcts\n\n= 2\n\n=\n\n", r.stdout
