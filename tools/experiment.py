"""Paper experiments: two configs of our engine, game after game.

    python -m tools.experiment configs/paper/pool-fig2.toml [--games N] [--workers W]
                                [--only SERIES] [--report-only] [--out DIR] [--publish]
                                [--ray | --ray-address HOST:PORT]

A run writes only to its out folder (default ``runs/paper/<name>``, which git
ignores): the games, and the report, plot and tallies as
``<out>/report.md``, ``report.png`` and ``tallies.json``.  ``--publish``
makes it a published row: the report and plot go to
``docs/results/<name>.md/.png``, the tallies to ``records/results/``, each
variant's records to ``records/games/<name>/``, all listed in the manifest.

The games run in ``--workers`` processes (default: the file's ``workers``)
or as Ray tasks (``--ray``: a local Ray instance, all cores;
``--ray-address``: a running cluster; tools.fanout, docs/SCALE.md); either
way this process writes every record.

An experiment file names a board, a baseline and variants::

    name = "pool-fig2"            # published to docs/results/<name>.md/.png
    title = "..."
    size = 9
    komi = 7.0
    games = 100                   # per variant (a variant may override)
    workers = 2
    common = ["search.playouts=1000"]        # --set overrides for both sides
    baseline = ["pool.pool_size=1000000"]    # the reference engine
    x_label = "node pool size"
    x_log = true
    [[variant]]
    series = "recycle"            # one line of the plot
    x = 50                        # its x value
    sets = ["pool.pool_size=50"]  # on top of common, for the tested engine

``seconds = S`` (top level) plays every move at S seconds instead of a
simulation budget; a variant's own ``seconds`` overrides it for that
variant's games.  A variant's ``first_game = K`` plays its games from the
K-th on: game i has the same seed and colours in every run, so a series
whose first K - 1 games were played and tallied without their records
kept goes on with the games that run would have played next.

Both engines run in one worker process as ``engine.player.Player`` objects
(the engine GTP serves, with its pass rule; no GTP text), colours alternate
(the variant is Black in even games), games end after two passes, a
resignation or ``3*size*size`` moves, and the final position is scored by
area (Tromp-Taylor; both players treat two passes that way, so neither
passes with dead stones that would lose).  Every game
is written atomically to ``runs/paper/<name>/<variant>/game-NNNN.json``, so
an interrupted run resumes where it stopped.  A published run, and
``--report-only --publish``, also keep each variant's records in
``records/games/<name>/`` (one gzipped JSON line a game); every run writes
back the archived records missing under the out directory before it
starts, so a run stopped short of its target resumes in a fresh checkout
too.  The report gives each variant's win rate with its
Wilson 95% interval.  What the figures mean is written by hand under the
report's ``## Notes`` heading (docs/results/<name>.md), which a new report
keeps; the experiment file holds settings only.
"""
import argparse
import dataclasses
import gzip
import json
import math
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass

from board_ext.board import BLACK, WHITE
from engine import config as config_mod
from engine.config import setting
from tools import publish, stats
from tools.fanout import Fanout, FanoutError, add_arguments, ray_target
from atomicio import atomic_savefig, atomic_write
from engine.search import RESIGN

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ExperimentError(config_mod.ConfigError):
    """A malformed experiment file; the message names the file and the key."""


@dataclass(frozen=True)
class Variant:
    """One ``[[variant]]`` table: a row of the report, a point of the plot."""
    series: str = setting(None, required=True, doc="the line of the plot")
    x: float = setting(None, required=True, number=True, doc="its x value")
    sets: tuple = setting((), item=str, doc="--set overrides on top of common, for the tested engine")
    games: int = setting(None, 1, 10**6, doc="games of this variant; default the experiment's")
    label: str = setting(None, doc="its name in the report and on disk; default <series>-<x>")
    baseline: tuple = setting(None, item=str, doc="this variant's reference engine; default the experiment's")
    seconds: float = setting(None, 0.001, 86400.0, doc="seconds a move for this variant's games")
    first_game: int = setting(None, 1, 10**6, doc="play its games from this one on (default 1)")


@dataclass(frozen=True)
class Experiment:
    """An experiment file's top-level keys (``[[variant]]`` tables apart)."""
    name: str = setting(None, required=True, doc="results go to docs/results/<name>.md/.png/.json")
    title: str = setting(None)
    paper: str = setting(None, doc="what it reproduces")
    size: int = setting(None, 2, 19, required=True)
    komi: float = setting(7.0, -1000.0, 1000.0)
    games: int = setting(100, 1, 10**6, doc="games a variant")
    workers: int = setting(2, 1, 4096)
    engine: str = setting(None, doc="the engine config both sides start from, a path from the repository's "
                          "root (configs/engine.toml: the engine users get); default the built-in defaults")
    common: tuple = setting((), item=str, doc="--set overrides for both sides")
    baseline: tuple = setting((), item=str, doc="--set overrides of the reference engine")
    x_label: str = setting(None)
    x_log: bool = setting(False)
    seconds: float = setting(None, 0.001, 86400.0, doc="seconds a move instead of a simulation budget")
    variant: tuple = setting(None, required=True, item=dict, doc="the [[variant]] tables")


def _as_dict(settings):
    """The keys given (or defaulted) of a settings dataclass, lists as lists."""
    return {k: list(v) if isinstance(v, tuple) else v
            for k, v in ((f.name, getattr(settings, f.name)) for f in dataclasses.fields(settings))
            if v is not None}


def load(path):
    """An experiment file as a dict, every key checked by engine/config.py's
    machinery (types, ranges, unknown and missing keys named; ``base =``
    includes a file whose keys this one overrides, its variants replaced by
    this file's when it has any) and every variant's settings on both
    sides checked as engine configs."""
    try:
        data = config_mod.read(path)
        tables = data.get("variant")
        if not isinstance(tables, list) or not all(isinstance(v, dict) for v in tables):
            raise config_mod.ConfigError("missing config key 'variant' ([[variant]] tables)")
        exp = _as_dict(config_mod.build_table(Experiment, dict(data, variant=[])))
    except config_mod.ConfigError as e:
        raise ExperimentError(f"{path}: {e}") from None
    exp["variant"] = []
    for i, table in enumerate(tables):
        try:
            exp["variant"].append(_as_dict(config_mod.build_table(Variant, table)))
        except config_mod.ConfigError as e:
            raise ExperimentError(f"{path}: variant {i + 1} ('{table.get('series', '?')}'): {e}") from None
    base = engine_path(exp.get("engine"))
    if base is not None and not os.path.isfile(base):
        raise ExperimentError(f"{path}: engine: no config file {exp['engine']!r}")
    # validate every config up front, naming the bad key
    for v in exp["variant"]:
        try:
            config_mod.load(base, exp["common"] + v.get("sets", []))
            config_mod.load(base, exp["common"] + v.get("baseline", exp["baseline"]))
        except config_mod.ConfigError as e:
            raise ExperimentError(f"{path}: variant '{v['series']}': {e}") from None
    return exp


def engine_path(engine):
    """An experiment's ``engine`` config as a file (None: the built-in defaults)."""
    return None if engine is None else os.path.join(HERE, engine)


def variant_label(v):
    return v.get("label") or f"{v['series']}-{v['x']}"


_EVAL_CACHE = {}


def make_engine(sets, size, side=0, engine=None):
    """A Player (engine.player: the engine as GTP serves it, pass rule
    included) for config overrides `sets`, and its config, built as GTP
    builds it (engine.factory.build_search: a missing net falls back to
    the expert priors, or stops with NoNetError under net.required).  The
    net is loaded once per worker process and side: each side has its own
    evaluator, so its own cache of net outputs (a cache shared by both
    would hand one side the forward passes the other paid for: at equal
    time, free simulations).  ``engine``: a config file the overrides are
    laid over (an experiment's ``engine`` key), else the built-in defaults."""
    from engine import factory
    from engine.player import Player
    cfg = config_mod.load(engine_path(engine), sets)
    net_cfg = config_mod.replace(cfg, **{"prior.evaluator": "net"})

    def net_for_size(sz):
        key = (sz, config_mod.at_size(cfg, sz).net, side)       # every [net] key (device, cache size...) counts
        if key not in _EVAL_CACHE:
            _EVAL_CACHE[key] = factory.load_evaluator(net_cfg, sz)
        return _EVAL_CACHE[key]
    player = Player(cfg, evaluator_factory=net_for_size)
    player.new_game(size)
    return player, cfg


def play_game(sets_black, sets_white, size, komi, seed, seconds=None, on_move=None, engine=None):
    """One game between two configs (overrides of the ``engine`` config
    file, else of the built-in defaults); returns a record dict.
    on_move(color, search, result), when given, is called after each
    search (benchmarks read per-move counters through it)."""
    players = {}
    for color, sets in ((BLACK, sets_black), (WHITE, sets_white)):
        p, cfg = make_engine(list(sets) + [f"search.seed={seed * 2 + color}"], size, side=color, engine=engine)
        p.set_komi(komi)
        s = p.search()
        if hasattr(s.evaluator, "clear_cache"):
            s.evaluator.clear_cache()       # every game starts with a cold cache on both sides
        players[color] = p
    budget = (None, seconds) if seconds else None
    moves, winner, reason = [], None, "score"
    sims = {BLACK: 0, WHITE: 0}
    t0 = time.time()
    for _ in range(3 * size * size):
        c = players[BLACK].game.to_move
        p = players[c]
        move = p.genmove(c, budget=budget)
        r = p.last["result"]
        sims[c] += r.playouts if r is not None else 0
        if on_move is not None:
            on_move(c, p.search(), r)
        if move == RESIGN:
            winner, reason = 3 - c, "resign"
            break
        players[3 - c].play(c, move)
        moves.append(move)
        if p.game.board.passes >= 2:
            break
    b = players[BLACK].game.board
    score = players[BLACK].final_score()        # dead stones estimated, as every tool scores
    if winner is None:
        if b.passes < 2:
            reason = "move cap"
        winner = BLACK if score > 0 else WHITE if score < 0 else 0
    rec = {"winner": {BLACK: "black", WHITE: "white", 0: "draw"}[winner], "reason": reason,
           "score": score, "moves": moves, "seconds": time.time() - t0,
           "sims_black": sims[BLACK], "sims_white": sims[WHITE]}
    for color, name in ((BLACK, "black"), (WHITE, "white")):
        s = players[color].search()
        if hasattr(s.evaluator, "cache_info"):      # net forward passes (cache misses) this game
            rec[f"net_{name}"] = s.evaluator.cache_info()["misses"]
        if getattr(s, "memory", None) is not None:
            st = s.memory.stats()
            rec[f"memory_{name}"] = {"entries": st["entries"],
                                     "candidates": round(st["mean_candidates"], 1)}
    return rec


def _game_job(path, v_sets, b_sets, size, komi, index, seconds, engine=None):
    """One game where the fan-out sends it; returns its record, which the
    driver writes to ``path`` (:func:`_save_record`)."""
    v_black = index % 2 == 0
    rec = play_game(v_sets if v_black else b_sets, b_sets if v_black else v_sets, size, komi,
                    seed=1000 + index, seconds=seconds, engine=engine)
    rec["index"] = index
    rec["variant_color"] = "black" if v_black else "white"
    w = rec["winner"]
    rec["variant_won"] = 0.5 if w == "draw" else float((w == "black") == v_black)
    return rec


def _save_record(path, rec):
    """Write a game's record once: a record already there (played meanwhile
    by another run of the same experiment) is kept."""
    if not os.path.exists(path):
        atomic_write(path, json.dumps(rec) + "\n")


def pending_jobs(exp, out_root, games=None, only=None, xs=None):
    """The games still to play: (record path, variant sets, baseline sets,
    size, komi, index, seconds per move or None, engine config or None)
    for each missing record, the variants taken in turn (game 1 of each,
    then game 2 of each, ...), so that a run stopped short has every
    point of its curve at about the same number of games."""
    per_variant = []
    for v in exp["variant"]:
        jobs = []
        per_variant.append(jobs)
        if only and v["series"] not in only:
            continue
        if xs and float(v["x"]) not in xs:
            continue
        n = games or v.get("games", exp["games"])
        vdir = os.path.join(out_root, variant_label(v))
        os.makedirs(vdir, exist_ok=True)
        v_sets = exp["common"] + v.get("sets", [])
        b_sets = exp["common"] + v.get("baseline", exp["baseline"])
        for i in range(v.get("first_game", 1) - 1, n):
            p = os.path.join(vdir, f"game-{i + 1:04d}.json")
            if not os.path.exists(p):
                jobs.append((p, v_sets, b_sets, exp["size"], exp["komi"], i,
                             v.get("seconds", exp.get("seconds")), exp.get("engine")))
    out = []
    for k in range(max((len(j) for j in per_variant), default=0)):
        out += [j[k] for j in per_variant if k < len(j)]
    return out


def _records(vdir):
    """The game records under vdir as (index, record), in index order."""
    out = []
    if os.path.isdir(vdir):
        for fn in sorted(os.listdir(vdir)):
            m = re.fullmatch(r"game-(\d+)\.json", fn)
            if m:                       # not the temporary files of atomic_write
                with open(os.path.join(vdir, fn)) as fh:
                    out.append((int(m.group(1)) - 1, json.load(fh)))
    return out


def archive_path(exp, label):
    """records/games/<name>/<label>.jsonl.gz: a variant's game records,
    one a line in index order, kept with the reports, so that a run stopped
    short of its target resumes in another checkout (runs/ is not kept)."""
    slug = re.sub(r"[^A-Za-z0-9._=-]+", "_", label).strip("_")
    return os.path.join(HERE, "records", "games", exp["name"], slug + ".jsonl.gz")


def archive(exp, out_root):
    """Write each variant's records under out_root to its archive, where
    they differ from what it holds (gzip without a timestamp, so the same
    records give the same bytes)."""
    for v in exp["variant"]:
        recs = _records(os.path.join(out_root, variant_label(v)))
        if not recs:
            continue
        text = "".join(json.dumps(dict(r, index=i), sort_keys=True) + "\n" for i, r in recs)
        path = archive_path(exp, variant_label(v))
        if os.path.exists(path):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                if fh.read() == text:
                    continue
        atomic_write(path, gzip.compress(text.encode("utf-8"), mtime=0))
        publish.register([path], records=os.path.join(HERE, "records"))     # the manifest follows the archive


def restore(exp, out_root):
    """Write back under out_root every archived record that is not there."""
    for v in exp["variant"]:
        path = archive_path(exp, variant_label(v))
        if not os.path.exists(path):
            continue
        vdir = os.path.join(out_root, variant_label(v))
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                p = os.path.join(vdir, f"game-{rec['index'] + 1:04d}.json")
                if not os.path.exists(p):
                    atomic_write(p, json.dumps(rec) + "\n")


def run(exp, out_root, games=None, workers=None, only=None, xs=None, ray=None, ray_cpus=None):
    """Play the missing games in ``workers`` processes (default: the file's
    ``workers``) or on Ray (``ray``: "local" or a cluster's address;
    tools.fanout); this process writes every record.  Returns the fan-out's
    placement (where the games ran)."""
    from tqdm import tqdm
    restore(exp, out_root)
    jobs = pending_jobs(exp, out_root, games, only, xs)
    bar = tqdm(total=len(jobs), desc=exp["name"], unit="game", file=sys.stderr)
    fan = Fanout(workers=1 if ray else (workers or exp["workers"]), ray=ray, ray_cpus=ray_cpus,
                 start_method=None)
    try:
        with fan:
            for i, rec, err in fan.imap(_game_job, jobs):
                if err is not None:         # reported, not fatal: a rerun retries the game
                    print(f"game failed: {type(err).__name__}: {err}", file=sys.stderr)
                else:
                    _save_record(jobs[i][0], rec)
                bar.update(1)
    finally:
        bar.close()
    if ray:
        print(fan.summary(), file=sys.stderr)
    return fan.placement()


def result_path(exp, ext, out_root=None):
    """docs/results/<name>.<ext>: the report (md) and its plot (png); and
    records/results/<name>.json: each variant's tally, which lets a report
    made where some variants' games are absent (another checkout, a run of
    --only) keep their rows.  With ``out_root`` (a run not published):
    ``<out_root>/report.<ext>`` and ``<out_root>/tallies.json``."""
    if out_root is not None:
        return os.path.join(out_root, "tallies.json" if ext == "json" else f"report.{ext}")
    if ext == "json":
        return os.path.join(HERE, "records", "results", f"{exp['name']}.json")
    return os.path.join(HERE, "docs", "results", f"{exp['name']}.{ext}")


def load_tallies(exp, out_root=None):
    try:
        with open(result_path(exp, "json", out_root)) as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {}


# What a row gives beyond its win rate, where its records count it (_splits).
EXTRA = ("black", "white", "sim_ratio")


def save_tallies(exp, rows, out_root=None):
    t = {r["label"]: {k: r[k] for k in ("games", "wins", "moves", "seconds") + EXTRA if k in r}
         for r in rows if r["games"]}
    atomic_write(result_path(exp, "json", out_root), json.dumps(t, indent=1, sort_keys=True) + "\n")
    if out_root is None:
        publish.register([result_path(exp, "json")], records=os.path.join(HERE, "records"))


def collect(exp, out_root, stored=None):
    """One row per variant from its game records under ``out_root``; a
    variant with none there takes its tally from ``stored`` (marked)."""
    stored = stored or {}
    rows = []
    for v in exp["variant"]:
        recs = [r for _, r in _records(os.path.join(out_root, variant_label(v)))]
        wins = sum(r["variant_won"] for r in recs)
        n = len(recs)
        moves = sum(len(r["moves"]) for r in recs) / n if n else 0
        secs = sum(r["seconds"] for r in recs) / n if n else 0
        extra = _splits(recs)
        old = stored.get(variant_label(v))
        if not n and old:
            n, wins, moves, secs = old["games"], old["wins"], old["moves"], old["seconds"]
            extra = {k: old[k] for k in EXTRA if k in old}
        lo, hi = stats.wilson(wins, n)
        rows.append({"series": v["series"], "x": v["x"], "label": variant_label(v), "games": n,
                     "stored": bool(old) and not recs,
                     "wins": wins, "winrate": wins / n if n else math.nan, "lo": lo, "hi": hi,
                     "elo": stats.elo(wins / n) if n else math.nan, "moves": moves, "seconds": secs,
                     **extra})
    return rows


def _splits(recs):
    """The variant's [wins, games] as Black and as White, and its
    simulations over the baseline's in each game (both sides' totals) as
    [lower quartile, median, upper quartile], where the records count them."""
    out = {}
    for c in ("black", "white"):
        rc = [r for r in recs if r.get("variant_color") == c]
        if rc:
            out[c] = [sum(r["variant_won"] for r in rc), len(rc)]
    ratios = []
    for r in recs:
        if r.get("sims_black") and r.get("sims_white") and r.get("variant_color"):
            v, b = ((r["sims_black"], r["sims_white"]) if r["variant_color"] == "black"
                    else (r["sims_white"], r["sims_black"]))
            ratios.append(v / b)
    if ratios:
        q = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
        out["sim_ratio"] = [q[0], statistics.median(ratios), q[2]]
    return out


NOTES_HEADING = "## Notes"


def kept_notes(path_md):
    """The hand-written part of a report: from its ``## Notes`` heading to
    the end ('' when the report or the heading is absent).  A report keeps
    it when it is written again; the experiment file holds no results."""
    try:
        with open(path_md, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return ""
    i = text.find("\n" + NOTES_HEADING + "\n")
    return text[i + 1:].rstrip("\n") if i >= 0 else ""


def published_games(path_md):
    """{variant label: games} of the report at ``path_md`` ({} when there
    is none): what a new report of the experiment must not fall below."""
    try:
        with open(path_md, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        return {}
    out, head = {}, None
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| variant |"):
            head = cells
        elif head and line.startswith("| ") and len(cells) == len(head):
            row = dict(zip(head, cells))
            if row.get("games", "").isdigit():
                out[row["variant"]] = int(row["games"])
        elif not line.startswith("|"):
            head = None
    return out


def fewer_games(rows, published):
    """The rows of a new report that hold fewer games than the published
    report gives the same variant, as text ('' when none)."""
    return "; ".join(f"{r['label']}: {r['games']} games, the published page {published[r['label']]}"
                     for r in rows if r["games"] < published.get(r["label"], 0))


def report(exp, rows, path_md, path_png, argv):
    """Write the report (markdown table, variants, the net's hash) and its
    plot; the report's ``## Notes`` section, written by hand, is kept."""
    lines = [f"# {exp.get('title', exp['name'])}", ""]
    if exp.get("paper"):
        lines += [exp["paper"], ""]
    lines += ["Command: `python -m tools.experiment " + " ".join(argv) + "`", "",
              f"Board {exp['size']}x{exp['size']}, komi {exp['komi']}; "
              + (f"both sides start from `{exp['engine']}`; " if exp.get("engine") else "")
              + "both sides: "
              f"`{' '.join(exp['common']) or '(defaults)'}`; baseline: "
              f"`{' '.join(exp['baseline']) or '(defaults)'}`. Colours alternate; area scoring.", "",
              "| variant | games | wins | win rate | 95% Wilson interval | Elo | as Black | as White "
              "| simulations / baseline's (median, quartiles) | moves/game | s/game |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["games"]:
            lines.append(f"| {r['label']} | 0 | | not run | | | | | | | |")
            continue
        cols = [f"{r[c][0]:g}/{r[c][1]}" if c in r else "" for c in ("black", "white")]
        q = r.get("sim_ratio")
        cols.append(f"{q[1]:.2f} ({q[0]:.2f}-{q[2]:.2f})" if q else "")
        lines.append(f"| {r['label']}{' *' if r.get('stored') else ''} | {r['games']} | {r['wins']:g} | {100 * r['winrate']:.1f}% | "
                     f"{100 * r['lo']:.1f}% - {100 * r['hi']:.1f}% | {stats.fmt_elo(r['elo'])} | "
                     f"{' | '.join(cols)} | {r['moves']:.0f} | {r['seconds']:.1f} |")
    if any(r.get("stored") for r in rows):
        lines += ["", f"\\* played in an earlier run whose games are not under the out directory; "
                  f"the tally comes from `records/results/{exp['name']}.json`."]
    lines += ["", "Variants (on top of both sides' settings):", ""]
    for v in exp["variant"]:
        secs = f", both at {v['seconds']:g} s a move" if "seconds" in v else ""
        lines.append(f"- {variant_label(v)}: `{' '.join(v.get('sets', []))}` against "
                     f"`{' '.join(v.get('baseline', exp['baseline'])) or '(defaults)'}`{secs}")
    uses_net = any("prior.evaluator=net" in x or "memory.enabled=true" in x
                   for x in exp["common"] + exp["baseline"] + sum((v.get("sets", []) for v in exp["variant"]), []))
    if uses_net:
        import hashlib
        named = config_mod.at_size(config_mod.load(engine_path(exp.get("engine")), exp["common"] + exp["baseline"]),
                                   exp["size"]).net.weights     # the baseline's net; a variant's own is in its sets
        rel = named or f"nets/weights/{exp['size']}x{exp['size']}.pt"
        w = os.path.join(HERE, rel)
        if os.path.exists(w):
            with open(w, "rb") as fh:
                sha = hashlib.sha256(fh.read()).hexdigest()[:12]
            lines += ["", f"Net: `{rel}` (sha256 {sha}...; provenance in the .json beside it)."]
    notes = kept_notes(path_md)
    if notes:
        lines += ["", notes]
    atomic_write(path_md, "\n".join(lines) + "\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = []
    for r in rows:
        if r["series"] not in series:
            series.append(r["series"])
    for s in series:
        pts = sorted((r for r in rows if r["series"] == s and r["games"]), key=lambda r: r["x"])
        if not pts:
            continue
        xs = [p["x"] for p in pts]
        ys = [100 * p["winrate"] for p in pts]
        err = [[max(0.0, 100 * (p["winrate"] - p["lo"])) for p in pts],
               [max(0.0, 100 * (p["hi"] - p["winrate"])) for p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=s)
    ax.axhline(50, color="gray", ls=":", lw=1)
    if exp.get("x_log"):
        ax.set_xscale("log")
    ax.set_xlabel(exp.get("x_label", "x"))
    ax.set_ylabel("win rate vs baseline (%)")
    ax.set_ylim(0, 100)
    ax.set_title(exp.get("title", exp["name"]), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_savefig(fig, path_png, dpi=110)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(prog="python -m tools.experiment", description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--games", type=int, help="games per variant (overrides the file)")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--only", nargs="+", help="run only these series")
    ap.add_argument("--x", type=float, nargs="+", dest="xs",
                    help="run only the variants with these x values")
    ap.add_argument("--out", help="where games go (default runs/paper/<name>)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--publish", action="store_true",
                    help="publish the row: docs/results/<name>.md/.png, records/results/, records/games/ "
                         "(default: the report goes to the out folder only)")
    ap.add_argument("--overwrite", action="store_true",
                    help="publish even where a variant has fewer games than the published page reports")
    add_arguments(ap)
    args = ap.parse_args(argv)
    ray = ray_target(ap, args, args.workers)
    exp = load(args.config)
    out_root = args.out or os.path.join(HERE, "runs", "paper", exp["name"])
    if args.report_only:
        restore(exp, out_root)
    else:
        try:
            run(exp, out_root, args.games, args.workers, args.only, args.xs, ray=ray, ray_cpus=args.ray_cpus)
        except FanoutError as e:
            print(f"experiment: {e}", file=sys.stderr)
            return 2
    where = None if args.publish else out_root
    if args.publish:
        archive(exp, out_root)
        os.makedirs(os.path.join(HERE, "docs", "results"), exist_ok=True)
    else:
        os.makedirs(out_root, exist_ok=True)
    rows = collect(exp, out_root, load_tallies(exp))      # the published tallies keep the rows not rerun
    if args.publish and not args.overwrite:
        fewer = fewer_games(rows, published_games(result_path(exp, "md")))
        if fewer:
            print(f"experiment: not published, fewer games than {os.path.relpath(result_path(exp, 'md'), HERE)} "
                  f"reports ({fewer}); --overwrite to replace it", file=sys.stderr)
            return 2
    save_tallies(exp, rows, where)
    report(exp, rows, result_path(exp, "md", where), result_path(exp, "png", where),
           [os.path.relpath(args.config, HERE) if os.path.isabs(args.config) else args.config])
    if not args.publish:
        print(f"experiment: report in {result_path(exp, 'md', where)} (--publish makes it a published row)",
              file=sys.stderr)
    for r in rows:
        print(f"{r['label']}: {r['games']} games, win rate {100 * r['winrate']:.1f}% "
              f"[{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]")


if __name__ == "__main__":
    sys.exit(main())
