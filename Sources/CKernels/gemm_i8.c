#include "kernels.h"
#include "quantize.h"
#include "half.h"
#include "simd.h"
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

// The rows past m of the last block of 8 hold code 0 (their zero point is 0): the kernels compute them, and drop them.
static void pad_rows(uint8_t *u, size_t m, size_t kp) {
    for (size_t i = m; i % 8 != 0; i++)
        for (size_t p = 0; p < kp; p++) u[kindred_gemm_i8_row_offset(i, kp, p)] = 0;
}

// The scale and zero point of values in [lo, hi] (lo ≤ 0 ≤ hi, hi > lo): 255 steps of (hi − lo) / 255
// from lo, with 0 on a step (code z), so that zero is coded exactly. Written once for both paths.
static inline float range_scale(float lo, float hi, float *inv, int32_t *zero) {
    float width = hi - lo;
    *inv = 255.0f / width;
    float z = kindred_round_even(-lo * *inv);
    *zero = (int32_t)(z > 255 ? 255 : z);
    return width / 255.0f;
}

static void quantize_rows_plain(const float *x, size_t ldx, size_t m, size_t k, float spread, uint8_t *u, float *scale, int32_t *zero,
                                int32_t *outliers, float *outlier_values, int32_t *outlier_count) {
    size_t kp = kindred_gemm_i8_padded(k), cap = kindred_gemm_i8_outlier_capacity(k);
    float rest[k];
    for (size_t i = 0; i < m; i++) {
        const float *xi = x + i * ldx;
        // |x[p]| > spread · rms(x) taken out, as x[p]² · k > spread² · Σ x²; spread ≥ 3: fewer than k / 9 can be.
        float limit = spread * spread * sum_squares(xi, k);
        int32_t count = 0;
        int32_t *oi = outliers + i * cap;
        float *ov = outlier_values + i * cap;
        float lo = 0, hi = 0;
        for (size_t p = 0; p < k; p++) {
            float v = xi[p];
            if (v * v * (float)k > limit && (size_t)count < cap) {
                oi[count] = (int32_t)p;
                ov[count] = v;
                count++;
                rest[p] = 0;
            } else {
                rest[p] = v;
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
        outlier_count[i] = count;
        if (!(hi > lo)) {
            scale[i] = 0;
            zero[i] = 0;
            for (size_t p = 0; p < kp; p++) u[kindred_gemm_i8_row_offset(i, kp, p)] = 0;
            continue;
        }
        float inv;
        scale[i] = range_scale(lo, hi, &inv, &zero[i]);
        for (size_t p = 0; p < kp; p++) {
            int32_t c = zero[i];
            if (p < k) {
                float r = kindred_round_even(rest[p] * inv) + (float)zero[i];
                c = (int32_t)(r < 0 ? 0 : (r > 255 ? 255 : r));
            }
            u[kindred_gemm_i8_row_offset(i, kp, p)] = (uint8_t)c;
        }
    }
    pad_rows(u, m, kp);
}

static void pack_outlier_weights_plain(const float *w, size_t n, size_t k, uint16_t *wt) {
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

static void gemm_i8_plain(const uint8_t *u, const float *uscale, const int32_t *uzero, size_t m, const int8_t *packed, const float *wscale,
                          const int32_t *wsum, size_t n, size_t kp, const float *bias, const float *res, size_t ldr, float *y, size_t ldy) {
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            int32_t dot = 0;
            for (size_t p = 0; p < kp; p++) dot += (int32_t)u[kindred_gemm_i8_row_offset(i, kp, p)] * (int32_t)packed[packed_offset(j, kp, p)];
            float s = uscale[i] * wscale[j];
            float start = !bias ? y[i * ldy + j] : (res ? res[i * ldr + j] + bias[j] : bias[j]);
            y[i * ldy + j] = start + (float)(dot - uzero[i] * wsum[j]) * s;
        }
    }
}

void kindred_gemm_i8_reference(const kindred_i8_rows *rows, size_t m, const int8_t *packed, const float *wscale, const int32_t *wsum,
                               const uint16_t *wt, size_t ldwt, size_t n, size_t k, const float *bias, const float *res, size_t ldr,
                               float *y, size_t ldy) {
    gemm_i8_plain(rows->codes, rows->scale, rows->zero, m, packed, wscale, wsum, n, kindred_gemm_i8_padded(k), bias, res, ldr, y, ldy);
    add_outliers_plain(rows->outliers, rows->outlier_values, rows->outlier_count, m, kindred_gemm_i8_outlier_capacity(k), wt, ldwt, n, y, ldy);
}

#ifdef KINDRED_X86
// AVX-512 F, BW and VNNI, as the row-code kernels check them (int8.c).
static int have_vnni(void) { return kindred_i8_vectorized(); }

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,f16c")))

// A block of 8 rows of u against G groups of 16 channels (G ≤ 3), for steps t0 ..< t1 of 4 codes:
// 8 · G accumulators of 16 lanes (zero, or read from `keep` when `resume`); at each step, G loads of
// weights and 8 broadcasts of four activation bytes (the block's 32 bytes of the step, one after the
// other). Then, when `finish`, the rescale added to its start (`kindred_gemm_i8`: y, the bias, or the
// residual row plus the bias), into y, for the `rows` rows that exist, masked to the `live` channels
// that exist; else the accumulators go back to `keep`. While it runs, it asks for `pflines`
// lines from `pf` (weights the next blocks read) to be brought into cache.
VNNI static inline __attribute__((always_inline)) void block(const uint8_t *u, const float *uscale, const int32_t *uzero, size_t rows, const int8_t *w,
                                                             const float *wscale, const int32_t *wsum, size_t G, size_t kp, size_t t0,
                                                             size_t t1, __m512i *keep, int resume, int finish, size_t live, const float *bias,
                                                             const float *res, size_t ldr, float *y, size_t ldy, const int8_t *pf,
                                                             size_t pflines) {
    __m512i acc[8][3];
    for (size_t r = 0; r < 8; r++)
        for (size_t g = 0; g < G; g++) acc[r][g] = resume ? _mm512_load_si512(keep + r * 3 + g) : _mm512_setzero_si512();
    size_t gs = 16 * kp;
    for (size_t t = t0; t < t1; t++) {
        __m512i wv[3];
        for (size_t g = 0; g < G; g++) wv[g] = _mm512_loadu_si512(w + g * gs + t * 64);
        if (t - t0 < pflines) _mm_prefetch((const char *)(pf + (t - t0) * 64), _MM_HINT_T0);
        for (size_t r = 0; r < 8; r++) {
            uint32_t four;
            memcpy(&four, u + t * 32 + r * 4, 4);
            __m512i a = _mm512_set1_epi32((int)four);
            for (size_t g = 0; g < G; g++) acc[r][g] = _mm512_dpbusd_epi32(acc[r][g], a, wv[g]);
        }
    }
    if (!finish) {
        for (size_t r = 0; r < 8; r++)
            for (size_t g = 0; g < G; g++) _mm512_store_si512(keep + r * 3 + g, acc[r][g]);
        return;
    }
    for (size_t g = 0; g < G; g++) {
        size_t lanes = live > 16 * g ? live - 16 * g : 0;
        if (lanes == 0) break;
        __mmask16 mask = kindred_tail_mask(lanes);
        __m512 ws = _mm512_maskz_loadu_ps(mask, wscale + 16 * g);
        __m512i sums = _mm512_maskz_loadu_epi32(mask, wsum + 16 * g);
        __m512 b = bias ? _mm512_maskz_loadu_ps(mask, bias + 16 * g) : _mm512_setzero_ps();
        for (size_t r = 0; r < rows; r++) {
            float *yr = y + r * ldy + 16 * g;
            __m512 s = _mm512_mul_ps(_mm512_set1_ps(uscale[r]), ws);
            __m512 d = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][g], _mm512_mullo_epi32(sums, _mm512_set1_epi32(uzero[r]))));
            __m512 start = !bias ? _mm512_maskz_loadu_ps(mask, yr) : (res ? _mm512_add_ps(_mm512_maskz_loadu_ps(mask, res + r * ldr + 16 * g), b) : b);
            _mm512_mask_storeu_ps(yr, mask, _mm512_add_ps(start, _mm512_mul_ps(d, s)));
        }
    }
}

// Steps of 4 codes a block of channels takes at a time: 3 · 16 · 4 · 128 = 24 KB of weights, which stay
// in the first-level cache while every block of rows passes over them.
enum { span = 128 };

// Up to 64 rows at a time; blocks of 48 channels against every block of 8 rows: 24 accumulators, so
// each load of weights serves eight rows. Long rows (k > 512) are taken `span` steps at a time, every block of rows passing over
// those steps' weights before the next (the accumulators kept between spans in a small buffer), so the
// weights are read from the first-level cache, not the second. Each block of rows also brings in its
// share of the weights the next pass over the blocks of rows reads. The integer sums are exact, so the
// blocking does not change a result.
VNNI static void gemm_i8_vnni(const uint8_t *u, const float *uscale, const int32_t *uzero, size_t m, const int8_t *packed, const float *wscale,
                              const int32_t *wsum, size_t n, size_t kp, const float *bias, const float *res, size_t ldr, float *y, size_t ldy) {
    if (m > 64) {
        for (size_t i = 0; i < m; i += 64)
            gemm_i8_vnni(u + i * kp, uscale + i, uzero + i, m - i < 64 ? m - i : 64, packed, wscale, wsum, n, kp, bias, res ? res + i * ldr : NULL,
                         ldr, y + i * ldy, ldy);
        return;
    }
    size_t groups = (n + 15) / 16, blocks = (m + 7) / 8, steps = kp / 4;
    __m512i kept[8 * 24];
    for (size_t g0 = 0; g0 < groups; g0 += 3) {
        size_t G = groups - g0 < 3 ? groups - g0 : 3, j0 = 16 * g0, live = n - j0;
        const int8_t *w = packed + g0 * 16 * kp;
        for (size_t t0 = 0; t0 < steps; t0 += span) {
            size_t t1 = steps - t0 < span ? steps : t0 + span;
            // What the next pass reads: this block's next span, or the next block's first.
            const int8_t *next;
            size_t nextGroups, nextSteps;
            if (t1 < steps) { next = w + t1 * 64; nextGroups = G; nextSteps = steps - t1 < span ? steps - t1 : span; }
            else { next = w + G * 16 * kp; nextGroups = groups - g0 - G < 3 ? groups - g0 - G : 3; nextSteps = steps < span ? steps : span; }
            // Lines of the next pass's weights: group g's steps are a run of nextSteps · 64 bytes, 16 · kp apart
            // (one run when the pass takes whole rows of steps).
            size_t perGroup = nextSteps == steps ? nextGroups * steps : nextSteps, nextLines = nextGroups * nextSteps;
            size_t share = (nextLines + blocks - 1) / blocks;
            for (size_t b = 0; b < blocks; b++) {
                size_t i = 8 * b, rows = m - i < 8 ? m - i : 8, first = b * share;
                size_t lines = first >= nextLines ? 0 : (nextLines - first < share ? nextLines - first : share);
                // A block of rows prefetches a run inside one group (share ≤ perGroup when blocks ≥ groups).
                size_t g = perGroup ? first / perGroup : 0, within = perGroup ? first % perGroup : 0;
                if (lines > perGroup - within) lines = perGroup - within;
                const int8_t *pf = next + g * 16 * kp + within * 64;
                const uint8_t *ub = u + i * kp;
                float *yb = y + i * ldy + j0;
                int resume = t0 > 0, finish = t1 == steps;
                __m512i *keep = kept + b * 24;
                const float *bb = bias ? bias + j0 : NULL, *rb = res ? res + i * ldr + j0 : NULL;
                // G as a constant in each call, so that each inlined copy keeps its accumulators in registers.
#define KINDRED_BLOCK(G) block(ub, uscale + i, uzero + i, rows, w, wscale + j0, wsum + j0, G, kp, t0, t1, keep, resume, finish, live, bb, rb, ldr, yb, ldy, pf, lines)
                if (G == 3) KINDRED_BLOCK(3);
                else if (G == 2) KINDRED_BLOCK(2);
                else KINDRED_BLOCK(1);
#undef KINDRED_BLOCK
            }
        }
    }
}

// G ≤ 4 outliers of a row (values v, weight rows w) added into its n outputs, 16 at a time: each
// output takes the G products in order, as `add_outliers_plain` adds them. The 16-output steps are
// independent of each other, so the processor runs many at once.
VNNI static inline __attribute__((always_inline)) void add_outlier_group(float *yi, size_t n, const float *v, const uint16_t *const *w,
                                                                       const int G) {
    __m512 value[4];
    for (int g = 0; g < G; g++) value[g] = _mm512_set1_ps(v[g]);
    size_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 acc = _mm512_loadu_ps(yi + j);
        for (int g = 0; g < G; g++)
            acc = _mm512_add_ps(acc, _mm512_mul_ps(value[g], _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w[g] + j)))));
        _mm512_storeu_ps(yi + j, acc);
    }
    if (j < n) {
        __mmask16 mask = kindred_tail_mask(n - j);
        __m512 acc = _mm512_maskz_loadu_ps(mask, yi + j);
        for (int g = 0; g < G; g++) acc = _mm512_add_ps(acc, _mm512_mul_ps(value[g], _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, w[g] + j))));
        _mm512_mask_storeu_ps(yi + j, mask, acc);
    }
}

// The outliers' float part: a row's outliers four at a time (in order), each group swept over the
// row's outputs. For each y[i, j] the same products and sums, in the same order, as `add_outliers_plain`.
VNNI static void add_outliers_avx512(const int32_t *outliers, const float *outlier_values, const int32_t *outlier_count, size_t m,
                                     size_t cap, const uint16_t *wt, size_t ldwt, size_t n, float *y, size_t ldy) {
    for (size_t i = 0; i < m; i++) {
        size_t count = (size_t)outlier_count[i];
        const int32_t *oi = outliers + i * cap;
        const float *ov = outlier_values + i * cap;
        float *yi = y + i * ldy;
        for (size_t o = 0; o < count; o += 4) {
            const uint16_t *w[4];
            size_t G = count - o < 4 ? count - o : 4;
            for (size_t g = 0; g < G; g++) w[g] = wt + (size_t)oi[o + g] * ldwt;
            switch (G) {
            case 4: add_outlier_group(yi, n, ov + o, w, 4); break;
            case 3: add_outlier_group(yi, n, ov + o, w, 3); break;
            case 2: add_outlier_group(yi, n, ov + o, w, 2); break;
            default: add_outlier_group(yi, n, ov + o, w, 1); break;
            }
        }
    }
}

// `quantize_rows_plain` with AVX-512, eight rows (a block of the codes) at a time: the same sums of
// squares (16 lanes, then in order), the same outliers, range and rounding (to nearest even), so the same
// bytes, scales and zero points. Each row's codes go to a line of its own, then the block's eight lines
// are interleaved into the codes' layout 16 codes of each row at a time.
VNNI static void quantize_rows_avx512(const float *x, size_t ldx, size_t m, size_t k, float spread, uint8_t *u, float *scale,
                                      int32_t *zero, int32_t *outliers, float *outlier_values, int32_t *outlier_count) {
    size_t kp = kindred_gemm_i8_padded(k), cap = kindred_gemm_i8_outlier_capacity(k), chunks = (kp + 15) / 16;
    float rest[k + 16];
    uint8_t lines[8][(chunks + 3) / 4 * 64];
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    // Dword j of a step pair's 64 bytes: step t = j / 8 of the pair, row r = j % 8; its four codes are
    // dword 4r + t of rows 0–3 (first source) or 4(r − 4) + t of rows 4–7 (second source, + 16).
    const __m512i pair0 = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    const __m512i pair1 = _mm512_add_epi32(pair0, _mm512_set1_epi32(2));
    // Dword d of lane l of the narrowed bytes holds codes 4l ..< 4l + 4 of vector d.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    for (size_t i0 = 0; i0 < m; i0 += 8) {
        for (size_t r = 0; r < 8; r++) {
            size_t i = i0 + r;
            uint8_t *line = lines[r];
            if (i >= m) { memset(line, 0, chunks * 16); continue; }
            const float *xi = x + i * ldx;
            __m512 acc = _mm512_setzero_ps();
            for (size_t p = 0; p < k; p += 16) {
                __mmask16 mask = kindred_tail_mask(k - p);
                __m512 v = _mm512_maskz_loadu_ps(mask, xi + p);
                acc = _mm512_add_ps(acc, _mm512_mul_ps(v, v));
            }
            float squares[16];
            _mm512_storeu_ps(squares, acc);
            float ss = 0;
            for (int l = 0; l < 16; l++) ss += squares[l];
            __m512 limit = _mm512_set1_ps(spread * spread * ss), kf = _mm512_set1_ps((float)k);
            int32_t count = 0;
            int32_t *oi = outliers + i * cap;
            float *ov = outlier_values + i * cap;
            __m512 lo = _mm512_setzero_ps(), hi = _mm512_setzero_ps();
            for (size_t p = 0; p < k; p += 16) {
                __mmask16 mask = kindred_tail_mask(k - p);
                __m512 v = _mm512_maskz_loadu_ps(mask, xi + p);
                __mmask16 big = _mm512_mask_cmp_ps_mask(mask, _mm512_mul_ps(_mm512_mul_ps(v, v), kf), limit, _CMP_GT_OQ);
                if (big) {
                    // The first outliers in column order, as many as there is room for.
                    while ((size_t)(count + __builtin_popcount(big)) > cap) big &= (__mmask16)~(1u << (31 - __builtin_clz(big)));
                    _mm512_mask_compressstoreu_epi32(oi + count, big, _mm512_add_epi32(lane, _mm512_set1_epi32((int)p)));
                    _mm512_mask_compressstoreu_ps(ov + count, big, v);
                    count += __builtin_popcount(big);
                    v = _mm512_maskz_mov_ps((__mmask16)~big, v);
                }
                _mm512_storeu_ps(rest + p, v);
                lo = _mm512_min_ps(lo, v);
                hi = _mm512_max_ps(hi, v);
            }
            outlier_count[i] = count;
            float l = _mm512_reduce_min_ps(lo), h = _mm512_reduce_max_ps(hi);
            if (!(h > l)) {
                scale[i] = 0;
                zero[i] = 0;
                memset(line, 0, chunks * 16);
                continue;
            }
            float inv1;
            scale[i] = range_scale(l, h, &inv1, &zero[i]);
            __m512 inv = _mm512_set1_ps(inv1);
            const __m512i z = _mm512_set1_epi32(zero[i]);
            // 64 codes at a time: four vectors of codes narrowed with saturation (which is the clamp to
            // [0, 255]) to one of bytes, whose dwords come out lane by lane and are put back in order.
            for (size_t p = 0; p < chunks * 16; p += 64) {
                __m512i q[4];
                for (int t = 0; t < 4; t++) {
                    size_t at = p + 16 * (size_t)t;
                    __mmask16 live = at >= k ? 0 : kindred_tail_mask(k - at);
                    __m512 v = _mm512_maskz_loadu_ps(live, rest + at);
                    q[t] = _mm512_add_epi32(_mm512_cvt_roundps_epi32(_mm512_mul_ps(v, inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), z);
                }
                __m512i bytes = _mm512_packus_epi16(_mm512_packs_epi32(q[0], q[1]), _mm512_packs_epi32(q[2], q[3]));
                _mm512_storeu_si512((void *)(line + p), _mm512_permutexvar_epi32(order, bytes));
            }
        }
        // Interleave: 16 codes (4 steps) of the eight lines at a time, into two step pairs of 64 bytes.
        uint8_t *ub = u + i0 * kp;
        size_t steps = kp / 4;
        for (size_t c = 0; c < chunks; c++) {
            __m512i a = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(lines[0] + 16 * c)));
            a = _mm512_inserti32x4(a, _mm_loadu_si128((const __m128i *)(lines[1] + 16 * c)), 1);
            a = _mm512_inserti32x4(a, _mm_loadu_si128((const __m128i *)(lines[2] + 16 * c)), 2);
            a = _mm512_inserti32x4(a, _mm_loadu_si128((const __m128i *)(lines[3] + 16 * c)), 3);
            __m512i b = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(lines[4] + 16 * c)));
            b = _mm512_inserti32x4(b, _mm_loadu_si128((const __m128i *)(lines[5] + 16 * c)), 1);
            b = _mm512_inserti32x4(b, _mm_loadu_si128((const __m128i *)(lines[6] + 16 * c)), 2);
            b = _mm512_inserti32x4(b, _mm_loadu_si128((const __m128i *)(lines[7] + 16 * c)), 3);
            size_t left = steps - 4 * c;  // steps of this chunk that exist: 1 to 4 (the last chunk) or more
            __mmask16 m0 = left >= 2 ? (__mmask16)0xFFFF : (__mmask16)0x00FF;
            __mmask16 m1 = left >= 4 ? (__mmask16)0xFFFF : (left == 3 ? (__mmask16)0x00FF : 0);
            _mm512_mask_storeu_epi32(ub + 4 * c * 32, m0, _mm512_permutex2var_epi32(a, pair0, b));
            _mm512_mask_storeu_epi32(ub + (4 * c + 2) * 32, m1, _mm512_permutex2var_epi32(a, pair1, b));
        }
    }
}

// `pack_outlier_weights_plain` with F16C's conversion (the same rounding, so the same halves), 16
// channels at a time: a 16 × 16 block of W is read row by row (16 inputs of a channel) and written
// column by column (16 channels of an input), through a transpose in registers.
VNNI static void pack_outlier_weights_avx512(const float *w, size_t n, size_t k, uint16_t *wt) {
    size_t j0 = 0;
    for (; j0 + 16 <= n; j0 += 16) {
        size_t p0 = 0;
        for (; p0 + 16 <= k; p0 += 16) {
            uint16_t block[16][16];
            for (int r = 0; r < 16; r++)
                _mm256_storeu_si256((__m256i *)block[r],
                                    _mm512_cvtps_ph(_mm512_loadu_ps(w + (j0 + (size_t)r) * k + p0), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            for (int c = 0; c < 16; c++)
                for (int r = 0; r < 16; r++) wt[(p0 + (size_t)c) * n + j0 + (size_t)r] = block[r][c];
        }
        for (; p0 < k; p0++)
            for (size_t r = 0; r < 16; r++) wt[p0 * n + j0 + r] = float_to_half(w[(j0 + r) * k + p0]);
    }
    for (; j0 < n; j0++)
        for (size_t p = 0; p < k; p++) wt[p * n + j0] = float_to_half(w[j0 * k + p]);
}
#endif

void kindred_gemm_i8(const kindred_i8_rows *rows, size_t m, const int8_t *packed, const float *wscale, const int32_t *wsum,
                     const uint16_t *wt, size_t ldwt, size_t n, size_t k, const float *bias, const float *res, size_t ldr, float *y,
                     size_t ldy) {
#ifdef KINDRED_X86
    if (have_vnni()) {
        gemm_i8_vnni(rows->codes, rows->scale, rows->zero, m, packed, wscale, wsum, n, kindred_gemm_i8_padded(k), bias, res, ldr, y, ldy);
        add_outliers_avx512(rows->outliers, rows->outlier_values, rows->outlier_count, m, kindred_gemm_i8_outlier_capacity(k), wt, ldwt, n, y, ldy);
        return;
    }
#endif
    kindred_gemm_i8_reference(rows, m, packed, wscale, wsum, wt, ldwt, n, k, bias, res, ldr, y, ldy);
}

void kindred_gemm_i8_quantize_rows(const float *x, size_t ldx, size_t m, size_t k, float spread, uint8_t *u, float *scale, int32_t *zero,
                                   int32_t *outliers, float *outlier_values, int32_t *outlier_count) {
#ifdef KINDRED_X86
    if (have_vnni()) { quantize_rows_avx512(x, ldx, m, k, spread, u, scale, zero, outliers, outlier_values, outlier_count); return; }
#endif
    quantize_rows_plain(x, ldx, m, k, spread, u, scale, zero, outliers, outlier_values, outlier_count);
}

void kindred_gemm_i8_quantize_rows_reference(const float *x, size_t ldx, size_t m, size_t k, float spread, uint8_t *u, float *scale,
                                             int32_t *zero, int32_t *outliers, float *outlier_values, int32_t *outlier_count) {
    quantize_rows_plain(x, ldx, m, k, spread, u, scale, zero, outliers, outlier_values, outlier_count);
}

void kindred_gemm_i8_pack_outlier_weights(const float *w, size_t n, size_t k, uint16_t *wt) {
#ifdef KINDRED_X86
    if (have_vnni()) { pack_outlier_weights_avx512(w, n, k, wt); return; }
#endif
    pack_outlier_weights_plain(w, n, k, wt);
}

void kindred_gemm_i8_pack_outlier_weights_reference(const float *w, size_t n, size_t k, uint16_t *wt) {
    pack_outlier_weights_plain(w, n, k, wt);
}

int kindred_gemm_i8_vectorized(void) {
#ifdef KINDRED_X86
    return have_vnni();
#else
    return 0;
#endif
}
