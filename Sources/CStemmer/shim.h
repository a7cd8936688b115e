#ifndef KINDRED_CSTEMMER_SHIM_H
#define KINDRED_CSTEMMER_SHIM_H
// The Snowball stemmers (Debian's libstemmer-dev). A stemmer is not thread-safe: one per caller at a
// time. Words and stems are UTF-8; the stem's buffer belongs to the stemmer and lives until its next call.
#include <libstemmer.h>

// The stem of `word` (`size` bytes), written to `out` (at most `capacity` bytes); returns its
// length, or -1 when the stemmer ran out of memory or the stem does not fit.
static inline int kindred_stem(struct sb_stemmer *stemmer, const unsigned char *word, int size, unsigned char *out, int capacity) {
    const sb_symbol *stem = sb_stemmer_stem(stemmer, word, size);
    if (!stem) return -1;
    int n = sb_stemmer_length(stemmer);
    if (n > capacity) return -1;
    for (int i = 0; i < n; i++) out[i] = stem[i];
    return n;
}
#endif
