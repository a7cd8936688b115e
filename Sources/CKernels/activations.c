#include <stdint.h>
#include <string.h>
#include "kernels.h"
#include "simd.h"

// GELU and softmax of the encoder's forward pass. Every operation is written out: a separate IEEE
// multiply, add, subtract or divide, or a fused multiply-add where the code says so (`fmaf` in C,
// `_mm512_fmadd_ps` in AVX-512), never one the compiler contracts by itself. A fused multiply-add is
// rounded once in either form, so the AVX-512 path and the plain C reference give the same bits.
#pragma STDC FP_CONTRACT OFF
#pragma clang fp contract(off)

#define INLINE static inline __attribute__((always_inline))

static const float magic = 12582912.0f;  // 1.5·2²³: adding it rounds to an integer kept in the low bits

INLINE float clampf(float v, float lo, float hi) {
    float x = v > lo ? v : lo;
    return x < hi ? x : hi;
}

// Cephes `expf`: n = round(x · log₂ e), r = x − n · ln 2 in two parts, eʳ by a degree-6 polynomial,
// then times 2ⁿ from the exponent bits.
INLINE float exp_body(float v) {
    float x = clampf(v, -87.33654f, 88.72283f);
    float n = (x * 1.44269504088896341f + magic) - magic;
    float r = __builtin_fmaf(n, -0.693359375f, x);
    r = __builtin_fmaf(n, 2.12194440e-4f, r);
    float y = __builtin_fmaf(1.9875691500e-4f, r, 1.3981999507e-3f);
    y = __builtin_fmaf(y, r, 8.3334519073e-3f);
    y = __builtin_fmaf(y, r, 4.1665795894e-2f);
    y = __builtin_fmaf(y, r, 1.6666665459e-1f);
    y = __builtin_fmaf(y, r, 5.0000001201e-1f);
    y = __builtin_fmaf(y, r * r, r) + 1;
    // The low mantissa bits of (n + 127 + magic) hold n + 127: shift them into the exponent.
    float t = n + (magic + 127);
    uint32_t bits;
    memcpy(&bits, &t, 4);
    bits <<= 23;
    float p;
    memcpy(&p, &bits, 4);
    return y * p;
}

INLINE float erf_body(float v) {
    float x = clampf(v, -4, 4);
    float x2 = x * x;
    float p = __builtin_fmaf(x2, -2.72614225801306e-10f, 2.77068142495902e-08f);
    p = __builtin_fmaf(x2, p, -2.10102402082508e-06f);
    p = __builtin_fmaf(x2, p, -5.69250639462346e-05f);
    p = __builtin_fmaf(x2, p, -7.34990630326855e-04f);
    p = __builtin_fmaf(x2, p, -2.95459980854025e-03f);
    p = __builtin_fmaf(x2, p, -1.60960333262415e-02f);
    float q = __builtin_fmaf(x2, -1.45660718464996e-05f, -2.13374055278905e-04f);
    q = __builtin_fmaf(x2, q, -1.68282697438203e-03f);
    q = __builtin_fmaf(x2, q, -7.37332916720468e-03f);
    q = __builtin_fmaf(x2, q, -1.42647390514189e-02f);
    return x * p / q;
}

float kindred_expf(float v) { return exp_body(v); }

float kindred_erff(float v) { return erf_body(v); }

INLINE void gelu_body(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        x[i] = 0.5f * v * (1 + erf_body(v * 0.70710678118654752f));
    }
}

// The sum of n floats in eight lanes (lane l takes x[l], x[l + 8], … of whole runs of eight), the
// lanes added in order, then the rest in order.
INLINE float sum8(const float *x, size_t n) {
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) lane[l] += x[i + (size_t)l];
    float s = -0.0f;
    for (int l = 0; l < 8; l++) s += lane[l];
    for (; i < n; i++) s += x[i];
    return s;
}

INLINE void softmax_body(float *x, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        float shift = row[0];
        for (size_t c = 1; c < cols; c++) shift = row[c] > shift ? row[c] : shift;
        for (size_t c = 0; c < cols; c++) row[c] = exp_body(row[c] - shift);
        float scale = 1 / sum8(row, cols);
        for (size_t c = 0; c < cols; c++) row[c] *= scale;
    }
}

void kindred_gelu_reference(float *x, size_t n) { gelu_body(x, n); }

void kindred_softmax_rows_reference(float *x, size_t rows, size_t cols) { softmax_body(x, rows, cols); }

#if defined(__x86_64__)
#include <immintrin.h>
#define AVX512 __attribute__((target("avx512f,avx512dq")))

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

#define FMA _mm512_fmadd_ps

// `exp_body` for x ≤ 88.7 (the softmax's x − max ≤ 0 never is larger): the upper clamp would leave
// every such x as it is.
AVX512 static inline __m512 exp16(__m512 v) {
    __m512 x = _mm512_max_ps(v, C(-87.33654f));
    __m512 n = _mm512_roundscale_ps(MUL(x, C(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = FMA(n, C(-0.693359375f), x);
    r = FMA(n, C(2.12194440e-4f), r);
    __m512 y = FMA(C(1.9875691500e-4f), r, C(1.3981999507e-3f));
    y = FMA(y, r, C(8.3334519073e-3f));
    y = FMA(y, r, C(4.1665795894e-2f));
    y = FMA(y, r, C(1.6666665459e-1f));
    y = FMA(y, r, C(5.0000001201e-1f));
    y = ADD(FMA(y, MUL(r, r), r), C(1));
    __m512i bits = _mm512_slli_epi32(_mm512_castps_si512(ADD(n, C(magic + 127))), 23);
    return MUL(y, _mm512_castsi512_ps(bits));
}

AVX512 static inline __m512 erf16(__m512 v) {
    __m512 x = clamp16(v, -4, 4);
    __m512 x2 = MUL(x, x);
    __m512 p = FMA(x2, C(-2.72614225801306e-10f), C(2.77068142495902e-08f));
    p = FMA(x2, p, C(-2.10102402082508e-06f));
    p = FMA(x2, p, C(-5.69250639462346e-05f));
    p = FMA(x2, p, C(-7.34990630326855e-04f));
    p = FMA(x2, p, C(-2.95459980854025e-03f));
    p = FMA(x2, p, C(-1.60960333262415e-02f));
    __m512 q = FMA(x2, C(-1.45660718464996e-05f), C(-2.13374055278905e-04f));
    q = FMA(x2, q, C(-1.68282697438203e-03f));
    q = FMA(x2, q, C(-7.37332916720468e-03f));
    q = FMA(x2, q, C(-1.42647390514189e-02f));
    return _mm512_div_ps(MUL(x, p), q);
}


AVX512 static void gelu_avx512(float *x, size_t n) {
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = kindred_tail_mask(n - i);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        __m512 g = MUL(MUL(C(0.5f), v), ADD(C(1), erf16(MUL(v, C(0.70710678118654752f)))));
        _mm512_mask_storeu_ps(x + i, m, g);
    }
}

// The row's maximum, then its exponentials with their sum, then the scaling, each as a pass over a
// batch of rows, so that the rows' independent chains (a maximum's reduction, a sum's additions in
// order, a division) overlap in the processor instead of each row waiting on its own, and no pass
// reads what the one before has only just stored. The arithmetic of each row is the reference's.
AVX512 static float row_max(const float *row, size_t cols) {
    __m512 top = _mm512_set1_ps(row[0]);
    size_t c = 0;
    for (; c + 16 <= cols; c += 16) top = _mm512_max_ps(top, _mm512_loadu_ps(row + c));
    if (c < cols) top = _mm512_mask_max_ps(top, kindred_tail_mask(cols - c), top, _mm512_maskz_loadu_ps(kindred_tail_mask(cols - c), row + c));
    return _mm512_reduce_max_ps(top);
}

// Stores the exponentials of row − shift and returns 1 / their sum as `sum8` takes it: eight lanes over
// whole runs of eight (each 16 values are two runs, low then high half), in order, then the rest.
AVX512 static float exp_row(float *row, size_t cols, float shift) {
    __m512 sh = _mm512_set1_ps(shift);
    __m256 lanes = _mm256_setzero_ps();
    size_t c = 0;
    for (; c + 16 <= cols; c += 16) {
        __m512 e = exp16(SUB(_mm512_loadu_ps(row + c), sh));
        _mm512_storeu_ps(row + c, e);
        lanes = _mm256_add_ps(_mm256_add_ps(lanes, _mm512_castps512_ps256(e)), _mm512_extractf32x8_ps(e, 1));
    }
    float rest[16];
    size_t left = cols - c;
    if (left > 0) {
        __m512 e = exp16(SUB(_mm512_maskz_loadu_ps(kindred_tail_mask(left), row + c), sh));
        _mm512_mask_storeu_ps(row + c, kindred_tail_mask(left), e);
        _mm512_storeu_ps(rest, e);
        if (left >= 8) lanes = _mm256_add_ps(lanes, _mm512_castps512_ps256(e));
    }
    float lane[8];
    _mm256_storeu_ps(lane, lanes);
    float s = -0.0f;
    for (int l = 0; l < 8; l++) s += lane[l];
    for (size_t i = left >= 8 ? 8 : 0; i < left; i++) s += rest[i];
    return 1 / s;
}

AVX512 static void softmax_rows_avx512(float *x, size_t rows, size_t cols) {
    enum { batch = 16 };
    float shift[batch], scale[batch];
    for (size_t r0 = 0; r0 < rows; r0 += batch) {
        size_t n = rows - r0 < batch ? rows - r0 : batch;
        float *first = x + r0 * cols;
        for (size_t r = 0; r < n; r++) shift[r] = row_max(first + r * cols, cols);
        for (size_t r = 0; r < n; r++) scale[r] = exp_row(first + r * cols, cols, shift[r]);
        for (size_t r = 0; r < n; r++) {
            float *row = first + r * cols;
            __m512 sc = _mm512_set1_ps(scale[r]);
            size_t c = 0;
            for (; c + 16 <= cols; c += 16) _mm512_storeu_ps(row + c, MUL(_mm512_loadu_ps(row + c), sc));
            if (c < cols) _mm512_mask_storeu_ps(row + c, kindred_tail_mask(cols - c), MUL(_mm512_maskz_loadu_ps(kindred_tail_mask(cols - c), row + c), sc));
        }
    }
}

KINDRED_CPU_CHECK(activations_avx512, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
KINDRED_CPU_CHECK(activations_fma, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))

// The reference compiled for processors with FMA (AVX2 without AVX-512): `fmaf` becomes one
// instruction instead of a library call; the same bits.
__attribute__((target("avx2,fma"))) static void gelu_fma(float *x, size_t n) { gelu_body(x, n); }
__attribute__((target("avx2,fma"))) static void softmax_rows_fma(float *x, size_t rows, size_t cols) { softmax_body(x, rows, cols); }
#endif

void kindred_gelu(float *x, size_t n) {
#if defined(__x86_64__)
    if (activations_avx512()) { gelu_avx512(x, n); return; }
    if (activations_fma()) { gelu_fma(x, n); return; }
#endif
    kindred_gelu_reference(x, n);
}

void kindred_softmax_rows(float *x, size_t rows, size_t cols) {
#if defined(__x86_64__)
    if (activations_avx512()) { softmax_rows_avx512(x, rows, cols); return; }
    if (activations_fma()) { softmax_rows_fma(x, rows, cols); return; }
#endif
    kindred_softmax_rows_reference(x, rows, cols);
}
