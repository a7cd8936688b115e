#ifndef KINDRED_CBLAS_SHIM_H
#define KINDRED_CBLAS_SHIM_H
#include <cblas.h>

// openblas_* thread control is OpenBLAS-specific; declared weakly so a netlib header still builds.
extern void openblas_set_num_threads(int num_threads) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

static inline void kindred_blas_set_threads(int n) {
    if (openblas_set_num_threads) openblas_set_num_threads(n);
}
static inline int kindred_blas_get_threads(void) {
    return openblas_get_num_threads ? openblas_get_num_threads() : 1;
}
#endif
