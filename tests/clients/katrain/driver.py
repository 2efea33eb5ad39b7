"""Drive the real KaTrain (its own engine, game and AI classes, headless)
against this engine's JSON analysis server.  Run by tests/clients/test_katrain_real.py
with the Python of a throwaway environment that holds KaTrain 1.20.0:

    python driver.py "<engine command line>" OUT.json

It writes what KaTrain saw, one entry a check, as JSON."""
import json
import os
import sys
import threading
import time
import traceback

os.environ.setdefault("KIVY_NO_WINDOW", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from katrain.core.ai import generate_ai_move                     # noqa: E402
from katrain.core.base_katrain import KaTrainBase                 # noqa: E402
from katrain.core.constants import AI_DEFAULT, AI_SIMPLE_OWNERSHIP  # noqa: E402
from katrain.core.engine import KataGoEngine                     # noqa: E402
from katrain.core.game import Game, Move                          # noqa: E402


class Nop:
    """The window's widgets: every attribute and call does nothing."""

    def __getattr__(self, name):
        return Nop()

    def __call__(self, *args, **kwargs):
        return None


class Headless(KaTrainBase):
    """KaTrain without its window: the messages it would show are kept."""

    def __init__(self):
        super().__init__(force_package_config=True, debug_level=0)
        self.messages = []
        self.controls = Nop()
        self.pondering = False

    def __call__(self, message, *args, **kwargs):
        self.messages.append([message] + [str(a) for a in args])

    def update_state(self, *args, **kwargs):
        pass


def say(msg):
    print(f"driver: {msg}", file=sys.stderr, flush=True)


def wait(cond, seconds):
    t0 = time.time()
    while time.time() - t0 < seconds:
        if cond():
            return True
        time.sleep(0.05)
    return False


def main(command, out_path):
    kt = Headless()
    cfg = dict(kt.config("engine"), altcommand=command, max_visits=60, fast_visits=16, max_time=8.0)
    engine = KataGoEngine(kt, cfg)
    out = {}
    try:
        for size, moves in ((9, ["E5", "C3", "G7", "C7", "G3"]), (19, ["Q16", "D4", "Q4", "D16", "R10"])):
            kt._config["game"] = dict(kt.config("game"), size=size, komi=7.0 if size == 9 else 6.5)
            game = Game(kt, engine, game_properties={"SZ": size, "KM": 7.0 if size == 9 else 6.5, "RU": "japanese"})
            kt.game = game
            for i, m in enumerate(moves):
                game.play(Move.from_gtp(m, player="BW"[i % 2]))
            nodes = game.root.nodes_in_tree
            ok = wait(lambda: all(n.analysis_complete for n in nodes), 120)
            say(f"{size}: analysis complete {ok}: {[n.analysis_complete for n in nodes]}")
            cn = game.current_node
            out[f"analysis_{size}"] = {
                "complete": ok,
                "nodes": len(nodes),
                "root_visits": cn.analysis["root"]["visits"] if cn.analysis.get("root") else None,
                "score": cn.score, "winrate": cn.winrate,
                "candidates": [[d["move"], d["visits"], d["scoreLead"], d["pointsLost"], d["order"]]
                               for d in cn.candidate_moves],
                "ownership_len": len(cn.ownership or []),
                "policy_ranking": [[m.gtp(), p] for p, m in (cn.policy_ranking or [])[:3]],
                "format_score": cn.format_score(),
                "points_lost_last": nodes[-1].points_lost,
            }
            # find alternatives: KaTrain avoids the moves it has and asks again
            before = set(cn.analysis["moves"].keys())
            game.analyze_extra("alternative")
            ok2 = wait(lambda: len(cn.analysis["moves"]) > len(before) and cn.analysis_complete, 120)
            say(f"{size}: alternatives {ok2}")
            out[f"alternatives_{size}"] = {"done": ok2, "before": sorted(before),
                                           "new": sorted(set(cn.analysis["moves"]) - before)}
        # continuous analysis (KaTrain's ponder): partial results arrive while it searches
        kt._config["game"] = dict(kt.config("game"), size=9, komi=7.0)
        game = Game(kt, engine, game_properties={"SZ": 9, "KM": 7.0, "RU": "japanese"})
        kt.game = game
        game.play(Move.from_gtp("E5", player="B"))
        wait(lambda: game.current_node.analysis_complete, 120)
        partial = []
        node = game.current_node
        lock = threading.Lock()

        def seen(result, partial_result):
            with lock:
                partial.append([bool(partial_result), result["rootInfo"]["visits"]])
            node.set_analysis(result, None, None, partial_result=partial_result)
        engine.request_analysis(node, callback=seen, ponder=True, report_every=0.25, priority=1000)
        # a loaded CI machine may be slow to start: wait for the partials, not a fixed time
        def partials():
            with lock:
                return sum(1 for p, _ in partial if p)
        started = wait(lambda: partials() >= 4, 120)
        engine.stop_pondering()

        # the final answer comes when the engine has stopped: wait for it, not a fixed time
        def final():
            with lock:
                return bool(partial) and not partial[-1][0]
        ended = wait(final, 120)
        with lock:
            out["ponder"] = {"results": list(partial), "started": started, "ended": ended}
        # the AIs play
        ais = {}
        for mode in (AI_DEFAULT, AI_SIMPLE_OWNERSHIP):
            settings = kt.config(f"ai/{mode}") or {}
            wait(lambda: game.current_node.analysis_complete, 120)
            try:
                move, node = generate_ai_move(game, mode, settings)
                ais[mode] = {"move": move.gtp() if move else None, "played": node is not None}
            except Exception as e:  # KaTrain's own failure, reported to the test
                ais[mode] = {"error": f"{type(e).__name__}: {e}"}
        out["ai"] = ais
    except Exception:
        out["error"] = traceback.format_exc()
        say(out["error"])
    out["messages"] = kt.messages
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
    if engine.katago_process is not None:
        engine.katago_process.kill()          # the test ends here; no need to wait for KaTrain's threads
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
