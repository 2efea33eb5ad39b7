"""GTP entry point: ``python gtp_main.py [--config FILE] [--set table.key=value ...]``;
without ``--config`` it serves the shipped, measured engine
(``configs/engine.toml``); every config's per-size tables
(``[size.<n>.<table>]``) are taken anew at every ``boardsize``, with the
``--set`` overrides and the session's ``go-param`` settings in them;
``python gtp_main.py analysis [...]`` speaks KataGo's JSON analysis protocol
instead (KaTrain; engine/gtp/analysis_json.py).

Loads the config, builds the engine and serves GTP on stdin/stdout.  Logs go
to stderr (or ``gtp.log_file``), never to stdout.  The net (torch) and the
search for ``gtp.boardsize`` are built before the first command is read
(``GtpServer.serve``), so the first ``genmove`` thinks for its whole time;
the first reply waits for that instead (a few seconds with a net).

The session ends, with exit code 0, at ``quit``, at the end of input (the
commands read are answered) or when stdout is closed (quietly, no
traceback); Ctrl-C ends it with exit code 130 and one line on stderr.  When
the process that started the engine goes (a shell between a client and the
engine, killed by the client's restart of its engine, while the client
keeps the pipes open), the engine ends too, searching or not, with exit
code 1 and one line on stderr."""
import argparse
import logging
import os
import sys
import threading
import time

PARENT_POLL = 0.5       # seconds between looks at the parent process


def watch_parent(poll=PARENT_POLL):
    """End this process when its parent goes: a daemon thread looks at
    the parent's pid every ``poll`` seconds; once the engine has been
    handed to another (the parent died), it says so on stderr and leaves at
    once (``os._exit``: the search's threads stop with the process, nothing
    runs at interpreter exit).  The parent, not the pipes: a client that
    started the engine through a shell holds the pipes itself, and killing
    the shell closes nothing.  Only an engine whose input is a pipe or a
    socket (a client's) is watched: one reading a file (``nohup ... <
    commands``) outlives the shell that started it; nor is one whose parent
    is pid 1 from the start (a container's daemon)."""
    import stat
    first = os.getppid()
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    if first <= 1 or not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None

    def run():
        while os.getppid() == first:
            time.sleep(poll)
        try:
            print("gtp_main: the process that started the engine is gone; exiting", file=sys.stderr, flush=True)
        finally:
            os._exit(1)

    t = threading.Thread(target=run, name="parent-watch", daemon=True)
    t.start()
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description="gomcts GTP engine (stdin/stdout)")
    ap.add_argument("mode", nargs="?", default="gtp", choices=("gtp", "analysis"),
                    help="gtp (default) or analysis: KataGo's JSON analysis protocol (KaTrain)")
    ap.add_argument("--config", help="TOML config file (default: configs/engine.toml, the shipped, measured "
                                     "engine, with its per-size tables taken at every boardsize)")
    ap.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                    help="override one config key; repeatable")
    ap.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING (default INFO)")
    ap.add_argument("--override-version", "-override-version", metavar="V",
                    help="the reply to GTP version (KataGo's flag; Lizzie reads version as Leela Zero's and "
                         "uses kata-analyze when the command line names this flag; docs/GTP.md)")
    args = ap.parse_args(argv)
    from engine.config import SHIPPED_CONFIG, ConfigError, load, pool_refused
    from engine.factory import check_weights, net_device
    try:
        cfg = load(args.config or SHIPPED_CONFIG, args.set)
        net_device(cfg)         # net.device = cuda where torch sees no GPU stops here
        check_weights(cfg)      # a net named that is not there stops here, not in silence
        why = pool_refused(cfg, cfg.gtp.boardsize)
        if why is not None:     # the first board's search could never be built
            raise ConfigError(why)
    except ConfigError as e:
        where = _named_in(args.config, str(e))
        print(f"gtp_main: {e}" + (f" (set in {where})" if where else ""), file=sys.stderr)
        return 2
    watch_parent()
    handler = logging.FileHandler(cfg.gtp.log_file) if cfg.gtp.log_file else logging.StreamHandler(sys.stderr)
    logging.basicConfig(level=args.log_level.upper(), handlers=[handler],
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.mode == "analysis":
        from engine.gtp.analysis_json import AnalysisServer
        try:
            AnalysisServer(cfg, out=sys.stdout).serve(sys.stdin)
        except KeyboardInterrupt:
            print("gtp_main: interrupted", file=sys.stderr)
            return 130
        return 0
    from engine.gtp.server import GtpServer
    server = GtpServer(cfg, out=sys.stdout)
    if args.override_version:
        server.version = args.override_version
    try:
        server.serve(sys.stdin)
    except KeyboardInterrupt:           # Ctrl-C at a terminal: one line, no traceback
        server.player.close()
        print("gtp_main: interrupted", file=sys.stderr)
        return 130
    if server.out_closed:      # the controller is gone: nothing left to flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _named_in(config_file, message):
    """The config file, when the key an error names is set in it rather
    than by --set (so that a user knows which file to mend), else None."""
    parts = [x.strip() for x in message.split(":")]
    key, value = parts[0], parts[1] if len(parts) > 2 else None
    if not config_file or "." not in key:
        return None
    table, name = key.rsplit(".", 1)
    try:
        import tomllib
        with open(config_file, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, ValueError):
        return None
    tables = [data.get(table, {})] + [t.get(table, {}) for t in (data.get("size") or {}).values()
                                      if isinstance(t, dict)]
    return config_file if any(isinstance(t, dict) and name in t and (value is None or str(t[name]) == value)
                              for t in tables) else None


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:           # during start-up (imports, loading the net)
        print("gtp_main: interrupted", file=sys.stderr)
        sys.exit(130)
