/*
 * fuzz_saved.c — libFuzzer target for the saved-report reader
 * (src/ingest/saved.c: gpudiag.report/1 and gpudiag.cluster/1 documents read
 * back as a side of `gpudiag compare`), through gd_side_parse_json() on the
 * bytes in memory, then the comparison of that side with itself and its JSON
 * and text output, as `gpudiag compare SAVED SAVED` does.
 *
 * Checks beyond the sanitizers:
 *  - a failure returns no side, a message naming the input, a status bytes
 *    can cause (FORMAT or NOMEM: nothing is read from a file here) and an
 *    offset within the bytes given;
 *  - the sniffer and the reader agree one way: bytes the sniffer calls a
 *    saved report start with '{' (after a BOM and blanks);
 *  - a side compared with itself changes nothing: every row's delta is 0 or
 *    NaN, the gate metric's change is 0 or NaN, and the verdict is never
 *    "improved" or "regressed";
 *  - the comparison's JSON is valid JSON; the text writer succeeds.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_side.h"
#include "fuzz_common.h"
#include "gpudiag/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const WHO = "fuzz_saved";



int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    int sniffed = gpudiag_side_sniff_json(buf, size < 256 ? size : 256);
    if (sniffed) {
        size_t i = size >= 3 && (unsigned char)buf[0] == 0xEF ? 3 : 0;
        while (i < size && strchr(" \n\r\t", buf[i]) && buf[i])
            i++;
        if (i >= size || buf[i] != '{')
            FAIL("the sniffer took bytes that do not open an object for a saved report");
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_side *side = NULL;
    gpudiag_status st = gd_side_parse_json(buf, size, "fuzz.json", &side, &err);
    free(buf);
    if (st != GPUDIAG_OK) {
        if (st == GPUDIAG_ERR_IO)
            FAIL("ERR_IO from bytes in memory: %s", err.message);
        gd_fuzz_check_failed_read(WHO, st, &err, side, "side", "fuzz.json", (long long)size);
        return 0;
    }
    if (!side)
        FAIL("success without a side");

    const gpudiag_side *one[1] = {side};
    gpudiag_comparison *c = NULL;
    st = gpudiag_compare(one, 1, one, 1, NULL, &c, &err);
    if (st != GPUDIAG_OK) {
        if (st != GPUDIAG_ERR_NOMEM)
            FAIL("comparing a side with itself failed (%d): %s", (int)st, err.message);
        gpudiag_side_free(&side);
        return 0;
    }
    for (size_t i = 0; i < c->row_count; i++) {
        double d = c->rows[i].delta;
        if (!isnan(d) && d != 0.0)
            FAIL("row %s changes by %g against itself", c->rows[i].key, d);
    }
    if (!isnan(c->metric_change) && c->metric_change != 0.0)
        FAIL("the gate metric changes by %g against itself", c->metric_change);
    if (c->verdict == GPUDIAG_CMP_IMPROVED || c->verdict == GPUDIAG_CMP_REGRESSED)
        FAIL("a side is %s against itself", gpudiag_compare_verdict_name(c->verdict));

    char *js;
    size_t jlen;
    FILE *mem = gd_fuzz_mem(&js, &jlen);
    if (gpudiag_comparison_write_json(c, mem, 1, &err) != GPUDIAG_OK)
        FAIL("JSON writer failed: %s", err.message);
    gd_fuzz_mem_json(WHO, "comparison JSON", mem, &js, &jlen);
    gpudiag_text_opts topts = {1, 1, 80};
    if (gpudiag_comparison_write_text(c, gd_fuzz_devnull(), &topts, &err) != GPUDIAG_OK)
        FAIL("text writer failed: %s", err.message);
    gpudiag_comparison_free(&c);
    gpudiag_side_free(&side);
    return 0;
}
