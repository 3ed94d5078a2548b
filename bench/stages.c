/*
 * stages.c — time each stage of `gpudiag analyze` separately on one trace.
 *
 *   stages TRACE.json[.gz] [MODE...]
 *
 * MODEs (default: all, in this order), each a separate pass over the file:
 *   inflate  read + gunzip only (src/ingest/input.c, 1 MiB reads, as the reader does)
 *   lex      inflate + yajl with no callbacks: the floor of any yajl reader
 *   lexcb    inflate + yajl with empty callbacks for every token: + callback dispatch
 *   read     gpudiag_trace_read(): the real reader (lex + our callbacks + model)
 *   analyze  gpudiag_trace_read(), then time gpudiag_analyze() alone
 *   report   ... then time gpudiag_report_write_json() to /dev/null alone
 *
 * Prints one line per mode: wall and CPU seconds, MB/s of uncompressed JSON per
 * wall second and per CPU second (the latter is the robust one on a shared VM).  Not part of
 * the product build: bench/run.sh compiles it against build-bench/libgpudiag.a.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yajl/yajl_parse.h>

#include "gpudiag/gpudiag.h"
#include "ingest/input.h"
#include "model/trace.h" /* t->bytes: decompressed bytes parsed */

#define WIN (1u << 20)

static double clk(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now(void) { return clk(CLOCK_MONOTONIC); }
static double cpu(void) { return clk(CLOCK_PROCESS_CPUTIME_ID); }
static double c0; /* CPU time at the start of the stage being timed */

static unsigned long long ntok;
static int c_null(void *c) { (void)c; ntok++; return 1; }
static int c_bool(void *c, int b) { (void)c; (void)b; ntok++; return 1; }
static int c_num(void *c, const char *s, size_t l) { (void)c; (void)s; (void)l; ntok++; return 1; }
static int c_str(void *c, const unsigned char *s, size_t l) { (void)c; (void)s; (void)l; ntok++; return 1; }
static int c_key(void *c, const unsigned char *s, size_t l) { (void)c; (void)s; (void)l; ntok++; return 1; }
static int c_cont(void *c) { (void)c; ntok++; return 1; }

static const yajl_callbacks no_cb = {0};
static const yajl_callbacks empty_cb = {c_null, c_bool, NULL, NULL, c_num, c_str,
                                        c_cont, c_key, c_cont, c_cont, c_cont};

/* mode 0: inflate only; 1: yajl without callbacks; 2: yajl with empty callbacks */
static int pass_stream(const char *path, int mode, unsigned long long *bytes)
{
    gd_input in;
    if (gd_input_open(&in, path) != 0) {
        fprintf(stderr, "stages: %s: %s\n", path, in.message);
        return -1;
    }
    unsigned char *buf = malloc(WIN);
    yajl_handle h = NULL;
    if (mode > 0) {
        h = yajl_alloc(mode == 1 ? &no_cb : &empty_cb, NULL, NULL);
        yajl_config(h, yajl_dont_validate_strings, 1);
        yajl_config(h, yajl_allow_trailing_garbage, 1);
    }
    unsigned long long total = 0, sum = 0;
    int rc = 0;
    for (;;) {
        size_t got = 0;
        gd_input_status st = gd_input_read(&in, buf, WIN, &got);
        total += got;
        if (got && mode == 0)
            sum += buf[got - 1]; /* touch the data */
        if (got && h && yajl_parse(h, buf, got) != yajl_status_ok) {
            unsigned char *e = yajl_get_error(h, 0, NULL, 0);
            fprintf(stderr, "stages: yajl: %s\n", e);
            yajl_free_error(h, e);
            rc = -1;
            break;
        }
        if (st != GD_IN_OK)
            break;
    }
    if (h) {
        if (rc == 0 && yajl_complete_parse(h) != yajl_status_ok)
            rc = -1;
        yajl_free(h);
    }
    if (sum == 42)
        fprintf(stderr, " ");
    free(buf);
    gd_input_close(&in);
    *bytes = total;
    return rc;
}

/* wall seconds, CPU seconds (this process), MB/s of uncompressed JSON per wall and per CPU second */
static void line(const char *what, double s, unsigned long long bytes)
{
    double c = cpu() - c0;
    printf("%-8s wall %7.3f s  cpu %7.3f s  %7.1f MB/s wall  %7.1f MB/s cpu\n", what, s, c,
           (double)bytes / 1e6 / s, (double)bytes / 1e6 / c);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: stages TRACE [inflate|lex|lexcb|read|analyze|report]...\n");
        return 2;
    }
    const char *path = argv[1];
    const char *all[] = {"inflate", "lex", "lexcb", "read", "analyze", "report"};
    const char **modes = argc > 2 ? (const char **)(argv + 2) : all;
    int nmodes = argc > 2 ? argc - 2 : 6;
    unsigned long long bytes = 0;
    for (int i = 0; i < nmodes; i++) {
        const char *m = modes[i];
        double t0 = now();
        c0 = cpu();
        if (!strcmp(m, "inflate") || !strcmp(m, "lex") || !strcmp(m, "lexcb")) {
            int mode = !strcmp(m, "inflate") ? 0 : !strcmp(m, "lex") ? 1 : 2;
            ntok = 0;
            if (pass_stream(path, mode, &bytes) != 0)
                return 1;
            line(m, now() - t0, bytes);
            continue;
        }
        gpudiag_error err;
        memset(&err, 0, sizeof err);
        gpudiag_trace *t = NULL;
        if (gpudiag_trace_read(path, &t, &err) != GPUDIAG_OK) {
            fprintf(stderr, "stages: read: %s\n", err.message);
            return 1;
        }
        double t1 = now();
        if (!strcmp(m, "read")) {
            line(m, t1 - t0, t->bytes ? t->bytes : 1);
            gpudiag_trace_free(&t);
            continue;
        }
        gpudiag_report *r = NULL;
        double ca = cpu();
        if (gpudiag_analyze(t, NULL, &r, &err) != GPUDIAG_OK) {
            fprintf(stderr, "stages: analyze: %s\n", err.message);
            return 1;
        }
        double t2 = now();
        if (!strcmp(m, "analyze")) {
            printf("%-8s wall %7.3f s  cpu %7.3f s  (%llu steps)\n", m, t2 - t1, cpu() - ca,
                   (unsigned long long)r->step_count);
        } else {
            FILE *null = fopen("/dev/null", "w");
            double t3 = now();
            gpudiag_report_write_json(r, null, 1, &err);
            fclose(null);
            printf("%-8s wall %7.3f s\n", m, now() - t3);
        }
        gpudiag_report_free(&r);
        gpudiag_trace_free(&t);
    }
    return 0;
}
