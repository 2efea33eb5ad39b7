"""The layers hold: gtp_main -> engine.gtp -> engine.player -> engine ->
board_ext, with tools/ standing on the engine.  Every import is read from
the source (lazy ones inside functions included)."""
import ast
import glob
import os
import re

from tests.conftest import ROOT



CYTHON = (".pyx", ".pxd", ".pxi")
_CY_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\s+\(?([\w ,]*)|c?import\s+([\w., ]+))", re.M)


def cython_imports(path):
    """Module names a Cython file imports or cimports (``from m import a``
    gives m and m.a), read from the text: ast does not parse Cython."""
    with open(path) as fh:
        text = fh.read()
    out = set()
    for m in _CY_IMPORT.finditer(text):
        if m.group(1):
            out.add(m.group(1))
            out.update(f"{m.group(1)}.{a.strip()}" for a in m.group(2).split(",") if a.strip())
        else:
            out.update(a.strip().split(" ")[0] for a in m.group(3).split(",") if a.strip())
    return out


def imports(path):
    """Module names a file imports, absolute and relative (resolved)."""
    if path.endswith(CYTHON):
        return cython_imports(path)
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
    """The Python and Cython sources under folder."""
    return sorted(p for ext in (".py",) + CYTHON
                  for p in glob.glob(os.path.join(ROOT, folder, "**", "*" + ext), recursive=True))


def compiled_lines(pyx):
    """Lines of a Cython module as it compiles: the .pyx with the text of
    every ``include``, nested ones too."""
    with open(pyx) as fh:
        text = fh.read()
    n = text.count("\n")
    for name in re.findall(r'^include\s+"([^"]+)"', text, re.M):
        n += compiled_lines(os.path.join(os.path.dirname(pyx), name))
    return n


def module_lines(pyx):
    """Lines of a compiled module with its own parts: the .pyx as it
    compiles (:func:`compiled_lines`), its .pxd, and the C headers of its
    folder that it declares ``cdef extern from``."""
    base = os.path.splitext(pyx)[0]
    n = compiled_lines(pyx)
    own = [base + ".pxd"]
    with open(pyx) as fh:
        own += [os.path.join(os.path.dirname(pyx), h) for h in re.findall(r'cdef extern from "([^"<>/]+\.h)"', fh.read())]
    return n + sum(open(p).read().count("\n") for p in own if os.path.exists(p))


# compiled modules over 900 lines with their own .pxd and headers, pinned at
# their size: they may shrink, never grow, and no other module joins them
COMPILED_OVER = {"board_ext/board.pyx": 1072, "board_ext/bhrf.pyx": 1020, "board_ext/playout.pyx": 927,
                 "engine/memkernel.pyx": 1107, "engine/pool.pyx": 917}


def test_compiled_modules_with_their_own_headers_are_pinned():
    """docs/HACKING.md: a compiled module counts with its .pxd and its own C
    headers; the ones over 900 lines are pinned where they stand."""
    over = {}
    for folder in ("board_ext", "engine"):
        for p in sorted(glob.glob(os.path.join(ROOT, folder, "*.pyx"))):
            n = module_lines(p)
            if n > 900:
                over[os.path.relpath(p, ROOT)] = n
    assert set(over) <= set(COMPILED_OVER), over
    assert all(over[k] <= COMPILED_OVER[k] for k in over), over


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


def test_a_compiled_kernel_imports_no_python_module_of_the_engine():
    """docs/HACKING.md: the compiled modules stand below the Python engine:
    a .pyx imports or cimports, of the engine, only its compiled modules
    (the board's floor, board_ext, is below them all; a bare walk.Tree takes its parameters from engine.factory.bare_tree, not
    from engine.config)."""
    compiled = {os.path.relpath(p, ROOT)[:-4].replace(os.sep, ".")
                for ext in (".pyx", ".pxd") for folder in ("board_ext", "engine")
                for p in glob.glob(os.path.join(ROOT, folder, "*" + ext))}
    bad = []
    for folder in ("board_ext", "engine"):
        for p in glob.glob(os.path.join(ROOT, folder, "*.pyx")):
            for name in cython_imports(p):
                if "." in name and name.split(".")[0] in ("engine", "nets", "tools") \
                        and name not in compiled and name.rsplit(".", 1)[0] not in compiled:
                    bad.append((os.path.relpath(p, ROOT), name))
    assert bad == []


def test_board_ext_imports_nothing_of_the_project():
    found = sources("board_ext")
    assert any(p.endswith(".pyx") for p in found) and any(p.endswith(".pxi") for p in found)
    assert hits(found, ["engine", "nets", "tools", "torch"]) == []


def test_the_cython_reader_sees_imports_and_cimports(tmp_path):
    f = tmp_path / "m.pyx"
    f.write_text("from libc.stdint cimport uint64_t\nfrom engine.tree cimport (node_t,\n    x)\n"
                 "cimport numpy as np\nimport time, os\n    from tools.label import a\n")
    got = cython_imports(str(f))
    assert {"libc.stdint", "engine.tree", "engine.tree.node_t", "numpy", "time", "os",
            "tools.label", "tools.label.a"} <= got
    assert sorted(n for _, n in hits([str(f)], ["tools"])) == ["tools.label", "tools.label.a"]


def test_no_source_file_over_700_lines_and_no_test_file_over_900():
    """docs/HACKING.md: no source file over 700 lines by its own text (a
    test file: 900)."""
    over = []
    for folder in ("board_ext", "engine", "nets", "tools", "bench", "tests"):
        limit = 900 if folder == "tests" else 700
        for p in sources(folder):
            n = open(p).read().count("\n")
            if n > limit:
                over.append((os.path.relpath(p, ROOT), n))
    over += [(os.path.basename(p), n) for p in glob.glob(os.path.join(ROOT, "*.py"))
             if (n := open(p).read().count("\n")) > 700]
    assert over == []


def test_no_compiled_module_over_900_lines_with_its_includes():
    """A Cython module counts with the parts it includes: at most 900."""
    over = [(os.path.relpath(p, ROOT), compiled_lines(p)) for folder in ("board_ext", "engine")
            for p in sources(folder) if p.endswith(".pyx") and compiled_lines(p) > 900]
    assert over == []


def test_an_include_counts_in_its_module(tmp_path):
    (tmp_path / "part.pxi").write_text("x = 1\n" * 500)
    (tmp_path / "whole.pyx").write_text('y = 2\ninclude "part.pxi"\n' + "z = 3\n" * 398)
    assert compiled_lines(str(tmp_path / "whole.pyx")) == 900
    (tmp_path / "whole.pyx").write_text('y = 2\ninclude "part.pxi"\n' + "z = 3\n" * 399)
    assert compiled_lines(str(tmp_path / "whole.pyx")) == 901

