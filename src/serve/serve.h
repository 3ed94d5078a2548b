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
    const char *listen;        /* "HOST:PORT", "[V6]:PORT" or ":PORT"; default "127.0.0.1:9400" */
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
} gd_serve_opts;

/* Run the exporter until SIGTERM or SIGINT (or run_for_us).  Prints one
 * line to stderr with the address it listens on.  Returns the process exit
 * status (util/exit_codes.h): GD_EXIT_OK clean shutdown, GD_EXIT_USAGE bad
 * --listen, GD_EXIT_NO_DEVICE no GPU/driver (message names what was looked
 * for), GD_EXIT_INTERNAL could not listen or start a thread. */
gd_exit gd_serve_run(const gd_serve_opts *opts);

#endif
