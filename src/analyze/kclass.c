/*
 * kclass.c — kernel classes and Tensor Core use from kernel names, driven by
 * the rules table in data/kernel_rules.def (sources of each pattern there).
 */
#include "analyze/kclass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"


/* Names are matched case-insensitively: lower-case once, then strstr (fast in
 * glibc) for each pattern, instead of a case-folding scan per pattern. */
typedef struct lname {
    char buf[512];
    char *s;
} lname;

static const char *lower(lname *l, const char *name, size_t len)
{
    l->s = len < sizeof l->buf ? l->buf : malloc(len + 1);
    if (!l->s)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        l->s[i] = c == 0 ? ' ' : (char)tolower(c);
    }
    l->s[len] = '\0';
    return l->s;
}

static void lower_free(lname *l)
{
    if (l->s && l->s != l->buf)
        free(l->s);
}

static int has(const char *lc, const char *pat)
{
    return lc && strstr(lc, pat) != NULL;
}

enum krule_match { KR_PREFIX, KR_CONTAINS };

typedef struct krule {
    gpudiag_kernel_class cls;
    enum krule_match match;
    const char *pattern;
} krule;

/* The rules table: data/kernel_rules.def (first matching row wins). */
static const krule krules[] = {
#define KRULE(cls, match, pat) {GPUDIAG_KCLASS_##cls, KR_##match, pat},
#define TC_PATTERN(pat)
#define TC_NAME(name)
#define TC_FP8(pat)
#include "kernel_rules.def"
#undef KRULE
#undef TC_PATTERN
#undef TC_NAME
#undef TC_FP8
};

static const char *const tc_patterns[] = {
#define KRULE(cls, match, pat)
#define TC_PATTERN(pat) pat,
#define TC_NAME(name)
#define TC_FP8(pat)
#include "kernel_rules.def"
#undef KRULE
#undef TC_PATTERN
#undef TC_NAME
#undef TC_FP8
};

static const char *const tc_names[] = {
#define KRULE(cls, match, pat)
#define TC_PATTERN(pat)
#define TC_NAME(name) name,
#define TC_FP8(pat)
#include "kernel_rules.def"
#undef KRULE
#undef TC_PATTERN
#undef TC_NAME
#undef TC_FP8
};

static const char *const tc_fp8[] = {
#define KRULE(cls, match, pat)
#define TC_PATTERN(pat)
#define TC_NAME(name)
#define TC_FP8(pat) pat,
#include "kernel_rules.def"
#undef KRULE
#undef TC_PATTERN
#undef TC_NAME
#undef TC_FP8
};

static int rule_matches(const krule *k, const char *name, size_t len, const char *lc)
{
    return k->match == KR_PREFIX ? gd_starts_with(name, len, k->pattern) : has(lc, k->pattern);
}

/* First rule of the table that matches; only rows of class `only` when only >= 0. */
static gpudiag_kernel_class classify_rows(const char *name, size_t len, const char *lc, int only)
{
    for (size_t i = 0; i < sizeof krules / sizeof krules[0]; i++) {
        if (only >= 0 && (int)krules[i].cls != only)
            continue;
        if (rule_matches(&krules[i], name, len, lc))
            return krules[i].cls;
    }
    return GPUDIAG_KCLASS_OTHER;
}

/* Whether a row of class cls matches (the lower-cased copy is made only when needed). */
static int matches_class(const char *name, size_t len, gpudiag_kernel_class cls)
{
    lname l;
    const char *lc = lower(&l, name, len);
    int r = classify_rows(name, len, lc, (int)cls) == cls;
    lower_free(&l);
    return r;
}

int gd_kernel_uses_tensor_cores(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof tc_names / sizeof tc_names[0]; i++)
        if (strlen(tc_names[i]) == len && memcmp(name, tc_names[i], len) == 0)
            return 1;
    lname l;
    const char *lc = lower(&l, name, len);
    int r = 0;
    for (size_t i = 0; i < sizeof tc_patterns / sizeof tc_patterns[0] && !r; i++)
        r = has(lc, tc_patterns[i]);
    /* FP8 GEMMs and convolutions (TC_FP8): only Tensor Cores take FP8 operands */
    if (!r && lc && !has(lc, "gemv")) {
        gpudiag_kernel_class c = classify_rows(name, len, lc, -1);
        int mm = c == GPUDIAG_KCLASS_GEMM || c == GPUDIAG_KCLASS_CONV;
        for (size_t i = 0; i < sizeof tc_fp8 / sizeof tc_fp8[0] && mm && !r; i++)
            r = has(lc, tc_fp8[i]);
    }
    lower_free(&l);
    return r;
}

int gd_kernel_is_comm(const char *name, size_t len)
{
    return matches_class(name, len, GPUDIAG_KCLASS_COMMUNICATION);
}

static int is_memory_name(const char *name, size_t len)
{
    return matches_class(name, len, GPUDIAG_KCLASS_MEMORY);
}

int gd_kernel_is_compute(const char *name, size_t len)
{
    /* HTA's exclusion list (hta/common/types.py), applied to names */
    if (gd_kernel_is_comm(name, len) || gd_starts_with(name, len, "hccl") || is_memory_name(name, len))
        return 0;
    if (gd_icontains(name, len, "memcpy") || gd_icontains(name, len, "memset"))
        return 0;
    if (gd_starts_with(name, len, "Stream Wait Event") || gd_ends_with(name, len, "Sync"))
        return 0;
    return 1;
}

gpudiag_kernel_class gd_kernel_class(const char *name, size_t len)
{
    lname l;
    const char *lc = lower(&l, name, len);
    gpudiag_kernel_class c = classify_rows(name, len, lc, -1);
    lower_free(&l);
    return c;
}

/* Runtime/driver calls that block the host until the GPU catches up. */
int gd_runtime_is_sync(const char *n, size_t len)
{
    /* strip a version suffix such as _v2 or _v7000 */
    for (size_t i = len; i > 2; i--) {
        if (n[i - 1] < '0' || n[i - 1] > '9') {
            if (n[i - 1] == 'v' && n[i - 2] == '_' && i < len)
                len = i - 2;
            break;
        }
    }
    static const char *const exact[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize",
        "cuStreamSynchronize", "cuEventSynchronize", "hipDeviceSynchronize", "hipStreamSynchronize",
        "hipEventSynchronize",
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strlen(exact[i]) == len && memcmp(n, exact[i], len) == 0)
            return 1;
    /* synchronous copies: cudaMemcpy, cudaMemcpy2D, hipMemcpy, cuMemcpyDtoH (not *Async), and
     * hipMemcpyWithStream ("akin to hipMemcpyAsync + hipStreamSynchronize", HIP API reference: the
     * blocking copy PyTorch on ROCm uses for .item()/.cpu()) */
    if ((gd_starts_with(n, len, "cudaMemcpy") || gd_starts_with(n, len, "hipMemcpy") ||
         gd_starts_with(n, len, "cuMemcpy")) &&
        !gd_icontains(n, len, "async"))
        return 1;
    return 0;
}

int gd_runtime_alloc_kind(const char *n, size_t len)
{
    static const char *const mallocs[] = {"cudaMalloc", "hipMalloc", "cuMemAlloc", "cuMemAlloc_v2"};
    static const char *const frees[] = {"cudaFree", "hipFree", "cuMemFree", "cuMemFree_v2"};
    for (size_t i = 0; i < sizeof mallocs / sizeof mallocs[0]; i++)
        if (strlen(mallocs[i]) == len && memcmp(n, mallocs[i], len) == 0)
            return GD_ALLOC_MALLOC;
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        if (strlen(frees[i]) == len && memcmp(n, frees[i], len) == 0)
            return GD_ALLOC_FREE;
    return GD_ALLOC_NONE;
}

/* Launch calls HTA's queue-length counter counts (trace_counters.py); cudaGraphLaunch is not among them. */
int gd_runtime_is_queue_launch(const char *n, size_t len)
{
    static const char *const names[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
        "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
        "hipMemcpyWithStream",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && memcmp(n, names[i], len) == 0)
            return 1;
    return 0;
}

int gd_runtime_is_kernel_launch(const char *n, size_t len)
{
    static const char *const names[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
        "cuLaunchKernelEx", "hipLaunchKernel",     "hipExtModuleLaunchKernel",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && memcmp(n, names[i], len) == 0)
            return 1;
    return 0;
}

/* name is base, or base followed by '_' and a suffix (_v10000, _ptsz, _spt) */
static int base_name_is(const char *n, size_t len, const char *base)
{
    size_t bl = strlen(base);
    return len >= bl && memcmp(n, base, bl) == 0 && (len == bl || n[bl] == '_');
}

int gd_runtime_is_graph_launch(const char *n, size_t len)
{
    return base_name_is(n, len, "cudaGraphLaunch") || base_name_is(n, len, "cuGraphLaunch") ||
           base_name_is(n, len, "hipGraphLaunch");
}

int gd_runtime_is_stream_wait_event(const char *n, size_t len)
{
    return base_name_is(n, len, "cudaStreamWaitEvent") || base_name_is(n, len, "cuStreamWaitEvent") ||
           base_name_is(n, len, "hipStreamWaitEvent");
}

int gd_runtime_capture_kind(const char *n, size_t len)
{
    static const char *const begin[] = {"cudaStreamBeginCapture",        "cudaStreamBeginCaptureToGraph",
                                        "cuStreamBeginCapture",          "cuStreamBeginCaptureToGraph",
                                        "hipStreamBeginCapture",         "hipStreamBeginCaptureToGraph"};
    static const char *const end[] = {"cudaStreamEndCapture", "cuStreamEndCapture", "hipStreamEndCapture"};
    for (size_t i = 0; i < sizeof begin / sizeof *begin; i++)
        if (base_name_is(n, len, begin[i]))
            return 1;
    for (size_t i = 0; i < sizeof end / sizeof *end; i++)
        if (base_name_is(n, len, end[i]))
            return 2;
    return 0;
}

gpudiag_copy_kind gd_copy_kind(const char *name, size_t len)
{
    if (gd_icontains(name, len, "htod"))
        return GPUDIAG_COPY_H2D;
    if (gd_icontains(name, len, "dtoh"))
        return GPUDIAG_COPY_D2H;
    if (gd_icontains(name, len, "dtod"))
        return GPUDIAG_COPY_D2D;
    return GPUDIAG_COPY_OTHER;
}

int gd_copy_is_pageable(const char *name, size_t len)
{
    return gd_icontains(name, len, "pageable");
}

int gd_kernel_is_fused_optimizer(const char *name, size_t len)
{
    return gd_icontains(name, len, "multi_tensor_apply") || gd_icontains(name, len, "fused");
}
