"""Shipped configs: default.toml equals the dataclass defaults, every key is
commented, every config loads, and the ringmaster control file is valid."""
import dataclasses
import glob
import os
import re
import subprocess
import tomllib

import pytest

from engine import config as C

from tests.conftest import ROOT

CONFIGS = sorted(glob.glob(os.path.join(ROOT, "configs", "*.toml")))


def test_default_toml_matches_dataclasses():
    path = os.path.join(ROOT, "configs", "default.toml")
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    assert {t: set(v) for t, v in data.items()} == {t: set(v) for t, v in C.to_dict(C.Config()).items()}
    assert C.build(data) == C.Config(), "configs/default.toml differs from engine/config.py defaults"
    assert C.load(path) == C.Config()


def test_default_toml_is_written_from_config_py():
    """The text, comments included: `make configs` rewrites it."""
    with open(os.path.join(ROOT, "configs", "default.toml"), encoding="utf-8") as fh:
        text = fh.read()
    assert text == C.default_toml(), "configs/default.toml is stale: run `make configs`"


def test_node_counts_take_the_words_all_and_none():
    cfg = C.load(None, ["prior.dcnn_nodes=all", "memory.nodes=All"])
    assert cfg.prior.dcnn_nodes == 10**9 and cfg.memory.nodes == 0
    assert C.load(None, ["prior.dcnn_nodes=none"]).prior.dcnn_nodes == 0
    # numbers keep working, with their old meanings
    assert C.load(None, ["prior.dcnn_nodes=1000000000", "memory.nodes=0"]) == cfg
    assert C.load(None, ["prior.dcnn_nodes=0"]).prior.dcnn_nodes == 0
    assert C.load(None, ["memory.nodes=100"]).memory.nodes == 100
    assert C.build({"prior": {"dcnn_nodes": "all"}, "memory": {"nodes": "all"}}) == cfg
    with pytest.raises(C.ConfigError, match="memory.nodes: expected int or 'all', got 'none'"):
        C.load(None, ["memory.nodes=none"])
    with pytest.raises(C.ConfigError, match="prior.dcnn_nodes: expected int or 'all' or 'none'"):
        C.load(None, ["prior.dcnn_nodes=every"])
    with pytest.raises(C.ConfigError, match="search.playouts: expected int, got 'all'"):
        C.load(None, ["search.playouts=all"])


def test_base_include(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "expert.toml").write_text(
        '[prior]\nevaluator = "expert"\ndcnn_nodes = "all"\n[uct]\ncnn_strength = 20.0\n[gtp]\nkomi = 6.5\n')
    (tmp_path / "game.toml").write_text(
        'base = "shared/expert.toml"\n[uct]\ncnn_strength = 40.0\n[search]\nplayouts = 500\n')
    (tmp_path / "top.toml").write_text('base = "game.toml"\n[gtp]\nkomi = 7.0\n')
    cfg = C.load(str(tmp_path / "top.toml"), ["search.playouts=700"])
    assert (cfg.prior.evaluator, cfg.prior.dcnn_nodes, cfg.uct.cnn_strength) == ("expert", 10**9, 40.0)
    assert cfg.gtp.komi == 7.0 and cfg.search.playouts == 700
    assert C.load(str(tmp_path / "game.toml")).gtp.komi == 6.5


def test_base_cycle_and_missing_base_are_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.toml").write_text('base = "b.toml"\n')
    (tmp_path / "b.toml").write_text('base = "a.toml"\n[search]\nplayouts = 5\n')
    with pytest.raises(C.ConfigError, match=r"include each other: a.toml -> b.toml -> a.toml"):
        C.load(str(tmp_path / "a.toml"))
    (tmp_path / "c.toml").write_text('base = "c.toml"\n')
    with pytest.raises(C.ConfigError, match=r"c.toml -> c.toml"):
        C.load(str(tmp_path / "c.toml"))
    (tmp_path / "d.toml").write_text('base = "nope.toml"\n')
    with pytest.raises(C.ConfigError, match=r"'nope.toml' not found \(the base of 'd.toml'\)"):
        C.load(str(tmp_path / "d.toml"))
    (tmp_path / "e.toml").write_text('base = 3\n')
    with pytest.raises(C.ConfigError, match="base must be"):
        C.load(str(tmp_path / "e.toml"))


@pytest.mark.parametrize("path", CONFIGS, ids=os.path.basename)
def test_every_config_loads_and_every_key_is_commented(path):
    C.load(path)
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("[") or s.startswith("base = "):
            continue
        assert re.match(r"^\w+\s*=", s), f"{path}:{n}: not a key line"
        assert "#" in s, f"{path}:{n}: key without a comment"
        assert "default" in s.split("#", 1)[1], f"{path}:{n}: comment should give the default"


def test_config_tables_are_all_in_default():
    text = open(os.path.join(ROOT, "configs", "default.toml"), encoding="utf-8").read()
    for f in dataclasses.fields(C.Config()):
        assert f"[{f.name}]" in text


def test_ringmaster_control_file():
    path = os.path.join(ROOT, "configs", "ringmaster-vs-gnugo.ctl")
    matchups = []

    def Player(command, **kw):
        return {"command": command, **kw}

    def Matchup(p1, p2, **kw):
        matchups.append((p1, p2, kw))
        return (p1, p2, kw)

    ns = {"Player": Player, "Matchup": Matchup}
    exec(compile(open(path).read(), path, "exec"), ns)
    assert ns["competition_type"] == "playoff"
    assert ns["board_size"] == 9
    ours = ns["players"]["gomcts"]
    words = ours["command"].split()
    exe = os.path.normpath(os.path.join(os.path.dirname(path), words[0]))
    cwd = os.path.normpath(os.path.join(os.path.dirname(path), ours["cwd"]))
    assert cwd == ROOT
    assert words[1] == "gtp_main.py" and os.path.exists(os.path.join(cwd, "gtp_main.py"))
    assert exe.endswith(os.path.join(".venv", "bin", "python"))
    cfg = words[words.index("--config") + 1]
    sets = [words[i + 1] for i, w in enumerate(words) if w == "--set"]
    # the settings are on the command line, so the records' gomill-describe_engine
    # (asked before any startup command) shows them
    assert C.load(os.path.join(cwd, cfg), sets).search.playouts == 2000
    assert not ours.get("startup_gtp_commands")
    for out in ("ringmaster-vs-gnugo.hist", "ringmaster-vs-gnugo.log", "ringmaster-vs-gnugo.report",
                "ringmaster-vs-gnugo.status", "ringmaster-vs-gnugo.games/x.sgf"):
        rel = os.path.join("configs", out)
        r = subprocess.run(["git", "check-ignore", "-q", "--no-index", rel], cwd=ROOT)
        assert r.returncode == 0, f"{rel} is not ignored by git"
    p1, p2, kw = matchups[0]
    assert {p1, p2} <= set(ns["players"]) and kw["alternating"]


def test_file_values_keep_their_types_and_text_is_read(tmp_path):
    """A TOML file's value has its type (a quoted number is an error, a
    word is not); --set text is read as the setting's type, quotes and all."""
    (tmp_path / "q.toml").write_text('[search]\nplayouts = "100"\n')
    with pytest.raises(C.ConfigError, match="search.playouts: expected int"):
        C.load(str(tmp_path / "q.toml"))
    cfg = C.load(None, ["search.playouts=100", "gtp.name='a b'", "prior.dcnn_nodes=all"])
    assert (cfg.search.playouts, cfg.gtp.name, cfg.prior.dcnn_nodes) == (100, "a b", 10**9)


def test_trainer_settings_on_the_config_machinery(tmp_path):
    """configs/nets/*.toml: declared like the engine's tables; a bad key or
    value is named, base= includes another file, --set reads TOML text."""
    from nets.train import ConfigError, load_config
    cfg = load_config(os.path.join(ROOT, "configs", "nets", "9x9.toml"))
    assert (cfg["board_size"], cfg["epochs"], cfg["data_dirs"]) == (9, 30, ["data/9x9", "data/9x9-L10"])
    assert cfg["widths"] == [64, 64, 64, 48, 48, 32, 32] and cfg["max_minutes"] == 0.0
    (tmp_path / "small.toml").write_text(
        f'base = "{os.path.join(ROOT, "configs", "nets", "9x9.toml")}"\nepochs = 2\n')
    small = load_config(str(tmp_path / "small.toml"), ["lr=1e-2", "data_dirs=data/x"])
    assert small == dict(cfg, epochs=2, lr=0.01, data_dirs=["data/x"])
    for bad, key in ((["epochz=3"], "'epochz'"), (["lr=-1"], "lr: -1.0 is below"),
                     (["device='tpu'"], "device: 'tpu'"), (["widths=[8, 0]"], r"widths\[1\]"),
                     (["epochs=many"], "epochs: expected int")):
        with pytest.raises(ConfigError, match=key):
            load_config(None, bad)
    (tmp_path / "bad.toml").write_text('batch_size = "128"\n')
    with pytest.raises(ConfigError, match="batch_size: expected int"):
        load_config(str(tmp_path / "bad.toml"))


def test_experiment_settings_on_the_config_machinery(tmp_path):
    """An experiment file: unknown, missing and out-of-range keys named
    with the file (and the variant); base= includes another experiment."""
    from tools import experiment
    base = os.path.join(ROOT, "configs", "paper", "pool-fig2.toml")
    (tmp_path / "more.toml").write_text(f'base = "{base}"\nname = "more"\ngames = 7\n')
    exp, ref = experiment.load(str(tmp_path / "more.toml")), experiment.load(base)
    assert exp == dict(ref, name="more", games=7)
    for body, key in (('name = "e"\nsize = 9\nkomi = "7"\n[[variant]]\nseries = "s"\nx = 1\n', "komi: expected float"),
                      ('name = "e"\nsize = 25\n[[variant]]\nseries = "s"\nx = 1\n', "size: 25 is above"),
                      ('name = "e"\nsize = 9\n', "missing config key 'variant'"),
                      ('name = "e"\nsize = 9\n[[variant]]\nx = 1\n', r"variant 1 \('\?'\): missing config key 'series'"),
                      ('name = "e"\nsize = 9\n[[variant]]\nseries = "s"\nx = 1\ngame = 3\n',
                       r"variant 1 \('s'\): unknown config key 'game'")):
        (tmp_path / "e.toml").write_text(body)
        with pytest.raises(experiment.ExperimentError, match="e.toml: " + key):
            experiment.load(str(tmp_path / "e.toml"))


@pytest.mark.parametrize("text,new", [("[search]\nK = 0.5\n", "uct.K"), ("[gtp]\nrules = 'japanese'\n", "player.rules"),
                                      ("[prior]\nK = 0.1\n", "uct.K_prior"), ("[rollout]\npattern = 0.5\n", "[moggy]"),
                                      ("[tree]\nvalue_lambda = [0.2]\n", "search.value_lambda"),
                                      ("[tree]\nchoose = 'lcb'\n", "search.choose"),
                                      ("[tree]\nnet_equiv = 50\n", "[rave]"),
                                      ("[size.19.tree]\nvalue_lambda = [0.2]\n", "size.19.search.value_lambda"),
                                      ("[search]\nvirtual_loss = 2\n", "uct.virtual_loss")])
def test_an_old_key_names_the_new_one(tmp_path, text, new):
    (tmp_path / "old.toml").write_text(text)
    with pytest.raises(C.ConfigError, match=re.escape(new)):
        C.load(str(tmp_path / "old.toml"))


def test_an_old_key_in_an_override_names_the_new_one():
    with pytest.raises(C.ConfigError, match=r"'gtp.score_playouts' is now 'player.score_playouts'"):
        C.load(None, ["gtp.score_playouts=50"])


def test_the_tables_are_named_after_their_owner():
    """[search] holds what every tree reads, [rave] the rave tree's knobs,
    each virtual loss sits beside its tree."""
    c = C.load(None, ["search.value_lambda=0.3", "rave.net_equiv=50", "rave.virtual_loss=2", "uct.virtual_loss=4"])
    assert c.search.value_lambda == (0.3,) and c.rave.net_equiv == 50
    assert c.rave.virtual_loss == 2 and c.uct.virtual_loss == 4
    assert not hasattr(c, "tree") and not hasattr(c.rave, "value_lambda") and not hasattr(c.search, "virtual_loss")
    with pytest.raises(C.ConfigError, match=r"'tree.net_equiv' is now|'\[tree\]' is now '\[rave\]'"):
        C.load(None, ["tree.net_equiv=50"])


def test_lcb_choice_off_the_rave_tree_is_refused():
    from engine.config import ConfigError, load
    with pytest.raises(ConfigError, match=r"search.choose = lcb needs a tree that chooses by lower bound \(search.tree = rave"):
        load(None, ["search.tree=uct", "search.choose=lcb"])
    assert load(None, ["search.choose=lcb"]).search.choose == "lcb"


def test_ringmaster_control_file_against_fuego():
    """The Fuego playoff: an equal 30 s sudden-death clock each, one thread
    a side, our shipped 9x9 config chosen by size, files from the repository."""
    path = os.path.join(ROOT, "configs", "ringmaster-vs-fuego.ctl")
    matchups = []
    ns = {"Player": lambda command, **kw: {"command": command, **kw},
          "Matchup": lambda p1, p2, **kw: matchups.append((p1, p2, kw))}
    exec(compile(open(path).read(), path, "exec"), ns)
    assert ns["competition_type"] == "playoff" and ns["board_size"] == 9
    ours, fuego = ns["players"]["gomcts"], ns["players"]["fuego"]
    for p in (ours, fuego):
        assert p["startup_gtp_commands"] == ["time_settings 30 0 0"]
        assert os.path.normpath(os.path.join(os.path.dirname(path), p["cwd"])) == ROOT
    words = ours["command"].split()
    assert words[1] == "gtp_main.py" and "--config" not in words
    sets = [words[i + 1] for i, w in enumerate(words) if w == "--set"]
    assert C.load(os.path.join(ROOT, "configs", "9x9.toml"), sets).search.threads == 1
    fw = fuego["command"].split()
    gtp_file = fw[fw.index("--config") + 1]
    assert os.path.exists(os.path.join(ROOT, gtp_file))
    assert "uct_param_search number_threads 1" in open(os.path.join(ROOT, gtp_file)).read()
    p1, p2, kw = matchups[0]
    assert (p1, p2) == ("gomcts", "fuego") and kw["alternating"] and kw["number_of_games"] == 200


def test_config_docs_quote_no_figures():
    """A setting's doc says what it does and where it was measured, not the
    figures (they live in docs/results, where a rerun updates them)."""
    import re
    bad = [k for k, _v, d in C.describe(C.load(None, []))
           if re.search(r"\d+(\.\d+)?% (over|at)|\d+ over \d+|\d,\d{3} simulations", d)]
    assert bad == []
