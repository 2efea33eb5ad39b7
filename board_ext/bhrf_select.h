/* The select of board_ext/bhrf.pyx: the position of the k-th set bit of a
   64-bit word, PDEP where it is fast, else broadword. */
#ifndef BHRF_SELECT_H
#define BHRF_SELECT_H
#include <stdint.h>
#ifdef __BMI2__
#include <immintrin.h>
#endif
/* Position of the k-th (from 0) set bit of x, k < popcount(x).
   Broadword select (Vigna 2008): bytes' running counts, then the bit
   within the byte by clearing the lowest set bits. */
static inline int bhrf_select64_bw(uint64_t x, int k) {
    const uint64_t L8 = 0x0101010101010101ULL, H8 = 0x8080808080808080ULL;
    uint64_t s = x - ((x & 0xAAAAAAAAAAAAAAAAULL) >> 1);
    s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
    s = ((s + (s >> 4)) & 0x0F0F0F0F0F0F0F0FULL) * L8;
    int place = __builtin_popcountll((((uint64_t)k * L8 | H8) - s) & H8) * 8;
    int rank = k - (int)(((s << 8) >> place) & 0xFF);
    unsigned byte = (unsigned)(x >> place) & 0xFF;
    while (rank-- > 0) byte &= byte - 1;
    return place + __builtin_ctz(byte);
}
#ifdef __BMI2__
/* PDEP where it is fast: AMD's family 17h (Zen 1 and 2) runs it in
   microcode, tens to hundreds of cycles growing with the set bits of
   x, slower there than the broadword select. */
static int bhrf_fast_pdep = -1;
static __attribute__((noinline, cold)) int bhrf_pdep_check(void) {
    unsigned a, b, c, d, family;
    __builtin_cpu_init();
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    family = ((a >> 8) & 15) + (((a >> 8) & 15) == 15 ? ((a >> 20) & 255) : 0);
    bhrf_fast_pdep = !(__builtin_cpu_is("amd") && family < 0x19);
    return bhrf_fast_pdep;
}
static inline int bhrf_select64(uint64_t x, int k) {
    if (bhrf_fast_pdep > 0)         /* set at import (bhrf_pdep_check) */
        return __builtin_ctzll(_pdep_u64((uint64_t)1 << k, x));
    return bhrf_select64_bw(x, k);
}
#else
static int bhrf_pdep_check(void) { return 0; }
static inline int bhrf_select64(uint64_t x, int k) { return bhrf_select64_bw(x, k); }
#endif
#endif
