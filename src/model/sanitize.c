/*
 * sanitize.c — repairs of the model after reading (see sanitize.h and
 * docs/DEFINITIONS.md "Sanitising the timeline").
 */
#include "model/sanitize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A GPU op by (device, stream, start, index). */
typedef struct op_key {
    int64_t ts;
    int32_t device, stream;
    uint32_t idx;
    uint32_t pad;
} op_key;

static int cmp_op_key(const void *pa, const void *pb)
{
    const op_key *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int gd_clip_overruns(gpudiag_trace *t)
{
    size_t n = t->gpu_ops.len;
    if (n < 2)
        return 0;
    if (n > UINT32_MAX)
        return 0; /* the model never holds that many (analyze indexes ops by uint32) */
    op_key *k = malloc(n * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        k[i].ts = op->ts_ns;
        k[i].device = op->device;
        k[i].stream = op->stream;
        k[i].idx = (uint32_t)i;
        k[i].pad = 0;
    }
    qsort(k, n, sizeof *k, cmp_op_key);
    for (size_t i = 0; i + 1 < n; i++) {
        const op_key *a = &k[i];
        if (a->stream < 0)
            continue; /* no stream recorded: nothing says the ops were serial */
        /* the next op on this stream that starts strictly later (ops that start
         * together are not ordered: neither is clipped at the other) */
        size_t j = i + 1;
        while (j < n && k[j].device == a->device && k[j].stream == a->stream && k[j].ts == a->ts)
            j++;
        if (j >= n || k[j].device != a->device || k[j].stream != a->stream)
            continue;
        gd_gpu_op *op = gd_vec_at(&t->gpu_ops, a->idx);
        int64_t next = k[j].ts;
        if (op->dur_ns > next - op->ts_ns) {
            t->overrun_ops++;
            t->overrun_removed_ns += op->dur_ns - (next - op->ts_ns);
            op->dur_ns = next - op->ts_ns;
        }
    }
    free(k);
    return 0;
}

int gd_sanitize(gpudiag_trace *t)
{
    return gd_clip_overruns(t);
}
