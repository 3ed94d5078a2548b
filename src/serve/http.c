/*
 * http.c — the request path of `gpudiag serve` (http.h): method and body
 * checks, then the endpoints.  Pure functions of the request and the
 * rendered buffers; serve.c adapts them to libmicrohttpd.
 */
#define _POSIX_C_SOURCE 200809L
#include "serve/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_PLAIN "text/plain; charset=utf-8"

static int set_body(gd_http_resp *out, unsigned status, const char *type, const char *src, size_t len)
{
    out->status = status;
    out->type = type;
    out->body = malloc(len + 1);
    if (!out->body)
        return -1;
    if (len)
        memcpy(out->body, src, len);
    out->body[len] = '\0';
    out->body_len = len;
    return 0;
}

static int set_text(gd_http_resp *out, unsigned status, const char *text)
{
    return set_body(out, status, TEXT_PLAIN, text, strlen(text));
}

int gd_http_precheck(const gd_http_req *rq, gd_http_resp *out)
{
    memset(out, 0, sizeof *out);
    if (!rq->method || (strcmp(rq->method, "GET") != 0 && strcmp(rq->method, "HEAD") != 0)) {
        out->status = 405;
        out->allow = "GET, HEAD";
        return 1;
    }
    if ((rq->content_length && strcmp(rq->content_length, "0") != 0) || rq->transfer_encoding)
        return set_text(out, 413, "request bodies are not accepted\n") == 0 ? 1 : -1;
    return 0;
}

int gd_http_route(const gd_http_req *rq, const gd_http_state *st, gd_http_resp *out)
{
    memset(out, 0, sizeof *out);
    const char *url = rq->url ? rq->url : "";
    /* a buffer is served up to its first NUL (there is none in what the
     * renderers write; strlen keeps Content-Length and the bytes in step) */
    if (strcmp(url, "/metrics") == 0) {
        int om = rq->accept && strstr(rq->accept, "application/openmetrics-text") != NULL;
        const char *b = om ? st->metrics_om : st->metrics_text;
        size_t n = b ? strnlen(b, om ? st->metrics_om_len : st->metrics_len) : 0;
        out->counts_scrape = 1;
        return set_body(out, 200,
                        om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                           : "text/plain; version=0.0.4; charset=utf-8",
                        b ? b : "", n);
    }
    if (strcmp(url, "/report") == 0) {
        size_t n = st->report_json ? strnlen(st->report_json, st->report_len) : 0;
        return set_body(out, 200, "application/json", st->report_json ? st->report_json : "", n);
    }
    if (strcmp(url, "/healthz") == 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s\n", st->healthy ? "ok" : (st->health_msg ? st->health_msg : "unhealthy"));
        return set_text(out, st->healthy ? 200 : 503, msg);
    }
    if (strcmp(url, "/") == 0)
        return set_text(out, 200,
                        "gpudiag serve: /metrics (Prometheus, OpenMetrics with Accept), /report (JSON), /healthz\n");
    return set_text(out, 404, "not found: try /metrics, /report or /healthz\n");
}
