"""gomill's ringmaster on Python 3 (tools/ringmaster_py3.py, installed by
``make ringmaster`` into .venv/bin): a real playoff against GNU Go, read
back from ringmaster's own report."""
import os
import re
import subprocess
import sys

import pytest

from tools import ringmaster_py3 as rp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RINGMASTER = os.path.join(os.path.dirname(sys.executable), "ringmaster")

CTL = """
competition_type = 'playoff'
record_games = True
stderr_to_log = True
board_size = 9
komi = 7.0
players = {{
    'gomcts': Player('{python} gtp_main.py --config configs/9x9.toml --set search.seconds=0 '
                     '--set search.playouts=150 --set search.threads=1', cwd='{root}',
                     is_reliable_scorer=False),
    'gnugo': Player('/usr/games/gnugo --mode gtp --chinese-rules --level 0', is_reliable_scorer=True),
}}
matchups = [Matchup('gomcts', 'gnugo', alternating=True, scorer='players',
                    number_of_games=2, move_limit=300)]
"""


def ringmaster(*args, cwd):
    assert os.path.exists(RINGMASTER), f"{RINGMASTER} is missing: `make ringmaster` installs it"
    return subprocess.run([RINGMASTER, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.gnugo
@pytest.mark.slow
def test_a_two_game_playoff_against_gnugo(tmp_path):
    ctl = tmp_path / "vs-gnugo.ctl"
    ctl.write_text(CTL.format(python=sys.executable, root=ROOT))
    r = ringmaster("vs-gnugo.ctl", "run", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = ringmaster("vs-gnugo.ctl", "show", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "gomcts v gnugo (2/2 games)" in r.stdout
    rows = {m.group(1): [float(x) for x in m.group(2, 3, 4)]      # wins: all, as black, as white
            for m in re.finditer(r"^(gomcts|gnugo)\s+([\d.]+)\s+\S+\s+([\d.]+)\s+\S+\s+([\d.]+)\s", r.stdout, re.M)}
    assert sum(r[0] for r in rows.values()) == 2, r.stdout         # two decided games (a jigo halves), none void
    for all_, b, w in rows.values():
        assert b + w == all_ and b <= 1 and w <= 1, r.stdout       # one game a colour each
    games = sorted(os.listdir(tmp_path / "vs-gnugo.games"))
    assert games == ["0_0.sgf", "0_1.sgf"]
    from gomill import sgf                                         # the ported package reads its records
    for g in games:
        game = sgf.Sgf_game.from_string((tmp_path / "vs-gnugo.games" / g).read_text())
        assert game.get_size() == 9 and game.get_komi() == 7.0
        assert game.get_winner() in ("b", "w", None)
        moves = [n.get_move() for n in game.get_main_sequence()[1:]]
        assert len(moves) >= 20 and all(c in ("b", "w") for c, _ in moves)   # a played game, not a stub
    # ringmaster asked gomill-describe_engine: the record holds our settings
    assert "search.playouts = 150" in (tmp_path / "vs-gnugo.games" / "0_0.sgf").read_text()
    report = (tmp_path / "vs-gnugo.report").read_text()
    assert "gomcts" in report and "gnugo" in report
    # a rerun resumes: the playoff is complete, so nothing more is played
    r = ringmaster("vs-gnugo.ctl", "run", cwd=tmp_path)
    assert r.returncode == 0 and sorted(os.listdir(tmp_path / "vs-gnugo.games")) == games


def test_a_patch_that_no_longer_matches_stops_the_install(tmp_path, capsys):
    (tmp_path / "gomill").mkdir()
    (tmp_path / "gomill" / "x.py").write_text("a = 1\na = 1\n")
    with pytest.raises(SystemExit):
        rp.apply_patches(str(tmp_path), [("gomill/x.py", "a = 1", "a = 2")])
    assert "gomill/x.py" in capsys.readouterr().err
    rp.apply_patches(str(tmp_path), [("gomill/x.py", "a = 1", "a = 2", 2)])
    assert (tmp_path / "gomill" / "x.py").read_text() == "a = 2\na = 2\n"


def test_a_wrong_sdist_is_refused(tmp_path, capsys):
    bad = tmp_path / rp.SDIST
    bad.write_bytes(b"not gomill")
    with pytest.raises(SystemExit):
        rp.main(["--prefix", str(tmp_path / "env"), "--sdist", str(bad)])
    assert "sha256" in capsys.readouterr().err
    assert not (tmp_path / "env").exists()


def test_a_jigo_counts_half_in_the_colour_it_was_played_with():
    """gomill 0.8.3 added half a win for a jigo to each player in both
    colours (a 150% row); the port's patch counts it where it was played."""
    from gomill import gtp_games, tournament_results
    results = []
    for (b, w), winner in ((("a", "b"), None), (("b", "a"), "w")):    # a jigo; then a wins as White
        r = gtp_games.Game_result()
        r._set_winning_colour(winner)
        if winner is None:
            r._set_jigo()
        r.set_players({"b": b, "w": w})
        results.append(r)
    m = tournament_results.Matchup_stats(results, "a", "b")
    m.calculate_colour_breakdown()
    assert (m.wins_1, m.wins_1b, m.wins_1w) == (1.5, 0.5, 1.0)
    assert (m.wins_2, m.wins_2b, m.wins_2w) == (0.5, 0.0, 0.5)
    assert (m.wins_b, m.wins_w) == (0.5, 1.5)


@pytest.mark.parametrize("ctl", ["ringmaster-vs-gnugo.ctl", "ringmaster-vs-fuego.ctl"])
def test_the_shipped_control_files_load_in_ringmaster(tmp_path, ctl):
    """The real ringmaster reads the shipped control files (a copy, so no
    run files land in configs/): its complaint is only that nothing ran yet."""
    (tmp_path / ctl).write_text(open(os.path.join(ROOT, "configs", ctl)).read())
    r = ringmaster(ctl, "show", cwd=tmp_path)
    assert "error in control file" not in r.stderr, r.stderr
    assert "no status file" in r.stderr + r.stdout
