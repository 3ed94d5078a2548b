/*
 * http.h — the request path of `gpudiag serve` without the socket: what a
 * request (method, decoded path, three headers) gets in reply, given the
 * buffers the sampling thread rendered last.  serve.c's libmicrohttpd handler
 * only fills a gd_http_req from the connection and queues the gd_http_resp;
 * the fuzz target tests/fuzz/fuzz_serve.c drives these functions directly.
 * No locking here: the caller holds the server's lock around gd_http_route().
 */
#ifndef GD_SERVE_HTTP_H
#define GD_SERVE_HTTP_H

#include <stddef.h>

/* A request as libmicrohttpd hands it over: url is the path, %-decoded,
 * without the query string.  Header values are NULL when absent. */
typedef struct gd_http_req {
    const char *method;
    const char *url;
    const char *accept;            /* Accept */
    const char *content_length;    /* Content-Length */
    const char *transfer_encoding; /* Transfer-Encoding */
} gd_http_req;

/* What the sampling thread rendered last (serve.c's gd_server fields). */
typedef struct gd_http_state {
    const char *metrics_text; /* Prometheus text 0.0.4; NULL before the first render */
    size_t metrics_len;
    const char *metrics_om;   /* OpenMetrics 1.0 */
    size_t metrics_om_len;
    const char *report_json;  /* gpudiag.report/1 */
    size_t report_len;
    int healthy;              /* 1: the last round read a GPU */
    const char *health_msg;   /* why not, when not healthy */
} gd_http_state;

/* A reply.  body is malloc'd (NUL-terminated, body_len bytes before the NUL)
 * and owned by the caller, or NULL for an empty body.  type: the
 * Content-Type (static), NULL with an empty body.  allow: the Allow header
 * (static) or NULL.  counts_scrape: 1 for a /metrics reply (serve.c counts). */
typedef struct gd_http_resp {
    unsigned status;
    const char *type;
    const char *allow;
    char *body;
    size_t body_len;
    int counts_scrape;
} gd_http_resp;

/* The first look at a request, headers only, before any body is read:
 * a method other than GET and HEAD gets 405 with an empty body and
 * "Allow: GET, HEAD"; a request announcing a body (a Content-Length other
 * than "0", or any Transfer-Encoding) gets 413.  Returns 1 with *out filled
 * when the request is answered here, 0 when it goes on to gd_http_route(),
 * -1 when out of memory. */
int gd_http_precheck(const gd_http_req *rq, gd_http_resp *out);

/* The reply to a request that passed gd_http_precheck(): /metrics (OpenMetrics
 * when Accept names application/openmetrics-text, else Prometheus text),
 * /report (JSON), /healthz (200 "ok" or 503 with the reason), / (an index),
 * anything else 404.  The reply never repeats the request's bytes.
 * Returns 0 with *out filled, or -1 when out of memory. */
int gd_http_route(const gd_http_req *rq, const gd_http_state *st, gd_http_resp *out);

#endif
