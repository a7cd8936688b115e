#include "kernels.h"
#include <string.h>

// Self-attention of one sequence: for each head, out = softmax(scale · Q·Kᵀ) · V.
//
// Q, K and V of a head are columns of the encoder's wide QKV rows (4.5 KB or more each). Read in
// place, head by head, each row is a new page where the processor's prefetchers do not follow, and
// the t rows of a head fall in a few sets of the first-level cache (a stride near a multiple of 4 KB
// maps every eighth row to the same sets). So the sequence's rows are first copied whole, in order
// (a stream the prefetchers follow), into one short contiguous block per head and part: Q (t × d),
// K (t × d, then transposed to d × t, so Q·Kᵀ is a product with long rows) and V (t × d). The copies
// move values only: the results are those of the products on the rows in place.

size_t kindred_attention_scratch(size_t t, size_t heads, size_t d) { return 3 * t * heads * d + t * d + t * t; }

void kindred_attention(const float *qkv, size_t ld, size_t t, size_t heads, size_t d, float scale, float *out, size_t ldo,
                       float *scratch) {
    size_t h = heads * d;
    float *planes = scratch, *kt = planes + 3 * t * h, *scores = kt + t * d;
    // Block (part, head) at planes + (part · heads + head) · t · d.
    for (size_t r = 0; r < t; r++) {
        const float *row = qkv + r * ld;
        for (size_t b = 0; b < 3 * heads; b++) memcpy(planes + (b * t + r) * d, row + b * d, d * sizeof(float));
    }
    for (size_t head = 0; head < heads; head++) {
        const float *q = planes + head * t * d, *k = planes + (heads + head) * t * d, *v = planes + (2 * heads + head) * t * d;
        for (size_t r = 0; r < t; r++)
            for (size_t c = 0; c < d; c++) kt[c * t + r] = k[r * d + c];
        kindred_gemm_nn(q, d, kt, t, scores, t, t, t, d, scale);
        kindred_softmax_rows(scores, t, t);
        kindred_gemm_nn(scores, t, v, d, out + head * d, ldo, t, d, t, 1);
    }
}
