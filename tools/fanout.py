"""Independent jobs (games, shards) fanned out to a local process pool or to Ray.

The tools that play many games (tools.selfplay, tools.match,
tools.experiment, tools.datagen) hand their list of jobs to a
:class:`Fanout` and get each job's result back on the driver, which alone
writes the run's records (atomically, once per job)::

    with Fanout(workers=2) as fan:                  # today's process pool
        for i, value, error in fan.imap(play, jobs):
            ...
    with Fanout(ray="local") as fan: ...            # a local Ray instance, all cores
    with Fanout(ray="10.0.0.5:6379") as fan: ...    # join a running cluster

``imap`` yields ``(index into jobs, value, None)`` or ``(index, None,
exception)`` in the order the jobs finish.  Without Ray, ``workers <= 1``
plays the jobs one after another in this process and ``workers > 1`` in a
process pool; ``ray`` is not imported at all.  On Ray each job is a task
(one CPU) retried ``max_retries`` times when its worker process or node dies,
so a job lost with its worker is played again; a job that raises is not
retried (the tool records or reports the error as it does without Ray).
:meth:`Fanout.placement` says where the jobs ran (node, jobs, seconds) and
:meth:`Fanout.summary` puts it in words.

Every node of a cluster needs the project at the same path as the driver,
built, with the same virtualenv (docs/SCALE.md).

``GOMCTS_FANOUT_CRASH_ONCE=DIR`` (tests): the first job on a Ray worker
that finds no ``DIR/crashed`` creates it and kills its own worker process, to show that
the job is played again and recorded once.
"""
from __future__ import annotations

import os
import signal
import socket
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONNECT_TIMEOUT = 3.0           # seconds to reach a --ray-address before giving up
DEFAULT_PORT = 6379             # `ray start --head` listens here unless told otherwise


class FanoutError(RuntimeError):
    """Ray could not be started or reached; the message is one line."""


def add_arguments(ap):
    """--ray, --ray-address and --ray-cpus on an argparse parser."""
    g = ap.add_argument_group("Ray (past one machine; docs/SCALE.md)")
    g.add_argument("--ray", action="store_true",
                   help="run the games as Ray tasks on a local Ray instance (all cores)")
    g.add_argument("--ray-address", metavar="HOST:PORT",
                   help="run the games on the running Ray cluster at HOST:PORT ('auto': the one "
                        "started on this machine with `ray start`)")
    g.add_argument("--ray-cpus", type=int, default=None, metavar="N",
                   help="with --ray: CPUs of the local instance (default: all cores)")


def ray_target(ap, args, workers=None):
    """None (no Ray), "local" or the address; ``ap.error`` for a conflict
    with ``--workers`` (``workers``: its value, None when not given), and
    exit 2 with one line when the address cannot be reached."""
    target = args.ray_address or ("local" if args.ray else None)
    if target is None:
        if args.ray_cpus is not None:
            ap.error("--ray-cpus needs --ray")
        return None
    if workers is not None and workers > 1:
        ap.error(f"--ray and --workers {workers} both say how to run games in parallel: "
                 f"give one (on Ray every CPU of the cluster plays a game)")
    if args.ray_cpus is not None and (args.ray_address or args.ray_cpus < 1):
        ap.error("--ray-cpus is a positive number of CPUs for the local instance of --ray")
    if target != "local":
        try:
            check_reachable(target)             # before any work, in a few seconds
        except FanoutError as e:
            ap.exit(2, f"{ap.prog}: {e}\n")
    return target


def check_reachable(address, timeout=CONNECT_TIMEOUT):
    """Raise FanoutError (one line naming ``address``) unless a TCP
    connection to it opens within ``timeout`` seconds and a Ray GCS answers
    there within ``timeout + 2`` ("auto" is left to Ray, which finds the
    cluster of this machine or fails at once)."""
    if address == "auto":
        return
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host:
        host, port = hostport, str(DEFAULT_PORT)
    try:
        port = int(port)
    except ValueError:
        raise FanoutError(f"Ray address '{address}' is not HOST:PORT") from None

    def fail(why):
        raise FanoutError(f"cannot reach the Ray cluster at {address} ({why}; gave up after at most "
                          f"{timeout:g} s); is `ray start --head` running there?")
    try:
        socket.create_connection((host.strip("[]"), port), timeout=timeout).close()
    except OSError as e:
        fail("timed out" if isinstance(e, socket.timeout) else (e.strerror or str(e)))
    # Something listens; ask it for what a Ray head's GCS answers, in a child
    # process that a hang cannot keep (ray.init itself retries for minutes).
    import subprocess
    try:
        r = subprocess.run([sys.executable, "-c", _PROBE, f"{host}:{port}"], capture_output=True,
                           text=True, timeout=timeout + 2)
    except subprocess.TimeoutExpired:
        fail("no answer from a Ray GCS")
    if r.returncode != 0:
        last = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
        fail(f"no Ray GCS answered: {last[-1][:120]}" if last else "no Ray GCS answered")


_PROBE = """import sys
from ray._raylet import GcsClient
GcsClient(address=sys.argv[1]).internal_kv_get(b"session_name", b"session")
"""


def _here_and_now():
    """(node label, time.time()) of the process running a job."""
    ray = sys.modules.get("ray")             # a Ray worker has it; nothing else imports it
    if ray is not None and ray.is_initialized():
        ctx = ray.get_runtime_context()
        return f"{ray.util.get_node_ip_address()} {ctx.get_node_id()[:8]}", time.time()
    return socket.gethostname(), time.time()


def _call(fn, job):
    """Run one job where it was sent: (value, node label, seconds)."""
    crash = os.environ.get("GOMCTS_FANOUT_CRASH_ONCE")
    if crash and "ray" in sys.modules:          # Ray workers only: a pool would just break
        try:
            fd = os.open(os.path.join(crash, "crashed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
    node, t0 = _here_and_now()
    value = fn(*job)
    return value, node, time.time() - t0


def _ignore_sigint():
    """Pool workers leave Ctrl-C to the driver, which ends them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Fanout:
    """Runs jobs locally (``workers``) or on Ray (``ray``: "local" or an
    address); use it as a context manager, so Ray is shut down and the
    jobs still queued are cancelled however the run ends."""

    def __init__(self, workers=1, ray=None, ray_cpus=None, max_retries=3, start_method="spawn"):
        self.workers = max(1, workers or 1)
        self.ray = ray
        self.ray_cpus = ray_cpus
        self.max_retries = max_retries
        self.start_method = start_method
        self._placement = {}
        self._pending = []
        self._ray_up = False

    # -- set-up and tear-down -------------------------------------------------
    def __enter__(self):
        if self.ray:
            self._connect()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _connect(self):
        import logging
        if self.ray != "local":
            check_reachable(self.ray)
        import ray
        kw = dict(log_to_driver=False, logging_level=logging.ERROR,
                  runtime_env={"env_vars": {"PYTHONPATH": HERE}})
        try:
            if self.ray == "local":
                ray.init(address="local", num_cpus=self.ray_cpus, include_dashboard=False, **kw)
            else:
                ray.init(address=self.ray, **kw)
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = "start a local Ray instance" if self.ray == "local" else f"join the Ray cluster at {self.ray}"
            raise FanoutError(f"cannot {where}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        self._ray_up = True

    def close(self):
        if self._ray_up:
            import ray
            for ref in self._pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:
                    pass
            self._pending = []
            ray.shutdown()
            self._ray_up = False

    # -- running --------------------------------------------------------------
    def imap(self, fn, jobs):
        """Yield (index, value, None) or (index, None, exception) per job of
        ``jobs`` (argument tuples for ``fn``, a module-level function), in
        the order they finish."""
        jobs = list(jobs)
        if self.ray:
            yield from self._imap_ray(fn, jobs)
        elif self.workers <= 1 or len(jobs) <= 1:
            for i, job in enumerate(jobs):
                try:
                    value, node, secs = _call(fn, job)
                except Exception as e:          # the caller decides (KeyboardInterrupt passes)
                    yield i, None, e
                else:
                    self._count(node, secs)
                    yield i, value, None
        else:
            yield from self._imap_pool(fn, jobs)

    def _imap_pool(self, fn, jobs):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed
        ctx = mp.get_context(self.start_method) if self.start_method else None
        ex = ProcessPoolExecutor(min(self.workers, len(jobs)), mp_context=ctx, initializer=_ignore_sigint)
        try:
            futs = {ex.submit(_call, fn, job): i for i, job in enumerate(jobs)}
            for f in as_completed(futs):
                try:
                    value, node, secs = f.result()
                except Exception as e:
                    yield futs[f], None, e
                else:
                    self._count(node, secs)
                    yield futs[f], value, None
        finally:
            procs = list((getattr(ex, "_processes", None) or {}).values())
            ex.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                if p.is_alive():                # a game in progress ends with the run
                    p.terminate()

    def _imap_ray(self, fn, jobs):
        import ray
        if not self._ray_up:
            self._connect()
        task = ray.remote(num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)(_call)
        index = {}
        for i, job in enumerate(jobs):
            index[task.remote(fn, job)] = i
        self._pending = list(index)
        while self._pending:
            ready, self._pending = ray.wait(self._pending, num_returns=1)
            for ref in ready:
                try:
                    value, node, secs = ray.get(ref)
                except ray.exceptions.RayTaskError as e:   # the job raised: its own exception
                    cause = getattr(e, "cause", None)
                    yield index[ref], None, cause if isinstance(cause, Exception) else e
                except ray.exceptions.RayError as e:       # lost more often than max_retries
                    yield index[ref], None, e
                else:
                    self._count(node, secs)
                    yield index[ref], value, None

    # -- where the jobs ran ---------------------------------------------------
    def _count(self, node, secs):
        n, s = self._placement.get(node, (0, 0.0))
        self._placement[node] = (n + 1, s + secs)

    def placement(self):
        """[{"node", "jobs", "seconds"}] of the jobs finished, by node."""
        return [{"node": k, "jobs": n, "seconds": round(s, 1)}
                for k, (n, s) in sorted(self._placement.items())]

    def summary(self, what="games"):
        """Where the jobs ran, in lines: a total, then one line per node."""
        rows = self.placement()
        total = sum(r["jobs"] for r in rows)
        where = "on Ray" if self.ray else "here"
        lines = [f"{total} {what} ran {where} on {len(rows)} node{'s' if len(rows) != 1 else ''}:"]
        one = what[:-1] if what.endswith("s") else what
        lines += [f"  {r['node']}: {r['jobs']} {one if r['jobs'] == 1 else what}, {r['seconds']:.1f} s"
                  for r in rows]
        return "\n".join(lines)
