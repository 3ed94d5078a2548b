/*
 * fuzz_kineto.c — libFuzzer target for the Kineto JSON reader, followed by
 * everything a real run does with what it read: the analysis, the JSON and
 * text reports and the cross-rank comparison.  Built twice (tests/fuzz/
 * CMakeLists.txt): fuzz_kineto (the simdjson events path, GD_FUZZ_YAJL 0)
 * and fuzz_kineto_yajl (GPUDIAG_NO_SIMDJSON: the yajl-only path).  The bytes
 * are served from memory through gd_kineto_read_fp(), gzip included.
 *
 * Besides the sanitizers it checks the reader's contract: a failure sets a
 * message and no trace; a success returns a trace that analyses, and whose
 * JSON report is valid JSON (yajl says so: no nan, no broken escapes).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "gpudiag/gpudiag.h"
#include "ingest/kineto.h"

#ifndef GD_FUZZ_YAJL
#define GD_FUZZ_YAJL 0
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* abort() unless buf[0..len) is one valid JSON document */
static void check_json(const char *what, const char *buf, size_t len)
{
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    if (!h)
        return;
    yajl_status ys = yajl_parse(h, (const unsigned char *)buf, len);
    if (ys == yajl_status_ok)
        ys = yajl_complete_parse(h);
    if (ys != yajl_status_ok) {
        unsigned char *m = yajl_get_error(h, 1, (const unsigned char *)buf, len);
        fprintf(stderr, "fuzz_kineto: the %s is not valid JSON: %s\n", what, m ? (const char *)m : "?");
        abort();
    }
    yajl_free(h);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (GD_FUZZ_YAJL) {
        setenv("GPUDIAG_NO_SIMDJSON", "1", 1);
        setenv("GPUDIAG_NO_ISAL", "1", 1);
    } else {
        unsetenv("GPUDIAG_NO_SIMDJSON");
        unsetenv("GPUDIAG_NO_ISAL");
    }
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a private copy: fmemopen wants a writable buffer, and ASan then sees
     * every read past the end */
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    FILE *fp = fmemopen(copy, size, "rb");
    if (!fp) {
        free(copy);
        return 0;
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_trace *t = NULL;
    gpudiag_status st = gd_kineto_read_fp(fp, "fuzz.json", &t, &err);
    fclose(fp);
    free(copy);
    if (st != GPUDIAG_OK) {
        /* the contract: no trace, a message naming the input */
        if (t || !err.message[0] || strcmp(err.path, "fuzz.json") != 0)
            abort();
        if (st != GPUDIAG_ERR_FORMAT && st != GPUDIAG_ERR_IO && st != GPUDIAG_ERR_NOMEM)
            abort(); /* ERR_INTERNAL or ERR_ARG on bytes is a bug */
        return 0;
    }
    if (!t)
        abort();
    gpudiag_report *r = NULL;
    st = gpudiag_analyze(t, NULL, &r, &err);
    gpudiag_trace_free(&t);
    if (st != GPUDIAG_OK) {
        if (st != GPUDIAG_ERR_NOMEM)
            abort();
        return 0;
    }
    gpudiag_text_opts topts = {1, 1, 80};
    char *js = NULL;
    size_t jlen = 0;
    FILE *mem = open_memstream(&js, &jlen);
    if (!mem)
        abort();
    if (gpudiag_report_write_json(r, mem, 1, &err) != GPUDIAG_OK)
        abort();
    fclose(mem);
    check_json("JSON report", js, jlen);
    free(js);
    if (gpudiag_report_write_text(r, devnull, &topts, &err) != GPUDIAG_OK)
        abort();
    const gpudiag_report *two[2] = {r, r};
    gpudiag_cluster *c = NULL;
    if (gpudiag_cluster_analyze(two, 2, &c, &err) == GPUDIAG_OK) {
        js = NULL;
        jlen = 0;
        mem = open_memstream(&js, &jlen);
        if (!mem)
            abort();
        if (gpudiag_cluster_write_json(c, two, mem, 0, &err) != GPUDIAG_OK)
            abort();
        fclose(mem);
        check_json("cluster JSON", js, jlen);
        free(js);
        if (gpudiag_cluster_write_text(c, devnull, &topts, &err) != GPUDIAG_OK)
            abort();
    }
    gpudiag_cluster_free(&c);
    gpudiag_report_free(&r);
    return 0;
}
