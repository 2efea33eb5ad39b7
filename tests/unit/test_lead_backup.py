"""The score head's leads backed up through the tree (``player.score_source
= backup``): each node the net evaluates keeps its lead, each simulation
counts the lead of the deepest such node of its path, by the root's move;
the analysis reads a candidate's lead from them as its win rate from its
simulations.  With the shipped 9x9 net (9x9-res3, score head)."""
import io
import json
import os

from board_ext.board import BLACK, Board
from engine.config import at_size, load
from engine.factory import make_search
from engine.gtp.analysis_json import AnalysisServer
from nets.evaluator import Evaluator
from tests.conftest import ROOT

CFG = os.path.join(ROOT, "configs", "9x9.toml")
NET = os.path.join(ROOT, "nets", "weights", "9x9-res3.pt")
MOVES = [40, 30, 22, 50, 32]


def _board():
    b = Board(9)
    for m in MOVES:
        b.play(m)
    return b


def _search(source):
    cfg = at_size(load(CFG, ["search.seconds=0", "search.threads=1", "search.seed=3",
                             f"player.score_source={source}"]), 9)
    ev = Evaluator.load(NET)
    s = make_search(cfg, evaluator=ev)
    s.set_position(_board(), 7.0)
    s.run(playouts=400, exact=True)
    return s, ev


def test_the_evaluator_gives_the_score_heads_lead_with_the_priors():
    ev = Evaluator.load(NET)
    boards = [_board(), Board(9)]
    p, _, v, lead = ev.evaluate_all(boards, want_lead=True)
    v2, lead2, _ = ev.evaluate_aux(boards)
    assert lead.shape == (2,) and abs(lead - lead2).max() < 1e-3 and abs(v - v2).max() < 1e-4
    p3, _, _, lead3 = ev.evaluate_all(boards, want_lead=True)          # from the cache
    assert (lead3 == lead).all() and (p3 == p).all()
    assert len(ev.evaluate_all(boards)) == 3


def test_the_tree_backs_up_the_leads_of_the_nodes_the_net_evaluated():
    s, ev = _search("backup")
    tree = s.tree
    leads = tree.root_leads()
    assert -1 in leads and leads[-1][0] > 0
    rows = s.analysis()
    top = rows[0]
    assert top.get("lead_n", 0) > 0 and top["lead_n"] <= top["visits"]
    assert sum(d.get("lead_n", 0) for d in rows) == leads[-1][0]
    # an evaluated child keeps the head's lead for Black
    for move, N, W, P, NM, VM, node in tree.children():
        if tree.net_lead(node) is not None:
            b = _board()
            b.play(move)
            _, lead, _ = ev.evaluate_aux([b])
            black = float(lead[0]) if b.to_move == BLACK else -float(lead[0])
            assert abs(tree.net_lead(node) - black) < 0.05
            break
    else:
        raise AssertionError("no child of the root was evaluated by the net")


def test_without_backup_the_tree_keeps_no_leads():
    s, _ = _search("net")
    assert s.tree.root_leads() == {}
    assert all("lead_n" not in d for d in s.analysis())


def test_the_analysis_reads_the_backed_up_leads():
    q = {"id": "a", "moves": [["B", "E5"], ["W", "D4"]], "rules": "chinese", "komi": 7,
         "boardXSize": 9, "boardYSize": 9, "maxVisits": 300}
    got = {}
    for source in ("net", "backup"):
        out = io.StringIO()
        srv = AnalysisServer(load(CFG, ["search.seconds=0", "search.seed=5", f"player.score_source={source}"]),
                             out=out)
        srv.serve(io.StringIO(json.dumps(q) + "\n"))
        got[source] = json.loads(out.getvalue().splitlines()[-1])
    for r in got.values():
        assert r["rootInfo"]["scoreLead"] == r["moveInfos"][0]["scoreLead"]     # the choice loses no points
        assert "ownership" not in r or len(r["ownership"]) == 81
    # the same search (same seed, the leads do not steer it), other leads
    net, back = got["net"]["moveInfos"], got["backup"]["moveInfos"]
    assert [m["move"] for m in net] == [m["move"] for m in back]
    assert [m["visits"] for m in net] == [m["visits"] for m in back]
    assert any(abs(a["scoreLead"] - b["scoreLead"]) > 1e-3 for a, b in zip(net, back))
