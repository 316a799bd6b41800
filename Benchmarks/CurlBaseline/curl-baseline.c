// The ceiling libcurl itself puts on the APNs sender: the requests APNsBench
// sends (POST, HTTP/2 over TLS, one connection, N streams in flight, the same
// six headers with an apns-id and a device token of its own per push, the same
// body) from a plain C loop with no Swift at all. apns-bench.sh --baseline builds
// and runs it, so the sender's own overhead reads as the ratio of the two rows.
//
//   curl-baseline <base-url> <ca-file> <requests> <in-flight> [--fixed-headers]
//                 [--rate PUSHES-PER-SECOND [--burst-ms MS]]
//
// --fixed-headers sends one header list and one URL for every request (no
// apns-id, four headers): what this baseline did before it sent APNs requests.
// --rate sends at that pace instead of as fast as it can: every --burst-ms
// (default 100, the ticker's gathering interval) the pushes due since the last
// burst, as a server's dispatcher gets them, so that the CPU per push compares
// with a server's at the same rate rather than with libcurl kept full.
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static const char *base;
static const char body[] =
    "{\"aps\":{\"timestamp\":1700000000,\"event\":\"update\",\"content-state\":{\"currentHealthLevel\":0.42,"
    "\"eventDescription\":\"Power Panda used a potion!\"},\"stale-date\":1700000060,\"relevance-score\":50}}";
// A provider token of the length of a real one (ES256: ~200 characters).
static const char authorization[] =
    "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIS0VZMDEifQ.eyJpc3MiOiJCRU5DSFRFQU0xIiwiaWF0IjoxNzAwMDAwMDAwfQ."
    "c2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXI";

// Per push, what any APNs sender must set: its own URL (device token) and apns-id.
static void prepare(CURL *easy, struct curl_slist **headers, unsigned long push) {
    char url[256], id[64];
    snprintf(url, sizeof url, "%s/3/device/%064lx", base, push % 1024 * 7919);
    unsigned long a = (unsigned long)random(), b = (unsigned long)random(), c = (unsigned long)random();
    snprintf(id, sizeof id, "apns-id: %08lx-%04lx-4%03lx-%04lx-%012lx", a & 0xffffffff, b & 0xffff, (b >> 16) & 0xfff,
             0x8000 | (c & 0x3fff), ((c >> 14) ^ (a << 20)) & 0xffffffffffff);
    curl_slist_free_all(*headers);
    struct curl_slist *list = curl_slist_append(NULL, authorization);
    list = curl_slist_append(list, "apns-push-type: liveactivity");
    list = curl_slist_append(list, "apns-topic: com.example.rangers.push-type.liveactivity");
    list = curl_slist_append(list, "apns-priority: 5");
    list = curl_slist_append(list, id);
    list = curl_slist_append(list, "content-type: application/json");
    *headers = list;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
}

int main(int argc, char **argv) {
    int fixed = 0;
    double rate = 0, burst_ms = 100;
    int usage_error = argc < 5;
    for (int i = 5; i < argc && !usage_error; i++) {
        if (strcmp(argv[i], "--fixed-headers") == 0) fixed = 1;
        else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc) rate = atof(argv[++i]);
        else if (strcmp(argv[i], "--burst-ms") == 0 && i + 1 < argc) burst_ms = atof(argv[++i]);
        else usage_error = 1;
    }
    if (usage_error) {
        fprintf(stderr, "usage: %s <base-url> <ca-file> <requests> <in-flight> [--fixed-headers]"
                        " [--rate PUSHES-PER-SECOND [--burst-ms MS]]\n", argv[0]);
        return 2;
    }
    base = argv[1];
    const char *ca = argv[2];
    int total = atoi(argv[3]), in_flight = atoi(argv[4]);
    if (total <= 0 || in_flight <= 0 || in_flight > 10000 || rate < 0 || burst_ms <= 0) {
        fprintf(stderr, "requests and in-flight must be positive (in-flight at most 10000), --rate and --burst-ms too\n");
        return 2;
    }
    char fixed_url[512];
    snprintf(fixed_url, sizeof fixed_url, "%s/3/device/%s", base,
             "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90");

    curl_global_init(CURL_GLOBAL_ALL);
    struct curl_slist *fixed_headers = NULL;
    fixed_headers = curl_slist_append(fixed_headers, "apns-push-type: alert");
    fixed_headers = curl_slist_append(fixed_headers, "apns-topic: com.example.rangers");
    fixed_headers = curl_slist_append(fixed_headers, "apns-priority: 10");
    fixed_headers = curl_slist_append(fixed_headers, authorization);
    struct curl_slist **lists = calloc((size_t)in_flight, sizeof *lists);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);

    int started = 0, finished = 0, failed = 0, running = 0;
    // Handles not in use; paced runs start them at each burst.
    CURL **idle = calloc((size_t)in_flight, sizeof *idle);
    int idle_count = 0;
    double begin = now_seconds();
    double cpu_begin = cpu_seconds();
    for (int slot = 0; slot < in_flight && slot < total; slot++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_PRIVATE, (char *)&lists[slot]);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
        if (fixed) {
            curl_easy_setopt(easy, CURLOPT_URL, fixed_url);
            curl_easy_setopt(easy, CURLOPT_HTTPHEADER, fixed_headers);
        }
        idle[idle_count++] = easy;
    }
    double next_burst = begin;
    while (finished < total) {
        // As fast as it can: every idle handle at once. Paced: what is due by now.
        int due = rate > 0 ? (int)((next_burst - begin) * rate + 0.5) : total;
        if (rate > 0 && now_seconds() >= next_burst) next_burst += burst_ms / 1000;
        while (idle_count > 0 && started < total && started < due) {
            CURL *easy = idle[--idle_count];
            if (!fixed) {
                char *slot;
                curl_easy_getinfo(easy, CURLINFO_PRIVATE, &slot);
                prepare(easy, (struct curl_slist **)slot, (unsigned long)started);
            }
            started++;
            curl_multi_add_handle(multi, easy);
        }
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
            idle[idle_count++] = easy;
        }
        // The next burst, or (kept full) the first of an answer or 100 ms.
        int wait_ms = 100;
        if (rate > 0 && started < total) {
            double until = (next_burst - now_seconds()) * 1000;
            wait_ms = until < 0 ? 0 : until < 100 ? (int)until + 1 : 100;
        }
        // Kept full, handles that just came back start again before any wait.
        int start_now = rate == 0 && idle_count > 0 && started < total;
        if (finished < total && !start_now) curl_multi_poll(multi, NULL, 0, wait_ms, NULL);
    }
    double seconds = now_seconds() - begin;
    double cpu = cpu_seconds() - cpu_begin;
    char pace[64] = "as fast as it can";
    if (rate > 0) snprintf(pace, sizeof pace, "paced at %.0f/s in bursts every %.0f ms", rate, burst_ms);
    printf("bare libcurl %s (C, 1 connection, %d in flight, %s, %s): %.0f requests/s, CPU s/10k %.3f, failed %d\n",
           curl_version_info(CURLVERSION_NOW)->version, in_flight, fixed ? "fixed headers" : "APNs requests", pace,
           total / seconds, cpu / total * 10000, failed);
    for (int i = 0; i < idle_count; i++) curl_easy_cleanup(idle[i]);
    free(idle);
    curl_multi_cleanup(multi);
    curl_slist_free_all(fixed_headers);
    for (int i = 0; i < in_flight; i++) curl_slist_free_all(lists[i]);
    free(lists);
    curl_global_cleanup();
    return failed == 0 ? 0 : 1;
}
