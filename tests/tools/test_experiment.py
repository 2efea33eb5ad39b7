"""Experiment reports: rows from game records, and stored tallies for
variants whose games are not under the out directory."""
import gzip
import json
import os
import re

import pytest

from engine import config as config_mod
from tools import experiment


def _exp():
    return {"name": "t", "size": 9, "komi": 7.0, "common": [], "baseline": [],
            "variant": [{"series": "a", "x": 1, "sets": ["search.playouts=10"]},
                        {"series": "b", "x": 1, "sets": ["search.playouts=20"]}]}


def test_collect_uses_records_then_stored_tallies(tmp_path):
    exp = _exp()
    d = tmp_path / "a-1"
    d.mkdir()
    for i, won in enumerate([1.0, 0.0, 0.5, 1.0]):
        (d / f"game-{i + 1:04d}.json").write_text(json.dumps(
            {"variant_won": won, "moves": [0] * 10, "seconds": 2.0}))
    stored = {"a-1": {"games": 99, "wins": 1, "moves": 1, "seconds": 1},
              "b-1": {"games": 163, "wins": 72, "moves": 96, "seconds": 8.9}}
    rows = {r["label"]: r for r in experiment.collect(exp, str(tmp_path), stored)}
    # records on disk win over a stored tally
    assert rows["a-1"]["games"] == 4 and rows["a-1"]["wins"] == 2.5 and not rows["a-1"]["stored"]
    assert rows["a-1"]["moves"] == 10
    # a variant with no records keeps its stored tally, marked
    assert rows["b-1"]["games"] == 163 and rows["b-1"]["stored"]
    assert abs(rows["b-1"]["winrate"] - 72 / 163) < 1e-12
    assert rows["b-1"]["lo"] < rows["b-1"]["winrate"] < rows["b-1"]["hi"]
    # with nothing stored it is simply not run
    rows = {r["label"]: r for r in experiment.collect(exp, str(tmp_path))}
    assert rows["b-1"]["games"] == 0


def test_game_record_counts_net_passes_and_memory():
    """play_game records each side's net forward passes (its evaluator's
    cache misses, the cache cleared at the start of the game) and the
    memory side's memory counters."""
    common = ["prior.evaluator=net", "search.playouts=6", "search.early_stop=false",
              "search.rollout=random", "prior.dcnn_nodes=all"]
    rec = experiment.play_game(common + ["memory.enabled=true", "memory.M=5"], common, 9, 7.0, seed=3)
    for side in ("black", "white"):
        assert 0 < rec[f"net_{side}"] <= rec[f"sims_{side}"] + len(rec["moves"])
    assert rec["memory_black"]["entries"] > 0 and rec["memory_black"]["candidates"] >= 0
    assert "memory_white" not in rec


def test_each_side_has_its_own_evaluator():
    """A shared evaluator cache would give one side the net passes the
    other paid for; each colour gets its own evaluator in a worker."""
    a, _ = experiment.make_engine(["prior.evaluator=net"], 9, side=1)
    b, _ = experiment.make_engine(["prior.evaluator=net"], 9, side=2)
    a2, _ = experiment.make_engine(["prior.evaluator=net", "search.seed=9"], 9, side=1)
    a, b, a2 = (e.search().evaluator for e in (a, b, a2))
    assert a is not None and b is not None
    assert a is not b
    assert a2 is a                              # loaded once per side and process


def test_every_shipped_experiment_loads_and_a_bad_key_is_named(tmp_path):
    """Each file under configs/paper/ passes load(), which checks its keys
    and every variant's settings on both sides; a misspelt setting in a
    variant fails there with the key named."""
    import glob

    files = sorted(glob.glob(os.path.join(experiment.HERE, "configs", "paper", "*.toml")))
    assert len(files) >= 10
    for f in files:
        exp = experiment.load(f)
        assert exp["variant"] and exp["size"] in (9, 13, 19), f
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "b"\nsize = 9\n[[variant]]\nseries = "s"\nx = 1\nsets = ["bhrf.epsilom=0.5"]\n')
    with pytest.raises(Exception, match="epsilom"):
        experiment.load(str(bad))


def _experiment_file(tmp_path, body):
    """An experiment file e.toml (name "e", 9x9) with body after its first
    lines, and what experiment.load makes of it."""
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nsize = 9\n' + body)
    return f, experiment.load(str(f))


def _pending_by_variant(exp, out):
    """The pending games of each variant (by its directory's name) as
    (index, seconds per move, record file name)."""
    by_variant = {}
    for path, _, _, _, _, index, seconds, _ in experiment.pending_jobs(exp, str(out)):
        by_variant.setdefault(path.split("/")[-2], []).append((index, seconds, os.path.basename(path)))
    return by_variant


def test_variant_seconds_override_and_bad_seconds_named(tmp_path):
    """A variant's own seconds per move overrides the experiment's for its
    games only; a seconds value that cannot be a time fails at load with
    the key and the variant named."""
    f, exp = _experiment_file(tmp_path, 'seconds = 0.2\ngames = 3\n'
                              '[[variant]]\nseries = "slow"\nx = 0.2\nsets = ["search.playouts=10"]\n'
                              '[[variant]]\nseries = "fast"\nx = 0.1\nseconds = 0.1\n'
                              'sets = ["search.playouts=10"]\n')
    (tmp_path / "out" / "fast-0.1").mkdir(parents=True)
    (tmp_path / "out" / "fast-0.1" / "game-0002.json").write_text("{}")
    by_variant = _pending_by_variant(exp, tmp_path / "out")
    assert [(i, t) for i, t, _ in by_variant["slow-0.2"]] == [(0, 0.2), (1, 0.2), (2, 0.2)]
    assert [(i, t) for i, t, _ in by_variant["fast-0.1"]] == [(0, 0.1), (2, 0.1)]  # game 2 is on disk
    f.write_text(f.read_text().replace("seconds = 0.1", "seconds = -1"))
    with pytest.raises(experiment.ExperimentError, match=r"variant 2 \('fast'\): seconds: -1.0 is below"):
        experiment.load(str(f))
    f.write_text('name = "e"\nsize = 9\nseconds = "fast"\n[[variant]]\nseries = "s"\nx = 1\n')
    with pytest.raises(experiment.ExperimentError, match="e.toml: seconds: expected float"):
        experiment.load(str(f))


def test_pending_games_take_the_variants_in_turn(tmp_path):
    """A run stopped short has every point of its curve at about the same
    number of games: the pending games go game 1 of each variant, then
    game 2 of each, and so on, a variant with fewer left dropping out."""
    f, exp = _experiment_file(tmp_path, 'games = 3\n'
                              '[[variant]]\nseries = "a"\nx = 1\nsets = ["search.playouts=10"]\n'
                              '[[variant]]\nseries = "b"\nx = 2\nsets = ["search.playouts=10"]\n')
    (tmp_path / "out" / "a-1").mkdir(parents=True)
    (tmp_path / "out" / "a-1" / "game-0001.json").write_text("{}")
    order = [(path.split("/")[-2], index) for path, *_, index, _s, _e in experiment.pending_jobs(exp, str(tmp_path / "out"))]
    assert order == [("a-1", 1), ("b-2", 0), ("a-1", 2), ("b-2", 1), ("b-2", 2)]


def test_first_game_plays_the_later_games_with_their_own_seeds(tmp_path):
    """A variant with first_game = K is left only its games from the K-th
    on, with the indices (so seeds and colours) those games have in a run
    from game 1; a first_game that is not a game number fails at load,
    naming the key and the variant."""
    f, exp = _experiment_file(tmp_path, 'games = 5\n'
                              '[[variant]]\nseries = "all"\nx = 1\nsets = ["search.playouts=10"]\n'
                              '[[variant]]\nseries = "later"\nx = 1\nfirst_game = 4\n'
                              'sets = ["search.playouts=10"]\n')
    by_variant = _pending_by_variant(exp, tmp_path / "out")
    assert [i for i, _, _ in by_variant["all-1"]] == [0, 1, 2, 3, 4]
    assert [(i, fn) for i, _, fn in by_variant["later-1"]] == [(3, "game-0004.json"),
                                                              (4, "game-0005.json")]
    for bad in ("0", "2.5", '"4"', "true"):
        f.write_text(re.sub(r"first_game = \S+", f"first_game = {bad}", f.read_text()))
        with pytest.raises(experiment.ExperimentError, match=r"variant 2 \('later'\): first_game"):
            experiment.load(str(f))


def test_records_archived_and_written_back_in_a_fresh_out_dir(tmp_path, monkeypatch):
    """A run stopped short of its target resumes elsewhere: the records go
    to records/games/, and a new out directory gets them back, so only
    the missing games are pending and the tally is the same."""
    monkeypatch.setattr(experiment, "HERE", str(tmp_path / "repo"))
    exp = _exp()
    out = tmp_path / "runs1"
    d = out / "a-1"
    d.mkdir(parents=True)
    for i, won in enumerate([1.0, 0.0, 1.0]):
        (d / f"game-{i + 1:04d}.json").write_text(json.dumps(
            {"variant_won": won, "moves": [0] * (10 + i), "seconds": 2.0}))
    (d / ".tmp-game-0004.json").write_text("{half a rec")     # atomic_write's temporary file
    experiment.archive(exp, str(out))
    path = experiment.archive_path(exp, "a-1")
    assert path.startswith(str(tmp_path / "repo" / "records" / "games" / "t"))
    man = json.loads((tmp_path / "repo" / "records" / "MANIFEST.json").read_text())
    assert list(man) == ["records/games/t/a-1.jsonl.gz"]       # the archive is listed with its hash
    assert not os.path.exists(experiment.archive_path(exp, "b-1"))   # no records, no archive
    first = open(path, "rb").read()
    experiment.archive(exp, str(out))
    assert open(path, "rb").read() == first                  # the same records, the same bytes

    fresh = tmp_path / "runs2"
    assert len(experiment.pending_jobs(exp, str(fresh), games=4, only=["a"])) == 4
    experiment.restore(exp, str(fresh))
    jobs = experiment.pending_jobs(exp, str(fresh), games=4, only=["a"])
    assert [j[5] for j in jobs] == [3]                       # only the fourth game is left
    rows = {r["label"]: r for r in experiment.collect(exp, str(fresh))}
    assert rows["a-1"]["games"] == 3 and rows["a-1"]["wins"] == 2.0
    assert rows["a-1"]["moves"] == 11 and not rows["a-1"]["stored"]
    assert json.loads((fresh / "a-1" / "game-0002.json").read_text())["index"] == 1

    # a record played since is added to the archive; one on disk is never overwritten
    (fresh / "a-1" / "game-0004.json").write_text(json.dumps(
        {"variant_won": 0.5, "moves": [0] * 20, "seconds": 2.0}))
    experiment.archive(exp, str(fresh))
    with gzip.open(path, "rt") as fh:
        assert [json.loads(x)["index"] for x in fh] == [0, 1, 2, 3]
    from tools import publish
    assert publish.check(str(tmp_path / "repo" / "records")) == []      # the manifest followed the archive
    (d / "game-0001.json").write_text(json.dumps({"variant_won": 0.0, "moves": [], "seconds": 1.0}))
    experiment.restore(exp, str(out))
    assert json.loads((d / "game-0001.json").read_text())["variant_won"] == 0.0
    assert json.loads((d / "game-0004.json").read_text())["variant_won"] == 0.5


def test_rows_split_by_colour_and_give_the_simulation_ratio(tmp_path, monkeypatch):
    monkeypatch.setattr(experiment, "HERE", str(tmp_path / "repo"))
    exp = _exp()
    d = tmp_path / "a-1"
    d.mkdir()
    games = [("black", 1.0, 800, 1000), ("white", 0.0, 1000, 900), ("black", 0.0, 700, 1000),
             ("white", 0.5, 1000, 600), ("black", 1.0, 1000, 1000)]
    for i, (c, won, sb, sw) in enumerate(games):
        (d / f"game-{i + 1:04d}.json").write_text(json.dumps(
            {"variant_won": won, "variant_color": c, "moves": [0] * 10, "seconds": 2.0,
             "sims_black": sb, "sims_white": sw, "index": i}))
    rows = {r["label"]: r for r in experiment.collect(exp, str(tmp_path))}
    a = rows["a-1"]
    assert a["black"] == [2.0, 3] and a["white"] == [0.5, 2]
    # the variant's share of each game's simulations: 0.8, 0.9, 0.7, 0.6, 1.0
    assert [round(x, 6) for x in a["sim_ratio"]] == [0.7, 0.8, 0.9]
    assert "sim_ratio" not in rows["b-1"]
    # the tally keeps them, so a report made without the records still shows them
    experiment.save_tallies(exp, list(rows.values()))
    again = {r["label"]: r for r in experiment.collect(exp, str(tmp_path / "none"),
                                                       experiment.load_tallies(exp))}
    assert again["a-1"]["stored"] and again["a-1"]["black"] == [2.0, 3]
    assert again["a-1"]["sim_ratio"] == a["sim_ratio"]
    md, png = tmp_path / "r.md", tmp_path / "r.png"
    experiment.report(exp, list(again.values()), str(md), str(png), ["t.toml"])
    line = [x for x in md.read_text().splitlines() if x.startswith("| a-1")][0]
    assert "| 2/3 | 0.5/2 | 0.80 (0.70-0.90) |" in line


def test_report_keeps_its_notes_and_the_file_holds_no_results(tmp_path):
    """The report's hand-written ``## Notes`` section survives a new
    report; an experiment file no longer takes prose (``notes``)."""
    exp = dict(_exp(), title="T")
    rows = experiment.collect(exp, str(tmp_path))
    md, png = tmp_path / "t.md", tmp_path / "t.png"
    experiment.report(exp, rows, str(md), str(png), ["t.toml"])
    assert "## Notes" not in md.read_text()
    notes = "## Notes\n\nReading the table: a at 1 wins.\n\nA second paragraph."
    md.write_text(md.read_text().replace("| b-1 |", "| old row |") + "\n" + notes + "\n")
    experiment.report(exp, rows, str(md), str(png), ["t.toml"])
    text = md.read_text()
    assert text.endswith("\n\n" + notes + "\n") and text.count("## Notes") == 1
    assert "old row" not in text                # the generated part is written anew
    bad = tmp_path / "notes.toml"
    bad.write_text('name = "b"\nsize = 9\nnotes = """prose"""\n[[variant]]\nseries = "s"\nx = 1\n')
    with pytest.raises(experiment.ExperimentError, match="'notes'"):
        experiment.load(str(bad))


def _trial(tmp_path, more=""):
    """A small experiment file (5x5, one game a variant, variant "s"), with ``more`` variants."""
    f = tmp_path / "trial.toml"
    f.write_text('name = "trial"\nsize = 5\nkomi = 0.5\ngames = 1\nworkers = 1\n'
                 'common = ["search.seconds=0", "search.threads=1", "prior.evaluator=expert", '
                 '"pool.pool_size=20000"]\n'
                 'baseline = ["search.playouts=20"]\n[[variant]]\nseries = "s"\nx = 1\nsets = ["search.playouts=30"]\n'
                 + more)
    return f


@pytest.mark.slow
def test_a_trial_run_writes_only_to_its_out_folder(tmp_path, monkeypatch):
    """Without --publish a run touches nothing of the repository: its games,
    report, plot and tallies are in --out; with --publish the same run is
    a published row (docs/results, records/results, records/games)."""
    repo = tmp_path / "repo"
    monkeypatch.setattr(experiment, "HERE", str(repo))
    f = _trial(tmp_path)
    out = tmp_path / "runs" / "trial"
    assert experiment.main([str(f), "--out", str(out), "--games", "1"]) is None
    assert not repo.exists()                                   # nothing written outside runs/
    assert sorted(p.name for p in out.iterdir()) == ["report.md", "report.png", "s-1", "tallies.json"]
    assert json.loads((out / "tallies.json").read_text())["s-1"]["games"] == 1
    assert "| s-1 |" in (out / "report.md").read_text()
    assert experiment.main([str(f), "--out", str(out), "--games", "1", "--report-only", "--publish"]) is None
    assert (repo / "docs" / "results" / "trial.md").exists()
    assert (repo / "records" / "results" / "trial.json").exists()
    assert (repo / "records" / "games" / "trial" / "s-1.jsonl.gz").exists()


def test_publishing_fewer_games_than_the_page_is_refused(tmp_path, monkeypatch):
    """A published page is not overwritten by a run with fewer games for a
    variant than it reports (two pages of record were lost that way), unless
    --overwrite says so; the page, the tallies and the archive are kept."""
    repo = tmp_path / "repo"
    monkeypatch.setattr(experiment, "HERE", str(repo))
    f = _trial(tmp_path, '[[variant]]\nseries = "u"\nx = 1\nsets = ["search.playouts=25"]\n')
    out = tmp_path / "runs" / "trial"
    assert experiment.main([str(f), "--out", str(out), "--games", "1", "--only", "s", "--publish"]) is None
    page = repo / "docs" / "results" / "trial.md"
    assert experiment.published_games(str(page)) == {"s-1": 1, "u-1": 0}
    # the page as a longer run left it: 40 games of s, 30 of u
    text = page.read_text().replace("| s-1 | 1 |", "| s-1 | 40 |").replace("| u-1 | 0 |", "| u-1 | 30 |")
    page.write_text(text)
    tallies = (repo / "records" / "results" / "trial.json").read_text()
    assert experiment.main([str(f), "--out", str(out), "--report-only", "--publish"]) == 2
    assert page.read_text() == text
    assert (repo / "records" / "results" / "trial.json").read_text() == tallies
    assert experiment.fewer_games([{"label": "s-1", "games": 1}, {"label": "u-1", "games": 30}],
                                  experiment.published_games(str(page))) == "s-1: 1 games, the published page 40"
    assert experiment.main([str(f), "--out", str(out), "--report-only", "--publish", "--overwrite"]) is None
    assert experiment.published_games(str(page)) == {"s-1": 1, "u-1": 0}


def test_engine_key_starts_both_sides_from_a_config_file(tmp_path):
    """``engine = "configs/engine.toml"`` lays an experiment's overrides over
    the shipped engine (its 19x19 net and value weight), not the built-in
    defaults; the games carry it to the workers; a missing file is named."""
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nsize = 19\nengine = "configs/engine.toml"\ncommon = ["search.seconds=0"]\n'
                 '[[variant]]\nseries = "m"\nx = 1\nsets = ["search.playouts=5"]\n')
    exp = experiment.load(str(f))
    jobs = experiment.pending_jobs(exp, str(tmp_path / "out"), games=2)
    assert [j[-1] for j in jobs] == ["configs/engine.toml"] * 2
    shipped = config_mod.at_size(config_mod.load(config_mod.SHIPPED_CONFIG), 19)
    _, cfg = experiment.make_engine(jobs[0][1], 19, engine=exp["engine"])
    got = config_mod.at_size(cfg, 19)
    assert got.net.weights == shipped.net.weights != ""
    assert got.search.value_lambda == shipped.search.value_lambda != (0.0,)
    assert got.search.playouts == 5 and got.search.seconds == 0
    _, plain = experiment.make_engine(jobs[0][1], 19)
    assert config_mod.at_size(plain, 19).net.weights == ""          # without the key: the defaults
    f.write_text(f.read_text().replace("configs/engine.toml", "configs/no-such.toml"))
    with pytest.raises(experiment.ExperimentError, match="no-such.toml"):
        experiment.load(str(f))
