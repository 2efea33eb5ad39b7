# cython: language_level=3
"""Hot paths of the M-MCTS value memory (the terms are defined in
engine/memory.py, which is the public API and the only user of this module).

Owns: the stored features phi_i and statistics ``(N_i, N_i V_i, V_i)``, the
SimHash bins as intrusive doubly linked lists, the LRU order of the entries,
and the loops of one operation: SimHash codes,
multi-probing, exact re-ranking of the candidates, top-M selection and the
weights of equation (8) (the feature hashing of zeta is
engine/featurehash.pyx).  Imports numpy only; never imports the project.
Keys are any hashable Python objects, mapped to slots by a dict.

Layout of phi.  The feature hash ``h: R^L -> R^D`` only reaches the
coordinates in the image of its bucket map, about ``1 - exp(-L/D)`` of D
(47% for a 9x9 Conv7 vector, L = 2592, D = 4096); every other coordinate of
every phi it makes is exactly 0.  Rows are stored split: the ``live``
coordinates in a ``capacity x n_live`` array, the others in a
``capacity x n_dead`` array that only a phi with mass there (one not made
by the hasher) writes, marked in ``full``.  A cosine reads ``n_live`` floats
of a row instead of D: exact, and half the memory traffic, which is what a
query costs (a few dozen candidate rows read from DRAM).

SimHash.  Codes are ``sign(r . (f(phi) - f(c)))`` with ``f`` the signed fold
of phi to ``sd`` dimensions and ``c`` the centre (zero until set), the same
codes as ``sign(r . f(phi - c))`` in engine/memory.py up to float rounding.
The projection is blocked for SIMD: an SSE4.2 version (the x86-64-v2
baseline), an AVX2+FMA and an AVX-512F one, chosen at run time by the CPU.
Cosines are float32 dot products, 8 lanes with FMA when the build targets
AVX2 (x86-64-v3), else SSE4.2.

Bins.  Entry ``e = slot * T + t`` is slot's node in table t, linked into the
list of bin ``(t, code)``.  With ``T << hash_bits`` up to 4M bins every bin
has its own head; beyond that the code is hashed to ``hbits`` bits per table
and a probe skips entries of other codes.  A query stamps each candidate in
``mark`` so entries found in several tables or probes are ranked once.

Every call holds the GIL (an index has scratch buffers and is not shared
between threads; a call takes microseconds).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset
from libc.math cimport exp, sqrt, fabs
cimport numpy as cnp
import numpy as np

cnp.import_array()

cdef extern from "memkernel_simd.h":     # the C kernels (engine/memkernel_simd.h)
    int memk_simd_level() noexcept nogil
    void memk_limit_simd(int level) noexcept nogil
    float memk_dot(const float* a, const float* b, Py_ssize_t n,
                   const float* nxt) noexcept nogil
    double memk_sumsq(const double* x, Py_ssize_t n) noexcept nogil
    void memk_project(const float* planes, const float* fc, const float* fs,
                      const float* x, int sd, int nrep, int nblk, float* f,
                      float* out) noexcept nogil
    void memk_bits(const float* proj, int T, int b, uint32_t* out) noexcept nogil
    void memk_gather(float* out, const float* src, const int32_t* idx,
                     Py_ssize_t n) noexcept nogil
    float memk_sumsq_masked(const float* x, const uint32_t* mask, Py_ssize_t n,
                            int* any) noexcept nogil
    void memk_prefetch(const void* p) noexcept nogil
    void memk_gather_nt(float* out, const float* src, const int32_t* idx,
                        Py_ssize_t n) noexcept nogil


cdef enum:
    BLOCK = 64                  # hyperplanes per block of the projection
    MAX_DENSE_BINS = 1 << 22    # bins with a head each (T << hash_bits)


SIMD_LEVELS = ("sse4.2", "avx2", "avx512")


def simd_level() -> str:
    """Instruction set of the SimHash projection, one of :data:`SIMD_LEVELS`."""
    return SIMD_LEVELS[memk_simd_level()]


def limit_simd(level=None) -> None:
    """Use at most ``level`` (a name in :data:`SIMD_LEVELS`) for the SimHash
    projection, or the best the CPU has for None (for tests)."""
    memk_limit_simd(-1 if level is None else SIMD_LEVELS.index(level))


cdef inline cnp.ndarray _f32(object x, Py_ssize_t n):
    """``x`` as a C-contiguous float32 array of ``n`` elements (no copy if it
    already is one)."""
    cdef cnp.ndarray a
    if (cnp.PyArray_Check(x) and cnp.PyArray_TYPE(<cnp.ndarray>x) == cnp.NPY_FLOAT32
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>x)):
        a = <cnp.ndarray>x
    else:
        a = np.ascontiguousarray(x, dtype=np.float32)
    if cnp.PyArray_SIZE(a) != n:
        raise ValueError(f"expected {n} features, got shape {np.shape(x)}")
    return a


cdef inline void* _data(object a):
    return cnp.PyArray_DATA(<cnp.ndarray>a)


def _aligned_zeros(shape, dtype, int align=64):
    """np.zeros whose data starts on an ``align``-byte boundary."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    buf = np.zeros(nbytes + align, dtype=np.uint8)
    offset = (-buf.ctypes.data) % align
    return buf[offset:offset + nbytes].view(dtype).reshape(shape)


cdef void _select_top(float* s, int32_t* idx, Py_ssize_t n, Py_ssize_t m) noexcept nogil:
    """Reorder ``s[0..n)`` (and ``idx`` alongside) so that ``s[0..m)`` holds
    the m largest values (Hoare quickselect, median-of-three pivot)."""
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j, k = m - 1, mid
    cdef float pivot, a, b, c, tf
    cdef int32_t ti
    while lo < hi:
        mid = lo + (hi - lo) // 2
        a = s[lo]
        b = s[mid]
        c = s[hi]
        if (a >= b) == (b >= c):
            pivot = b
        elif (b >= a) == (a >= c):
            pivot = a
        else:
            pivot = c
        i = lo
        j = hi
        while i <= j:
            while s[i] > pivot:
                i += 1
            while s[j] < pivot:
                j -= 1
            if i <= j:
                tf = s[i]; s[i] = s[j]; s[j] = tf
                ti = idx[i]; idx[i] = idx[j]; idx[j] = ti
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break


cdef class MemoryIndex:
    """Storage, SimHash index and LRU order of the M-MCTS memory.

    Args:
        capacity: number of slots ``|M|``.
        D: dimension of phi.
        M: neighbours combined by a query.
        tau: temperature of equation (8), > 0.
        hash_bits: bits per SimHash code, 1..32.
        planes: float32 ``(hash_tables * hash_bits, sd)`` hyperplanes; bit i
            of table t is row ``t * hash_bits + i``.
        fold_signs: float32 ``(D,)`` signs of the fold D -> sd, or None when
            ``sd == D`` (no fold).
        masks: the probe XOR masks (Hamming ball), 0 first.
        live: bool ``(D,)``, the coordinates the feature hash can reach, or
            None (all).
        center_after: :meth:`add` reports when this many entries are stored
            and SimHash is not centred yet (0: never).
    """

    def __cinit__(self):
        self._keep = []

    def __init__(self, int capacity, int D, int M, double tau, int hash_bits,
                 planes, fold_signs, masks, live=None, int center_after=0):
        planes = np.ascontiguousarray(planes, dtype=np.float32)
        if capacity < 1 or D < 1 or M < 1 or not tau > 0:
            raise ValueError("MemoryIndex: bad capacity, D, M or tau")
        if not 1 <= hash_bits <= 32 or planes.ndim != 2 \
                or planes.shape[0] % hash_bits or planes.shape[0] == 0:
            raise ValueError("MemoryIndex: planes must be (T * hash_bits, sd)")
        self.capacity = capacity
        self.center_after = center_after
        self.D = D
        self.M = M
        self.tau = tau
        self.inv_tau = 1.0 / tau
        self.b = hash_bits
        self.T = planes.shape[0] // hash_bits
        self.sd = planes.shape[1]
        self.nbits = self.T * self.b
        self.nblk = (self.nbits + BLOCK - 1) // BLOCK
        self.code_mask = <uint32_t>(((<uint64_t>1) << hash_bits) - 1)
        if capacity * (<object>self.T) >= 2 ** 31:
            raise ValueError("MemoryIndex: capacity * hash_tables must be < 2**31")
        if fold_signs is None:
            if self.sd != D:
                raise ValueError("MemoryIndex: without a fold, planes need D columns")
            fold = np.ones(D, dtype=np.float32)
        else:
            fold = np.ascontiguousarray(fold_signs, dtype=np.float32)
            if fold.shape != (D,) or D % self.sd:
                raise ValueError("MemoryIndex: fold_signs must be (D,), sd | D")
        blocked = np.zeros((self.nblk * BLOCK, self.sd), dtype=np.float32)
        blocked[:self.nbits] = planes
        blocked = np.ascontiguousarray(
            blocked.reshape(self.nblk, BLOCK, self.sd).transpose(0, 2, 1))
        mask_arr = np.ascontiguousarray(masks, dtype=np.uint32)
        if mask_arr.ndim != 1 or mask_arr.shape[0] < 1 or mask_arr[0] != 0:
            raise ValueError("MemoryIndex: masks must start with 0")
        self.n_masks = mask_arr.shape[0]
        live_mask = (np.ones(D, dtype=bool) if live is None
                     else np.asarray(live, dtype=bool).reshape(D))
        live_index = np.flatnonzero(live_mask).astype(np.int32)
        dead_index = np.flatnonzero(~live_mask).astype(np.int32)
        self.n_live = live_index.shape[0]
        self.n_dead = dead_index.shape[0]
        self.stride = (self.n_live + 15) // 16 * 16
        self.live_index = live_index
        self.dead_index = dead_index

        if ((<object>self.T) << hash_bits) <= MAX_DENSE_BINS:
            self.hbits = hash_bits
        else:
            self.hbits = min(hash_bits, max(10, (2 * capacity).bit_length()))
        self.dense_bins = self.hbits == hash_bits
        n_heads = self.T << self.hbits
        n_entries = capacity * self.T

        # rows padded with zeros to whole 64-byte lines, 64-byte aligned
        live_padded = _aligned_zeros((capacity, self.stride), np.float32)
        self.live_rows = live_padded[:, :self.n_live]
        self.dead_rows = np.zeros((capacity, self.n_dead), dtype=np.float32)
        self.stats = np.zeros((capacity, 3), dtype=np.float64)
        self.full = np.zeros(capacity, dtype=np.uint8)
        heads = np.full(n_heads, -1, dtype=np.int32)
        enext = np.full(n_entries, -1, dtype=np.int32)
        eprev = np.full(n_entries, -1, dtype=np.int32)
        ecode = np.zeros(n_entries, dtype=np.uint32)
        fold_c = np.zeros(self.sd, dtype=np.float32)
        lru_prev = np.full(capacity, -1, dtype=np.int32)
        lru_next = np.full(capacity, -1, dtype=np.int32)
        mark = np.zeros(capacity, dtype=np.uint32)
        cand = np.zeros(capacity, dtype=np.int32)
        csim = np.zeros(capacity, dtype=np.float32)
        qbuf = _aligned_zeros(self.stride + self.n_dead, np.float32)
        dead_mask = np.where(live_mask, 0, 0x7FFFFFFF).astype(np.uint32)
        probe_bins = np.zeros(self.T * self.n_masks, dtype=np.intp)
        probe_codes = np.zeros(self.T * self.n_masks, dtype=np.uint32)
        xbuf = np.zeros(D, dtype=np.float32)
        fbuf = np.zeros(self.sd, dtype=np.float32)
        pbuf = np.zeros(self.nblk * BLOCK, dtype=np.float32)
        cbuf = np.zeros(self.T, dtype=np.uint32)
        self._keep = [live_index, dead_index, blocked, fold, mask_arr, heads,
                      enext, eprev, ecode, fold_c, lru_prev, lru_next, mark,
                      cand, csim, qbuf, xbuf, fbuf, pbuf, cbuf, live_padded,
                      probe_bins, probe_codes, dead_mask]
        self.live_idx = <int32_t*>_data(live_index)
        self.dead_idx = <int32_t*>_data(dead_index)
        self.planes = <float*>_data(blocked)
        self.fold_signs = <float*>_data(fold)
        self.masks = <uint32_t*>_data(mask_arr)
        self.live = <float*>_data(live_padded)
        self.dead = <float*>_data(self.dead_rows)
        self.st = <double*>_data(self.stats)
        self.fullp = <uint8_t*>_data(self.full)
        self.heads = <int32_t*>_data(heads)
        self.enext = <int32_t*>_data(enext)
        self.eprev = <int32_t*>_data(eprev)
        self.ecode = <uint32_t*>_data(ecode)
        self.fold_c = <float*>_data(fold_c)
        self.lru_prev = <int32_t*>_data(lru_prev)
        self.lru_next = <int32_t*>_data(lru_next)
        self.mark = <uint32_t*>_data(mark)
        self.cand = <int32_t*>_data(cand)
        self.csim = <float*>_data(csim)
        self.qbuf = <float*>_data(qbuf)
        self.xbuf = <float*>_data(xbuf)
        self.fbuf = <float*>_data(fbuf)
        self.pbuf = <float*>_data(pbuf)
        self.cbuf = <uint32_t*>_data(cbuf)
        self.probe_bins = <Py_ssize_t*>_data(probe_bins)
        self.probe_codes = <uint32_t*>_data(probe_codes)
        self.dead_mask = <uint32_t*>_data(dead_mask)
        self.qstamp = 0
        self.clear()

    def clear(self) -> None:
        """Forget every entry, the centre and the counters.  Rows keep their
        data (the invariant on ``dead_rows`` holds for every slot)."""
        cdef Py_ssize_t i
        for i in range((<Py_ssize_t>self.T) << self.hbits):
            self.heads[i] = -1
        memset(self.fold_c, 0, self.sd * sizeof(float))
        self.centred = False
        self.size = 0
        self.lru_head = -1
        self.lru_tail = -1
        self.key_to_slot = {}
        self.slot_key = [None] * self.capacity
        self.queries = 0
        self.hits = 0
        self.candidates = 0
        self.evictions = 0

    # ------------------------------------------------------------------
    # C helpers
    cdef Py_ssize_t _bin(self, int t, uint32_t code) noexcept nogil:
        if self.dense_bins:
            return ((<Py_ssize_t>t) << self.hbits) | code
        return (((<Py_ssize_t>t) << self.hbits)
                | <Py_ssize_t>(((<uint64_t>code) * 0x9E3779B97F4A7C15ULL)
                               >> (64 - self.hbits)))

    cdef void _codes(self, const float* phi, uint32_t* out) noexcept nogil:
        """SimHash codes of the natural-order ``phi`` (D floats) into out[T]."""
        memk_project(self.planes, self.fold_c, self.fold_signs, phi, self.sd,
                     self.D // self.sd, self.nblk, self.fbuf, self.pbuf)
        memk_bits(self.pbuf, self.T, self.b, out)

    cdef void _link(self, Py_ssize_t slot) noexcept nogil:
        cdef int t
        cdef Py_ssize_t e, h
        cdef int32_t first
        for t in range(self.T):
            e = slot * self.T + t
            h = self._bin(t, self.ecode[e])
            first = self.heads[h]
            self.enext[e] = first
            self.eprev[e] = -1
            if first >= 0:
                self.eprev[first] = <int32_t>e
            self.heads[h] = <int32_t>e

    cdef void _unlink(self, Py_ssize_t slot) noexcept nogil:
        cdef int t
        cdef Py_ssize_t e
        cdef int32_t p, n
        for t in range(self.T):
            e = slot * self.T + t
            p = self.eprev[e]
            n = self.enext[e]
            if p >= 0:
                self.enext[p] = n
            else:
                self.heads[self._bin(t, self.ecode[e])] = n
            if n >= 0:
                self.eprev[n] = p

    cdef void _lru_remove(self, Py_ssize_t slot) noexcept nogil:
        cdef int32_t p = self.lru_prev[slot], n = self.lru_next[slot]
        if p >= 0:
            self.lru_next[p] = n
        else:
            self.lru_head = n
        if n >= 0:
            self.lru_prev[n] = p
        else:
            self.lru_tail = p

    cdef void _lru_push(self, Py_ssize_t slot) noexcept nogil:
        self.lru_prev[slot] = -1
        self.lru_next[slot] = self.lru_head
        if self.lru_head >= 0:
            self.lru_prev[self.lru_head] = <int32_t>slot
        else:
            self.lru_tail = <int32_t>slot
        self.lru_head = <int32_t>slot

    cdef void _touch(self, Py_ssize_t slot) noexcept nogil:
        if self.lru_head != slot:
            self._lru_remove(slot)
            self._lru_push(slot)

    cdef Py_ssize_t _candidates(self, const uint32_t* codes,
                                Py_ssize_t excluded) noexcept nogil:
        """Stored slots sharing a probed bin with ``codes`` into cand[]."""
        cdef Py_ssize_t n = 0, slot, i, nb = 0, h
        cdef int t, m, T = self.T
        cdef int32_t e
        cdef uint32_t c, stamp
        # every probed bin first, so that the misses on heads[] overlap
        for t in range(T):
            for m in range(self.n_masks):
                c = codes[t] ^ self.masks[m]
                h = self._bin(t, c)
                self.probe_bins[nb] = h
                self.probe_codes[nb] = c
                nb += 1
                memk_prefetch(self.heads + h)
        self.qstamp += 1
        if self.qstamp == 0:
            memset(self.mark, 0, self.capacity * sizeof(uint32_t))
            self.qstamp = 1
        stamp = self.qstamp
        if excluded >= 0:
            self.mark[excluded] = stamp
        for i in range(nb):
            e = self.heads[self.probe_bins[i]]
            c = self.probe_codes[i]
            while e >= 0:
                if self.dense_bins or self.ecode[e] == c:
                    slot = e // T
                    if self.mark[slot] != stamp:
                        self.mark[slot] = stamp
                        self.cand[n] = <int32_t>slot
                        n += 1
                        memk_prefetch(self.live + slot * self.stride)
                e = self.enext[e]
        return n

    cdef Py_ssize_t _rank(self, const float* phi, Py_ssize_t n) noexcept nogil:
        """Cosines of the n candidates into csim[]; the top M first.
        Returns min(n, M)."""
        cdef Py_ssize_t i, slot
        cdef Py_ssize_t nl = self.stride, nd = self.n_dead
        cdef float* q = self.qbuf
        cdef const float* nxt
        cdef float s
        # q's padding [n_live, stride) stays 0, like the rows'
        memk_gather(q, phi, self.live_idx, self.n_live)
        for i in range(n):
            if self.fullp[self.cand[i]]:
                memk_gather(q + nl, phi, self.dead_idx, nd)
                break
        for i in range(n):
            slot = self.cand[i]
            nxt = self.live + self.cand[i + 1] * nl if i + 1 < n else NULL
            s = memk_dot(self.live + slot * nl, q, nl, nxt)
            if self.fullp[slot]:
                s += memk_dot(self.dead + slot * nd, q + nl, nd, NULL)
            self.csim[i] = s
        if n > self.M:
            _select_top(self.csim, self.cand, n, self.M)
            return self.M
        return n

    cdef void _load_codes(self, object codes) except *:
        cdef cnp.ndarray c = np.ascontiguousarray(codes, dtype=np.int64)
        cdef const int64_t* cp = <const int64_t*>_data(c)
        cdef int t
        if cnp.PyArray_SIZE(c) != self.T:
            raise ValueError(f"expected {self.T} SimHash codes, got {np.shape(codes)}")
        for t in range(self.T):
            self.cbuf[t] = (<uint32_t>cp[t]) & self.code_mask

    # ------------------------------------------------------------------
    # operations
    cdef Py_ssize_t _insert(self, const float* p, bint given, double V,
                            double N) noexcept:
        """Store a new entry in a free slot, or in the least recently used
        one when full, and return the slot.  phi is renormalised when its
        norm is off by more than 1e-4; codes come from cbuf if ``given``.
        The entry becomes the most recently used."""
        cdef Py_ssize_t slot, j, nd = self.n_dead
        cdef float* drow
        cdef float norm
        cdef double sq
        cdef int dead_mass
        if self.size < self.capacity:
            slot = self.size
            self.size += 1
        else:
            slot = self.lru_tail
            self._unlink(slot)
            self._lru_remove(slot)
            self.evictions += 1
        sq = memk_sumsq_masked(p, self.dead_mask, self.D, &dead_mass)
        if fabs(sq - 1.0) > 1e-4 and sq > 0:
            norm = <float>sqrt(sq)
            for j in range(self.D):
                self.xbuf[j] = p[j] / norm
            p = self.xbuf
        memk_gather_nt(self.live + slot * self.stride, p, self.live_idx,
                       self.n_live)
        drow = self.dead + slot * nd
        if dead_mass:
            memk_gather(drow, p, self.dead_idx, nd)
            self.fullp[slot] = 1
        elif self.fullp[slot]:
            memset(drow, 0, nd * sizeof(float))
            self.fullp[slot] = 0
        if given:
            for j in range(self.T):
                self.ecode[slot * self.T + j] = self.cbuf[j]
        else:
            self._codes(p, self.ecode + slot * self.T)
        self._link(slot)
        self._set_stats(slot, V, N)
        self._lru_push(slot)
        return slot

    cdef void _set_stats(self, Py_ssize_t slot, double V, double N) noexcept:
        self.st[3 * slot] = N
        self.st[3 * slot + 1] = N * V
        self.st[3 * slot + 2] = V

    cdef Py_ssize_t _slot_of(self, object key) except -2:
        """Slot of a stored key, -1 if it is not stored (or None)."""
        if key is None:
            return -1
        slot = self.key_to_slot.get(key)
        return -1 if slot is None else <Py_ssize_t>slot

    def add(self, key, phi, double V, double N, codes=None) -> int:
        """The paper's add(s): store ``key`` with feature ``phi`` and V, N;
        if ``key`` is stored, only V and N are set (and it is marked used).

        Returns:
            0 if ``key`` was stored, 1 if it was inserted, 2 if it was
            inserted and the memory now holds ``center_after`` entries with
            SimHash not centred yet (the caller centres it).
        """
        cdef object found = self.key_to_slot.get(key)
        cdef Py_ssize_t slot
        if key is None:
            raise TypeError("a memory key cannot be None")
        if found is not None:
            slot = <Py_ssize_t>found
            self._set_stats(slot, V, N)
            self._touch(slot)
            return 0
        cdef cnp.ndarray a = _f32(phi, self.D)
        if codes is not None:
            self._load_codes(codes)
        slot = self._insert(<const float*>_data(a), codes is not None, V, N)
        old = self.slot_key[slot]
        if old is not None:                 # the LRU entry was replaced
            del self.key_to_slot[old]
        self.key_to_slot[key] = slot
        self.slot_key[slot] = key
        if self.size == self.center_after and not self.centred:
            return 2
        return 1

    def update(self, key, double V, double N) -> bool:
        """The paper's update(s): set V and N of a stored ``key`` and mark it
        used.  Returns False (no-op) if ``key`` is not stored."""
        found = self.key_to_slot.get(key)
        if found is None:
            return False
        self._set_stats(<Py_ssize_t>found, V, N)
        self._touch(<Py_ssize_t>found)
        return True

    def query(self, phi, codes=None, exclude_key=None):
        """``(V_M, N_M, n)`` over the top M SimHash candidates of ``phi``
        (equation (8) and its kernel ``k_i``), leaving out ``exclude_key``.
        The n returned entries become the most recently used."""
        cdef Py_ssize_t excluded = self._slot_of(exclude_key)
        cdef cnp.ndarray a = _f32(phi, self.D)
        cdef const float* p = <const float*>_data(a)
        cdef Py_ssize_t n, m, i, slot
        cdef float smax
        cdef double e, n_e = 0, nv_e = 0, v_e = 0, e_sum = 0
        cdef const double* st = self.st
        self.queries += 1
        self.last_max_cos = -2.0
        if self.size == 0:
            return 0.0, 0.0, 0
        if codes is not None:
            self._load_codes(codes)
        else:
            self._codes(p, self.cbuf)
        n = self._candidates(self.cbuf, excluded)
        self.candidates += n
        m = self._rank(p, n) if n > 0 else 0
        if m > 0:
            smax = self.csim[0]
            for i in range(1, m):
                if self.csim[i] > smax:
                    smax = self.csim[i]
            self.last_max_cos = smax
            for i in range(m):
                slot = self.cand[i]
                e = exp(<double>(self.csim[i] - smax) * self.inv_tau)
                n_e += st[3 * slot] * e
                nv_e += st[3 * slot + 1] * e
                v_e += st[3 * slot + 2] * e
                e_sum += e
                self._touch(slot)
        if m == 0:
            return 0.0, 0.0, 0
        self.hits += 1
        if n_e > 0:
            return nv_e / n_e, n_e / e_sum, m          # equation (8)
        return v_e / e_sum, n_e / e_sum, m             # (8) is 0/0: k_i

    def neighbours(self, phi, codes=None, exclude_key=None):
        """Slots and cosines of the top M SimHash candidates of ``phi``, in
        no particular order.  Read-only (no LRU, no counters)."""
        cdef Py_ssize_t excluded = self._slot_of(exclude_key)
        cdef cnp.ndarray a = _f32(phi, self.D)
        cdef const float* p = <const float*>_data(a)
        cdef Py_ssize_t n = 0, m = 0, i
        if self.size == 0:
            return np.empty(0, np.intp), np.empty(0, np.float32)
        if codes is not None:
            self._load_codes(codes)
        else:
            self._codes(p, self.cbuf)
        n = self._candidates(self.cbuf, excluded)
        m = self._rank(p, n) if n > 0 else 0
        slots = np.empty(m, np.intp)
        sims = np.empty(m, np.float32)
        for i in range(m):
            slots[i] = self.cand[i]
            sims[i] = self.csim[i]
        return slots, sims

    def codes(self, phi):
        """SimHash codes: ``(D,)`` -> int64 ``(T,)``, ``(B, D)`` -> ``(B, T)``."""
        cdef cnp.ndarray a
        cdef cnp.ndarray out
        cdef Py_ssize_t B, i, t
        if cnp.PyArray_Check(phi) and (<cnp.ndarray>phi).ndim == 1:
            a = _f32(phi, self.D)
            B = 1
            out = np.empty(self.T, dtype=np.int64)
        else:
            a = np.ascontiguousarray(phi, dtype=np.float32)
            if a.ndim == 0 or a.shape[a.ndim - 1] != self.D:
                raise ValueError(f"expected {self.D} features, "
                                 f"got shape {np.shape(phi)}")
            if a.ndim == 1:
                return self.codes(a)
            B = a.size // self.D
            out = np.empty(np.shape(a)[:a.ndim - 1] + (self.T,), dtype=np.int64)
        cdef const float* p = <const float*>_data(a)
        cdef int64_t* o = <int64_t*>_data(out)
        for i in range(B):
            self._codes(p + i * self.D, self.cbuf)
            for t in range(self.T):
                o[i * self.T + t] = self.cbuf[t]
        return out

    def set_center(self, center) -> None:
        """Centre SimHash on ``center`` (natural order, ``(D,)``) and rehash
        every stored entry."""
        cdef cnp.ndarray a = _f32(center, self.D)
        cdef const float* c = <const float*>_data(a)
        cdef Py_ssize_t k, r, slot, j, sd = self.sd
        for k in range(sd):
            self.fold_c[k] = 0
        for r in range(self.D // sd):
            for k in range(sd):
                self.fold_c[k] += self.fold_signs[r * sd + k] * c[r * sd + k]
        for k in range((<Py_ssize_t>self.T) << self.hbits):
            self.heads[k] = -1
        for slot in range(self.size):
            memset(self.xbuf, 0, self.D * sizeof(float))
            for j in range(self.n_live):
                self.xbuf[self.live_idx[j]] = self.live[slot * self.stride + j]
            if self.fullp[slot]:
                for j in range(self.n_dead):
                    self.xbuf[self.dead_idx[j]] = self.dead[slot * self.n_dead + j]
            self._codes(self.xbuf, self.ecode + slot * self.T)
            self._link(slot)
        self.centred = True

    # ------------------------------------------------------------------
    # inspection (tests, benchmarks)
    def stored_phi(self, slots):
        """phi of the given slots in natural order, float32 ``(k, D)``."""
        slots = np.asarray(slots, dtype=np.intp).reshape(-1)
        out = np.zeros((slots.shape[0], self.D), dtype=np.float32)
        out[:, self.live_index] = self.live_rows[slots]
        if self.n_dead:
            out[:, self.dead_index] = self.dead_rows[slots]
        return out

    def slot_codes(self, Py_ssize_t slot):
        """The stored SimHash codes of a slot, int64 ``(T,)``."""
        if not 0 <= slot < self.size:
            raise IndexError(slot)
        return np.array([self.ecode[slot * self.T + t] for t in range(self.T)],
                        dtype=np.int64)

    def bucket_items(self):
        """Every linked entry as ``(bin, slot)`` arrays, bin =
        ``(t << hash_bits) | code``, read by walking the lists."""
        bins, slots = [], []
        cdef Py_ssize_t h
        cdef int32_t e
        for h in range((<Py_ssize_t>self.T) << self.hbits):
            e = self.heads[h]
            while e >= 0:
                bins.append(((e % self.T) << self.b) | self.ecode[e])
                slots.append(e // self.T)
                e = self.enext[e]
        return np.array(bins, dtype=np.int64), np.array(slots, dtype=np.int64)

    def lru_order(self):
        """Stored slots from the least to the most recently used."""
        out = []
        cdef int32_t s = self.lru_tail
        while s >= 0:
            out.append(s)
            s = self.lru_prev[s]
        return out
