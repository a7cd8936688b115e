#include "kernels.h"
#include "quantize.h"
#include "half.h"
#include <string.h>

// Dense products of the encoder in int8: weights quantised per output channel once at load,
// activations per row before each product, products summed exactly in int32 and rescaled to float32.
// The rescale is written the same way (two products and a sum, never fused) in the vector path and in
// the reference, so both give the same bits.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <immintrin.h>
#define KINDRED_X86 1
#endif

// Byte of code p of channel j in the packed weights: groups of 16 channels; in a group, step p / 4
// holds 64 bytes, channel (j % 16)'s four codes at byte 4 · (j % 16) — one 64-byte load feeds the
// sixteen channels of a vpdpbusd.
static inline size_t packed_offset(size_t j, size_t kp, size_t p) {
    return (j / 16) * 16 * kp + (p / 4) * 64 + (j % 16) * 4 + (p % 4);
}

// Codes of x[0..<k] in [−127, 127] with x ≈ scale · code; returns the scale (0 for a zero row).
static float quantize(const float *x, size_t k, int8_t *code) {
    float m = kindred_max_abs(x, k);
    if (!(m > 0)) {
        memset(code, 0, k);
        return 0;
    }
    float inv = 127.0f / m;
    for (size_t p = 0; p < k; p++) {
        float r = kindred_round_even(x[p] * inv);
        code[p] = (int8_t)(r > 127 ? 127 : (r < -127 ? -127 : r));
    }
    return m / 127.0f;
}

void kindred_gemm_i8_pack(const float *w, size_t n, size_t k, int8_t *packed, float *scale, int32_t *sum) {
    size_t kp = kindred_gemm_i8_padded(k), np = kindred_gemm_i8_padded_channels(n);
    memset(packed, 0, np * kp);
    int8_t row[kp];
    for (size_t j = 0; j < np; j++) {
        if (j >= n) { scale[j] = 0; sum[j] = 0; continue; }
        scale[j] = quantize(w + j * k, k, row);
        int32_t s = 0;
        for (size_t p = 0; p < k; p++) {
            packed[packed_offset(j, kp, p)] = row[p];
            s += row[p];
        }
        sum[j] = s;
    }
}

size_t kindred_gemm_i8_outlier_capacity(size_t k) { return k / 9 + 1; }

// Σ x[p]² in 16 lanes (lane l sums the p ≡ l mod 16 in order), then the lanes in order: the order the
// AVX-512 path keeps, so both give the same bits.
static float sum_squares(const float *x, size_t k) {
    float lanes[16] = {0};
    for (size_t p = 0; p < k; p++) lanes[p % 16] += x[p] * x[p];
    float s = 0;
    for (int l = 0; l < 16; l++) s += lanes[l];
    return s;
}

static void quantize_rows_plain(const float *x, size_t ldx, size_t m, size_t k, uint8_t *u, float *scale, int32_t *outliers,
                                float *outlier_values, int32_t *outlier_count) {
    size_t kp = kindred_gemm_i8_padded(k), cap = kindred_gemm_i8_outlier_capacity(k);
    int8_t row[kp];
    float rest[k];
    for (size_t i = 0; i < m; i++) {
        const float *xi = x + i * ldx;
        // |x[p]| > 3 · rms(x) taken out, as x[p]² · k > 9 · Σ x²; fewer than k / 9 can be.
        float limit = 9.0f * sum_squares(xi, k);
        int32_t count = 0;
        int32_t *oi = outliers + i * cap;
        float *ov = outlier_values + i * cap;
        for (size_t p = 0; p < k; p++) {
            float v = xi[p];
            if (v * v * (float)k > limit && (size_t)count < cap) {
                oi[count] = (int32_t)p;
                ov[count] = v;
                count++;
                rest[p] = 0;
            } else {
                rest[p] = v;
            }
        }
        outlier_count[i] = count;
        scale[i] = quantize(rest, k, row);
        uint8_t *ui = u + i * kp;
        for (size_t p = 0; p < k; p++) ui[p] = (uint8_t)(row[p] + 128);
        for (size_t p = k; p < kp; p++) ui[p] = 128;
    }
}

void kindred_gemm_i8_pack_outlier_weights(const float *w, size_t n, size_t k, uint16_t *wt) {
    for (size_t j = 0; j < n; j++)
        for (size_t p = 0; p < k; p++) wt[p * n + j] = float_to_half(w[j * k + p]);
}

// y[i, 0..<n] += Σ over row i's outliers (ascending) of value · wt[column, 0..<n], in float32 (the half
// weights converted exactly). Half weights: an outlier reads half the bytes, from a copy half the size.
static void add_outliers_plain(const int32_t *outliers, const float *outlier_values, const int32_t *outlier_count, size_t m, size_t cap,
                         const uint16_t *wt, size_t ldwt, size_t n, float *y, size_t ldy) {
    for (size_t i = 0; i < m; i++) {
        float *yi = y + i * ldy;
        for (int32_t o = 0; o < outlier_count[i]; o++) {
            float v = outlier_values[i * cap + (size_t)o];
            const uint16_t *w = wt + (size_t)outliers[i * cap + (size_t)o] * ldwt;
            for (size_t j = 0; j < n; j++) yi[j] += v * half_to_float(w[j]);
        }
    }
}

static void gemm_i8_plain(const uint8_t *u, const float *uscale, size_t m, const int8_t *packed, const float *wscale,
                          const int32_t *wsum, size_t n, size_t kp, float *y, size_t ldy) {
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            int32_t dot = 0;
            for (size_t p = 0; p < kp; p++) dot += (int32_t)u[i * kp + p] * (int32_t)packed[packed_offset(j, kp, p)];
            float s = uscale[i] * wscale[j];
            y[i * ldy + j] += (float)(dot - 128 * wsum[j]) * s;
        }
    }
}

void kindred_gemm_i8_reference(const kindred_i8_rows *rows, size_t m, const int8_t *packed, const float *wscale, const int32_t *wsum,
                               const uint16_t *wt, size_t ldwt, size_t n, size_t k, float *y, size_t ldy) {
    gemm_i8_plain(rows->codes, rows->scale, m, packed, wscale, wsum, n, kindred_gemm_i8_padded(k), y, ldy);
    add_outliers_plain(rows->outliers, rows->outlier_values, rows->outlier_count, m, kindred_gemm_i8_outlier_capacity(k), wt, ldwt, n, y, ldy);
}

#ifdef KINDRED_X86
// AVX-512 F, BW and VNNI, as the row-code kernels check them (int8.c).
static int have_vnni(void) { return kindred_i8_vectorized(); }

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,f16c")))

// R rows of u against G groups of 16 channels (G ≤ 4, R ≤ 8, R · G ≤ 24): R · G accumulators of 16 lanes; at each
// step of 4 codes, G loads of weights and R broadcasts of four activation bytes. Then the rescale into
// y, masked to the n − j0 channels that exist.
VNNI static inline __attribute__((always_inline)) void block(const uint8_t *u, const float *uscale, size_t R, const int8_t *w,
                                                             const float *wscale, const int32_t *wsum, size_t G, size_t kp,
                                                             size_t live, float *y, size_t ldy) {
    __m512i acc[8][4];
    for (size_t r = 0; r < R; r++)
        for (size_t g = 0; g < G; g++) acc[r][g] = _mm512_setzero_si512();
    size_t gs = 16 * kp;
    for (size_t t = 0; t < kp / 4; t++) {
        __m512i wv[4];
        for (size_t g = 0; g < G; g++) wv[g] = _mm512_loadu_si512(w + g * gs + t * 64);
        for (size_t r = 0; r < R; r++) {
            uint32_t four;
            memcpy(&four, u + r * kp + t * 4, 4);
            __m512i a = _mm512_set1_epi32((int)four);
            for (size_t g = 0; g < G; g++) acc[r][g] = _mm512_dpbusd_epi32(acc[r][g], a, wv[g]);
        }
    }
    for (size_t g = 0; g < G; g++) {
        size_t lanes = live > 16 * g ? live - 16 * g : 0;
        if (lanes == 0) break;
        __mmask16 mask = lanes >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << lanes) - 1);
        __m512 ws = _mm512_maskz_loadu_ps(mask, wscale + 16 * g);
        __m512i offset = _mm512_slli_epi32(_mm512_maskz_loadu_epi32(mask, wsum + 16 * g), 7);
        for (size_t r = 0; r < R; r++) {
            float *yr = y + r * ldy + 16 * g;
            __m512 s = _mm512_mul_ps(_mm512_set1_ps(uscale[r]), ws);
            __m512 d = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][g], offset));
            _mm512_mask_storeu_ps(yr, mask, _mm512_add_ps(_mm512_maskz_loadu_ps(mask, yr), _mm512_mul_ps(d, s)));
        }
    }
}

// Blocks of 48 channels (their weights stay in L1 for k = 384) against every row, eight rows at a
// time: 24 accumulators, so each load of weights serves eight rows. The integer sums are exact, so
// the blocking does not change a result.
VNNI static void gemm_i8_vnni(const uint8_t *u, const float *uscale, size_t m, const int8_t *packed, const float *wscale,
                              const int32_t *wsum, size_t n, size_t kp, float *y, size_t ldy) {
    size_t groups = (n + 15) / 16;
    for (size_t g0 = 0; g0 < groups; g0 += 3) {
        size_t G = groups - g0 < 3 ? groups - g0 : 3, j0 = 16 * g0, live = n - j0;
        const int8_t *w = packed + g0 * 16 * kp;
        size_t i = 0;
        if (G == 3) {
            for (; i + 8 <= m; i += 8) block(u + i * kp, uscale + i, 8, w, wscale + j0, wsum + j0, 3, kp, live, y + i * ldy + j0, ldy);
            for (; i + 4 <= m; i += 4) block(u + i * kp, uscale + i, 4, w, wscale + j0, wsum + j0, 3, kp, live, y + i * ldy + j0, ldy);
            for (; i < m; i++) block(u + i * kp, uscale + i, 1, w, wscale + j0, wsum + j0, 3, kp, live, y + i * ldy + j0, ldy);
        } else {
            for (; i < m; i++) block(u + i * kp, uscale + i, 1, w, wscale + j0, wsum + j0, G, kp, live, y + i * ldy + j0, ldy);
        }
    }
}

// The outliers' float part, 16 outputs at a time held in a register over all of a row's outliers: for
// each y[i, j] the same products and sums, in the same order, as `add_outliers_plain`.
VNNI static void add_outliers_avx512(const int32_t *outliers, const float *outlier_values, const int32_t *outlier_count, size_t m,
                                     size_t cap, const uint16_t *wt, size_t ldwt, size_t n, float *y, size_t ldy) {
    for (size_t i = 0; i < m; i++) {
        int32_t count = outlier_count[i];
        if (count == 0) continue;
        const int32_t *oi = outliers + i * cap;
        const float *ov = outlier_values + i * cap;
        float *yi = y + i * ldy;
        for (size_t j = 0; j < n; j += 16) {
            __mmask16 mask = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
            __m512 acc = _mm512_maskz_loadu_ps(mask, yi + j);
            for (int32_t o = 0; o < count; o++) {
                __m512 w = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, wt + (size_t)oi[o] * ldwt + j));
                acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(ov[o]), w));
            }
            _mm512_mask_storeu_ps(yi + j, mask, acc);
        }
    }
}

// `quantize_rows_plain` with AVX-512: the same sums of squares (16 lanes, then in order), the same
// outliers, the same maximum and the same rounding (to nearest even), so the same bytes and scales.
VNNI static void quantize_rows_avx512(const float *x, size_t ldx, size_t m, size_t k, uint8_t *u, float *scale, int32_t *outliers,
                                      float *outlier_values, int32_t *outlier_count) {
    size_t kp = kindred_gemm_i8_padded(k), cap = kindred_gemm_i8_outlier_capacity(k);
    float rest[k + 16];
    for (size_t i = 0; i < m; i++) {
        const float *xi = x + i * ldx;
        __m512 acc = _mm512_setzero_ps();
        for (size_t p = 0; p < k; p += 16) {
            __mmask16 mask = k - p >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (k - p)) - 1);
            __m512 v = _mm512_maskz_loadu_ps(mask, xi + p);
            acc = _mm512_add_ps(acc, _mm512_mul_ps(v, v));
        }
        float lanes[16];
        _mm512_storeu_ps(lanes, acc);
        float ss = 0;
        for (int l = 0; l < 16; l++) ss += lanes[l];
        __m512 limit = _mm512_set1_ps(9.0f * ss), kf = _mm512_set1_ps((float)k);
        int32_t count = 0;
        int32_t *oi = outliers + i * cap;
        float *ov = outlier_values + i * cap;
        __m512 maxv = _mm512_setzero_ps();
        for (size_t p = 0; p < k; p += 16) {
            __mmask16 mask = k - p >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (k - p)) - 1);
            __m512 v = _mm512_maskz_loadu_ps(mask, xi + p);
            __mmask16 big = _mm512_mask_cmp_ps_mask(mask, _mm512_mul_ps(_mm512_mul_ps(v, v), kf), limit, _CMP_GT_OQ);
            __mmask16 taken = 0;
            while (big && (size_t)count < cap) {
                int l = __builtin_ctz(big);
                oi[count] = (int32_t)(p + (size_t)l);
                ov[count] = xi[p + (size_t)l];
                count++;
                taken |= (__mmask16)(1u << l);
                big &= (__mmask16)(big - 1);
            }
            v = _mm512_maskz_mov_ps((__mmask16)~taken, v);
            _mm512_storeu_ps(rest + p, v);
            maxv = _mm512_max_ps(maxv, _mm512_abs_ps(v));
        }
        outlier_count[i] = count;
        float mx = _mm512_reduce_max_ps(maxv);
        uint8_t *ui = u + i * kp;
        if (!(mx > 0)) {
            scale[i] = 0;
            memset(ui, 128, kp);
            continue;
        }
        scale[i] = mx / 127.0f;
        __m512 inv = _mm512_set1_ps(127.0f / mx);
        const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127), offset = _mm512_set1_epi32(128);
        for (size_t p = 0; p < kp; p += 16) {
            __mmask16 mask = kp - p >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (kp - p)) - 1);
            __mmask16 live = p >= k ? 0 : (k - p >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (k - p)) - 1));
            __m512 v = _mm512_maskz_loadu_ps(live, rest + p);
            __m512i q = _mm512_cvt_roundps_epi32(_mm512_mul_ps(v, inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            q = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(q, lo), hi), offset);
            _mm512_mask_cvtepi32_storeu_epi8(ui + p, mask, q);
        }
    }
}
#endif

void kindred_gemm_i8(const kindred_i8_rows *rows, size_t m, const int8_t *packed, const float *wscale, const int32_t *wsum,
                     const uint16_t *wt, size_t ldwt, size_t n, size_t k, float *y, size_t ldy) {
#ifdef KINDRED_X86
    if (have_vnni()) {
        gemm_i8_vnni(rows->codes, rows->scale, m, packed, wscale, wsum, n, kindred_gemm_i8_padded(k), y, ldy);
        add_outliers_avx512(rows->outliers, rows->outlier_values, rows->outlier_count, m, kindred_gemm_i8_outlier_capacity(k), wt, ldwt, n, y, ldy);
        return;
    }
#endif
    kindred_gemm_i8_reference(rows, m, packed, wscale, wsum, wt, ldwt, n, k, y, ldy);
}

void kindred_gemm_i8_quantize_rows(const float *x, size_t ldx, size_t m, size_t k, uint8_t *u, float *scale, int32_t *outliers,
                                   float *outlier_values, int32_t *outlier_count) {
#ifdef KINDRED_X86
    if (have_vnni()) { quantize_rows_avx512(x, ldx, m, k, u, scale, outliers, outlier_values, outlier_count); return; }
#endif
    quantize_rows_plain(x, ldx, m, k, u, scale, outliers, outlier_values, outlier_count);
}

void kindred_gemm_i8_quantize_rows_reference(const float *x, size_t ldx, size_t m, size_t k, uint8_t *u, float *scale, int32_t *outliers,
                                             float *outlier_values, int32_t *outlier_count) {
    quantize_rows_plain(x, ldx, m, k, u, scale, outliers, outlier_values, outlier_count);
}

int kindred_gemm_i8_vectorized(void) {
#ifdef KINDRED_X86
    return have_vnni();
#else
    return 0;
#endif
}
