#define _GNU_SOURCE
#include "CCurlShim.h"

CURLcode rangers_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode rangers_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode rangers_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode rangers_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(easy, option, list);
}

CURLcode rangers_curl_easy_setopt_write_callback(CURL *easy, rangers_curl_data_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode rangers_curl_easy_setopt_header_callback(CURL *easy, rangers_curl_data_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, callback);
}

CURLMcode rangers_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLcode rangers_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode rangers_curl_easy_getinfo_private(CURL *easy, void **value) {
    char *pointer = NULL;
    CURLcode code = curl_easy_getinfo(easy, CURLINFO_PRIVATE, &pointer);
    *value = pointer;
    return code;
}

bool rangers_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int remaining = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &remaining)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return true;
        }
    }
    return false;
}

CURLcode rangers_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

const char *rangers_curl_runtime_version(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info != NULL && info->version != NULL ? info->version : "unknown";
}

unsigned int rangers_curl_runtime_version_number(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info != NULL ? info->version_num : 0;
}

bool rangers_curl_runtime_supports_http2(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info != NULL && (info->features & CURL_VERSION_HTTP2) != 0;
}

void rangers_name_current_thread(const char *name) {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
    pthread_setname_np(name);
#endif
}
