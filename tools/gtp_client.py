"""Drive an external GTP engine (GNU Go and friends) over a pipe."""
import os
import shlex
import shutil
import subprocess
import sys
import threading


class GtpError(RuntimeError):
    """The engine replied with ``? message``."""


class EngineDied(RuntimeError):
    """The engine closed its pipe, crashed or did not answer in time."""


class GtpClient:
    """A GTP engine as a subprocess; ``send`` returns the reply text."""

    def __init__(self, command, timeout=None, stderr=subprocess.DEVNULL):
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.command = argv
        self.timeout = timeout
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, text=True, bufsize=1)

    def send(self, line, timeout=None):
        """Send one command, return the reply body; raise GtpError on ``?``."""
        timeout = self.timeout if timeout is None else timeout
        try:
            self.proc.stdin.write(line.strip() + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineDied(f"engine pipe closed: {e}") from None
        lines = []
        timer = None
        fired = threading.Event()

        def kill():
            fired.set()
            self.proc.kill()

        try:
            if timeout:     # started inside the try: a Ctrl-C during start() still cancels it
                timer = threading.Timer(timeout, kill)
                timer.daemon = True     # never keeps the interpreter from exiting
                timer.start()
            while True:
                ln = self.proc.stdout.readline()
                if ln == "":
                    if fired.is_set():
                        raise EngineDied(f"engine timed out on '{line.strip()}'")
                    raise EngineDied(f"engine exited (command '{line.strip()}')")
                ln = ln.rstrip("\r\n")
                if ln == "" and lines:
                    break
                if ln == "" and not lines:
                    continue
                lines.append(ln)
        finally:
            if timer is not None:
                timer.cancel()
        if fired.is_set():
            raise EngineDied(f"engine timed out on '{line.strip()}'")
        head = lines[0]
        body = "\n".join([head[1:]] + lines[1:])
        # strip optional id
        parts = body.split(None, 1) if body and body[0].isdigit() else None
        if parts is not None:
            body = parts[1] if len(parts) > 1 else ""
        body = body.strip()
        if head.startswith("?"):
            raise GtpError(body)
        if not head.startswith("="):
            raise EngineDied(f"malformed reply '{head}'")
        return body

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# GNU Go from Debian; the GNUGO environment variable names another binary
GNUGO = os.environ.get("GNUGO", "/usr/games/gnugo")


def gnugo_command(level=10, extra=""):
    return f"{GNUGO} --mode gtp --chinese-rules --level {level} {extra}".strip()


def resolve_command(cmd):
    """argv list of a command line; a bare 'gnugo' finds /usr/games/gnugo,
    and a bare 'python' or 'python3' is the interpreter running the match
    (the one with this project's dependencies: "python gtp_main.py" from
    outside the virtual environment would start a Python without torch,
    and so an engine without its net)."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    if argv and os.path.sep not in argv[0] and shutil.which(argv[0]) is None:
        for d in ("/usr/games", "/usr/local/games"):
            if os.access(os.path.join(d, argv[0]), os.X_OK):
                argv[0] = os.path.join(d, argv[0])
                break
    return argv
