/*
 * steady.c — per step, the time that is not steady-state training: device-idle
 * time of causes startup and compilation (less recurring compilation), and an unexplained tail (DEFINITIONS
 * "Steady state of a run").  A post-pass over the report's idle gaps; compare
 * leaves out the steps it dominates.
 */
#include <math.h>

#include "analyze/analyze.h"
#include "gpudiag/gpudiag.h"
#include "util/util.h"

void gd_build_steady(gpudiag_report *r)
{
    double nd = r->timeline.device_count ? (double)r->timeline.device_count : 1.0;
    for (size_t k = 0; k < r->step_count; k++) {
        gpudiag_step *st = &r->steps[k];
        st->startup_idle_us = st->unexplained_tail_us = r->has_gpu ? 0.0 : NAN;
        if (!r->has_gpu)
            continue;
        for (size_t i = 0; i < r->gaps_kept; i++) {
            const gpudiag_gap *g = &r->gaps[i];
            if (g->start_ns < st->start_ns || g->start_ns >= st->end_ns)
                continue;
            int64_t end_ns = g->start_ns + (int64_t)llround(g->duration_us * NS_PER_US);
            /* recurring compilation is steady state (DEFINITIONS "Idle gaps and their causes", rule 0) */
            int recompile = g->cause == GPUDIAG_IDLE_COMPILATION && r->recompile_steps && st->recompiling;
            if (g->cause == GPUDIAG_IDLE_STARTUP || (g->cause == GPUDIAG_IDLE_COMPILATION && !recompile))
                st->startup_idle_us += g->duration_us / nd;
            else if (g->cause == GPUDIAG_IDLE_OTHER && end_ns >= st->end_ns)
                st->unexplained_tail_us += ns_to_us(st->end_ns - g->start_ns) / nd;
        }
    }
}
