"""Tactics suite: GNU Go regression files (``.tst``) run over GTP.

    python bench/tactics.py                                   # our engine, configs/9x9.toml
    python bench/tactics.py --set search.playouts=2000        # overrides passed to gtp_main.py
    python bench/tactics.py --engine "gnugo --mode gtp --level 10 --chinese-rules"
    python bench/tactics.py tests/data/tactics/ladder.tst     # some files only

The format is GNU Go's regression format.  A line ``N command`` (N a
number) is a test: the command is sent and its reply compared with the
answer on the next ``#? [answer]`` line.  Other command lines (``loadsgf
FILE``, ``komi 7`` ...) are sent as set-up, their replies not checked.
Lines starting with ``#`` (other than ``#?``) and blank lines are comments.

Answers: ``[C3]``, alternatives ``[C3|D4]``, negation ``[!C3]`` (anything
but C3) or ``[!C3|D4]`` (neither), ``PASS`` for a pass; vertices compare
case-insensitively and words split on whitespace (``[1 C3]`` matches a reply
``1 c3``).  A ``*`` after the closing bracket marks an expected failure (it
is reported as such, and still counts in the score as what it got).

One line per test: name, expected, got, ok; the last line is
``tactics: P/N``.  Paths in ``loadsgf`` are relative to the repository root,
where the engine runs.
"""
import argparse
import glob
import os
import re
import shlex
import sys
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SUITE = os.path.join("tests", "data", "tactics")


class TstError(ValueError):
    """A ``.tst`` file that does not parse; the message names file and line."""


@dataclass
class Test:
    file: str           # the .tst path as given
    number: int         # the test's number in its file
    line: int           # line of the numbered command
    setup: list         # commands sent before, in order
    command: str        # the test command
    answers: tuple      # normalised alternatives
    negate: bool        # True: anything but the answers
    expect_fail: bool   # '*' after the answer
    answer_text: str = field(default="")   # the answer as written

    @property
    def name(self):
        return f"{os.path.splitext(os.path.basename(self.file))[0]}:{self.number}"

    def check(self, reply):
        got = normalise(reply)
        hit = got in self.answers
        return hit != self.negate


def normalise(text):
    """Upper case, words split on whitespace, 'PASS' for any pass spelling."""
    words = text.strip().upper().split()
    return " ".join(words)


_TEST_RE = re.compile(r"^(\d+)\s+(\S.*)$")
_ANSWER_RE = re.compile(r"^#\?\s*\[(.*)\](\*?)\s*$")
_ALT_RE = re.compile(r"^[A-Za-z0-9 ]+$")


def parse_answer(body, where):
    neg = body.startswith("!")
    if neg:
        body = body[1:]
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    alts = [a.strip() for a in body.split("|")]
    for a in alts:
        if not a or not _ALT_RE.match(a):
            raise TstError(f"{where}: bad answer alternative '{a}' "
                           "(expected vertices or words separated by '|')")
    return tuple(normalise(a) for a in alts), neg


def parse_tst(path, text=None, root=ROOT, check_files=True):
    """The tests of one ``.tst`` file, in order; raises TstError naming the
    file and line of the first problem."""
    if text is None:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as e:
            raise TstError(f"{path}: cannot read ({e.strerror or e})") from None
    tests = []
    setup = []
    pending = None          # (number, command, line) waiting for its '#?'
    seen = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{path}:{lineno}"
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#?"):
            m = _ANSWER_RE.match(line)
            if not m:
                raise TstError(f"{where}: malformed answer line '{line}' (expected '#? [answer]')")
            if pending is None:
                raise TstError(f"{where}: answer line with no numbered command before it")
            answers, neg = parse_answer(m.group(1).strip(), where)
            num, cmd, cline = pending
            tests.append(Test(path, num, cline, list(setup), cmd, answers, neg,
                              bool(m.group(2)), m.group(1).strip()))
            pending = None
            continue
        if line.startswith("#"):
            continue
        if pending is not None:
            raise TstError(f"{path}:{pending[2]}: test {pending[0]} has no '#? [answer]' line after it")
        m = _TEST_RE.match(line)
        if m:
            num = int(m.group(1))
            if num in seen:
                raise TstError(f"{where}: test number {num} already used on line {seen[num]}")
            seen[num] = lineno
            pending = (num, m.group(2).strip(), lineno)
            continue
        if line[0].isdigit():
            raise TstError(f"{where}: numbered line with no command: '{line}'")
        words = line.split()
        if words[0] == "loadsgf":
            if len(words) < 2:
                raise TstError(f"{where}: loadsgf needs a file")
            if check_files and not os.path.isfile(os.path.join(root, words[1])):
                raise TstError(f"{where}: loadsgf file '{words[1]}' does not exist "
                               "(paths are relative to the repository root)")
            setup = []          # a new position: earlier set-up no longer applies
        setup.append(line)
    if pending is not None:
        raise TstError(f"{path}:{pending[2]}: test {pending[0]} has no '#? [answer]' line after it")
    return tests


def default_engine(sets):
    cmd = [sys.executable, "gtp_main.py", "--config", "configs/9x9.toml", "--log-level", "WARNING"]
    for s in sets:
        cmd += ["--set", s]
    return cmd


def run(tests, command, timeout=600, out=sys.stdout, restart_each_file=False):
    """Run the tests over GTP; returns (passed, total, rows)."""
    from tools.gtp_client import EngineDied, GtpClient, GtpError
    rows = []
    client = None
    current_file = None
    passed = 0
    width = max((len(t.name) for t in tests), default=8)
    try:
        for t in tests:
            if client is None or (restart_each_file and t.file != current_file):
                if client is not None:
                    client.close()
                client = GtpClient(command, timeout=timeout)
                current_file = t.file
            t0 = time.time()
            try:
                for s in t.setup:
                    client.send(s)
                got = client.send(t.command)
            except GtpError as e:
                got = f"?{e}"
            except EngineDied as e:
                got = f"?died: {e}"
                client = None
            dt = time.time() - t0
            ok = t.check(got) if not got.startswith("?") else False
            passed += ok
            exp = ("!" if t.negate else "") + t.answer_text.lstrip("!")
            flag = "ok" if ok else ("FAIL (expected)" if t.expect_fail else "FAIL")
            print(f"{t.name:<{width}}  expected {exp:<14} got {got or '-':<8} {flag}  ({dt:.1f}s)",
                  file=out, flush=True)
            rows.append((t, got, ok, dt))
    finally:
        if client is not None:
            client.close()
    return passed, len(tests), rows


def main(argv=None):
    ap = argparse.ArgumentParser(description="run the tactics suite over GTP")
    ap.add_argument("files", nargs="*", help=f".tst files (default: {SUITE}/*.tst)")
    ap.add_argument("--engine", help="GTP engine command (default: our engine, "
                    "gtp_main.py --config configs/9x9.toml)")
    ap.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                    help="config override for our engine; repeatable")
    ap.add_argument("--only", help="comma-separated test names (nakade:3) or file names (nakade)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command (default 600)")
    args = ap.parse_args(argv)
    given = []
    for f in args.files:
        rel = os.path.relpath(os.path.abspath(f), ROOT)
        given.append(os.path.abspath(f) if rel.startswith("..") else rel)
    os.chdir(ROOT)          # loadsgf paths are relative to the repository root
    files = given or sorted(glob.glob(os.path.join(SUITE, "*.tst")))
    if not files:
        print(f"tactics: no .tst files in {SUITE}", file=sys.stderr)
        return 2
    tests = []
    try:
        for f in files:
            tests += parse_tst(f)
    except TstError as e:
        print(f"tactics: {e}", file=sys.stderr)
        return 2
    if args.only:
        want = [w.strip() for w in args.only.split(",") if w.strip()]
        tests = [t for t in tests if any(t.name == w or t.name.split(":")[0] == w for w in want)]
    if args.engine:
        if args.set:
            print("tactics: --set applies to our engine only, not to --engine", file=sys.stderr)
            return 2
        command = shlex.split(args.engine)
    else:
        command = default_engine(args.set)
    t0 = time.time()
    passed, total, _ = run(tests, command, timeout=args.timeout)
    print(f"# {time.time() - t0:.0f}s, engine: {' '.join(shlex.quote(c) for c in command)}")
    print(f"tactics: {passed}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
