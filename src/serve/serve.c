/*
 * serve.c — the exporter: sampling thread, rolling window, HTTP endpoints.
 */
#define _GNU_SOURCE
#include "serve/serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "gpudiag/sampler.h"
#include "gpudiag/specs.h"
#include "serve/http.h"
#include "serve/prom.h"
#include "serve/window.h"
#include "util/exit_codes.h"
#include "util/util.h"

/* Off dcgm-exporter's 9400, so both can run on one node (Prometheus's
 * registry of exporter ports, 9100-9999, is full: the port is a choice). */
#define GD_SERVE_DEFAULT_LISTEN "127.0.0.1:9401"

struct gd_server {
    gd_serve_opts opts;
    char hostname[256];
    gpudiag_sampler *sampler;
    size_t gpu_count;
    gd_window *window;               /* rolling samples + diagnosis (window.c) */

    pthread_mutex_t lock;            /* guards the fields below */
    pthread_cond_t wake;
    int stopping;
    char *metrics_text;              /* Prometheus text 0.0.4 */
    size_t metrics_len;
    char *metrics_om;                /* OpenMetrics 1.0 */
    size_t metrics_om_len;
    char *report_json;
    size_t report_len;
    int healthy;
    char health_msg[256];
    double last_render_s;
    uint64_t scrapes;

    struct MHD_Daemon *daemon;       /* NULL until listening */
    pthread_t sampler_tid;
    int have_thread;                 /* sampler_tid runs */
};

/* Render both exposition formats and the report from the window. */
static void render_all(gd_server *srv)
{
    double t0 = gd_mono_s();
    char *txt = NULL, *om = NULL, *rep = NULL;
    size_t txt_len = 0, om_len = 0, rep_len = 0;
    FILE *fp = open_memstream(&txt, &txt_len);
    int ok = fp != NULL;
    if (fp) {
        ok = gd_window_write_prom(srv->window, fp, 0, srv->last_render_s) == 0;
        ok = (fclose(fp) == 0) && ok;
    }
    fp = ok ? open_memstream(&om, &om_len) : NULL;
    if (fp) {
        ok = gd_window_write_prom(srv->window, fp, 1, srv->last_render_s) == 0;
        ok = (fclose(fp) == 0) && ok;
    } else {
        ok = 0;
    }
    fp = ok ? open_memstream(&rep, &rep_len) : NULL;
    if (fp) {
        ok = gd_window_write_report(srv->window, fp) == 0;
        ok = (fclose(fp) == 0) && ok;
    } else {
        ok = 0;
    }
    char msg[256];
    int healthy = gd_window_health(srv->window, msg, sizeof msg);

    pthread_mutex_lock(&srv->lock);
    if (ok) {
        free(srv->metrics_text);
        free(srv->metrics_om);
        free(srv->report_json);
        srv->metrics_text = txt;
        srv->metrics_len = txt_len;
        srv->metrics_om = om;
        srv->metrics_om_len = om_len;
        srv->report_json = rep;
        srv->report_len = rep_len;
        txt = om = rep = NULL;
        srv->healthy = healthy;
        snprintf(srv->health_msg, sizeof srv->health_msg, "%s", msg);
    } else {
        srv->healthy = 0;
        snprintf(srv->health_msg, sizeof srv->health_msg, "out of memory rendering the metrics");
    }
    srv->last_render_s = gd_mono_s() - t0;
    pthread_mutex_unlock(&srv->lock);
    free(txt);
    free(om);
    free(rep);
}

static void *sampling_thread(void *arg)
{
    gd_server *srv = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        gd_window_sample(srv->window, srv->sampler);
        render_all(srv);

        int64_t ns = (int64_t)next.tv_nsec + (srv->opts.interval_us % 1000000) * 1000;
        next.tv_sec += (time_t)(srv->opts.interval_us / 1000000) + (time_t)(ns / 1000000000);
        next.tv_nsec = (long)(ns % 1000000000);
        pthread_mutex_lock(&srv->lock);
        while (!srv->stopping) {
            int rc = pthread_cond_timedwait(&srv->wake, &srv->lock, &next);
            if (rc == ETIMEDOUT)
                break;
        }
        int stop = srv->stopping;
        pthread_mutex_unlock(&srv->lock);
        if (stop)
            break;
    }
    return NULL;
}

/* --- HTTP ---------------------------------------------------------------- */

/* Queue a gd_http_resp (http.h); its body is handed to libmicrohttpd. */
static enum MHD_Result reply(struct MHD_Connection *c, gd_http_resp *rs)
{
    struct MHD_Response *r = rs->body ? MHD_create_response_from_buffer(rs->body_len, rs->body, MHD_RESPMEM_MUST_FREE)
                                      : MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(rs->body);
        return MHD_NO;
    }
    if (rs->type) {
        MHD_add_response_header(r, "Content-Type", rs->type);
        MHD_add_response_header(r, "Cache-Control", "no-store");
    }
    if (rs->allow)
        MHD_add_response_header(r, "Allow", rs->allow);
    enum MHD_Result ret = MHD_queue_response(c, rs->status, r);
    MHD_destroy_response(r);
    return ret;
}

static void request_of(struct MHD_Connection *c, const char *url, const char *method, gd_http_req *rq)
{
    rq->method = method;
    rq->url = url;
    rq->accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    rq->content_length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    rq->transfer_encoding = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
    (void)version;
    (void)upload_data;
    gd_server *srv = cls;
    static int first_call_marker;
    gd_http_req rq;
    gd_http_resp rs;
    request_of(c, url, method, &rq);
    if (*con_cls == NULL) {
        /* First call, headers only: refuse what no endpoint takes before any
         * body is read (libmicrohttpd then discards it and closes). */
        *con_cls = &first_call_marker;
        int done = gd_http_precheck(&rq, &rs);
        if (done < 0)
            return MHD_NO;
        return done ? reply(c, &rs) : MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;           /* defensive: bodies were refused above */
        return MHD_YES;
    }
    pthread_mutex_lock(&srv->lock);
    gd_http_state st = {srv->metrics_text, srv->metrics_len, srv->metrics_om, srv->metrics_om_len,
                        srv->report_json, srv->report_len, srv->healthy, srv->health_msg};
    int rc = gd_http_route(&rq, &st, &rs);
    if (rc == 0 && rs.counts_scrape)
        srv->scrapes++;
    pthread_mutex_unlock(&srv->lock);
    if (rc != 0)
        return MHD_NO;
    return reply(c, &rs);
}

/* Parse "HOST:PORT", "[V6]:PORT" or ":PORT" into a socket address. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *sslen, char *why, size_t whylen)
{
    char host[256];
    const char *port;
    if (spec[0] == '[') {
        const char *end = strchr(spec, ']');
        if (!end || end[1] != ':' || (size_t)(end - spec - 1) >= sizeof host) {
            snprintf(why, whylen, "expected [ADDRESS]:PORT");
            return -1;
        }
        memcpy(host, spec + 1, (size_t)(end - spec - 1));
        host[end - spec - 1] = '\0';
        port = end + 2;
    } else {
        const char *colon = strrchr(spec, ':');
        if (!colon || (size_t)(colon - spec) >= sizeof host || strchr(spec, ':') != colon) {
            snprintf(why, whylen, "expected HOST:PORT (an IPv6 address goes in brackets)");
            return -1;
        }
        memcpy(host, spec, (size_t)(colon - spec));
        host[colon - spec] = '\0';
        port = colon + 1;
    }
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    if (!*port || *end || errno || p < 0 || p > 65535) {
        snprintf(why, whylen, "port '%s' is not a number 0..65535", port);
        return -1;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (rc != 0 || !res) {
        snprintf(why, whylen, "cannot resolve '%s': %s", host, gai_strerror(rc));
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sslen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static unsigned bound_port(struct MHD_Daemon *d)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* Fill srv->opts (defaults), srv->hostname and the sampler, and the peak
 * from the GPU table when needed (info->warning when it has none).
 * GD_EXIT_OK, or the exit status with info->error. */
static gd_exit serve_setup(gd_server *srv, const gd_serve_opts *in, struct sockaddr_storage *ss, socklen_t *sslen,
                           gd_serve_info *info)
{
    srv->opts = *in;
    if (!srv->opts.listen)
        srv->opts.listen = GD_SERVE_DEFAULT_LISTEN;
    if (srv->opts.interval_us <= 0)
        srv->opts.interval_us = 1000000;
    if (srv->opts.window_us <= 0)
        srv->opts.window_us = 300 * (int64_t)1000000;
    if (srv->opts.max_connections == 0)
        srv->opts.max_connections = 64;

    char why[300];
    if (parse_listen(srv->opts.listen, ss, sslen, why, sizeof why) != 0) {
        snprintf(info->error, sizeof info->error, "--listen %s: %s", srv->opts.listen, why);
        return GD_EXIT_USAGE;
    }

    const char *host = srv->opts.hostname;
    if (!host)
        host = getenv("NODE_NAME");
    if (host && *host)
        snprintf(srv->hostname, sizeof srv->hostname, "%s", host);
    else if (gethostname(srv->hostname, sizeof srv->hostname - 1) != 0)
        srv->hostname[0] = '\0';

    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_sampler_open(srv->opts.backend, &srv->sampler, &err);
    if (st != GPUDIAG_OK) {
        snprintf(info->error, sizeof info->error, "%s", err.message[0] ? err.message : gpudiag_strerror(st));
        return st == GPUDIAG_ERR_NODEV ? GD_EXIT_NO_DEVICE : (st == GPUDIAG_ERR_ARG ? GD_EXIT_USAGE : GD_EXIT_INTERNAL);
    }
    srv->gpu_count = gpudiag_sampler_gpu_count(srv->sampler);
    if (isnan(srv->opts.peak_flops_per_gpu) && isfinite(srv->opts.model_flops_per_token) && srv->gpu_count > 0) {
        const gpudiag_gpu_info *g0 = gpudiag_sampler_gpu(srv->sampler, 0);
        const gpudiag_gpu_spec *spec = g0 ? gpudiag_gpu_find(g0->name) : NULL;
        if (spec && srv->opts.dtype >= 0 && srv->opts.dtype < GPUDIAG_DTYPE_COUNT &&
            isfinite(spec->peak_tflops[srv->opts.dtype]))
            srv->opts.peak_flops_per_gpu = spec->peak_tflops[srv->opts.dtype] * 1e12;
        else
            snprintf(info->warning, sizeof info->warning,
                     "no peak for '%s' in %s in the GPU table: gpudiag_mfu needs --peak-tflops", g0 ? g0->name : "?",
                     gpudiag_dtype_name((gpudiag_dtype)srv->opts.dtype));
    }
    return GD_EXIT_OK;
}

gd_exit gd_serve_start(const gd_serve_opts *in, gd_server **out, gd_serve_info *info)
{
    memset(info, 0, sizeof *info);
    *out = NULL;
    gd_server *srv = calloc(1, sizeof *srv);
    if (!srv) {
        snprintf(info->error, sizeof info->error, "out of memory");
        return GD_EXIT_INTERNAL;
    }
    struct sockaddr_storage ss;
    socklen_t sslen = 0;
    gd_exit rc = serve_setup(srv, in, &ss, &sslen, info);
    if (rc != GD_EXIT_OK) {
        gpudiag_sampler_free(&srv->sampler);
        free(srv);
        return rc;
    }
    srv->window = gd_window_new(srv->sampler, srv->hostname, &srv->opts);
    if (!srv->window) {
        snprintf(info->error, sizeof info->error, "out of memory");
        gpudiag_sampler_free(&srv->sampler);
        free(srv);
        return GD_EXIT_INTERNAL;
    }
    pthread_mutex_init(&srv->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&srv->wake, &ca);
    pthread_condattr_destroy(&ca);
    srv->last_render_s = NAN;
    snprintf(srv->health_msg, sizeof srv->health_msg, "starting: no sample yet");
    *out = srv;

    /* First round before listening, so the first scrape already has data. */
    gd_window_sample(srv->window, srv->sampler);
    render_all(srv);

    srv->daemon = MHD_start_daemon(
        MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL,
        NULL, handle, srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)2, MHD_OPTION_CONNECTION_LIMIT, srv->opts.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)32, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)32768, MHD_OPTION_END);
    if (!srv->daemon) {
        snprintf(info->error, sizeof info->error, "cannot listen on %s: %s", srv->opts.listen,
                 errno ? strerror(errno) : "libmicrohttpd refused to start");
        gd_serve_stop(out);
        return GD_EXIT_INTERNAL;
    }
    if (pthread_create(&srv->sampler_tid, NULL, sampling_thread, srv) != 0) {
        snprintf(info->error, sizeof info->error, "cannot start the sampling thread");
        gd_serve_stop(out);
        return GD_EXIT_INTERNAL;
    }
    srv->have_thread = 1;
    const char *colon = strrchr(srv->opts.listen, ':');
    snprintf(info->address, sizeof info->address, "%.*s:%u", (int)(colon - srv->opts.listen), srv->opts.listen,
             bound_port(srv->daemon));
    info->gpu_count = srv->gpu_count;
    info->backend = gpudiag_sampler_backend(srv->sampler);
    info->interval_s = (double)srv->opts.interval_us / 1e6;
    return GD_EXIT_OK;
}

void gd_serve_stop(gd_server **psrv)
{
    gd_server *srv = psrv ? *psrv : NULL;
    if (!srv)
        return;
    if (srv->have_thread) {
        pthread_mutex_lock(&srv->lock);
        srv->stopping = 1;
        pthread_cond_signal(&srv->wake);
        pthread_mutex_unlock(&srv->lock);
        pthread_join(srv->sampler_tid, NULL);
    }
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    free(srv->metrics_text);
    free(srv->metrics_om);
    free(srv->report_json);
    gd_window_free(&srv->window);
    gpudiag_sampler_free(&srv->sampler);
    pthread_mutex_destroy(&srv->lock);
    pthread_cond_destroy(&srv->wake);
    free(srv);
    *psrv = NULL;
}
