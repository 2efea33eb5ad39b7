"""Quiet cores: an equal-clock match says it needs them, and the jobs that
share the machine at a lower priority wait between games.

A queue that runs an equal-clock match holds a file (:func:`hold`, the
process id inside it); a queue run with ``--fixed-only`` passes its path to
its matches (``tools.match --wait-while PATH``), which start no new game
while the file names a live process (:func:`busy`).  A file left by a
process that died holds nothing.
"""
import contextlib
import os
import time

from atomicio import atomic_write

QUIET = os.path.join("runs", "quiet-cores")


def busy(path):
    """Whether ``path`` names a live process that holds the cores."""
    try:
        with open(path) as fh:
            pid = int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    try:
        os.kill(pid, 0)                 # no signal: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:             # it exists, under another user
        pass
    return True


@contextlib.contextmanager
def hold(path, what=""):
    """Hold the cores while the block runs (the file is removed after it)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    atomic_write(path, f"{os.getpid()} {what}\n")
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)


def wait(path, stop=None, poll=10.0, say=None):
    """Return once ``path`` holds nothing (or ``stop``, an Event, is set);
    ``say`` is called once if it has to wait."""
    told = False
    while busy(path) and not (stop is not None and stop.is_set()):
        if say is not None and not told:
            say()
            told = True
        time.sleep(poll)
