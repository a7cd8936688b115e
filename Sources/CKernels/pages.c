// Growing a region of whole pages without copying it: mremap moves the pages (Linux). Elsewhere the
// caller maps a new region and copies. And the huge-page hint for such a region.
#define _GNU_SOURCE
#include "kernels.h"
#include <sys/mman.h>

void *kindred_remap(void *p, size_t old_size, size_t new_size) {
#if defined(__linux__)
    void *q = mremap(p, old_size, new_size, MREMAP_MAYMOVE);
    return q == MAP_FAILED ? NULL : q;
#else
    (void)p; (void)old_size; (void)new_size;
    return NULL;
#endif
}

void kindred_advise_huge(void *p, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(p, size, MADV_HUGEPAGE);
#else
    (void)p; (void)size;
#endif
}
