/*
 * fake_nvml.c — a fake libnvidia-ml for tests on machines without a GPU.
 *
 * gpudiag loads it through its real dlopen path (GPUDIAG_NVML_LIB=path).
 * It is driven by the script named in $FAKE_NVML_SCRIPT, one directive a line
 * ('#' starts a comment):
 *
 *   init ERR                 nvmlInit fails with ERR (a name below or a number)
 *   count N                  number of GPUs (default 1)
 *   driver TEXT              driver version text
 *   name I TEXT              device name of GPU I (rest of the line)
 *   gpm I 0|1                GPM supported (default 0)
 *   lost_after I N           after N utilization calls GPU I is lost (GPU_IS_LOST)
 *   handle_err I ERR         nvmlDeviceGetHandleByIndex fails for GPU I
 *   set I FIELD V1,V2,...    values of FIELD on GPU I, one per call, cycling;
 *                            a value is a number or an error name
 *   procs I descendants BYTES  the processes of GPU I are all descendants of
 *                            the calling process (gpudiag's children), each
 *                            using BYTES
 *   procs I pid P BYTES      one more fixed process on GPU I
 *
 * FIELDs: util memutil mem_used mem_total mem_reserved mem_v2 (an error for
 * the v2 call only) sm_clock mem_clock sm_clock_max mem_clock_max power
 * (watts) power_limit (watts) temp pcie_rx pcie_tx (KB/s) pcie_gen
 * pcie_gen_max pcie_width pcie_width_max reasons sm_active sm_occupancy
 * tensor dram (GPM, percent) nvlink_rx nvlink_tx (GPM, MiB/s) enc_util dec_util
 * (nvmlDeviceGet{Encoder,Decoder}Utilization, percent; sampling period 167000 us).
 * A field never set returns NOT_SUPPORTED.  Error names: NOT_SUPPORTED,
 * NO_PERMISSION, GPU_IS_LOST, INSUFFICIENT_SIZE, DRIVER_NOT_LOADED,
 * UNKNOWN, ...
 *
 * Struct layouts are written here from the offsets documented in
 * ../shared/docs/reference/monitoring-peers.md section 3, independently of
 * gpudiag's own declarations, so a layout mistake there shows up as a wrong
 * value in the tests.
 *
 * Built three ways: full (every symbol, newest names), FAKE_NVML_OLD (an old
 * driver: only unversioned symbols, ClocksThrottleReasons, no GPM, no
 * memory v2; the encoder/decoder calls are old and stay), FAKE_NVML_MINIMAL
 * (only init, shutdown, count and handle: no encoder/decoder symbols).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum { F_UTIL, F_MEMUTIL, F_MEM_USED, F_MEM_TOTAL, F_MEM_RESERVED, F_MEM_V2, F_SM_CLOCK, F_MEM_CLOCK,
       F_SM_CLOCK_MAX, F_MEM_CLOCK_MAX, F_POWER, F_POWER_LIMIT, F_TEMP, F_PCIE_RX, F_PCIE_TX, F_PCIE_GEN,
       F_PCIE_GEN_MAX, F_PCIE_WIDTH, F_PCIE_WIDTH_MAX, F_REASONS, F_SM_ACTIVE, F_SM_OCC, F_TENSOR, F_DRAM,
       F_NVL_RX, F_NVL_TX, F_ENC_UTIL, F_DEC_UTIL, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "util", "memutil", "mem_used", "mem_total", "mem_reserved", "mem_v2", "sm_clock", "mem_clock",
    "sm_clock_max", "mem_clock_max", "power", "power_limit", "temp", "pcie_rx", "pcie_tx", "pcie_gen",
    "pcie_gen_max", "pcie_width", "pcie_width_max", "reasons", "sm_active", "sm_occupancy", "tensor", "dram",
    "nvlink_rx", "nvlink_tx", "enc_util", "dec_util"};

#define MAXV 64
#define MAXGPU 16
#define MAXPROC 8

typedef struct { int n; double v[MAXV]; int err[MAXV]; unsigned long calls; } seq;
typedef struct {
    char name[96];
    int gpm, lost_after, handle_err, descendants, nfixed;
    unsigned long long desc_bytes;
    unsigned int fixed_pid[MAXPROC];
    unsigned long long fixed_bytes[MAXPROC];
    unsigned long util_calls;
    seq f[F_COUNT];
} fgpu;

static struct {
    int loaded, init_err, count;
    char driver[80];
    fgpu g[MAXGPU];
} S;

typedef struct { int gpu; unsigned long seq; } fake_gpm_sample;

static int err_code(const char *s)
{
    static const struct { const char *n; int c; } t[] = {
        {"UNINITIALIZED", 1}, {"INVALID_ARGUMENT", 2}, {"NOT_SUPPORTED", 3}, {"NO_PERMISSION", 4},
        {"NOT_FOUND", 6}, {"INSUFFICIENT_SIZE", 7}, {"DRIVER_NOT_LOADED", 9}, {"GPU_IS_LOST", 15},
        {"LIB_RM_VERSION_MISMATCH", 18}, {"ARGUMENT_VERSION_MISMATCH", 25}, {"UNKNOWN", 999}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(s, t[i].n) == 0)
            return t[i].c;
    return 0;
}

static void load(void)
{
    if (S.loaded)
        return;
    S.loaded = 1;
    S.count = 1;
    for (int i = 0; i < MAXGPU; i++) {
        snprintf(S.g[i].name, sizeof S.g[i].name, "Fake GPU");
        S.g[i].lost_after = -1;
    }
    snprintf(S.driver, sizeof S.driver, "999.99");
    const char *path = getenv("FAKE_NVML_SCRIPT");
    FILE *fp = path ? fopen(path, "r") : NULL;
    if (!fp)
        return;
    char line[1024];
    while (fgets(line, sizeof line, fp)) {
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        size_t l = strlen(line);
        while (l && isspace((unsigned char)line[l - 1]))
            line[--l] = '\0';
        char kw[32], a[64], b[64];
        int i = 0, off = 0;
        if (sscanf(line, "%31s%n", kw, &off) != 1)
            continue;
        char *rest = line + off;
        if (strcmp(kw, "init") == 0 && sscanf(rest, "%63s", a) == 1) {
            S.init_err = err_code(a) ? err_code(a) : atoi(a);
        } else if (strcmp(kw, "count") == 0) {
            S.count = atoi(rest);
        } else if (strcmp(kw, "driver") == 0 && sscanf(rest, "%63s", a) == 1) {
            snprintf(S.driver, sizeof S.driver, "%s", a);
        } else if (sscanf(rest, "%d%n", &i, &off) == 1 && i >= 0 && i < MAXGPU) {
            fgpu *g = &S.g[i];
            char *r2 = rest + off;
            while (*r2 == ' ')
                r2++;
            if (strcmp(kw, "name") == 0)
                snprintf(g->name, sizeof g->name, "%s", r2);
            else if (strcmp(kw, "gpm") == 0)
                g->gpm = atoi(r2);
            else if (strcmp(kw, "lost_after") == 0)
                g->lost_after = atoi(r2);
            else if (strcmp(kw, "handle_err") == 0)
                g->handle_err = err_code(r2);
            else if (strcmp(kw, "procs") == 0 && sscanf(r2, "%63s %63s", a, b) >= 1) {
                if (strcmp(a, "descendants") == 0) {
                    g->descendants = 1;
                    g->desc_bytes = strtoull(b, NULL, 10);
                } else if (strcmp(a, "pid") == 0 && g->nfixed < MAXPROC) {
                    unsigned long long by = 0;
                    sscanf(r2, "%*s %63s %llu", b, &by);
                    g->fixed_pid[g->nfixed] = (unsigned)atoi(b);
                    g->fixed_bytes[g->nfixed++] = by;
                }
            } else if (strcmp(kw, "set") == 0 && sscanf(r2, "%63s %63s", a, b) == 2) {
                for (int f = 0; f < F_COUNT; f++) {
                    if (strcmp(a, field_names[f]) != 0)
                        continue;
                    seq *s = &g->f[f];
                    s->n = 0;
                    char *save = NULL;
                    const char *vals = strstr(r2, a) + strlen(a);
                    char buf[1024];
                    snprintf(buf, sizeof buf, "%s", vals);
                    for (char *tok = strtok_r(buf, ", \t", &save); tok && s->n < MAXV;
                         tok = strtok_r(NULL, ", \t", &save)) {
                        s->err[s->n] = err_code(tok);
                        s->v[s->n] = s->err[s->n] ? 0 : strtod(tok, NULL);
                        s->n++;
                    }
                }
            }
        }
    }
    fclose(fp);
}

static fgpu *dev(void *d)
{
    uintptr_t i = (uintptr_t)d;
    return (i >= 1 && i <= MAXGPU) ? &S.g[i - 1] : NULL;
}

static int lost(fgpu *g)
{
    return g->lost_after >= 0 && g->util_calls > (unsigned long)g->lost_after;
}

/* Next value of a field: 0 and *v set, or an error code. */
static int next(fgpu *g, int f, double *v)
{
    if (!g)
        return 2;
    if (lost(g))
        return 15;
    seq *s = &g->f[f];
    if (s->n == 0)
        return 3;
    int k = (int)(s->calls++ % (unsigned long)s->n);
    if (s->err[k])
        return s->err[k];
    *v = s->v[k];
    return 0;
}

__attribute__((unused)) static int next_uint(void *d, int f, unsigned int *out)
{
    double v = 0;
    int r = next(dev(d), f, &v);
    if (r == 0)
        *out = (unsigned int)v;
    return r;
}

EXPORT int nvmlInit_v2(void) { load(); return S.init_err; }
EXPORT int nvmlInit(void) { load(); return S.init_err; }
EXPORT int nvmlShutdown(void) { return 0; }
EXPORT int nvmlDeviceGetCount(unsigned int *n) { load(); *n = (unsigned)S.count; return 0; }
EXPORT int nvmlDeviceGetHandleByIndex(unsigned int i, void **d)
{
    load();
    if ((int)i >= S.count || i >= MAXGPU)
        return 2;
    if (S.g[i].handle_err)
        return S.g[i].handle_err;
    *d = (void *)(uintptr_t)(i + 1);
    return 0;
}
#ifndef FAKE_NVML_OLD
EXPORT int nvmlDeviceGetCount_v2(unsigned int *n) { return nvmlDeviceGetCount(n); }
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d) { return nvmlDeviceGetHandleByIndex(i, d); }
#endif

#ifndef FAKE_NVML_MINIMAL
EXPORT const char *nvmlErrorString(int r)
{
    switch (r) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
    }
}
EXPORT int nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    load();
    snprintf(buf, len, "%s", S.driver);
    return 0;
}
EXPORT int nvmlDeviceGetName(void *d, char *buf, unsigned int len)
{
    fgpu *g = dev(d);
    if (!g)
        return 2;
    snprintf(buf, len, "%s", g->name);
    return 0;
}
EXPORT int nvmlDeviceGetUUID(void *d, char *buf, unsigned int len)
{
    fgpu *g = dev(d);
    if (!g)
        return 2;
    snprintf(buf, len, "GPU-fake0000-0000-0000-0000-%012lu", (unsigned long)((uintptr_t)d - 1));
    return 0;
}
EXPORT int nvmlDeviceGetUtilizationRates(void *d, void *u)
{
    fgpu *g = dev(d);
    if (!g)
        return 2;
    g->util_calls++;
    double a = 0, b = 0;
    int r = next(g, F_UTIL, &a);
    if (r)
        return r;
    r = next(g, F_MEMUTIL, &b);
    if (r == 3)
        b = 0; /* memutil never set: 0 */
    else if (r)
        return r;
    unsigned int v[2] = {(unsigned)a, (unsigned)b}; /* {gpu, memory} */
    memcpy(u, v, 8);
    return 0;
}
static int mem_common(void *d, double *tot, double *res, double *used)
{
    fgpu *g = dev(d);
    int r = next(g, F_MEM_TOTAL, tot);
    if (r)
        return r;
    if (next(g, F_MEM_USED, used))
        *used = 0;
    if (next(g, F_MEM_RESERVED, res))
        *res = 0;
    return 0;
}
/* v1: {total, free, used} u64 at 0, 8, 16; used includes reserved */
EXPORT int nvmlDeviceGetMemoryInfo(void *d, void *m)
{
    double t, r, u;
    int rc = mem_common(d, &t, &r, &u);
    if (rc)
        return rc;
    unsigned long long v[3] = {(unsigned long long)t, (unsigned long long)(t - u - r),
                               (unsigned long long)(u + r)};
    memcpy(m, v, 24);
    return 0;
}
EXPORT int nvmlDeviceGetClockInfo(void *d, int type, unsigned int *c)
{
    return next_uint(d, type == 2 ? F_MEM_CLOCK : F_SM_CLOCK, c);
}
EXPORT int nvmlDeviceGetMaxClockInfo(void *d, int type, unsigned int *c)
{
    return next_uint(d, type == 2 ? F_MEM_CLOCK_MAX : F_SM_CLOCK_MAX, c);
}
EXPORT int nvmlDeviceGetPowerUsage(void *d, unsigned int *p)
{
    double v = 0;
    int r = next(dev(d), F_POWER, &v);
    if (!r)
        *p = (unsigned)(v * 1000.0 + 0.5);
    return r;
}
EXPORT int nvmlDeviceGetEnforcedPowerLimit(void *d, unsigned int *p)
{
    double v = 0;
    int r = next(dev(d), F_POWER_LIMIT, &v);
    if (!r)
        *p = (unsigned)(v * 1000.0 + 0.5);
    return r;
}
EXPORT int nvmlDeviceGetTemperature(void *d, int sensor, unsigned int *t)
{
    if (sensor != 0)
        return 2;
    return next_uint(d, F_TEMP, t);
}
EXPORT int nvmlDeviceGetPcieThroughput(void *d, int counter, unsigned int *v)
{
    return next_uint(d, counter == 1 ? F_PCIE_RX : F_PCIE_TX, v);
}
EXPORT int nvmlDeviceGetCurrPcieLinkGeneration(void *d, unsigned int *v) { return next_uint(d, F_PCIE_GEN, v); }
EXPORT int nvmlDeviceGetMaxPcieLinkGeneration(void *d, unsigned int *v) { return next_uint(d, F_PCIE_GEN_MAX, v); }
EXPORT int nvmlDeviceGetCurrPcieLinkWidth(void *d, unsigned int *v) { return next_uint(d, F_PCIE_WIDTH, v); }
EXPORT int nvmlDeviceGetMaxPcieLinkWidth(void *d, unsigned int *v) { return next_uint(d, F_PCIE_WIDTH_MAX, v); }
static int reasons(void *d, unsigned long long *out)
{
    double v = 0;
    int r = next(dev(d), F_REASONS, &v);
    if (!r)
        *out = (unsigned long long)v;
    return r;
}
/* nvmlDeviceGet{Encoder,Decoder}Utilization(device, unsigned int *utilization, unsigned int *samplingPeriodUs) */
static int engine_util(void *d, int f, unsigned int *util, unsigned int *period_us)
{
    if (!util || !period_us)
        return 2;
    int r = next_uint(d, f, util);
    if (!r)
        *period_us = 167000;
    return r;
}
EXPORT int nvmlDeviceGetEncoderUtilization(void *d, unsigned int *u, unsigned int *p) { return engine_util(d, F_ENC_UTIL, u, p); }
EXPORT int nvmlDeviceGetDecoderUtilization(void *d, unsigned int *u, unsigned int *p) { return engine_util(d, F_DEC_UTIL, u, p); }
EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(void *d, unsigned long long *out) { return reasons(d, out); }

/* Process lists: records of `stride` bytes, pid u32 @0, usedGpuMemory u64 @8. */
static int read_ppid(int pid)
{
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    FILE *fp = fopen(p, "r");
    if (!fp)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    int ppid = 0;
    if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
        return 0;
    return ppid;
}
static int procs(void *d, unsigned int *count, void *infos, size_t stride)
{
    fgpu *g = dev(d);
    if (!g)
        return 2;
    if (lost(g))
        return 15;
    unsigned int pids[256];
    unsigned long long bytes[256];
    unsigned int n = 0;
    for (int k = 0; k < g->nfixed; k++) {
        pids[n] = g->fixed_pid[k];
        bytes[n++] = g->fixed_bytes[k];
    }
    if (g->descendants) {
        /* one pass over /proc: pid -> ppid, then walk up in memory */
        enum { MAXP = 8192 };
        static int pids_all[MAXP], ppids_all[MAXP];
        int np = 0, me = (int)getpid();
        DIR *dir = opendir("/proc");
        struct dirent *de;
        while (dir && (de = readdir(dir)) != NULL && np < MAXP) {
            int pid = atoi(de->d_name);
            if (pid > 0) {
                pids_all[np] = pid;
                ppids_all[np++] = read_ppid(pid);
            }
        }
        if (dir)
            closedir(dir);
        for (int k = 0; k < np && n < 256; k++) {
            int cur = pids_all[k], hit = 0;
            for (int depth = 0; depth < 64 && cur > 1 && !hit; depth++) {
                int pp = 0;
                for (int j = 0; j < np; j++)
                    if (pids_all[j] == cur) {
                        pp = ppids_all[j];
                        break;
                    }
                if (pp == me)
                    hit = 1;
                cur = pp;
            }
            if (hit && pids_all[k] != me) {
                pids[n] = (unsigned)pids_all[k];
                bytes[n++] = g->desc_bytes;
            }
        }
    }
    if (*count < n || (n > 0 && !infos)) {
        *count = n;
        return 7; /* INSUFFICIENT_SIZE */
    }
    for (unsigned int k = 0; k < n; k++) {
        unsigned char *rec = (unsigned char *)infos + k * stride;
        memset(rec, 0xff, stride);
        memcpy(rec, &pids[k], 4);
        memcpy(rec + 8, &bytes[k], 8);
    }
    *count = n;
    return 0;
}
EXPORT int nvmlDeviceGetComputeRunningProcesses(void *d, unsigned int *c, void *i) { return procs(d, c, i, 16); }
EXPORT int nvmlDeviceGetGraphicsRunningProcesses(void *d, unsigned int *c, void *i)
{
    (void)d; (void)i;
    *c = 0;
    return 0;
}
#endif /* !FAKE_NVML_MINIMAL */

#if !defined(FAKE_NVML_OLD) && !defined(FAKE_NVML_MINIMAL)
/* v2: version u32 @0 (must be 40 | 2 << 24), total @8, reserved @16, free @24, used @32 */
EXPORT int nvmlDeviceGetMemoryInfo_v2(void *d, void *m)
{
    unsigned int ver;
    memcpy(&ver, m, 4);
    if (ver != 0x02000028u)
        return 25; /* ARGUMENT_VERSION_MISMATCH */
    fgpu *g = dev(d);
    if (!g)
        return 2;
    double t, r, u, dummy;
    if (g->f[F_MEM_V2].n) {
        int e = next(g, F_MEM_V2, &dummy); /* an error scripted for the v2 call only */
        if (e)
            return e;
    }
    int rc = mem_common(d, &t, &r, &u);
    if (rc)
        return rc;
    unsigned long long v[4] = {(unsigned long long)t, (unsigned long long)r, (unsigned long long)(t - u - r),
                               (unsigned long long)u};
    memcpy((char *)m + 8, v, 32);
    return 0;
}
EXPORT int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *out) { return reasons(d, out); }
EXPORT int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned int *c, void *i) { return procs(d, c, i, 24); }
EXPORT int nvmlDeviceGetComputeRunningProcesses_v2(void *d, unsigned int *c, void *i) { return procs(d, c, i, 24); }
EXPORT int nvmlDeviceGetGraphicsRunningProcesses_v3(void *d, unsigned int *c, void *i)
{
    (void)d; (void)i;
    *c = 0;
    return 0;
}
EXPORT int nvmlDeviceGetRunningProcessDetailList(void *d, void *p) { (void)d; (void)p; return 3; }

/* GPM.  nvmlGpmSupport_t {version u32 = 1, isSupportedDevice u32}. */
EXPORT int nvmlGpmQueryDeviceSupport(void *d, void *sup)
{
    fgpu *g = dev(d);
    unsigned int v[2];
    memcpy(v, sup, 8);
    if (!g)
        return 2;
    if (v[0] != 1)
        return 25;
    v[1] = (unsigned)g->gpm;
    memcpy(sup, v, 8);
    return 0;
}
EXPORT int nvmlGpmSampleAlloc(void **s)
{
    fake_gpm_sample *p = calloc(1, sizeof *p);
    if (!p)
        return 20;
    p->gpu = -1;
    *s = p;
    return 0;
}
EXPORT int nvmlGpmSampleFree(void *s) { free(s); return 0; }
EXPORT int nvmlGpmSampleGet(void *d, void *s)
{
    fgpu *g = dev(d);
    if (!g || !s)
        return 2;
    if (!g->gpm)
        return 3;
    if (lost(g))
        return 15;
    static unsigned long counter;
    fake_gpm_sample *p = s;
    p->gpu = (int)((uintptr_t)d - 1);
    p->seq = ++counter;
    return 0;
}
/* nvmlGpmMetricsGet_t: version u32 @0, numMetrics u32 @4, sample1 @8, sample2 @16,
 * metrics[] @24 of 40 bytes: metricId u32 @0, nvmlReturn @4, double value @8. */
EXPORT int nvmlGpmMetricsGet(void *mg)
{
    unsigned char *b = mg;
    unsigned int ver, num;
    void *s1, *s2;
    memcpy(&ver, b, 4);
    memcpy(&num, b + 4, 4);
    memcpy(&s1, b + 8, 8);
    memcpy(&s2, b + 16, 8);
    if (ver != 1)
        return 25;
    fake_gpm_sample *a = s1, *c = s2;
    if (!a || !c || a == c || a->gpu < 0 || a->gpu != c->gpu || a->seq >= c->seq)
        return 2; /* both samples of one GPU, the older first */
    fgpu *g = &S.g[a->gpu];
    for (unsigned int k = 0; k < num && k < 333; k++) {
        unsigned char *m = b + 24 + (size_t)k * 40;
        unsigned int id;
        memcpy(&id, m, 4);
        int f = id == 2 ? F_SM_ACTIVE : id == 3 ? F_SM_OCC : id == 5 ? F_TENSOR : id == 10 ? F_DRAM
              : id == 60 ? F_NVL_RX : id == 61 ? F_NVL_TX : -1;
        double v = 0;
        int r = f < 0 ? 3 : next(g, f, &v);
        memcpy(m + 4, &r, 4);
        memcpy(m + 8, &v, 8);
    }
    return 0;
}
#endif
