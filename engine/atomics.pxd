# Atomic operations for the threaded search (engine/walk.pyx threads on one
# tree): GCC/Clang builtins.  Floats and doubles are added with a
# compare-and-swap loop on their bits (the builtins add integers only).
from libc.stdint cimport int32_t, uint8_t

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    static inline void atomic_add_f(float* p, float v) {
        uint32_t old = __atomic_load_n((uint32_t*)p, __ATOMIC_RELAXED), nw;
        float f;
        do { memcpy(&f, &old, 4); f += v; memcpy(&nw, &f, 4); }
        while (!__atomic_compare_exchange_n((uint32_t*)p, &old, nw, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
    static inline void atomic_add_d(double* p, double v) {
        uint64_t old = __atomic_load_n((uint64_t*)p, __ATOMIC_RELAXED), nw;
        double f;
        do { memcpy(&f, &old, 8); f += v; memcpy(&nw, &f, 8); }
        while (!__atomic_compare_exchange_n((uint64_t*)p, &old, nw, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
    static inline int atomic_fetch_add_i(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
    static inline long atomic_fetch_add_l(long* p, long v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
    static inline uint8_t atomic_fetch_or_u8(uint8_t* p, uint8_t v) { return __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL); }
    static inline uint8_t atomic_fetch_and_u8(uint8_t* p, uint8_t v) { return __atomic_fetch_and(p, v, __ATOMIC_ACQ_REL); }
    static inline int32_t atomic_load_acq_i32(const int32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static inline void atomic_store_rel_i32(int32_t* p, int32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    static inline int atomic_cas_i32(int32_t* p, int32_t expected, int32_t desired) {
        return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    }
    static inline void spin_lock(int* p) {
        while (__atomic_exchange_n(p, 1, __ATOMIC_ACQUIRE)) { while (__atomic_load_n(p, __ATOMIC_RELAXED)) { } }
    }
    static inline void spin_unlock(int* p) { __atomic_store_n(p, 0, __ATOMIC_RELEASE); }
    """
    void atomic_add_f(float* p, float v) nogil
    void atomic_add_d(double* p, double v) nogil
    int atomic_fetch_add_i(int* p, int v) nogil
    long atomic_fetch_add_l(long* p, long v) nogil
    uint8_t atomic_fetch_or_u8(uint8_t* p, uint8_t v) nogil
    uint8_t atomic_fetch_and_u8(uint8_t* p, uint8_t v) nogil
    int32_t atomic_load_acq_i32(const int32_t* p) nogil
    void atomic_store_rel_i32(int32_t* p, int32_t v) nogil
    bint atomic_cas_i32(int32_t* p, int32_t expected, int32_t desired) nogil
    void spin_lock(int* p) nogil
    void spin_unlock(int* p) nogil
