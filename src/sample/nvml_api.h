/*
 * nvml_api.h — the few NVML types and functions gpudiag uses, redeclared so
 * that the build needs no nvml.h (NVML is loaded at run time with dlopen).
 *
 * Layouts are LP64 (x86-64, aarch64 Linux) and follow the public nvml.h as
 * written up in ../shared/docs/reference/monitoring-peers.md, section 3
 * (checked there against the 11.8, 12.2 and 13.3 headers).  The static
 * asserts below pin the documented sizes and offsets.  The fake library in
 * tests/fake_nvml/ includes this header too.
 */
#ifndef GD_NVML_API_H
#define GD_NVML_API_H

#include <stddef.h>

typedef int nvmlReturn_t; /* a C enum in nvml.h: 4 bytes */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_UNKNOWN = 999
};

/* nvmlClockType_t */
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };
/* nvmlTemperatureSensors_t */
enum { NVML_TEMPERATURE_GPU = 0 };
/* nvmlPcieUtilCounter_t */
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };

typedef struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlMemory_t {
    unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_t {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define GD_NVML_MEMORY_V2_VERSION 0x02000028u /* sizeof | 2 << 24 */

/* v2 and v3 process records are 24 bytes; v1 is pid + usedGpuMemory (16). */
typedef struct nvmlProcessInfo_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;
typedef struct nvmlProcessInfo_v1_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
#define GD_NVML_VALUE_NOT_AVAILABLE 0xFFFFFFFFFFFFFFFFull

typedef struct nvmlPciInfo_t {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

/* GPM */
typedef struct nvmlGpmSupport_t {
    unsigned int version;
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define GD_NVML_GPM_SUPPORT_VERSION 1u

typedef struct nvmlGpmMetric_t {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;
} nvmlGpmMetric_t;

/* NVML_GPM_METRIC_MAX grew 98 -> 210 -> 333 with the version left at 1;
 * the library only touches metrics[0..numMetrics-1].  333 is safe. */
#define GD_NVML_GPM_METRIC_MAX 333
typedef struct nvmlGpmMetricsGet_t {
    unsigned int version;
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[GD_NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define GD_NVML_GPM_METRICS_GET_VERSION 1u

/* GPM metric ids (values in percent, bandwidths in MiB/s). */
enum {
    NVML_GPM_METRIC_SM_UTIL = 2,
    NVML_GPM_METRIC_SM_OCCUPANCY = 3,
    NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
    NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
    NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20,
    NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
    NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60,
    NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61
};

#if defined(__LP64__) || defined(_LP64)
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t is 8 bytes");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t is 24 bytes");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t is 40 bytes");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8 && offsetof(nvmlMemory_v2_t, used) == 32,
               "nvmlMemory_v2_t layout");
_Static_assert((GD_NVML_MEMORY_V2_VERSION & 0xffffff) == sizeof(nvmlMemory_v2_t), "memory v2 version macro");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "process record v2/v3 is 24 bytes");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "process record v1 is 16 bytes");
_Static_assert(sizeof(nvmlGpmMetric_t) == 40 && offsetof(nvmlGpmMetric_t, value) == 8, "nvmlGpmMetric_t layout");
_Static_assert(offsetof(nvmlGpmMetricsGet_t, sample1) == 8 && offsetof(nvmlGpmMetricsGet_t, metrics) == 24,
               "nvmlGpmMetricsGet_t layout");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t (v3) is 68 bytes");
#endif

/* Function pointer types (exact signatures of nvml.h). */
typedef nvmlReturn_t (*gd_nvmlInit_fn)(void);
typedef nvmlReturn_t (*gd_nvmlShutdown_fn)(void);
typedef const char *(*gd_nvmlErrorString_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*gd_nvmlSystemGetDriverVersion_fn)(char *, unsigned int);
typedef nvmlReturn_t (*gd_nvmlDeviceGetCount_fn)(unsigned int *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetHandleByIndex_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetString_fn)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*gd_nvmlDeviceGetPciInfo_fn)(nvmlDevice_t, nvmlPciInfo_t *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t, nvmlUtilization_t *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetMemoryInfo_v2_fn)(nvmlDevice_t, nvmlMemory_v2_t *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetClockInfo_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetUInt_fn)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetTemperature_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetPcieThroughput_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetULongLong_fn)(nvmlDevice_t, unsigned long long *);
/* nvmlDeviceGetEncoderUtilization / nvmlDeviceGetDecoderUtilization: (device, utilization %, samplingPeriodUs) */
typedef nvmlReturn_t (*gd_nvmlDeviceGetEngineUtil_fn)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*gd_nvmlDeviceGetProcesses_fn)(nvmlDevice_t, unsigned int *, void *);
typedef nvmlReturn_t (*gd_nvmlGpmQueryDeviceSupport_fn)(nvmlDevice_t, nvmlGpmSupport_t *);
typedef nvmlReturn_t (*gd_nvmlGpmSampleAlloc_fn)(nvmlGpmSample_t *);
typedef nvmlReturn_t (*gd_nvmlGpmSampleFree_fn)(nvmlGpmSample_t);
typedef nvmlReturn_t (*gd_nvmlGpmSampleGet_fn)(nvmlDevice_t, nvmlGpmSample_t);
typedef nvmlReturn_t (*gd_nvmlGpmMetricsGet_fn)(nvmlGpmMetricsGet_t *);

#endif
