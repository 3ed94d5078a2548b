/*
 * The enums generated from the .def lists in include/gpudiag/ keep their values and names:
 * each name list below is typed by hand from the JSON contract
 * (docs/report.schema.json: breakdown.share.*, idle.by_cause_share_of_step.*,
 * kernel classes, communication kinds, copy directions, bottlenecks,
 * severities) as names.c and
 * gpudiag.h spelled them before the .def lists; the values are stable
 * (append only), so a reordered or renamed row fails here.
 */
#include <string.h>

#include "gpudiag/gpudiag.h"
#include "test.h"

int main(void)
{
    static const char *const roles[] = {"kernel",  "memcpy",     "memset",   "communication",
                                        "runtime", "dataloader", "cpu_exec", "other"};
    ASSERT_EQ_INT(GPUDIAG_ROLE_COUNT, 8);
    for (int i = 0; i < 8; i++)
        ASSERT_STR_EQ(gpudiag_role_name((gpudiag_role)i), roles[i]);
    ASSERT_EQ_INT(GPUDIAG_ROLE_KERNEL, 0);
    ASSERT_EQ_INT(GPUDIAG_ROLE_CPU_EXEC, 6);
    ASSERT_STR_EQ(gpudiag_role_name(GPUDIAG_ROLE_COUNT), "unknown");

    static const char *const classes[] = {"gemm",        "conv",          "attention", "norm",  "reduction",
                                          "elementwise", "communication", "memory",    "other", "optimizer"};
    ASSERT_EQ_INT(GPUDIAG_KCLASS_COUNT, 10);
    for (int i = 0; i < 10; i++)
        ASSERT_STR_EQ(gpudiag_kernel_class_name((gpudiag_kernel_class)i), classes[i]);
    ASSERT_EQ_INT(GPUDIAG_KCLASS_OTHER, 8);
    ASSERT_EQ_INT(GPUDIAG_KCLASS_OPTIMIZER, 9);
    ASSERT_STR_EQ(gpudiag_kernel_class_name(GPUDIAG_KCLASS_COUNT), "unknown");

    static const char *const causes[] = {"sync",  "dataloader", "communication", "optimizer",   "host_launch",
                                         "other", "startup",    "compilation",   "stream_wait", "kernel_wait",
                                         "profiler"};
    ASSERT_EQ_INT(GPUDIAG_IDLE_CAUSE_COUNT, 11);
    for (int i = 0; i < 11; i++)
        ASSERT_STR_EQ(gpudiag_idle_cause_name((gpudiag_idle_cause)i), causes[i]);
    ASSERT_EQ_INT(GPUDIAG_IDLE_SYNC, 0);
    ASSERT_EQ_INT(GPUDIAG_IDLE_STREAM_WAIT, 8);
    ASSERT_EQ_INT(GPUDIAG_IDLE_PROFILER, 10);
    ASSERT_STR_EQ(gpudiag_idle_cause_name(GPUDIAG_IDLE_CAUSE_COUNT), "unknown");

    static const char *const comm[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                       "send_recv",  "broadcast",  "other",          "unknown"};
    ASSERT_EQ_INT(GPUDIAG_COMM_KIND_COUNT, 8);
    for (int i = 0; i < 8; i++)
        ASSERT_STR_EQ(gpudiag_comm_kind_name((gpudiag_comm_kind)i), comm[i]);
    ASSERT_EQ_INT(GPUDIAG_COMM_SEND_RECV, 4);
    ASSERT_EQ_INT(GPUDIAG_COMM_UNKNOWN, 7);

    static const char *const copies[] = {"h2d", "d2h", "d2d", "other"};
    ASSERT_EQ_INT(GPUDIAG_COPY_KIND_COUNT, 4);
    for (int i = 0; i < 4; i++)
        ASSERT_STR_EQ(gpudiag_copy_kind_name((gpudiag_copy_kind)i), copies[i]);
    ASSERT_EQ_INT(GPUDIAG_COPY_D2D, 2);
    ASSERT_STR_EQ(gpudiag_copy_kind_name(GPUDIAG_COPY_KIND_COUNT), "unknown");

    static const char *const bns[] = {"unknown",          "data_pipeline", "host_launch",
                                      "synchronization",  "communication", "memory_transfer",
                                      "memory_bandwidth", "compute",       "throttling"};
    for (int i = 0; i < 9; i++)
        ASSERT_STR_EQ(gpudiag_bottleneck_name((gpudiag_bottleneck)i), bns[i]);
    ASSERT_EQ_INT(GPUDIAG_BN_THROTTLING, 8);
    ASSERT_STR_EQ(gpudiag_bottleneck_name((gpudiag_bottleneck)9), "unknown");

    static const char *const sevs[] = {"info", "low", "medium", "high"};
    for (int i = 0; i < 4; i++)
        ASSERT_STR_EQ(gpudiag_severity_name((gpudiag_severity)i), sevs[i]);
    ASSERT_EQ_INT(GPUDIAG_SEV_HIGH, 3);
    ASSERT_STR_EQ(gpudiag_severity_name((gpudiag_severity)4), "info");
    TEST_DONE("names");
}
