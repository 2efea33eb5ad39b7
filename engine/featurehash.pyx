# cython: language_level=3
"""Feature hashing of the M-MCTS value memory: the net's Conv7 vector zeta
(L values) to phi in R^D (engine/memory.py defines the terms and is the
only user of this module).  Sums in float64 in the order of j, with the C
kernels of engine/memkernel_simd.h; imports numpy only."""
from libc.string cimport memset
from libc.math cimport sqrt
cimport numpy as cnp
import numpy as np

cnp.import_array()

cdef extern from "memkernel_simd.h":     # the C kernels (engine/memkernel_simd.h)
    double memk_sumsq(const double* x, Py_ssize_t n) noexcept nogil
    void memk_scatter_f32(double* acc, const Py_ssize_t* bk, const double* sg,
                          const float* x, Py_ssize_t n) noexcept nogil
    void memk_scatter_f64(double* acc, const Py_ssize_t* bk, const double* sg,
                          const double* x, Py_ssize_t n) noexcept nogil
    void memk_scale_to_f32(float* out, const double* acc, double inv,
                           Py_ssize_t n) noexcept nogil


cdef class FeatureHash:
    """Feature hashing ``out[k] = sum_{j: h(j) = k} xi(j) x[j]``, each row
    L2-normalised (zero rows stay zero); sums in float64 in the order of j.

    Args:
        buckets: ``(L,)`` ints, ``h(j)`` in ``[0, D)``.
        signs: ``(L,)`` floats, ``xi(j)`` in ``{-1, +1}``.
        D: output dimension.
    """
    cdef readonly int in_dim, D
    cdef object _keep
    cdef const Py_ssize_t* bk
    cdef const double* sg
    cdef double* acc

    def __init__(self, buckets, signs, int D):
        bk = np.ascontiguousarray(buckets, dtype=np.intp)
        sg = np.ascontiguousarray(signs, dtype=np.float64)
        if bk.ndim != 1 or sg.shape != bk.shape or D < 1:
            raise ValueError("FeatureHash: buckets and signs must be (L,)")
        if bk.shape[0] and (bk.min() < 0 or bk.max() >= D):
            raise ValueError("FeatureHash: buckets must lie in [0, D)")
        acc = np.zeros(D, dtype=np.float64)
        self._keep = (bk, sg, acc)
        self.in_dim = bk.shape[0]
        self.D = D
        self.bk = <const Py_ssize_t*>cnp.PyArray_DATA(<cnp.ndarray>bk)
        self.sg = <const double*>cnp.PyArray_DATA(<cnp.ndarray>sg)
        self.acc = <double*>cnp.PyArray_DATA(<cnp.ndarray>acc)

    def __call__(self, x):
        """Hash ``(L,)`` -> ``(D,)`` or ``(B, ...)`` with ``prod(...) = L``
        -> ``(B, D)``, float32.  float32 and float64 input is read as is,
        other dtypes are converted to float64."""
        cdef cnp.ndarray xa = x if cnp.PyArray_Check(x) else np.asarray(x)
        cdef int typ = cnp.PyArray_TYPE(xa)
        if typ != cnp.NPY_FLOAT32 and typ != cnp.NPY_FLOAT64:
            xa = xa.astype(np.float64)
            typ = cnp.NPY_FLOAT64
        cdef bint single = xa.ndim == 1
        cdef Py_ssize_t B, L = self.in_dim, D = self.D, i
        if single:
            B = 1
            ok = xa.shape[0] == L
        else:
            B = xa.shape[0] if xa.ndim else 0
            ok = xa.ndim >= 2 and int(np.prod(np.shape(x)[1:])) == L
        if not ok:
            raise ValueError(f"FeatureHasher expects {L} features, "
                             f"got shape {np.shape(x)}")
        if not cnp.PyArray_IS_C_CONTIGUOUS(xa):
            xa = np.ascontiguousarray(xa)
        cdef cnp.ndarray out
        if single:
            out = np.empty(D, dtype=np.float32)
        else:
            out = np.empty((B, D), dtype=np.float32)
        cdef float* op = <float*>cnp.PyArray_DATA(out)
        cdef const float* xf = <const float*>cnp.PyArray_DATA(xa)
        cdef const double* xd = <const double*>cnp.PyArray_DATA(xa)
        cdef double norm
        for i in range(B):
            memset(self.acc, 0, D * sizeof(double))
            if typ == cnp.NPY_FLOAT32:
                memk_scatter_f32(self.acc, self.bk, self.sg, xf + i * L, L)
            else:
                memk_scatter_f64(self.acc, self.bk, self.sg, xd + i * L, L)
            norm = sqrt(memk_sumsq(self.acc, D))
            memk_scale_to_f32(op + i * D, self.acc,
                              1.0 / norm if norm > 0 else 1.0, D)
        return out
