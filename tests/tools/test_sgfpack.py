"""tools.sgfpack: a row's games as one compressed SGF collection and back."""
import os

import pytest
from sgfmill import sgf

from tools import sgfpack

GAME = "(;FF[4]GM[1]SZ[9]KM[7]RE[B+3.5]C[a (bracket\\] and a paren)];B[ee];W[cc])"


def test_pack_and_unpack_give_the_same_files(tmp_path):
    for i in range(5):
        (tmp_path / f"game-{i:04d}.sgf").write_text(GAME.replace("ee", "eedfgh"[i:i + 2]) + "\n")
    before = {p.name: p.read_text() for p in tmp_path.iterdir()}
    (tmp_path / "results.json").write_text("{}")
    assert sgfpack.pack(str(tmp_path), keep=2) == 5
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["game-0000.sgf", "game-0001.sgf", "games.names", "games.sgf.xz", "results.json"]
    assert sgfpack.unpack(str(tmp_path)) == 5
    assert {p.name: p.read_text() for p in tmp_path.glob("*.sgf")} == before


def test_the_collection_reads_as_sgf_games(tmp_path):
    import lzma
    for i in range(3):
        (tmp_path / f"g{i}.sgf").write_text(GAME)
    sgfpack.pack(str(tmp_path), keep=0)
    text = lzma.decompress((tmp_path / "games.sgf.xz").read_bytes()).decode()
    games = sgfpack.split_collection(text)
    assert len(games) == 3
    assert all(sgf.Sgf_game.from_string(g).get_winner() == "b" for g in games)


def test_a_mismatched_index_is_named(tmp_path):
    (tmp_path / "g.sgf").write_text(GAME)
    sgfpack.pack(str(tmp_path), keep=0)
    (tmp_path / "games.names").write_text("g.sgf\nh.sgf\n")
    with pytest.raises(ValueError, match="1 games in games.sgf.xz, 2 names"):
        sgfpack.unpack(str(tmp_path))


def test_results_hold_collections_not_thousands_of_files():
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "results")
    n = sum(f.endswith(".sgf") for _, _, fs in os.walk(root) for f in fs)
    assert n <= 100, f"{n} single SGF files under docs/results: pack rows with tools.sgfpack"
