#ifndef KINDRED_KERNELS_H
#define KINDRED_KERNELS_H
#include <stddef.h>
#include <stdint.h>

// Scan kernels for exact vector search. Each picks the widest instruction set the CPU supports
// at run time (AVX2 + FMA + F16C on x86-64) and falls back to portable C.

/// out[i] = q · rows[i] for n rows of dimension d (row-major float32).
void kindred_dots_f32(const float *q, const float *rows, size_t n, size_t d, float *out);

/// out[i] = q · rows[i] where rows are IEEE half floats (row-major), accumulated in float32.
void kindred_dots_f16(const float *q, const uint16_t *rows, size_t n, size_t d, float *out);

/// Converts n floats to IEEE half floats (round to nearest even).
void kindred_f32_to_f16(const float *src, uint16_t *dst, size_t n);

/// y[i, j] = (accumulate ? y[i, j] : 0) + alpha · Σₚ x[i, p] · w[j, p] for i < m, j < n: x times the
/// transpose of w, every matrix row-major with its own row stride (ld*). On the calling thread.
void kindred_gemm_nt(const float *x, size_t ldx, const float *w, size_t ldw, float *y, size_t ldy, size_t m, size_t n, size_t k,
                     float alpha, int accumulate);

/// y[i, j] = alpha · Σₚ a[i, p] · b[p, j] for i < m, j < n (row-major, own row strides). On the calling thread.
void kindred_gemm_nn(const float *a, size_t lda, const float *b, size_t ldb, float *y, size_t ldy, size_t m, size_t n, size_t k,
                     float alpha);

/// Floats of scratch `kindred_attention` needs for t rows, `heads` heads of d values: 3·t·heads·d + t·d + t².
size_t kindred_attention_scratch(size_t t, size_t heads, size_t d);
/// Self-attention of one sequence of t rows, row r being [Q | K | V] (heads · d values each) at qkv + r · ld:
/// for each head, out[i, head·d ..< (head+1)·d] = Σⱼ softmax(scale · qᵢ · kⱼ)ⱼ · vⱼ (out's row stride ldo), with
/// `kindred_gemm_nn` and `kindred_softmax_rows` on copies of the rows in `scratch` (attention_scratch floats).
void kindred_attention(const float *qkv, size_t ld, size_t t, size_t heads, size_t d, float scale, float *out, size_t ldo,
                       float *scratch);

/// 1 when the vector instruction path is in use (for reports).
int kindred_kernels_vectorized(void);
// ---------- int8 row codes (int8.c) ----------
// A row x of dimension d is coded as scale · c with c ∈ [−127, 127]^d (scale = max|xⱼ| / 127), padded
// with zeros to dp (a multiple of 4) dimensions. Codes live in groups of 16 rows: in a group, each
// step of 4 dimensions holds 64 bytes, row l's four codes at byte 4·l.

/// Codes row x into slot `slot` of `codes`; sets its scale, an upper bound of ‖x − scale·c‖ and Σ c.
void kindred_i8_encode(const float *x, size_t d, size_t dp, int8_t *codes, size_t slot, float *scale, float *err, int32_t *csum);
/// Copies the dp codes of `slot` into `row` (plain order).
void kindred_i8_decode(const int8_t *codes, size_t slot, size_t dp, int8_t *row);
/// Copies the codes of slot `from` over those of slot `to`.
void kindred_i8_move(int8_t *codes, size_t from, size_t to, size_t dp);
/// Zeroes the codes of `slot`.
void kindred_i8_clear(int8_t *codes, size_t slot, size_t dp);
/// Codes query q in two levels, q ≈ s₁ · (u − 128) + s₂ · (v − 128), u = qu[0..<dp] and v = qu[dp..<2dp]
/// unsigned (the second level codes what the first leaves); sets scales[0], scales[1] and an upper bound
/// of ‖q̂‖ in *approx_norm; returns an upper bound of the residual norm ‖q − q̂‖. The first level alone,
/// q̂₁ = s₁ · (u − 128): upper bounds of ‖q̂₁‖ in first_level[0] and of ‖q − q̂₁‖ in first_level[1].
double kindred_i8_query(const float *q, size_t d, size_t dp, uint8_t *qu, float *scales, double *approx_norm, double *first_level);
/// out[r] = Σⱼ qu[j] · c[r][j] for the 16·groups rows of `codes` (exact integers).
void kindred_i8_dots(const uint8_t *qu, const int8_t *codes, size_t groups, size_t dp, int32_t *out);
/// The same for nq queries (row-major, dp bytes each): out[i · 16·groups + r].
void kindred_i8_dots_many(const uint8_t *qu, size_t nq, const int8_t *codes, size_t groups, size_t dp, int32_t *out);
/// out[r] and out2[r] for the two query codes qu and qv in one pass over the codes.
void kindred_i8_dots2(const uint8_t *qu, const uint8_t *qv, const int8_t *codes, size_t groups, size_t dp, int32_t *out, int32_t *out2);
/// From the integer dots of both query levels, approx = scale[r] · (qscale · (dots[r] − 128 · csum[r]) +
/// qscale2 · (dots2[r] − 128 · csum[r])) and bound = qnorm · err[r] + slack; writes (r, approx + bound,
/// approx − bound) for the rows whose approx + bound ≥ floor; returns how many.
size_t kindred_i8_bounds(const int32_t *dots, const int32_t *dots2, size_t n, const float *scale, const int32_t *csum, const float *err,
                         float qscale, float qscale2, float qnorm, float slack, float floor, uint32_t *idx, float *upper, float *lower);
/// The second level for the rows a first-level pass kept: for each f < n, slot first + idx[f] of `codes`,
/// whose first-level dot is dots[idx[f]] (scale, csum and err are indexed the same way), computes its
/// second-level dot with qv and writes upper[f] and lower[f] as `kindred_i8_bounds` would for the row.
void kindred_i8_refine(const uint8_t *qv, const int8_t *codes, size_t dp, size_t first, const int32_t *dots, size_t n, const uint32_t *idx,
                       const float *scale, const int32_t *csum, const float *err, float qscale, float qscale2, float qnorm, float slack,
                       float *upper, float *lower);
/// A 64-bit checksum of n bytes (not cryptographic: it detects a torn or truncated file).
uint64_t kindred_checksum(const void *data, size_t n, uint64_t seed);

// Resizes the mapped region p (old_size bytes, from mmap) to new_size bytes, moving its pages
// rather than copying them (mremap); NULL when that fails or the system has no such call.
void *kindred_remap(void *p, size_t old_size, size_t new_size);
// Asks the system to back the mapped region p (size bytes) with huge pages where it can
// (madvise MADV_HUGEPAGE, Linux): a scan over many megabytes of codes then takes far fewer TLB
// misses. A hint only: nothing changes where the system declines it or has no such call.
void kindred_advise_huge(void *p, size_t size);
/// 1 when the int8 kernels use AVX-512 VNNI.
int kindred_i8_vectorized(void);
// ---------- int8 dense products (gemm_i8.c) ----------
// y += x · Wᵀ with W [n × k] quantised per output channel j (codes c ∈ [−127, 127], W[j] ≈ wscale[j] · c[j]).
// Each row of x is split: its outliers (|x[p]| > spread · rms of the row, spread ≥ 3) stay float32 and
// are multiplied by the weights kept as half floats (wt, Wᵀ: k × n); the rest is quantised on its own
// over its range [lo, hi] (lo ≤ 0 ≤ hi), x ≈ uscale · (u − z) with u unsigned bytes and z the row's
// zero point (the code of 0), and summed exactly in int32:
//   y[i, j] += uscale[i] · wscale[j] · (Σₚ u[i, p] · c[j, p] − z[i] · Σₚ c[j, p]) + Σₒ x[i, o] · W[j, o].

/// k rounded up to a multiple of 4: the row length of codes and quantised rows.
static inline size_t kindred_gemm_i8_padded(size_t k) { return (k + 3) & ~(size_t)3; }
/// n rounded up to a multiple of 16: the channels of the packed weights and their scale and sum arrays.
static inline size_t kindred_gemm_i8_padded_channels(size_t n) { return (n + 15) & ~(size_t)15; }
/// Byte of input p of row i in quantised rows: blocks of 8 rows; in a block, step p / 4 holds 32 bytes, row
/// (i % 8)'s four codes at byte 4 · (i % 8) — the eight broadcasts of a step read one 32-byte run.
static inline size_t kindred_gemm_i8_row_offset(size_t i, size_t kp, size_t p) { return (i / 8) * 8 * kp + (p / 4) * 32 + (i % 8) * 4 + (p % 4); }
/// Bytes of the codes of m quantised rows of k values: m rounded up to a multiple of 8, times padded(k).
static inline size_t kindred_gemm_i8_rows_size(size_t m, size_t k) { return ((m + 7) & ~(size_t)7) * kindred_gemm_i8_padded(k); }
/// Most outliers a row of k values can have (k / 9 + 1): the stride of the outlier arrays.
size_t kindred_gemm_i8_outlier_capacity(size_t k);
/// Quantises W [n × k] (row-major) per row into `packed` (padded_channels(n) · padded(k) bytes, in groups
/// of 16 channels: step p / 4 of a group holds 64 bytes, channel l's four codes at byte 4 · l), sets
/// scale[j] and sum[j] = Σ codes (both padded_channels(n) long, zero past n).
void kindred_gemm_i8_pack(const float *w, size_t n, size_t k, int8_t *packed, float *scale, int32_t *sum);
/// Rows of x split as above (outliers past `spread` · rms): for row i, codes at row_offset(i, padded(k), p)
/// (padding z[i], and the rows past m of the last block of 8 all 0; rows_size(m, k) bytes), scale[i],
/// zero[i], and its outlier_count[i] outliers (ascending columns, values) at outliers / outlier_values +
/// i · capacity(k).
/// AVX-512 when the CPU has VNNI, else `kindred_gemm_i8_quantize_rows_reference`; both give the same bits.
void kindred_gemm_i8_quantize_rows(const float *x, size_t ldx, size_t m, size_t k, float spread, uint8_t *codes, float *scale, int32_t *zero,
                                   int32_t *outliers, float *outlier_values, int32_t *outlier_count);
/// The same in plain C.
void kindred_gemm_i8_quantize_rows_reference(const float *x, size_t ldx, size_t m, size_t k, float spread, uint8_t *codes, float *scale,
                                             int32_t *zero, int32_t *outliers, float *outlier_values, int32_t *outlier_count);
/// Quantised rows, as `kindred_gemm_i8_quantize_rows` writes them (pointers to row 0 of those in use).
typedef struct {
    const uint8_t *codes;
    const float *scale;
    const int32_t *zero;
    const int32_t *outliers;
    const float *outlier_values;
    const int32_t *outlier_count;
} kindred_i8_rows;
/// The product above for m quantised rows and the first n channels of `packed` (their weights
/// transposed at wt as half floats, row stride ldwt, for the outliers), added into y; or, when `bias` is
/// given (n floats), added to bias[j] — or to res[i, j] + bias[j] when `res` is given too (row stride ldr)
/// — and written over y (y's contents unread). AVX-512 VNNI for the int8 part when the CPU has it, else
/// `kindred_gemm_i8_reference`; both give the same bits.
void kindred_gemm_i8(const kindred_i8_rows *rows, size_t m, const int8_t *packed, const float *wscale, const int32_t *wsum,
                     const uint16_t *wt, size_t ldwt, size_t n, size_t k, const float *bias, const float *res, size_t ldr, float *y,
                     size_t ldy);
/// The same product in plain C.
void kindred_gemm_i8_reference(const kindred_i8_rows *rows, size_t m, const int8_t *packed, const float *wscale, const int32_t *wsum,
                               const uint16_t *wt, size_t ldwt, size_t n, size_t k, const float *bias, const float *res, size_t ldr,
                               float *y, size_t ldy);
/// The outliers' weights: W [n × k] (row-major) transposed into wt [k × n] as IEEE half floats (round
/// to nearest even). With F16C's conversion where the CPU has AVX-512 VNNI, else
/// `kindred_gemm_i8_pack_outlier_weights_reference`; both give the same bits.
void kindred_gemm_i8_pack_outlier_weights(const float *w, size_t n, size_t k, uint16_t *wt);
/// The same in plain C.
void kindred_gemm_i8_pack_outlier_weights_reference(const float *w, size_t n, size_t k, uint16_t *wt);
/// 1 when `kindred_gemm_i8` uses AVX-512 VNNI.
int kindred_gemm_i8_vectorized(void);
// ---------- LayerNorm (layer_norm.c) ----------
/// Each of `rows` rows of n floats in place: (x − mean) / √(var + eps) · gamma + beta, variance biased. AVX-512
/// where the CPU has it.
void kindred_layer_norm(float *x, size_t rows, size_t n, const float *gamma, const float *beta, float eps);
/// The same in plain C (the same bits).
void kindred_layer_norm_reference(float *x, size_t rows, size_t n, const float *gamma, const float *beta, float eps);
// ---------- activations (activations.c) ----------
// Separate IEEE operations and fused multiply-adds written out (never contracted by the compiler):
// the AVX-512 path and the plain C reference give the same bits.

/// eˣ (Cephes `expf`: range reduction by ln 2, degree-6 polynomial), about 1 ulp; x clamped to [−87.3, 88.7].
float kindred_expf(float x);
/// erf(x) as x·P(x²)/Q(x²) on x clamped to [−4, 4] (the rational form Eigen and XLA use); within 4.2e-7.
float kindred_erff(float x);
/// GELU in place, erf form: 0.5·x·(1 + erf(x/√2)). AVX-512 where the CPU has it.
void kindred_gelu(float *x, size_t n);
/// The same in plain C.
void kindred_gelu_reference(float *x, size_t n);
/// Softmax of each row of a rows × cols matrix in place (each row's maximum taken off first). AVX-512 where the CPU has it.
void kindred_softmax_rows(float *x, size_t rows, size_t cols);
/// The same in plain C.
void kindred_softmax_rows_reference(float *x, size_t rows, size_t cols);
#endif
