#include "kernels.h"

// Small matrix products for the encoder's forward pass on short inputs (a search query), computed
// on the calling thread: no BLAS worker threads are woken for a product of a few rows.

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2,fma"))) static inline float hsum8(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    __m128 sh = _mm_movehdup_ps(lo);
    __m128 s = _mm_add_ps(lo, sh);
    sh = _mm_movehl_ps(sh, s);
    s = _mm_add_ss(s, sh);
    return _mm_cvtss_f32(s);
}

// Four rows of w at a time against every row of x; k a multiple of 8.
__attribute__((target("avx2,fma"))) static void gemm_nt_avx2(const float *x, size_t ldx, const float *w, size_t ldw, float *y,
                                                            size_t ldy, size_t m, size_t n, size_t k, float alpha, int accumulate) {
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *w0 = w + j * ldw, *w1 = w0 + ldw, *w2 = w1 + ldw, *w3 = w2 + ldw;
        for (size_t i = 0; i < m; i++) {
            const float *xi = x + i * ldx;
            __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
            for (size_t p = 0; p < k; p += 8) {
                __m256 v = _mm256_loadu_ps(xi + p);
                a0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w0 + p), a0);
                a1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w1 + p), a1);
                a2 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w2 + p), a2);
                a3 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w3 + p), a3);
            }
            float *yi = y + i * ldy + j;
            float r0 = alpha * hsum8(a0), r1 = alpha * hsum8(a1), r2 = alpha * hsum8(a2), r3 = alpha * hsum8(a3);
            if (accumulate) { yi[0] += r0; yi[1] += r1; yi[2] += r2; yi[3] += r3; }
            else { yi[0] = r0; yi[1] = r1; yi[2] = r2; yi[3] = r3; }
        }
    }
    for (; j < n; j++) {
        const float *wj = w + j * ldw;
        for (size_t i = 0; i < m; i++) {
            const float *xi = x + i * ldx;
            __m256 a = _mm256_setzero_ps();
            for (size_t p = 0; p < k; p += 8) a = _mm256_fmadd_ps(_mm256_loadu_ps(xi + p), _mm256_loadu_ps(wj + p), a);
            float r = alpha * hsum8(a);
            if (accumulate) y[i * ldy + j] += r; else y[i * ldy + j] = r;
        }
    }
}

// One row of y at a time, 64 columns at a time held in registers, then 8 at a time, then the rest.
__attribute__((target("avx2,fma"))) static void gemm_nn_avx2(const float *a, size_t lda, const float *b, size_t ldb, float *y,
                                                            size_t ldy, size_t m, size_t n, size_t k, float alpha) {
    __m256 scale = _mm256_set1_ps(alpha);
    for (size_t i = 0; i < m; i++) {
        const float *ai = a + i * lda;
        float *yi = y + i * ldy;
        size_t j = 0;
        for (; j + 8 <= n;) {
            size_t lanes = (n - j) / 8;
            if (lanes > 8) lanes = 8;
            __m256 acc[8];
            for (size_t l = 0; l < lanes; l++) acc[l] = _mm256_setzero_ps();
            for (size_t p = 0; p < k; p++) {
                __m256 s = _mm256_broadcast_ss(ai + p);
                const float *bp = b + p * ldb + j;
                for (size_t l = 0; l < lanes; l++) acc[l] = _mm256_fmadd_ps(s, _mm256_loadu_ps(bp + 8 * l), acc[l]);
            }
            for (size_t l = 0; l < lanes; l++) _mm256_storeu_ps(yi + j + 8 * l, _mm256_mul_ps(scale, acc[l]));
            j += 8 * lanes;
        }
        for (; j < n; j++) {
            float s = 0;
            for (size_t p = 0; p < k; p++) s += ai[p] * b[p * ldb + j];
            yi[j] = alpha * s;
        }
    }
}

static int matmul_avx2(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return cached;
}
#endif

void kindred_gemm_nt(const float *x, size_t ldx, const float *w, size_t ldw, float *y, size_t ldy, size_t m, size_t n, size_t k,
                     float alpha, int accumulate) {
#if defined(__x86_64__)
    if (k % 8 == 0 && matmul_avx2()) { gemm_nt_avx2(x, ldx, w, ldw, y, ldy, m, n, k, alpha, accumulate); return; }
#endif
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            float s = 0;
            for (size_t p = 0; p < k; p++) s += x[i * ldx + p] * w[j * ldw + p];
            if (accumulate) y[i * ldy + j] += alpha * s; else y[i * ldy + j] = alpha * s;
        }
    }
}

void kindred_gemm_nn(const float *a, size_t lda, const float *b, size_t ldb, float *y, size_t ldy, size_t m, size_t n, size_t k,
                     float alpha) {
#if defined(__x86_64__)
    if (matmul_avx2()) { gemm_nn_avx2(a, lda, b, ldb, y, ldy, m, n, k, alpha); return; }
#endif
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) y[i * ldy + j] = 0;
        for (size_t p = 0; p < k; p++) {
            float s = a[i * lda + p];
            for (size_t j = 0; j < n; j++) y[i * ldy + j] += s * b[p * ldb + j];
        }
        for (size_t j = 0; j < n; j++) y[i * ldy + j] *= alpha;
    }
}
