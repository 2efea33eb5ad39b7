"""Tests of the M-MCTS value memory (engine/memory.py).

Xiao, Mei and Mueller, "Memory-Augmented Monte Carlo Tree Search",
AAAI 2018: feature hashing, SimHash top-M queries, equation (8) weights,
N_M = sum k_i N_i, and least-recently-used replacement.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

import dataclasses

from engine.config import MemoryConfig
from engine.memory import FeatureHasher, Memory, check_config, memory_value


def small_config(**overrides) -> MemoryConfig:
    """A fast config: small D and capacity, paper SimHash layout."""
    values = dict(memory_size=200, M=10, tau=0.1, D=256, hash_tables=8,
                  hash_bits=16, probe_radius=1)
    values.update(overrides)
    return dataclasses.replace(MemoryConfig(), **values)


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


# ----------------------------------------------------------------------
# configuration
@pytest.mark.parametrize("overrides, key", [
    (dict(memory_size=50, M=60), "memory.M"),
    (dict(tau=0.0), "memory.tau"),
    (dict(tau=-1.0), "memory.tau"),
    (dict(tau=float("nan")), "memory.tau"),
    (dict(hash_bits=0), "memory.hash_bits"),
    (dict(hash_bits=33), "memory.hash_bits"),
    (dict(probe_radius=3), "memory.probe_radius"),
    (dict(probe_radius=-1), "memory.probe_radius"),
    (dict(memory_size=0, M=1), "memory.memory_size"),
    (dict(M=0), "memory.M"),
    (dict(D=0), "memory.D"),
    (dict(hash_tables=0), "memory.hash_tables"),
])
def test_bad_config_raises_naming_key(overrides, key):
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        Memory(dataclasses.replace(MemoryConfig(), **overrides), in_dim=8)


def test_m_greater_than_memory_size_message():
    with pytest.raises(ValueError) as err:
        check_config(dataclasses.replace(MemoryConfig(), memory_size=50, M=60))
    assert str(err.value) == ("memory.M (60) must not exceed "
                              "memory.memory_size (50)")


def test_defaults_are_the_papers():
    c = MemoryConfig()
    assert (c.memory_size, c.M, c.tau, c.D) == (10000, 50, 0.1, 4096)
    assert (c.hash_tables, c.hash_bits, c.probe_radius) == (8, 16, 1)


def test_a_bad_seed_is_named():
    with pytest.raises(ValueError, match=r"memory\.seed"):
        check_config(MemoryConfig(), seed=-1)


# ----------------------------------------------------------------------
# feature hashing
def test_feature_hashing_deterministic_per_seed():
    x = np.random.default_rng(1).standard_normal((3, 300))
    a = FeatureHasher(300, 128, seed=7)(x)
    b = FeatureHasher(300, 128, seed=7)(x)
    c = FeatureHasher(300, 128, seed=8)(x)
    assert a.shape == (3, 128) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    # batched == one at a time; input scale does not matter
    h = FeatureHasher(300, 128, seed=7)
    for i in range(3):
        np.testing.assert_allclose(h(x[i]), a[i], atol=1e-6)
        np.testing.assert_allclose(h(5.0 * x[i]), a[i], atol=1e-6)


def test_feature_hashing_is_signed_bucket_sum():
    h = FeatureHasher(50, 16, seed=3)
    x = np.random.default_rng(2).standard_normal(50)
    expected = np.zeros(16)
    for j in range(50):
        expected[h.buckets[j]] += h.signs[j] * x[j]
    np.testing.assert_allclose(h(x), unit(expected), atol=1e-6)
    assert set(np.unique(h.signs)) <= {-1.0, 1.0}
    assert h.buckets.min() >= 0 and h.buckets.max() < 16


def test_feature_hashing_preserves_inner_products():
    """E[cos(phi(a), phi(b))] = cos(zeta(a), zeta(b)) (paper, section 4),
    up to sampling noise, over random hash functions and pairs."""
    rng = np.random.default_rng(0)
    L, D = 2592, 1024
    errors = []
    for seed in range(40):
        h = FeatureHasher(L, D, seed=seed)
        a = unit(rng.standard_normal((16, L)))
        noise = unit(rng.standard_normal((16, L)))
        c = rng.uniform(-0.9, 0.9, size=(16, 1))
        b = c * a + np.sqrt(1 - c ** 2) * unit(noise - (noise * a).sum(
            1, keepdims=True) * a)
        true = (a * b).sum(1)
        hashed = (h(a) * h(b)).sum(1)
        errors.append(hashed - true)
    errors = np.concatenate(errors)
    assert abs(errors.mean()) < 0.005          # unbiased
    assert np.abs(errors).max() < 0.15         # and concentrated
    assert errors.std() < 2.0 / math.sqrt(D)


# ----------------------------------------------------------------------
# equation (8)
def test_memory_value_matches_equation_8():
    sims = np.array([0.9, 0.5, -0.2])
    V = np.array([0.8, 0.1, 0.5])
    N = np.array([10.0, 3.0, 7.0])
    tau = 0.1
    e = np.exp(sims / tau)                 # exp(-d/tau), d = -cos
    w = N * e / (N * e).sum()              # equation (8)
    k = e / e.sum()                        # kernel after equation (8)
    v_m, n_m = memory_value(sims, V, N, tau)
    assert v_m == pytest.approx(float(w @ V), rel=1e-12)
    assert n_m == pytest.approx(float(k @ N), rel=1e-12)


def test_memory_value_stable_and_degenerate_cases():
    v_m, n_m = memory_value(np.array([1.0, 0.99]), np.array([1.0, 0.0]),
                            np.array([1.0, 1.0]), tau=1e-6)
    assert v_m == pytest.approx(1.0) and n_m == pytest.approx(1.0)
    # all N = 0: (8) is 0/0, kernel weights are used, N_M = 0
    v_m, n_m = memory_value(np.array([0.5, 0.5]), np.array([0.2, 0.4]),
                            np.zeros(2), tau=0.1)
    assert v_m == pytest.approx(0.3) and n_m == 0.0
    assert memory_value(np.array([]), np.array([]), np.array([]), 0.1) \
        == (0.0, 0.0)


# ----------------------------------------------------------------------
# memory operations
def test_empty_memory_query():
    mem = Memory(small_config(), in_dim=32)
    phi = mem.phi(np.ones(32))
    assert mem.query(phi) == (0.0, 0.0, 0)
    assert mem.query_exact(phi) == (0.0, 0.0, 0)
    assert len(mem) == 0 and 123 not in mem


def test_stored_phi_returns_its_own_value():
    rng = np.random.default_rng(0)
    mem = Memory(small_config(tau=0.01), in_dim=64)
    zetas = rng.standard_normal((100, 64))
    values = rng.uniform(0, 1, 100)
    for i in range(100):
        assert mem.add(i, zetas[i], values[i], 5 + i)
    assert len(mem) == 100
    for i in range(0, 100, 7):
        phi = mem.phi(zetas[i])
        v_m, n_m, n = mem.query(phi)
        assert n >= 1
        assert v_m == pytest.approx(values[i], abs=1e-3)
        assert n_m == pytest.approx(5 + i, rel=1e-3)
        v_e, n_e, _ = mem.query_exact(phi)
        assert v_e == pytest.approx(values[i], abs=1e-3)
        # excluding itself, it is no longer found as a perfect match
        keys, sims = mem.neighbours(phi, exact=True, exclude_key=i)
        assert i not in keys and sims.max() < 0.9


def test_query_equals_exact_when_every_entry_is_a_candidate():
    # One-bit codes with probe radius 1: every bin is probed.
    cfg = small_config(hash_bits=1, hash_tables=1, M=7)
    rng = np.random.default_rng(3)
    mem = Memory(cfg, in_dim=40)
    values = rng.random(60)
    counts = rng.integers(0, 9, 60).astype(float)
    for i in range(60):
        mem.add(i, rng.standard_normal(40), values[i], counts[i])
    for _ in range(10):
        phi = mem.phi(rng.standard_normal(40))
        keys, sims = mem.neighbours(phi, exact=True)
        # equation (8) by hand over the exact top M
        e = np.exp(sims.astype(float) / cfg.tau)
        w = counts[keys] * e / (counts[keys] * e).sum()
        k = e / e.sum()
        got = mem.query(phi)
        want = mem.query_exact(phi)
        assert got[2] == want[2] == 7
        assert got[0] == pytest.approx(want[0], rel=1e-6, abs=1e-9)
        assert got[1] == pytest.approx(want[1], rel=1e-6, abs=1e-9)
        assert got[0] == pytest.approx(float(w @ values[keys]), rel=1e-5)
        assert got[1] == pytest.approx(float(k @ counts[keys]), rel=1e-5)


@pytest.mark.parametrize("D, simhash_dim, folded", [
    (512, None, False),     # Charikar on phi itself
    (2048, 512, True),      # default: hyperplanes on a signed fold of phi
])
def test_simhash_agrees_with_exact_on_clustered_data(D, simhash_dim, folded):
    rng = np.random.default_rng(5)
    L, clusters, per = 128, 20, 40
    cfg = small_config(memory_size=1000, M=20, D=D)
    mem = Memory(cfg, in_dim=L, simhash_dim=simhash_dim)
    assert (mem.simhash_dim < D) == folded
    centres = unit(rng.standard_normal((clusters, L)))
    cluster_value = rng.uniform(0, 1, clusters)
    spread = 0.25 / math.sqrt(L)
    key = 0
    for c in range(clusters):
        pts = centres[c] + spread * rng.standard_normal((per, L))
        vals = cluster_value[c] + 0.05 * rng.standard_normal(per)
        counts = rng.integers(1, 50, per)
        phis = mem.phi(pts)
        for p, v, n in zip(phis, vals, counts):
            mem.add_phi(key, p, v, n)
            key += 1
    recalls, errors = [], []
    for c in range(clusters):
        phi = mem.phi(centres[c] + spread * rng.standard_normal(L))
        approx_keys, _ = mem.neighbours(phi)
        exact_keys, _ = mem.neighbours(phi, exact=True)
        recalls.append(len(set(approx_keys) & set(exact_keys)) / cfg.M)
        v_a, n_a, found = mem.query(phi)
        v_e, n_e, _ = mem.query_exact(phi)
        assert found > 0
        errors.append(abs(v_a - v_e))
    assert np.mean(recalls) >= 0.8
    assert np.mean(errors) < 0.02 and max(errors) < 0.1
    stats = mem.stats()
    assert stats["queries"] == clusters and stats["hits"] == clusters
    assert 0 < stats["mean_candidates"] < len(mem)


def test_add_existing_key_only_updates():
    rng = np.random.default_rng(0)
    mem = Memory(small_config(), in_dim=32)
    za, zb = rng.standard_normal(32), rng.standard_normal(32)
    assert mem.add(42, za, 0.25, 4) is True
    assert mem.add(42, zb, 0.75, 8) is False
    assert len(mem) == 1 and 42 in mem
    v, n, found = mem.query_exact(mem.phi(za))
    assert (v, n, found) == (pytest.approx(0.75), pytest.approx(8.0), 1)
    keys, sims = mem.neighbours(mem.phi(za), exact=True)
    assert keys == [42] and sims[0] == pytest.approx(1.0, abs=1e-5)
    # add_phi with a key given as a numpy integer hits the same entry
    assert mem.add_phi(np.uint64(42), mem.phi(zb), 0.5, 2) is False
    assert len(mem) == 1


def test_update():
    rng = np.random.default_rng(0)
    mem = Memory(small_config(), in_dim=32)
    z = rng.standard_normal(32)
    assert mem.update(7, 0.5, 3) is False and len(mem) == 0
    mem.add(7, z, 0.1, 1)
    assert mem.update(7, 0.9, 30) is True
    assert mem.query_exact(mem.phi(z))[:2] == (pytest.approx(0.9),
                                               pytest.approx(30.0))


def test_lru_evicts_least_recently_used():
    rng = np.random.default_rng(0)
    mem = Memory(small_config(memory_size=5, M=1), in_dim=32)
    zetas = rng.standard_normal((9, 32))
    for k in range(5):
        mem.add(k, zetas[k], 0.0, 1)
    mem.update(0, 0.5, 2)               # touched: update
    mem.add(2, zetas[2], 0.5, 2)        # touched: add of a stored key
    assert mem.query(mem.phi(zetas[1]))[2] == 1   # touched: queried (M=1)
    assert mem.neighbours(mem.phi(zetas[1]))[0] == [1]
    # untouched: 3 (older), 4 -> replaced first, then 0, 2, 1 in touch order
    expected_evictions = [3, 4, 0, 2]
    for k, gone in zip(range(5, 9), expected_evictions):
        assert mem.add(k, zetas[k], 0.0, 1)
        assert gone not in mem and k in mem and len(mem) == 5
    assert set(mem._key_to_slot) == {1, 5, 6, 7, 8}
    # evicted entries are gone from the SimHash bins as well
    for gone in expected_evictions:
        keys, _ = mem.neighbours(mem.phi(zetas[gone]))
        assert gone not in keys
    total = sum(len(b) for b in mem._buckets.values())
    assert total == len(mem) * mem.config.hash_tables
    assert mem.stats()["evictions"] == 4


def test_lru_matches_reference_model():
    """Random add/update traffic against an OrderedDict LRU, with a
    capacity above the eviction batch so the lazy queue is exercised."""
    rng = np.random.default_rng(11)
    cap = 300
    mem = Memory(small_config(memory_size=cap, D=16, hash_bits=8), in_dim=8)
    model: OrderedDict[int, None] = OrderedDict()
    next_key = 0
    zeta = np.ones(8)
    for step in range(4000):
        r = rng.random()
        if r < 0.5 or not model:
            key = next_key
            next_key += 1
            mem.add(key, zeta + rng.standard_normal(8), 0.0, 1)
            model[key] = None
            if len(model) > cap:
                model.popitem(last=False)
        else:
            key = list(model)[rng.integers(0, len(model))]
            if r < 0.75:
                mem.update(key, 1.0, 2)
            else:
                mem.add(key, zeta, 1.0, 2)
            model.move_to_end(key)
        if step % 250 == 0 or step > 3900:
            assert set(mem._key_to_slot) == set(model)
    assert len(mem) == cap


def test_clear_and_stats():
    rng = np.random.default_rng(0)
    mem = Memory(small_config(), in_dim=16)
    for k in range(20):
        mem.add(k, rng.standard_normal(16), 0.5, 1)
    mem.query(mem.phi(rng.standard_normal(16)))
    s = mem.stats()
    assert s["entries"] == 20 and s["capacity"] == 200 and s["queries"] == 1
    mem.clear()
    assert len(mem) == 0 and 3 not in mem and mem.stats()["queries"] == 0
    assert mem.query(mem.phi(np.ones(16))) == (0.0, 0.0, 0)
    mem.add(3, np.ones(16), 0.5, 1)
    assert mem.query(mem.phi(np.ones(16)))[2] == 1


def test_tiny_tau_is_finite():
    rng = np.random.default_rng(4)
    mem = Memory(small_config(tau=1e-9, hash_bits=1, hash_tables=1, M=5),     # the least tau the table takes
                 in_dim=16)
    for k in range(30):
        mem.add(k, rng.standard_normal(16), rng.random(), 3)
    v, n, found = mem.query(mem.phi(rng.standard_normal(16)))
    assert found == 5 and math.isfinite(v) and n == pytest.approx(3.0)


@pytest.mark.parametrize("simhash_dim", [None, 512])
def test_simhash_bit_disagreement_is_angle_over_pi(simhash_dim):
    """Charikar: Pr[bit differs] = theta / pi for the angle theta."""
    rng = np.random.default_rng(9)
    cfg = small_config(D=2048)
    mem = Memory(cfg, in_dim=512, simhash_dim=simhash_dim)
    bits = cfg.hash_tables * cfg.hash_bits
    for c in (0.95, 0.5, 0.0):
        a = unit(rng.standard_normal((60, 512)))
        n = rng.standard_normal((60, 512))
        n = unit(n - (n * a).sum(1, keepdims=True) * a)
        b = c * a + math.sqrt(1 - c * c) * n
        pa, pb = mem.phi(a), mem.phi(b)
        xor = mem.codes(pa) ^ mem.codes(pb)
        differing = sum(bin(int(v)).count("1") for v in xor.ravel())
        theta = np.arccos(np.clip((pa * pb).sum(1), -1, 1)).mean()
        assert differing / (60 * bits) == pytest.approx(theta / np.pi,
                                                        abs=0.03)


# ----------------------------------------------------------------------
# the Cython kernel (engine/memkernel.pyx) against a numpy reference
def reference_projection(mem: Memory, phi: np.ndarray) -> np.ndarray:
    """SimHash projections ``r . f(phi - c)`` in float64, as the paper's
    codes would be computed in numpy (f: the signed fold, c: the centre)."""
    x = np.asarray(phi, dtype=np.float64)
    if mem._center is not None:
        x = x - mem._center
    if mem._fold_signs is not None:
        x = (x * mem._fold_signs).reshape(
            x.shape[:-1] + (-1, mem.simhash_dim)).sum(axis=-2)
    return x @ mem._planes.T.astype(np.float64)


def reference_codes(mem: Memory, phi: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(codes, margins): codes from the float64 projections, and per table
    the smallest |projection| (bits closer to 0 may round either way)."""
    proj = reference_projection(mem, phi)
    T, b = mem._T, mem._b
    proj = proj.reshape(proj.shape[:-1] + (T, b))
    codes = ((proj > 0).astype(np.int64) << np.arange(b)).sum(axis=-1)
    return codes, np.abs(proj).min(axis=-1)


def reference_query(mem: Memory, phi: np.ndarray, exclude_key=None):
    """Top-M keys and (V_M, N_M) over the SimHash candidates, in numpy:
    entries whose stored code is within probe_radius of the query's code
    in some table, ranked by float64 cosines, combined by equation (8)."""
    n = len(mem)
    slots = np.arange(n)
    stored = np.array([mem._index.slot_codes(s) for s in slots])
    query_codes = mem.codes(phi)
    xor = stored ^ query_codes[None, :]
    hamming = np.vectorize(lambda v: bin(int(v)).count("1"))(xor)
    candidate = (hamming <= mem.config.probe_radius).any(axis=1)
    if exclude_key is not None and exclude_key in mem:
        candidate[mem._key_to_slot[exclude_key]] = False
    slots = slots[candidate]
    phis = mem._stored_phi(slots).astype(np.float64)
    sims = phis @ np.asarray(phi, dtype=np.float64)
    order = np.argsort(-sims, kind="stable")[:mem.config.M]
    slots, sims = slots[order], sims[order]
    stats = mem._index.stats[slots]
    v_m, n_m = memory_value(sims, stats[:, 2], stats[:, 0], mem.config.tau)
    keys = [mem._slot_key[s] for s in slots]
    return keys, sims, v_m, n_m, int(candidate.sum())


def fill_clustered(mem: Memory, rng, count: int, L: int, clusters: int = 12):
    centres = unit(rng.standard_normal((clusters, L)))
    for key in range(count):
        z = centres[key % clusters] + 0.3 / math.sqrt(L) * rng.standard_normal(L)
        mem.add(key, z, rng.random(), float(rng.integers(0, 40)))
    return centres


@pytest.mark.parametrize("overrides, simhash_dim", [
    (dict(), 512),                              # paper layout, folded
    (dict(D=512), None),                        # Charikar on phi itself
    (dict(probe_radius=0), 512),
    (dict(probe_radius=2, hash_bits=10), 512),
    (dict(hash_bits=20, hash_tables=8), 512),   # 8M bins: hashed heads
    (dict(hash_tables=3, hash_bits=7, M=25), 512),
])
def test_kernel_query_matches_numpy_reference(overrides, simhash_dim):
    rng = np.random.default_rng(21)
    L = 96
    cfg = small_config(**{**dict(memory_size=400, M=12, D=2048), **overrides})
    mem = Memory(cfg, in_dim=L, simhash_dim=simhash_dim)
    centres = fill_clustered(mem, rng, 400, L)
    assert mem._center is not None          # centred after 64 entries
    assert mem._index.dense_bins == (cfg.hash_bits < 20)
    checked = 0
    for i in range(40):
        z = centres[i % len(centres)] + 0.3 / math.sqrt(L) * \
            rng.standard_normal(L)
        phi = mem.phi(z)
        exclude = int(rng.integers(0, 400)) if i % 3 == 0 else None
        keys, sims, v_ref, n_ref, n_cand = reference_query(mem, phi, exclude)
        got_keys, got_sims = mem.neighbours(phi, exclude_key=exclude)
        assert len(got_keys) == len(keys)
        if len(keys) == 0:
            assert mem.query(phi, exclude_key=exclude) == (0.0, 0.0, 0)
            continue
        # same top-M set (unless the M-th and (M+1)-th cosines tie)
        assert set(got_keys) == set(keys)
        np.testing.assert_allclose(got_sims, sims, atol=1e-5)
        candidates = mem._index.candidates
        v_m, n_m, found = mem.query(phi, exclude_key=exclude)
        assert mem._index.candidates - candidates == n_cand
        assert found == len(keys)
        assert v_m == pytest.approx(v_ref, abs=1e-5)
        assert n_m == pytest.approx(n_ref, rel=1e-5, abs=1e-5)
        checked += 1
    assert checked >= 30
    stats = mem.stats()
    assert stats["queries"] == 40 and stats["mean_candidates"] > 0


def test_kernel_codes_match_numpy_reference():
    """Codes (query side and stored side) equal the float64 numpy codes,
    except for bits whose projection is within float rounding of 0, with
    every SIMD version of the projection the CPU can run."""
    from engine import memkernel
    rng = np.random.default_rng(8)
    L = 200
    mem = Memory(small_config(memory_size=300, D=4096), in_dim=L)
    for k in range(150):                     # centred after 64
        mem.add(k, rng.standard_normal(L), 0.5, 1)
    phis = mem.phi(rng.standard_normal((60, L)))
    want, margin = reference_codes(mem, phis)
    tolerant = margin < 1e-4
    best = memkernel.simd_level()
    levels = memkernel.SIMD_LEVELS[:memkernel.SIMD_LEVELS.index(best) + 1]
    try:
        for level in levels:
            memkernel.limit_simd(level)
            assert memkernel.simd_level() == level
            got = mem.codes(phis)
            assert got.shape == (60, mem.config.hash_tables)
            assert got.dtype == np.int64
            assert np.array_equal(got[~tolerant], want[~tolerant])
            for i in range(5):
                assert np.array_equal(mem.codes(phis[i]), got[i])
    finally:
        memkernel.limit_simd(None)
    assert memkernel.simd_level() == best
    stored_phi = mem._stored_phi(np.arange(len(mem)))
    want, margin = reference_codes(mem, stored_phi)
    stored = np.array([mem._index.slot_codes(s) for s in range(len(mem))])
    assert np.array_equal(stored[margin >= 1e-4], want[margin >= 1e-4])


def test_kernel_phi_outside_the_hash_image():
    """A phi with mass on coordinates the feature hash never reaches is
    stored whole; replacing it (LRU) by a hashed phi clears those
    coordinates.  Queries stay exact against the numpy reference."""
    rng = np.random.default_rng(4)
    L = 40                                   # reaches < 20% of D = 256
    mem = Memory(small_config(memory_size=30, M=30, D=256, hash_bits=1,
                              hash_tables=1), in_dim=L)
    assert mem._index.n_live < 100
    raw = unit(rng.standard_normal((30, 256))).astype(np.float32)
    for k in range(30):
        mem.add_phi(k, raw[k], rng.random(), 1 + k)
    assert mem._index.full.sum() == 30
    np.testing.assert_allclose(mem._stored_phi(np.arange(30)), raw, atol=1e-7)
    for k in range(30, 45):                  # evicts 0..14
        mem.add(k, rng.standard_normal(L), rng.random(), 2)
    assert mem._index.full.sum() == 15
    idx = mem._index
    dead_of_hashed = idx.dead_rows[np.flatnonzero(idx.full[:30] == 0)]
    assert not dead_of_hashed.any()
    for q in list(raw[20:25]) + list(mem.phi(rng.standard_normal((5, L)))):
        keys, sims, v_ref, n_ref, _ = reference_query(mem, q)
        v_e, n_e, found_e = mem.query_exact(q)
        v_m, n_m, found = mem.query(q)
        assert found == found_e == 30
        assert v_m == pytest.approx(v_ref, abs=1e-5) == v_e
        assert n_m == pytest.approx(n_ref, rel=1e-5)
        assert v_e == pytest.approx(v_ref, abs=1e-5)


def test_kernel_unnormalised_phi_is_renormalised():
    rng = np.random.default_rng(2)
    mem = Memory(small_config(hash_bits=1, hash_tables=1), in_dim=32)
    phi = mem.phi(rng.standard_normal(32))
    mem.add_phi(1, 3.0 * phi, 0.25, 4)
    mem.add_phi(2, phi.astype(np.float64) * 0.5, 0.75, 4)   # any dtype
    stored = mem._stored_phi(np.arange(2))
    np.testing.assert_allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(stored[0], phi, atol=1e-6)
    keys, sims = mem.neighbours(phi)
    assert sorted(keys) == [1, 2] and sims.min() == pytest.approx(1.0, abs=1e-5)


def test_kernel_linked_lists_survive_churn():
    """Random adds (with evictions), updates, queries and a clear: every
    stored slot is in exactly one bin per table, under its stored code, and
    the LRU list holds every slot once."""
    rng = np.random.default_rng(17)
    cfg = small_config(memory_size=80, M=5, D=128, hash_bits=4)
    mem = Memory(cfg, in_dim=24)
    key = 0
    for step in range(1500):
        r = rng.random()
        if r < 0.5:
            mem.add(key, rng.standard_normal(24), rng.random(), 1)
            key += 1
        elif r < 0.8 and len(mem):
            mem.update(int(rng.choice(list(mem._key_to_slot))), 0.5, 2)
        else:
            mem.query(mem.phi(rng.standard_normal(24)))
        if step == 700:
            mem.clear()
        if step % 100 == 0 or step == 1499:
            n = len(mem)
            bins, slots = mem._index.bucket_items()
            assert len(slots) == n * cfg.hash_tables
            for s in range(n):
                codes = mem._index.slot_codes(s)
                want = (np.arange(cfg.hash_tables) << cfg.hash_bits) | codes
                assert sorted(bins[slots == s].tolist()) == sorted(want.tolist())
            assert sorted(mem._index.lru_order()) == list(range(n))
            assert sorted(mem._key_to_slot.values()) == list(range(n))


def test_feature_hash_dtypes_and_shapes():
    rng = np.random.default_rng(3)
    h = FeatureHasher(300, 128, seed=1)
    x = rng.standard_normal((4, 3, 100))
    out = h(x)
    assert out.shape == (4, 128) and out.dtype == np.float32
    np.testing.assert_allclose(h(x.reshape(4, 300)), out)
    np.testing.assert_allclose(h(x.astype(np.float32)), out, atol=1e-6)
    np.testing.assert_allclose(h(x[1].ravel()), out[1])
    np.testing.assert_allclose(h(x[:, :, ::-1][:, :, ::-1]), out)  # strided
    assert h(np.zeros(300)).tolist() == [0.0] * 128
    ints = rng.integers(-5, 5, 300)
    np.testing.assert_allclose(h(ints), h(ints.astype(np.float64)))
    with pytest.raises(ValueError, match="300 features"):
        h(np.ones(299))
    with pytest.raises(ValueError, match="300 features"):
        h(np.ones((2, 299)))


def test_kernel_32_bit_codes():
    rng = np.random.default_rng(6)
    mem = Memory(small_config(hash_bits=32, hash_tables=2, memory_size=120,
                              M=3), in_dim=30)
    zetas = rng.standard_normal((120, 30))
    for k in range(120):
        mem.add(k, zetas[k], k / 120, 1)
    codes = mem.codes(mem.phi(zetas))
    assert codes.max() < 2 ** 32 and codes.max() >= 2 ** 31
    assert not mem._index.dense_bins
    for k in range(0, 120, 11):
        keys, sims = mem.neighbours(mem.phi(zetas[k]))
        assert keys[0] == k and sims[0] == pytest.approx(1.0, abs=1e-5)
        assert mem.query(mem.phi(zetas[k]), codes=codes[k])[0] \
            == pytest.approx(k / 120, abs=1e-3)


def test_none_is_not_a_key():
    mem = Memory(small_config(), in_dim=8)
    with pytest.raises(TypeError):
        mem.add(None, np.ones(8), 0.5, 1)
    assert len(mem) == 0 and mem.update(None, 0.5, 1) is False


def test_recentring_follows_drifting_features():
    """memory.recenter: ReLU features whose common part drifts over a game
    (as Conv7's do) cluster the codes again under a centre fixed on the
    first entries; re-centred each time the memory doubles, a query ranks
    far fewer candidates."""
    rng = np.random.default_rng(5)
    dim, n = 256, 2000
    drift = np.cumsum(rng.normal(0, 0.15, (n, dim)), axis=0)      # the game moves on
    feats = np.maximum(0.0, 1.0 + drift + rng.normal(0, 0.3, (n, dim))).astype(np.float32)
    cands = {}
    for recenter in (False, True):
        mem = Memory(small_config(memory_size=n, M=8, D=512, recenter=recenter), in_dim=dim, seed=3)
        for i in range(n):
            mem.add(i, feats[i], V=float(i % 2), N=1.0)
        before = mem.stats()["queries"]
        for i in range(n - 200, n):
            mem.query(mem.phi(feats[i]))
        st = mem.stats()
        cands[recenter] = st["mean_candidates"]
        assert st["queries"] - before == 200
    assert cands[True] < 0.7 * cands[False], cands
