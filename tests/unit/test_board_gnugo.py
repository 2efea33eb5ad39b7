"""board_ext agrees with GNU Go 3.8 (a real engine over GTP)."""
import pytest

from board_ext.board import handicap_points
from tools.gtp_client import GNUGO, GtpClient
from tests.gnugo_diff import check_game

pytestmark = pytest.mark.gnugo


@pytest.fixture(scope="module")
def gnugo():
    with GtpClient(f"{GNUGO} --mode gtp --chinese-rules", timeout=60) as g:
        yield g


@pytest.mark.slow
@pytest.mark.parametrize("size", [9, 13, 19])
def test_random_games_agree(gnugo, size):
    games = {9: 16, 13: 8, 19: 6}[size]
    total = 0
    for seed in range(games):
        moves, _ = check_game(gnugo, size, 1000 * size + seed)
        total += moves
    assert total > games * size * size // 2


def test_small_boards_agree(gnugo):
    # ko and capture-heavy: tiny boards cycle fast
    for size in (5, 7):
        for seed in range(6):
            check_game(gnugo, size, seed, max_moves=120)


def test_fixed_handicap_matches_gnugo(gnugo):
    from engine import coords
    for size in range(7, 20):
        gnugo.send(f"boardsize {size}")
        maxh = 9 if size % 2 and size > 7 else 4
        for n in range(2, maxh + 1):
            gnugo.send("clear_board")
            theirs = sorted(coords.from_gtp(v, size) for v in gnugo.send(f"fixed_handicap {n}").split())
            assert theirs == sorted(handicap_points(size, n)), (size, n)
