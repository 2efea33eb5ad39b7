"""A search dies with its client: a real client process starts the engine
on pipes, sets it searching (a 60 s genmove over GTP, a 10,000,000-visit
query without partial results over JSON), and is killed or closes its ends
of the pipes, or (``shell``) started it through a shell that stays and
kills only the shell, keeping the pipes open (KaTrain's restart of a
custom engine command); the engine process goes.  Nothing here waits a fixed time:
the test sees the engine searching by its CPU time, and waits for it to
go under a deadline (60 s) far above what it takes (about a second on an
idle machine, printed with -s), so a busy machine slows the test and
does not fail it."""
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import PY, ROOT, alive, cpu_seconds, wait_until

pytestmark = pytest.mark.slow

CLIENT = r'''
import json, os, shlex, signal, subprocess, sys, time
mode, kind = sys.argv[1], sys.argv[2]
engine = sys.argv[3:]
if mode == "shell":       # as KaTrain starts a custom command: through a shell that stays (no exec)
    engine = ["/bin/sh", "-c", " ".join(shlex.quote(a) for a in engine) + "; exit $?"]
p = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                     text=True, bufsize=1)
if kind == "gtp":
    p.stdin.write("name\n"); p.stdin.flush()
    while p.stdout.readline().strip() == "":
        pass
    p.stdout.readline()
    p.stdin.write("genmove b\n"); p.stdin.flush()
else:
    p.stdin.write(json.dumps({"id": "v", "action": "query_version"}) + "\n"); p.stdin.flush()
    p.stdout.readline()
    q = {"id": "q", "moves": [], "rules": "chinese", "komi": 7, "boardXSize": 9, "boardYSize": 9,
         "maxVisits": 10000000}
    p.stdin.write(json.dumps(q) + "\n"); p.stdin.flush()
pid = p.pid
if mode == "shell":                     # the engine is the shell's child
    with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
        pid = int(f.read().split()[0])
print(pid, flush=True)                  # the test watches it start searching
sys.stdin.readline()                    # the test has seen the engine running
if mode == "close":
    p.stdin.close()
    p.stdout.close()
if mode == "shell":                     # KaTrain's restart kills the shell; the client lives on, pipes open
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
time.sleep(600)
'''


def _engine(kind):
    cmd = [PY, os.path.join(ROOT, "gtp_main.py")] + (["analysis"] if kind == "json" else [])
    return cmd + ["--config", os.path.join(ROOT, "configs", "9x9.toml"), "--log-level", "WARNING",
                  "--set", "search.seconds=60", "--set", "search.playouts=100000000", "--set", "player.book=false"]


@pytest.mark.parametrize("kind", ["gtp", "json"])
@pytest.mark.parametrize("mode", ["kill", "close", "shell"])
def test_the_engine_leaves_with_its_client(tmp_path, kind, mode):
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    client = subprocess.Popen([sys.executable, str(script), mode, kind] + _engine(kind),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    pid = None
    try:
        pid = int(client.stdout.readline())
        assert alive(pid)
        # searching: the engine has answered its first line, so its CPU time
        # from here on is the search's
        base = cpu_seconds(pid)
        assert wait_until(lambda: cpu_seconds(pid) >= base + 0.5, 120) is not None, "the engine never searched"
        assert alive(pid), "the engine ended before its client went away"
        client.stdin.write("go\n")
        client.stdin.flush()
        if mode == "kill":
            client.send_signal(signal.SIGKILL)
            client.wait()
        took = wait_until(lambda: not alive(pid), 60)
        assert took is not None, f"the engine ({kind}) still runs 60 s after its client went away ({mode})"
        print(f"engine ({kind}, {mode}) gone {took:.2f} s after its client")
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        if pid and alive(pid):
            os.kill(pid, signal.SIGKILL)
