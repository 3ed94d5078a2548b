/*
 * names.c — static names for enums (the enums' .def lists in include/gpudiag/),
 * and status texts.
 */

#include "gpudiag/gpudiag.h"
#include "gpudiag/series.h"

const char *gpudiag_strerror(gpudiag_status code)
{
    switch (code) {
    case GPUDIAG_OK: return "success";
    case GPUDIAG_ERR_IO: return "cannot read the input";
    case GPUDIAG_ERR_FORMAT: return "unreadable or malformed input";
    case GPUDIAG_ERR_NOMEM: return "out of memory";
    case GPUDIAG_ERR_ARG: return "invalid argument";
    case GPUDIAG_ERR_INTERNAL: return "internal error";
    case GPUDIAG_ERR_NODEV: return "no GPU, driver or NVML library";
    case GPUDIAG_ERR_NOMATCH: return "the selection matched nothing in the input";
    case GPUDIAG_ERR_MISMATCH: return "summaries of another gpudiag version or another job";
    }
    return "unknown status";
}

const char *gpudiag_errname(gpudiag_status code)
{
    switch (code) {
    case GPUDIAG_OK: return "ok";
    case GPUDIAG_ERR_IO: return "io";
    case GPUDIAG_ERR_FORMAT: return "format";
    case GPUDIAG_ERR_NOMEM: return "nomem";
    case GPUDIAG_ERR_ARG: return "arg";
    case GPUDIAG_ERR_INTERNAL: return "internal";
    case GPUDIAG_ERR_NODEV: return "nodev";
    case GPUDIAG_ERR_NOMATCH: return "nomatch";
    case GPUDIAG_ERR_MISMATCH: return "mismatch";
    }
    return "unknown";
}

const char *gpudiag_role_name(gpudiag_role role)
{
    static const char *const names[GPUDIAG_ROLE_COUNT] = {
#define GPUDIAG_ROLE_ROW(e, name, abbr) name,
#include "gpudiag/roles.def"
#undef GPUDIAG_ROLE_ROW
    };
    return (unsigned)role < GPUDIAG_ROLE_COUNT ? names[role] : "unknown";
}

const char *gpudiag_kernel_class_name(gpudiag_kernel_class cls)
{
    static const char *const names[GPUDIAG_KCLASS_COUNT] = {
#define GPUDIAG_KCLASS_ROW(e, name) name,
#include "gpudiag/kernel_classes.def"
#undef GPUDIAG_KCLASS_ROW
    };
    return (unsigned)cls < GPUDIAG_KCLASS_COUNT ? names[cls] : "unknown";
}

const char *gpudiag_idle_cause_name(gpudiag_idle_cause cause)
{
    static const char *const names[GPUDIAG_IDLE_CAUSE_COUNT] = {
#define GPUDIAG_IDLE_CAUSE_ROW(e, name) name,
#include "gpudiag/idle_causes.def"
#undef GPUDIAG_IDLE_CAUSE_ROW
    };
    return (unsigned)cause < GPUDIAG_IDLE_CAUSE_COUNT ? names[cause] : "unknown";
}

const char *gpudiag_comm_kind_name(gpudiag_comm_kind kind)
{
    static const char *const names[GPUDIAG_COMM_KIND_COUNT] = {
#define GPUDIAG_COMM_KIND_ROW(e, name, share_key) name,
#include "gpudiag/comm_kinds.def"
#undef GPUDIAG_COMM_KIND_ROW
    };
    return (unsigned)kind < GPUDIAG_COMM_KIND_COUNT ? names[kind] : "unknown";
}

const char *gpudiag_copy_kind_name(gpudiag_copy_kind kind)
{
    static const char *const names[GPUDIAG_COPY_KIND_COUNT] = {
#define GPUDIAG_COPY_KIND_ROW(e, name) name,
#include "gpudiag/copy_kinds.def"
#undef GPUDIAG_COPY_KIND_ROW
    };
    return (unsigned)kind < GPUDIAG_COPY_KIND_COUNT ? names[kind] : "unknown";
}

const char *gpudiag_bottleneck_name(gpudiag_bottleneck bn)
{
    switch (bn) {
#define GPUDIAG_BN_ROW(e, name)                                                                                        \
    case GPUDIAG_BN_##e:                                                                                               \
        return name;
#include "gpudiag/bottlenecks.def"
#undef GPUDIAG_BN_ROW
    }
    return "unknown";
}

const char *gpudiag_severity_name(gpudiag_severity sev)
{
    switch (sev) {
#define GPUDIAG_SEV_ROW(e, name)                                                                                       \
    case GPUDIAG_SEV_##e:                                                                                              \
        return name;
#include "gpudiag/severities.def"
#undef GPUDIAG_SEV_ROW
    }
    return "info";
}

