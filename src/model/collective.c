/*
 * collective.c — the kind of collective a communication kernel runs (collective.h;
 * docs/DEFINITIONS.md "Communication", collective kinds).
 */
#include "model/collective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* s lower-cased without '_' into out (at most cap - 1 bytes kept); returns the length. */
static size_t fold(const char *s, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        char c = s[i];
        if (c == '_')
            continue;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        out[n++] = c;
    }
    out[n] = '\0';
    return n;
}

static int has(const char *f, const char *lit) { return strstr(f, lit) != NULL; }

static int starts(const char *f, const char *lit) { return strncmp(f, lit, strlen(lit)) == 0; }

int gd_coll_kind_from_text(const char *s, size_t len)
{
    char f[96];
    fold(s, len, f, sizeof f);
    if (has(f, "alltoall"))
        return GPUDIAG_COMM_ALL_TO_ALL;
    if (has(f, "allreduce"))
        return GPUDIAG_COMM_ALL_REDUCE;
    if (has(f, "allgather"))
        return GPUDIAG_COMM_ALL_GATHER;
    if (has(f, "reducescatter"))
        return GPUDIAG_COMM_REDUCE_SCATTER;
    if (has(f, "broadcast") || starts(f, "bcast") || starts(f, "ibcast"))
        return GPUDIAG_COMM_BROADCAST;
    /* point-to-point: send, recv, isend, irecv, sendrecv, recvanysource, MPI's
     * ssend/bsend/rsend/issend/mrecv; PyTorch's "send 0->1" record names */
    static const char *const p2p[] = {"send", "recv", "isend", "irecv", "ssend", "bsend", "rsend",
                                      "issend", "ibsend", "irsend", "mrecv", "imrecv", "p2p", "batchisendirecv"};
    for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++)
        if (starts(f, p2p[i]))
            return GPUDIAG_COMM_SEND_RECV;
    /* a known collective outside the table: reduce, gather, scatter, barrier,
     * MPI's scan / exscan, wait and test on requests */
    static const char *const other[] = {"reduce", "gather", "scatter", "barrier", "ireduce", "igather",
                                        "iscatter", "ibarrier", "scan", "exscan", "iscan", "iexscan"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (starts(f, other[i]))
            return GPUDIAG_COMM_OTHER;
    return -1;
}

int gd_coll_is_mpi(const char *s, size_t len)
{
    return gd_starts_with(s, len, "MPI_") || gd_starts_with(s, len, "PMPI_");
}

int gd_coll_kind_from_host(const char *s, size_t len)
{
    static const char *const prefixes[] = {"nccl:", "gloo:", "ucc:", "mpi:", "xccl:", "c10d::", "PMPI_", "MPI_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t pl = strlen(prefixes[i]);
        if (!gd_starts_with(s, len, prefixes[i]))
            continue;
        int k = gd_coll_kind_from_text(s + pl, len - pl);
        if (k < 0 && pl >= 4 && (prefixes[i][0] == 'M' || prefixes[i][0] == 'P')) {
            /* MPI requests and the rest of MPI's communication calls */
            char f[64];
            fold(s + pl, len - pl, f, sizeof f);
            if (starts(f, "wait") || starts(f, "test") || starts(f, "put") || starts(f, "get") ||
                starts(f, "accumulate") || starts(f, "neighbor") || starts(f, "win") || starts(f, "probe") ||
                starts(f, "iprobe") || starts(f, "start") || starts(f, "alltoall"))
                k = GPUDIAG_COMM_OTHER;
        }
        return k;
    }
    /* NCCL's API and NVTX names: ncclAllReduce, ncclSend, ncclGroupEnd (none) */
    if (len > 4 && memcmp(s, "nccl", 4) == 0 && s[4] >= 'A' && s[4] <= 'Z')
        return gd_coll_kind_from_text(s + 4, len - 4);
    return -1;
}

gpudiag_comm_kind gd_coll_kind_from_kernel(const char *s, size_t len)
{
    /* DeepEP's expert-parallel kernels (DEFINITIONS "Step-time breakdown"): the MoE token all-to-all,
     * but for its pipeline point-to-point and remote-fetch kernels and its barriers; before the NCCL
     * words, which its template arguments never hold but "_send"/"_recv" could */
    if (gd_icontains(s, len, "deep_ep::") || gd_icontains(s, len, "dpsk::ep::")) {
        if (gd_icontains(s, len, "pp_send") || gd_icontains(s, len, "pp_recv"))
            return GPUDIAG_COMM_SEND_RECV;
        if (gd_icontains(s, len, "engram_fetch") || gd_icontains(s, len, "::barrier"))
            return GPUDIAG_COMM_OTHER;
        return GPUDIAG_COMM_ALL_TO_ALL;
    }
    if (gd_icontains(s, len, "allreduce"))
        return GPUDIAG_COMM_ALL_REDUCE;
    if (gd_icontains(s, len, "allgather"))
        return GPUDIAG_COMM_ALL_GATHER;
    if (gd_icontains(s, len, "reducescatter"))
        return GPUDIAG_COMM_REDUCE_SCATTER;
    if (gd_icontains(s, len, "alltoall"))
        return GPUDIAG_COMM_ALL_TO_ALL;
    if (gd_icontains(s, len, "sendrecv") || gd_icontains(s, len, "_send") || gd_icontains(s, len, "_recv") ||
        gd_icontains(s, len, "generic"))
        return GPUDIAG_COMM_UNKNOWN;
    if (gd_icontains(s, len, "broadcast"))
        return GPUDIAG_COMM_BROADCAST;
    return GPUDIAG_COMM_OTHER;
}

int gd_coll_dtype_size(const char *s, size_t len)
{
    static const struct {
        const char *name;
        int size;
    } sizes[] = {{"Float", 4},         {"BFloat16", 2},        {"Half", 2},         {"Double", 8},
                 {"Long", 8},          {"Int", 4},             {"Short", 2},        {"Char", 1},
                 {"Byte", 1},          {"Bool", 1},            {"UInt16", 2},       {"UInt32", 4},
                 {"UInt64", 8},        {"ComplexHalf", 4},     {"ComplexFloat", 8}, {"ComplexDouble", 16},
                 {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},     {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strlen(sizes[i].name) == len && memcmp(sizes[i].name, s, len) == 0)
            return sizes[i].size;
    return 0;
}

double gd_coll_bytes(int k, const gd_coll_params *p)
{
    int64_t n;
    switch (k) {
    case GPUDIAG_COMM_ALL_REDUCE:
    case GPUDIAG_COMM_BROADCAST:
    case GPUDIAG_COMM_ALL_TO_ALL:
    case GPUDIAG_COMM_REDUCE_SCATTER:
        n = p->in_nelems;
        break;
    case GPUDIAG_COMM_ALL_GATHER:
        n = p->out_nelems;
        break;
    case GPUDIAG_COMM_SEND_RECV:
        n = p->in_nelems > p->out_nelems ? p->in_nelems : p->out_nelems;
        break;
    default:
        return NAN;
    }
    if (n < 0 || p->dtype_size <= 0 || n > (INT64_C(1) << 53) / p->dtype_size)
        return NAN;
    return (double)n * p->dtype_size;
}

double gd_coll_bus_factor(int k, int n)
{
    if (k == GPUDIAG_COMM_BROADCAST || k == GPUDIAG_COMM_SEND_RECV)
        return 1.0;
    if (n < 1)
        return NAN;
    if (k == GPUDIAG_COMM_ALL_REDUCE)
        return 2.0 * (n - 1) / n;
    if (k == GPUDIAG_COMM_ALL_GATHER || k == GPUDIAG_COMM_REDUCE_SCATTER || k == GPUDIAG_COMM_ALL_TO_ALL)
        return (double)(n - 1) / n;
    return NAN;
}

int gd_trace_note_comm_call(gpudiag_trace *t, const char *name, size_t len, int arg_coll, int64_t ts_ns,
                            int64_t dur_ns, int64_t external_id, int32_t tid, const gd_coll_params *params)
{
    int k = arg_coll > 0 && arg_coll <= GPUDIAG_COMM_KIND_COUNT ? arg_coll - 1 : gd_coll_kind_from_host(name, len);
    if (k < 0)
        return 0;
    gd_comm_call c;
    memset(&c, 0, sizeof c);
    c.ts_ns = ts_ns;
    c.end_ns = dur_ns > 0 && ts_ns <= INT64_MAX - dur_ns ? ts_ns + dur_ns : ts_ns;
    c.external_id = external_id;
    c.tid = tid;
    c.kind = (uint8_t)k;
    c.is_mpi = (uint8_t)gd_coll_is_mpi(name, len);
    c.in_nelems = params ? params->in_nelems : -1;
    c.out_nelems = params ? params->out_nelems : -1;
    c.dtype_size = (uint8_t)(params && params->dtype_size > 0 && params->dtype_size < 256 ? params->dtype_size : 0);
    c.group_size = params && params->group_size > 0 ? params->group_size : 0;
    return gd_vec_push(&t->comm_calls, &c) ? 0 : -1;
}

/* ---- the join ------------------------------------------------------------ */

static const gd_comm_call *call_at(const gpudiag_trace *t, uint32_t i)
{
    return (const gd_comm_call *)gd_vec_at(&t->comm_calls, i);
}

static int cmp_ext(const void *a, const void *b)
{
    const gd_coll_ext *x = a, *y = b;
    if (x->external_id != y->external_id)
        return x->external_id < y->external_id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_tid(const void *a, const void *b)
{
    const gd_coll_span *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int gd_coll_join_init(gd_coll_join *j, const gpudiag_trace *t)
{
    memset(j, 0, sizeof *j);
    j->t = t;
    size_t n = t->comm_calls.len;
    if (!n)
        return 0;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    j->by_ext = malloc(n * sizeof *j->by_ext);
    j->by_tid = malloc(n * sizeof *j->by_tid);
    if (!j->by_ext || !j->by_tid) {
        gd_coll_join_free(j);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const gd_comm_call *c = call_at(t, (uint32_t)i);
        if (c->external_id >= 0) {
            gd_coll_ext *e = &j->by_ext[j->n_ext++];
            e->external_id = c->external_id;
            e->idx = (uint32_t)i;
        }
        gd_coll_span *sp = &j->by_tid[j->n_tid++];
        sp->ts_ns = c->ts_ns;
        sp->tid = c->tid;
        sp->idx = (uint32_t)i;
        uint64_t d = c->end_ns > c->ts_ns ? (uint64_t)c->end_ns - (uint64_t)c->ts_ns : 0;
        if (d > INT64_MAX)
            d = INT64_MAX;
        if ((int64_t)d > j->max_dur_ns)
            j->max_dur_ns = (int64_t)d;
    }
    qsort(j->by_ext, j->n_ext, sizeof *j->by_ext, cmp_ext);
    qsort(j->by_tid, j->n_tid, sizeof *j->by_tid, cmp_tid);
    return 0;
}

void gd_coll_join_free(gd_coll_join *j)
{
    free(j->by_ext);
    free(j->by_tid);
    memset(j, 0, sizeof *j);
}

/* The host call with External id ext (the first one read), NULL if none. */
static const gd_comm_call *call_by_external_id(const gd_coll_join *j, int64_t ext)
{
    size_t lo = 0, hi = j->n_ext;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->by_ext[mid].external_id < ext)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < j->n_ext && j->by_ext[lo].external_id == ext)
        return call_at(j->t, j->by_ext[lo].idx);
    return NULL;
}

/* The kind of the host call with External id ext, -1 if none. */
static int by_external_id(const gd_coll_join *j, int64_t ext)
{
    const gd_comm_call *c = call_by_external_id(j, ext);
    return c ? c->kind : -1;
}

/* A call that carries record_param_comms' element counts. */
static int has_params(const gd_comm_call *c) { return c->in_nelems >= 0 || c->out_nelems >= 0; }

enum { ONLY_ANY = 0, ONLY_MPI, ONLY_PARAMS };

/* The innermost call on thread tid whose span holds ts (the latest start; ties: read
 * first), restricted to MPI calls (ONLY_MPI) or calls with counts (ONLY_PARAMS); NULL if
 * none. */
static const gd_comm_call *innermost(const gd_coll_join *j, int32_t tid, int64_t ts, int only)
{
    /* the first entry after (tid, ts) */
    size_t lo = 0, hi = j->n_tid;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gd_coll_span *c = &j->by_tid[mid];
        if (c->tid < tid || (c->tid == tid && c->ts_ns <= ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    const gd_comm_call *found = NULL;
    int64_t best = INT64_MIN;
    int64_t earliest = ts < INT64_MIN + j->max_dur_ns ? INT64_MIN : ts - j->max_dur_ns;
    for (size_t i = lo; i-- > 0;) {
        const gd_coll_span *sp = &j->by_tid[i];
        if (sp->tid != tid || sp->ts_ns < earliest)
            break;
        const gd_comm_call *c = call_at(j->t, sp->idx);
        if (c->end_ns >= ts && c->ts_ns >= best &&
            (only == ONLY_ANY || (only == ONLY_MPI ? c->is_mpi : has_params(c)))) {
            best = c->ts_ns; /* backwards: on a tie the call read first wins */
            found = c;
        }
    }
    return found;
}

int gd_coll_in_mpi(const gd_coll_join *j, int32_t tid, int64_t ts)
{
    return j->n_tid && innermost(j, tid, ts, ONLY_MPI) != NULL;
}

gpudiag_comm_kind gd_coll_kind(const gd_coll_join *j, const gd_gpu_op *op, const gd_runtime *rt, int *source)
{
    int k = -1, src = GD_COLL_SRC_ARGS;
    if (op->coll > 0 && op->coll <= GPUDIAG_COMM_KIND_COUNT)
        k = op->coll - 1;
    if (k < 0) {
        src = GD_COLL_SRC_HOST;
        if (op->kind == GD_GPU_KERNEL && (op->flags & GD_GF_HAS_EXT) && j->n_ext)
            k = by_external_id(j, op->external_id);
        if (k < 0 && rt && j->n_tid) {
            const gd_comm_call *c = innermost(j, gd_rt_tid(j->t, rt), rt->ts_ns, ONLY_ANY);
            k = c ? c->kind : -1;
        }
    }
    if (k < 0) {
        src = GD_COLL_SRC_NAME;
        k = gd_coll_kind_from_kernel(gd_strtab_get(&j->t->names, op->name_id), gd_strtab_len(&j->t->names, op->name_id));
    }
    if (source)
        *source = src;
    return (gpudiag_comm_kind)k;
}

void gd_coll_params_of(const gd_coll_join *j, const gd_gpu_op *op, const gd_runtime *rt, gd_coll_params *out)
{
    const gd_comm_call *c = NULL;
    if (op->kind == GD_GPU_KERNEL && (op->flags & GD_GF_HAS_EXT) && j->n_ext)
        c = call_by_external_id(j, op->external_id);
    if ((!c || !has_params(c)) && rt && j->n_tid)
        c = innermost(j, gd_rt_tid(j->t, rt), rt->ts_ns, ONLY_PARAMS);
    if (!c || !has_params(c)) {
        out->in_nelems = out->out_nelems = -1;
        out->dtype_size = out->group_size = 0;
        return;
    }
    out->in_nelems = c->in_nelems;
    out->out_nelems = c->out_nelems;
    out->dtype_size = c->dtype_size;
    out->group_size = c->group_size;
}
