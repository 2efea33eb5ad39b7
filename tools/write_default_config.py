"""Write configs/default.toml from engine/config.py (``make configs``).

    python -m tools.write_default_config [PATH]      # default: configs/default.toml

tests/unit/test_config.py compares the file's text with
:func:`engine.config.default_toml`, so the defaults and their comments have
one home: the dataclasses in engine/config.py.
"""
import os
import sys

from engine.config import default_toml
from atomicio import atomic_write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "configs", "default.toml")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else DEFAULT
    atomic_write(path, default_toml())
    print(f"wrote {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
