"""The engine's net (:class:`GoNet`): a convolutional trunk and up to four
heads, for the side to move: the move (logits over the points and pass),
the value (the probability of winning), the score (the lead in points) and
the ownership (each point's owner, -1..1).  The shipped nets (``9x9-res3``,
``19x19-res4``) are residual trunks of 13 layers of 64 filters with all
four heads, taught by KataGo's nets (nets/teacher.py); ``ModelConfig``
says which parts a net has, and is saved beside its weights.

The trunk started as the move-prediction net of Clark & Storkey, "Training
Deep Convolutional Neural Networks to Play Go" (ICML 2015), which Xiao, Mei
and Mueller (AAAI 2018) use for the M-MCTS value memory: its Conv7
activations are the raw state features zeta(s).  That net is still the
default ``ModelConfig`` (the papers' reproductions build it):

=======  =========  ======
layer    filters    kernel
=======  =========  ======
conv1    64         7x7
conv2-3  64         5x5
conv4-5  48         5x5
conv6-7  32         5x5
fc       n*n + 1    --
=======  =========  ======

Every convolution uses zero padding "same" and a ReLU; ``fc`` is one fully
connected layer from the flattened Conv7 output (32*n*n) to the move logits.

Deviation: the paper's net has no pass output (n*n outputs only).  We add
one (index n*n, ``Board.pass_move``) because the GNU Go teacher passes at the
end of its games and those passes are training labels.

Input: ``in_planes`` planes from the view of the side to move (see
``board_ext/features.pyx``): 15 for the first round's nets, 29 for the
second round's first candidates, 30 (``NUM_PLANES``, with the colour to
move) for new ones.

Value head (``value_head = True``; second round): a 1x1 convolution of
Conv7 to 2 planes, a fully connected layer of 64 ReLU units and one output,
the logit of the probability that the side to move wins (AlphaGo's value
net shares no trunk; here the two heads share the Clark-Storkey trunk and
are trained together, a weighted sum of the two losses, as AlphaGo Zero).

Residual trunk (``residual = True``; third round): the same layers
``conv1..convN`` (N odd, every width equal), read as conv1 and then
(N - 1) / 2 residual blocks of two convolutions each, as in AlphaGo Zero
and KataGo but without normalisation: ``h = conv1(x)``, then per block
``h = h + conv_b(relu(conv_a(relu(h))))`` (pre-activation, He et al. 2016),
and the trunk's output ``relu(h)``.  Each block's second convolution starts
at zero, so a fresh trunk starts as conv1 alone and every block learns a
correction (Fixup, Zhang et al. 2019; SkipInit): deep plain nets without
normalisation train poorly, residual ones with this start train well.  The
state dict carries a ``residual_trunk`` marker so the weights say how they
are wired.  A 13-layer trunk of 64 3x3 filters costs what the Clark-Storkey
seven of 5x5 and 7x7 filters cost (about 40 M multiply-adds a 9x9 position).

Global pooling (``global_pool``, residual trunks only; fourth round): the
listed residual blocks (1-based) read the whole board as KataGo's do: the
block's first convolution ``t = conv_a(relu(h))`` is pooled over the board
(the mean and the maximum of ``relu(t)`` a channel), a linear layer of
them (``gpool<b>``) is added to every point of ``t`` as a bias, and the
second convolution reads ``relu(t + bias)``.  So a block sees the whole
board (who is ahead, where the fights are) at once, not only what a
stack of 3x3 convolutions reaches.  The layer starts at zero: a fresh block
is a plain one.  Its keys in the weights say which blocks have it.

The code name of a config is ``cs7-<n>x<n>`` (``cs7-9x9``); scaled-down
variants for tests carry their widths in the name (``cs7-9x9-w8``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from board_ext.features import NUM_PLANES, NUM_PLANES_V1

CS_WIDTHS = (64, 64, 64, 48, 48, 32, 32)
CS_KERNELS = (7, 5, 5, 5, 5, 5, 5)
VALUE_HIDDEN = 64
VALUE_PLANES = 32       # policy_head = "conv": the value's 1x1 features, averaged over the board
SCORE_SCALE = 20.0      # the score head's output times this is the lead in points


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of a :class:`GoNet`; saved beside its weights (the
    metadata's ``model_config``), and the net is built from it at load."""
    board_size: int = 9
    in_planes: int = NUM_PLANES
    widths: tuple = CS_WIDTHS
    kernels: tuple = CS_KERNELS
    value_head: bool = False
    policy_head: str = "fc"      # "fc" (Clark-Storkey) or "conv": every board size with the same weights
    aux_heads: bool = False      # score and ownership heads (KataGo's auxiliary targets); needs the value head
    residual: bool = False       # conv1 then residual blocks of two convolutions (odd depth, equal widths)
    global_pool: tuple = ()      # residual blocks (1-based) with a global pooling bias (KataGo)

    def __post_init__(self):
        object.__setattr__(self, "widths", tuple(int(w) for w in self.widths))
        object.__setattr__(self, "kernels", tuple(int(k) for k in self.kernels))
        if len(self.widths) != len(self.kernels) or not self.widths:
            raise ValueError("widths and kernels must have the same, non-zero length")
        if any(k % 2 == 0 for k in self.kernels):
            raise ValueError("kernels must be odd for 'same' padding")
        if not 2 <= self.board_size <= 19:
            raise ValueError(f"board_size must be in 2..19, got {self.board_size}")
        from board_ext.features import PLANE_COUNTS
        if self.in_planes not in PLANE_COUNTS:
            raise ValueError(f"in_planes must be one of {PLANE_COUNTS}, got {self.in_planes}")
        object.__setattr__(self, "value_head", bool(self.value_head))
        object.__setattr__(self, "aux_heads", bool(self.aux_heads))
        if self.aux_heads and not self.value_head:
            raise ValueError("aux_heads (score, ownership) need value_head")
        if self.policy_head not in ("fc", "conv"):
            raise ValueError(f"policy_head must be fc or conv, got {self.policy_head!r}")
        object.__setattr__(self, "residual", bool(self.residual))
        if self.residual and (len(self.widths) < 3 or len(self.widths) % 2 == 0
                              or len(set(self.widths)) != 1):
            raise ValueError(f"a residual trunk needs an odd number (3 or more) of layers of "
                             f"equal width, got widths {list(self.widths)}")
        object.__setattr__(self, "global_pool", tuple(sorted(int(b) for b in self.global_pool)))
        n_blocks = (len(self.widths) - 1) // 2
        if self.global_pool and (not self.residual or not all(1 <= b <= n_blocks for b in self.global_pool)
                                 or len(set(self.global_pool)) != len(self.global_pool)):
            raise ValueError(f"global_pool names residual blocks 1..{n_blocks} of a residual trunk, "
                             f"got {list(self.global_pool)}")

    @property
    def name(self) -> str:
        base = f"cs{len(self.widths)}-{self.board_size}x{self.board_size}"
        if not (self.widths == CS_WIDTHS and self.kernels == CS_KERNELS):
            base += "-w" + ".".join(map(str, self.widths)) + "-k" + ".".join(map(str, self.kernels))
        if self.in_planes != NUM_PLANES_V1:
            base += f"-p{self.in_planes}"
        if self.value_head:
            base += "-v"
        if self.policy_head == "conv":
            base += "-conv"
        if self.aux_heads:
            base += "-so"
        if self.residual:
            base += "-res"
        if self.global_pool:
            base += "-gp" + ".".join(map(str, self.global_pool))
        return base

    @property
    def heads(self) -> list:
        return (["policy", "value"] if self.value_head else ["policy"]) + (
            ["score", "ownership"] if self.aux_heads else [])

    @property
    def n_moves(self) -> int:
        return self.board_size * self.board_size + 1

    @property
    def feature_dim(self) -> int:
        """Length of the flattened last-conv features (32*n*n for the paper net)."""
        return self.widths[-1] * self.board_size * self.board_size

    def to_dict(self) -> dict:
        return {"board_size": self.board_size, "in_planes": self.in_planes,
                "widths": list(self.widths), "kernels": list(self.kernels),
                "value_head": self.value_head, "policy_head": self.policy_head,
                **({"aux_heads": True} if self.aux_heads else {}),
                **({"residual": True} if self.residual else {}),
                **({"global_pool": list(self.global_pool)} if self.global_pool else {})}

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - fields
        if unknown:
            raise ValueError(f"unknown ModelConfig keys: {sorted(unknown)}")
        return cls(**d)

    @classmethod
    def tiny(cls, board_size: int = 9, width: int = 8, **kw) -> "ModelConfig":
        """Seven 3x3 layers of ``width`` filters: for tests."""
        return cls(board_size=board_size, widths=(width,) * 7, kernels=(3,) * 7, **kw)


class GoNet(nn.Module):
    """The trunk ``conv1..convN`` (plain, or residual blocks) and the heads
    its ModelConfig names: move (``fc`` or ``policy_conv``), value, score
    and ownership.

    ``forward(x)`` -> move logits (B, n*n+1); ``forward_heads(x)`` -> every
    head and the trunk's last activations (B, widths[-1], n, n).  ``x`` is
    float (B, in_planes, n, n).
    """

    def __init__(self, config: ModelConfig | None = None, *, board_size: int | None = None,
                 widths=None, kernels=None):
        super().__init__()
        if config is None:
            kw = {}
            if board_size is not None:
                kw["board_size"] = board_size
            if widths is not None:
                kw["widths"] = tuple(widths)
            if kernels is not None:
                kw["kernels"] = tuple(kernels)
            config = ModelConfig(**kw)
        self.config = config
        n = config.board_size
        c_in = config.in_planes
        for i, (w, k) in enumerate(zip(config.widths, config.kernels), start=1):
            setattr(self, f"conv{i}", nn.Conv2d(c_in, w, k, padding=k // 2))
            c_in = w
        self.n_conv = len(config.widths)
        w = config.widths[-1]
        self.conv_heads = config.policy_head == "conv"
        if self.conv_heads:
            # fully convolutional: a 1x1 convolution to one plane of move
            # logits, the pass logit from the board-averaged features; the
            # value from board-averaged 1x1 features.  No weight depends on n.
            self.policy_conv = nn.Conv2d(w, 1, 1)
            self.pass_fc = nn.Linear(w, 1)
        else:
            self.fc = nn.Linear(w * n * n, n * n + 1)
        if config.value_head:
            if self.conv_heads:
                self.value_conv = nn.Conv2d(w, VALUE_PLANES, 1)
                self.value_fc1 = nn.Linear(VALUE_PLANES, VALUE_HIDDEN)
            else:
                self.value_conv = nn.Conv2d(w, 2, 1)
                self.value_fc1 = nn.Linear(2 * n * n, VALUE_HIDDEN)
            self.value_fc2 = nn.Linear(VALUE_HIDDEN, 1)
        if config.aux_heads:
            # KataGo's auxiliary targets: the score lead (from the value's
            # hidden layer) and each point's final owner (a 1x1 convolution)
            self.score_fc = nn.Linear(VALUE_HIDDEN, 1)
            self.own_conv = nn.Conv2d(w, 1, 1)
        if config.residual:
            # the wiring, in the weights themselves (nets.evaluator.config_from_state_dict)
            self.register_buffer("residual_trunk", torch.ones(1))
        for b in config.global_pool:
            setattr(self, f"gpool{b}", nn.Linear(2 * w, w))
        self.reset_parameters()

    def reset_parameters(self):
        """He (Kaiming) normal init for the ReLU convolutions, zero biases.
        (torch's default init shrinks the signal ~2x per layer here, and the
        7-layer net, which has no normalisation, then barely trains.)"""
        for conv in self.convs:
            nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
            nn.init.zeros_(conv.bias)
        if self.config.residual:
            for conv in self.convs[2::2]:          # each block's second convolution
                nn.init.zeros_(conv.weight)
        for b in self.config.global_pool:
            nn.init.zeros_(self._modules[f"gpool{b}"].weight)
            nn.init.zeros_(self._modules[f"gpool{b}"].bias)
        for lin in ((self.policy_conv, self.pass_fc) if self.conv_heads else (self.fc,)):
            fan_in = lin.weight[0].numel()
            nn.init.normal_(lin.weight, std=(1.0 / fan_in) ** 0.5)
            nn.init.zeros_(lin.bias)
        if self.config.value_head:
            for layer in (self.value_conv, self.value_fc1):
                nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
                nn.init.zeros_(layer.bias)
            nn.init.normal_(self.value_fc2.weight, std=(1.0 / VALUE_HIDDEN) ** 0.5)
            nn.init.zeros_(self.value_fc2.bias)
        if self.config.aux_heads:
            nn.init.normal_(self.score_fc.weight, std=(1.0 / VALUE_HIDDEN) ** 0.5)
            nn.init.zeros_(self.score_fc.bias)
            nn.init.normal_(self.own_conv.weight, std=(1.0 / self.config.widths[-1]) ** 0.5)
            nn.init.zeros_(self.own_conv.bias)

    @property
    def convs(self) -> list:
        """The conv layers in order.  (``self.conv7`` is the method below, so
        the layer itself is ``self.convs[6]`` / ``self._modules["conv7"]``;
        state_dict keys are ``conv1.weight`` .. ``conv7.bias``, ``fc.*``.)"""
        return [self._modules[f"conv{i}"] for i in range(1, self.n_conv + 1)]

    def features(self, x: torch.Tensor) -> torch.Tensor:
        convs = self.convs
        if self.config.residual:
            h = convs[0](x)
            gp = self.config.global_pool
            for blk, (a, b) in enumerate(zip(convs[1::2], convs[2::2]), start=1):
                t = a(F.relu(h))
                if blk in gp:
                    r = F.relu(t)
                    pooled = torch.cat([r.mean(dim=(2, 3)), r.amax(dim=(2, 3))], dim=1)
                    t = t + self._modules[f"gpool{blk}"](pooled)[:, :, None, None]
                h = h + b(F.relu(t))
            return F.relu(h)
        for conv in convs:
            x = F.relu(conv(x))
        return x

    def conv7(self, x: torch.Tensor) -> torch.Tensor:
        """Activations of the last convolution (Conv7), (B, 32, n, n)."""
        return self.features(x)

    def head(self, feats: torch.Tensor) -> torch.Tensor:
        if self.conv_heads:
            return torch.cat([torch.flatten(self.policy_conv(feats), 1),
                              self.pass_fc(feats.mean(dim=(2, 3)))], dim=1)
        return self.fc(torch.flatten(feats, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))

    def forward_with_features(self, x: torch.Tensor):
        """(logits, conv7 activations) in one pass."""
        f = self.features(x)
        return self.head(f), f

    def _value_hidden(self, feats: torch.Tensor) -> torch.Tensor:
        v = F.relu(self.value_conv(feats))
        v = v.mean(dim=(2, 3)) if self.conv_heads else torch.flatten(v, 1)
        return F.relu(self.value_fc1(v))

    def value_logit(self, feats: torch.Tensor) -> torch.Tensor:
        """(B,) logit of the side to move winning, from Conv7 activations."""
        return self.value_fc2(self._value_hidden(feats)).squeeze(1)

    def forward_heads(self, x: torch.Tensor):
        """(move logits, value logit, score lead in points, ownership (B, n, n)
        in -1..1, conv7 activations), all for the side to move; score and
        ownership are None without ``aux_heads``."""
        f = self.features(x)
        logits = self.head(f)
        if not self.config.value_head:
            return logits, None, None, None, f
        h = self._value_hidden(f)
        v = self.value_fc2(h).squeeze(1)
        if not self.config.aux_heads:
            return logits, v, None, None, f
        score = self.score_fc(h).squeeze(1) * SCORE_SCALE
        own = torch.tanh(self.own_conv(f).squeeze(1))
        return logits, v, score, own, f

    def forward_all(self, x: torch.Tensor):
        """(move logits, value logit or None, conv7 activations) in one pass."""
        f = self.features(x)
        return self.head(f), (self.value_logit(f) if self.config.value_head else None), f


def _transpose(t):
    """KataGo's transpose (x and y swapped, y counted from the top row) on
    this engine's layout (rows y counted from the bottom): the reflection
    in the diagonal from the top-left corner to the bottom-right one."""
    return t.flip(-1).flip(-2).transpose(-1, -2)


def turn(t: torch.Tensor, s: int) -> torch.Tensor:
    """Symmetry ``s`` (0-7, as KataGo numbers them and applies them: 2
    mirrors the columns, 1 the rows, then 4 transposes) of the last two
    axes (rows y from the bottom, columns x) of ``t``."""
    if s & 2:
        t = t.flip(-1)
    if s & 1:
        t = t.flip(-2)
    if s & 4:
        t = _transpose(t)
    return t


def turn_back(t: torch.Tensor, s: int) -> torch.Tensor:
    """The inverse of :func:`turn`."""
    if s & 4:
        t = _transpose(t)
    if s & 1:
        t = t.flip(-2)
    if s & 2:
        t = t.flip(-1)
    return t


def turn_back_moves(logits: torch.Tensor, s: int, n: int) -> torch.Tensor:
    """Move logits (B, n*n+1) of a board turned by symmetry ``s``, in the
    board's own orientation (pass, last, stays)."""
    grid = turn_back(logits[:, :n * n].reshape(-1, n, n), s).reshape(-1, n * n)
    return torch.cat([grid, logits[:, n * n:]], dim=1)


def symmetric_heads(model, x: torch.Tensor, syms, legal: torch.Tensor | None = None):
    """The heads of ``model`` for the input planes ``x`` (B, C, n, n), the
    mean over the symmetries ``syms``: each turns the input, and the answer
    is turned back to the board's orientation.  (move probabilities (B,
    n*n+1), over ``legal`` (B, n*n+1, bool) when given; value probability
    (B,) or None; score lead (B,) or None; ownership (B, n, n) or None.)"""
    syms = [int(s) for s in syms]
    B, n, S = x.shape[0], x.shape[-1], len(syms)
    logits, v, score, own, _ = model.forward_heads(torch.cat([turn(x, s) for s in syms]).contiguous())
    logits = logits.float()
    logits = torch.cat([turn_back_moves(logits[k * B:(k + 1) * B], s, n) for k, s in enumerate(syms)])
    if legal is not None:
        logits = logits.masked_fill(~legal.repeat(S, 1), float("-inf"))
    probs = torch.softmax(logits, dim=1).reshape(S, B, -1).mean(0)
    value = None if v is None else torch.sigmoid(v.float()).reshape(S, B).mean(0)
    lead = None if score is None else score.float().reshape(S, B).mean(0)
    if own is not None:
        own = own.float()
        own = torch.stack([turn_back(own[k * B:(k + 1) * B], s) for k, s in enumerate(syms)]).mean(0)
    return probs, value, lead, own


def input_blocks(name: str) -> int:
    """How many equal blocks of the trunk's channels the input of the
    tensor ``name`` reads, side by side: 2 for a global pooling layer's
    weight (each channel's board mean, then each one's max), 1 otherwise.
    A net widened from another (nets.train.init_from) keeps each block's
    old columns at the head of its block."""
    return 2 if name.startswith("gpool") and name.endswith(".weight") else 1


def masked_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Softmax of ``logits`` (B, M) over the entries where ``legal`` (B, M,
    bool) is True; illegal entries get exactly 0.  A row with no legal entry
    gives all zeros (callers always mark pass legal)."""
    logits = logits.float().masked_fill(~legal, float("-inf"))
    p = torch.softmax(logits, dim=-1)
    return torch.nan_to_num(p, nan=0.0)


def build(config: ModelConfig | None = None, **kw) -> nn.Module:
    """The one place a net is made from its config: the evaluator (loading
    weights) and the trainer call it.  A new architecture is a ModelConfig
    setting that this function reads (docs/HACKING.md)."""
    return GoNet(config, **kw)


def init_from(model, path) -> str:
    """Start ``model`` from the weights in ``path``: every tensor of the
    same name and shape is copied; a tensor of ours that is larger in some
    dimensions (more input planes, wider layers: the same kernels) takes
    the old one in its leading block, and its weights from the new input
    channels start at zero, so the wider net begins computing what the old
    one did (the new channels' own weights keep their fresh init and feed
    nothing until training moves those zeros: Net2Net's zero variant);
    what the file lacks (a value head) keeps its fresh init.  A plain trunk
    never starts a residual one or the reverse (the same tensors compute
    something else wired the other way).  Returns a line saying what was
    taken."""
    sd = torch.load(path, map_location="cpu", weights_only=True)
    own = model.state_dict()
    wiring = {True: "residual", False: "plain"}
    if ("residual_trunk" in sd) != ("residual_trunk" in own):
        # the same tensors wired the other way compute something else
        raise ValueError(f"init_from {path}: its trunk is {wiring['residual_trunk' in sd]}, "
                         f"the model's is {wiring['residual_trunk' in own]}")
    taken, widened = [], []
    with torch.no_grad():
        for k, v in sd.items():
            if k not in own:
                continue
            o = own[k]
            if o.shape == v.shape:
                o.copy_(v.float())
                taken.append(k)
            elif (o.ndim == v.ndim and all(a >= b for a, b in zip(o.shape, v.shape))
                  and (o.ndim < 4 or o.shape[2:] == v.shape[2:])
                  and (o.ndim < 2 or o.shape[1] % input_blocks(k) == 0 == v.shape[1] % input_blocks(k))):
                if o.ndim == 1:
                    o[:v.shape[0]] = v.float()
                else:
                    nb = input_blocks(k)             # a pooling layer reads (means, maxes) of the trunk
                    ob, vb = o.shape[1] // nb, v.shape[1] // nb
                    for b in range(nb):              # each input block's old columns at the head of its block
                        o[:, b * ob + vb:(b + 1) * ob] = 0   # from the new input channels: nothing yet
                        o[:v.shape[0], b * ob:b * ob + vb] = v[:, b * vb:(b + 1) * vb].float()
                widened.append(k)
            else:
                raise ValueError(f"init_from {path}: {k} has shape {tuple(v.shape)}, "
                                 f"the model's is {tuple(o.shape)}")
    model.load_state_dict(own)
    fresh = sorted(set(own) - set(taken) - set(widened))
    return (f"init_from {path}: {len(taken)} tensors copied, {widened or 'none'} widened "
            f"(new input channels at zero), fresh: {fresh or 'none'}")


# -- optimiser, schedule --------------------------------------------------------
