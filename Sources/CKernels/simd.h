// Helpers the kernels' x86 code shares; included by the .c files only (not part of the module's API).
#ifndef KINDRED_SIMD_H
#define KINDRED_SIMD_H

#if defined(__x86_64__)
#include <immintrin.h>

// Defines `static int name(void)`: 1 when the CPU passes `test` (`__builtin_cpu_supports` calls),
// asked once (the answer cannot change while the process runs).
#define KINDRED_CPU_CHECK(name, test)        \
    static int name(void) {                  \
        static int cached = -1;              \
        if (cached < 0) {                    \
            __builtin_cpu_init();            \
            cached = (test) ? 1 : 0;         \
        }                                    \
        return cached;                       \
    }

// The first `left` lanes of 16 (all of them from 16 on).
static inline __mmask16 kindred_tail_mask(size_t left) { return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1); }

// The sum of the eight floats of v.
__attribute__((target("avx2,fma"))) static inline float kindred_hsum8(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    __m128 sh = _mm_movehdup_ps(lo);
    __m128 s = _mm_add_ps(lo, sh);
    sh = _mm_movehl_ps(sh, s);
    s = _mm_add_ss(s, sh);
    return _mm_cvtss_f32(s);
}
#endif

#endif
