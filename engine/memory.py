"""Value memory of Memory-Augmented MCTS (M-MCTS).

Implements the memory of Xiao, Mei and Mueller, "Memory-Augmented Monte
Carlo Tree Search", AAAI 2018 (section "Memory-Augmented MCTS").  numpy
plus its Cython kernel (engine/memkernel.pyx, the hot paths); no torch, and
of the project only engine.config (the knobs' defaults: one home).

Terms (the paper's symbols)
---------------------------
zeta(s)
    The raw feature vector of a state: the output of an inner network layer
    (Conv7 in the paper), flattened and L2-normalised.  ``zeta: S -> R^L``.
h
    A feature hashing function ``h: R^L -> R^D`` (Weinberger et al. 2009):
    input coordinate ``j`` is added, with a random sign ``xi(j)``, into
    output bucket ``h(j)``.  See :class:`FeatureHasher`.
phi(s) = h(zeta(s))
    The state's feature representation stored in the memory, ``R^D``,
    ``D = 4096`` in the paper.  We additionally L2-normalise phi so that
    ``cos(phi(s), phi(x))`` is a plain dot product.
d(s, x) = -cos(phi(s), phi(x))
    The distance between two states, equation (7).
memory_size
    The capacity ``|M|`` of the memory (10,000 in the paper).
M
    The number of most similar entries used by a query (50 in the paper).
tau
    The temperature of the weights of equation (8) (0.1 in the paper).
w_i(x) = N_i exp(-d(i, x)/tau) / sum_j N_j exp(-d(j, x)/tau)
    The weights of equation (8); the memory value is
    ``V_M(x) = sum_i w_i(x) V_i`` over the top M entries.
k_i(x) = exp(-d(i, x)/tau) / sum_j exp(-d(j, x)/tau)
    The kernel of the text after equation (8); the memory count used by
    equation (9) is ``N_M(x) = sum_j k_j(x) N_j``.
hash_tables, hash_bits, probe_radius
    The SimHash (Charikar 2002) approximate nearest-neighbour index: 8
    tables of 16-bit codes in the paper; a query probes, in every table,
    all bins whose code is within Hamming distance ``probe_radius`` (1 in
    the paper) of the query's code.

Operations (paper, "Memory Operations")
---------------------------------------
update(s)
    Overwrite ``V(s)`` and ``N(s)`` of the stored entry of ``s``.
add(s)
    Store ``{phi(s), V(s), N(s)}``; if ``s`` is already stored only ``V`` and
    ``N`` are updated; when the memory is full the least recently queried or
    updated entry is replaced (LRU).
query(x)
    Find the top M entries by ``d(., x)`` and return ``V_M(x)`` with the
    weights of equation (8) (and ``N_M(x)`` for equation (9)).

Equation (9) (back-propagating ``V_M``, ``N_M`` through the tree) belongs
to the search, not to this module.

Notes and deviations
--------------------
* The paper probes bins whose Hamming distance to the query code "is less
  than a threshold, set to 1".  Read literally ("< 1") that would be no
  multi-probing at all, so ``probe_radius`` is an inclusive bound:
  distance ``<= probe_radius``, the query's own bin plus its
  ``hash_bits`` neighbours for the default of 1.
* Equation (8) is undefined when every neighbour has ``N_i = 0``; in that
  case the kernel weights ``k_i`` are used for ``V_M`` (and ``N_M = 0``).
* phi is renormalised after hashing.  Feature hashing keeps inner products
  unbiased, ``E[<h(a), h(b)>] = <a, b>`` (Weinberger et al. 2009, Lemma 2);
  the paper states ``E[cos(phi(s), phi(x))] = cos(zeta(s), zeta(x))`` for
  normalised zeta, which holds up to the O(1/D) bias of the ratio.
* phi is stored in float32 (the exact re-ranking cosines are float32 dot
  products, error ~1e-6).
* SimHash hyperplanes act, by default, on a signed fold of phi to 512
  dimensions (``Memory(..., simhash_dim=512)``; ``None`` hashes phi itself
  as in Charikar 2002).  The fold is one more feature hash, so the bit
  disagreement rate stays ~theta/pi (tested); only the candidate set can
  differ, never the distances, which are exact ``-cos(phi, phi_i)``.
* SimHash is centred on the mean of the stored phi once CENTER_AFTER (64)
  entries exist (codes of ``phi - c``; the stored entries are rehashed
  then, and the centre is kept until :meth:`Memory.clear`).  Conv7 features
  are ReLU outputs, so uncentred hyperplanes put most states in the same
  bins.  Candidate generation only; distances use the uncentred phi.
* ``query`` counts its returned top-M entries as "queried" for LRU (in no
  particular order among themselves); ``query_exact`` and ``neighbours``
  are read-only.

Implementation
--------------
The kernel (engine/memkernel.pyx) holds the entries in preallocated slots:
phi split into the coordinates the feature hash reaches (about half of D
for a 9x9 Conv7 vector) and the rest, which only a phi not made by
:meth:`Memory.phi` uses, so a cosine reads half the bytes; the statistics;
the SimHash bins as intrusive linked lists per bin; and the LRU order as a
doubly linked list (exact, O(1) per add, update or queried entry).  A query
computes the codes (fold + projection, AVX2 when the CPU has it), walks the
``hash_tables * (1 + hash_bits)`` probed bins, dedupes candidates with a
stamp array, ranks them by float32 dot products, keeps the top M by
quickselect and applies equation (8), all in C.  ``key -> slot`` is a
Python dict held by the kernel; ``query_exact`` stays numpy (the test
oracle).

Measured (``python bench/memory.py``: 10,000 random entries, zeta dim 2592,
paper defaults; 2 shared cores under a load average of ~6, medians, see
bench/PERFS.md): query 41-47 us (about 26 candidates, each a 7.7 KB row read
from DRAM, which dominates; exact brute force ~17 ms), add of a new key with
LRU replacement 9-12 us (SimHash codes 3-5 us of it), update / add of a
stored key 0.2-1 us.  Candidate counts depend on the data: features that are
all non-negative (e.g. raw ReLU outputs, pairwise cosines ~0.6) crowd the
bins without the centring above.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from engine.config import MemoryConfig, memory_refused
from engine.featurehash import FeatureHash
from engine.memkernel import MemoryIndex
from tomlconf import check_table


__all__ = ["check_config", "FeatureHasher", "Memory", "memory_value",
           "SIMHASH_DIM"]

# SimHash projects a signed fold of phi onto SIMHASH_DIM dimensions (a second
# feature hash, D -> SIMHASH_DIM, which keeps inner products unbiased)
# instead of phi itself: the hyperplane matrix shrinks from
# hash_tables*hash_bits x D (2 MB at the paper's 128 x 4096) to 256 KB, which
# stays in cache; the projection is 8x fewer multiply-adds (64K instead of
# 512K, ~2-4 us in engine/memkernel.pyx).
SIMHASH_DIM = 512


def check_config(config, seed=0) -> None:
    """Check every knob of a ``[memory]`` table (engine.config.MemoryConfig)
    as the loader does (tomlconf.check_table: a table built directly, as
    tests and benchmarks do, holds to the same ranges; the rules between
    keys are engine.config.memory_refused's), and the seed.

    Raises:
        ValueError: naming the offending key, e.g.
            ``memory.M (60) must not exceed memory.memory_size (50)``.
    """
    check_table(config, "memory.")
    why = memory_refused(config)
    if why is not None:
        raise ValueError(why)
    if not _is_int(seed) or seed < 0:
        raise ValueError("memory.seed must be a non-negative integer "
                         f"(got {seed!r})")


CENTER_AFTER = 64     # entries before the SimHash centre is fixed


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class FeatureHasher:
    """Feature hashing ``h: R^L -> R^D`` (Weinberger et al. 2009).

    Every input coordinate ``j`` has a fixed random bucket ``h(j)`` in
    ``[0, D)`` and sign ``xi(j)`` in ``{-1, +1}``; the output is
    ``out[k] = sum_{j: h(j) = k} xi(j) x[j]``.  This keeps inner products
    unbiased, ``E[<h(a), h(b)>] = <a, b>``.

    Following the paper, the input is L2-normalised first (``zeta``); the
    output is L2-normalised as well so that cosine = dot product.

    Args:
        in_dim: input dimension L.
        D: output dimension.
        seed: seed of the random buckets and signs (deterministic).
    """

    def __init__(self, in_dim: int, D: int, seed: int = 0) -> None:
        if in_dim < 1 or D < 1:
            raise ValueError("FeatureHasher needs in_dim >= 1 and D >= 1")
        rng = np.random.default_rng([int(seed), 0x5EED_F4A7])
        self.in_dim = int(in_dim)
        self.D = int(D)
        self.buckets = rng.integers(0, self.D,
                                    size=self.in_dim).astype(np.intp)
        self.signs = rng.choice(np.array([-1.0, 1.0]), size=self.in_dim)
        self._kernel = FeatureHash(self.buckets, self.signs, self.D)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Hash one or a batch of raw feature vectors.

        Args:
            x: ``(L,)`` for one vector, or ``(B, L)`` / ``(B, ...)`` with
                ``prod(...) = L`` for a batch (trailing dims flattened).

        Returns:
            float32 ``(D,)`` or ``(B, D)``, rows L2-normalised.
        """
        # zeta = x / ||x|| is not formed explicitly: h is linear and the
        # output is renormalised, so normalise(h(zeta)) = normalise(h(x)).
        # Sums in float64 in the order of j (engine/memkernel.pyx).
        return self._kernel(x)


def memory_value(sims: np.ndarray, V: np.ndarray, N: np.ndarray,
                 tau: float) -> tuple[float, float]:
    """Memory value ``V_M`` and count ``N_M`` of a set of neighbours.

    Equation (8): ``w_i = N_i exp(-d_i/tau) / sum_j N_j exp(-d_j/tau)`` and
    ``V_M = sum_i w_i V_i``; after (8) / in (9):
    ``k_i = exp(-d_i/tau) / sum_j exp(-d_j/tau)`` and
    ``N_M = sum_j k_j N_j``; ``d_i = -cos = -sims_i``.  Softmaxes subtract
    the max exponent for stability.  If every ``N_i`` is 0 (equation (8)
    is 0/0) ``V_M`` falls back to ``sum_i k_i V_i``.

    Args:
        sims: cosines ``cos(phi(x), phi_i)`` of the neighbours, ``(m,)``.
        V: their values ``V_i``, ``(m,)``.
        N: their counts ``N_i >= 0``, ``(m,)``.
        tau: temperature > 0.

    Returns:
        ``(V_M, N_M)``; ``(0.0, 0.0)`` for no neighbours.
    """
    if len(sims) == 0:
        return 0.0, 0.0
    sims = np.asarray(sims, dtype=np.float64)
    e = np.exp((sims - sims.max()) * (1.0 / tau))  # exp(-d_i/tau), rescaled
    N = np.asarray(N, dtype=np.float64)
    e_sum = e.sum()
    ne_sum = float(N @ e)                      # sum_j N_j exp(-d_j/tau)
    n_m = ne_sum / e_sum                       # sum_j k_j N_j
    if ne_sum > 0:
        v_m = float((N * e) @ V) / ne_sum      # equation (8)
    else:
        v_m = float(e @ V) / e_sum             # 0/0 in (8): kernel k_i
    return v_m, float(n_m)


class Memory:
    """The M-MCTS memory: entries ``{phi(s), V(s), N(s)}`` with LRU
    replacement and a SimHash index for approximate top-M queries.

    Args:
        config: the knobs, the ``[memory]`` table (engine.config.MemoryConfig).
        seed: seed of the feature hash and of the SimHash hyperplanes.
        in_dim: dimension L of the raw feature vectors zeta given to
            :meth:`add` / :meth:`phi`.
        simhash_dim: SimHash hyperplanes act on a signed fold of phi to this
            many dimensions (default :data:`SIMHASH_DIM` = 512; must divide
            D).  None (or a value >= D or not dividing D) hashes phi itself,
            as in Charikar (2002).  Only candidate generation depends on it;
            distances are always exact cosines of phi.

    Storage is preallocated: ``memory_size x D`` float32 for phi, split into
    the coordinates the feature hash can reach and the rest (see
    engine/memkernel.pyx); at the paper's 10,000 x 4096 with a 9x9 Conv7
    input that is 77 MB touched, the rest only by a phi not made by
    :meth:`phi`.
    """

    def __init__(self, config: MemoryConfig, in_dim: int, seed: int = 0,
                 simhash_dim: int | None = SIMHASH_DIM) -> None:
        check_config(config, seed)
        self.config = config
        self.seed = int(seed)
        self.in_dim = int(in_dim)
        self.hasher = FeatureHasher(self.in_dim, config.D, self.seed)
        self._tau = float(config.tau)
        # float64 scalar: keeps exp's argument in float64 for tiny tau.
        self._inv_tau = np.float64(1.0) / np.float64(self._tau)
        self._M = int(config.M)
        cap = int(config.memory_size)
        T, b = int(config.hash_tables), int(config.hash_bits)
        self._T, self._b = T, b

        rng = np.random.default_rng([self.seed, 0x51A4_A5E])
        # Charikar's SimHash: one Gaussian hyperplane per code bit, applied
        # to phi or, by default, to a signed fold of phi (see SIMHASH_DIM).
        D = int(config.D)
        if simhash_dim is not None and simhash_dim < 1:
            raise ValueError("simhash_dim must be None or >= 1")
        if simhash_dim is None or simhash_dim >= D or D % simhash_dim:
            self._fold_signs = None
            proj_dim = D
        else:
            self._fold_signs = rng.choice(
                np.array([-1.0, 1.0], dtype=np.float32), size=D)
            proj_dim = int(simhash_dim)
        self.simhash_dim = proj_dim
        self._planes = rng.standard_normal(
            (T * b, proj_dim)).astype(np.float32)
        masks = [0]
        for r in range(1, config.probe_radius + 1):
            for bits in itertools.combinations(range(b), r):
                masks.append(sum(1 << i for i in bits))
        # Coordinates of R^D the feature hash reaches: every phi made by
        # self.hasher is zero elsewhere, so rows are stored without them.
        live = np.zeros(D, dtype=bool)
        live[self.hasher.buckets] = True
        self._index = MemoryIndex(cap, D, self._M, self._tau, b,
                                  self._planes, self._fold_signs, masks, live,
                                  center_after=CENTER_AFTER)
        self._cap = cap
        self._recenter = bool(getattr(config, "recenter", False))
        self.clear()

    # ------------------------------------------------------------------
    # bookkeeping
    def clear(self) -> None:
        """Remove every entry and reset the statistics."""
        self._index.clear()      # also forgets the SimHash centre and the keys
        self._center = None      # SimHash centre, fixed once CENTER_AFTER entries exist
        self._inserts = 0        # new entries since the centre was last set (memory.recenter)
        self._recenter_after = 0

    def __len__(self) -> int:
        return self._index.size

    def __contains__(self, key: object) -> bool:
        return key in self._index.key_to_slot

    def stats(self) -> dict[str, float]:
        """Counters: entries, capacity, queries, hits (queries that found at
        least one neighbour), mean_candidates (SimHash candidates per query),
        evictions."""
        index = self._index
        q = index.queries
        return {
            "entries": index.size,
            "capacity": self._cap,
            "queries": q,
            "hits": index.hits,
            "mean_candidates": index.candidates / q if q else 0.0,
            "evictions": index.evictions,
        }

    # ------------------------------------------------------------------
    # hashing
    def phi(self, zeta: np.ndarray) -> np.ndarray:
        """``phi = h(zeta)``, normalised: ``(L,)`` -> ``(D,)`` or
        ``(B, L)`` -> ``(B, D)``, float32."""
        return self.hasher(zeta)

    def codes(self, phi: np.ndarray) -> np.ndarray:
        """SimHash codes of ``phi``: ``(D,)`` -> ``(hash_tables,)`` or
        ``(B, D)`` -> ``(B, hash_tables)``, int64.

        Bit ``i`` of table ``t`` is ``[r_{t,i} . f(phi - c) > 0]`` for a
        Gaussian hyperplane ``r_{t,i}``; ``f`` is the signed fold to
        ``simhash_dim`` dimensions (identity when ``simhash_dim`` is None)
        and ``c`` the centre (zero until :data:`CENTER_AFTER` entries).
        Codes can be passed to :meth:`add_phi` / :meth:`query` to hash a
        state once."""
        return self._index.codes(phi)

    # ------------------------------------------------------------------
    # the three operations of the paper
    def add(self, key: int, zeta: np.ndarray, V: float, N: float) -> bool:
        """Add state ``key`` with raw features ``zeta`` and statistics V, N.

        If ``key`` is stored, only V and N are updated (zeta is not hashed).
        When full, the least recently queried or updated entry is replaced.

        Args:
            key: the state's identity (e.g. 64-bit board hash).
            zeta: raw feature vector, ``(L,)`` (or any shape of size L).
            V: value estimate.
            N: simulation count.

        Returns:
            True if a new entry was inserted, False if one was updated.
        """
        if key in self._key_to_slot:
            return not self.update(key, V, N)
        return self.add_phi(key, self.hasher(np.ravel(zeta)), V, N)

    def add_phi(self, key: int, phi: np.ndarray, V: float, N: float,
                codes: np.ndarray | None = None) -> bool:
        """Like :meth:`add` with an already hashed ``phi`` (from :meth:`phi`).

        Args:
            key: the state's identity.
            phi: ``(D,)`` normalised feature (renormalised if it is not).
            V: value estimate.
            N: simulation count.
            codes: optional precomputed :meth:`codes` of ``phi``.

        Returns:
            True if a new entry was inserted, False if one was updated.
        """
        added = self._index.add(key, phi, V, N, codes)
        if added == 2:               # CENTER_AFTER entries, not centred yet
            self._set_center()
        elif added and self._recenter and self._center is not None:
            self._inserts += 1
            if self._inserts >= self._recenter_after:
                self._set_center()
        return added != 0

    def _set_center(self) -> None:
        """Centre SimHash on the mean of the stored phi and rehash them.

        Deviation from the paper (candidate generation only): Conv7
        activations are ReLU outputs, so every phi shares a large common
        component and uncentred hyperplanes put most states in the same
        bins (thousands of candidates a query). Distances stay the exact
        cosines of the uncentred phi.  With ``memory.recenter`` the centre
        is set again each time as many new entries have come as the memory
        held at the last centring (64, 128, ... while it fills; every
        memory_size once full): a game's positions drift from those of its
        first search, and a centre fixed there clusters the later codes
        again (19x19, 10,000 entries: about 3,100 candidates a query)."""
        n = len(self)
        self._center = self._stored_phi(np.arange(n)).mean(axis=0)
        self._index.set_center(self._center)
        self._inserts = 0        # memory.recenter: again after as many new entries as it holds now, at most memory_size
        self._recenter_after = min(n, self._cap)

    def value_of(self, key: int) -> tuple[float, float] | None:
        """``(V, N)`` of the stored entry ``key``, None if it is not stored."""
        slot = self._index.key_to_slot.get(key)
        if slot is None:
            return None
        N, _, V = self._index.stats[slot]
        return float(V), float(N)

    def update(self, key: int, V: float, N: float) -> bool:
        """Set V and N of the stored entry ``key`` and mark it used.

        Returns:
            True if ``key`` was stored, False (no-op) otherwise.
        """
        return self._index.update(key, V, N)

    def query(self, phi: np.ndarray, exclude_key: int | None = None,
              codes: np.ndarray | None = None) -> tuple[float, float, int]:
        """Approximate memory value of a state with feature ``phi``.

        Candidates are the entries sharing a SimHash bin (within Hamming
        distance ``probe_radius``) with ``phi`` in any table; their exact
        distances ``d_i = -cos(phi, phi_i)`` pick the top M, which are
        combined by equation (8) into ``V_M`` and by ``k_i`` into ``N_M``.
        The returned entries count as used (LRU).

        Args:
            phi: ``(D,)`` normalised feature of the queried state.
            exclude_key: a key to leave out (e.g. the queried state itself).
            codes: optional precomputed :meth:`codes` of ``phi``.

        Returns:
            ``(V_M, N_M, n_found)``; ``(0.0, 0.0, 0)`` if no candidate.
        """
        return self._index.query(phi, codes, exclude_key)

    @property
    def last_max_cos(self) -> float:
        """Cosine of the closest entry found by the last :meth:`query`
        (-2.0 if it found none)."""
        return self._index.last_max_cos

    def query_exact(self, phi: np.ndarray, exclude_key: int | None = None
                    ) -> tuple[float, float, int]:
        """Brute-force version of :meth:`query` over every entry (the test
        oracle, in numpy).  Does not touch the LRU order or the
        statistics."""
        slots, sims = self._exact(phi, exclude_key)
        if len(slots) == 0:
            return 0.0, 0.0, 0
        return (*self._combine(sims, slots), len(slots))

    def neighbours(self, phi: np.ndarray, exact: bool = False,
                   exclude_key: int | None = None
                   ) -> tuple[list[Any], np.ndarray]:
        """Keys and cosines of the top-M entries for ``phi`` (SimHash or
        exact), most similar first.  Read-only: no LRU, no statistics."""
        if exact:
            slots, sims = self._exact(phi, exclude_key)
        else:
            slots, sims = self._index.neighbours(phi, None, exclude_key)
        order = np.argsort(-sims, kind="stable")
        slots, sims = slots[order], sims[order]
        return [self._slot_key[s] for s in slots.tolist()], sims

    # ------------------------------------------------------------------
    # internals
    @property
    def _key_to_slot(self) -> dict[Any, int]:
        """key -> slot of every stored entry (the kernel's dict)."""
        return self._index.key_to_slot

    @property
    def _slot_key(self) -> list[Any]:
        """slot -> key (None for a slot never used since :meth:`clear`)."""
        return self._index.slot_key

    def _stored_phi(self, slots: np.ndarray) -> np.ndarray:
        """Stored phi of ``slots``, float32 ``(k, D)`` (natural order)."""
        return self._index.stored_phi(slots)

    @property
    def _buckets(self) -> dict[int, set[int]]:
        """The SimHash bins as ``(table << hash_bits) | code -> slots``,
        read from the kernel's lists (inspection only)."""
        bins, slots = self._index.bucket_items()
        out: dict[int, set[int]] = {}
        for b, s in zip(bins.tolist(), slots.tolist()):
            out.setdefault(b, set()).add(s)
        return out

    def _exact(self, phi: np.ndarray, exclude_key: int | None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Slots and cosines of the exact top M over every entry (numpy)."""
        n = len(self)
        if n == 0:
            return np.empty(0, np.intp), np.empty(0, np.float32)
        index = self._index
        phi = np.asarray(phi, dtype=np.float32).reshape(-1)
        sims = index.live_rows[:n] @ phi[index.live_index]
        if index.n_dead and index.full[:n].any():
            sims += index.dead_rows[:n] @ phi[index.dead_index]
        slots = np.arange(n, dtype=np.intp)
        excluded = (self._key_to_slot.get(exclude_key)
                    if exclude_key is not None else None)
        if excluded is not None:
            keep = slots != excluded
            slots, sims = slots[keep], sims[keep]
        M = self._M
        if len(slots) > M:
            top = np.argpartition(sims, len(sims) - M)[len(sims) - M:]
            slots, sims = slots[top], sims[top]
        return slots, sims

    def _combine(self, sims: np.ndarray, slots: np.ndarray
                 ) -> tuple[float, float]:
        """``(V_M, N_M)`` of neighbours ``slots`` with cosines ``sims``;
        same arithmetic as :func:`memory_value`, from the stats columns."""
        e = np.exp((sims - sims.max()) * self._inv_tau)  # exp(-d/tau) / max
        n_e, nv_e, v_e = e @ self._index.stats[slots]  # sums of N e, N V e, V e
        e_sum = float(e.sum())
        if n_e > 0:
            return float(nv_e / n_e), float(n_e / e_sum)    # equation (8)
        return float(v_e / e_sum), float(n_e / e_sum)      # (8) is 0/0: k_i
