"""Whether the client is still there.

A GUI that crashes or is killed, or closes its ends of the pipes, leaves the
engine's output with no reader.  The servers (``engine.gtp.server``,
``engine.gtp.analysis_json``) watch their output while they serve: when its
reader has gone (a pipe whose read end closed reports POLLERR, a socket or
terminal POLLHUP), the running search stops at once and the session ends,
so no engine is left searching for nobody.  An output that is a regular
file never goes away (input from a script answered into a file is answered
in full), and the end of input alone, with the output still read, is not
the client going away either: every command read before it is answered.
"""
from __future__ import annotations

import select
import threading

POLL_S = 0.2


def output_gone(fd) -> bool:
    """True when the reader of file descriptor ``fd`` has gone (or ``fd``
    is no longer open)."""
    try:
        p = select.poll()
        p.register(fd, select.POLLERR | select.POLLHUP)
        return any(ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, ev in p.poll(0))
    except (OSError, ValueError):
        return True


class OutputWatch:
    """A daemon thread that calls ``on_gone`` once when the reader of
    ``out`` goes away; ``stop()`` ends it.  An ``out`` without a file
    descriptor (a test's StringIO) is not watched."""

    def __init__(self, out, on_gone, interval=POLL_S):
        self.on_gone, self.interval = on_gone, interval
        self._stop = threading.Event()
        try:
            self.fd = out.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.thread = None
        if self.fd is not None:
            self.thread = threading.Thread(target=self._run, daemon=True, name="output-watch")
            self.thread.start()

    def _run(self):
        while not self._stop.wait(self.interval):
            if output_gone(self.fd):
                self.on_gone()
                return

    def stop(self):
        self._stop.set()
