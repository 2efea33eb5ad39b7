"""Micro-benchmark of the M-MCTS value memory (engine/memory.py).

Fills a :class:`engine.memory.Memory` (paper defaults: memory_size 10,000,
M 50, tau 0.1, D 4096, 8 SimHash tables of 16 bits, probe radius 1) with
random entries whose raw feature vectors zeta have ``--dim`` components
(default 32*9*9 = 2592, a 9x9 Conv7 output), then times each operation per
call (median over many calls, microseconds):

* ``phi (feature hashing)``: zeta -> phi = h(zeta), normalised.
* ``simhash codes``: the hash_tables x hash_bits hyperplane projection
  (of the 512-dim signed fold of phi, the default).
* ``add``: insert of a new key into a full memory (LRU replacement), phi
  given, SimHash codes computed inside; ``add (codes given)`` without them.
* ``add existing``: add of a stored key (V, N update only).
* ``update``: V, N overwrite of a stored key.
* ``exact query``: brute-force top-M in numpy (reference), with BLAS on
  one thread like the memory itself (idle BLAS threads would otherwise spin
  beside the timed calls on a 2-core machine).
* ``query (codes given)``: SimHash query with precomputed codes.
* ``query``: the full SimHash query, including the codes (last line).

Usage: ``python bench/memory.py [--entries 10000] [--dim 2592]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from engine import memkernel  # noqa: E402
import dataclasses  # noqa: E402

from engine.config import MemoryConfig  # noqa: E402
from engine.memory import Memory  # noqa: E402


def per_call_us(fn, args_list) -> float:
    """Median wall time of ``fn(*args)`` over ``args_list``, microseconds."""
    times = np.empty(len(args_list))
    clock = time.perf_counter
    for i, args in enumerate(args_list):
        t0 = clock()
        fn(*args)
        times[i] = clock() - t0
    return float(np.median(times) * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10000)
    parser.add_argument("--dim", type=int, default=32 * 9 * 9)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    config = dataclasses.replace(MemoryConfig(), memory_size=args.entries, M=min(50, args.entries))
    memory = Memory(config, in_dim=args.dim, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    calls = args.calls

    # Fill with random entries (hashed in batches).
    next_key = 0
    for start in range(0, args.entries, 1000):
        count = min(1000, args.entries - start)
        zeta = rng.standard_normal((count, args.dim))
        phis = memory.phi(zeta)
        codes = memory.codes(phis)
        for i in range(count):
            memory.add_phi(next_key, phis[i], rng.random(),
                           float(rng.integers(1, 100)), codes[i])
            next_key += 1
    print(f"filled: {len(memory)} entries, D={config.D}, zeta dim={args.dim}, "
          f"M={config.M}, "
          f"tables={config.hash_tables}x{config.hash_bits} bits, "
          f"probe_radius={config.probe_radius}, "
          f"projection {memkernel.simd_level()}, "
          f"live coordinates {memory._index.n_live}/{config.D}")

    zetas = rng.standard_normal((calls, args.dim))
    phi_us = per_call_us(memory.phi, [(z,) for z in zetas[:500]])
    phis = memory.phi(zetas)
    codes_us = per_call_us(memory.codes, [(p,) for p in phis])
    codes = memory.codes(phis)

    # Queries: half random, half near a stored entry (a perturbed copy).
    stored = rng.integers(0, next_key, size=calls // 2)
    near = memory._stored_phi(np.array([memory._key_to_slot[int(k)]
                                        for k in stored]))
    near = near + 0.3 * rng.standard_normal(near.shape).astype(np.float32) \
        / np.sqrt(config.D)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    qphis = np.concatenate([phis[:calls - len(near)], near])
    qphis = qphis.astype(np.float32)
    qcodes = memory.codes(qphis)

    exact_us = per_call_us(memory.query_exact,
                           [(p,) for p in qphis[:max(20, calls // 50)]])
    query_codes_us = per_call_us(
        lambda p, c: memory.query(p, codes=c), list(zip(qphis, qcodes)))
    query_us = per_call_us(memory.query, [(p,) for p in qphis])
    stats = memory.stats()

    # Adds of new keys into the full memory (each evicts the LRU entry).
    add_us = per_call_us(
        memory.add_phi,
        [(next_key + i, phis[i], 0.5, 3.0) for i in range(calls)])
    next_key += calls
    add_codes_us = per_call_us(
        memory.add_phi,
        [(next_key + i, phis[i], 0.5, 3.0, codes[i]) for i in range(calls)])
    next_key += calls
    keys = list(memory._key_to_slot)
    picks = [keys[i] for i in rng.integers(0, len(keys), size=calls)]
    add_existing_us = per_call_us(
        memory.add_phi, [(k, phis[0], 0.25, 7.0) for k in picks])
    update_us = per_call_us(memory.update, [(k, 0.75, 9.0) for k in picks])

    print(f"phi (feature hashing): {phi_us:.1f} us")
    print(f"simhash codes: {codes_us:.1f} us")
    print(f"add: {add_us:.1f} us")
    print(f"add (codes given): {add_codes_us:.1f} us")
    print(f"add existing: {add_existing_us:.1f} us")
    print(f"update: {update_us:.1f} us")
    print(f"mean candidates per query: {stats['mean_candidates']:.1f}")
    print(f"exact query: {exact_us:.1f} us")
    print(f"query (codes given): {query_codes_us:.1f} us")
    print(f"query speedup vs exact: {exact_us / query_us:.1f}")
    print(f"query: {query_us:.1f} us")


if __name__ == "__main__":
    main()
