"""Score a row's finished games again with the match's seki rule.

    python -m tools.rescore records/games/strength/clock30-vs-fuego-1.1 [more rows] [--dry-run]

tools.match asks GNU Go for the score of a game that ended in two passes,
and since it keeps stones alive that the referee calls dead but that
stand in a seki the engine reads out (:func:`tools.referee.keep_seki_alive`).
This applies the same rule to rows played before: every game of a row's
``results.json`` that the referee scored and whose final position holds a
seki is put to the referee again (``--referee``, default GNU Go 3.8 with
Chinese rules); where the result changes, ``results.json`` (the game's
result, winner and reason, and the summary) and the game's SGF (``RE``,
``GC``) are rewritten, atomically.  A packed row (tools.sgfpack) is
unpacked first and packed again after; rewritten files under ``records/``
are published anew in its manifest (tools.publish).  Prints each change, then the
row's table as tools.match prints it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from atomicio import atomic_write
from engine.game import Game, SgfError
from engine.scoring import seki_points
from tools import publish, sgfpack
from tools.referee import REFEREE, keep_seki_alive, referee_verdict
from tools.match import (_write_results, format_table, winner_engine,
                         winner_of)

META = ("engine_a", "engine_b", "names", "size", "komi", "games", "time", "handicap", "a_color")


def _refereed(rec):
    """Whether the referee scored this game: so recorded, or (rows from
    before ``scored_by`` was kept) a points result with no reason given."""
    if rec.get("scored_by") is not None:
        return rec["scored_by"] == "referee"
    r = rec.get("result") or ""
    return (r == "0" or r[2:3].isdigit()) and not rec.get("reason")


def _set_sgf_result(path, result, note):
    from sgfmill import sgf
    with open(path, "rb") as fh:
        g = sgf.Sgf_game.from_bytes(fh.read())
    root = g.get_root()
    root.set("RE", result)
    root.set("GC", note)
    atomic_write(path, g.serialise().decode("utf-8"))


def _texts(folder, packed):
    """{file name: SGF text} of a row: its packed collection's games, and
    the single files beside it (the same games, or games not packed yet)."""
    texts = sgfpack.read(folder) if packed else {}
    for n in os.listdir(folder):
        if n.endswith(".sgf"):
            with open(os.path.join(folder, n), encoding="utf-8") as fh:
                texts[n] = fh.read()
    return texts


def rescore(folder, referee=REFEREE, dry_run=False, out=print, written=None):
    """Rescore one row; returns [(game index, old result, new result, note)];
    the files it rewrote are appended to ``written``."""
    written = [] if written is None else written
    res_path = os.path.join(folder, "results.json")
    try:
        with open(res_path) as fh:
            data = json.load(fh)
    except (OSError, ValueError) as e:
        raise SystemExit(f"{folder}: no readable results.json ({e})") from None
    packed = os.path.exists(os.path.join(folder, sgfpack.PACK))
    texts = _texts(folder, packed)
    names = data["names"]
    by_index = {r["index"]: r for r in data["games"]}
    changes = []
    for rec in data["games"]:
        if not _refereed(rec) or not rec.get("sgf"):
            continue
        path = os.path.join(folder, rec["sgf"])
        if rec["sgf"] not in texts:
            out(f"{path}: no such game record; left as {rec['result']}")
            continue
        try:        # the match's rules: simple ko, positional superko not enforced (as in gomill)
            game = Game.from_sgf_bytes(texts[rec["sgf"]].encode("utf-8"), name=path, superko=False)
        except SgfError as e:
            out(f"{e}; left as {rec['result']}")
            continue
        if not seki_points(game.board):
            continue
        verdict = referee_verdict(game.moves, game.size, game.komi, referee, game.root_black)
        if verdict is None:
            out(f"{path}: the referee failed; left as {rec['result']}")
            continue
        new, note = keep_seki_alive(game.board, *verdict)
        if note is None or new == rec["result"]:
            continue
        changes.append((rec["index"], rec["result"], new, note))
        out(f"{path}: {rec['result']} -> {new} ({note})")
        if dry_run:
            continue
        rec["result"], rec["reason"], rec["winner"] = new, note, winner_of(new)
        rec["winner_engine"] = winner_engine(rec["winner"], rec["a_color"] == "black", names)
    if changes and not dry_run:
        if packed:
            keep = sum(1 for n in os.listdir(folder) if n.endswith(".sgf"))   # the row's examples
            sgfpack.unpack(folder)
        for index, _, new, note in changes:
            _set_sgf_result(os.path.join(folder, by_index[index]["sgf"]), new, note)
        if packed:
            sgfpack.pack(folder, keep=keep)
        meta = {k: data[k] for k in META if k in data}
        _write_results(res_path, meta, {r["index"]: r for r in data["games"]})
        written.append(res_path)
        written += [os.path.join(folder, n) for n in (sgfpack.PACK, sgfpack.NAMES)] if packed else []
        written += [p for p in (os.path.join(folder, by_index[i]["sgf"]) for i, *_ in changes) if os.path.exists(p)]
    with open(res_path) as fh:
        out(format_table(json.load(fh)))
    return changes


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.rescore", description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="result rows (folders with results.json)")
    ap.add_argument("--referee", default=REFEREE, help="GTP scorer (final_score, final_status_list)")
    ap.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    args = ap.parse_args(argv)
    written = []
    for d in args.folders:
        print(f"== {d}")
        rescore(d, args.referee, args.dry_run, written=written)
    kept = [p for p in written if publish.is_record(p)]
    if kept:                    # rows kept in records/ stay listed with their new content
        publish.register(kept)
        print(f"records/MANIFEST.json: {len(kept)} files published anew")


if __name__ == "__main__":
    sys.exit(main())
