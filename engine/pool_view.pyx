# cython: language_level=3
"""The node pool read from Python (engine/pool.pyx is the store; its
methods of the same names call these): a node's statistics, a node's
children and their prior knowledge, the root's tallies by move (final
scores, the score head's leads, the ensemble's visits), the LRU order and
the walk that checks the tree's invariants (the tests, the threads' stress
test).  Nothing here runs inside a search."""
import numpy as np

from engine.pool cimport NodePool, p_value, EXPANDING
from engine.pool import FULL_POLICIES


def stats(NodePool self):
    """The pool's use: capacity, nodes used and recycled, expansions,
    simulations, rollout moves, the full-pool policy, bytes a node."""
    return {"capacity": self.capacity, "used": self.n_used, "recycled": self.recycled,
            "expansions": self.expansions, "sims": self.sims, "rollout_moves": self.rollout_moves,
            "policy": [k for k, v in FULL_POLICIES.items() if v == self.full_policy][0],
            "bytes_per_node": self.node_bytes, "full": self.n_used >= self.capacity}


def node(NodePool self, int n):
    """Statistics of node n as a dict."""
    return {"move": self.move[n], "N": self.N[n], "W": self.W[n], "N0": self.N0[n], "W0": self.W0[n],
            "P": p_value(self.P[n]), "aN": self.aN[n] if self.aN else 0.0, "aW": self.aW[n] if self.aW else 0.0,
            "NM": self.NM[n] if self.NM else 0.0, "VM": self.VM[n] if self.VM else 0.0,
            "VN": self.VN[n] if self.VN else 0.0, "VW": self.VW[n] if self.VW else 0.0,
            "parent": self.parent[n]}

def children(NodePool self, int n=-1):
    """(move, N, W, P, NM, VM, node) of every child of n (root by
    default); N and W are real visits and rewards, without priors."""
    if n < 0:
        n = self.root
    out = []
    cdef int c = self.first_child[n]
    while c >= 0:
        out.append((self.move[c], self.N[c], self.W[c], p_value(self.P[c]), self.NM[c] if self.NM else 0.0,
                    self.VM[c] if self.VM else 0.0, c))
        c = self.next_sibling[c]
    return out

def child_priors(NodePool self, int n=-1):
    """{move: (N0, W0, aN, aW)} of every child of n (root by default)."""
    if n < 0:
        n = self.root
    out = {}
    cdef int c = self.first_child[n]
    while c >= 0:
        out[self.move[c]] = (self.N0[c], self.W0[c], self.aN[c] if self.aN else 0.0, self.aW[c] if self.aW else 0.0)
        c = self.next_sibling[c]
    return out


def best_child(NodePool self, int n):
    """The child of n with the most real visits (-1 if none visited)."""
    cdef int c = self.first_child[n], best = -1
    cdef double bn = 0
    while c >= 0:
        if self.N[c] > bn:
            bn = self.N[c]
            best = c
        c = self.next_sibling[c]
    return best


def pv_nodes(NodePool self, int n, int max_len=20):
    """The nodes of the most-visited line from node n (n excluded)."""
    out = []
    c = best_child(self, n)
    while c >= 0 and len(out) < max_len:
        out.append(c)
        c = best_child(self, c)
    return out


def pv(NodePool self, int n, int max_len=20):
    """Most-visited line from node n (n's own move excluded)."""
    return [self.move[c] for c in pv_nodes(self, n, max_len)]


def root_scores(NodePool self):
    """The final scores (black minus white, komi in) of this root's
    simulations: {move: (n, mean, sd)} by the root's move, and the key
    -1 for all of them (the search's own score evidence, beside its
    win rates)."""
    return _by_move(self, self.score_n, self.score_sum, self.score_sq)

cdef dict _by_move(NodePool self, const double* n, const double* total, const double* sq):
    """{move: (n, mean, sd)} of the tallies by the root's move, -1 for all."""
    cdef int m
    out = {}
    for m in range(self.nn + 2):
        if n[m] > 0:
            mean = total[m] / n[m]
            var = max(sq[m] / n[m] - mean * mean, 0.0)
            out[-1 if m == self.nn + 1 else m] = (n[m], mean, var ** 0.5)
    return out

def root_leads(NodePool self):
    """The score head's leads backed up through this root's simulations
    (each simulation counts the lead of the deepest node of its path
    that has one, black's view, komi in): {move: (n, mean, sd)} by the
    root's move, -1 for all; empty without a net with a score head."""
    return _by_move(self, self.lead_n, self.lead_sum, self.lead_sq)

def ensemble_visits(NodePool self):
    """Root visits and rewards per move accumulated by the ensemble
    policy over the trees it discarded: [(visits, wins)] by move."""
    return [(self.ens_visits[m], self.ens_wins[m]) for m in range(self.nn + 1)]

def check_invariants(NodePool self):
    """Walk the tree (the tests, and the threads' stress test after each
    search): every node in use reached once from the root, its parent
    link right, no expansion claim left behind, visits and wins finite
    and not negative, wins at most visits, a node's visits at least its
    children's.  Returns the number of nodes reached; raises
    AssertionError naming every broken invariant."""
    cdef int c, x, k
    cdef double sn
    bad = []
    seen = np.zeros(self.capacity, np.uint8)
    stack = [self.root]
    reached = 0
    while stack:
        x = stack.pop()
        if seen[x]:
            bad.append(f"node {x} reached twice")
            continue
        seen[x] = 1
        reached += 1
        if self.flags[x] & EXPANDING:
            bad.append(f"node {x}: an expansion claim left behind")
        if not (self.N[x] >= -1e-3 and self.W[x] >= -1e-3 and self.W[x] <= self.N[x] + 1e-3):
            bad.append(f"node {x}: N {self.N[x]} W {self.W[x]}")
        c = self.first_child[x]
        sn = 0.0
        k = 0
        while c >= 0:
            if self.parent[c] != x:
                bad.append(f"node {c}: child of {x} whose parent is {self.parent[c]}")
            sn += self.N[c]
            stack.append(c)
            c = self.next_sibling[c]
            k += 1
            if k > self.nn + 1:
                bad.append(f"node {x}: more children than moves (a cycle)")
                break
        if sn > self.N[x] + 1e-3 * (1.0 + self.N[x]):
            bad.append(f"node {x}: children's visits {sn} above its own {self.N[x]}")
    if reached != self.n_used:
        bad.append(f"{reached} nodes reachable, {self.n_used} in use")
    assert not bad, "; ".join(bad[:10])
    return reached

def lru_order(NodePool self):
    """The nodes from the least recently used on."""
    out = []
    x = self.lru_head
    while x >= 0:
        out.append(x)
        x = self.lru_next[x]
    return out
