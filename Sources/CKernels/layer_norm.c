#include "kernels.h"
#include "simd.h"
#include <math.h>

// LayerNorm of the encoder's rows: (x − mean) / √(var + eps) · γ + β, variance biased (over n).
// Separate IEEE operations only; both sums run in sixteen lanes (lane l takes x[l], x[l + 16], … in
// order, the tail's values in the lanes they fall in), then the lanes in order: the AVX-512 path and
// the plain C reference give the same bits.
#pragma STDC FP_CONTRACT OFF
#pragma clang fp contract(off)

static float lanes_total(const float *lane) {
    float s = 0;
    for (int l = 0; l < 16; l++) s += lane[l];
    return s;
}

static void row_plain(float *x, size_t n, const float *gamma, const float *beta, float eps) {
    float lane[16] = {0};
    for (size_t c = 0; c < n; c++) lane[c % 16] += x[c];
    float mean = lanes_total(lane) / (float)n;
    for (int l = 0; l < 16; l++) lane[l] = 0;
    for (size_t c = 0; c < n; c++) {
        float d = x[c] - mean;
        lane[c % 16] += d * d;
    }
    float inv = 1 / sqrtf(lanes_total(lane) / (float)n + eps);
    for (size_t c = 0; c < n; c++) x[c] = (x[c] - mean) * inv * gamma[c] + beta[c];
}

void kindred_layer_norm_reference(float *x, size_t rows, size_t n, const float *gamma, const float *beta, float eps) {
    for (size_t r = 0; r < rows; r++) row_plain(x + r * n, n, gamma, beta, eps);
}

#if defined(__x86_64__)
#include <immintrin.h>
#define AVX512 __attribute__((target("avx512f")))

AVX512 static void layer_norm_avx512(float *x, size_t rows, size_t n, const float *gamma, const float *beta, float eps) {
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * n;
        __m512 acc = _mm512_setzero_ps();
        for (size_t c = 0; c < n; c += 16) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(kindred_tail_mask(n - c), row + c));
        float lane[16];
        _mm512_storeu_ps(lane, acc);
        float mean = lanes_total(lane) / (float)n;
        __m512 m = _mm512_set1_ps(mean);
        acc = _mm512_setzero_ps();
        for (size_t c = 0; c < n; c += 16) {
            __mmask16 k = kindred_tail_mask(n - c);
            __m512 d = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, row + c), m);
            acc = _mm512_add_ps(acc, _mm512_mul_ps(d, d));
        }
        _mm512_storeu_ps(lane, acc);
        __m512 inv = _mm512_set1_ps(1 / sqrtf(lanes_total(lane) / (float)n + eps));
        for (size_t c = 0; c < n; c += 16) {
            __mmask16 k = kindred_tail_mask(n - c);
            __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, row + c), m), inv), _mm512_maskz_loadu_ps(k, gamma + c));
            _mm512_mask_storeu_ps(row + c, k, _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, beta + c)));
        }
    }
}

KINDRED_CPU_CHECK(norm_avx512, __builtin_cpu_supports("avx512f"))
#endif

void kindred_layer_norm(float *x, size_t rows, size_t n, const float *gamma, const float *beta, float eps) {
#if defined(__x86_64__)
    if (norm_avx512()) { layer_norm_avx512(x, rows, n, gamma, beta, eps); return; }
#endif
    kindred_layer_norm_reference(x, rows, n, gamma, beta, eps);
}
