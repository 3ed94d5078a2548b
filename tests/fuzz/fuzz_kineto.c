/*
 * fuzz_kineto.c — libFuzzer target for the Kineto JSON reader, followed by
 * everything a real run does with what it read: the analysis, the JSON and
 * text reports and the cross-rank comparison.  Built twice (tests/fuzz/
 * CMakeLists.txt): fuzz_kineto (the simdjson events path, GD_FUZZ_YAJL 0)
 * and fuzz_kineto_yajl (GPUDIAG_NO_SIMDJSON: the yajl-only path).  The bytes
 * are served from memory through gd_kineto_read_fp(), gzip included.
 *
 * Besides the sanitizers it checks the reader's contract: a failure sets a
 * message naming the input, a status bytes can cause (FORMAT, IO, NOMEM) and
 * no trace; a success returns a trace that analyses, and whose JSON report is
 * valid JSON (yajl says so: no nan, no broken escapes).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "gpudiag/gpudiag.h"
#include "ingest/kineto.h"

#ifndef GD_FUZZ_YAJL
#define GD_FUZZ_YAJL 0
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const WHO = "fuzz_kineto";

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
    gd_fuzz_devnull();
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
        /* the contract: no trace, a message naming the input, a status bytes can cause */
        gd_fuzz_check_failed_read(WHO, st, &err, t, "trace", "fuzz.json", -1);
        return 0;
    }
    if (!t)
        FAIL("success without a trace");
    gpudiag_report *r = NULL;
    st = gpudiag_analyze(t, NULL, &r, &err);
    gpudiag_trace_free(&t);
    if (st != GPUDIAG_OK) {
        if (st != GPUDIAG_ERR_NOMEM)
            FAIL("analysis failed (%d): %s", (int)st, err.message);
        return 0;
    }
    gd_fuzz_write_report(WHO, r, 0);
    const gpudiag_report *two[2] = {r, r};
    gpudiag_cluster *c = NULL;
    if (gpudiag_cluster_analyze(two, 2, &c, &err) == GPUDIAG_OK) {
        char *js;
        size_t jlen;
        FILE *mem = gd_fuzz_mem(&js, &jlen);
        if (gpudiag_cluster_write_json(c, two, mem, 0, &err) != GPUDIAG_OK)
            FAIL("cluster JSON writer failed: %s", err.message);
        gd_fuzz_mem_json(WHO, "cluster JSON", mem, &js, &jlen);
        gpudiag_text_opts topts = {1, 1, 80};
        if (gpudiag_cluster_write_text(c, gd_fuzz_devnull(), &topts, &err) != GPUDIAG_OK)
            FAIL("cluster text writer failed: %s", err.message);
    }
    gpudiag_cluster_free(&c);
    gpudiag_report_free(&r);
    return 0;
}
