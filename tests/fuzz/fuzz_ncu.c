/*
 * fuzz_ncu.c — libFuzzer target for the Nsight Compute CSV reader
 * (src/ingest/ncu.c, gpudiag_ncu_read; `gpudiag analyze --ncu FILE`).  The
 * bytes are written to a file of this process and read back.  A failure is
 * GPUDIAG_ERR_FORMAT (with "line N:" when a line is at fault) or NOMEM, never
 * ARG / INTERNAL, with a message and the file's name, and no table; a success
 * holds at least one row, every row has a name, and every count is finite and
 * >= 0 (bytes and time may be NaN: not measured).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpudiag/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/gd_fuzz_ncu.%ld.csv", (long)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp)
        abort();
    if (size && fwrite(data, 1, size, fp) != size)
        abort();
    fclose(fp);
    gpudiag_ncu *n = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_ncu_read(path, &n, &err);
    if (st != GPUDIAG_OK) {
        if (n || (st != GPUDIAG_ERR_FORMAT && st != GPUDIAG_ERR_NOMEM) || !err.message[0] ||
            strcmp(err.path, path) != 0)
            abort();
        return 0;
    }
    if (!n || n->count == 0)
        abort();
    for (size_t i = 0; i < n->count; i++) {
        const gpudiag_ncu_kernel *k = &n->kernels[i];
        if (!k->name || !isfinite(k->flops_fp64) || !isfinite(k->flops_fp32) || !isfinite(k->flops_fp16) ||
            k->flops_fp64 < 0 || k->flops_fp32 < 0 || k->flops_fp16 < 0 || k->bytes < 0 || k->time_us < 0)
            abort();
    }
    gpudiag_ncu_free(&n);
    return 0;
}
