#include "kernels.h"
#include "simd.h"
#include "half.h"
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define KINDRED_X86 1
#endif

// ---------- portable fallbacks ----------

static void dots_f32_scalar(const float *q, const float *rows, size_t n, size_t d, float *out) {
    for (size_t i = 0; i < n; i++) {
        const float *r = rows + i * d;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t j = 0;
        for (; j + 4 <= d; j += 4) {
            s0 += q[j] * r[j]; s1 += q[j + 1] * r[j + 1]; s2 += q[j + 2] * r[j + 2]; s3 += q[j + 3] * r[j + 3];
        }
        for (; j < d; j++) s0 += q[j] * r[j];
        out[i] = (s0 + s1) + (s2 + s3);
    }
}

static void dots_f16_scalar(const float *q, const uint16_t *rows, size_t n, size_t d, float *out) {
    for (size_t i = 0; i < n; i++) {
        const uint16_t *r = rows + i * d;
        float s = 0;
        for (size_t j = 0; j < d; j++) s += q[j] * half_to_float(r[j]);
        out[i] = s;
    }
}

#ifdef KINDRED_X86

// Four rows at a time, two accumulators per row; d must be a multiple of 16.
__attribute__((target("avx2,fma"))) static void dots_f32_avx2(const float *q, const float *rows, size_t n, size_t d, float *out) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *r0 = rows + i * d, *r1 = r0 + d, *r2 = r1 + d, *r3 = r2 + d;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
        for (size_t j = 0; j < d; j += 16) {
            __m256 x = _mm256_loadu_ps(q + j), y = _mm256_loadu_ps(q + j + 8);
            a0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r0 + j), a0); b0 = _mm256_fmadd_ps(y, _mm256_loadu_ps(r0 + j + 8), b0);
            a1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r1 + j), a1); b1 = _mm256_fmadd_ps(y, _mm256_loadu_ps(r1 + j + 8), b1);
            a2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r2 + j), a2); b2 = _mm256_fmadd_ps(y, _mm256_loadu_ps(r2 + j + 8), b2);
            a3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r3 + j), a3); b3 = _mm256_fmadd_ps(y, _mm256_loadu_ps(r3 + j + 8), b3);
        }
        out[i] = kindred_hsum8(_mm256_add_ps(a0, b0));
        out[i + 1] = kindred_hsum8(_mm256_add_ps(a1, b1));
        out[i + 2] = kindred_hsum8(_mm256_add_ps(a2, b2));
        out[i + 3] = kindred_hsum8(_mm256_add_ps(a3, b3));
    }
    for (; i < n; i++) {
        const float *r = rows + i * d;
        __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
        for (size_t j = 0; j < d; j += 16) {
            a = _mm256_fmadd_ps(_mm256_loadu_ps(q + j), _mm256_loadu_ps(r + j), a);
            b = _mm256_fmadd_ps(_mm256_loadu_ps(q + j + 8), _mm256_loadu_ps(r + j + 8), b);
        }
        out[i] = kindred_hsum8(_mm256_add_ps(a, b));
    }
}

__attribute__((target("avx2,fma,f16c"))) static void dots_f16_avx2(const float *q, const uint16_t *rows, size_t n, size_t d, float *out) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint16_t *r0 = rows + i * d, *r1 = r0 + d, *r2 = r1 + d, *r3 = r2 + d;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
        for (size_t j = 0; j < d; j += 16) {
            __m256 x = _mm256_loadu_ps(q + j), y = _mm256_loadu_ps(q + j + 8);
#define ROW(r, a, b)                                                                 \
    {                                                                                \
        __m256i h = _mm256_loadu_si256((const __m256i *)(r + j));                    \
        a = _mm256_fmadd_ps(x, _mm256_cvtph_ps(_mm256_castsi256_si128(h)), a);      \
        b = _mm256_fmadd_ps(y, _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1)), b); \
    }
            ROW(r0, a0, b0) ROW(r1, a1, b1) ROW(r2, a2, b2) ROW(r3, a3, b3)
#undef ROW
        }
        out[i] = kindred_hsum8(_mm256_add_ps(a0, b0));
        out[i + 1] = kindred_hsum8(_mm256_add_ps(a1, b1));
        out[i + 2] = kindred_hsum8(_mm256_add_ps(a2, b2));
        out[i + 3] = kindred_hsum8(_mm256_add_ps(a3, b3));
    }
    for (; i < n; i++) {
        const uint16_t *r = rows + i * d;
        __m256 a = _mm256_setzero_ps();
        for (size_t j = 0; j < d; j += 8) {
            a = _mm256_fmadd_ps(_mm256_loadu_ps(q + j), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(r + j))), a);
        }
        out[i] = kindred_hsum8(a);
    }
}

KINDRED_CPU_CHECK(have_avx2, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c"))
#endif

int kindred_kernels_vectorized(void) {
#ifdef KINDRED_X86
    return have_avx2();
#else
    return 0;
#endif
}

void kindred_dots_f32(const float *q, const float *rows, size_t n, size_t d, float *out) {
#ifdef KINDRED_X86
    if (d % 16 == 0 && have_avx2()) { dots_f32_avx2(q, rows, n, d, out); return; }
#endif
    dots_f32_scalar(q, rows, n, d, out);
}

void kindred_dots_f16(const float *q, const uint16_t *rows, size_t n, size_t d, float *out) {
#ifdef KINDRED_X86
    if (d % 16 == 0 && have_avx2()) { dots_f16_avx2(q, rows, n, d, out); return; }
#endif
    dots_f16_scalar(q, rows, n, d, out);
}

void kindred_f32_to_f16(const float *src, uint16_t *dst, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = float_to_half(src[i]);
}
