#include "kernels.h"
#include "quantize.h"
#include "simd.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Products and sums rounded one by one, never fused: the bounds of a row are then the same bits
// whichever kernel computes them (the vector one, its scalar tail, or `kindred_i8_refine`).
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <immintrin.h>
#define KINDRED_X86 1
#endif

// Row codes: groups of 16 rows; in a group, dimension step t (4 dimensions) holds 64 bytes, row l's
// four codes at byte l * 4. One 64-byte load then feeds 16 rows' dot products at once.

static size_t code_offset(size_t slot, size_t dp, size_t j) {
    return (slot / 16) * 16 * dp + (j / 4) * 64 + (slot % 16) * 4 + (j % 4);
}

void kindred_i8_encode(const float *x, size_t d, size_t dp, int8_t *codes, size_t slot, float *scale, float *err, int32_t *csum) {
    float maxabs = kindred_max_abs(x, d);
    float s = maxabs > 0 ? maxabs / 127.0f : 0.0f;
    // In three passes the compiler can vectorise: the codes, the residual (four partial sums: the
    // order of additions moves e2 by far less than the margin added below), the scatter.
    enum { chunk = 256 };
    int8_t row[chunk];
    double e0 = 0, e1 = 0, e2 = 0, e3 = 0;
    int32_t sum = 0;
    for (size_t j0 = 0; j0 < dp; j0 += chunk) {
        size_t n = dp - j0 < chunk ? dp - j0 : chunk;
        size_t live = j0 >= d ? 0 : (d - j0 < n ? d - j0 : n);
        if (s > 0) {
            for (size_t j = 0; j < live; j++) {
                float r = kindred_round_even(x[j0 + j] / s);
                row[j] = (int8_t)(r > 127 ? 127 : (r < -127 ? -127 : r));
            }
        } else {
            for (size_t j = 0; j < live; j++) row[j] = 0;
        }
        for (size_t j = live; j < n; j++) row[j] = 0;
        size_t j = 0;
        for (; j + 4 <= live; j += 4) {
            double d0 = (double)x[j0 + j] - (double)s * (double)row[j];
            double d1 = (double)x[j0 + j + 1] - (double)s * (double)row[j + 1];
            double d2 = (double)x[j0 + j + 2] - (double)s * (double)row[j + 2];
            double d3 = (double)x[j0 + j + 3] - (double)s * (double)row[j + 3];
            e0 += d0 * d0;
            e1 += d1 * d1;
            e2 += d2 * d2;
            e3 += d3 * d3;
        }
        for (; j < live; j++) {
            double diff = (double)x[j0 + j] - (double)s * (double)row[j];
            e0 += diff * diff;
        }
        for (size_t k = 0; k < n; k++) sum += row[k];
        // dp and the chunk are multiples of 4: whole 4-byte runs of one slot.
        for (size_t k = 0; k < n; k += 4) memcpy(codes + code_offset(slot, dp, j0 + k), row + k, 4);
    }
    // Rounded up, so the stored figure bounds the true residual norm.
    *err = (float)(sqrt((e0 + e1) + (e2 + e3)) * (1 + 1e-6)) + 1e-12f;
    *scale = s;
    *csum = sum;
}

void kindred_i8_decode(const int8_t *codes, size_t slot, size_t dp, int8_t *row) {
    for (size_t j = 0; j < dp; j++) row[j] = codes[code_offset(slot, dp, j)];
}

void kindred_i8_move(int8_t *codes, size_t from, size_t to, size_t dp) {
    for (size_t j = 0; j < dp; j++) codes[code_offset(to, dp, j)] = codes[code_offset(from, dp, j)];
}

void kindred_i8_clear(int8_t *codes, size_t slot, size_t dp) {
    for (size_t j = 0; j < dp; j++) codes[code_offset(slot, dp, j)] = 0;
}

static void code_level(const double *x, size_t d, size_t dp, uint8_t *qu, float *scale) {
    double maxabs = 0;
    for (size_t j = 0; j < d; j++) { double a = fabs(x[j]); if (a > maxabs) maxabs = a; }
    float s = maxabs > 0 ? (float)(maxabs / 127.0) : 0.0f;
    for (size_t j = 0; j < dp; j++) {
        int c = 0;
        if (j < d && s > 0) {
            double r = nearbyint(x[j] / (double)s);
            c = r > 127 ? 127 : (r < -127 ? -127 : (int)r);
        }
        qu[j] = (uint8_t)(c + 128);
    }
    *scale = s;
}

double kindred_i8_query(const float *q, size_t d, size_t dp, uint8_t *qu, float *scales, double *approx_norm, double *first_level) {
    double x[d > 0 ? d : 1];
    for (size_t j = 0; j < d; j++) x[j] = q[j];
    code_level(x, d, dp, qu, &scales[0]);
    double f2 = 0, r2 = 0;
    for (size_t j = 0; j < d; j++) {
        double a = (double)scales[0] * ((int)qu[j] - 128);
        x[j] = (double)q[j] - a;
        f2 += a * a;
        r2 += x[j] * x[j];
    }
    first_level[0] = sqrt(f2) * (1 + 1e-6);
    first_level[1] = sqrt(r2) * (1 + 1e-6) + 1e-12;
    code_level(x, d, dp, qu + dp, &scales[1]);
    double e2 = 0, n2 = 0;
    for (size_t j = 0; j < d; j++) {
        double a = (double)scales[0] * ((int)qu[j] - 128) + (double)scales[1] * ((int)qu[dp + j] - 128), diff = (double)q[j] - a;
        e2 += diff * diff;
        n2 += a * a;
    }
    *approx_norm = sqrt(n2) * (1 + 1e-6);
    return sqrt(e2) * (1 + 1e-6) + 1e-12;
}

// ---------- a row's approximate score and bounds from its integer dots (one formula for every kernel) ----------

static inline float row_approx(int32_t dot, int32_t dot2, float scale, int32_t csum, float qscale, float qscale2) {
    return scale * (qscale * (float)(dot - 128 * csum) + qscale2 * (float)(dot2 - 128 * csum));
}

// Rows i..<n one by one: writes (i, approx + bound, approx − bound) after the `found` already written
// for the rows whose approx + bound ≥ floor; returns the new count.
static size_t bounds_scalar(const int32_t *dots, const int32_t *dots2, size_t i, size_t n, const float *scale, const int32_t *csum,
                            const float *err, float qscale, float qscale2, float qnorm, float slack, float floor, size_t found,
                            uint32_t *idx, float *upper, float *lower) {
    for (; i < n; i++) {
        float approx = row_approx(dots[i], dots2[i], scale[i], csum[i], qscale, qscale2), bound = qnorm * err[i] + slack, up = approx + bound;
        if (up >= floor) { idx[found] = (uint32_t)i; upper[found] = up; lower[found] = approx - bound; found++; }
    }
    return found;
}

// ---------- integer dot products: out[r] = Σⱼ qu[j] · code[r][j] (qu unsigned, codes signed) ----------

static void i8_dots_scalar(const uint8_t *qu, const int8_t *codes, size_t groups, size_t dp, int32_t *out) {
    size_t steps = dp / 4;
    for (size_t g = 0; g < groups; g++) {
        const int8_t *c = codes + g * 16 * dp;
        int32_t acc[16] = {0};
        for (size_t t = 0; t < steps; t++) {
            const int8_t *b = c + t * 64;
            const uint8_t *a = qu + t * 4;
            for (int l = 0; l < 16; l++) {
                acc[l] += (int32_t)a[0] * b[l * 4] + (int32_t)a[1] * b[l * 4 + 1] + (int32_t)a[2] * b[l * 4 + 2] + (int32_t)a[3] * b[l * 4 + 3];
            }
        }
        memcpy(out + g * 16, acc, sizeof acc);
    }
}

static void i8_dots2_scalar(const uint8_t *qu, const uint8_t *qv, const int8_t *codes, size_t groups, size_t dp, int32_t *out,
                            int32_t *out2) {
    i8_dots_scalar(qu, codes, groups, dp, out);
    i8_dots_scalar(qv, codes, groups, dp, out2);
}

#ifdef KINDRED_X86
KINDRED_CPU_CHECK(have_vnni, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))

static inline uint32_t load4(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void i8_dots_vnni(const uint8_t *qu, const int8_t *codes, size_t groups,
                                                                               size_t dp, int32_t *out) {
    size_t steps = dp / 4;
    for (size_t g = 0; g < groups; g++) {
        const int8_t *c = codes + g * 16 * dp;
        __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512(), a2 = _mm512_setzero_si512(), a3 = _mm512_setzero_si512();
        size_t t = 0;
        for (; t + 4 <= steps; t += 4) {
            a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32((int)load4(qu + t * 4)), _mm512_loadu_si512(c + t * 64));
            a1 = _mm512_dpbusd_epi32(a1, _mm512_set1_epi32((int)load4(qu + t * 4 + 4)), _mm512_loadu_si512(c + t * 64 + 64));
            a2 = _mm512_dpbusd_epi32(a2, _mm512_set1_epi32((int)load4(qu + t * 4 + 8)), _mm512_loadu_si512(c + t * 64 + 128));
            a3 = _mm512_dpbusd_epi32(a3, _mm512_set1_epi32((int)load4(qu + t * 4 + 12)), _mm512_loadu_si512(c + t * 64 + 192));
        }
        for (; t < steps; t++) a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32((int)load4(qu + t * 4)), _mm512_loadu_si512(c + t * 64));
        _mm512_storeu_si512(out + g * 16, _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3)));
    }
}

// Two query codes against each group: one load of the codes feeds both.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void i8_dots2_vnni(const uint8_t *qu, const uint8_t *qv, const int8_t *codes,
                                                                                size_t groups, size_t dp, int32_t *out, int32_t *out2) {
    size_t steps = dp / 4;
    for (size_t g = 0; g < groups; g++) {
        const int8_t *c = codes + g * 16 * dp;
        __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512(), b0 = _mm512_setzero_si512(), b1 = _mm512_setzero_si512();
        size_t t = 0;
        for (; t + 2 <= steps; t += 2) {
            __m512i x0 = _mm512_loadu_si512(c + t * 64), x1 = _mm512_loadu_si512(c + t * 64 + 64);
            a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32((int)load4(qu + t * 4)), x0);
            b0 = _mm512_dpbusd_epi32(b0, _mm512_set1_epi32((int)load4(qv + t * 4)), x0);
            a1 = _mm512_dpbusd_epi32(a1, _mm512_set1_epi32((int)load4(qu + t * 4 + 4)), x1);
            b1 = _mm512_dpbusd_epi32(b1, _mm512_set1_epi32((int)load4(qv + t * 4 + 4)), x1);
        }
        if (t < steps) {
            __m512i x0 = _mm512_loadu_si512(c + t * 64);
            a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32((int)load4(qu + t * 4)), x0);
            b0 = _mm512_dpbusd_epi32(b0, _mm512_set1_epi32((int)load4(qv + t * 4)), x0);
        }
        _mm512_storeu_si512(out + g * 16, _mm512_add_epi32(a0, a1));
        _mm512_storeu_si512(out2 + g * 16, _mm512_add_epi32(b0, b1));
    }
}

// NQ queries against two groups (32 rows) at once: each 64-byte code load feeds NQ accumulators.
#define TILE(NQ)                                                                                                               \
    __attribute__((target("avx512f,avx512bw,avx512vnni"))) static void tile##NQ(const uint8_t *qu, size_t ldq, const int8_t *c0, \
                                                                                const int8_t *c1, size_t steps, int32_t *out,  \
                                                                                size_t ldo) {                                  \
        __m512i x[NQ], y[NQ];                                                                                                  \
        for (int i = 0; i < NQ; i++) { x[i] = _mm512_setzero_si512(); y[i] = _mm512_setzero_si512(); }                        \
        for (size_t t = 0; t < steps; t++) {                                                                                   \
            __m512i b0 = _mm512_loadu_si512(c0 + t * 64), b1 = _mm512_loadu_si512(c1 + t * 64);                                \
            for (int i = 0; i < NQ; i++) {                                                                                     \
                __m512i a = _mm512_set1_epi32((int)load4(qu + i * ldq + t * 4));                                               \
                x[i] = _mm512_dpbusd_epi32(x[i], a, b0);                                                                       \
                y[i] = _mm512_dpbusd_epi32(y[i], a, b1);                                                                       \
            }                                                                                                                  \
        }                                                                                                                      \
        for (int i = 0; i < NQ; i++) {                                                                                         \
            _mm512_storeu_si512(out + i * ldo, x[i]);                                                                          \
            _mm512_storeu_si512(out + i * ldo + 16, y[i]);                                                                     \
        }                                                                                                                      \
    }
TILE(6)
TILE(1)
#undef TILE

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void i8_dots_many_vnni(const uint8_t *qu, size_t nq, const int8_t *codes,
                                                                                    size_t groups, size_t dp, int32_t *out) {
    size_t steps = dp / 4, ldo = groups * 16;
    size_t g = 0;
    for (; g + 2 <= groups; g += 2) {
        const int8_t *c0 = codes + g * 16 * dp, *c1 = c0 + 16 * dp;
        size_t i = 0;
        for (; i + 6 <= nq; i += 6) tile6(qu + i * dp, dp, c0, c1, steps, out + i * ldo + g * 16, ldo);
        for (; i < nq; i++) tile1(qu + i * dp, dp, c0, c1, steps, out + i * ldo + g * 16, ldo);
    }
    if (g < groups) {
        for (size_t i = 0; i < nq; i++) i8_dots_vnni(qu + i * dp, codes + g * 16 * dp, 1, dp, out + i * ldo + g * 16);
    }
}

// AVX2 (no VNNI): vpmaddubsw multiplies unsigned by signed bytes into saturating 16-bit pair sums,
// which 255 · 127 · 2 would overflow. So the query goes in signed, s = u − 128 ∈ [−128, 127], as
// |s| (unsigned) times c with s's sign (|s| · |c| · 2 ≤ 128 · 127 · 2 < 2¹⁵): exact Σ s·c. Then
// Σ u·c = Σ s·c + 128 · Σ c, with Σ c from a second vpmaddubsw by ones (pair sums ≤ 254, added in
// 16 bits for at most 128 steps before widening).
KINDRED_CPU_CHECK(have_avx2, __builtin_cpu_supports("avx2"))

// The query's signed codes: magnitude and sign bytes, one 32-bit broadcast per step.
typedef struct { int32_t mag, sgn; } step_code;

static void signed_steps(const uint8_t *qu, size_t steps, step_code *out) {
    for (size_t t = 0; t < steps; t++) {
        uint8_t mag[4];
        int8_t sgn[4];
        for (int j = 0; j < 4; j++) {
            int v = (int)qu[t * 4 + j] - 128;
            mag[j] = (uint8_t)(v < 0 ? -v : v);
            sgn[j] = (int8_t)(v < 0 ? -1 : (v > 0 ? 1 : 0));
        }
        memcpy(&out[t].mag, mag, 4);
        memcpy(&out[t].sgn, sgn, 4);
    }
}

// Rows 0–7 and 8–15 of one group: Σ u·c into out[0..<16] for each of nq queries, and Σ c computed once.
__attribute__((target("avx2"))) static void group_avx2(const step_code *const *q, size_t nq, const int8_t *c, size_t steps,
                                                       int32_t *const *out) {
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256(), w0 = _mm256_setzero_si256(), w1 = _mm256_setzero_si256();
    for (size_t t0 = 0; t0 < steps; t0 += 128) {
        size_t t1 = steps - t0 < 128 ? steps : t0 + 128;
        __m256i h0 = _mm256_setzero_si256(), h1 = _mm256_setzero_si256();
        for (size_t t = t0; t < t1; t++) {
            h0 = _mm256_add_epi16(h0, _mm256_maddubs_epi16(ones8, _mm256_loadu_si256((const __m256i *)(c + t * 64))));
            h1 = _mm256_add_epi16(h1, _mm256_maddubs_epi16(ones8, _mm256_loadu_si256((const __m256i *)(c + t * 64 + 32))));
        }
        w0 = _mm256_add_epi32(w0, _mm256_madd_epi16(h0, ones16));
        w1 = _mm256_add_epi32(w1, _mm256_madd_epi16(h1, ones16));
    }
    w0 = _mm256_slli_epi32(w0, 7);
    w1 = _mm256_slli_epi32(w1, 7);
    for (size_t i = 0; i < nq; i++) {
        const step_code *qs = q[i];
        s0 = w0;
        s1 = w1;
        for (size_t t = 0; t < steps; t++) {
            __m256i mag = _mm256_set1_epi32(qs[t].mag), sgn = _mm256_set1_epi32(qs[t].sgn);
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(c + t * 64)), x1 = _mm256_loadu_si256((const __m256i *)(c + t * 64 + 32));
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_maddubs_epi16(mag, _mm256_sign_epi8(x0, sgn)), ones16));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_maddubs_epi16(mag, _mm256_sign_epi8(x1, sgn)), ones16));
        }
        _mm256_storeu_si256((__m256i *)out[i], s0);
        _mm256_storeu_si256((__m256i *)(out[i] + 8), s1);
    }
}

// nq queries (dp bytes each, ldq apart) against every group; out[i · ldo + r].
static void i8_dots_avx2(const uint8_t *qu, size_t ldq, size_t nq, const int8_t *codes, size_t groups, size_t dp, int32_t *out,
                         size_t ldo) {
    size_t steps = dp / 4;
    enum { batch = 8 };
    step_code stack[batch * 128];
    step_code *all = nq * steps <= batch * 128 ? stack : malloc(nq * steps * sizeof(step_code));
    for (size_t i = 0; i < nq; i++) signed_steps(qu + i * ldq, steps, all + i * steps);
    for (size_t i0 = 0; i0 < nq; i0 += batch) {
        size_t m = nq - i0 < batch ? nq - i0 : batch;
        const step_code *q[batch];
        int32_t *o[batch];
        for (size_t i = 0; i < m; i++) q[i] = all + (i0 + i) * steps;
        for (size_t g = 0; g < groups; g++) {
            for (size_t i = 0; i < m; i++) o[i] = out + (i0 + i) * ldo + g * 16;
            group_avx2(q, m, codes + g * 16 * dp, steps, o);
        }
    }
    if (all != stack) free(all);
}

__attribute__((target("avx512f"))) static size_t i8_bounds_avx512(const int32_t *dots, const int32_t *dots2, size_t n, const float *scale,
                                                                 const int32_t *csum, const float *err, float qscale, float qscale2,
                                                                 float qnorm, float slack, float floor, uint32_t *idx, float *upper,
                                                                 float *lower) {
    size_t found = 0, i = 0;
    __m512 qs = _mm512_set1_ps(qscale), qs2 = _mm512_set1_ps(qscale2), qn = _mm512_set1_ps(qnorm), sl = _mm512_set1_ps(slack),
           fl = _mm512_set1_ps(floor);
    __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (; i + 16 <= n; i += 16) {
        __m512i off = _mm512_slli_epi32(_mm512_loadu_si512(csum + i), 7);
        __m512 r1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_loadu_si512(dots + i), off));
        __m512 r2 = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_loadu_si512(dots2 + i), off));
        __m512 approx = _mm512_mul_ps(_mm512_loadu_ps(scale + i), _mm512_add_ps(_mm512_mul_ps(qs, r1), _mm512_mul_ps(qs2, r2)));
        __m512 bound = _mm512_add_ps(_mm512_mul_ps(qn, _mm512_loadu_ps(err + i)), sl);
        __m512 up = _mm512_add_ps(approx, bound);
        __mmask16 m = _mm512_cmp_ps_mask(up, fl, _CMP_GE_OQ);
        if (m) {
            _mm512_mask_compressstoreu_epi32(idx + found, m, _mm512_add_epi32(lane, _mm512_set1_epi32((int)i)));
            _mm512_mask_compressstoreu_ps(upper + found, m, up);
            _mm512_mask_compressstoreu_ps(lower + found, m, _mm512_sub_ps(approx, bound));
            found += (size_t)__builtin_popcount(m);
        }
    }
    return bounds_scalar(dots, dots2, i, n, scale, csum, err, qscale, qscale2, qnorm, slack, floor, found, idx, upper, lower);
}
#endif

void kindred_i8_dots(const uint8_t *qu, const int8_t *codes, size_t groups, size_t dp, int32_t *out) {
#ifdef KINDRED_X86
    if (have_vnni()) { i8_dots_vnni(qu, codes, groups, dp, out); return; }
    if (have_avx2()) { i8_dots_avx2(qu, dp, 1, codes, groups, dp, out, groups * 16); return; }
#endif
    i8_dots_scalar(qu, codes, groups, dp, out);
}

void kindred_i8_dots_many(const uint8_t *qu, size_t nq, const int8_t *codes, size_t groups, size_t dp, int32_t *out) {
#ifdef KINDRED_X86
    if (have_vnni()) { i8_dots_many_vnni(qu, nq, codes, groups, dp, out); return; }
    if (have_avx2()) { i8_dots_avx2(qu, dp, nq, codes, groups, dp, out, groups * 16); return; }
#endif
    for (size_t i = 0; i < nq; i++) i8_dots_scalar(qu + i * dp, codes, groups, dp, out + i * groups * 16);
}

void kindred_i8_dots2(const uint8_t *qu, const uint8_t *qv, const int8_t *codes, size_t groups, size_t dp, int32_t *out, int32_t *out2) {
#ifdef KINDRED_X86
    if (have_vnni()) { i8_dots2_vnni(qu, qv, codes, groups, dp, out, out2); return; }
    if (have_avx2()) {
        size_t steps = dp / 4;
        step_code stack[2 * 128];
        step_code *all = steps <= 128 ? stack : malloc(2 * steps * sizeof(step_code));
        signed_steps(qu, steps, all);
        signed_steps(qv, steps, all + steps);
        const step_code *q[2] = {all, all + steps};
        for (size_t g = 0; g < groups; g++) {
            int32_t *o[2] = {out + g * 16, out2 + g * 16};
            group_avx2(q, 2, codes + g * 16 * dp, steps, o);
        }
        if (all != stack) free(all);
        return;
    }
#endif
    i8_dots2_scalar(qu, qv, codes, groups, dp, out, out2);
}

size_t kindred_i8_bounds(const int32_t *dots, const int32_t *dots2, size_t n, const float *scale, const int32_t *csum, const float *err,
                         float qscale, float qscale2, float qnorm, float slack, float floor, uint32_t *idx, float *upper, float *lower) {
#ifdef KINDRED_X86
    if (have_vnni()) return i8_bounds_avx512(dots, dots2, n, scale, csum, err, qscale, qscale2, qnorm, slack, floor, idx, upper, lower);
#endif
    return bounds_scalar(dots, dots2, 0, n, scale, csum, err, qscale, qscale2, qnorm, slack, floor, 0, idx, upper, lower);
}

void kindred_i8_refine(const uint8_t *qv, const int8_t *codes, size_t dp, size_t first, const int32_t *dots, size_t n, const uint32_t *idx,
                       const float *scale, const int32_t *csum, const float *err, float qscale, float qscale2, float qnorm, float slack,
                       float *upper, float *lower) {
    // Survivors come in slot order, often several to a group: the group's 16 second-level dots are
    // computed once (one pass of 16 · dp bytes) and kept while the next survivor is in it.
    int32_t level2[16];
    size_t cached = (size_t)-1;
    for (size_t f = 0; f < n; f++) {
        size_t r = idx[f], slot = first + r, g = slot / 16;
        if (g != cached) {
            kindred_i8_dots(qv, codes + g * 16 * dp, 1, dp, level2);
            cached = g;
        }
        float approx = row_approx(dots[r], level2[slot % 16], scale[r], csum[r], qscale, qscale2), bound = qnorm * err[r] + slack;
        upper[f] = approx + bound;
        lower[f] = approx - bound;
    }
}

int kindred_i8_vectorized(void) {
#ifdef KINDRED_X86
    return have_vnni();
#else
    return 0;
#endif
}

uint64_t kindred_checksum(const void *data, size_t n, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t a[4] = {seed ^ 0x9E3779B97F4A7C15ull, seed + 1, seed + 2, seed + 3};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * l, 8);
            a[l] = (a[l] ^ w) * 0x100000001B3ull + (a[l] >> 29);
        }
    }
    uint64_t h = a[0] ^ (a[1] * 3) ^ (a[2] * 5) ^ (a[3] * 7) ^ (uint64_t)n;
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}
