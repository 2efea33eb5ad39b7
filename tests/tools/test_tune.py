"""tools.tune: SPSA over engine knobs, resumable."""
import json

from tools import tune


def test_spsa_moves_toward_the_knob_that_wins_and_resumes(tmp_path, monkeypatch):
    """A knob whose larger value always wins climbs; a rerun resumes after
    the last logged iteration instead of starting again."""
    def game(sets_black, sets_white, size, komi, seed):
        val = {s.split("=")[0]: float(s.split("=")[1]) for s in sets_black + sets_white
               if s.startswith("rave.rave_equiv=")}
        b = [float(s.split("=")[1]) for s in sets_black if s.startswith("rave.rave_equiv=")][-1]
        w = [float(s.split("=")[1]) for s in sets_white if s.startswith("rave.rave_equiv=")][-1]
        assert val
        return "black" if b > w else "white"
    monkeypatch.setattr(tune, "_game", game)
    out = tmp_path / "t"
    args = ["--size", "5", "--knob", "rave.rave_equiv=500:5000", "--iterations", "6", "--pairs", "1",
            "--a", "0.2", "--c", "0.1", "--out", str(out)]
    assert tune.main(args[:-4] + ["--iterations", "3", "--out", str(out)]) == 0
    first = [json.loads(ln) for ln in (out / "log.jsonl").read_text().splitlines()]
    assert [r["k"] for r in first] == [0, 1, 2] and all(r["result"] == 1.0 * r["delta"][0] for r in first)
    assert tune.main(args) == 0
    log = [json.loads(ln) for ln in (out / "log.jsonl").read_text().splitlines()]
    assert [r["k"] for r in log] == list(range(6))
    start = (3000 - 500) / 4500
    assert log[-1]["theta"][0] > start and log[-1]["values"]["rave.rave_equiv"] <= 5000
    assert json.loads((out / "theta.json").read_text())["rave.rave_equiv"] == log[-1]["values"]["rave.rave_equiv"]


def test_a_bad_knob_is_named(capsys):
    import pytest
    with pytest.raises(SystemExit):
        tune.main(["--knob", "tree.nosuch=0:1", "--out", "/tmp/unused-tune"])
    assert "tree.nosuch" in capsys.readouterr().err


def test_an_integer_knob_is_played_rounded(tmp_path, monkeypatch):
    seen = []

    def game(sets_black, sets_white, size, komi, seed):
        seen.extend(s for s in sets_black + sets_white if s.startswith("rave.expand_visits="))
        return "black"
    monkeypatch.setattr(tune, "_game", game)
    assert tune.main(["--knob", "rave.expand_visits=1:16", "--iterations", "2", "--out", str(tmp_path / "t")]) == 0
    assert seen and all(s.split("=")[1].isdigit() for s in seen)
