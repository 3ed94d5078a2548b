/*
 * serve.h — `gpudiag serve`: a Prometheus exporter over the live sampler.
 *
 * One sampling thread reads every GPU each interval, keeps a rolling window,
 * and renders /metrics and /report into fresh buffers that it swaps in under
 * a mutex; HTTP handlers (libmicrohttpd, a small thread pool) only copy the
 * current buffer, so a slow or dead client never delays sampling and
 * concurrent scrapes never sample twice.  Connections, per-connection memory
 * and request sizes are bounded (docs/SERVE.md).
 */
#ifndef GD_SERVE_SERVE_H
#define GD_SERVE_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "util/exit_codes.h"

typedef struct gd_serve_opts {
    const char *listen;        /* "HOST:PORT", "[V6]:PORT" or ":PORT"; default "127.0.0.1:9401" */
    int64_t interval_us;       /* sampling interval, µs (default 1 s) */
    int64_t window_us;         /* rolling window for the diagnosis, µs (default 5 min) */
    const char *backend;       /* sampler backend: NULL/"auto", "nvml", "test" */
    const char *hostname;      /* Hostname label; NULL: $NODE_NAME, else gethostname() */
    const char *markers;       /* step-marker file ("step N [tokens T]" lines), NULL none */
    double model_flops_per_token; /* for gpudiag_mfu; NaN when unknown */
    double peak_flops_per_gpu; /* dense peak FLOP/s of one GPU; NaN: from the GPU table (gpudiag_gpu_find) */
    int dtype;                 /* gpudiag_dtype for the table's peak */
    unsigned max_connections;  /* 0: 64 */
    int64_t run_for_us;        /* stop after this long (tests); 0 = until SIGTERM/SIGINT */
    int dcgm_names;            /* 1: --metric-names dcgm (DCGM_FI_* names); 0: gpudiag_* names (default) */
} gd_serve_opts;

/* A running exporter (serve.c): its sampling thread and HTTP daemon. */
typedef struct gd_server gd_server;

/* What gd_serve_start says, for the caller to show: the library prints
 * nothing and leaves signals to the caller. */
typedef struct gd_serve_info {
    char address[320];   /* the listening HOST:PORT, the port as bound (--listen :0) */
    size_t gpu_count;
    const char *backend; /* the sampler backend's name (static) */
    double interval_s;   /* sampling interval, seconds */
    char warning[300];   /* "" or one line worth showing (no peak for gpudiag_mfu) */
    char error[1024];    /* why the start failed, "" on success */
} gd_serve_info;

/* Start the exporter: open the sampler, take a first sample, listen, start
 * the sampling thread.  Threads it starts inherit the caller's signal mask:
 * block SIGTERM/SIGINT first to keep them on the caller's thread, and ignore
 * SIGPIPE (a client that goes away mid-response).  Returns GD_EXIT_OK with
 * *srv (stop it with gd_serve_stop) and info filled, else, with *srv NULL
 * and info->error: GD_EXIT_USAGE bad --listen or backend, GD_EXIT_NO_DEVICE
 * no GPU/driver (the message names what was looked for), GD_EXIT_INTERNAL
 * out of memory, could not listen or start a thread. */
gd_exit gd_serve_start(const gd_serve_opts *opts, gd_server **srv, gd_serve_info *info);

/* Stop the sampling thread and the daemon, free everything, set *srv to
 * NULL (NULL or *srv NULL: nothing). */
void gd_serve_stop(gd_server **srv);

#endif
