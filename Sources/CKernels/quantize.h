// Scalar helpers the int8 coders share (int8.c, gemm_i8.c); included by the .c files only.
#ifndef KINDRED_QUANTIZE_H
#define KINDRED_QUANTIZE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// x rounded to the nearest integer, ties to even, as nearbyintf in the default rounding mode, for
// |x| < 2^22 (codes stay within ±128): adding and taking away 1.5 · 2^23 leaves no fraction bits.
// Inline, where nearbyintf is a library call per component. (Without -ffast-math the compiler may
// not fold (x + big) - big to x.)
static inline float kindred_round_even(float x) {
    const float big = 12582912.0f;
    return (x + big) - big;
}

// The largest |x[j]| for j < n, from the bits: for finite floats without their sign, integer order is
// float order (a loop the compiler vectorises, where a float max is not).
static inline float kindred_max_abs(const float *x, size_t n) {
    uint32_t maxbits = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t b;
        memcpy(&b, x + j, 4);
        b &= 0x7FFFFFFFu;
        maxbits = b > maxbits ? b : maxbits;
    }
    float m;
    memcpy(&m, &maxbits, 4);
    return m;
}
#endif
