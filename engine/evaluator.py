"""The Evaluator interface between the search and a move-prediction net.

``evaluate(boards, want_features=False) -> (priors, features)``:
  * ``boards``: a list of ``board_ext.board.Board`` of one size;
  * ``priors``: float32 array (B, n*n + 1), probabilities over the legal
    moves of the side to move of each board (pass last), zero elsewhere,
    each row summing to 1;
  * ``features``: None, or float32 (B, d) features for the M-MCTS memory
    (the net's Conv7 activations, flattened) when ``want_features``.

``nets.evaluator.Evaluator`` implements it with torch; this module holds the
torch-free ones: ``UniformEvaluator`` (play without a net),
``ExpertEvaluator`` (Fuego-like prior knowledge from the expert rollout
policy's rules, no net) and ``ScriptedEvaluator`` (tests: fixed priors per
move).
"""
import numpy as np

from board_ext.playout import expert_priors


class UniformEvaluator:
    """Uniform priors over the legal moves (and pass); no features."""

    feature_dim = 0
    prior_knowledge = True      # adds nothing to the rave tree's own knowledge

    def evaluate(self, boards, want_features=False):
        n = boards[0].size
        out = np.zeros((len(boards), n * n + 1), np.float32)
        for i, b in enumerate(boards):
            legal = b.legal_moves()
            out[i, legal] = 1.0
            out[i, n * n] = 1.0
            out[i] /= out[i].sum()
        return out, None


class ExpertEvaluator:
    """Prior knowledge without a net, after Fuego's GoUctDefaultPriorKnowledge
    (reduced): the expert rollout policy's rules weigh every legal move
    (``board_ext.playout.PRIOR_WEIGHTS``: captures and atari defences 1,
    3x3 pattern moves 0.6, other moves 0.25, lone first-line moves 0.05,
    self-ataris 0.02, filling an own eye and pass 0.01), normalised.  Costs
    microseconds a position, so the search can ask it at every node (raise
    ``prior.dcnn_nodes``); no features.  The rave tree has its own prior
    knowledge at every node (``board_ext/priors.pyx``) and does not ask it."""

    feature_dim = 0
    prior_knowledge = True

    def evaluate(self, boards, want_features=False):
        n = boards[0].size
        out = np.zeros((len(boards), n * n + 1), np.float32)
        for i, b in enumerate(boards):
            expert_priors(b, out[i])
            out[i] /= out[i].sum()
        return out, None


class ScriptedEvaluator(UniformEvaluator):
    """Priors proportional to ``weights[move]`` (default 1) on legal moves.

    With ``features=d`` it also returns a deterministic feature vector per
    position (a hash-seeded random vector), for memory tests.
    """

    prior_knowledge = False     # stands for a net in tests

    def __init__(self, weights=None, features=0):
        self.weights = dict(weights or {})
        self.feature_dim = features
        self.calls = 0

    def evaluate(self, boards, want_features=False):
        self.calls += 1
        n = boards[0].size
        out = np.zeros((len(boards), n * n + 1), np.float32)
        for i, b in enumerate(boards):
            for m in list(b.legal_moves()) + [n * n]:
                out[i, m] = self.weights.get(m, 1.0)
            out[i] /= out[i].sum()
        feats = None
        if want_features and self.feature_dim:
            feats = np.stack([np.random.default_rng(b.hash & 0xFFFFFFFF).standard_normal(self.feature_dim)
                              for b in boards]).astype(np.float32)
        return out, feats
