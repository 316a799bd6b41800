// The ceiling libcurl itself puts on the APNs sender: the same kind of request as
// APNsBench (POST, HTTP/2 over TLS, one connection, 100 streams in flight) from a
// plain C loop with no Swift at all. apns-bench.sh --baseline builds and runs it,
// so the sender's own overhead reads as the ratio of the two CPU figures.
//
//   curl-baseline <base-url> <ca-file> <requests> <in-flight>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s <base-url> <ca-file> <requests> <in-flight>\n", argv[0]);
        return 2;
    }
    const char *ca = argv[2];
    int total = atoi(argv[3]), in_flight = atoi(argv[4]);
    char url[512];
    snprintf(url, sizeof url, "%s/3/device/%s", argv[1],
             "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90");
    static const char body[] = "{\"aps\":{\"alert\":{\"title\":\"Boss defeated\",\"body\":\"Well played\"}}}";

    curl_global_init(CURL_GLOBAL_ALL);
    struct curl_slist *headers = NULL;
    headers = curl_slist_append(headers, "apns-push-type: alert");
    headers = curl_slist_append(headers, "apns-topic: com.example.rangers");
    headers = curl_slist_append(headers, "apns-priority: 10");
    headers = curl_slist_append(headers, "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ."
                                         "eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJlc2lnbmF0dXJl");
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);

    int started = 0, finished = 0, failed = 0, running = 0;
    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    double cpu_begin = cpu_seconds();
    for (; started < in_flight && started < total; started++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
        curl_multi_add_handle(multi, easy);
    }
    while (finished < total) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result != CURLE_OK || status != 200) {
                if (failed++ == 0) fprintf(stderr, "first failure: %s, HTTP status %ld\n",
                                           curl_easy_strerror(message->data.result), status);
            }
            finished++;
            // Reused as the sender reuses its handles: removed, then added again.
            curl_multi_remove_handle(multi, easy);
            if (started < total) {
                started++;
                curl_multi_add_handle(multi, easy);
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (finished < total) curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (end.tv_sec - begin.tv_sec) + (end.tv_nsec - begin.tv_nsec) / 1e9;
    double cpu = cpu_seconds() - cpu_begin;
    printf("bare libcurl %s (C, 1 connection, %d in flight): %.0f requests/s, CPU s/10k %.3f, failed %d\n",
           curl_version_info(CURLVERSION_NOW)->version, in_flight, total / seconds, cpu / total * 10000, failed);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    curl_global_cleanup();
    // libcurl 7.88 flags some finished streams as framing errors although the
    // answer was 200 (its HTTP/2 code resets streams it has finished): counted
    // and shown, not fatal, since the requests were served.
    return 0;
}
