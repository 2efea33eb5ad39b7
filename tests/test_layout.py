"""The layers hold: gtp_main -> engine.gtp -> engine.player -> engine ->
board_ext, with tools/ standing on the engine.  Every import is read from
the source (lazy ones inside functions included)."""
import ast
import glob
import os

from tests.conftest import ROOT



def imports(path):
    """Module names a file imports, absolute and relative (resolved)."""
    rel = os.path.relpath(path, ROOT)[:-len(".py")].replace(os.sep, ".")
    pkg = rel.rsplit(".", 1)[0]
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def sources(folder):
    return sorted(glob.glob(os.path.join(ROOT, folder, "**", "*.py"), recursive=True))


def hits(paths, bad):
    found = []
    for p in paths:
        for name in imports(p):
            if any(name == b or name.startswith(b + ".") for b in bad):
                found.append((os.path.relpath(p, ROOT), name))
    return found


def test_the_engine_imports_no_tool_and_no_gtp_server():
    outside_gtp = [p for p in sources("engine") if os.sep + "gtp" + os.sep not in p]
    assert outside_gtp
    assert hits(outside_gtp, ["tools", "engine.gtp"]) == []
    assert hits(sources("engine/gtp"), ["tools"]) == []


def test_tools_and_nets_never_import_engine_gtp():
    assert sources("tools")
    assert hits(sources("tools"), ["engine.gtp"]) == []
    assert hits(sources("nets"), ["engine", "tools"]) == []


def test_the_settings_machinery_is_on_the_ground_floor():
    """tomlconf serves the engine, the nets and the tools and imports none of them."""
    assert hits([os.path.join(ROOT, "tomlconf.py")], ["engine", "nets", "tools", "board_ext"]) == []
    assert hits([os.path.join(ROOT, "atomicio.py")], ["engine", "nets", "tools", "board_ext"]) == []


def test_board_ext_imports_nothing_of_the_project():
    pyx = sorted(glob.glob(os.path.join(ROOT, "board_ext", "*.pyx")))
    for p in pyx:
        with open(p) as fh:
            text = fh.read()
        for bad in ("import engine", "from engine", "import nets", "from nets", "from tools"):
            assert bad not in text, (p, bad)

