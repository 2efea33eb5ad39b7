"""Root parallelism (Cazenave & Jouandeau 2007): ``search.threads`` searches
of the same position in separate processes, their root statistics merged.

The main process runs one ``Search``; ``threads - 1`` worker processes run
one each with a different seed, on the same budget split evenly.  Root
children are merged by move: visits add, win rates are visit-weighted.
Each process keeps its own tree (reused between moves) inside its own node
pool, so the memory bound per process is unchanged.  Workers build their
evaluator from the config (the net is loaded once per worker).
"""
import multiprocessing as mp
import threading

from engine.search import RESIGN, Search, SearchResult


def _worker(conn, cfg, seed, stop, build):
    """One worker process: ``build(cfg, size)`` makes its search (passed in
    by engine.factory, so this module imports no factory)."""
    from engine import config as config_mod
    cfg = config_mod.replace(cfg, **{"search.seed": seed, "search.threads": 1})
    search = None
    size = None
    while True:
        msg = conn.recv()
        op = msg[0]
        if op == "quit":
            break
        if op == "pos":
            board, komi = msg[1], msg[2]
            if search is None or board.size != size:
                size = board.size
                search = build(cfg, size)
            search.set_position(board, komi)
        elif op == "run":
            r = search.run(playouts=msg[1], seconds=msg[2], stop_event=stop)
            conn.send((r, search.analysis()))
        elif op == "clear":
            if search is not None:
                search.clear()
        elif op == "pool":
            cfg = config_mod.replace(cfg, **{"pool.pool_size": msg[1]})
            if search is not None:
                search.set_pool_size(msg[1])


class RootParallelSearch:
    """The Search API over ``cfg.search.threads`` processes.  ``build(cfg,
    size)``, a module-level function (it is sent to the workers), makes a
    worker's search (engine.factory.worker_search)."""

    def __init__(self, cfg, evaluator=None, memory=None, *, build):
        self.cfg = cfg
        self.local = Search(cfg, evaluator=evaluator, memory=memory)
        ctx = mp.get_context("spawn")
        self._stop = ctx.Event()
        self._workers = []
        for i in range(cfg.search.threads - 1):
            a, b = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(b, cfg, self.local.seed + 7919 * (i + 1), self._stop,
                                                  build), daemon=True)
            p.start()
            self._workers.append((p, a))
        self._merged = None
        self.last_result = None

    # the attributes GTP and tests read from a Search
    @property
    def seed(self):
        return self.local.seed

    @property
    def tree(self):
        return self.local.tree

    @property
    def root_board(self):
        return self.local.root_board

    def set_position(self, board, komi, endgame=None):
        for _, c in self._workers:
            c.send(("pos", board, komi))
        self._merged = None
        return self.local.set_position(board, komi, endgame=endgame)

    def clear(self):
        for _, c in self._workers:
            c.send(("clear",))
        self.local.clear()

    def set_pool_size(self, n):
        for _, c in self._workers:
            c.send(("pool", n))
        self.local.set_pool_size(n)
        self.cfg = self.local.cfg

    def pool_stats(self):
        st = dict(self.local.pool_stats())
        st["processes"] = len(self._workers) + 1
        return st

    def stop(self):
        self._stop.set()
        self.local.stop()

    def run(self, playouts=None, seconds=None, stop_event=None, callback=None, callback_interval=0.1):
        c = self.cfg.search
        if playouts is None and seconds is None:
            playouts = c.playouts
            seconds = c.seconds or None
        k = len(self._workers) + 1
        share = None if playouts is None else max(1, playouts // k)
        self._stop.clear()
        for _, conn in self._workers:
            conn.send(("run", share, seconds))
        relay = None
        if stop_event is not None:
            def _relay():
                stop_event.wait()
                self._stop.set()
            relay = threading.Thread(target=_relay, daemon=True)
            relay.start()
        local = self.local.run(playouts=None if playouts is None else playouts - share * (k - 1),
                               seconds=seconds, stop_event=stop_event, callback=callback,
                               callback_interval=callback_interval)
        if local.stopped_by == "interrupt":
            self._stop.set()      # an interrupt stops the workers too
        results = [local]
        analyses = [self.local.analysis()]
        for _, conn in self._workers:
            r, an = conn.recv()
            results.append(r)
            analyses.append(an)
        self._merged = _merge(analyses)
        res = self._result(results)
        self.last_result = res
        return res

    def analysis(self, max_children=None):
        an = self._merged if self._merged is not None else self.local.analysis()
        return an[:max_children] if max_children else an

    def _result(self, results):
        an = self._merged
        local = results[0]
        playouts = sum(r.playouts for r in results)
        if not an or local.move == RESIGN and all(r.move == RESIGN for r in results):
            return SearchResult(local.move, local.winrate, local.visits, playouts, local.seconds,
                                local.pv, local.stopped_by)
        best = an[0]
        nn = self.local.root_board.size ** 2
        move = best["move"]
        if move == nn:
            move = self.local._endgame().safe_pass(an)
        d = next(x for x in an if x["move"] == move)
        return SearchResult(move, d["winrate"], sum(x["visits"] for x in an), playouts,
                            max(r.seconds for r in results), d["pv"], local.stopped_by,
                            child_visits={x["move"]: float(x["visits"]) for x in an})

    def close(self):
        for p, c in self._workers:
            try:
                c.send(("quit",))
            except (BrokenPipeError, OSError):
                pass
            p.join(timeout=2)
        self._workers = []

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _merge(analyses):
    by = {}
    for an in analyses:
        for d in an:
            m = d["move"]
            e = by.setdefault(m, {"move": m, "visits": 0, "wsum": 0.0, "prior": d["prior"], "pv": d["pv"],
                                  "best_local": -1, "N": 0.0})
            e["visits"] += d["visits"]
            e["N"] += d["N"]
            e["wsum"] += d["winrate"] * max(d["visits"], 1)
            if d["visits"] > e["best_local"]:
                e["best_local"] = d["visits"]
                e["pv"] = d["pv"]
    out = []
    for e in by.values():
        n = e["visits"]
        wr = e["wsum"] / max(n, 1) if n else 0.5
        sd = (max(wr * (1 - wr), 1e-9) / max(n, 1)) ** 0.5
        out.append({"move": e["move"], "visits": n, "winrate": wr, "prior": e["prior"],
                    "lcb": max(0.0, wr - 1.96 * sd), "pv": e["pv"], "N": e["N"]})
    out.sort(key=lambda d: (-d["visits"], -d["winrate"]))
    return out
