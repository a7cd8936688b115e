#ifndef KINDRED_CSQLITE_SHIM_H
#define KINDRED_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro cast Swift cannot see.
static inline sqlite3_destructor_type kindred_sqlite_transient(void) { return SQLITE_TRANSIENT; }

static inline int kindred_sqlite_bind_text(sqlite3_stmt *s, int i, const char *t, int n) {
    return sqlite3_bind_text(s, i, t, n, SQLITE_TRANSIENT);
}
static inline int kindred_sqlite_bind_blob(sqlite3_stmt *s, int i, const void *b, int n) {
    return sqlite3_bind_blob(s, i, b, n, SQLITE_TRANSIENT);
}
#endif
