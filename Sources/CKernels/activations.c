#include <stdint.h>
#include <string.h>
#include "kernels.h"
#include "simd.h"

// GELU and softmax of the encoder's forward pass. Every operation is a separate IEEE multiply, add,
// subtract or divide (no fused multiply-add, contraction off), so the AVX-512 path, the plain C
// reference and the Swift loops these replaced give the same bits.
#pragma STDC FP_CONTRACT OFF
#pragma clang fp contract(off)

static const float magic = 12582912.0f;  // 1.5·2²³: adding it rounds to an integer kept in the low bits

static inline float clampf(float v, float lo, float hi) {
    float x = v > lo ? v : lo;
    return x < hi ? x : hi;
}

float kindred_expf(float v) {
    float x = clampf(v, -87.33654f, 88.72283f);
    float n = (x * 1.44269504088896341f + magic) - magic;  // round(x·log2 e)
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float y = r * 1.9875691500e-4f + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * (r * r) + r + 1;
    // The low mantissa bits of (n + 127 + magic) hold n + 127: shift them into the exponent.
    float t = n + (magic + 127);
    uint32_t bits;
    memcpy(&bits, &t, 4);
    bits <<= 23;
    float p;
    memcpy(&p, &bits, 4);
    return y * p;
}

float kindred_erff(float v) {
    float x = clampf(v, -4, 4);
    float x2 = x * x;
    float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
    p = x2 * p - 2.10102402082508e-06f;
    p = x2 * p - 5.69250639462346e-05f;
    p = x2 * p - 7.34990630326855e-04f;
    p = x2 * p - 2.95459980854025e-03f;
    p = x2 * p - 1.60960333262415e-02f;
    float q = x2 * -1.45660718464996e-05f - 2.13374055278905e-04f;
    q = x2 * q - 1.68282697438203e-03f;
    q = x2 * q - 7.37332916720468e-03f;
    q = x2 * q - 1.42647390514189e-02f;
    return x * p / q;
}

void kindred_gelu_reference(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        x[i] = 0.5f * v * (1 + kindred_erff(v * 0.70710678118654752f));
    }
}

// The sum of n floats in eight lanes (lane l takes x[l], x[l + 8], … of whole runs of eight), the
// lanes added in order, then the rest in order.
static float sum8(const float *x, size_t n) {
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) lane[l] += x[i + (size_t)l];
    float s = -0.0f;
    for (int l = 0; l < 8; l++) s += lane[l];
    for (; i < n; i++) s += x[i];
    return s;
}

void kindred_softmax_rows_reference(float *x, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        float shift = row[0];
        for (size_t c = 1; c < cols; c++) shift = row[c] > shift ? row[c] : shift;
        for (size_t c = 0; c < cols; c++) row[c] = kindred_expf(row[c] - shift);
        float scale = 1 / sum8(row, cols);
        for (size_t c = 0; c < cols; c++) row[c] *= scale;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>
#define AVX512 __attribute__((target("avx512f")))

AVX512 static inline __m512 clamp16(__m512 v, float lo, float hi) {
    // v > lo ? v : lo, then x < hi ? x : hi, as `clampf`.
    __m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
    __m512 x = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, l, _CMP_GT_OQ), l, v);
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, h, _CMP_LT_OQ), h, x);
}

#define MUL _mm512_mul_ps
#define ADD _mm512_add_ps
#define SUB _mm512_sub_ps
#define C(v) _mm512_set1_ps(v)

AVX512 static inline __m512 exp16(__m512 v) {
    __m512 x = clamp16(v, -87.33654f, 88.72283f);
    __m512 n = SUB(ADD(MUL(x, C(1.44269504088896341f)), C(magic)), C(magic));
    __m512 r = ADD(SUB(x, MUL(n, C(0.693359375f))), MUL(n, C(2.12194440e-4f)));
    __m512 y = ADD(MUL(r, C(1.9875691500e-4f)), C(1.3981999507e-3f));
    y = ADD(MUL(y, r), C(8.3334519073e-3f));
    y = ADD(MUL(y, r), C(4.1665795894e-2f));
    y = ADD(MUL(y, r), C(1.6666665459e-1f));
    y = ADD(MUL(y, r), C(5.0000001201e-1f));
    y = ADD(ADD(MUL(y, MUL(r, r)), r), C(1));
    __m512i bits = _mm512_slli_epi32(_mm512_castps_si512(ADD(n, C(magic + 127))), 23);
    return MUL(y, _mm512_castsi512_ps(bits));
}

AVX512 static inline __m512 erf16(__m512 v) {
    __m512 x = clamp16(v, -4, 4);
    __m512 x2 = MUL(x, x);
    __m512 p = ADD(MUL(x2, C(-2.72614225801306e-10f)), C(2.77068142495902e-08f));
    p = SUB(MUL(x2, p), C(2.10102402082508e-06f));
    p = SUB(MUL(x2, p), C(5.69250639462346e-05f));
    p = SUB(MUL(x2, p), C(7.34990630326855e-04f));
    p = SUB(MUL(x2, p), C(2.95459980854025e-03f));
    p = SUB(MUL(x2, p), C(1.60960333262415e-02f));
    __m512 q = SUB(MUL(x2, C(-1.45660718464996e-05f)), C(2.13374055278905e-04f));
    q = SUB(MUL(x2, q), C(1.68282697438203e-03f));
    q = SUB(MUL(x2, q), C(7.37332916720468e-03f));
    q = SUB(MUL(x2, q), C(1.42647390514189e-02f));
    return _mm512_div_ps(MUL(x, p), q);
}

static inline __mmask16 tail_mask(size_t left) { return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1); }

AVX512 static void gelu_avx512(float *x, size_t n) {
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        __m512 g = MUL(MUL(C(0.5f), v), ADD(C(1), erf16(MUL(v, C(0.70710678118654752f)))));
        _mm512_mask_storeu_ps(x + i, m, g);
    }
}

AVX512 static void softmax_rows_avx512(float *x, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        __m512 top = _mm512_set1_ps(row[0]);
        for (size_t c = 0; c < cols; c += 16) top = _mm512_mask_max_ps(top, tail_mask(cols - c), top, _mm512_maskz_loadu_ps(tail_mask(cols - c), row + c));
        __m512 shift = _mm512_set1_ps(_mm512_reduce_max_ps(top));
        for (size_t c = 0; c < cols; c += 16) {
            __mmask16 m = tail_mask(cols - c);
            _mm512_mask_storeu_ps(row + c, m, exp16(SUB(_mm512_maskz_loadu_ps(m, row + c), shift)));
        }
        // The sum as `sum8` takes it: eight lanes over whole runs of eight, in order.
        __m256 lanes = _mm256_setzero_ps();
        size_t c = 0;
        for (; c + 8 <= cols; c += 8) lanes = _mm256_add_ps(lanes, _mm256_loadu_ps(row + c));
        float lane[8];
        _mm256_storeu_ps(lane, lanes);
        float s = -0.0f;
        for (int l = 0; l < 8; l++) s += lane[l];
        for (; c < cols; c++) s += row[c];
        __m512 scale = _mm512_set1_ps(1 / s);
        for (size_t j = 0; j < cols; j += 16) {
            __mmask16 m = tail_mask(cols - j);
            _mm512_mask_storeu_ps(row + j, m, MUL(_mm512_maskz_loadu_ps(m, row + j), scale));
        }
    }
}

KINDRED_CPU_CHECK(activations_avx512, __builtin_cpu_supports("avx512f"))
#endif

void kindred_gelu(float *x, size_t n) {
#if defined(__x86_64__)
    if (activations_avx512()) { gelu_avx512(x, n); return; }
#endif
    kindred_gelu_reference(x, n);
}

void kindred_softmax_rows(float *x, size_t rows, size_t cols) {
#if defined(__x86_64__)
    if (activations_avx512()) { softmax_rows_avx512(x, rows, cols); return; }
#endif
    kindred_softmax_rows_reference(x, rows, cols);
}
