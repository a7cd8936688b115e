#include "kernels.h"
#include "simd.h"

// Small matrix products for the encoder's forward pass on short inputs (a search query), computed
// on the calling thread: no BLAS worker threads are woken for a product of a few rows.

#if defined(__x86_64__)
#include <immintrin.h>

// y[i, j..j+3] from the four accumulators of row i (alpha, accumulate as in kindred_gemm_nt).
__attribute__((target("avx2,fma"))) static inline void store4(float *yi, __m256 a0, __m256 a1, __m256 a2, __m256 a3, float alpha,
                                                             int accumulate) {
    float r0 = alpha * kindred_hsum8(a0), r1 = alpha * kindred_hsum8(a1), r2 = alpha * kindred_hsum8(a2), r3 = alpha * kindred_hsum8(a3);
    if (accumulate) { yi[0] += r0; yi[1] += r1; yi[2] += r2; yi[3] += r3; }
    else { yi[0] = r0; yi[1] = r1; yi[2] = r2; yi[3] = r3; }
}

// Four rows of w against three rows of x at a time (twelve accumulators, so each load of w serves
// three products), then the last rows of x one at a time; k a multiple of 8. Every y[i, j] is summed
// in the same order whichever block computes it, so the split never changes a result.
__attribute__((target("avx2,fma"))) static void gemm_nt_avx2(const float *x, size_t ldx, const float *w, size_t ldw, float *y,
                                                            size_t ldy, size_t m, size_t n, size_t k, float alpha, int accumulate) {
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *w0 = w + j * ldw, *w1 = w0 + ldw, *w2 = w1 + ldw, *w3 = w2 + ldw;
        size_t i = 0;
        for (; i + 3 <= m; i += 3) {
            const float *xa = x + i * ldx, *xb = xa + ldx, *xc = xb + ldx;
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            __m256 b0 = a0, b1 = a0, b2 = a0, b3 = a0, c0 = a0, c1 = a0, c2 = a0, c3 = a0;
            for (size_t p = 0; p < k; p += 8) {
                __m256 u0 = _mm256_loadu_ps(w0 + p), u1 = _mm256_loadu_ps(w1 + p);
                __m256 u2 = _mm256_loadu_ps(w2 + p), u3 = _mm256_loadu_ps(w3 + p);
                __m256 v = _mm256_loadu_ps(xa + p);
                a0 = _mm256_fmadd_ps(v, u0, a0); a1 = _mm256_fmadd_ps(v, u1, a1);
                a2 = _mm256_fmadd_ps(v, u2, a2); a3 = _mm256_fmadd_ps(v, u3, a3);
                v = _mm256_loadu_ps(xb + p);
                b0 = _mm256_fmadd_ps(v, u0, b0); b1 = _mm256_fmadd_ps(v, u1, b1);
                b2 = _mm256_fmadd_ps(v, u2, b2); b3 = _mm256_fmadd_ps(v, u3, b3);
                v = _mm256_loadu_ps(xc + p);
                c0 = _mm256_fmadd_ps(v, u0, c0); c1 = _mm256_fmadd_ps(v, u1, c1);
                c2 = _mm256_fmadd_ps(v, u2, c2); c3 = _mm256_fmadd_ps(v, u3, c3);
            }
            store4(y + i * ldy + j, a0, a1, a2, a3, alpha, accumulate);
            store4(y + (i + 1) * ldy + j, b0, b1, b2, b3, alpha, accumulate);
            store4(y + (i + 2) * ldy + j, c0, c1, c2, c3, alpha, accumulate);
        }
        for (; i < m; i++) {
            const float *xi = x + i * ldx;
            __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
            for (size_t p = 0; p < k; p += 8) {
                __m256 v = _mm256_loadu_ps(xi + p);
                a0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w0 + p), a0);
                a1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w1 + p), a1);
                a2 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w2 + p), a2);
                a3 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w3 + p), a3);
            }
            store4(y + i * ldy + j, a0, a1, a2, a3, alpha, accumulate);
        }
    }
    for (; j < n; j++) {
        const float *wj = w + j * ldw;
        for (size_t i = 0; i < m; i++) {
            const float *xi = x + i * ldx;
            __m256 a = _mm256_setzero_ps();
            for (size_t p = 0; p < k; p += 8) a = _mm256_fmadd_ps(_mm256_loadu_ps(xi + p), _mm256_loadu_ps(wj + p), a);
            float r = alpha * kindred_hsum8(a);
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

// AVX-512: blocks of R ≤ 12 rows × 32 columns (24 accumulators in registers: the longer the chains
// in flight, the closer the products come to the core's two multiply-adds a cycle), the last columns
// of a row masked. Each y[i, j] is the same chain of fused multiply-adds over p in order, then times
// alpha, as in `gemm_nn_avx2`, so both give the same bits.
#define AVX512 __attribute__((target("avx512f")))
AVX512 static inline __attribute__((always_inline)) void gemm_nn_block(const float *a, size_t lda, const float *b, size_t ldb, float *y,
                                                                      size_t ldy, size_t k, __m512 scale, __mmask16 m0, __mmask16 m1,
                                                                      const int rows) {
    __m512 acc0[12], acc1[12];
    _Pragma("clang loop unroll(full)") for (int r = 0; r < rows; r++) { acc0[r] = _mm512_setzero_ps(); acc1[r] = _mm512_setzero_ps(); }
    for (size_t p = 0; p < k; p++) {
        __m512 b0 = _mm512_maskz_loadu_ps(m0, b + p * ldb), b1 = _mm512_maskz_loadu_ps(m1, b + p * ldb + 16);
        _Pragma("clang loop unroll(full)") for (int r = 0; r < rows; r++) {
            __m512 s = _mm512_set1_ps(a[r * lda + p]);
            acc0[r] = _mm512_fmadd_ps(s, b0, acc0[r]);
            acc1[r] = _mm512_fmadd_ps(s, b1, acc1[r]);
        }
    }
    _Pragma("clang loop unroll(full)") for (int r = 0; r < rows; r++) {
        _mm512_mask_storeu_ps(y + r * ldy, m0, _mm512_mul_ps(scale, acc0[r]));
        _mm512_mask_storeu_ps(y + r * ldy + 16, m1, _mm512_mul_ps(scale, acc1[r]));
    }
}

// Blocks of R ≤ 12 rows × 16 columns (the last columns of a row, when fewer than 17 are left): twelve
// accumulators, each the same chain as in `gemm_nn_block`.
AVX512 static inline __attribute__((always_inline)) void gemm_nn_narrow(const float *a, size_t lda, const float *b, size_t ldb, float *y,
                                                                       size_t ldy, size_t k, __m512 scale, __mmask16 m0, const int rows) {
    __m512 acc[12];
    _Pragma("clang loop unroll(full)") for (int r = 0; r < rows; r++) acc[r] = _mm512_setzero_ps();
    for (size_t p = 0; p < k; p++) {
        __m512 b0 = _mm512_maskz_loadu_ps(m0, b + p * ldb);
        _Pragma("clang loop unroll(full)") for (int r = 0; r < rows; r++) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + p]), b0, acc[r]);
    }
    _Pragma("clang loop unroll(full)") for (int r = 0; r < rows; r++) _mm512_mask_storeu_ps(y + r * ldy, m0, _mm512_mul_ps(scale, acc[r]));
}

AVX512 static void gemm_nn_avx512(const float *a, size_t lda, const float *b, size_t ldb, float *y, size_t ldy, size_t m, size_t n,
                                  size_t k, float alpha) {
    __m512 scale = _mm512_set1_ps(alpha);
    size_t j = 0;
    for (; j + 16 < n; j += 32) {
        size_t left = n - j;
        __mmask16 m0 = (__mmask16)0xFFFF;
        __mmask16 m1 = kindred_tail_mask(left - 16);
        size_t i = 0;
        for (; i + 12 <= m; i += 12) gemm_nn_block(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, m1, 12);
        if (m - i >= 8) { gemm_nn_block(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, m1, 8); i += 8; }
        if (m - i >= 4) { gemm_nn_block(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, m1, 4); i += 4; }
        if (m - i >= 2) { gemm_nn_block(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, m1, 2); i += 2; }
        if (m - i >= 1) gemm_nn_block(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, m1, 1);
    }
    if (j < n) {
        __mmask16 m0 = kindred_tail_mask(n - j);
        size_t i = 0;
        for (; i + 12 <= m; i += 12) gemm_nn_narrow(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, 12);
        for (; i + 4 <= m; i += 4) gemm_nn_narrow(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, 4);
        for (; i < m; i++) gemm_nn_narrow(a + i * lda, lda, b + j, ldb, y + i * ldy + j, ldy, k, scale, m0, 1);
    }
}

KINDRED_CPU_CHECK(matmul_avx512, __builtin_cpu_supports("avx512f"))

KINDRED_CPU_CHECK(matmul_avx2, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
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
    if (matmul_avx512()) { gemm_nn_avx512(a, lda, b, ldb, y, ldy, m, n, k, alpha); return; }
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
