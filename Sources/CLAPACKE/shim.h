#ifndef KINDRED_CLAPACKE_SHIM_H
#define KINDRED_CLAPACKE_SHIM_H
#include <lapacke.h>

// lapack_int is a macro-selected typedef; expose a fixed-width wrapper for the symmetric eigensolver.
static inline int kindred_ssyevd(int n, float *a, int lda, float *w) {
    return (int)LAPACKE_ssyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)n, a, (lapack_int)lda, w);
}
#endif
