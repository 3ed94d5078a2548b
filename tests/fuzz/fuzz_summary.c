/*
 * fuzz_summary.c — libFuzzer target for the per-rank summary reader
 * (src/ingest/summary.c: gpudiag.summary/1, read by `gpudiag merge`) on bytes
 * in memory, then what merge does with a summary: the cross-rank analysis, the
 * job view's JSON, and the summary written again.
 *
 * Checks beyond the sanitizers:
 *  - a failure returns no summary, a message naming the input, a status bytes
 *    can cause (FORMAT, NOMEM, or MISMATCH: another version or schema) and an
 *    offset within the bytes given;
 *  - the cross-rank analysis fails only for memory, or (MISMATCH) one rank
 *    twice or two windows of steps in the summary;
 *  - the job view and the summary written again are valid JSON;
 *  - a summary written and read back is written again to the same bytes (the
 *    exact numbers and the stored reports survive the round trip).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "model/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const WHO = "fuzz_summary";

static gpudiag_summary *read_bytes(const void *data, size_t size, gpudiag_status *st, gpudiag_error *err)
{
    gpudiag_summary *s = NULL;
    FILE *fp = size ? fmemopen((void *)(uintptr_t)data, size, "rb") : fopen("/dev/null", "rb");
    if (!fp)
        abort();
    *st = gd_summary_read_fp(fp, "fuzz.json", &s, err);
    fclose(fp);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st;
    gpudiag_summary *s = read_bytes(data, size, &st, &err);
    if (st != GPUDIAG_OK) {
        if (st == GPUDIAG_ERR_MISMATCH) /* another version: a message, the name, an offset in range */
            st = GPUDIAG_ERR_FORMAT;
        /* a gzip input's offsets count decompressed bytes (as every reader's do: "byte 33:
         * gzip stream cut short after 18 compressed bytes"), so they may pass its size */
        int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
        gd_fuzz_check_failed_read(WHO, st, &err, s, "summary", "fuzz.json", gz ? -1 : (long long)size);
        return 0;
    }
    if (!s || gpudiag_summary_rank_count(s) == 0)
        FAIL("success without a rank");
    gpudiag_cluster *c = NULL;
    st = gpudiag_summary_cluster(s, &c, &err);
    if (st == GPUDIAG_OK) {
        char *js;
        size_t jlen;
        FILE *mem = gd_fuzz_mem(&js, &jlen);
        st = gpudiag_summary_write_cluster_json(s, c, mem, GPUDIAG_JSON_PRETTY, &err);
        if (st != GPUDIAG_OK && st != GPUDIAG_ERR_FORMAT)
            FAIL("job view writer failed (%d): %s", (int)st, err.message);
        if (st == GPUDIAG_OK)
            gd_fuzz_mem_json(WHO, "job view", mem, &js, &jlen);
        else {
            fclose(mem);
            free(js);
        }
        gpudiag_cluster_free(&c);
    } else if (st == GPUDIAG_ERR_MISMATCH) {
        /* one summary can hold the same rank twice or two windows of steps (issue 22): refused */
        if (!strstr(err.message, "given twice") && !strstr(err.message, "two windows of steps"))
            FAIL("cross-rank analysis: an unexpected mismatch: %s", err.message);
    } else if (st != GPUDIAG_ERR_NOMEM) {
        FAIL("cross-rank analysis failed (%d): %s", (int)st, err.message);
    }
    /* written, read back, written again: the same bytes */
    char *a, *b;
    size_t alen, blen;
    FILE *mem = gd_fuzz_mem(&a, &alen);
    st = gpudiag_summary_write_json(s, mem, 0, &err);
    fclose(mem);
    gpudiag_summary_free(&s);
    if (st == GPUDIAG_OK) {
        gd_fuzz_check_json(WHO, "summary written again", a, alen);
        gpudiag_summary *t = read_bytes(a, alen, &st, &err);
        if (st != GPUDIAG_OK && st != GPUDIAG_ERR_NOMEM)
            FAIL("a summary gpudiag wrote does not read back (%d): %s", (int)st, err.message);
        if (t) {
            mem = gd_fuzz_mem(&b, &blen);
            if (gpudiag_summary_write_json(t, mem, 0, &err) != GPUDIAG_OK)
                FAIL("writing a summary read back failed: %s", err.message);
            fclose(mem);
            if (blen != alen || memcmp(a, b, alen) != 0)
                FAIL("a summary read back is written differently (%zu vs %zu bytes)", alen, blen);
            free(b);
            gpudiag_summary_free(&t);
        }
    } else if (st != GPUDIAG_ERR_FORMAT && st != GPUDIAG_ERR_NOMEM) {
        FAIL("summary writer failed (%d): %s", (int)st, err.message);
    }
    free(a);
    return 0;
}
