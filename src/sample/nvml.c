/*
 * nvml.c — the NVML backend: libnvidia-ml loaded at run time with dlopen.
 *
 * Design.  The library is looked for as $GPUDIAG_NVML_LIB (tests point it at
 * a fake), then libnvidia-ml.so.1 (what the driver always installs), then
 * libnvidia-ml.so (often only a development symlink or the CUDA toolkit's
 * link-time stub).  Symbols are resolved from one table of
 * {names in order of preference, slot, required}: newer versions first
 * (_v3, _v2, ClocksEventReasons before ClocksThrottleReasons), the plain
 * name last.  Only init, shutdown, device count and handle are required;
 * every other symbol is optional and a NULL slot means "not available" (the
 * field stays NaN).  Nothing lives in globals: all state is in gd_nvml.
 *
 * Per read, each NVML call that fails leaves its fields NaN; GPU_IS_LOST
 * marks the GPU lost and it is not called again.  GPM metrics come from two
 * GPM samples at least 100 ms apart (NVML's internal refresh); the first read
 * of a GPU only primes the baseline.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sample/backend.h"
#include "sample/nvml_api.h"
#include "util/util.h"

typedef struct gd_nvml_fns {
    gd_nvmlInit_fn init;
    gd_nvmlShutdown_fn shutdown;
    gd_nvmlErrorString_fn error_string;
    gd_nvmlSystemGetDriverVersion_fn driver_version;
    gd_nvmlDeviceGetCount_fn count;
    gd_nvmlDeviceGetHandleByIndex_fn handle;
    gd_nvmlDeviceGetString_fn name;
    gd_nvmlDeviceGetString_fn uuid;
    gd_nvmlDeviceGetPciInfo_fn pci;
    gd_nvmlDeviceGetUtilizationRates_fn util;
    gd_nvmlDeviceGetMemoryInfo_v2_fn mem_v2;
    gd_nvmlDeviceGetMemoryInfo_fn mem_v1;
    gd_nvmlDeviceGetClockInfo_fn clock;
    gd_nvmlDeviceGetClockInfo_fn max_clock;
    gd_nvmlDeviceGetUInt_fn power;
    gd_nvmlDeviceGetUInt_fn power_limit;
    gd_nvmlDeviceGetTemperature_fn temp;
    gd_nvmlDeviceGetPcieThroughput_fn pcie_tp;
    gd_nvmlDeviceGetUInt_fn pcie_gen;
    gd_nvmlDeviceGetUInt_fn pcie_gen_max;
    gd_nvmlDeviceGetUInt_fn pcie_width;
    gd_nvmlDeviceGetUInt_fn pcie_width_max;
    gd_nvmlDeviceGetULongLong_fn reasons;
    gd_nvmlDeviceGetEngineUtil_fn enc_util;
    gd_nvmlDeviceGetEngineUtil_fn dec_util;
    gd_nvmlDeviceGetProcesses_fn compute_procs;
    gd_nvmlDeviceGetProcesses_fn graphics_procs;
    gd_nvmlGpmQueryDeviceSupport_fn gpm_query;
    gd_nvmlGpmSampleAlloc_fn gpm_alloc;
    gd_nvmlGpmSampleFree_fn gpm_free;
    gd_nvmlGpmSampleGet_fn gpm_get;
    gd_nvmlGpmMetricsGet_fn gpm_metrics;
    void *conf_compute_mem; /* only probed: R535 process-record heuristic */
    void *proc_detail_list; /* only probed */
} gd_nvml_fns;

/* One entry per slot: up to four names, newest first. */
typedef struct gd_nvml_sym {
    const char *names[4];
    size_t offset;
    int required;
    size_t *chosen; /* where to store the index of the name found, or NULL */
} gd_nvml_sym;

typedef struct gd_nvml_gpu {
    nvmlDevice_t dev;
    gpudiag_gpu_info info;
    int lost;
    nvmlGpmSample_t gpm_prev, gpm_cur;
    int gpm_have_prev;
    double gpm_prev_t;
} gd_nvml_gpu;

typedef struct gd_nvml {
    void *lib;
    char lib_name[256];
    gd_nvml_fns f;
    size_t compute_ver, graphics_ver; /* 0 = _v3, 1 = _v2, 2 = v1 */
    size_t proc_stride_v3;           /* 24, or 32 on early R535 */
    gd_nvml_gpu *gpus;
    size_t ngpus;
    char driver[96];
    unsigned char *proc_buf;
    size_t proc_cap; /* records */
    nvmlGpmMetricsGet_t *mg;
} gd_nvml;

#define SLOT(field) offsetof(gd_nvml_fns, field)

static const char *nvml_err(const gd_nvml *n, nvmlReturn_t r)
{
    if (n->f.error_string) {
        const char *s = n->f.error_string(r);
        if (s && s[0])
            return s;
    }
    switch (r) {
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "Driver/library version mismatch";
    default: return "NVML error";
    }
}

static void *load_library(char *chosen, size_t chosen_len, gpudiag_error *err)
{
    const char *env = getenv("GPUDIAG_NVML_LIB");
    const char *names[3];
    size_t n = 0;
    if (env && env[0])
        names[n++] = env;
    else {
        names[n++] = "libnvidia-ml.so.1";
        names[n++] = "libnvidia-ml.so";
    }
    char why[400];
    why[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        dlerror();
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(chosen, chosen_len, "%s", names[i]);
            return h;
        }
        const char *e = dlerror();
        int w = snprintf(why + used, sizeof why - used, "%s%s", used ? "; " : "", e ? e : names[i]);
        if (w > 0 && (size_t)w < sizeof why - used)
            used += (size_t)w;
    }
    if (env && env[0])
        gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1, "no NVIDIA driver: cannot load GPUDIAG_NVML_LIB=%s (%s)", env,
                     why);
    else
        gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1,
                     "no NVIDIA driver: cannot load libnvidia-ml.so.1 or libnvidia-ml.so (%s); "
                     "install the NVIDIA driver or set GPUDIAG_NVML_LIB to the library's path",
                     why);
    return NULL;
}

static int resolve(gd_nvml *n, const gd_nvml_sym *tab, size_t count, gpudiag_error *err)
{
    for (size_t i = 0; i < count; i++) {
        void *p = NULL;
        size_t k = 0;
        for (; k < 4 && tab[i].names[k]; k++) {
            dlerror();
            p = dlsym(n->lib, tab[i].names[k]);
            if (p && !dlerror())
                break;
            p = NULL;
        }
        if (!p && tab[i].required) {
            gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1, "%s: the NVML library has no %s: not a usable NVML",
                         n->lib_name, tab[i].names[0]);
            return -1;
        }
        memcpy((char *)&n->f + tab[i].offset, &p, sizeof p);
        if (tab[i].chosen)
            *tab[i].chosen = k;
    }
    return 0;
}

static void nvml_close(void *state)
{
    gd_nvml *n = state;
    if (!n)
        return;
    for (size_t i = 0; i < n->ngpus; i++) {
        if (n->f.gpm_free) {
            if (n->gpus[i].gpm_prev)
                n->f.gpm_free(n->gpus[i].gpm_prev);
            if (n->gpus[i].gpm_cur)
                n->f.gpm_free(n->gpus[i].gpm_cur);
        }
    }
    if (n->f.shutdown)
        n->f.shutdown();
    if (n->lib)
        dlclose(n->lib);
    free(n->gpus);
    free(n->proc_buf);
    free(n->mg);
    free(n);
}

static gpudiag_status nvml_open(void **state, gpudiag_error *err)
{
    *state = NULL;
    gd_nvml *n = calloc(1, sizeof *n);
    if (!n)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
    n->lib = load_library(n->lib_name, sizeof n->lib_name, err);
    if (!n->lib) {
        free(n);
        return GPUDIAG_ERR_NODEV;
    }
    const gd_nvml_sym tab[] = {
        {{"nvmlInit_v2", "nvmlInit", NULL, NULL}, SLOT(init), 1, NULL},
        {{"nvmlShutdown", NULL, NULL, NULL}, SLOT(shutdown), 1, NULL},
        {{"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", NULL, NULL}, SLOT(count), 1, NULL},
        {{"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", NULL, NULL}, SLOT(handle), 1, NULL},
        {{"nvmlErrorString", NULL, NULL, NULL}, SLOT(error_string), 0, NULL},
        {{"nvmlSystemGetDriverVersion", NULL, NULL, NULL}, SLOT(driver_version), 0, NULL},
        {{"nvmlDeviceGetName", NULL, NULL, NULL}, SLOT(name), 0, NULL},
        {{"nvmlDeviceGetUUID", NULL, NULL, NULL}, SLOT(uuid), 0, NULL},
        {{"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", NULL, NULL}, SLOT(pci), 0, NULL},
        {{"nvmlDeviceGetUtilizationRates", NULL, NULL, NULL}, SLOT(util), 0, NULL},
        {{"nvmlDeviceGetMemoryInfo_v2", NULL, NULL, NULL}, SLOT(mem_v2), 0, NULL},
        {{"nvmlDeviceGetMemoryInfo", NULL, NULL, NULL}, SLOT(mem_v1), 0, NULL},
        {{"nvmlDeviceGetClockInfo", NULL, NULL, NULL}, SLOT(clock), 0, NULL},
        {{"nvmlDeviceGetMaxClockInfo", NULL, NULL, NULL}, SLOT(max_clock), 0, NULL},
        {{"nvmlDeviceGetPowerUsage", NULL, NULL, NULL}, SLOT(power), 0, NULL},
        {{"nvmlDeviceGetEnforcedPowerLimit", NULL, NULL, NULL}, SLOT(power_limit), 0, NULL},
        {{"nvmlDeviceGetTemperature", NULL, NULL, NULL}, SLOT(temp), 0, NULL},
        {{"nvmlDeviceGetPcieThroughput", NULL, NULL, NULL}, SLOT(pcie_tp), 0, NULL},
        {{"nvmlDeviceGetCurrPcieLinkGeneration", NULL, NULL, NULL}, SLOT(pcie_gen), 0, NULL},
        {{"nvmlDeviceGetMaxPcieLinkGeneration", NULL, NULL, NULL}, SLOT(pcie_gen_max), 0, NULL},
        {{"nvmlDeviceGetCurrPcieLinkWidth", NULL, NULL, NULL}, SLOT(pcie_width), 0, NULL},
        {{"nvmlDeviceGetMaxPcieLinkWidth", NULL, NULL, NULL}, SLOT(pcie_width_max), 0, NULL},
        {{"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons", NULL, NULL},
         SLOT(reasons), 0, NULL},
        {{"nvmlDeviceGetEncoderUtilization", NULL, NULL, NULL}, SLOT(enc_util), 0, NULL},
        {{"nvmlDeviceGetDecoderUtilization", NULL, NULL, NULL}, SLOT(dec_util), 0, NULL},
        {{"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
          "nvmlDeviceGetComputeRunningProcesses", NULL},
         SLOT(compute_procs), 0, &n->compute_ver},
        {{"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2",
          "nvmlDeviceGetGraphicsRunningProcesses", NULL},
         SLOT(graphics_procs), 0, &n->graphics_ver},
        {{"nvmlGpmQueryDeviceSupport", NULL, NULL, NULL}, SLOT(gpm_query), 0, NULL},
        {{"nvmlGpmSampleAlloc", NULL, NULL, NULL}, SLOT(gpm_alloc), 0, NULL},
        {{"nvmlGpmSampleFree", NULL, NULL, NULL}, SLOT(gpm_free), 0, NULL},
        {{"nvmlGpmSampleGet", NULL, NULL, NULL}, SLOT(gpm_get), 0, NULL},
        {{"nvmlGpmMetricsGet", NULL, NULL, NULL}, SLOT(gpm_metrics), 0, NULL},
        {{"nvmlDeviceGetConfComputeMemSizeInfo", NULL, NULL, NULL}, SLOT(conf_compute_mem), 0, NULL},
        {{"nvmlDeviceGetRunningProcessDetailList", NULL, NULL, NULL}, SLOT(proc_detail_list), 0, NULL},
    };
    if (resolve(n, tab, sizeof tab / sizeof tab[0], err) != 0) {
        dlclose(n->lib);
        free(n);
        return GPUDIAG_ERR_NODEV;
    }
    /* Early R535 drivers want a 32-byte v3 process record (nvitop's test). */
    n->proc_stride_v3 = (n->f.conf_compute_mem && !n->f.proc_detail_list) ? 32 : 24;

    nvmlReturn_t r = n->f.init();
    if (r != NVML_SUCCESS) {
        gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1, "no usable NVIDIA driver: %s: nvmlInit failed: %s (NVML error %d)",
                     n->lib_name, nvml_err(n, r), r);
        n->f.shutdown = NULL; /* nothing to shut down */
        nvml_close(n);
        return GPUDIAG_ERR_NODEV;
    }
    if (n->f.driver_version && n->f.driver_version(n->driver, sizeof n->driver) != NVML_SUCCESS)
        n->driver[0] = '\0';
    n->driver[sizeof n->driver - 1] = '\0';
    unsigned int count = 0;
    r = n->f.count(&count);
    if (r != NVML_SUCCESS || count == 0) {
        if (r != NVML_SUCCESS)
            gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1, "%s: nvmlDeviceGetCount failed: %s (NVML error %d)",
                         n->lib_name, nvml_err(n, r), r);
        else
            gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1, "%s: NVML lists no GPU", n->lib_name);
        nvml_close(n);
        return GPUDIAG_ERR_NODEV;
    }
    if (count > 1024)
        count = 1024;
    n->gpus = calloc(count, sizeof *n->gpus);
    if (!n->gpus) {
        nvml_close(n);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
    }
    nvmlReturn_t last = NVML_SUCCESS;
    for (unsigned int i = 0; i < count; i++) {
        gd_nvml_gpu *g = &n->gpus[n->ngpus];
        r = n->f.handle(i, &g->dev);
        if (r != NVML_SUCCESS) {
            last = r; /* e.g. NO_PERMISSION on a GPU outside this container: skip it */
            continue;
        }
        g->info.index = i;
        if (n->f.name && n->f.name(g->dev, g->info.name, sizeof g->info.name) != NVML_SUCCESS)
            g->info.name[0] = '\0';
        g->info.name[sizeof g->info.name - 1] = '\0';
        if (n->f.uuid && n->f.uuid(g->dev, g->info.uuid, sizeof g->info.uuid) != NVML_SUCCESS)
            g->info.uuid[0] = '\0';
        g->info.uuid[sizeof g->info.uuid - 1] = '\0';
        if (n->f.pci) {
            union {
                nvmlPciInfo_t info;
                /* cppcheck-suppress unusedStructMember ; never read: it sizes the union */
                unsigned char pad[256]; /* room should an older layout be larger */
            } pci;
            memset(&pci, 0, sizeof pci);
            if (n->f.pci(g->dev, &pci.info) == NVML_SUCCESS) {
                pci.info.busId[sizeof pci.info.busId - 1] = '\0';
                snprintf(g->info.pci_bus_id, sizeof g->info.pci_bus_id, "%s", pci.info.busId);
            }
        }
        if (n->f.gpm_query && n->f.gpm_alloc && n->f.gpm_get && n->f.gpm_metrics && n->f.gpm_free) {
            nvmlGpmSupport_t sup = {GD_NVML_GPM_SUPPORT_VERSION, 0};
            if (n->f.gpm_query(g->dev, &sup) == NVML_SUCCESS && sup.isSupportedDevice) {
                if (n->f.gpm_alloc(&g->gpm_prev) == NVML_SUCCESS && n->f.gpm_alloc(&g->gpm_cur) == NVML_SUCCESS)
                    g->info.gpm_supported = 1;
            }
        }
        n->ngpus++;
    }
    if (n->ngpus == 0) {
        gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1,
                     "%s: NVML lists %u GPU(s) but none can be opened: %s (NVML error %d)", n->lib_name, count,
                     nvml_err(n, last), last);
        nvml_close(n);
        return GPUDIAG_ERR_NODEV;
    }
    *state = n;
    return GPUDIAG_OK;
}

static size_t nvml_gpu_count(const void *state)
{
    return ((const gd_nvml *)state)->ngpus;
}

static const gpudiag_gpu_info *nvml_gpu(const void *state, size_t i)
{
    return &((const gd_nvml *)state)->gpus[i].info;
}

static const char *nvml_driver(const void *state)
{
    return ((const gd_nvml *)state)->driver;
}

/* Record r; returns 1 when the call succeeded.  GPU_IS_LOST marks the GPU. */
static int ok(gd_nvml_gpu *g, nvmlReturn_t r)
{
    if (r == NVML_ERROR_GPU_IS_LOST)
        g->lost = 1;
    return r == NVML_SUCCESS;
}

/* Append the processes of one list (compute or graphics) to out. */
static void read_procs(gd_nvml *n, gd_nvml_gpu *g, gd_nvmlDeviceGetProcesses_fn fn, size_t ver,
                       gpudiag_gpu_sample *out)
{
    size_t stride = ver == 0 ? n->proc_stride_v3 : ver == 1 ? sizeof(nvmlProcessInfo_t) : sizeof(nvmlProcessInfo_v1_t);
    for (int attempt = 0; attempt < 4; attempt++) {
        if (n->proc_cap == 0 || !n->proc_buf) {
            n->proc_cap = 64;
            n->proc_buf = calloc(n->proc_cap, 32);
            if (!n->proc_buf) {
                n->proc_cap = 0;
                return;
            }
        }
        unsigned int cnt = (unsigned int)n->proc_cap;
        nvmlReturn_t r = fn(g->dev, &cnt, n->proc_buf);
        if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
            size_t want = (size_t)cnt + 16; /* the list is racy: over-allocate */
            if (want <= n->proc_cap)
                want = n->proc_cap * 2;
            if (want > 65536)
                return;
            unsigned char *nb = realloc(n->proc_buf, want * 32);
            if (!nb)
                return;
            n->proc_buf = nb;
            n->proc_cap = want;
            continue;
        }
        if (!ok(g, r))
            return;
        out->has_processes = 1;
        if (cnt > n->proc_cap)
            cnt = (unsigned int)n->proc_cap;
        for (unsigned int k = 0; k < cnt; k++) {
            const unsigned char *rec = n->proc_buf + (size_t)k * stride;
            unsigned int pid;
            unsigned long long used;
            memcpy(&pid, rec, sizeof pid);
            memcpy(&used, rec + 8, sizeof used);
            int dup = 0;
            for (size_t j = 0; j < out->process_count; j++)
                if (out->processes[j].pid == pid)
                    dup = 1;
            if (dup || out->process_count >= GPUDIAG_SAMPLE_MAX_PROCS)
                continue;
            gpudiag_gpu_process *p = &out->processes[out->process_count++];
            p->pid = pid;
            p->used_bytes = used == GD_NVML_VALUE_NOT_AVAILABLE ? NAN : (double)used;
        }
        return;
    }
}

static void read_gpm(gd_nvml *n, gd_nvml_gpu *g, gpudiag_gpu_sample *out)
{
    if (!ok(g, n->f.gpm_get(g->dev, g->gpm_cur)))
        return;
    double t = gd_mono_s();
    if (!g->gpm_have_prev) {
        nvmlGpmSample_t tmp = g->gpm_prev;
        g->gpm_prev = g->gpm_cur;
        g->gpm_cur = tmp;
        g->gpm_have_prev = 1;
        g->gpm_prev_t = t;
        return;
    }
    if (t - g->gpm_prev_t < 0.1)
        return; /* closer than NVML's 100 ms refresh: keep the older baseline */
    if (!n->mg) {
        n->mg = calloc(1, sizeof *n->mg);
        if (!n->mg)
            return;
    }
    static const unsigned int ids[] = {
        NVML_GPM_METRIC_SM_UTIL,         NVML_GPM_METRIC_SM_OCCUPANCY,    NVML_GPM_METRIC_ANY_TENSOR_UTIL,
        NVML_GPM_METRIC_DRAM_BW_UTIL,    NVML_GPM_METRIC_PCIE_TX_PER_SEC, NVML_GPM_METRIC_PCIE_RX_PER_SEC,
        NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC,
    };
    size_t nm = sizeof ids / sizeof ids[0];
    memset(n->mg, 0, sizeof *n->mg);
    n->mg->version = GD_NVML_GPM_METRICS_GET_VERSION;
    n->mg->numMetrics = (unsigned int)nm;
    n->mg->sample1 = g->gpm_prev;
    n->mg->sample2 = g->gpm_cur;
    for (size_t k = 0; k < nm; k++)
        n->mg->metrics[k].metricId = ids[k];
    nvmlReturn_t r = n->f.gpm_metrics(n->mg);
    /* the current sample becomes the next baseline either way */
    nvmlGpmSample_t tmp = g->gpm_prev;
    g->gpm_prev = g->gpm_cur;
    g->gpm_cur = tmp;
    g->gpm_prev_t = t;
    if (!ok(g, r))
        return;
    const double mib = 1048576.0;
    for (size_t k = 0; k < nm; k++) {
        const nvmlGpmMetric_t *m = &n->mg->metrics[k];
        if (m->nvmlReturn != NVML_SUCCESS || !isfinite(m->value) || m->value < 0)
            continue;
        switch (ids[k]) {
        case NVML_GPM_METRIC_SM_UTIL: out->sm_active_pct = m->value; break;
        case NVML_GPM_METRIC_SM_OCCUPANCY: out->sm_occupancy_pct = m->value; break;
        case NVML_GPM_METRIC_ANY_TENSOR_UTIL: out->tensor_active_pct = m->value; break;
        case NVML_GPM_METRIC_DRAM_BW_UTIL: out->dram_active_pct = m->value; break;
        case NVML_GPM_METRIC_PCIE_TX_PER_SEC: out->gpm_pcie_tx_bytes_per_s = m->value * mib; break;
        case NVML_GPM_METRIC_PCIE_RX_PER_SEC: out->gpm_pcie_rx_bytes_per_s = m->value * mib; break;
        case NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC: out->nvlink_rx_bytes_per_s = m->value * mib; break;
        case NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC: out->nvlink_tx_bytes_per_s = m->value * mib; break;
        default: break;
        }
    }
}

static void nvml_read(void *state, size_t i, gpudiag_gpu_sample *out)
{
    gd_nvml *n = state;
    gd_nvml_gpu *g = &n->gpus[i];
    const gd_nvml_fns *f = &n->f;
    out->t_s = gd_wall_s();
    out->index = g->info.index;
    if (g->lost) {
        out->lost = 1;
        return;
    }
    unsigned int v = 0, v2 = 0;
    if (f->util) {
        nvmlUtilization_t u;
        if (ok(g, f->util(g->dev, &u))) {
            out->gpu_util_pct = u.gpu;
            out->mem_util_pct = u.memory;
        }
    }
    int have_mem = 0;
    if (f->mem_v2 && !g->lost) {
        nvmlMemory_v2_t m;
        memset(&m, 0, sizeof m);
        m.version = GD_NVML_MEMORY_V2_VERSION;
        if (ok(g, f->mem_v2(g->dev, &m))) {
            out->mem_used_bytes = (double)m.used;
            out->mem_total_bytes = (double)m.total;
            out->mem_reserved_bytes = (double)m.reserved;
            have_mem = 1;
        }
    }
    if (!have_mem && f->mem_v1 && !g->lost) {
        nvmlMemory_t m;
        if (ok(g, f->mem_v1(g->dev, &m))) {
            out->mem_used_bytes = (double)m.used;
            out->mem_total_bytes = (double)m.total;
        }
    }
    if (f->clock && !g->lost) {
        if (ok(g, f->clock(g->dev, NVML_CLOCK_SM, &v)))
            out->sm_clock_mhz = v;
        if (!g->lost && ok(g, f->clock(g->dev, NVML_CLOCK_MEM, &v)))
            out->mem_clock_mhz = v;
    }
    if (f->max_clock && !g->lost) {
        if (ok(g, f->max_clock(g->dev, NVML_CLOCK_SM, &v)))
            out->sm_clock_max_mhz = v;
        if (!g->lost && ok(g, f->max_clock(g->dev, NVML_CLOCK_MEM, &v)))
            out->mem_clock_max_mhz = v;
    }
    if (f->power && !g->lost && ok(g, f->power(g->dev, &v)))
        out->power_w = v / 1000.0;
    if (f->power_limit && !g->lost && ok(g, f->power_limit(g->dev, &v)))
        out->power_limit_w = v / 1000.0;
    if (f->temp && !g->lost && ok(g, f->temp(g->dev, NVML_TEMPERATURE_GPU, &v)))
        out->temp_c = v;
    if (f->pcie_tp && !g->lost) {
        if (ok(g, f->pcie_tp(g->dev, NVML_PCIE_UTIL_RX_BYTES, &v)))
            out->pcie_rx_bytes_per_s = v * 1024.0;
        if (!g->lost && ok(g, f->pcie_tp(g->dev, NVML_PCIE_UTIL_TX_BYTES, &v2)))
            out->pcie_tx_bytes_per_s = v2 * 1024.0;
    }
    if (f->pcie_gen && !g->lost && ok(g, f->pcie_gen(g->dev, &v)))
        out->pcie_gen = v;
    if (f->pcie_gen_max && !g->lost && ok(g, f->pcie_gen_max(g->dev, &v)))
        out->pcie_gen_max = v;
    if (f->pcie_width && !g->lost && ok(g, f->pcie_width(g->dev, &v)))
        out->pcie_width = v;
    if (f->pcie_width_max && !g->lost && ok(g, f->pcie_width_max(g->dev, &v)))
        out->pcie_width_max = v;
    if (f->reasons && !g->lost) {
        unsigned long long bits = 0;
        if (ok(g, f->reasons(g->dev, &bits))) {
            out->has_clock_event_reasons = 1;
            out->clock_event_reasons = bits;
        }
    }
    /* NVENC / NVDEC busy %: NOT_SUPPORTED on GPUs without the engine and on MIG; a value above 100
     * is not a percentage, so unknown rather than wrong */
    unsigned int period_us = 0;
    if (f->enc_util && !g->lost && ok(g, f->enc_util(g->dev, &v, &period_us)) && v <= 100)
        out->enc_util_pct = v;
    if (f->dec_util && !g->lost && ok(g, f->dec_util(g->dev, &v, &period_us)) && v <= 100)
        out->dec_util_pct = v;
    if (f->compute_procs && !g->lost)
        read_procs(n, g, f->compute_procs, n->compute_ver, out);
    if (f->graphics_procs && !g->lost)
        read_procs(n, g, f->graphics_procs, n->graphics_ver, out);
    if (g->info.gpm_supported && !g->lost)
        read_gpm(n, g, out);
    if (g->lost) {
        double t = out->t_s;
        unsigned idx = out->index;
        gd_sample_clear(out);
        out->t_s = t;
        out->index = idx;
        out->lost = 1;
    }
}

const gd_sample_backend gd_nvml_backend = {
    "nvml", nvml_open, nvml_gpu_count, nvml_gpu, nvml_driver, nvml_read, nvml_close,
};
