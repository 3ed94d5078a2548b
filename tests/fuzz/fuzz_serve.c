/*
 * fuzz_serve.c — libFuzzer target for the HTTP request path of
 * `gpudiag serve` (src/serve/http.c) without a socket: the bytes become a
 * request — method, raw URL with its query, and the Accept, Content-Length
 * and Transfer-Encoding headers — which is cut and %-decoded the way
 * libmicrohttpd does (the path before '?', MHD_http_unescape()) and handed to
 * gd_http_precheck() and gd_http_route(), as serve.c's handler does.  The
 * buffers served are a real rendering of the exporter's window over the
 * "test" sampler backend (made once), or none (before the first render).
 *
 * Input: byte 0 = flags (1 Accept present, 2 Content-Length present,
 * 4 Transfer-Encoding present, 8 healthy, 16 nothing rendered yet), then
 * method, URL, Accept, Content-Length, Transfer-Encoding separated by '\n'.
 *
 * Checks: the precheck answers exactly the requests that are not GET/HEAD
 * (405, empty body, Allow) or announce a body (413); the router answers
 * /metrics with the Prometheus or OpenMetrics buffer byte for byte as Accept
 * asks, /report with the JSON buffer (valid JSON), /healthz with 200 "ok" or
 * 503 and the reason, / with 200, and everything else with 404; every body is
 * NUL-terminated with body_len bytes before the NUL, the 404 text is fixed
 * (nothing of the request is echoed), and every reply has a Content-Type.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "fuzz_common.h"
#include "gpudiag/sampler.h"
#include "serve/http.h"
#include "serve/serve.h"
#include "serve/window.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *prom, *om, *rep;
static size_t prom_len, om_len, rep_len;
static const char *const WHO = "fuzz_serve";


static void render(int (*fn)(FILE *, gd_window *, int), gd_window *w, int arg, char **buf, size_t *len)
{
    FILE *fp = open_memstream(buf, len);
    if (!fp || fn(fp, w, arg) != 0 || fclose(fp) != 0)
        abort();
}

static int write_prom(FILE *fp, gd_window *w, int openmetrics)
{
    return gd_window_write_prom(w, fp, openmetrics, NAN);
}

static int write_report(FILE *fp, gd_window *w, int unused)
{
    (void)unused;
    return gd_window_write_report(w, fp);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_sampler *s = NULL;
    if (gpudiag_sampler_open("test", &s, &err) != GPUDIAG_OK)
        FAIL("the test sampler: %s", err.message);
    gd_serve_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.interval_us = 1000000;
    opts.window_us = 300 * (int64_t)1000000;
    opts.model_flops_per_token = NAN;
    opts.peak_flops_per_gpu = NAN;
    gd_window *w = gd_window_new(s, "fuzz-host", &opts);
    if (!w)
        abort();
    gd_window_sample(w, s);
    gd_window_sample(w, s);
    render(write_prom, w, 0, &prom, &prom_len);
    render(write_prom, w, 1, &om, &om_len);
    render(write_report, w, 0, &rep, &rep_len);
    gd_fuzz_check_json(WHO, "/report buffer", rep, rep_len);
    gd_window_free(&w);
    gpudiag_sampler_free(&s);
    return 0;
}

/* the next '\n'-terminated field of [*p, end) as a fresh C string */
static char *field(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, *p, n);
    s[n] = '\0';
    *p += nl ? n + 1 : n;
    return s;
}

static int is_get(const char *m)
{
    return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned flags = data[0];
    const uint8_t *p = data + 1, *end = data + size;
    char *method = field(&p, end), *raw = field(&p, end), *accept = field(&p, end), *clen = field(&p, end),
         *tenc = field(&p, end);
    /* libmicrohttpd: the path is what precedes '?', %-decoded (the query goes to the GET arguments) */
    char *path = strdup(raw);
    if (!path)
        abort();
    char *q = strchr(path, '?');
    if (q)
        *q = '\0';
    MHD_http_unescape(path);

    gd_http_req rq = {method, path, (flags & 1) ? accept : NULL, (flags & 2) ? clen : NULL, (flags & 4) ? tenc : NULL};
    gd_http_resp rs;
    int done = gd_http_precheck(&rq, &rs);
    int want_405 = !is_get(method);
    int want_413 = !want_405 && ((rq.content_length && strcmp(rq.content_length, "0") != 0) || rq.transfer_encoding);
    if (done < 0)
        goto out;
    if (done != (want_405 || want_413))
        FAIL("precheck answered %d for method '%s' (405 %d, 413 %d)", done, method, want_405, want_413);
    if (done) {
        if (want_405 && (rs.status != 405 || rs.body || !rs.allow || strcmp(rs.allow, "GET, HEAD") != 0))
            FAIL("a %s request got %u without the 405 form", method, rs.status);
        if (want_413 && (rs.status != 413 || !rs.body || !rs.type))
            FAIL("a request with a body got %u", rs.status);
        free(rs.body);
        goto out;
    }

    int healthy = (flags & 8) != 0, empty = (flags & 16) != 0;
    gd_http_state st = {empty ? NULL : prom, prom_len, empty ? NULL : om, om_len, empty ? NULL : rep, rep_len,
                        healthy, "no GPU read in the last round"};
    if (gd_http_route(&rq, &st, &rs) != 0)
        goto out;
    if (!rs.body || rs.body[rs.body_len] != '\0' || strlen(rs.body) != rs.body_len || !rs.type)
        FAIL("a reply without a NUL-terminated body of body_len bytes, or without a type");
    if (strcmp(path, "/metrics") == 0) {
        int want_om = rq.accept && strstr(rq.accept, "application/openmetrics-text");
        const char *b = empty ? "" : want_om ? om : prom;
        if (rs.status != 200 || strcmp(rs.body, b) != 0 || !rs.counts_scrape)
            FAIL("/metrics (%s) did not serve its buffer", want_om ? "OpenMetrics" : "text");
        if (!!strstr(rs.type, "openmetrics") != !!want_om)
            FAIL("/metrics content type %s for Accept '%s'", rs.type, rq.accept ? rq.accept : "(none)");
    } else if (strcmp(path, "/report") == 0) {
        if (rs.status != 200 || strcmp(rs.body, empty ? "" : rep) != 0 || strcmp(rs.type, "application/json") != 0)
            FAIL("/report did not serve the report");
    } else if (strcmp(path, "/healthz") == 0) {
        if (rs.status != (healthy ? 200u : 503u) || (healthy && strcmp(rs.body, "ok\n") != 0))
            FAIL("/healthz answered %u '%s' when healthy=%d", rs.status, rs.body, healthy);
    } else if (strcmp(path, "/") == 0) {
        if (rs.status != 200)
            FAIL("/ answered %u", rs.status);
    } else {
        if (rs.status != 404)
            FAIL("'%s' answered %u, not 404", path, rs.status);
        /* the same fixed text whatever was asked: nothing of the request is echoed */
        if (strcmp(rs.body, "not found: try /metrics, /report or /healthz\n") != 0)
            FAIL("the 404 reply is not the fixed text: '%s'", rs.body);
    }
    if (rs.counts_scrape != (strcmp(path, "/metrics") == 0))
        FAIL("counts_scrape %d for %s", rs.counts_scrape, path);
    free(rs.body);
out:
    free(path);
    free(method);
    free(raw);
    free(accept);
    free(clen);
    free(tenc);
    return 0;
}
