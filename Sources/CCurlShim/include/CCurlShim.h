#ifndef RANGERS_CCURLSHIM_H
#define RANGERS_CCURLSHIM_H

// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which
// Swift cannot call, and passing the wrong type through `...` is undefined
// behaviour that no compiler catches. Each wrapper here takes exactly one type,
// so a mismatch becomes a compile error on the Swift side.
//
// Constants curl defines as macros with casts or shifts do not import into
// Swift; the ones the transport needs are repeated here as typed values.

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>

/// The signature of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*rangers_curl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);

// MARK: easy options

CURLcode rangers_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
/// libcurl copies the string (every string option but CURLOPT_POSTFIELDS).
CURLcode rangers_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
/// For options that keep a pointer the caller owns: CURLOPT_PRIVATE, *DATA, CURLOPT_ERRORBUFFER, CURLOPT_POSTFIELDS.
CURLcode rangers_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
/// libcurl keeps the list without copying: it must outlive the transfer.
CURLcode rangers_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *list);
CURLcode rangers_curl_easy_setopt_write_callback(CURL *easy, rangers_curl_data_callback callback);
CURLcode rangers_curl_easy_setopt_header_callback(CURL *easy, rangers_curl_data_callback callback);

// MARK: multi options

CURLMcode rangers_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

// MARK: information

CURLcode rangers_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
/// CURLINFO_PRIVATE: the pointer set with CURLOPT_PRIVATE.
CURLcode rangers_curl_easy_getinfo_private(CURL *easy, void **value);

/// Reads the next CURLMSG_DONE message, skipping others. Returns false when the
/// queue is empty. Spares Swift the union inside CURLMsg.
bool rangers_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

// MARK: library

/// curl_global_init(CURL_GLOBAL_DEFAULT); the flag is a macro Swift cannot see.
CURLcode rangers_curl_global_init_default(void);
/// "7.88.1": the libcurl this process runs with, not the one it was compiled against.
const char *rangers_curl_runtime_version(void);
/// 0xXXYYZZ for version XX.YY.ZZ of the running libcurl (0 if it does not say).
unsigned int rangers_curl_runtime_version_number(void);
/// Whether the running libcurl was built with HTTP/2 (CURL_VERSION_HTTP2).
bool rangers_curl_runtime_supports_http2(void);

// MARK: constants

static const long RANGERS_CURLPIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;
static const long RANGERS_CURL_HTTP_VERSION_2TLS = CURL_HTTP_VERSION_2TLS;
static const long RANGERS_CURL_SSLVERSION_TLSv1_2 = CURL_SSLVERSION_TLSv1_2;
static const size_t RANGERS_CURL_ERROR_SIZE = CURL_ERROR_SIZE;

// MARK: threads

#include <pthread.h>

/// Names the calling thread in the kernel (15 characters at most on Linux), as
/// `top -H` and profilers show it.
void rangers_name_current_thread(const char *name);

#endif
