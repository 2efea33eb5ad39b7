"""Runs the Sabaki client test (tests/clients/sabaki, node's built-in test
runner driving gtp_main.py through @sabaki/gtp) from pytest."""
import os
import shutil
import subprocess

import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sabaki")


@pytest.mark.node
@pytest.mark.slow
def test_sabaki_client():
    if not os.path.isdir(os.path.join(HERE, "node_modules", "@sabaki", "gtp")):
        npm = shutil.which("npm")
        assert npm, "node_modules missing and no npm: run `make node-deps`"
        r = subprocess.run([npm, "ci", "--silent", "--no-audit", "--no-fund"], cwd=HERE,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["node", "--test"], cwd=HERE, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "# pass 1" in r.stdout and "# fail 0" in r.stdout
