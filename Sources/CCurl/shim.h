#ifndef KINDRED_CCURL_SHIM_H
#define KINDRED_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic; typed wrappers make them callable from Swift.
static inline CURLcode kindred_curl_setopt_long(CURL *c, CURLoption o, long v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode kindred_curl_setopt_ptr(CURL *c, CURLoption o, const void *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode kindred_curl_setopt_off(CURL *c, CURLoption o, curl_off_t v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode kindred_curl_getinfo_long(CURL *c, CURLINFO i, long *v) { return curl_easy_getinfo(c, i, v); }
static inline CURLcode kindred_curl_getinfo_off(CURL *c, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(c, i, v); }

typedef size_t (*kindred_curl_write_fn)(char *data, size_t size, size_t count, void *user);
typedef int (*kindred_curl_progress_fn)(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode kindred_curl_setopt_write(CURL *c, kindred_curl_write_fn f) { return curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode kindred_curl_setopt_progress(CURL *c, kindred_curl_progress_fn f) { return curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, f); }
#endif
