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

/// 1 when the vector instruction path is in use (for reports).
int kindred_kernels_vectorized(void);
#endif
