"""Value memory of Memory-Augmented MCTS (M-MCTS).

Implements the memory of Xiao, Mei and Mueller, "Memory-Augmented Monte
Carlo Tree Search", AAAI 2018 (section "Memory-Augmented MCTS").  Pure
numpy; no torch and no project imports.

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
* ``query`` counts its returned top-M entries as "queried" for LRU;
  ``query_exact`` and ``neighbours`` are read-only.

Implementation
--------------
Entries live in preallocated arrays indexed by slot; ``key -> slot`` is a
dict.  SimHash bins are one dict ``(table << hash_bits) | code -> set of
slots`` plus a dense occupancy count (for hash_tables * 2**hash_bits up to
4M bins) so a query drops empty probe bins in one vectorised step.  LRU uses
a per-slot stamp (a counter bumped on every add/update/query) and a lazily
validated queue of the 256 oldest slots, refilled by ``argpartition``.

Measured (``python bench/memory.py``: 10,000 random entries, zeta dim 2592,
paper defaults; 2 shared cores under a load average of ~4, medians):
phi 24 us, SimHash codes 14 us, add of a new key with LRU replacement
22-36 us, update / add of a stored key ~1-2 us, query ~110-120 us (about
23 candidates, each a 16 KB row of phi read from DRAM, which dominates),
brute-force exact query ~24 ms.  The 50 us query / 10 us add targets are
not met on this machine.  Candidate counts depend on the data: features
that are all non-negative (e.g. raw ReLU outputs, pairwise cosines ~0.6)
crowd the bins (~2,300 candidates per query on i.i.d. |gaussian| vectors,
tens of ms per query).
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

__all__ = ["MemoryConfig", "FeatureHasher", "Memory", "memory_value",
           "SIMHASH_DIM"]

_EMPTY: frozenset = frozenset()
_EVICT_BATCH = 256
# SimHash projects a signed fold of phi onto SIMHASH_DIM dimensions (a second
# feature hash, D -> SIMHASH_DIM, which keeps inner products unbiased)
# instead of phi itself: the hyperplane matrix shrinks from
# hash_tables*hash_bits x D (2 MB at the paper's 128 x 4096) to 256 KB, which
# stays in cache; codes cost ~5-10 us instead of ~30-90 us.
SIMHASH_DIM = 512
_MAX_DENSE_BINS = 1 << 22


@dataclass(frozen=True)
class MemoryConfig:
    """Knobs of the M-MCTS memory, named as in the paper.

    Attributes:
        memory_size: capacity ``|M|`` (number of entries).
        M: number of nearest entries a query combines.
        tau: temperature of equation (8); > 0.
        D: feature hashing output dimension (size of phi).
        hash_tables: number of SimHash tables.
        hash_bits: bits per SimHash code, 1..32.
        probe_radius: multi-probe Hamming radius, 0..2 (inclusive).
        seed: seed of the feature hash and of the SimHash hyperplanes.
    """

    memory_size: int = 10000
    M: int = 50
    tau: float = 0.1
    D: int = 4096
    hash_tables: int = 8
    hash_bits: int = 16
    probe_radius: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every knob.

        Raises:
            ValueError: naming the offending key, e.g.
                ``memory.M (60) must not exceed memory.memory_size (50)``.
        """
        for name in ("memory_size", "M", "D", "hash_tables"):
            value = getattr(self, name)
            if not _is_int(value) or value < 1:
                raise ValueError(
                    f"memory.{name} must be a positive integer "
                    f"(got {value!r})")
        if self.M > self.memory_size:
            raise ValueError(
                f"memory.M ({self.M}) must not exceed "
                f"memory.memory_size ({self.memory_size})")
        try:
            tau_ok = float(self.tau) > 0 and np.isfinite(float(self.tau))
        except (TypeError, ValueError):
            tau_ok = False
        if not tau_ok:
            raise ValueError(f"memory.tau must be > 0 (got {self.tau!r})")
        if not _is_int(self.hash_bits) or not 1 <= self.hash_bits <= 32:
            raise ValueError(
                f"memory.hash_bits must be in 1..32 (got {self.hash_bits!r})")
        if not _is_int(self.probe_radius) or not 0 <= self.probe_radius <= 2:
            raise ValueError(
                "memory.probe_radius must be in 0..2 "
                f"(got {self.probe_radius!r})")
        if (_is_int(self.probe_radius) and _is_int(self.hash_bits)
                and self.probe_radius > self.hash_bits):
            raise ValueError(
                f"memory.probe_radius ({self.probe_radius}) must not exceed "
                f"memory.hash_bits ({self.hash_bits})")
        if not _is_int(self.seed) or self.seed < 0:
            raise ValueError("memory.seed must be a non-negative integer "
                             f"(got {self.seed!r})")

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> "MemoryConfig":
        """Build a config from a mapping (e.g. the ``memory`` config section).

        Args:
            values: knob name -> value; missing knobs keep their defaults.

        Returns:
            The validated config.

        Raises:
            ValueError: on an unknown key or a bad value.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        for key in values:
            if key not in known:
                raise ValueError(f"memory.{key} is not a known memory option "
                                 f"(known: {', '.join(sorted(known))})")
        return cls(**dict(values))


CENTER_AFTER = 64     # entries before the SimHash centre is fixed


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _l2_normalise(x: np.ndarray) -> np.ndarray:
    """Rows of ``x`` divided by their L2 norm (zero rows stay zero)."""
    norm = np.sqrt(np.einsum("...i,...i->...", x, x))
    norm = np.where(norm > 0, norm, 1.0)
    return x / norm[..., None]


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

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Hash one or a batch of raw feature vectors.

        Args:
            x: ``(L,)`` for one vector, or ``(B, L)`` / ``(B, ...)`` with
                ``prod(...) = L`` for a batch (trailing dims flattened).

        Returns:
            float32 ``(D,)`` or ``(B, D)``, rows L2-normalised.
        """
        x = np.asarray(x, dtype=np.float64)
        single = x.ndim == 1
        x = x[None, :] if single else x.reshape(x.shape[0], -1)
        if x.shape[1] != self.in_dim:
            raise ValueError(f"FeatureHasher expects {self.in_dim} features, "
                             f"got shape {np.shape(x)}")
        batch = x.shape[0]
        # zeta = x / ||x|| is not formed explicitly: h is linear and the
        # output is renormalised, so normalise(h(zeta)) = normalise(h(x)).
        signed = x * self.signs
        if batch == 1:
            out = np.bincount(self.buckets, weights=signed[0],
                              minlength=self.D)[None, :]
        else:
            index = (np.arange(batch, dtype=np.intp)[:, None] * self.D
                     + self.buckets[None, :])
            out = np.bincount(index.ravel(), weights=signed.ravel(),
                              minlength=batch * self.D).reshape(batch, self.D)
        out = _l2_normalise(out).astype(np.float32)
        return out[0] if single else out


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
        config: the knobs (:class:`MemoryConfig`).
        in_dim: dimension L of the raw feature vectors zeta given to
            :meth:`add` / :meth:`phi`.
        simhash_dim: SimHash hyperplanes act on a signed fold of phi to this
            many dimensions (default :data:`SIMHASH_DIM` = 512; must divide
            D).  None (or a value >= D or not dividing D) hashes phi itself,
            as in Charikar (2002).  Only candidate generation depends on it;
            distances are always exact cosines of phi.

    Storage is preallocated: ``memory_size x D`` float32 for phi (164 MB at
    the paper's 10,000 x 4096; pages are touched as entries arrive).
    """

    def __init__(self, config: MemoryConfig, in_dim: int,
                 simhash_dim: int | None = SIMHASH_DIM) -> None:
        config.validate()
        self.config = config
        self.in_dim = int(in_dim)
        self.hasher = FeatureHasher(self.in_dim, config.D, config.seed)
        self._tau = float(config.tau)
        # float64 scalar: keeps exp's argument in float64 for tiny tau.
        self._inv_tau = np.float64(1.0) / np.float64(self._tau)
        self._M = int(config.M)
        cap = int(config.memory_size)
        T, b = int(config.hash_tables), int(config.hash_bits)
        self._T, self._b = T, b

        rng = np.random.default_rng([int(config.seed), 0x51A4_A5E])
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
        self._pow2 = (np.int64(1) << np.arange(b, dtype=np.int64))
        # Table t's codes live in a single dict as (t << hash_bits) | code.
        self._table_offset = np.arange(T, dtype=np.int64) << np.int64(b)
        masks = [0]
        for r in range(1, config.probe_radius + 1):
            for bits in itertools.combinations(range(b), r):
                masks.append(sum(1 << i for i in bits))
        self._masks = np.asarray(masks, dtype=np.int64)
        # Occupancy of every bin, when small enough to keep densely: lets a
        # query drop empty probe bins in one vectorised step.
        n_bins = T << b
        self._bin_count = (np.zeros(n_bins, dtype=np.int32)
                           if n_bins <= _MAX_DENSE_BINS else None)

        self._phi = np.zeros((cap, config.D), dtype=np.float32)
        # Per-slot statistics as columns (N, N*V, V): one gather and one
        # dot product give every sum equation (8) needs.
        self._stats = np.zeros((cap, 3), dtype=np.float64)
        self._stamp = np.zeros(cap, dtype=np.int64)
        self._codes = np.zeros((cap, T), dtype=np.int64)  # bin ids per slot
        self._cap = cap
        self.clear()

    # ------------------------------------------------------------------
    # bookkeeping
    def clear(self) -> None:
        """Remove every entry and reset the statistics."""
        self._size = 0
        self._clock = 1
        self._key_to_slot: dict[int, int] = {}
        self._slot_key: list[Any] = [None] * self._cap
        self._buckets: dict[int, set[int]] = {}
        if getattr(self, "_bin_count", None) is not None:
            self._bin_count[:] = 0
        self._center = None      # SimHash centre, fixed once CENTER_AFTER entries exist
        self._evict_slots: list[int] = []
        self._evict_stamps: list[int] = []
        self._queries = 0
        self._hits = 0
        self._candidates = 0
        self._evictions = 0

    def __len__(self) -> int:
        return self._size

    def __contains__(self, key: object) -> bool:
        return key in self._key_to_slot

    def stats(self) -> dict[str, float]:
        """Counters: entries, capacity, queries, hits (queries that found at
        least one neighbour), mean_candidates (SimHash candidates per query),
        evictions."""
        q = self._queries
        return {
            "entries": self._size,
            "capacity": self._cap,
            "queries": q,
            "hits": self._hits,
            "mean_candidates": self._candidates / q if q else 0.0,
            "evictions": self._evictions,
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

        Bit ``i`` of table ``t`` is ``[r_{t,i} . f(phi) > 0]`` for a Gaussian
        hyperplane ``r_{t,i}``; ``f`` is the signed fold to ``simhash_dim``
        dimensions (identity when ``simhash_dim`` is None).  Codes can be
        passed to :meth:`add_phi` / :meth:`query` to hash a state once."""
        phi = np.asarray(phi, dtype=np.float32)
        if self._center is not None:
            phi = phi - self._center
        if self._fold_signs is not None:
            phi = (phi * self._fold_signs).reshape(
                phi.shape[:-1] + (-1, self.simhash_dim)).sum(axis=-2)
        bits = (phi @ self._planes.T) > 0 if phi.ndim == 2 \
            else (self._planes @ phi) > 0
        bits = bits.reshape(bits.shape[:-1] + (self._T, self._b))
        return bits.astype(np.int64) @ self._pow2

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
        slot = self._key_to_slot.get(key)
        clock = self._clock
        self._clock = clock + 1
        if slot is not None:
            self._stats[slot] = (N, N * V, V)
            self._stamp[slot] = clock
            return False
        phi = np.asarray(phi, dtype=np.float32)
        sq = float(phi @ phi)
        if abs(sq - 1.0) > 1e-4 and sq > 0:
            phi = phi / np.float32(np.sqrt(sq))
        if codes is None:
            codes = self.codes(phi)
        if self._size < self._cap:
            slot = self._size
            self._size += 1
        else:
            slot = self._evict()
        self._phi[slot] = phi
        self._stats[slot] = (N, N * V, V)
        self._stamp[slot] = clock
        buckets = self._buckets
        bins = self._table_offset + codes
        self._codes[slot] = bins
        if self._bin_count is not None:
            self._bin_count[bins] += 1
        for code in bins.tolist():
            bucket = buckets.get(code)
            if bucket is None:
                buckets[code] = {slot}
            else:
                bucket.add(slot)
        self._key_to_slot[key] = slot
        self._slot_key[slot] = key
        if self._center is None and self._size == CENTER_AFTER:
            self._set_center()
        return True

    def _set_center(self) -> None:
        """Centre SimHash on the mean of the stored phi and rehash them.

        Deviation from the paper (candidate generation only): Conv7
        activations are ReLU outputs, so every phi shares a large common
        component and uncentred hyperplanes put most states in the same
        bins (thousands of candidates a query). Distances stay the exact
        cosines of the uncentred phi."""
        n = self._size
        self._center = self._phi[:n].mean(axis=0)
        codes = self.codes(self._phi[:n])
        bins = codes + self._table_offset[None, :]
        self._codes[:n] = bins
        self._buckets = {}
        if self._bin_count is not None:
            self._bin_count[:] = 0
            np.add.at(self._bin_count, bins.ravel(), 1)
        buckets = self._buckets
        for slot, row in enumerate(bins.tolist()):
            for code in row:
                bucket = buckets.get(code)
                if bucket is None:
                    buckets[code] = {slot}
                else:
                    bucket.add(slot)

    def update(self, key: int, V: float, N: float) -> bool:
        """Set V and N of the stored entry ``key`` and mark it used.

        Returns:
            True if ``key`` was stored, False (no-op) otherwise.
        """
        slot = self._key_to_slot.get(key)
        if slot is None:
            return False
        self._stats[slot] = (N, N * V, V)
        self._stamp[slot] = self._clock
        self._clock += 1
        return True

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
        self._queries += 1
        slots, sims = self._search(phi, exclude_key, codes, exact=False)
        n = len(slots)
        if n == 0:
            return 0.0, 0.0, 0
        self._hits += 1
        self._stamp[slots] = self._clock
        self._clock += 1
        return (*self._combine(sims, slots), n)

    def query_exact(self, phi: np.ndarray, exclude_key: int | None = None
                    ) -> tuple[float, float, int]:
        """Brute-force version of :meth:`query` over every entry (the test
        oracle).  Does not touch the LRU stamps or the statistics."""
        slots, sims = self._search(phi, exclude_key, None, exact=True)
        if len(slots) == 0:
            return 0.0, 0.0, 0
        return (*self._combine(sims, slots), len(slots))

    def neighbours(self, phi: np.ndarray, exact: bool = False,
                   exclude_key: int | None = None
                   ) -> tuple[list[Any], np.ndarray]:
        """Keys and cosines of the top-M entries for ``phi`` (SimHash or
        exact), most similar first.  Read-only: no stamps, no statistics."""
        slots, sims = self._search(phi, exclude_key, None, exact=exact,
                                   count=False)
        order = np.argsort(-sims, kind="stable")
        slots, sims = slots[order], sims[order]
        return [self._slot_key[s] for s in slots.tolist()], sims

    # ------------------------------------------------------------------
    # internals
    def _search(self, phi: np.ndarray, exclude_key: int | None,
                codes: np.ndarray | None, exact: bool,
                count: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Slots and cosines of the (at most) M nearest entries."""
        if self._size == 0:
            return np.empty(0, np.intp), np.empty(0, np.float32)
        phi = np.asarray(phi, dtype=np.float32)
        excluded = (self._key_to_slot.get(exclude_key)
                    if exclude_key is not None else None)
        if exact:
            sims = self._phi[:self._size] @ phi
            slots = np.arange(self._size, dtype=np.intp)
            if excluded is not None:
                keep = slots != excluded
                slots, sims = slots[keep], sims[keep]
        else:
            if codes is None:
                codes = self.codes(phi)
            # Bins within Hamming distance probe_radius of the code, in
            # every table (bin id = (table << hash_bits) | code).
            probes = ((np.asarray(codes, dtype=np.int64)[:, None]
                       ^ self._masks[None, :])
                      + self._table_offset[:, None]).ravel()
            if self._bin_count is not None:
                probes = probes[self._bin_count[probes] > 0]
            found = set().union(*map(self._buckets.get, probes.tolist(),
                                     itertools.repeat(_EMPTY)))
            if excluded is not None:
                found.discard(excluded)
            if count:
                self._candidates += len(found)
            if not found:
                return np.empty(0, np.intp), np.empty(0, np.float32)
            slots = np.fromiter(found, dtype=np.intp, count=len(found))
            sims = self._phi[slots] @ phi
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
        n_e, nv_e, v_e = e @ self._stats[slots]  # sums of N e, N V e, V e
        e_sum = float(e.sum())
        if n_e > 0:
            return float(nv_e / n_e), float(n_e / e_sum)    # equation (8)
        return float(v_e / e_sum), float(n_e / e_sum)      # (8) is 0/0: k_i

    def _evict(self) -> int:
        """Free the least recently queried-or-updated slot and return it.

        Keeps a queue of the ``_EVICT_BATCH`` oldest slots (by stamp) with
        the stamp each had when queued; a slot whose stamp changed since has
        been used and is skipped.  Stamps only grow, so a queued slot with an
        unchanged stamp is older than every slot not in the queue: this is
        exact LRU at amortised O(memory_size / _EVICT_BATCH) per eviction.
        """
        stamp = self._stamp
        while True:
            while self._evict_slots:
                slot = self._evict_slots.pop()
                if stamp[slot] == self._evict_stamps.pop():
                    self._release(slot)
                    return slot
            self._refill_evict_queue()

    def _refill_evict_queue(self) -> None:
        stamps = self._stamp[:self._size]
        if self._size <= _EVICT_BATCH:
            oldest = np.argsort(stamps, kind="stable")
        else:
            oldest = np.argpartition(stamps, _EVICT_BATCH - 1)[:_EVICT_BATCH]
            oldest = oldest[np.argsort(stamps[oldest], kind="stable")]
        oldest = oldest[::-1]  # pop() from the end yields the oldest first
        self._evict_slots = oldest.tolist()
        self._evict_stamps = stamps[oldest].tolist()

    def _release(self, slot: int) -> None:
        """Drop the entry in ``slot`` from the key map and the SimHash bins."""
        buckets = self._buckets
        bins = self._codes[slot]
        if self._bin_count is not None:
            self._bin_count[bins] -= 1
        for code in bins.tolist():
            bucket = buckets[code]
            bucket.discard(slot)
            if not bucket:
                del buckets[code]
        del self._key_to_slot[self._slot_key[slot]]
        self._slot_key[slot] = None
        self._evictions += 1
