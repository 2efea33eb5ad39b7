"""README's code map is the tree: every file it names exists, and every
source file of the engine, the board, the nets and the tools is named."""
import glob
import os
import re

from tests.conftest import ROOT


def mapped():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    table = text[text.index("## Code map"):]
    table = table[:table.index("\n\n", table.index("| file |"))]
    return set(re.findall(r"`([\w/.]+\.(?:py|pyx|pxd))`", table))


def test_every_mapped_file_exists():
    assert len(mapped()) > 30
    missing = [f for f in mapped() if not os.path.exists(os.path.join(ROOT, f))]
    assert missing == []


def test_every_source_file_is_mapped():
    names = mapped()
    src = []
    for pat in ("board_ext/*.pyx", "engine/*.pyx", "engine/*.py", "engine/gtp/*.py", "nets/*.py",
                "tools/*.py", "*.py"):
        src += [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pat))]
    skip = {"setup.py"}
    unmapped = sorted(p for p in src if not p.endswith("__init__.py") and p not in skip and p not in names)
    assert unmapped == []
