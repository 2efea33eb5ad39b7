"""How far a newcomer walks to follow a genmove (bench/walk_files.py): the
Python files it enters from the GTP layer to the search and back."""
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import walk_files  # noqa: E402

from engine.config import load  # noqa: E402
from engine.gtp.server import GtpServer  # noqa: E402

# a genmove in a game under way: the three GTP files, the Player, its game,
# clock, coordinates and pass decision (engine/endgame.py), the search, its
# tree policy and NetAsk, the net's two files; 16 at fe568ae
GENMOVE_FILES = 13


def entered(command, setup):
    cfg = load(None, ["search.seconds=0", "search.playouts=50", "search.threads=1"])
    srv = GtpServer(cfg, out=io.StringIO())
    for line in setup:
        srv.respond(line)
    return sorted(walk_files.walk(srv, command))


def test_a_genmove_enters_no_analyst_scoring_rule_slot_or_config():
    files = entered("genmove w", ("boardsize 9", "clear_board", "genmove b"))
    assert "engine/search.py" in files and "engine/player.py" in files   # the walk is seen at all
    assert len(files) <= GENMOVE_FILES, files
    for gone in ("engine/config.py", "engine/analyst.py", "engine/scoring.py", "engine/searchslot.py"):
        assert gone not in files

