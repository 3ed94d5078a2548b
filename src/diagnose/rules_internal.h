/*
 * rules_internal.h — what the trace rules' files share (rules.c, rules_input.c,
 * rules_steps.c, rules_kernel.c, rules_comm.c, verdict.c): the catalogue of
 * findings.def, appending a catalogue finding, the measures more than one
 * group reads, and the rules themselves.  Not part of the library's API.
 */
#ifndef GD_DIAGNOSE_RULES_INTERNAL_H
#define GD_DIAGNOSE_RULES_INTERNAL_H

#include <math.h>
#include <string.h>

#include "diagnose/fbuild.h"
#include "diagnose/rules.h"
#include "gpudiag/gpudiag.h"
#include "model/trace.h"
#include "util/util.h"

typedef gd_fbuild fbuilder;

/* ---- the catalogue (findings.def) -------------------------------------- */

typedef enum {
#define GD_FINDING(id, kind, bn, rule, fix, fix_fn) GD_F_##id,
#include "diagnose/findings.def"
#undef GD_FINDING
    GD_F_COUNT
} gd_finding_id;

typedef struct {
    const char *id;
    gd_finding_kind kind;
    gpudiag_bottleneck bottleneck;
    const char *short_fix;                           /* NULL: "see findings" */
    /* NULL, or a fix for this f in report r (NULL: short_fix): static, or written to buf[cap] */
    const char *(*fix_fn)(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap);
} gd_finding_row;

/* The rows of findings.def, indexed by gd_finding_id (rules.c). */
extern const gd_finding_row gd_catalogue[GD_F_COUNT];

/* Append the finding `id` with its catalogue kind and bottleneck; NULL (and
 * b->oom) on allocation failure. */
static inline gpudiag_finding *rf_add(fbuilder *b, gd_finding_id id, gpudiag_severity sev, double est_gain)
{
    const gd_finding_row *c = &gd_catalogue[id];
    return gd_fb_add(b, c->id, sev, c->kind, c->bottleneck, est_gain);
}

/* 1 when the trace shows PyTorch (gpudiag_input_info.framework, decided once by
 * gd_trace_framework; DEFINITIONS "Framework"): a recommendation may name
 * PyTorch's knobs.  0: no framework seen, the words are framework-neutral. */
static inline int rf_pytorch(const fbuilder *b)
{
    return b->r->input.framework && strcmp(b->r->input.framework, "pytorch") == 0;
}

/* 1 when the window has at most one step (one ProfilerStep, or no step markers:
 * the whole capture): a one-off cost cannot be told from a per-step one
 * (DEFINITIONS "Start-up in the window", one-off gaps; the verdict's one-step
 * sentence and gd_rule_one_off_gaps). */
static inline int gd_one_step_window(const gpudiag_report *r)
{
    return r->step_count <= 1;
}

/* 1 when an earlier rule added the finding `id` (rules.c runs them in order). */
static inline int has_finding(const gpudiag_report *r, const char *id)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return 1;
    return 0;
}

/* A share of the step (0..1) as a severity: >= 0.20 high, >= 0.10 medium, else low. */
static inline gpudiag_severity sev_for_share(double s)
{
    return s >= 0.20 ? GPUDIAG_SEV_HIGH : s >= 0.10 ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW;
}

/* A role's average time per step ÷ the average step (0..1), NaN without steps. */
static inline double role_share(const gpudiag_report *r, gpudiag_role role)
{
    if (!r->step_count || !(r->avg_step_us > 0))
        return NAN;
    return r->avg_role_us[role] / r->avg_step_us;
}

/* ---- measures read by more than one group ------------------------------ */

/* Groups of collective kinds that pick the communication advice; all-gather and
 * reduce-scatter together are FSDP / ZeRO-3 sharding. */
enum { G_ALL_REDUCE, G_SHARDED, G_ALL_TO_ALL, G_P2P, G_BROADCAST, G_UNKNOWN, G_NONE };

/* rules_comm.c: the group with the largest share of the communication kernel
 * time (ties: the first), G_NONE when none is > 0; *second (may be NULL) the
 * next largest.  One choice for the finding's advice and the verdict's fix
 * (DEFINITIONS "Communication", dominant kind). */
int gd_comm_dominant(const double gs[G_NONE], int *second);
/* rules_comm.c: 1 when exactly two groups are about equal at the top (shares within
 * GD_COMM_KIND_NEAR_TIE of the largest, ties included), then *g and *g2 the two
 * (gd_comm_dominant's order); else 0 (three or more: no leader, the general advice;
 * DEFINITIONS "Communication", dominant kind). */
int gd_comm_near_tie(const double gs[G_NONE], int *g, int *g2);
/* rules_comm.c: the group whose advice alone communication_bound and the verdict's fix
 * give: gd_comm_dominant's, G_NONE when none or when the second is about equal
 * (gd_comm_near_tie: then both groups' advice). */
int gd_comm_advice_group(const double gs[G_NONE]);
/* rules_comm.c: each group's share of the communication kernel time from r->comm_kind_share
 * into gs (the one place both the rule and the verdict read them); 1 when the kinds are
 * known, 0 when not (gs then NaN). */
int gd_comm_group_shares(const gpudiag_report *r, double gs[G_NONE]);
/* rules_comm.c: the verdict's short fix for one group (G_NONE: the general one), a static string. */
const char *gd_comm_group_fix(int g);
/* rules_comm.c: device-idle time in the host side of coalesced collectives ÷
 * devices, as a share (0..1) of the analysed time; 0 when none. */
double gd_collective_host_share(const gpudiag_report *r);
/* rules_input.c: device-idle time that may hold unrecorded graph replays ÷
 * devices ÷ the steps span (0..1); 0 when none. */
double gd_graph_hidden_share(const gpudiag_report *r);
/* rules_input.c: the unrecorded graph replays could fill most of the idle time. */
int gd_graph_hides_idle(const gpudiag_report *r);
/* rules_input.c: the kernel records are lost (DEFINITIONS "Time and events", kernel launch
 * calls without kernels): 2 none recorded, 1 far fewer than the launch calls, 0 neither. */
int gd_kernels_missing(const gpudiag_report *r);
int gd_clock_skewed(const gpudiag_report *r);
/* rules_input.c: the words for the first step of a cut-off trace cut while its GPU events were
 * written (r->steps_cut_*), malloc'd; NULL on allocation failure. */
char *gd_steps_cut_words(const gpudiag_report *r);
/* rules_input.c: with gd_clock_skewed, the kernels it rests on (> 50 µs early, or for a systematic
 * offset under 50 µs those > 1 µs early) and, in *at_least_us, the largest offset: a lower bound
 * of the skew, µs. */
uint64_t gd_clock_skew_kernels(const gpudiag_report *r, double *at_least_us);
/* rules_input.c: the iterations the DataLoader's __next__ calls mark in a window without step
 * markers (DEFINITIONS "Steps" 5): their number, the first one's length (µs) and share of the
 * window (0..1), the median complete later one (µs) and the trace time (µs) the second starts. */
typedef struct gd_first_iter {
    size_t iterations;
    double first_us, first_share, median_us, second_start_us;
} gd_first_iter;
/* 1 when the first iteration dominates the window (finding input_first_iteration), *fi filled;
 * 0 otherwise (fi->iterations is 0 when the rule does not apply); -1 out of memory. */
int gd_first_iteration(const gpudiag_report *r, const gpudiag_trace *t, gd_first_iter *fi);
/* rules_input.c: the steps span is mostly stream capture. */
int gd_capture_dominates(const gpudiag_report *r);
/* rules_kernel.c: the Tensor Core dtypes of the newest device
 * (gpudiag_tensor_core_dtypes), 0 when unknown or AMD. */
unsigned gd_tc_dtypes(const gpudiag_report *r);
/* rules_steps.c: start-up and compilation idle time ÷ devices, µs; *comp (may
 * be NULL) gets the compilation part. */
double gd_startup_us(const gpudiag_report *r, double *comp);
/* rules_steps.c: gd_startup_us as a share (0..1) of the analysed time, 0 when none. */
double gd_startup_share(const gpudiag_report *r);
/* rules_steps.c: us of device time summed over devices (idle or host time in gaps) ÷ devices, as
 * a share (0..1, capped) of the analysed time (steps × mean step); 0 without GPUs, steps or us. */
double gd_per_device_share(const gpudiag_report *r, double us);
/* rules_steps.c: a share s (0..1) of the analysed time as a share of the
 * steady-state step: s ÷ (1 − start-up share) when start-up is ≥ 1 %, capped at
 * 1; NaN when the whole window is start-up; s unchanged otherwise and when NaN.
 * Every cause rule's share and estimate goes through it (DEFINITIONS "Start-up
 * in the window", steady-state step). */
double gd_steady_share(const gpudiag_report *r, double s);
/* rules_steps.c: 1 when start-up is at least GD_STARTUP_MOSTLY of the analysed
 * time and fewer than GD_STARTUP_CLEAN_STEPS steps hold none: too little steady
 * state to rest a verdict or the utilization on. */
int gd_mostly_startup(const gpudiag_report *r);
/* rules_steps.c: the steady-state step, µs (avg_step_us less its start-up share
 * when that is ≥ 1 %); NaN without steps. Stored as r->steady_step_us. */
double gd_steady_step_us(const gpudiag_report *r);
/* rules_steps.c: device-idle time of cause c ÷ devices, as a share (0..1) of
 * the steady-state step (gd_steady_share); 0 when none, NaN when the whole
 * window is start-up. */
double gd_idle_cause_share(const gpudiag_report *r, gpudiag_idle_cause c);
/* rules_memory.c: the device whose memory binds the micro-batch: of those with
 * a reserved level and a known total, the one with the fewest activation fits;
 * NULL if none (DEFINITIONS "Memory timeline"). */
struct gpudiag_memory;
const struct gpudiag_memory_device *gd_memory_binding_device(const struct gpudiag_memory *m);
/* rules_memory.c: when allocator_churn fires (either form, DEFINITIONS "Allocator churn"), the
 * device-idle time the allocator's calls hold (r->alloc_idle_us) ÷ devices as a share (0..1) of
 * the analysed time, which host_overhead / host_launch_bound leave out; else 0. */
double gd_alloc_host_share(const gpudiag_report *r);

/* ---- the rules (each may add its findings.def rows) -------------------- */

void gd_rule_input(fbuilder *b, const gpudiag_trace *t); /* rules_input.c */
/* The rules of findings.def's GD_RULE lines (each in a rules_*.c). */
#define GD_RULE(fn, when) void fn(fbuilder *b);
#include "diagnose/findings.def"
#undef GD_RULE

/* GPU events read but left out of the model: an impossible device index (skipped.bad_value less
 * the kernels kept without their bad value) and no timestamp (docs/FINDINGS.md
 * input_incomplete_events, cpu_only_trace). */
static inline uint64_t gd_gpu_events_bad_device(const gpudiag_report *r)
{
    return r->input.skipped_bad_value - r->input.kernels_bad_value;
}
static inline uint64_t gd_gpu_events_left_out(const gpudiag_report *r)
{
    return gd_gpu_events_bad_device(r) + r->input.skipped_zero_ts;
}

/* ---- ranking and verdict (verdict.c) ----------------------------------- */

/* The verdict's evidence-dependent fixes (findings.def's fix_fn column): a static string, or
 * buf[cap] written, or NULL (the catalogue's short_fix). */
const char *gd_fix_memcpy(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap);
const char *gd_fix_host_launch(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap);
const char *gd_fix_headroom(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap);
const char *gd_fix_allocator(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap);
/* A forward-only trace (inference): steps, and neither a backward pass nor an optimizer step in
 * them (DEFINITIONS "Gradient accumulation", "Memory headroom while the GPU idles"). */
int gd_forward_only(const gpudiag_report *r);
const char *gd_fix_communication(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap);
/* Sort r->findings: causes with an estimate (by est_gain), causes without,
 * symptoms, notes; then severity, then id. */
void gd_rank_findings(gpudiag_report *r);
/* r->bottleneck, r->verdict, r->verdict_finding and r->verdict_why from the
 * ranked findings (FINDINGS "Verdict"); b->oom on allocation failure. */
void gd_verdict(fbuilder *b, const gpudiag_trace *t);

#endif
