"""Configuration: frozen dataclasses, the only home of defaults.

One table per component (``[search]``, ``[rave]`` (the rave tree's), ``[uct]``
(the first round's tree), ``[prior]``, ``[pool]``, ``[time]``, ``[memory]``,
``[bhrf]``, ``[moggy]``, ``[net]``, ``[player]``, ``[gtp]``), and per-size
tables over them (``[size.<n>.<table>]``, :func:`at_size`).  ``load(path, overrides)``
reads TOML, applies ``--set table.key=value`` overrides, range-checks every
value and rejects unknown keys by name (``ConfigError``).

A file may start with ``base = "other.toml"`` (relative to the file): the
base is read first and the file's keys override it, table by table; a
cycle of bases is an error naming the files.  Node-count knobs take the
words ``"all"`` (every node) and ``"none"`` beside numbers, spelled the
same for every such knob (``prior.dcnn_nodes = "all"``, ``memory.nodes =
"all"``); what number a word stands for is the knob's business.

Values that depend on the board size live in per-size override tables,
``[size.9.<table>]``, ``[size.13.<table>]``, ``[size.19.<table>]`` (the
table of 9 serves boards up to 9x9, 13 up to 15x15, 19 the rest): the
engine's own per-size defaults (``SIZE_DEFAULTS``) and a config's.  A
Config holds the values for every size and its per-size tables;
:func:`at_size` gives the values of one board size, and the Player takes
them anew at every ``boardsize``.  A key set for every size after a
per-size value (a file over its base, a ``--set``, a ``go-param``)
replaces it; ``--set size.19.search.seconds=5`` sets one size's.

``configs/default.toml`` is written from here (:func:`default_toml`,
``make configs``) and a test compares its text.

A file's values keep their TOML types (``playouts = "100"`` is an error);
``--set`` and ``go-param`` values are text (:class:`Text`), read as the
setting's type (TOML syntax for lists and quoted strings).

The same machinery serves the other settings files: a frozen dataclass of
:func:`setting` fields, built by :func:`build_table` (flat files with
``base =`` and ``key=value`` overrides: :func:`load_flat`): the trainer's
``configs/nets/*.toml`` (``nets.train.TrainConfig``) and the paper
experiments (``tools.experiment.Experiment`` and ``Variant``).
"""
import copy
import dataclasses
import os
from dataclasses import dataclass, field, fields

from board_ext.playout import POLICIES     # the rollout registry: its names are the choices
from engine import tree_policies           # the tree policy registry: its names are search.tree's choices
from tomlconf import (SIZE, ConfigError, Text, _f, _toml_text, _type, build_table, load_flat, merge,  # noqa: F401
                      overlay, read, setting)


@dataclass(frozen=True)
class SearchConfig:
    playouts: int = _f(10000, 1, 10**9, doc="simulations per move (0 < n)")
    seconds: float = _f(0.0, 0.0, 86400.0, doc="seconds per move; 0 = playouts only")
    tree: str = _f("rave", choices=tree_policies.REGISTRY.keys(),     # a live view: a policy registered later counts
                   doc="rave: every child at once with prior knowledge and RAVE ([rave]; Fuego/Pachi style); "
                       "uct: one node a simulation, UCB1/PUCT, net priors on the first dcnn_nodes (the first round's)")
    rollout: str = _f("expert", choices=tuple(POLICIES) + ("bhrf",), doc="rollout policy")
    threads: int = _f(0, 0, 256, doc="threads searching one tree; 0 = one a core, or one where a seed is set "
                      "(search.seed, set_random_seed: a game that replays); the rave tree runs threaded, the "
                      "uct tree, BHRF rollouts and the memory one thread")
    reuse_tree: bool = _f(True, doc="keep the subtree of the played move")
    resign_threshold: float = _f(0.0, 0.0, 0.5, doc="resign below this win rate; 0 = never")
    resign_min_visits: int = _f(1000, 0, 10**9, doc="real root visits needed before resigning "
                                "(at most half the move's simulation budget)")
    seed: int = _f(0, 0, 2**63 - 1, doc="random seed; 0 = from the clock")
    early_stop: bool = _f(True, doc="stop when the best move cannot be overtaken")
    pass_when_won: bool = _f(True, doc="pass after the opponent's pass when the count, dead stones "
                             "estimated by player.score_playouts playouts, is ours")
    batch_size: int = _f(8, 1, 256, doc="leaves evaluated per net call (virtual loss)")
    max_rollout_moves: int = _f(0, 0, 2000, doc="rollout move cap; 0 = 3*N*N")
    value_lambda: tuple = _f((0.0,), 0.0, 1.0, item=float,
                             doc="weight of the net's value head in each simulation's result, "
                                 "(1 - lambda) rollout + lambda value at the deepest node the net evaluated "
                                 "(AlphaGo: 0.5): one number, or three by the root's phase (opening, middle "
                                 "game, endgame, as search.value_visits; a value worth k rollouts weighs "
                                 "k / (k + 1)); > 0 needs weights with a value head")
    value_visits: tuple = _f((0.0, 0.0, 0.0), 0.0, 1e4, item=float,
                             doc="virtual visits at the value head's value given to a position the net "
                                 "evaluates, by phase (opening, middle game, endgame: under 20%, under 50% "
                                 "and from 50% of the points played), as what the value is worth in "
                                 "rollouts (docs/results/value-calibration-9.md); every child of the root "
                                 "gets its value in one batch a move; [0, 0, 0] = off; needs a value head")
    choose: str = _f("visits", choices=("visits", "lcb"),
                     doc="final move: most real visits, or the highest lower confidence bound among "
                         "children with at least a tenth of the best's visits")
    min_prior: float = _f(0.0, 0.0, 1.0,
                          doc="final move: only among the root's children whose net prior is at least this "
                              "share of the largest (pass exempt; the most visited of them); 0 = off. The "
                              "moves that lost most against KataGo's raw policy were ones the net gives under "
                              "3% (docs/results/value-search.md)")


@dataclass(frozen=True)
class RaveConfig:
    """The rave tree's table (search.tree = rave; engine/tree_rave.pyx)."""
    expand_visits: int = _f(3, 1, 10**6, doc="real visits of a leaf before it gets all its children (Pachi: 8)")
    rave: bool = _f(True, doc="blend AMAF (first-play) values into every child's value")
    rave_equiv: float = _f(3000.0, 1.0, 1e7, doc="RAVE equivalence k: beta = aN / (aN + n + n aN / k)")
    K: float = _f(0.0, 0.0, 10.0, doc="UCB1 exploration on total counts (0: priors and RAVE explore, as Fuego)")
    prior_scale: float = _f(1.0, 0.0, 100.0, doc="multiplies the prior knowledge's visit counts (0 = none)")
    net_equiv: float = _f(100.0, 0.0, 1e4, doc="net prior: net_equiv * sqrt(p) visits at value 1 on each child "
                          "(measured: docs/results/tuning.md; per size: [size.<n>.rave])")
    net_grow: float = _f(0.0, 0.0, 1e9, doc="parent visits above which the net prior grows as sqrt(parent visits / "
                         "net_grow), so that it keeps its pull at any budget; 0 = fixed (measured: "
                         "docs/results/tuning.md; per size: [size.<n>.rave])")
    net_fade: float = _f(0.0, 0.0, 1.0, doc="the share of the net prior's weight (net_equiv) lost by move "
                         "net_fade_end * board points, falling linearly with the move number (Pachi lets "
                         "its prior's weight fall as the game goes on; 0 = off)")
    net_fade_end: float = _f(0.5, 0.05, 2.0, doc="where rave.net_fade is complete, in moves per board point "
                             "(0.5: move 85 on 13x13, 180 on 19x19)")
    net_visits: int = _f(16, 0, 10**9, doc="real visits before a node asks the net (the root always asks)")
    fpu: float = _f(1.0, 0.0, 1.0, doc="value of a child with no prior, real or AMAF statistics")
    virtual_loss: float = _f(3.0, 0.0, 100.0, doc="visits of virtual loss a search thread puts on its path "
                             "(search.threads > 1; Pachi and Fuego: 1; 3 measured stronger here, "
                             "docs/results/threads.md)")
    score_utility: float = _f(0.0, 0.0, 1.0, doc="KataGo's score utility at the root: each child of the root "
                              "with the score head's lead (a node the net evaluated; player.score_source = "
                              "backup or this above 0 asks for the leads) adds this times (2/pi) atan((its lead "
                              "- the root's) / score_scale) to its value in the root's selection, so that the "
                              "move order and the lead tell one story (0 = off)")
    score_scale: float = _f(4.0, 0.1, 100.0, doc="points of lead, against the root's, at which rave.score_utility's "
                            "term is half its weight")
    score_backup: bool = _f(False, doc="rave.score_utility's term reads each child's backed-up lead (the mean of "
                            "the leads its simulations backed up, KataGo's dynamic scoreMean) against the mean over "
                            "all of the root's, once it has any; off: the score head's lead at the child against "
                            "the root's")
    value_backup: bool = _f(False, doc="AlphaGo's mixing of the value head (search.value_lambda): each node keeps "
                            "the mean value of the nodes of its subtree the net evaluated, each once, apart from "
                            "the rollouts, and its value in the selection is (1 - lambda) its rollouts' and RAVE's "
                            "+ lambda that mean; every child of the root gets its value in one batch a move; a "
                            "simulation's result is its rollout's alone (off: lambda of the value at the deepest "
                            "evaluated node of the path enters each result)")


@dataclass(frozen=True)
class UctConfig:
    """The first round's tree (search.tree = uct; engine/tree_uct.pyx)."""
    policy: str = _f("ucb1", choices=("ucb1", "puct"), doc="selection rule: UCB1 or PUCT")
    K: float = _f(0.7, 0.0, 10.0, doc="UCB1 exploration constant (Powley et al.; rewards in [0,1])")
    K_prior: float = _f(0.0, 0.0, 10.0, doc="UCB1 exploration at nodes with net priors (0: the prior visits "
                        "explore, as in Fuego/libEGO)")
    c_puct: float = _f(1.5, 0.0, 20.0, doc="PUCT constant (AlphaGo)")
    fpu_reduction: float = _f(0.0, 0.0, 1.0, doc="PUCT: an unvisited child's value is the parent's value less "
                              "this times the square root of the prior of the visited children (Leela Zero's "
                              "first-play urgency; KataGo's 0.2); 0 = the parent's value")
    rave: bool = _f(False, doc="blend AMAF values of expanded children (Gelly & Silver)")
    rave_equiv: float = _f(1000.0, 1.0, 1e7, doc="RAVE equivalence parameter k")
    cnn_strength: float = _f(200.0, 0.0, 1e6, doc="Gelly-Silver prior visits of the net's priors (M-MCTS paper)")
    virtual_loss: float = _f(1.0, 0.0, 100.0, doc="the uct tree's batches: visits of virtual loss per pending "
                             "leaf (the rave tree's threads: rave.virtual_loss)")


@dataclass(frozen=True)
class PriorConfig:
    evaluator: str = _f("net", choices=("none", "uniform", "expert", "net"),
                        doc="where priors come from (net: expert if no weights for the size; "
                            "expert: prior knowledge from the expert policy's rules, no net)")
    dcnn_nodes: int = _f(100, 0, 10**9, words={"all": 10**9, "none": 0},
                         doc='the net (evaluator) is asked for at most n nodes of a search; "all" = every node, "none" = 0')


@dataclass(frozen=True)
class PoolConfig:
    pool_size: int = _f(200000, 2, 50_000_000, doc="nodes allocated up front (Phi)")
    full_policy: str = _f("recycle", choices=("stop", "stunt", "ensemble", "flatten", "recycle", "fuego_gc"),
                          doc="what to do when the pool is full (Powley et al.)")
    gc_threshold: int = _f(16, 1, 10**6, doc="fuego_gc: drop nodes with fewer visits (paper 4, Fuego 16)")


@dataclass(frozen=True)
class TimeConfig:
    main_fraction: float = _f(0.1, 0.001, 1.0, doc="the most of the remaining main time one move may plan")
    game_length: float = _f(0.8, 0.05, 5.0, doc="expected game length in moves, times the board's points: "
                            "main time is shared over this player's expected remaining moves (Fuego's plan)")
    min_moves_left: int = _f(10, 1, 1000, doc="the plan never expects fewer own moves left than this")
    extend: float = _f(2.0, 1.0, 4.0, doc="an unclear move (the two most visited close, or the most visited "
                       "not the best valued) may think up to this many times its plan (Pachi); 1 = never")
    middle_weight: float = _f(2.0, 0.25, 8.0, doc="the main time's plan by game phase (Pachi's middle game): a "
                              "move between fuseki_end and yose_start gets this many shares of the plan, one in the "
                              "endgame, rising from one to it through the opening; 1 = even shares (measured: "
                              "docs/results/strength-19.md)")
    fuseki_end: float = _f(0.2, 0.0, 2.0, doc="time.middle_weight: the opening ends after this many moves, "
                           "times the board's points (Pachi: 20%)")
    yose_start: float = _f(0.4, 0.0, 2.0, doc="time.middle_weight: the endgame starts after this many moves, "
                           "times the board's points (Pachi: 40%)")
    safety_margin: float = _f(0.3, 0.0, 60.0, doc="seconds kept back per move for overhead")
    min_seconds: float = _f(0.05, 0.0, 60.0, doc="never think less than this")


@dataclass(frozen=True)
class MemoryConfig:
    enabled: bool = _f(False, doc="M-MCTS value memory (Xiao, Mei & Mueller 2018); the other keys' defaults are "
                                  "its best measured variant at equal time (docs/results/mmcts-equal-time.md)")
    memory_size: int = _f(10000, 1, 10**7, doc="entries (paper: 10,000)")
    M: int = _f(50, 1, 10**5, doc="neighbours per query (paper: 50)")
    tau: float = _f(0.1, 1e-9, 1e3, doc="softmax temperature (paper: 0.1)")
    eta: float = _f(2.0, 0.0, 1e3, doc="decay of V_M backup, equation (9)")
    lambda_c: float = _f(100.0, 0.0, 1e9, doc="the constant c of the lambda_s schedule")
    lambda_schedule: str = _f("capped", choices=("capped", "share"),
                              doc="lambda_s (the paper gives no formula, only a weight that decays for no bias "
                                  "asymptotically): capped = min(N_M, c) / (min(N_M, c) + N), at most c / (c + N), "
                                  "decays to 0; share = N_M / (N_M + N + c), the memory's share of the counts, "
                                  "which does not decay (N_M grows with the subtree)")
    D: int = _f(4096, 16, 1 << 20, doc="feature hashing dimension")
    hash_tables: int = _f(8, 1, 64, doc="SimHash tables")
    hash_bits: int = _f(16, 1, 32, doc="bits per SimHash code")
    probe_radius: int = _f(1, 0, 2, doc="multi-probe Hamming radius")
    nodes: int = _f(100, 0, 10**9, words={"all": 0},
                    doc='phi for the first this many new nodes of a search (those the net sees anyway under '
                        'prior.dcnn_nodes); "all" (or 0) = every node, as the paper (memory.enabled = false for none)')
    confidence: bool = _f(True, doc="scale N_M by exp((max cos - 1) / tau), the closest entry's kernel against a perfect match (deviation)")
    keep: str = _f("game", choices=("game", "search"),
                   doc="what the memory holds: game = the entries of every search of the game, until clear_board "
                       "(with memory.nodes of a few each search, a full memory carries many moves' searches); "
                       "search = this search's entries only, emptied when the position changes (the paper adds "
                       "every node, so at its budgets a full memory holds about one search)")
    recenter: bool = _f(False, doc="re-centre SimHash on the stored phi each time the memory doubles while it fills and "
                                   "after every memory_size new entries once full: the centre follows the game's "
                                   "positions, so a query ranks tens of candidates, not thousands (candidate "
                                   "generation only; a deviation)")


def memory_refused(m):
    """Why the ``[memory]`` table ``m`` cannot run (the rules between its
    keys; each key's own range is the table's), or None."""
    if m.M > m.memory_size:
        return f"memory.M ({m.M}) must not exceed memory.memory_size ({m.memory_size})"
    if m.probe_radius > m.hash_bits:
        return f"memory.probe_radius ({m.probe_radius}) must not exceed memory.hash_bits ({m.hash_bits})"
    return None


@dataclass(frozen=True)
class BhrfConfig:
    epsilon: float = _f(1.0, 0.0, 1.0, doc="probability of asking the forest (Fabbri et al.)")
    selection: str = _f("soft-uct", choices=("soft-uct", "last-reply", "uniform"),
                      doc="reply selection process: the paper's two, or uniform over the playable replies "
                          "(soft-UCT with equal weights, a deviation)")
    b: float = _f(0.7, 0.0, 10.0, doc="soft-UCT exploration constant, equation (1)")
    fallback: str = _f("random", choices=tuple(POLICIES), doc="default rollout policy")
    max_depth: int = _f(3, 1, 7, doc="longest context kept and matched (the paper: unbounded; <= 7 here: "
                                     "the board keeps its last 8 moves)")
    match: str = _f("longest", choices=("longest", "legal"),
                    doc="which matching context replies: the longest, its replies tested after (Algorithm 3), or "
                        "the longest with a playable reply (the paper's prose: shorter ones tried in turn)")
    capacity: int = _f(1_000_000, 1000, 100_000_000,
                       doc="most pattern nodes kept; when full, known patterns still learn and no new one "
                           "is added (the paper: unbounded)")
    root_context: bool = _f(False, doc="the game moves before the root are context for the first descent moves (deviation)")
    skip_expansion: bool = _f(False, doc="the move into the node a simulation added is stored as no reply (deviation)")
    horizon: int = _f(0, 0, 10_000, doc="ask the forest only within this many moves of the root; "
                                        "0 = at every rollout move (the paper; a cap is a deviation)")
    horizon_share: float = _f(0.0, 0.0, 1.0, doc="ask the forest only within this share of the root's empty "
                              "points, in moves past the root; 0 = off (a deviation; with horizon, the smaller)")
    trials: int = _f(0, 0, 1000, doc="soft-UCT: at most this many uniform picks from the context's whole "
                     "reply block, then the default policy (a deviation); 0 = the exact draw (the paper)")
    accept: str = _f("estimate", choices=("estimate", "probability", "mean"),
                     doc="soft-UCT plays its draw with probability min(1, u_r), P(r|c) of equation (1), "
                         "or the reply's win rate")


@dataclass(frozen=True)
class MoggyConfig:
    """The moggy rollout policy's rules (board_ext/playout.pyx), in the order
    they are tried, each with the probability that it is tried at a move."""
    capture: float = _f(0.9, 0.0, 1.0, doc="moggy: take the last move's chain in atari (probability)")
    defend: float = _f(1.0, 0.0, 1.0, doc="moggy: save an own chain in atari next to the last move, "
                                           "not out of a dead ladder (probability)")
    ladder: float = _f(0.9, 0.0, 1.0, doc="moggy: chase a chain that ran to two liberties when the ladder works (probability)")
    twolib: float = _f(0.9, 0.0, 1.0, doc="moggy: two-liberty attack and defence around the last move (probability)")
    nakade: float = _f(0.8, 0.0, 1.0, doc="moggy: the vital point of a 3-6 point eye space the last move was played in (probability)")
    pattern: float = _f(0.9, 0.0, 1.0, doc="moggy: MoGo 3x3 patterns around the last two moves (probability)")
    gcapture: float = _f(0.5, 0.0, 1.0, doc="moggy: capture a chain in atari anywhere (probability)")
    fillboard: float = _f(0.3, 0.0, 1.0, doc="moggy: a move in an empty 3x3 area (probability)")
    selfatari: float = _f(0.9, 0.0, 1.0, doc="moggy: replace a bad single-stone self-atari; multi-stone ones always are (probability)")


@dataclass(frozen=True)
class NetConfig:
    weights: str = _f("", doc="weights file; empty = nets/weights/<size>x<size>.pt")
    threads: int = _f(1, 1, 64, doc="torch threads")
    device: str = _f("cpu", choices=("cpu", "cuda", "auto"),
                     doc="where the net runs: cpu, cuda (a GPU torch sees), auto (cuda if there is one)")
    cache_size: int = _f(20000, 0, 10**7, doc="evaluator cache entries")
    precision: str = _f("fp32", choices=("fp32", "bf16", "fp64"),
                        doc="fp32, bf16 (faster on a CPU with native bf16, bench/net.py; moves may differ; without it the net runs fp32), "
                            "or fp64 (the same answers on every CPU, slower: the trees of tests/tree_fingerprint.py)")
    required: bool = _f(False, doc="fail if no weights for this size (else play without the net)")
    rawnet: bool = _f(False, doc="play the net's most probable legal move, no search")
    symmetry: str = _f("none", choices=("none", "random", "all"),
                       doc="the board's orientation the net sees in the search: none (as it stands), random "
                           "(a symmetry drawn for each batch, the answer turned back, as KataGo does), or all "
                           "(the mean over the eight, eight times the net's work)")
    root_symmetries: int = _f(1, 1, 8, doc="the root's move priors as the mean of the net's answer over the "
                              "first this many of the board's eight symmetries (KataGo's "
                              "rootNumSymmetriesToSample): 1 reads the board as it stands")


@dataclass(frozen=True)
class GtpConfig:
    name: str = _f("gomcts", doc="engine name for the GTP name command")
    boardsize: int = _f(19, 2, 19, doc="initial board size")
    komi: float = _f(7.5, -1000.0, 1000.0, doc="initial komi")
    log_file: str = _f("", doc="log to this file instead of stderr")
    live_gfx: str = _f("none", choices=("none", "visits", "pv"),
                       doc="GoGui live graphics while genmove searches (gogui-gfx: blocks on stderr, as Fuego "
                           "and Pachi draw): visit counts, or the principal variation")
    live_gfx_interval: float = _f(0.25, 0.05, 3600.0, doc="seconds between live graphics blocks (under the "
                                  "shortest move time, so GoGui shows some on 9x9 at 1 s a move)")


@dataclass(frozen=True)
class PlayerConfig:
    """The engine as users get it (engine/player.py, engine/endgame.py)."""
    ponder: bool = _f(False, doc="think on the opponent's time")
    book: bool = _f(False, doc="play from the opening book while the game is in it (player.book_file, built by "
                    "python -m tools.book; only for the komi and rules it was built for); no book ships, so it "
                    "needs player.book_file")
    book_file: str = _f("", doc="the opening book that player.book plays from")
    handicap_komi: float = _f(7.0, 0.0, 50.0, doc="dynamic komi of handicap games (Pachi's linear dynkomi): the "
                              "search adds this many points a handicap stone to White's komi at the start, "
                              "falling to none by move handicap_komi_end * board points; as White it sees "
                              "win rates it can act on, as Black it keeps playing for a margin (0 = off)")
    handicap_komi_end: float = _f(0.55, 0.05, 2.0, doc="where the dynamic komi reaches 0, in moves per board "
                                  "point (0.55: move 200 on 19x19)")
    score_playouts: int = _f(400, 1, 10**6, doc="playouts for dead-stone estimates")
    rules: str = _f("chinese", choices=("chinese", "aga", "new_zealand", "japanese"),
                    doc="rules of final_score: area scoring, or territory scoring for japanese (the search "
                        "always aims at the area count)")
    superko_play: str = _f("accept", choices=("accept", "refuse"),
                           doc="play (the opponent's move): accept a move legal under simple ko that repeats "
                               "an earlier position (logged), or refuse it; the engine's own moves obey superko")
    move_score_playouts: int = _f(64, 1, 10**6, doc="playouts after each candidate move for kata-analyze's "
                                  "scoreLead and scoreStdev")
    score_source: str = _f("net", choices=("net", "backup", "playouts"),
                           doc="where analysis reads score leads and ownership: the net's score and ownership "
                               "heads (when the size's net has them; otherwise playouts, said once on stderr), "
                               "a candidate's lead the head's after the move; backup: the same heads, a "
                               "candidate's lead the head's leads backed up through its simulations "
                               "(KataGo's; measured: docs/results/lead-backup.md); or playouts always")


@dataclass(frozen=True)
class Config:
    search: SearchConfig = field(default_factory=SearchConfig)
    rave: RaveConfig = field(default_factory=RaveConfig)
    uct: UctConfig = field(default_factory=UctConfig)
    prior: PriorConfig = field(default_factory=PriorConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    time: TimeConfig = field(default_factory=TimeConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    bhrf: BhrfConfig = field(default_factory=BhrfConfig)
    moggy: MoggyConfig = field(default_factory=MoggyConfig)
    net: NetConfig = field(default_factory=NetConfig)
    player: PlayerConfig = field(default_factory=PlayerConfig)
    gtp: GtpConfig = field(default_factory=GtpConfig)


# Keys that moved to the table of what reads them: a config that still
# spells the old name fails with a message naming the new one.
RENAMED = {"search.K": "uct.K", "search.policy": "uct.policy", "search.c_puct": "uct.c_puct",
           "search.rave": "uct.rave", "search.rave_equiv": "uct.rave_equiv", "prior.K": "uct.K_prior",
           "prior.cnn_strength": "uct.cnn_strength",
           "tree.value_prior": "search.value_visits",
           **{f"tree.{k}_{n}": f"size.{n}.rave.{k}" for k in ("net_equiv", "net_grow") for n in (13, 19)},
           # the tables named after their owner: the keys every tree reads in [search], the rave
           # tree's own in [rave], each virtual loss beside its tree
           **{f"tree.{k}": f"search.{k}" for k in ("value_lambda", "value_visits", "choose")},
           "search.virtual_loss": "uct.virtual_loss",
           **{f"gtp.{k}": f"player.{k}" for k in ("ponder", "score_playouts", "rules", "superko_play",
                                                   "move_score_playouts")}}
RENAMED_TABLES = {"rollout": "moggy", "tree": "rave"}


def renamed(key):
    """The new name of an old ``table.key``, or None."""
    if key in RENAMED:
        return RENAMED[key]
    t, _, k = key.partition(".")
    if t in RENAMED_TABLES:
        return f"{RENAMED_TABLES[t]}.{k}"
    return None


def threads_refused(cfg):
    """What keeps the config from searching with several threads (the
    setting to change, as text), or None.  Whether a tree runs threaded is
    its policy's to say (engine.tree_policies)."""
    if not tree_policies.get(cfg.search.tree).threaded:
        return f"search.tree = {cfg.search.tree}"
    if cfg.search.rollout == "bhrf":
        return "search.rollout = bhrf"
    if cfg.memory.enabled:
        return "memory.enabled = true"
    return None


def pool_refused(cfg, size):
    """Why the node pool cannot search a ``size`` board (the rave tree
    gives a leaf all its children at once: the root and one expansion must
    fit), or None."""
    need = size * size + 2
    cfg = at_size(cfg, size)
    if tree_policies.get(cfg.search.tree).expands_all and cfg.pool.pool_size < need:
        return (f"pool.pool_size = {cfg.pool.pool_size} cannot hold one expansion on {size}x{size} "
                f"(the root and its {size * size + 1} children: at least {need} nodes)")
    return None


def _check_cross(cfg):
    why = threads_refused(cfg)
    if cfg.search.threads > 1 and why is not None:
        raise ConfigError(f"search.threads = {cfg.search.threads}: {why} cannot run threaded "
                          f"(set search.threads = 1, or change {why.split(' = ')[0]})")
    if cfg.search.choose == "lcb" and not tree_policies.get(cfg.search.tree).lcb:
        can = [n for n, p in tree_policies.REGISTRY.items() if p.lcb]
        raise ConfigError(f"search.choose = lcb needs a tree that chooses by lower bound (search.tree = "
                          f"{' or '.join(can)}; the {cfg.search.tree} tree chooses by visits); "
                          f"set search.choose = visits")
    if len(cfg.search.value_lambda) not in (1, 3):
        raise ConfigError(f"search.value_lambda takes one number or three (opening, middle game, endgame), "
                          f"got {list(cfg.search.value_lambda)}")
    if len(cfg.search.value_visits) != 3:
        raise ConfigError(f"search.value_visits takes three numbers (opening, middle game, endgame), "
                          f"got {list(cfg.search.value_visits)}")
    if cfg.time.fuseki_end > cfg.time.yose_start:
        raise ConfigError(f"time.fuseki_end ({cfg.time.fuseki_end:g}) must not come after time.yose_start "
                          f"({cfg.time.yose_start:g})")
    if cfg.player.book and not cfg.player.book_file:
        raise ConfigError("player.book = true needs player.book_file: no opening book ships "
                          "(build one with python -m tools.book, or set player.book = false)")
    why = memory_refused(cfg.memory)
    if why is not None:
        raise ConfigError(why)
    if cfg.search.seconds == 0 and cfg.search.playouts <= 0:
        raise ConfigError("search.playouts: the move budget must be positive")
    if cfg.bhrf.trials > 0 and cfg.bhrf.accept == "probability":
        raise ConfigError("bhrf.trials: the trials draw cannot accept by 'probability' "
                          "(bhrf.accept), which needs the sum of u over the playable replies")


# ---- per-size override tables ([size.<n>.<table>]): one mechanism for every
# value that depends on the board size.  A table for 9 serves boards up to
# 9x9, 13 from 10x10 to 15x15, 19 from 16x16 (shipped_size).  The built-in
# ones below are the engine's per-size defaults; a config's own [size.<n>]
# tables go over them, and a key set for every size (in a file laid over
# them, a --set, a go-param) replaces every per-size value said before it
# (tomlconf.overlay).
SHIPPED_SIZES = (9, 13, 19)          # the per-size tables: one a class of board sizes (shipped_size)
SIZE_DEFAULTS = {
    "13": {"rave": {"net_equiv": 150.0, "net_grow": 2000.0}},
    "19": {"rave": {"net_equiv": 150.0, "net_grow": 2000.0}},
}
SIZE_DEFAULT_DOCS = {"rave.net_equiv": "measured: docs/results/strength-19.md",
                     "rave.net_grow": "measured: docs/results/strength-19.md"}
SIZE_FIXED = {"gtp.boardsize": "a per-size table is chosen by the board size; it cannot set it"}


def shipped_size(size):
    """The per-size table that serves a ``size`` board: 9 up to 9x9, 13
    for 10x10 to 15x15, 19 from 16x16."""
    return 9 if size <= 9 else 13 if size <= 15 else 19


def _freeze(sizes):
    return tuple(sorted((n, tuple(sorted((t, tuple(sorted(kv.items()))) for t, kv in tables.items())))
                        for n, tables in sizes.items()))


def _thaw(frozen):
    return {n: {t: dict(kv) for t, kv in tables} for n, tables in frozen}


def _build_tables(data, where=""):
    tables = {f.name: f for f in fields(Config)}
    out = {}
    for tname, tval in data.items():
        for k in (tval if isinstance(tval, dict) else ()):
            if f"{tname}.{k}" in RENAMED:
                raise ConfigError(f"config key '{where}{tname}.{k}' is now '{where}{RENAMED[f'{tname}.{k}']}'")
        if tname in RENAMED_TABLES:
            raise ConfigError(f"config table '[{where}{tname}]' is now '[{where}{RENAMED_TABLES[tname]}]'")
        if tname not in tables:
            raise ConfigError(f"unknown config table '[{where}{tname}]' (known: {', '.join(tables)}, size)")
        if not isinstance(tval, dict):
            raise ConfigError(f"'{where}{tname}' must be a table")
        out[tname] = build_table(tables[tname].default_factory, tval, f"{where}{tname}.")
    cfg = Config(**out)
    _check_cross(cfg)
    return cfg


def _attach(cfg, sizes, general=None, at=0):
    object.__setattr__(cfg, "_sizes", sizes)
    object.__setattr__(cfg, "_general", general)
    object.__setattr__(cfg, "_at", at)
    object.__setattr__(cfg, "_sized", {})
    return cfg


def build(data):
    """Config from a nested dict ({table: {key: value}}, per-size tables
    under ``size``); validates everything, each per-size table over the
    rest included.  Without ``size`` the built-in per-size tables apply,
    less the keys ``data`` sets for every size.  The Config holds the
    values for every size; :func:`at_size` gives those of one size."""
    data = dict(data)
    sizes = data.pop(SIZE, None)
    if sizes is None:
        sizes = overlay({SIZE: copy.deepcopy(SIZE_DEFAULTS)}, {t: v for t, v in data.items()
                                                              if isinstance(v, dict)})[SIZE]
    elif not isinstance(sizes, dict):
        raise ConfigError(f"'{SIZE}' must hold per-size tables: [{SIZE}.<n>.<table>]")
    cfg = _build_tables(data)
    general = _values(cfg)
    kept = {}
    for n, tables in sizes.items():
        if str(n) not in {str(x) for x in SHIPPED_SIZES}:
            raise ConfigError(f"'[{SIZE}.{n}]': per-size tables are for {', '.join(map(str, SHIPPED_SIZES))} "
                              f"(9 serves boards up to 9x9, 13 from 10x10 to 15x15, 19 from 16x16)")
        if not isinstance(tables, dict) or not all(isinstance(v, dict) for v in tables.values()):
            raise ConfigError(f"'{SIZE}.{n}' must hold tables: [{SIZE}.{n}.<table>] key = value")
        for t, kv in tables.items():
            for k in kv:
                if f"{t}.{k}" in SIZE_FIXED:
                    raise ConfigError(f"'{SIZE}.{n}.{t}.{k}': {SIZE_FIXED[f'{t}.{k}']}")
        sized = _build_tables(overlay(copy.deepcopy(general), tables), where=f"{SIZE}.{n}.")
        # the per-size values as the table's types read them (a --set's text, coerced)
        kept[str(n)] = {t: {k: getattr(getattr(sized, t), k) for k in kv} for t, kv in tables.items() if kv}
    return _attach(cfg, _freeze(kept))


def at_size(cfg, size):
    """The config for a ``size`` board: the values for every size with the
    per-size table of :func:`shipped_size` over them (``gtp.boardsize``
    stays the first game's size; :func:`sized_for` names this one).  It
    keeps the per-size tables: ``at_size`` of it for another size gives
    that size's values, and :func:`replace` keeps the size."""
    general = getattr(cfg, "_general", None) or cfg
    if not hasattr(general, "_sizes"):
        _attach(general, _freeze(SIZE_DEFAULTS))
    hit = general._sized.get(size)
    if hit is None:
        data = overlay(_values(general), _thaw(general._sizes).get(str(shipped_size(size)), {}))
        hit = _attach(_build_tables(data), general._sizes, general, size)
        general._sized[size] = hit
    return hit


def sized_for(cfg):
    """The board size whose values ``cfg`` holds (:func:`at_size`), or 0
    for the values for every size."""
    return getattr(cfg, "_at", 0)


def per_size(cfg):
    """The per-size tables a Config holds: {"<n>": {table: {key: value}}}."""
    general = getattr(cfg, "_general", None) or cfg
    return _thaw(getattr(general, "_sizes", _freeze(SIZE_DEFAULTS)))


def to_dict(cfg):
    """The config as a file would state it: the values for every size,
    and the per-size tables under ``size`` (for a config of one size,
    :func:`at_size`, those it was taken from)."""
    general = getattr(cfg, "_general", None) or cfg
    out = _values(general)
    out[SIZE] = per_size(general)
    return out


def _values(cfg):
    """{table: {key: value}} of the values ``cfg`` holds, no per-size tables."""
    return {f.name: dataclasses.asdict(getattr(cfg, f.name)) for f in fields(Config)}


def load(path=None, overrides=()):
    """Read a TOML file (or defaults if None) and apply overrides, each laid
    over the engine's per-size defaults and what came before it."""
    data = {SIZE: copy.deepcopy(SIZE_DEFAULTS)}
    if path:
        overlay(data, read(path))
    return build(merge(data, overrides))


CONFIG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs")
SHIPPED_CONFIG = os.path.join(CONFIG_DIR, "engine.toml")     # the engine users get, every size


def replace(cfg, **changes):
    """A copy of cfg with 'table.key' (or 'size.<n>.table.key') -> value
    changes, validated; a key for every size replaces its per-size values
    (tomlconf.overlay).  A config of one size (:func:`at_size`) stays of
    that size."""
    data = to_dict(cfg)
    merge(data, [f"{k}={v}" for k, v in changes.items()])
    new = build(data)
    at = getattr(cfg, "_at", 0)
    return at_size(new, at) if at else new


# the banner over each table of configs/default.toml
TABLE_NOTES = {
    "search": "the MCTS driver (engine/search.py, engine/walk.pyx) and what every tree reads: the value head's weight, the final choice",
    "rave": 'the rave tree (search.tree = "rave"; engine/tree_rave.pyx, board_ext/priors.pyx)',
    "prior": "move priors (the net; Gelly & Silver for search.tree = uct, the M-MCTS baseline)",
    "pool": "the fixed node pool and what happens when it is full (Powley et al.)",
    "time": "thinking time under a clock (engine/timecontrol.py)",
    "memory": "M-MCTS value memory (Xiao, Mei & Mueller, AAAI 2018)",
    "bhrf": "BHRF rollouts (Fabbri et al.)",
    "uct": 'the first round\'s tree (search.tree = "uct"; engine/tree_uct.pyx), kept for the paper reproductions',
    "moggy": "the moggy rollout policy (board_ext/playout.pyx): each rule, in this order, is tried\n"
             "# with its probability; the first that finds a move plays it",
    "player": "the engine as users get it: pondering, scoring, rules, the dead-stone estimate (engine/player.py)",
    "net": "the net (nets/): a residual net with policy, value, score and ownership heads, taught by KataGo",
    "gtp": "the GTP front end (engine/gtp/server.py)",
}

DEFAULT_HEADER = """\
# Default configuration: exactly the defaults of engine/config.py, written from it by
# `make configs` (edit engine/config.py, not this file; tests/unit/test_config.py compares the text).
# Every key: value, what it does, (default; allowed range).
# Use: python gtp_main.py --config configs/default.toml [--set table.key=value ...]
# A config may start with base = "other.toml" (relative to it) and set only what differs.
# Over GTP: go-param table.key value (GoGui: the param pages of gogui-analyze_commands).
"""


def _toml_value(f, v):
    """A value as TOML, a word where the setting has one for it."""
    for w, n in (f.metadata.get("words") or {}).items():
        if n == v and not isinstance(v, bool):
            return f'"{w}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_toml_value(f, x) for x in v) + "]"
    return repr(v)


def _bound(v):
    if isinstance(v, float):
        return f"{v:g}"
    return f"{v:_}" if abs(v) >= 100_000 else str(v)


def _allowed(f):
    m = f.metadata
    if m.get("choices"):
        return "one of " + " | ".join(m["choices"])
    t = _type(f)
    if t is bool:
        return "true | false"
    if t is str:
        return "any text"
    out = f"{_bound(m['lo'])} .. {_bound(m['hi'])}"
    words = m.get("words") or {}
    return out + "".join(f' | "{w}"' for w in words)


def default_toml():
    """The text of configs/default.toml: every table with its banner, every
    key with its default, doc, default and range."""
    lines = [DEFAULT_HEADER.rstrip("\n")]
    cfg = Config()
    for tf in fields(cfg):
        sub = getattr(cfg, tf.name)
        rows = []
        for f in fields(sub):
            v = getattr(sub, f.name)
            rows.append((f"{f.name} = {_toml_value(f, v)}",
                         f"{f.metadata.get('doc', '')} (default {_toml_value(f, v)}; {_allowed(f)})"))
        width = max(len(a) for a, _ in rows) + 2
        lines += ["", f"# ---- {TABLE_NOTES[tf.name]}", f"[{tf.name}]"]
        lines += [f"{a:<{width}}# {b}" for a, b in rows]
    lines += ["", "# ---- the engine's per-size values, over the ones above on boards of that size: [size.9.<table>]",
              "# serves boards up to 9x9, [size.13.<table>] those up to 15x15, [size.19.<table>] the rest"]
    for n, tables in sorted(SIZE_DEFAULTS.items(), key=lambda kv: int(kv[0])):
        for t, kv in tables.items():
            lines += [f"[{SIZE}.{n}.{t}]"]
            width = max(len(f"{k} = {v!r}") for k, v in kv.items()) + 2
            fs = {f.name: f for f in fields(getattr(cfg, t))}
            lines += [f"{f'{k} = {_toml_value(fs[k], v)}':<{width}}# {t}.{k} on these boards "
                      f"({SIZE_DEFAULT_DOCS[f'{t}.{k}']}) (default {_toml_value(fs[k], v)}; {_allowed(fs[k])})"
                      for k, v in kv.items()]
    return "\n".join(lines) + "\n"


def describe(cfg):
    """Flat list of (key, value, doc) for every setting."""
    rows = []
    for tf in fields(cfg):
        sub = getattr(cfg, tf.name)
        for f in fields(sub):
            rows.append((f"{tf.name}.{f.name}", getattr(sub, f.name), f.metadata.get("doc", "")))
    return rows
