#ifndef KINDRED_CCURL_SHIM_H
#define KINDRED_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt is variadic; typed wrappers make it callable from Swift.
static inline CURLcode kindred_curl_setopt_long(CURL *c, CURLoption o, long v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode kindred_curl_setopt_ptr(CURL *c, CURLoption o, const void *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode kindred_curl_getinfo_long(CURL *c, CURLINFO i, long *v) { return curl_easy_getinfo(c, i, v); }
#endif
