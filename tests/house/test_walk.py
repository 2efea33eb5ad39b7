"""How far a newcomer walks to follow a genmove, and boardsize to its net
(bench/walk_files.py): the Python files each enters from the GTP layer on."""
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
# boardsize to the loaded net: the three GTP files, the Player, its game and
# clock, the config of the size, the factory (the nets by size, the search's
# slot and how each is built), the net's two files, the search, its tree
# policy and NetAsk; 15 at fe568ae
BOARDSIZE_FILES = 13


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
    for gone in ("engine/config.py", "engine/analyst.py", "engine/scoring.py", "engine/factory.py"):
        assert gone not in files


def test_boardsize_reaches_the_loaded_net_in_few_files():
    files = entered("boardsize 19", ("boardsize 9", "clear_board", "genmove b"))
    assert "nets/evaluator.py" in files and "engine/factory.py" in files    # the net is loaded in the walk
    assert len(files) <= BOARDSIZE_FILES, files

