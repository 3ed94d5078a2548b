#define _GNU_SOURCE /* memmem */
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
 * valid JSON (yajl says so: no nan, no broken escapes).  fuzz_kineto also
 * reads each input a second time with the events parsed on 2 threads in
 * 128-byte windows (issue 24) and checks that the status, the message and
 * its offset, and the JSON report are the same byte for byte; and a third
 * time so from a temporary file, where a plain input's windows are parsed in
 * the workers' maps of the file instead of copied (kineto_par.c).  The
 * 2-thread reads are also analysed with gpudiag_analyze_opts.threads = 2.
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
        setenv("GPUDIAG_PARSE_WINDOW", "128", 1); /* many windows in a small input */
    }
    gd_fuzz_devnull();
    return 0;
}

/* The input read with opts.threads = threads. */
static gpudiag_status read_mem(const uint8_t *data, size_t size, int threads, gpudiag_trace **t, gpudiag_error *err)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return GPUDIAG_ERR_NOMEM;
    if (size)
        memcpy(copy, data, size);
    FILE *fp = fmemopen(copy, size, "rb");
    if (!fp) {
        free(copy);
        return GPUDIAG_ERR_NOMEM;
    }
    gpudiag_read_opts o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    gpudiag_status st = gd_kineto_read_fp_opts(fp, "fuzz.json", &o, t, err);
    fclose(fp);
    free(copy);
    return st;
}

/* The input written to a temporary file and read from it with opts.threads
 * = threads (a plain file is mapped: the path a stream does not take). */
static gpudiag_status read_file(const uint8_t *data, size_t size, int threads, gpudiag_trace **t, gpudiag_error *err)
{
    FILE *fp = tmpfile();
    if (!fp)
        return GPUDIAG_ERR_NOMEM;
    if ((size && fwrite(data, 1, size, fp) != size) || fflush(fp) != 0 || fseeko(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return GPUDIAG_ERR_NOMEM; /* not the reader's doing: skipped as out of memory is */
    }
    gpudiag_read_opts o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    gpudiag_status st = gd_kineto_read_fp_opts(fp, "fuzz.json", &o, t, err);
    fclose(fp);
    return st;
}

/* The JSON report of t (not freed) analysed on `threads` threads, or NULL
 * when the analysis fails. */
static char *report_json(const gpudiag_trace *t, size_t *len, int threads)
{
    gpudiag_error err;
    gpudiag_report *r = NULL;
    gpudiag_analyze_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.threads = threads; /* > 1: the analysis' split passes too (issue 24) */
    if (gpudiag_analyze(t, &ao, &r, &err) != GPUDIAG_OK)
        return NULL;
    char *buf = NULL;
    FILE *mem = open_memstream(&buf, len);
    if (mem) {
        if (gpudiag_report_write_json(r, mem, 1, &err) != GPUDIAG_OK)
            *len = 0;
        fclose(mem);
    }
    gpudiag_report_free(&r);
    return buf;
}

/* Drop yajl's words after "malformed event[s] skipped; the first at byte N: "
 * in a JSON report (up to the closing quote), in place; returns the new length.
 * yajl words the same error differently with where its input chunks end
 * ("unallowed token at this point in JSON text" / "after array element, I
 * expect ',' or ']'"), and the serial reader already did so between an input
 * read through fmemopen and the same bytes read from a file: the count and
 * the byte offset are compared, the words are not (seed
 * regress/fuzz_kineto/par_yajl_words_by_chunk.json, found by CI 2026-12-03). */
static size_t drop_yajl_words(char *j, size_t n)
{
    static const char key[] = " skipped; the first at byte "; /* "1 malformed event" or "2 ... events" */
    const size_t k = sizeof key - 1;
    size_t o = 0, i = 0;
    for (;;) {
        /* memmem, not a memcmp at every byte: under libFuzzer each memcmp is traced, and a
         * report of a few MB took > 10 s on a loaded machine (a timeout, seed 31) */
        const char *hit = i < n ? memmem(j + i, n - i, key, k) : NULL;
        size_t upto = hit ? (size_t)(hit - j) + k : n;
        memmove(j + o, j + i, upto - i);
        o += upto - i;
        i = upto;
        if (!hit)
            return o;
        while (i < n && j[i] >= '0' && j[i] <= '9')
            j[o++] = j[i++];
        while (i < n && j[i] != '"')
            i++;
    }
}

/* Issue 24: the same input parsed on 2 threads gives the same result, from
 * memory (windows copied) and from a file (mapped: from_file). */
static void check_parallel_one(const uint8_t *data, size_t size, gpudiag_status st, const gpudiag_error *err,
                               const gpudiag_trace *t, int from_file)
{
    gpudiag_error err2;
    memset(&err2, 0, sizeof err2);
    gpudiag_trace *t2 = NULL;
    gpudiag_status st2 = from_file ? read_file(data, size, 2, &t2, &err2) : read_mem(data, size, 2, &t2, &err2);
    const char *how = from_file ? "2 threads from a file" : "2 threads";
    if (st2 == GPUDIAG_ERR_NOMEM || st == GPUDIAG_ERR_NOMEM) {
        gpudiag_trace_free(&t2);
        return;
    }
    if (st2 != st)
        FAIL("%s: status %d, one thread %d", how, (int)st2, (int)st);
    if (st != GPUDIAG_OK) {
        if (err2.offset != err->offset || strcmp(err2.message, err->message) != 0)
            FAIL("%s: error at %lld \"%s\", one thread at %lld \"%s\"", how, (long long)err2.offset,
                 err2.message, (long long)err->offset, err->message);
        return;
    }
    size_t l1 = 0, l2 = 0;
    char *j1 = report_json(t, &l1, 1), *j2 = report_json(t2, &l2, 2);
    if (j1 && j2) {
        l1 = drop_yajl_words(j1, l1);
        l2 = drop_yajl_words(j2, l2);
    }
    if (j1 && j2 && (l1 != l2 || memcmp(j1, j2, l1) != 0))
        FAIL("%s: the JSON report differs from one thread's", how);
    free(j1);
    free(j2);
    gpudiag_trace_free(&t2);
}

static void check_parallel(const uint8_t *data, size_t size, gpudiag_status st, const gpudiag_error *err,
                           const gpudiag_trace *t)
{
    check_parallel_one(data, size, st, err, t, 0);
    check_parallel_one(data, size, st, err, t, 1);
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
        if (!GD_FUZZ_YAJL)
            check_parallel(data, size, st, &err, NULL);
        return 0;
    }
    if (!t)
        FAIL("success without a trace");
    if (!GD_FUZZ_YAJL)
        check_parallel(data, size, st, &err, t);
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
