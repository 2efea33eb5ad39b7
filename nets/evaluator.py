"""The engine's net evaluator: move priors (and Conv7 features) for boards.

Interface used by the search::

    ev = Evaluator.load(9, threads=1)          # nets/weights/9x9.pt
    priors, feats = ev.evaluate(boards, want_features=True)

``priors`` is float32 (B, n*n+1): a probability distribution over the legal
moves of each board for its side to move (occupied and illegal points,
including the ko point and superko violations as the board judges them,
are exactly 0; pass, index n*n, is always legal; each row sums to 1).
``feats`` is None or float32 (B, 32*n*n): the flattened Conv7 activations,
the raw features zeta(s) of the M-MCTS memory (``engine.memory``).
``evaluate_all`` also returns the value head's probability that the side to
move wins (float32 (B,), None for a net without a value head), from the
same forward pass.

Weights are fp16 state_dicts (``nets.train`` writes them); the architecture
(input planes, heads) is read from the tensor shapes and checked for
consistency and against the metadata file next to the weights, so a file
for another board size or another net raises :class:`WeightsError` naming
the file and what differs.  First-round nets read 15 input planes, second
round ones 29 (version 2) or 30 (version 3, with the colour to move;
``board_ext/features.pyx``).

The cache (LRU, ``cache_size`` entries, 0 disables it) is keyed by
``board.hash`` (stones + side to move) and stores the net's raw output; the
legal-move mask is applied on every call, so priors always respect the
board's current ko / superko state.  Input planes that the hash does not
see (the last-moves planes, the ko plane) come from the first board
evaluated with that hash.

``import nets.evaluator`` does not import torch (the GTP server can answer
``name`` without it); torch is imported on the first Evaluator.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import sys
import threading
from collections import OrderedDict

import numpy as np

WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")


class WeightsError(ValueError):
    """Missing, unreadable or mismatched net weights."""


def _out_of_memory(e: BaseException) -> bool:
    """Whether ``e`` is a device running out of memory (torch's
    OutOfMemoryError, or the RuntimeError of a backend that says so)."""
    return type(e).__name__ == "OutOfMemoryError" or (isinstance(e, RuntimeError) and "out of memory" in str(e))


def weights_path(size: int, weights_dir: str = WEIGHTS_DIR) -> str:
    return os.path.join(weights_dir, f"{size}x{size}.pt")


def available_sizes(weights_dir: str = WEIGHTS_DIR) -> list[int]:
    """Board sizes with shipped weights (``<n>x<n>.pt`` in nets/weights)."""
    out = []
    for p in glob.glob(os.path.join(weights_dir, "*.pt")):
        m = re.fullmatch(r"(\d+)x\1\.pt", os.path.basename(p))
        if m:
            out.append(int(m.group(1)))
    return sorted(out)


def config_from_state_dict(sd: dict, where: str = "weights", size: int | None = None):
    """The ModelConfig that the tensor shapes of ``sd`` describe, or
    WeightsError.  A fully convolutional net (``policy_conv``) fits every
    board size: ``size`` says which (the metadata's, or the one asked for)."""
    from nets.model import ModelConfig
    convs = []
    i = 1
    while f"conv{i}.weight" in sd:
        convs.append(sd[f"conv{i}.weight"])
        i += 1
    conv_heads = "policy_conv.weight" in sd
    if not convs or ("fc.weight" not in sd and not conv_heads):
        raise WeightsError(f"{where}: not a GoNet state_dict (expected keys conv1.weight.."
                           f"conv7.weight, fc.weight; found {sorted(sd)[:8]}...)")
    widths = tuple(int(w.shape[0]) for w in convs)
    kernels = tuple(int(w.shape[2]) for w in convs)
    in_planes = int(convs[0].shape[1])
    for k, w in enumerate(convs[1:], start=2):
        if w.ndim != 4 or w.shape[1] != widths[k - 2] or w.shape[2] != w.shape[3]:
            raise WeightsError(f"{where}: conv{k}.weight has shape {tuple(w.shape)}, "
                               f"inconsistent with conv{k - 1} ({widths[k - 2]} filters)")
    value_head = "value_conv.weight" in sd
    aux = "own_conv.weight" in sd
    residual = "residual_trunk" in sd
    global_pool = tuple(sorted(int(k[5:-7]) for k in sd if k.startswith("gpool") and k.endswith(".weight")))
    if aux and ("score_fc.weight" not in sd or not value_head):
        raise WeightsError(f"{where}: an ownership head without the score and value heads")
    if conv_heads:
        if size is None:
            raise WeightsError(f"{where}: a fully convolutional net needs its board size "
                               f"(the metadata's model_config.board_size, or the size asked for)")
        if tuple(sd["policy_conv.weight"].shape) != (1, widths[-1], 1, 1):
            raise WeightsError(f"{where}: policy_conv.weight has shape "
                               f"{tuple(sd['policy_conv.weight'].shape)}, expected (1, {widths[-1]}, 1, 1)")
        try:
            return ModelConfig(board_size=size, in_planes=in_planes, widths=widths, kernels=kernels,
                               value_head=value_head, policy_head="conv", aux_heads=aux,
                               residual=residual, global_pool=global_pool)
        except ValueError as e:
            raise WeightsError(f"{where}: {e}") from None
    n_moves, fc_in = (int(s) for s in sd["fc.weight"].shape)
    n = int(round((n_moves - 1) ** 0.5))
    if n * n + 1 != n_moves or fc_in != widths[-1] * n * n:
        raise WeightsError(f"{where}: fc.weight has shape {(n_moves, fc_in)}, which fits no "
                           f"board size (expected (n*n+1, {widths[-1]}*n*n))")
    try:
        return ModelConfig(board_size=n, in_planes=in_planes, widths=widths, kernels=kernels,
                           value_head=value_head, aux_heads=aux, residual=residual, global_pool=global_pool)
    except ValueError as e:
        raise WeightsError(f"{where}: {e}") from None


def _saved_config(path: str, size: int | None = None):
    """The ModelConfig saved in the metadata file next to the weights
    (``<name>.json``, its ``model_config``), or None where there is none;
    a fully convolutional net is read at ``size`` when one is asked for.
    WeightsError names the file when it cannot be read."""
    import json
    from nets.model import ModelConfig
    meta = os.path.splitext(path)[0] + ".json"
    if not os.path.exists(meta):
        return None
    try:
        with open(meta) as f:
            mc = json.load(f).get("model_config")
    except (OSError, ValueError, AttributeError) as e:
        raise WeightsError(f"{meta}: unreadable metadata ({e})") from None
    if not mc:
        return None
    try:
        mc = dict(mc)
        if size is not None and mc.get("policy_head") == "conv":
            mc["board_size"] = size
        return ModelConfig.from_dict(mc)
    except (ValueError, TypeError) as e:
        raise WeightsError(f"{meta}: model_config does not describe a net ({e})") from None


def check_metadata(path: str, cfg) -> None:
    """The provenance file next to the weights (``<name>.json``), when there
    is one, must describe the same net: input planes and heads."""
    import json
    meta = os.path.splitext(path)[0] + ".json"
    if not os.path.exists(meta):
        return
    try:
        with open(meta) as f:
            mc = json.load(f).get("model_config", {})
    except (OSError, ValueError) as e:
        raise WeightsError(f"{meta}: unreadable metadata ({e})") from None
    planes = int(mc.get("in_planes", cfg.in_planes))
    heads = (["policy", "value"] if mc.get("value_head", False) else ["policy"]) + (
        ["score", "ownership"] if mc.get("aux_heads", False) else [])
    if planes != cfg.in_planes:
        raise WeightsError(f"{path}: the weights take {cfg.in_planes} input planes, "
                           f"{os.path.basename(meta)} says {planes}")
    if heads != cfg.heads:
        raise WeightsError(f"{path}: the weights have heads {cfg.heads}, "
                           f"{os.path.basename(meta)} says {heads}")
    if bool(mc.get("residual", False)) != cfg.residual:
        raise WeightsError(f"{path}: the weights' trunk is {'residual' if cfg.residual else 'plain'}, "
                           f"{os.path.basename(meta)} says "
                           f"{'residual' if mc.get('residual') else 'plain'}")
    if tuple(mc.get("global_pool", ())) != cfg.global_pool:
        raise WeightsError(f"{path}: the weights pool globally in blocks {list(cfg.global_pool)}, "
                           f"{os.path.basename(meta)} says {list(mc.get('global_pool', ()))}")
    msize = mc.get("board_size")
    if cfg.policy_head == "fc" and msize is not None and int(msize) != cfg.board_size:
        raise WeightsError(f"{path}: the weights are for {cfg.board_size}x{cfg.board_size}, "
                           f"{os.path.basename(meta)} says {msize}x{msize}")


def resolve_device(device: str) -> str:
    """"cpu", "cuda" or "auto" -> the torch device the net runs on; "cuda"
    without a GPU that torch sees is a ValueError."""
    import torch
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"net device must be cpu, cuda or auto, got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("net device is cuda, but torch sees no CUDA device "
                         "(use net.device = cpu or auto)")
    return device


def bf16_is_native(device: str) -> bool:
    """Whether bf16 runs natively on ``device``: a GPU that supports it, or
    a CPU whose oneDNN has bf16 instructions (AVX512-BF16 or AMX).  Without
    them torch emulates bf16, some 50 times slower than fp32 (an AVX2 EPYC:
    the Clark-Storkey net 750 ms a position at batch 8 against 15 ms)."""
    import torch
    if device.startswith("cuda"):
        return bool(torch.cuda.is_bf16_supported())
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


class Evaluator:
    """Batched move priors (+ Conv7 features) of a :class:`nets.model.GoNet`.

    ``Evaluator(model, threads=1, cache_size=4096, name=None)``; usually
    :meth:`Evaluator.load`.  ``threads`` sets torch's (process-wide)
    intra-op thread count.  ``precision``: "fp32" (default; the net runs
    channels_last, which oneDNN runs faster on CPU), "bf16" (autocast;
    3-4x faster at batch >= 16 on CPUs with AMX, outputs still float32; on
    a CPU without native bf16 the net runs fp32, :func:`bf16_is_native`, with
    one line on stderr; ``precision_asked`` keeps what was asked) or
    "fp64" (float64 throughout, the outputs rounded to float32: a CPU's
    vector units round float32 sums differently, by 1e-6 and by the batch's
    size, which a search's tree amplifies; in float64 the difference is
    below float32's last digit, so fixed seeds give the same trees on every
    CPU; several times slower).
    ``device``: "cpu" (default), "cuda" (a GPU torch sees; ValueError if
    none) or "auto" (cuda when there is one, else cpu).  On a GPU the planes
    go over per batch and the outputs come back as float32 numpy, so the
    search sees no difference.
    """

    def __init__(self, model, threads: int | None = 1, cache_size: int = 4096,
                 name: str | None = None, path: str | None = None, precision: str = "fp32",
                 device: str = "cpu", symmetry: str = "none"):
        import random
        import torch
        if symmetry not in ("none", "random", "all"):
            raise ValueError(f"symmetry must be 'none', 'random' or 'all', got {symmetry!r}")
        self.symmetry = symmetry
        self._sym_rng = random.Random(0)
        if threads:
            torch.set_num_threads(int(threads))
        self._torch = torch
        if precision not in ("fp32", "bf16", "fp64"):
            raise ValueError(f"precision must be 'fp32', 'bf16' or 'fp64', got {precision!r}")
        self.device = resolve_device(device)
        self.precision_asked = precision
        if precision == "bf16" and not bf16_is_native(self.device):
            # emulated bf16 (no AVX512-BF16 or AMX on this CPU) runs the net some 50
            # times slower than fp32: a setting for speed must not cost it
            print(f"net: bf16 asked, but this {self.device.upper()} has no native bf16 "
                  f"(emulated it runs some 50 times slower); the net runs fp32",
                  file=sys.stderr, flush=True)
            precision = "fp32"
        self.precision = precision
        self.channels_last = precision == "fp32"
        self.model = model.eval().to(self.device)
        if precision == "fp64":
            self.model = self.model.double()
        if self.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.config = model.config
        self.board_size = self.config.board_size
        self.n_moves = self.config.n_moves
        self.feature_dim = self.config.feature_dim
        self.name = name or self.config.name
        self.path = path
        self.cache_size = int(cache_size)
        self._cache: OrderedDict = OrderedDict()
        self._lock = threading.Lock()       # guards the cache
        self._run_lock = threading.Lock()   # guards the planes buffer and the net
        self.hits = self.misses = 0
        self._oom_said = False              # the one stderr line of a batch that did not fit
        n = self.board_size
        self.has_value = bool(self.config.value_head)
        self.has_aux = bool(getattr(self.config, "aux_heads", False))
        self._nplanes = self.config.in_planes
        self._buf = np.empty((64, self._nplanes, n, n), np.float32)

    # -- loading ---------------------------------------------------------------
    @classmethod
    def load(cls, path_or_size, threads: int | None = 1, cache_size: int = 4096,
             weights_dir: str = WEIGHTS_DIR, expect_config=None,
             precision: str = "fp32", device: str = "cpu", need_value: bool = False,
             board_size: int | None = None, symmetry: str = "none") -> "Evaluator":
        """Evaluator from shipped weights: ``path_or_size`` is a board size
        (``nets/weights/<n>x<n>.pt``) or a path.  A board size also requires
        the file's net to be for that size; ``expect_config`` (a ModelConfig)
        requires that exact architecture; ``need_value`` a value head;
        ``board_size`` reads a fully convolutional net at that size.  The
        metadata file next to the weights, when there is one, must agree on
        the input planes and the heads."""
        import torch
        from nets.model import build as build_model
        if isinstance(path_or_size, (int, np.integer)):
            size = int(path_or_size)
            path = weights_path(size, weights_dir)
            if not os.path.exists(path):
                have = available_sizes(weights_dir)
                raise WeightsError(f"no weights for {size}x{size}: {path} does not exist "
                                   f"(shipped sizes: {have or 'none'}; weights come from "
                                   f"python -m nets.train --config configs/nets/<size>.toml)")
        else:
            path, size = os.fspath(path_or_size), None
            if not os.path.exists(path):
                raise WeightsError(f"weights file {path} does not exist")
        try:
            sd = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:
            raise WeightsError(f"{path}: cannot read weights ({type(e).__name__}: {e})") from None
        if isinstance(sd, dict) and "state_dict" in sd and isinstance(sd["state_dict"], dict):
            sd = sd["state_dict"]
        if not isinstance(sd, dict):
            raise WeightsError(f"{path}: expected a state_dict, found {type(sd).__name__}")
        # the net is what its saved ModelConfig says (the metadata file
        # beside the weights); a file without one is read off its tensors
        saved = _saved_config(path, size or board_size)
        cfg = saved if saved is not None else config_from_state_dict(sd, path, size=size or board_size)
        if size is not None and cfg.board_size != size:
            raise WeightsError(f"{path}: weights are for {cfg.board_size}x{cfg.board_size}, "
                               f"expected {size}x{size}")
        if expect_config is not None and cfg != expect_config:
            raise WeightsError(f"{path}: architecture {cfg.name} {cfg.to_dict()} differs from "
                               f"the expected {expect_config.name} {expect_config.to_dict()}")
        if need_value and not cfg.value_head:
            raise WeightsError(f"{path}: the net has no value head (heads {cfg.heads}), "
                               f"and the config mixes the value in (search.value_lambda > 0)")
        model = build_model(cfg)
        try:
            model.load_state_dict({k: v.float() for k, v in sd.items()}, strict=True)
        except RuntimeError as e:
            if saved is not None:
                # say where the saved config and the tensors part ways
                check_metadata(path, config_from_state_dict(sd, path, size=cfg.board_size))
            raise WeightsError(f"{path}: state_dict does not match {cfg.name}: {e}") from None
        name = os.path.splitext(os.path.basename(path))[0]
        return cls(model, threads=threads, cache_size=cache_size, name=name, path=path,
                   precision=precision, device=device, symmetry=symmetry)

    # -- evaluation ------------------------------------------------------------
    def _input(self, boards):
        """The net's input for boards: planes in the shared buffer, on the
        device, in the memory format the net runs (hold ``_run_lock``)."""
        from board_ext.features import planes_batch
        torch = self._torch
        B = len(boards)
        if self._buf.shape[0] < B:
            n = self.board_size
            self._buf = np.empty((B, self._nplanes, n, n), np.float32)
        xt = torch.from_numpy(planes_batch(boards, out=self._buf, n_planes=self._nplanes)[:B])
        if self.device != "cpu":
            xt = xt.to(self.device)
        if self.precision == "fp64":
            xt = xt.double()
        if self.channels_last:
            xt = xt.contiguous(memory_format=torch.channels_last)
        return xt

    def _run(self, boards, want_lead=False, want_features=False):
        """Raw logits (B, M), values (B,) or None, features (B, F) and
        score leads (B,) or None (without ``want_lead`` or a score head) for
        boards, float32 numpy.  With ``symmetry = "random"`` the batch is
        turned by a symmetry drawn for it and the move logits turned back
        (KataGo's way: a net that is not quite symmetric errs differently in
        each orientation, and the tree averages the errors); a batch whose
        features are asked for (the M-MCTS memory's keys) is not turned.
        With ``symmetry = "all"`` every board is read in all eight
        orientations (:meth:`_run_all`)."""
        from nets.model import turn, turn_back_moves
        if self.symmetry == "all":
            return self._run_all(boards, want_lead, want_features)
        torch = self._torch
        B, n = len(boards), self.board_size
        xt = self._input(boards)
        s = self._sym_rng.randrange(8) if self.symmetry == "random" and not want_features else 0
        if s:
            xt = turn(xt, s)
            xt = xt.contiguous(memory_format=torch.channels_last) if self.channels_last else xt.contiguous()
        leads = None
        with torch.inference_mode(), self._autocast():
            if want_lead and self.has_aux:
                logits, vlogit, score, _own, feats = self.model.forward_heads(xt)
                leads = score.float().cpu().numpy().astype(np.float32)
            else:
                logits, vlogit, feats = self.model.forward_all(xt)
            logits = logits.float()
            if s:
                logits = turn_back_moves(logits, s, n)
            logits = logits.cpu().numpy().copy()
            values = None if vlogit is None else self._probability(vlogit)
            # (B, C, n, n) in NCHW order whatever the memory format; none from a turned board
            feats = None if s else feats.float().contiguous().reshape(B, -1).cpu().numpy()
        return logits, values, feats, leads

    def _run_all(self, boards, want_lead=False, want_features=False):
        """:meth:`_run` over the eight symmetries at once (a batch of 8 B):
        the mean of each symmetry's probabilities over the legal moves (as
        log-probabilities, so that the softmax over the legal moves gives it
        back), the value's and the
        lead's mean, as :meth:`raw` gives them; the features are the board's
        as it stands (the memory's keys)."""
        from nets.model import turn, turn_back_moves
        torch = self._torch
        B, n = len(boards), self.board_size
        xt = self._input(boards)
        x8 = torch.cat([turn(xt, s) for s in range(8)])
        x8 = x8.contiguous(memory_format=torch.channels_last) if self.channels_last else x8.contiguous()
        leads = None
        with torch.inference_mode(), self._autocast():
            if want_lead and self.has_aux:
                logits, vlogit, score, _own, feats = self.model.forward_heads(x8)
                leads = score.float().reshape(8, B).mean(0).cpu().numpy().astype(np.float32)
            else:
                logits, vlogit, feats = self.model.forward_all(x8)
            logits = logits.float()
            logits = torch.cat([turn_back_moves(logits[k * B:(k + 1) * B], k, n) for k in range(8)])
            legal = np.zeros((B, n * n + 1), bool)
            legal[:, n * n] = True
            for i, b in enumerate(boards):
                legal[i, list(b.legal_moves())] = True
            logits = logits.masked_fill(~torch.from_numpy(legal).to(logits.device).repeat(8, 1), float("-inf"))
            probs = torch.softmax(logits, dim=1).reshape(8, B, -1).mean(0)
            logits = torch.log(probs.clamp_min(1e-30)).cpu().numpy().copy()
            values = None if vlogit is None else \
                torch.sigmoid(vlogit.float()).reshape(8, B).mean(0).cpu().numpy().astype(np.float32)
            feats = feats[:B].float().contiguous().reshape(B, -1).cpu().numpy() if want_features else None
        return logits, values, feats, leads

    def _run_fitting(self, boards, want_lead=False, want_features=False):
        """:meth:`_run` on a batch the device can hold: a batch that runs out
        of the device's memory is run again in halves, each half the same
        way (one line on stderr the first time), never a dead search; one
        board that does not fit is the error it was."""
        try:
            return self._run(boards, want_lead, want_features)
        except Exception as e:               # torch.cuda.OutOfMemoryError is a RuntimeError
            if len(boards) < 2 or not _out_of_memory(e):
                raise
            if not self._oom_said:
                self._oom_said = True
                print(f"{self.name}: a batch of {len(boards)} ran out of {self.device} memory; "
                      f"run again in smaller batches", file=sys.stderr, flush=True)
            if self.device.startswith("cuda"):
                self._torch.cuda.empty_cache()
        h = len(boards) // 2
        a = self._run_fitting(boards[:h], want_lead, want_features)
        b = self._run_fitting(boards[h:], want_lead, want_features)
        return tuple(None if x is None else np.concatenate([x, y]) for x, y in zip(a, b))

    def _probability(self, logit):
        """sigmoid(logit) as float32 numpy, taken at the net's precision
        (float64 under fp64, else float32: bf16 logits are widened first)."""
        t = logit if logit.dtype == self._torch.float64 else logit.float()
        return self._torch.sigmoid(t).float().cpu().numpy().astype(np.float32)

    def _autocast(self):
        if self.precision == "bf16":
            return self._torch.autocast(self.device, self._torch.bfloat16)
        return contextlib.nullcontext()   # an autocast(enabled=False) costs ~25 us

    def evaluate(self, boards, want_features: bool = False):
        """(priors (B, n*n+1) float32, features (B, 32*n*n) float32 or None)."""
        priors, feats, _ = self.evaluate_all(boards, want_features)
        return priors, feats

    def evaluate_all(self, boards, want_features: bool = False, want_lead: bool = False):
        """(priors, features or None, values): ``values`` float32 (B,), the
        value head's probability that the side to move of each board wins,
        or None when the net has no value head.  ``want_lead``: a fourth,
        the score head's lead of each board for its side to move (points,
        komi in), or None when the net has no score head."""
        asked, want_lead = want_lead, want_lead and self.has_aux
        boards = list(boards)
        B = len(boards)
        M = self.n_moves
        n = self.board_size
        if B == 0:
            out = (np.zeros((0, M), np.float32),
                   np.zeros((0, self.feature_dim), np.float32) if want_features else None,
                   np.zeros(0, np.float32) if self.has_value else None)
            return out + ((np.zeros(0, np.float32) if want_lead else None),) if asked else out
        for b in boards:
            if b.size != n:
                raise ValueError(f"board is {b.size}x{b.size}, this evaluator is {n}x{n}")
        logits = np.empty((B, M), np.float32)
        values = np.empty(B, np.float32) if self.has_value else None
        feats = np.empty((B, self.feature_dim), np.float32) if want_features else None
        leads = np.empty(B, np.float32) if want_lead else None
        todo = list(range(B))
        keys = None
        if self.cache_size > 0:
            keys = [b.hash for b in boards]
            todo = []
            with self._lock:
                for i, k in enumerate(keys):
                    e = self._cache.get(k)
                    if e is not None and (not want_features or e[1] is not None) \
                            and (not want_lead or e[3] is not None):
                        self._cache.move_to_end(k)
                        logits[i] = e[0]
                        if want_features:
                            feats[i] = e[1]
                        if values is not None:
                            values[i] = e[2]
                        if want_lead:
                            leads[i] = e[3]
                        self.hits += 1
                    else:
                        todo.append(i)
                        self.misses += 1
        if todo:
            with self._run_lock:
                lg, vl, ft, ld = self._run_fitting([boards[i] for i in todo], want_lead, want_features)
            logits[todo] = lg
            if values is not None:
                values[todo] = vl
            if want_features:
                feats[todo] = ft
            if want_lead:
                leads[todo] = ld
            if self.cache_size > 0:
                with self._lock:
                    for j, i in enumerate(todo):
                        self._cache[keys[i]] = (lg[j], None if ft is None else ft[j],
                                                None if vl is None else float(vl[j]),
                                                None if ld is None else float(ld[j]))
                        self._cache.move_to_end(keys[i])
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        # legal-move mask, pass always legal
        mask = np.zeros((B, M), bool)
        mask[:, M - 1] = True
        for i, b in enumerate(boards):
            lm = b.legal_moves()
            if lm:
                mask[i, lm] = True
        z = np.where(mask, logits, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        if asked:
            return z.astype(np.float32, copy=False), feats, values, leads
        return z.astype(np.float32, copy=False), feats, values

    def evaluate_aux(self, boards):
        """(values, score leads, ownership) of each board for its side to
        move, from the score and ownership heads: float32 (B,), (B,) in
        points, komi included, and (B, n*n) in -1..1 by flat point.  Not
        cached (analysis asks it a few boards a query); ValueError for a net
        without those heads."""
        if not self.has_aux:
            raise ValueError(f"{self.name}: the net has no score and ownership heads (heads {self.config.heads})")
        torch = self._torch
        boards = list(boards)
        B, n = len(boards), self.board_size
        if B == 0:
            return np.zeros(0, np.float32), np.zeros(0, np.float32), np.zeros((0, n * n), np.float32)
        with self._run_lock, torch.inference_mode(), self._autocast():
            _, v, score, own, _ = self.model.forward_heads(self._input(boards))
            return (self._probability(v),
                    score.float().cpu().numpy().astype(np.float32),
                    own.float().reshape(B, n * n).cpu().numpy().astype(np.float32))

    def raw(self, board, symmetries=(0,)):
        """The net's own answer for ``board``, the mean over ``symmetries``
        (each 0-7, as KataGo numbers and applies them: 2 mirrors the
        columns, 1 the rows, then 4 transposes; nets.model.turn; the input is
        turned, the answer turned back):
        a dict with ``policy`` (n*n+1,) over the legal moves, pass last,
        ``value`` (the side to move wins) or None, ``lead`` (points, the
        side to move's) and ``ownership`` (n*n,) by flat point, +1 the side
        to move's, both None without the score and ownership heads.  Not
        cached: GTP's kata-raw-nn and the JSON rootInfo's raw fields ask it
        once a position."""
        torch = self._torch
        syms = [int(s) for s in symmetries]
        if not syms or any(s < 0 or s > 7 for s in syms):
            raise ValueError(f"symmetries must be 0-7, not {symmetries!r}")
        if board.size != self.board_size:
            raise ValueError(f"board is {board.size}x{board.size}, this evaluator is "
                             f"{self.board_size}x{self.board_size}")
        from nets.model import symmetric_heads
        n = self.board_size
        legal = np.zeros(n * n + 1, bool)
        legal[n * n] = True
        legal[list(board.legal_moves())] = True
        with self._run_lock, torch.inference_mode(), self._autocast():
            pol, v, score, own = symmetric_heads(self.model, self._input([board]), syms,
                                                 legal=torch.from_numpy(legal[None]).to(self.device))
            value = None if v is None else float(v[0])
            lead = None if score is None else float(score[0])
            ownership = None if own is None else own[0].reshape(n * n).cpu().numpy().astype(np.float32)
            policy = pol[0].cpu().numpy().astype(np.float32)
        return {"policy": policy, "value": value, "lead": lead, "ownership": ownership}

    def evaluate_one(self, board, want_features: bool = False):
        """(priors (n*n+1,), features (32*n*n,) or None) of one board."""
        p, f = self.evaluate([board], want_features)
        return p[0], (None if f is None else f[0])

    def clear_cache(self):
        with self._lock:
            self._cache.clear()
            self.hits = self.misses = 0

    def cache_info(self) -> dict:
        return {"size": len(self._cache), "capacity": self.cache_size,
                "hits": self.hits, "misses": self.misses}

    def __repr__(self):
        return (f"<Evaluator {self.name} ({self.config.name}) {self.board_size}x{self.board_size} "
                f"cache {len(self._cache)}/{self.cache_size}>")
