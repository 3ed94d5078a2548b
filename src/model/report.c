/*
 * report.c — a report and its arena (report.h): one owner, one free.
 */
#include "model/report.h"

#include <math.h>
#include <stddef.h>

gpudiag_report *gd_report_new(void)
{
    gd_arena *a = gd_arena_new();
    gpudiag_report *r = a ? gd_arena_alloc(a, sizeof *r) : NULL;
    if (!r) {
        gd_arena_free(a);
        return NULL;
    }
    r->arena = a;
    /* the numbers an analysis may not reach: unknown (NaN, null in the JSON)
     * until it sets them, for a trace and a monitoring log alike */
    r->gpu_utilization = r->sm_efficiency = r->achieved_occupancy = r->tensor_core_share = NAN;
    r->idle_share = r->compute_share = r->non_compute_share = r->comm_share = r->comm_overlap = NAN;
    r->mfu = r->hfu = r->short_kernel_share = r->median_kernel_us = r->launch_delay_median_us = NAN;
    r->launch_skew_median_us = r->launch_skew_max_us = NAN;
    r->launch_skew_first_us = r->launch_skew_last_us = NAN;
    r->optimizer_time_us = r->matmul_tensor_core_share = NAN;
    r->avg_step_us = r->steady_step_us = NAN;
    r->comm_alg_gb_per_s = r->comm_bus_gb_per_s = r->nvlink_gb_per_s = r->comm_kernel_exposed_us_per_step = NAN;
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        r->avg_role_us[i] = NAN;
    r->step_time.mean = r->step_time.median = r->step_time.p90 = NAN;
    r->step_time.min = r->step_time.max = r->step_time.stddev = NAN;
    return r;
}

void gpudiag_report_free(gpudiag_report **rp)
{
    if (!rp || !*rp)
        return;
    gd_arena_free((*rp)->arena); /* the report itself lives in its arena */
    *rp = NULL;
}
