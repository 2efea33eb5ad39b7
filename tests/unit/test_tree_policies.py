"""Tree policies as plug-ins (engine/tree_policies.py): a toy policy added
by the recipe (one class, one register line, a config table: here it reads
[uct]) searches with no change to engine/search.py, and the rules that
depend on the tree (threads, lcb) come from the policy's own declaration."""
import os

import pytest

from board_ext.board import Board
from engine import config, tree_policies
from engine.search import Search


class ToyPolicy(tree_policies.UctPolicy):
    """The uct kernel with plain UCB1 at a fixed constant: a policy that
    differs in its knobs and counts its hooks."""
    name, table, kernel = "toy", "uct", "uct"

    def __init__(self):
        self.calls = {"params": 0, "new_root": 0, "start": 0, "stepper": 0}

    def params(self, cfg):
        self.calls["params"] += 1
        return dict(super().params(cfg), K=0.3, rave=False)

    def new_root(self, view):
        self.calls["new_root"] += 1
        super().new_root(view)

    def start(self, view):
        self.calls["start"] += 1
        super().start(view)

    def stepper(self, view):
        self.calls["stepper"] += 1
        return super().stepper(view)


@pytest.fixture
def toy():
    pol = tree_policies.register(ToyPolicy())      # the recipe's one registry line
    try:
        yield pol
    finally:
        del tree_policies.REGISTRY["toy"]


def test_the_shipped_policies_declare_their_rules():
    assert set(tree_policies.REGISTRY) >= {"rave", "uct"}
    assert tree_policies.get("rave").threaded and not tree_policies.get("uct").threaded
    assert config.threads_refused(config.load(None, ["search.tree=uct"])) == "search.tree = uct"
    assert config.threads_refused(config.load(None, [])) is None
    with pytest.raises(KeyError, match="known: rave, uct"):
        tree_policies.get("nope")


def test_a_toy_policy_added_by_the_recipe_searches(toy):
    cfg = config.load(None, ["search.tree=toy", "prior.evaluator=none", "search.rollout=random",
                             "search.seed=5", "search.threads=1", "search.playouts=300", "search.seconds=0"])
    s = Search(cfg)
    s.set_position(Board(9), 7.0)
    res = s.run()
    assert res.playouts == 300 and 0 <= res.move <= 81
    assert sum(c[1] for c in s.tree.children()) > 0
    assert s.tree.params("uct")["K"] == 0.3 and not s.tree.params("uct")["rave"]   # its own parameters
    assert toy.calls == {"params": 1, "new_root": 0, "start": 1, "stepper": 1}
    b = Board(9)
    b.play(res.move)
    s.set_position(b, 7.0)          # a move on: the tree is kept, the policy's new_root runs
    assert toy.calls["new_root"] == 1
    # the rules come from its declaration: one thread, no lcb
    with pytest.raises(config.ConfigError, match="search.tree = toy"):
        config.load(None, ["search.tree=toy", "search.threads=2"])
    with pytest.raises(config.ConfigError, match="the toy tree chooses by visits"):
        config.load(None, ["search.tree=toy", "search.choose=lcb"])


def test_an_unknown_policy_is_refused_naming_the_known_ones():
    with pytest.raises(config.ConfigError, match="search.tree: 'nope' is not one of rave, uct"):
        config.load(None, ["search.tree=nope"])


def test_a_weight_change_over_go_param_keeps_the_tree():
    """go-param of a tree constant retunes the live tree (its nodes kept,
    the new weight on it); a key the tree cannot follow rebuilds it."""
    from engine.player import Player
    p = Player(config.load(None, ["gtp.boardsize=9", "prior.evaluator=none", "search.rollout=random", "search.seed=3",
                                  "search.threads=1", "search.playouts=400", "search.seconds=0",
                                  "search.early_stop=false"]))
    p.genmove(1, play=False)
    s = p.slot.built
    nodes = sum(c[1] for c in s.tree.children())
    assert nodes > 0
    p.set_option("rave.net_equiv", 7)
    p.set_option("search.playouts", 500)
    p.set_option("rave.fpu", 0.9)
    assert p.slot.built is s and sum(c[1] for c in s.tree.children()) == nodes     # the same tree
    assert s.tree.net_weight == 7 and s.cfg.rave.fpu == pytest.approx(0.9) and s.cfg.search.playouts == 500
    p.set_option("search.rollout", "moggy")
    assert p.slot.built is None                         # rebuilt at the next search


def test_the_policies_are_handed_a_view_and_nothing_holds_the_search():
    """A policy is handed a SearchView (the tree, the NetAsk, the config,
    the root board), never the Search; the NetAsk holds the parts it is
    handed, never the search that made it; search.py's code asks the
    policy, never a tree by name (its docstring describes them)."""
    import ast
    import re
    from engine.netask import NetAsk
    from tests.conftest import ROOT
    src = ast.parse(open(os.path.join(ROOT, "engine", "tree_policies.py")).read())
    assert [n.id for n in ast.walk(src) if isinstance(n, ast.Name) and n.id == "search"] == []
    assert [a.arg for a in ast.walk(src) if isinstance(a, ast.arg) and a.arg == "search"] == []
    assert re.findall(r"self\.s = |self\.s\.", open(os.path.join(ROOT, "engine", "netask.py")).read()) == []
    s = Search(config.load(None, ["prior.evaluator=none", "search.seed=3", "search.playouts=30", "search.seconds=0"]))
    s.set_position(Board(9), 7.0)
    s.run()
    assert not any(v is s for v in vars(s.ask).values()) and isinstance(s.ask, NetAsk)
    assert s.ask.tree is s.tree and s.ask.root_board is s.root_board
    tree = ast.parse(open(os.path.join(ROOT, "engine", "search.py")).read())
    names = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in ("rave", "uct")]
    assert names == []


def test_each_key_of_a_kernels_table_is_a_field_of_its_struct_and_reaches_it():
    """docs/HACKING.md's recipe for a kernel knob: a field of the policy's
    config table, a field of the kernel's struct (engine/tree_params.pxd)
    named the same, its use in the kernel; no line in between.  A key of
    the table without its field, or a field without its key, fails here."""
    import dataclasses
    from engine.factory import bare_tree
    t = bare_tree(9, 100, seed=1)
    keys = {f.name for f in dataclasses.fields(config.RaveConfig)}
    assert set(t.params("rave")) == keys
    assert set(t.params("uct")) == {f.name for f in dataclasses.fields(config.UctConfig)} - {"policy"} | {"puct"}
    # a bare tree holds the config's defaults (one default a knob)
    assert t.params("rave") == pytest.approx(dataclasses.asdict(config.RaveConfig()))
    # the search passes every value of the table through
    sets = ["rave.expand_visits=7", "rave.net_equiv=33", "rave.net_fade=0.25", "rave.fpu=0.75",
            "rave.net_visits=5", "rave.rave_equiv=1234", "rave.virtual_loss=2", "rave.prior_scale=0.5"]
    cfg = config.load(None, ["prior.evaluator=none", "search.seed=3", "search.playouts=50", "search.seconds=0"] + sets)
    s = Search(cfg)
    s.set_position(Board(9), 7.0)
    got = s.tree.params("rave")
    assert got == pytest.approx(dataclasses.asdict(config.at_size(cfg, 9).rave))
    assert (got["expand_visits"], got["net_equiv"], got["virtual_loss"]) == (7, 33, 2)
    # a mapping without a field is refused, naming it; nothing is half set
    partial = dict(got)
    del partial["fpu"]
    with pytest.raises(ValueError, match="fpu"):
        s.tree.set_params("rave", partial)
    assert s.tree.params("rave") == got
    with pytest.raises(ValueError, match="unknown tree 'nope'"):
        s.tree.set_params("nope", got)
