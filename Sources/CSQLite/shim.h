#ifndef KINDRED_CSQLITE_SHIM_H
#define KINDRED_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <string.h>

// SQLITE_TRANSIENT is a macro cast Swift cannot see.
static inline sqlite3_destructor_type kindred_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// Turns off SQLite's memory statistics (process-wide; only before the first connection opens):
// with them on, every allocation SQLite makes takes a global mutex. Nothing here reads them.
static inline int kindred_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// Text and blobs are always bound with their byte length: a NUL inside a string is data, never
// its end. A NULL pointer would bind SQL NULL, so an empty value (whose buffer may have no address)
// is bound from a static empty string.
static inline int kindred_sqlite_bind_text(sqlite3_stmt *s, int i, const void *t, sqlite3_uint64 n) {
    return sqlite3_bind_text64(s, i, t ? (const char *)t : "", n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static inline int kindred_sqlite_bind_blob(sqlite3_stmt *s, int i, const void *b, sqlite3_uint64 n) {
    return sqlite3_bind_blob64(s, i, b ? b : "", n, SQLITE_TRANSIENT);
}

// The FTS5 tokenizer behind a keyword index, for reading texts exactly as FTS5 indexes them.
// `spec` is the table's tokenize= value ("porter unicode61 remove_diacritics 2"): the first word
// names the tokenizer, the rest are its arguments.
typedef struct {
    fts5_tokenizer api;
    Fts5Tokenizer *tokenizer;
} kindred_fts5_tokenizer;

static inline fts5_api *kindred_fts5_api(sqlite3 *db) {
    fts5_api *api = 0;
    sqlite3_stmt *s = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &s, 0) != SQLITE_OK) return 0;
    sqlite3_bind_pointer(s, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(s);
    sqlite3_finalize(s);
    return api;
}

static inline int kindred_fts5_tokenizer_open(sqlite3 *db, const char *spec, kindred_fts5_tokenizer *out) {
    char buf[256];
    const char *words[16];
    int n = 0;
    size_t len = strlen(spec);
    if (len >= sizeof buf) return SQLITE_ERROR;
    memcpy(buf, spec, len + 1);
    for (char *p = buf; *p && n < 16;) {
        while (*p == ' ') *p++ = 0;
        if (!*p) break;
        words[n++] = p;
        while (*p && *p != ' ') p++;
    }
    if (n == 0) return SQLITE_ERROR;
    fts5_api *api = kindred_fts5_api(db);
    void *user = 0;
    out->tokenizer = 0;
    if (!api || api->xFindTokenizer(api, words[0], &user, &out->api) != SQLITE_OK) return SQLITE_ERROR;
    return out->api.xCreate(user, words + 1, n - 1, &out->tokenizer);
}

static inline void kindred_fts5_tokenizer_close(kindred_fts5_tokenizer *t) {
    if (t->tokenizer) t->api.xDelete(t->tokenizer);
    t->tokenizer = 0;
}

typedef int (*kindred_fts5_token_callback)(void *ctx, int flags, const char *token, int bytes, int start, int end);

static inline int kindred_fts5_tokenize(kindred_fts5_tokenizer *t, int query, const char *text, int bytes, void *ctx,
                                        kindred_fts5_token_callback callback) {
    return t->api.xTokenize(t->tokenizer, ctx, query ? FTS5_TOKENIZE_QUERY : FTS5_TOKENIZE_DOCUMENT,
                            text ? text : "", bytes, callback);
}
#endif
