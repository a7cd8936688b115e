#ifndef KINDRED_CSQLITE_SHIM_H
#define KINDRED_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro cast Swift cannot see.
static inline sqlite3_destructor_type kindred_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// Text and blobs are always bound with their byte length: a NUL inside a string is data, never
// its end. A NULL pointer would bind SQL NULL, so an empty value (whose buffer may have no address)
// is bound from a static empty string.
static inline int kindred_sqlite_bind_text(sqlite3_stmt *s, int i, const void *t, sqlite3_uint64 n) {
    return sqlite3_bind_text64(s, i, t ? (const char *)t : "", n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static inline int kindred_sqlite_bind_blob(sqlite3_stmt *s, int i, const void *b, sqlite3_uint64 n) {
    return sqlite3_bind_blob64(s, i, b ? b : "", n, SQLITE_TRANSIENT);
}
#endif
