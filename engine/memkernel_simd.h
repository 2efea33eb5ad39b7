/* The M-MCTS memory kernel's C: the SimHash projection (SSE4.2, AVX2+FMA
   and AVX-512F variants, chosen at run time), dot products, gathers and
   scatters.  Included by engine/memkernel.pyx (its only user), compiled
   into that one module. */
#ifndef GOMCTS_MEMKERNEL_SIMD_H
#define GOMCTS_MEMKERNEL_SIMD_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* SimHash projection: 2 AVX-512F, 1 AVX2+FMA, 0 SSE4.2; -1 until
   probed.  memk_simd_cap is what the CPU has. */
static int memk_simd = -1, memk_simd_cap = -1;

static int memk_simd_level(void) {
    if (memk_simd < 0) {
        __builtin_cpu_init();
        memk_simd_cap = __builtin_cpu_supports("avx512f") ? 2
            : (__builtin_cpu_supports("avx2")
               && __builtin_cpu_supports("fma")) ? 1 : 0;
        memk_simd = memk_simd_cap;
    }
    return memk_simd;
}

/* Use at most `level` (tests); a negative level restores the best. */
static void memk_limit_simd(int level) {
    memk_simd = -1;
    (void)memk_simd_level();
    if (level >= 0 && level < memk_simd_cap) memk_simd = level;
}

static inline float memk_hsum(__m128 v) {
    __m128 sh = _mm_movehdup_ps(v);
    __m128 s = _mm_add_ps(v, sh);
    sh = _mm_movehl_ps(sh, s);
    s = _mm_add_ss(s, sh);
    return _mm_cvtss_f32(s);
}

/* sum_i a[i] b[i] in float32 (16 lanes, fixed order).  If next is not
   NULL, prefetches next[0..n), one cache line per 16 floats: the row
   ranked after this one. */
#if defined(__AVX2__) && defined(__FMA__)
static inline float memk_dot(const float *a, const float *b, Py_ssize_t n,
                             const float *next) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0;
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (next) _mm_prefetch((const char *)(next + i), _MM_HINT_T0);
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    }
    __m256 s = _mm256_add_ps(s0, s1);
    float r = memk_hsum(_mm_add_ps(_mm256_castps256_ps128(s),
                                   _mm256_extractf128_ps(s, 1)));
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}
#else
static inline float memk_dot(const float *a, const float *b, Py_ssize_t n,
                             const float *next) {
    __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (next) _mm_prefetch((const char *)(next + i), _MM_HINT_T0);
        s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
        s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4)));
        s2 = _mm_add_ps(s2, _mm_mul_ps(_mm_loadu_ps(a + i + 8), _mm_loadu_ps(b + i + 8)));
        s3 = _mm_add_ps(s3, _mm_mul_ps(_mm_loadu_ps(a + i + 12), _mm_loadu_ps(b + i + 12)));
    }
    float r = memk_hsum(_mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}
#endif

/* sum_i x[i]^2 in float64 with 8 partial sums. */
static inline double memk_sumsq(const double *x, Py_ssize_t n) {
    __m128d s0 = _mm_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128d a = _mm_loadu_pd(x + i), b = _mm_loadu_pd(x + i + 2);
        __m128d c = _mm_loadu_pd(x + i + 4), d = _mm_loadu_pd(x + i + 6);
        s0 = _mm_add_pd(s0, _mm_mul_pd(a, a));
        s1 = _mm_add_pd(s1, _mm_mul_pd(b, b));
        s2 = _mm_add_pd(s2, _mm_mul_pd(c, c));
        s3 = _mm_add_pd(s3, _mm_mul_pd(d, d));
    }
    __m128d s = _mm_add_pd(_mm_add_pd(s0, s1), _mm_add_pd(s2, s3));
    double r = _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
    for (; i < n; i++) r += x[i] * x[i];
    return r;
}

/* f[k] = sum_r fs[r*sd + k] x[r*sd + k] - fc[k]: the signed fold of x
   (nrep * sd floats) minus the fold of the SimHash centre. */
static inline __attribute__((always_inline))
void memk_fold(float *restrict f, const float *restrict fc,
               const float *restrict fs, const float *restrict x,
               int sd, int nrep) {
    for (int k = 0; k < sd; k++) f[k] = -fc[k];
    for (int r = 0; r < nrep; r++) {
        const float *restrict s = fs + (size_t)r * sd;
        const float *restrict v = x + (size_t)r * sd;
        for (int k = 0; k < sd; k++) f[k] += s[k] * v[k];
    }
}

/* Fold x into f, then out[j] = sum_k P[j][k] f[k] for the nblk*64
   (zero-padded) hyperplanes, stored blocked:
   planes[(blk*sd + k)*64 + j'] = P[blk*64 + j'][k]. */
static void memk_project_sse(const float *planes, const float *fc,
                             const float *fs, const float *x, int sd,
                             int nrep, int nblk, float *f, float *out) {
    memk_fold(f, fc, fs, x, sd, nrep);
    for (int blk = 0; blk < nblk; blk++) {
        for (int h = 0; h < 64; h += 32) {
            const float *p = planes + (size_t)blk * sd * 64 + h;
            __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            __m128 a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            for (int k = 0; k < sd; k++, p += 64) {
                __m128 v = _mm_set1_ps(f[k]);
                a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(p), v));
                a1 = _mm_add_ps(a1, _mm_mul_ps(_mm_loadu_ps(p + 4), v));
                a2 = _mm_add_ps(a2, _mm_mul_ps(_mm_loadu_ps(p + 8), v));
                a3 = _mm_add_ps(a3, _mm_mul_ps(_mm_loadu_ps(p + 12), v));
                a4 = _mm_add_ps(a4, _mm_mul_ps(_mm_loadu_ps(p + 16), v));
                a5 = _mm_add_ps(a5, _mm_mul_ps(_mm_loadu_ps(p + 20), v));
                a6 = _mm_add_ps(a6, _mm_mul_ps(_mm_loadu_ps(p + 24), v));
                a7 = _mm_add_ps(a7, _mm_mul_ps(_mm_loadu_ps(p + 28), v));
            }
            float *o = out + blk * 64 + h;
            _mm_storeu_ps(o, a0); _mm_storeu_ps(o + 4, a1);
            _mm_storeu_ps(o + 8, a2); _mm_storeu_ps(o + 12, a3);
            _mm_storeu_ps(o + 16, a4); _mm_storeu_ps(o + 20, a5);
            _mm_storeu_ps(o + 24, a6); _mm_storeu_ps(o + 28, a7);
        }
    }
}

__attribute__((target("avx2,fma")))
static void memk_project_avx2(const float *planes, const float *fc,
                              const float *fs, const float *x, int sd,
                              int nrep, int nblk, float *f, float *out) {
    memk_fold(f, fc, fs, x, sd, nrep);
    for (int blk = 0; blk < nblk; blk++) {
        const float *p = planes + (size_t)blk * sd * 64;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        __m256 a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        for (int k = 0; k < sd; k++, p += 64) {
            __m256 v = _mm256_set1_ps(f[k]);
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p), v, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 8), v, a1);
            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 16), v, a2);
            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 24), v, a3);
            a4 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 32), v, a4);
            a5 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 40), v, a5);
            a6 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 48), v, a6);
            a7 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 56), v, a7);
        }
        float *o = out + blk * 64;
        _mm256_storeu_ps(o, a0); _mm256_storeu_ps(o + 8, a1);
        _mm256_storeu_ps(o + 16, a2); _mm256_storeu_ps(o + 24, a3);
        _mm256_storeu_ps(o + 32, a4); _mm256_storeu_ps(o + 40, a5);
        _mm256_storeu_ps(o + 48, a6); _mm256_storeu_ps(o + 56, a7);
    }
}

/* Two 64-plane blocks at a time, 4 zmm accumulators each (8 chains
   keep both FMA units busy); an odd last block alone. */
__attribute__((target("avx512f")))
static void memk_project_avx512(const float *planes, const float *fc,
                                const float *fs, const float *x, int sd,
                                int nrep, int nblk, float *f, float *out) {
    memk_fold(f, fc, fs, x, sd, nrep);
    for (int blk = 0; blk < nblk; blk += 2) {
        int pair = blk + 1 < nblk;
        const float *p = planes + (size_t)blk * sd * 64;
        const float *q = pair ? p + (size_t)sd * 64 : p;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        for (int k = 0; k < sd; k++, p += 64, q += 64) {
            __m512 v = _mm512_set1_ps(f[k]);
            a0 = _mm512_fmadd_ps(_mm512_loadu_ps(p), v, a0);
            a1 = _mm512_fmadd_ps(_mm512_loadu_ps(p + 16), v, a1);
            a2 = _mm512_fmadd_ps(_mm512_loadu_ps(p + 32), v, a2);
            a3 = _mm512_fmadd_ps(_mm512_loadu_ps(p + 48), v, a3);
            if (pair) {
                b0 = _mm512_fmadd_ps(_mm512_loadu_ps(q), v, b0);
                b1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + 16), v, b1);
                b2 = _mm512_fmadd_ps(_mm512_loadu_ps(q + 32), v, b2);
                b3 = _mm512_fmadd_ps(_mm512_loadu_ps(q + 48), v, b3);
            }
        }
        float *o = out + blk * 64;
        _mm512_storeu_ps(o, a0); _mm512_storeu_ps(o + 16, a1);
        _mm512_storeu_ps(o + 32, a2); _mm512_storeu_ps(o + 48, a3);
        if (pair) {
            _mm512_storeu_ps(o + 64, b0); _mm512_storeu_ps(o + 80, b1);
            _mm512_storeu_ps(o + 96, b2); _mm512_storeu_ps(o + 112, b3);
        }
    }
}

static inline void memk_project(const float *planes, const float *fc,
                                const float *fs, const float *x, int sd,
                                int nrep, int nblk, float *f, float *out) {
    int level = memk_simd_level();
    if (level == 2)
        memk_project_avx512(planes, fc, fs, x, sd, nrep, nblk, f, out);
    else if (level == 1)
        memk_project_avx2(planes, fc, fs, x, sd, nrep, nblk, f, out);
    else
        memk_project_sse(planes, fc, fs, x, sd, nrep, nblk, f, out);
}

/* code of table t: bit i set iff proj[t*b + i] > 0. */
static inline void memk_bits(const float *restrict proj, int T, int b,
                             uint32_t *restrict out) {
    for (int t = 0; t < T; t++) {
        uint32_t c = 0;
        for (int i = 0; i < b; i++)
            c |= (uint32_t)(proj[t * b + i] > 0.0f) << i;
        out[t] = c;
    }
}

/* out[j] = src[idx[j]]. */
static inline void memk_gather(float *restrict out, const float *restrict src,
                               const int32_t *restrict idx, Py_ssize_t n) {
    for (Py_ssize_t j = 0; j < n; j++) out[j] = src[idx[j]];
}

/* sum_i x[i]^2 in float32, and in *any whether x[i] != 0 (or NaN) for
   some i with mask[i] = 0x7fffffff (the others have mask 0): one pass,
   an OR over the bits, no branch per element. */
#if defined(__AVX2__) && defined(__FMA__)
static inline float memk_sumsq_masked(const float *x, const uint32_t *mask,
                                      Py_ssize_t n, int *any) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0;
    __m256i acc = _mm256_setzero_si256();
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        s0 = _mm256_fmadd_ps(a, a, s0);
        s1 = _mm256_fmadd_ps(b, b, s1);
        acc = _mm256_or_si256(acc, _mm256_and_si256(_mm256_castps_si256(a),
            _mm256_loadu_si256((const __m256i *)(mask + i))));
        acc = _mm256_or_si256(acc, _mm256_and_si256(_mm256_castps_si256(b),
            _mm256_loadu_si256((const __m256i *)(mask + i + 8))));
    }
    __m256 s = _mm256_add_ps(s0, s1);
    float r = memk_hsum(_mm_add_ps(_mm256_castps256_ps128(s),
                                   _mm256_extractf128_ps(s, 1)));
    int found = !_mm256_testz_si256(acc, acc);
#else
static inline float memk_sumsq_masked(const float *x, const uint32_t *mask,
                                      Py_ssize_t n, int *any) {
    __m128 s0 = _mm_setzero_ps(), s1 = s0;
    __m128i acc = _mm_setzero_si128();
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
        s0 = _mm_add_ps(s0, _mm_mul_ps(a, a));
        s1 = _mm_add_ps(s1, _mm_mul_ps(b, b));
        acc = _mm_or_si128(acc, _mm_and_si128(_mm_castps_si128(a),
            _mm_loadu_si128((const __m128i *)(mask + i))));
        acc = _mm_or_si128(acc, _mm_and_si128(_mm_castps_si128(b),
            _mm_loadu_si128((const __m128i *)(mask + i + 4))));
    }
    float r = memk_hsum(_mm_add_ps(s0, s1));
    int found = !_mm_testz_si128(acc, acc);
#endif
    for (; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, x + i, sizeof bits);
        found |= (bits & mask[i]) != 0;
        r += x[i] * x[i];
    }
    *any = found;
    return r;
}

/* acc[bk[j]] += sg[j] x[j] in float64, j ascending. */
static inline void memk_scatter_f32(double *acc, const Py_ssize_t *bk,
                                    const double *sg, const float *x,
                                    Py_ssize_t n) {
    for (Py_ssize_t j = 0; j < n; j++) acc[bk[j]] += sg[j] * (double)x[j];
}

static inline void memk_scatter_f64(double *acc, const Py_ssize_t *bk,
                                    const double *sg, const double *x,
                                    Py_ssize_t n) {
    for (Py_ssize_t j = 0; j < n; j++) acc[bk[j]] += sg[j] * x[j];
}

/* out[j] = (float)(acc[j] * inv). */
static inline void memk_scale_to_f32(float *restrict out,
                                     const double *restrict acc, double inv,
                                     Py_ssize_t n) {
    for (Py_ssize_t j = 0; j < n; j++) out[j] = (float)(acc[j] * inv);
}

/* out[j] = src[idx[j]] with streaming stores (a replaced row is not
   read first); out 16-byte aligned. */
static inline void memk_gather_nt(float *restrict out, const float *restrict src,
                                  const int32_t *restrict idx, Py_ssize_t n) {
    Py_ssize_t j = 0;
    for (; j + 4 <= n; j += 4)
        _mm_stream_ps(out + j, _mm_setr_ps(src[idx[j]], src[idx[j + 1]],
                                           src[idx[j + 2]], src[idx[j + 3]]));
    for (; j < n; j++) out[j] = src[idx[j]];
    _mm_sfence();
}
static inline void memk_prefetch(const void *p) {
    _mm_prefetch((const char *)p, _MM_HINT_T0);
}

#endif  /* GOMCTS_MEMKERNEL_SIMD_H */
