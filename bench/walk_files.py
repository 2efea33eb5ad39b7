"""How far a newcomer walks to follow one GTP command: the project files a
command enters, from the GTP layer to the search and back, counted by
profiling it in-process (Python frames by their file; a compiled module's
functions by the module that defines them).

    python bench/walk_files.py [--size 9] [--playouts 200] [--command "genmove w"] [--list]

The set-up (boardsize, the net loaded, a first genmove by Black) runs
before the counted command, so only the command's own walk is counted: by
default White's genmove in a game under way (the tree kept from Black's
move, the net asked about positions it has not seen); ``--command
"boardsize 13"`` counts the trip from boardsize to the loaded net.  Prints
the files with ``--list``, and last ``files_entered: N files``.
"""
import argparse
import io
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)

PROJECT = ("engine", "nets", "board_ext", "tools")


def project_file(path_or_module):
    """The project-relative file of a frame's path or a compiled module's
    name, or None outside the project."""
    if path_or_module.endswith((".py", ".pyx")):
        rel = os.path.relpath(path_or_module, HERE)
        if rel.startswith("..") or rel.split(os.sep)[0] not in PROJECT + ("gtp_main.py",):
            return None
        return rel
    top = path_or_module.split(".")[0]
    if top not in PROJECT:
        return None
    mod = sys.modules.get(path_or_module)
    f = getattr(mod, "__file__", None) or path_or_module
    base = os.path.relpath(f, HERE).split(".")[0]
    for ext in (".pyx", ".py"):
        if os.path.exists(os.path.join(HERE, base + ext)):
            return base + ext
    return base


def walk(server, line):
    """The project files that answering ``line`` enters."""
    seen = set()

    def prof(frame, event, arg):
        if event == "call":
            f = project_file(frame.f_code.co_filename)
        elif event == "c_call":        # a compiled function, or a method of a compiled class
            mod = getattr(arg, "__module__", None) or type(getattr(arg, "__self__", None)).__module__
            f = project_file(mod or "")
        else:
            return
        if f:
            seen.add(f)
    import threading
    sys.setprofile(prof)
    threading.setprofile(prof)
    try:
        server.respond(line)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=200)
    ap.add_argument("--command", default="genmove w")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    from engine.config import load
    from engine.gtp.server import GtpServer
    cfg = load(None, ["search.seconds=0", f"search.playouts={a.playouts}", "search.threads=1"])
    srv = GtpServer(cfg, out=io.StringIO())
    for setup in (f"boardsize {a.size}", "clear_board", "genmove b"):
        srv.respond(setup)
    files = sorted(walk(srv, a.command))
    if a.list:
        for f in files:
            print(f)
    print(f"files_entered: {len(files)} files")


if __name__ == "__main__":
    main()
