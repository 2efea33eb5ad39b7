"""A search on its own thread until it is stopped: the Player's pondering
and streaming analysis (lz-analyze, kata-analyze, JSON reports during a
search), and GTP's searches between commands."""
import logging
import threading

log = logging.getLogger("gomcts.player")

ANALYSIS_PLAYOUTS = 10**9          # "until stopped" (pondering, streaming analysis)


def rows_callback(on_info):
    """A search's callback that hands ``on_info`` the search's root
    analysis rows (a failed analysis is logged, the search goes on)."""
    def cb(srch):
        try:
            rows = srch.analysis()
        except Exception:
            log.exception("analysis line failed")
            return
        on_info(rows)
    return cb


class Thinking:
    """A search of a set position on its own thread, from :meth:`start`
    until :meth:`stop` (pondering, streaming analysis).  ``done`` is set
    when the search ended by itself (the pool policy ``stop`` fired)."""

    def __init__(self, search, name, on_info=None, interval=0.1):
        self.search = search
        self.name = name
        self._on_info = on_info
        self._interval = interval
        self._stop = threading.Event()
        self.done = threading.Event()
        self._thread = None

    def _work(self):
        kw = {}
        if self._on_info is not None:
            kw = {"callback": rows_callback(self._on_info), "callback_interval": self._interval}
        try:
            self.search.run(playouts=ANALYSIS_PLAYOUTS, seconds=None, stop_event=self._stop, **kw)
        except Exception:
            log.exception("%s search failed", self.name)
        finally:
            self.done.set()

    def start(self):
        self._thread = threading.Thread(target=self._work, daemon=True, name=f"player-{self.name}")
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
