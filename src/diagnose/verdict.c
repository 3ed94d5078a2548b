/*
 * verdict.c — ranking the findings and the verdict (docs/FINDINGS.md
 * "Verdict"): the one sentence that names the bottleneck, the finding it rests
 * on, and why that is not the first-ranked finding when it is not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_internal.h"
#include "gpudiag/memory.h"
#include "gpudiag/specs.h"

/* The catalogue row of a finding's id; NULL for an id not in it. */
static const gd_finding_row *catalogue_row(const char *id)
{
    for (size_t i = 0; i < GD_F_COUNT; i++)
        if (strcmp(gd_catalogue[i].id, id) == 0)
            return &gd_catalogue[i];
    return NULL;
}

static int finding_rank(const gpudiag_finding *f)
{
    /* causes with an estimate first, then causes without, then symptoms, then notes */
    if (f->is_cause)
        return isnan(f->est_gain) ? 1 : 0;
    const gd_finding_row *c = catalogue_row(f->id);
    return c && c->kind == NOTE ? 3 : 2;
}

static int cmp_finding(const void *pa, const void *pb)
{
    const gpudiag_finding *a = pa, *b = pb;
    int ra = finding_rank(a), rb = finding_rank(b);
    if (ra != rb)
        return ra - rb;
    if (ra == 0 && a->est_gain != b->est_gain)
        return a->est_gain > b->est_gain ? -1 : 1;
    if (a->severity != b->severity)
        return (int)b->severity - (int)a->severity;
    return strcmp(a->id, b->id);
}

void gd_rank_findings(gpudiag_report *r)
{
    if (r->finding_count > 1)
        qsort(r->findings, r->finding_count, sizeof *r->findings, cmp_finding);
}

/* The value of an evidence key, NaN if absent. */
static double evidence(const gpudiag_finding *f, const char *key)
{
    for (size_t i = 0; i < f->evidence_count; i++)
        if (strcmp(f->evidence[i].key, key) == 0)
            return f->evidence[i].value;
    return NAN;
}

const char *gd_fix_memcpy(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap)
{
    (void)r, (void)buf, (void)cap;
    return evidence(f, "d2d_copy_time_share") > 0.5 ? "avoid device-side copies: .contiguous(), torch.cat, .clone()"
                                                    : NULL;
}

const char *gd_fix_host_launch(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap)
{
    (void)buf, (void)cap;
    if (evidence(f, "graph_launches") > 0 || evidence(f, "graph_captures") > 0)
        return "launch fewer, larger kernels outside the graphs: fusion, bigger batch";
    /* ROCm: HIP graphs, as the finding's own advice says (a ROCm trace read "CUDA Graphs" here) */
    return r->is_amd ? "launch fewer, larger kernels: torch.compile / HIP graphs, bigger batch" : NULL;
}

int gd_forward_only(const gpudiag_report *r)
{
    return r->step_count && r->accumulation.backward_passes == 0 && r->accumulation.optimizer_steps == 0;
}

const char *gd_fix_headroom(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap)
{
    (void)f;
    (void)buf;
    (void)cap;
    return gd_forward_only(r) ? "spend the free memory on a larger batch or more concurrent requests" : NULL;
}

/* allocator_churn from the idle time its calls hold (one window / one step): the cache looks off */
const char *gd_fix_allocator(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap)
{
    (void)r;
    (void)buf;
    (void)cap;
    return isnan(evidence(f, "alloc_idle_share"))
               ? NULL
               : "re-enable the caching allocator: unset PYTORCH_NO_CUDA_MEMORY_CACHING, check "
                 "PYTORCH_CUDA_ALLOC_CONF, no empty_cache() per step";
}

const char *gd_fix_communication(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap)
{
    if (evidence(f, "mpi_calls") > 0)
        return "overlap MPI with GPU work: Isend/Irecv early, wait late, CUDA-aware MPI";
    /* the group(s) gd_rule_communication chose, from the report's shares (the rule's own source) */
    double gs[G_NONE];
    int g, g2;
    if (!gd_comm_group_shares(r, gs))
        return NULL; /* kinds unknown: the catalogue's */
    if (gd_comm_near_tie(gs, &g, &g2)) {
        snprintf(buf, cap, "%s; %s", gd_comm_group_fix(g), gd_comm_group_fix(g2));
        return buf;
    }
    g = gd_comm_advice_group(gs);
    return gd_comm_group_fix(g);
}

/* The catalogue's framework-neutral fixes (findings.def GD_FIX_NEUTRAL rows). */
static const struct {
    gd_finding_id id;
    const char *fix;
} neutral_fixes[] = {
#define GD_FIX_NEUTRAL(id, fix) {GD_F_##id, fix},
#include "diagnose/findings.def"
#undef GD_FIX_NEUTRAL
};

/* The verdict's one-line fix for f: for a trace that shows no framework its
 * GD_FIX_NEUTRAL row (DEFINITIONS "Framework"), else the catalogue's fix_fn,
 * else its short_fix. */
static const char *short_fix(const gpudiag_report *r, const gpudiag_finding *f, char *buf, size_t cap)
{
    const gd_finding_row *c = catalogue_row(f->id);
    if (c && r->input.framework && strcmp(r->input.framework, "none") == 0)
        for (size_t i = 0; i < sizeof neutral_fixes / sizeof *neutral_fixes; i++)
            if (&gd_catalogue[neutral_fixes[i].id] == c)
                return neutral_fixes[i].fix;
    const char *fix = c && c->fix_fn ? c->fix_fn(r, f, buf, cap) : NULL;
    if (!fix && c)
        fix = c->short_fix;
    return fix ? fix : "see findings";
}

/* The findings whose numbers compare host times with GPU times: a verdict resting on one of them
 * ends with the clock-skew caution (DEFINITIONS "Kernels", kernels before their launch). */
static const gd_finding_id host_gpu_timed[] = {
    GD_F_host_overhead,         GD_F_host_launch_bound,    GD_F_torch_recompilation, GD_F_memory_headroom_idle,
    GD_F_lora_adapter_launches, GD_F_optimizer_unfused,    GD_F_dataloader_stall,    GD_F_sync_stall,
    GD_F_stream_wait,           GD_F_collective_host_work,
};

static int rests_on_host_gpu_timing(const char *on)
{
    for (size_t i = 0; on && i < sizeof host_gpu_timed / sizeof *host_gpu_timed; i++)
        if (strcmp(gd_catalogue[host_gpu_timed[i]].id, on) == 0)
            return 1;
    return 0;
}

/* stream_wait time with no graph launch or stream-wait-event call to explain it, µs. */
static double stream_wait_unexplained_us(const gpudiag_report *r)
{
    double u = r->idle_cause_us[GPUDIAG_IDLE_STREAM_WAIT] - r->stream_wait_graph_us - r->stream_wait_event_us;
    return u > 0 ? u : 0;
}

/* Device-idle time with no visible cause — cause `other`, and `stream_wait` that
 * no graph launch or event wait explains — ÷ devices ÷ the steps span, 0 when
 * unknown (FINDINGS "Verdict"). */
static double other_idle_share(const gpudiag_report *r)
{
    size_t nd = r->timeline.device_count;
    if (!nd || !r->step_count || !(r->idle_step_us > 0))
        return 0;
    return (r->idle_cause_us[GPUDIAG_IDLE_OTHER] + stream_wait_unexplained_us(r)) / (double)nd /
           ((double)r->step_count * r->idle_step_us);
}

/* "24%" or "no estimate" for a finding's est_gain, into buf[cap]. */
static const char *gain_words(const gpudiag_finding *f, char *buf, size_t cap)
{
    if (isnan(f->est_gain))
        snprintf(buf, cap, "no estimate");
    else
        snprintf(buf, cap, "est. gain %.0f%%", 100.0 * f->est_gain);
    return buf;
}

/* Why a finding ranked above the verdict's does not lead (FINDINGS "Verdict"). */
enum skip_reason { SKIP_COMPUTE, SKIP_NO_GPU, SKIP_NO_GAIN, SKIP_BELOW, SKIP_NOTE, SKIP_SYMPTOM };

static enum skip_reason skip_reason(const gpudiag_report *r, const gpudiag_finding *l)
{
    if (l->is_cause && l->bottleneck == GPUDIAG_BN_COMPUTE)
        return SKIP_COMPUTE;
    if (l->is_cause && !r->has_gpu)
        return SKIP_NO_GPU;
    if (l->is_cause)
        return isnan(l->est_gain) ? SKIP_NO_GAIN : SKIP_BELOW;
    return finding_rank(l) == 3 ? SKIP_NOTE : SKIP_SYMPTOM;
}

/* "2nd", "3rd", "11th" for rank n (1-based), into buf[cap]. */
static const char *ordinal(size_t n, char *buf, size_t cap)
{
    const char *sfx = n % 100 >= 11 && n % 100 <= 13 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    snprintf(buf, cap, "%zu%s", n, sfx);
    return buf;
}

/* The clause for the first-ranked finding l, skipped for reason k. Returns a
 * malloc'd string, NULL on allocation failure. */
static char *why_first(const gpudiag_finding *l, enum skip_reason k)
{
    char g[32];
    switch (k) {
    case SKIP_COMPUTE:
        return gd_format("%s ranks first (%s) but makes the kernels faster rather than removing a stall, and a "
                         "verdict names a stall before a kernel speed-up",
                         l->id, gain_words(l, g, sizeof g));
    case SKIP_NO_GPU:
        return gd_format("%s ranks first but the trace has no GPU activity to weigh it against", l->id);
    case SKIP_NO_GAIN:
        return gd_format("%s ranks first but has no gain estimate", l->id);
    case SKIP_BELOW:
        return gd_format("%s ranks first (%s) but is below the %.0f%% a cause needs to lead the verdict", l->id,
                         gain_words(l, g, sizeof g), 100.0 * GD_VERDICT_GAIN_MIN);
    case SKIP_NOTE:
        return gd_format("%s ranks first but is a note on the input, not a cause", l->id);
    default:
        return gd_format("%s ranks first but is a symptom, not a cause", l->id);
    }
}

/* The short reason a further skipped cause does not lead, given the first's k0. */
static const char *why_also(enum skip_reason k, enum skip_reason k0)
{
    if (k == k0)
        return "for the same reason";
    switch (k) {
    case SKIP_COMPUTE:
        return "as a kernel speed-up, not a stall";
    case SKIP_NO_GPU:
        return "as the trace has no GPU activity to weigh it against";
    case SKIP_NO_GAIN:
        return "as it has no gain estimate";
    default:
        return "as it is below the share a cause needs to lead the verdict";
    }
}

/* verdict.finding and verdict.why (FINDINGS "Verdict"): the finding the verdict
 * rests on (`on`, NULL: none, or an id the rules did not add), and when that is
 * not the first-ranked finding, one sentence saying why the first does not lead
 * and naming every other cause ranked above the verdict's finding (every other
 * cause when it rests on none) with why it is passed over. */
static void verdict_finding(fbuilder *b, const char *on)
{
    gpudiag_report *r = b->r;
    r->verdict_finding = NULL;
    r->verdict_why = NULL;
    size_t at = r->finding_count; /* the verdict's finding's rank */
    for (size_t i = 0; on && i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, on) == 0) {
            r->verdict_finding = r->findings[i].id;
            at = i;
        }
    if (at > 0 && at < r->finding_count && finding_rank(&r->findings[at]) == 3) {
        /* FINDINGS "Ranking": the note on the input the verdict rests on ranks first, the
         * others keep their order */
        gpudiag_finding f = r->findings[at];
        memmove(&r->findings[1], &r->findings[0], at * sizeof *r->findings);
        r->findings[0] = f;
        at = 0;
    }
    if (!r->finding_count || at == 0)
        return;
    enum skip_reason k0 = skip_reason(r, &r->findings[0]);
    char *why = why_first(&r->findings[0], k0);
    for (size_t i = 1; why && i < at; i++) {
        const gpudiag_finding *f = &r->findings[i];
        if (!f->is_cause)
            continue;
        char g[32], n[24];
        char *more = gd_format("%s; %s, ranked %s (%s), is passed over %s", why, f->id, ordinal(i + 1, n, sizeof n),
                               gain_words(f, g, sizeof g), why_also(skip_reason(r, f), k0));
        free(why);
        why = more;
    }
    char *all = why ? gd_format("%s; the verdict rests on %s", why,
                                r->verdict_finding ? r->verdict_finding
                                                   : "no finding (none explains what it reports)")
                    : NULL;
    free(why);
    r->verdict_why = gd_arena_take(r->arena, all); /* the report owns it */
    if (!r->verdict_why)
        b->oom = 1;
}

/* The cause the verdict names: the first-ranked cause that is not a kernel
 * speed-up (bottleneck compute) and has est_gain >= GD_VERDICT_GAIN_MIN; NULL
 * when none. */
static const gpudiag_finding *leading_cause(const gpudiag_report *r)
{
    for (size_t i = 0; i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        if (f->is_cause && f->bottleneck != GPUDIAG_BN_COMPUTE && !isnan(f->est_gain) &&
            f->est_gain >= GD_VERDICT_GAIN_MIN)
            return f;
    }
    return NULL;
}

/* The verdict of a trace with no GPU activity (FINDINGS "Verdict"): why
 * nothing can be said of the GPU side.  *on gets the id of the finding it
 * rests on.  Returns the sentence (malloc'd), NULL on allocation failure. */
static char *verdict_no_gpu(const gpudiag_report *r, const gpudiag_trace *t, const char **on)
{
    char *v = NULL;
    if (r->input.truncated) {
        *on = "cpu_only_trace";
        v = gd_format("The trace is cut off at byte %lld before any GPU activity was recorded: nothing to diagnose "
                      "on the GPU side; profile again and let the profiler finish writing.",
                      (long long)r->input.truncated_at);
    } else if (r->graph_launches_unrecorded > 0) {
        *on = "input_graph_replays_unrecorded";
        v = gd_format("The trace holds %llu graph launch%s but no GPU op: the kernels the graphs ran were not "
                      "recorded, so whether the GPU is busy or waiting cannot be told from it (%zu host step%s); "
                      "record graph kernels and profile again.",
                      (unsigned long long)r->graph_launches_unrecorded, r->graph_launches_unrecorded == 1 ? "" : "es",
                      r->step_count, r->step_count == 1 ? "" : "s");
    } else if (r->gpu_launch_calls > 0 && !r->input.profiler_ranges && !r->input.unanalysed_device_events) {
        *on = "input_gpu_records_dropped";
        v = gd_format("The trace holds %llu kernel/copy/memset launch call%s but no GPU record: the profiler lost "
                      "the device activity, so whether the GPU is busy or waiting cannot be told from it (%zu host "
                      "step%s); profile again with CUDA activities on.",
                      (unsigned long long)r->gpu_launch_calls, r->gpu_launch_calls == 1 ? "" : "s", r->step_count,
                      r->step_count == 1 ? "" : "s");
    } else if (r->input.profiler_ranges > 0) {
        *on = "input_profiler_ranges";
        v = gd_format("The trace was recorded with the CUPTI range profiler: %llu kernel counter range%s but no "
                      "kernel times, so whether the GPU is busy or waiting cannot be told from it (%zu host step%s); "
                      "profile again without profiler_metrics.",
                      (unsigned long long)r->input.profiler_ranges, r->input.profiler_ranges == 1 ? "" : "s",
                      r->step_count, r->step_count == 1 ? "" : "s");
    } else if (r->input.unanalysed_device_events > 0) {
        *on = "input_unanalysed_device_events";
        v = gd_format("The device work in this trace is on an accelerator gpudiag does not analyse (%llu %s "
                      "event%s left out): no device-side diagnosis (%zu host step%s).",
                      (unsigned long long)r->input.unanalysed_device_events,
                      r->input.unanalysed_device_count == 1 ? r->input.unanalysed_device[0].category : "device",
                      r->input.unanalysed_device_events == 1 ? "" : "s", r->step_count, r->step_count == 1 ? "" : "s");
    } else {
        *on = "cpu_only_trace";
        if (!r->input.legacy_profiler && t->uncategorised_events > 0)
            v = gd_format("No GPU activity recognised, but %llu event%s carr%s no category: device work may be "
                          "among them, so nothing can be said about the GPU (%zu host step%s).",
                          (unsigned long long)t->uncategorised_events, t->uncategorised_events == 1 ? "" : "s",
                          t->uncategorised_events == 1 ? "ies" : "y", r->step_count,
                          r->step_count == 1 ? "" : "s");
        else if (!r->input.legacy_profiler && !r->input.truncated &&
                 gd_gpu_events_left_out(r) > 0)
            v = gd_format("No GPU activity could be analysed: the trace's GPU events were all left out (an impossible "
                          "device index or no timestamp), so nothing can be said about the GPU (%zu host step%s).",
                          r->step_count, r->step_count == 1 ? "" : "s");
        else if (!r->input.legacy_profiler && !r->input.truncated && r->memory && r->memory->device_count > 0)
            v = gd_format("The GPU was used (CUDA memory events) but this trace recorded no GPU activity: nothing "
                          "to diagnose on the GPU side (%zu host step%s); profile with the CUDA activity too.",
                          r->step_count, r->step_count == 1 ? "" : "s");
        else
            v = gd_format("No GPU activity in this trace%s: nothing to diagnose on the GPU side (%zu host step%s).",
                          r->input.legacy_profiler
                              ? " (written by the legacy autograd profiler, which records CPU ops only)"
                              : "",
                          r->step_count, r->step_count == 1 ? "" : "s");
    }
    return v;
}

/* The verdict when a cause leads (top): its title, the share it could save and
 * its one-line fix; note: the start-up sentence (may be ""). */
static char *verdict_cause(const gpudiag_report *r, const gpudiag_finding *top, const char *note)
{
    /* an estimate resting on one gap in a one-step window (rules_steps.c, evidence one_off_gap_share)
     * is a ceiling that holds only if the gap recurs every step (a second new user: "could save ~75%"
     * beside "a one-off cannot be told" read as a promise) */
    int one_off = 0;
    char fixbuf[256];
    for (size_t i = 0; i < top->evidence_count; i++)
        one_off |= strcmp(top->evidence[i].key, "one_off_gap_share") == 0;
    /* memory_headroom_idle's gain is per sample, not per step (FINDINGS "Verdict") */
    int per_sample = strcmp(top->id, "memory_headroom_idle") == 0;
    return gd_format("%s; could %s %s~%.0f%%%s%s (%s)%s%s", top->title, per_sample ? "cut" : "save",
                     per_sample ? "the time per sample by " : one_off ? "up to " : "", 100.0 * top->est_gain,
                     per_sample ? "" : " of step time", one_off ? " if that gap recurs every step" : "",
                     short_fix(r, top, fixbuf, sizeof fixbuf),
                     r->steps_from_profiler ? "."
                                            : r->input.step_range_missing
                                                  ? ". The --step-range name matched nothing: the window is the "
                                                    "whole capture, so treat the estimate with care."
                                                  : ". No step markers: the window is the whole capture, so treat "
                                                    "the estimate with care.",
                     note);
}

/* The verdict when the GPU is busy (utilization >= GD_LOW_UTIL_MAX) and no
 * stall leads: the bottleneck is compute, and the kernels say how to speed it
 * up.  busy: the utilization it states (of the steady-state step).  *on as
 * verdict_no_gpu; returns the sentence, NULL on allocation failure. */
static char *verdict_busy(gpudiag_report *r, const char **on, double busy)
{
    char *v;
    r->bottleneck = GPUDIAG_BN_COMPUTE;
    const gpudiag_finding *tc = NULL;
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, "no_tensor_cores") == 0)
            tc = &r->findings[i];
    unsigned tcd = gd_tc_dtypes(r);
    if (tc)
        *on = tc->id;
    else if (r->finding_count && r->findings[0].is_cause && r->findings[0].bottleneck == GPUDIAG_BN_COMPUTE)
        *on = r->findings[0].id; /* "speed-ups now come from the kernels": the first says how */
    if (tc)
        v = gd_format("The GPU is busy %.0f%% of the step, but its matrix work avoids Tensor Cores "
                      "(%s).",
                      100.0 * busy,
                      (tcd & (1u << GPUDIAG_DTYPE_BF16)) ? "enable AMP with bf16, or TF32"
                                                         : "enable AMP with fp16 and GradScaler");
    else if (gd_idle_cause_share(r, GPUDIAG_IDLE_STREAM_WAIT) >= GD_STREAM_WAIT_SHARE_MIN)
        /* stream_wait with no estimate: queued work waited for nothing the trace shows */
        v = gd_format("The GPU is busy %.0f%% of the step; no stall the trace explains, though for %.0f%% of "
                      "the step it sits idle with work already queued (stream_wait). Speed-ups now come from "
                      "the kernels themselves (precision, fusion, larger batches) and from finding what those "
                      "queued ops wait for.",
                      100.0 * busy, 100.0 * gd_idle_cause_share(r, GPUDIAG_IDLE_STREAM_WAIT));
    else
        v = gd_format("The GPU is busy %.0f%% of the step; no stall found in the trace. Speed-ups "
                      "now come from the kernels themselves (precision, fusion, larger batches).",
                      100.0 * busy);
    return v;
}

/* A share of the analysed time as the verdict weighs it: of the steady-state step, or of the whole
 * window when start-up is most of it (then the start-up verdict speaks). */
static double steady(const gpudiag_report *r, double s)
{
    return gd_mostly_startup(r) ? s : gd_steady_share(r, s);
}

/* The start-up verdicts' sentence for a window of one step (DEFINITIONS "Start-up in the window",
 * one-off gaps). */
#define ONE_STEP_STARTUP                                                                                   \
    " With one step, host work that every call repeats before its first kernel (input decoding, "         \
    "preprocessing, tokenisation) cannot be told from start-up: if the job does it per call, it is a "    \
    "data-pipeline stall, not start-up."

/* Two or more GPUs whose utilizations differ by >= GD_UNEVEN_DEVICES (the busiest minus the least
 * busy): 1 with their indexes in r->devices (FINDINGS "verdict.finding"). */
#define GD_UNEVEN_DEVICES 0.5
static int uneven_devices(const gpudiag_report *r, size_t *busy, size_t *idle)
{
    size_t hi = SIZE_MAX, lo = SIZE_MAX;
    for (size_t i = 0; i < r->device_count; i++) {
        double u = r->devices[i].gpu_utilization;
        if (isnan(u))
            continue;
        if (hi == SIZE_MAX || u > r->devices[hi].gpu_utilization)
            hi = i;
        if (lo == SIZE_MAX || u < r->devices[lo].gpu_utilization)
            lo = i;
    }
    if (hi == SIZE_MAX || hi == lo || !(r->devices[hi].gpu_utilization - r->devices[lo].gpu_utilization >=
                                        GD_UNEVEN_DEVICES))
        return 0;
    *busy = hi;
    *idle = lo;
    return 1;
}

void gd_verdict(fbuilder *b, const gpudiag_trace *t)
{
    size_t busy = 0, idle = 0;
    gpudiag_report *r = b->r;
    r->bottleneck = GPUDIAG_BN_UNKNOWN;
    const gpudiag_finding *top = leading_cause(r);
    char *v = NULL;
    /* start-up / compilation left out of the estimates (DEFINITIONS "Start-up in the window") */
    char note[200] = "";
    double ssh = gd_startup_share(r);
    double sus = gd_startup_us(r, NULL);
    char sdur[32], left[32];
    gd_format_us(sdur, sizeof sdur, sus, "us");
    gd_format_us(left, sizeof left, r->steady_step_us, "us");
    if (ssh >= GD_STARTUP_SHARE_MIN)
        snprintf(note, sizeof note,
                 " %s of start-up/compilation (%.0f%% of the %s) excluded from the estimates: they are shares of the "
                 "%s per step left.",
                 sdur, 100.0 * ssh, r->steps_from_profiler ? "steps" : "window", left);
    /* the GPU's busy share of the steady-state step, unless start-up is most of the window
     * (DEFINITIONS "Start-up in the window", steady-state step) */
    double su = steady(r, r->gpu_utilization);
    const char *on = NULL; /* the id of the finding the verdict rests on */
    int unexplained = 0;   /* the verdict of idle time with no visible cause (host/GPU attribution) */
    int kmiss = gd_kernels_missing(r);
    if (!r->has_gpu) {
        v = verdict_no_gpu(r, t, &on);
    } else if (r->steps_cut_gpu && r->step_count == 0) {
        /* every step was cut while its GPU events were written (DEFINITIONS "Time and events") */
        on = "input_truncated";
        char *what = gd_steps_cut_words(r);
        v = what ? gd_format("The trace is cut off at byte %lld and no complete step is left: %s; nothing to "
                             "diagnose from it: get the complete file (let the profiler finish writing).",
                             (long long)r->input.truncated_at, what)
                 : NULL;
        free(what);
    } else if (kmiss == 2 && r->kernel_count) {
        /* most kernels of the launch calls missing (DEFINITIONS "Time and events", kernel launch
         * calls without kernels): the idle time is mostly theirs */
        on = "input_kernels_missing";
        v = gd_format("Only %llu of %llu kernel launch calls %s have a kernel recorded (%llu kernel%s joined to no "
                      "call): most kernel records are missing, so the idle time is mostly the missing kernels' time "
                      "and whether the GPU is busy or waiting cannot be told from it; %s",
                      (unsigned long long)r->kernel_launches_joined, (unsigned long long)r->kernel_launch_calls,
                      r->steps_from_profiler ? "in the steps" : "in the capture",
                      (unsigned long long)r->kernels_unlinked, r->kernels_unlinked == 1 ? "" : "s",
                      r->input.truncated ? "the trace is cut off: get the complete file."
                      : r->input.nsys.present ? "profile a shorter range with `nsys profile --trace=cuda` and export "
                                                "every table."
                                              : "profile a shorter window with CUDA activities on, or give CUPTI a "
                                                "larger activity buffer.");
    } else if (kmiss == 2) {
        /* copies/memsets but no kernel for the launch calls (DEFINITIONS "Time and events", kernel
         * launch calls without kernels): every idle-based cause describes the copies alone */
        on = "input_kernels_missing";
        v = gd_format("The trace holds %llu kernel launch call%s %s but no kernel, only %zu cop%s/memset%s: the "
                      "kernel records are missing, so whether the GPU is busy or waiting cannot be told from it; "
                      "%s",
                      (unsigned long long)r->kernel_launch_calls, r->kernel_launch_calls == 1 ? "" : "s",
                      r->steps_from_profiler ? "in the steps" : "in the capture", t->gpu_ops.len,
                      t->gpu_ops.len == 1 ? "y" : "ies", t->gpu_ops.len == 1 ? "" : "s",
                      r->input.truncated ? "the trace is cut off: get the complete file."
                      : r->input.nsys.present ? "profile again with `nsys profile --trace=cuda` and export every table."
                                              : "profile again with CUDA activities on.");
    } else if (gd_capture_dominates(r)) {
        on = "input_graph_capture";
        v = gd_format("%.0f%% of the analysed time is stream capture (%llu capture%s): the trace records building "
                      "%s graphs, not running them, so no steady-state bottleneck can be told; profile the steps "
                      "that replay the graphs.",
                      100.0 * r->graph_capture_us / ((double)r->step_count * r->idle_step_us),
                      (unsigned long long)r->graph_captures, r->graph_captures == 1 ? "" : "s",
                      r->is_amd ? "HIP" : "CUDA");
    } else if (gd_graph_hides_idle(r)) {
        on = "input_graph_replays_unrecorded";
        v = gd_format("%llu of %llu graph launches have no GPU op in the trace, and the idle gaps that follow them "
                      "are %.0f%% of the step, most of the idle time: the GPU may have run the unrecorded replays "
                      "there, so utilization (%.0f%%) is a lower bound and no stall can be named from this trace; "
                      "record graph kernels and profile again.",
                      (unsigned long long)r->graph_launches_unrecorded, (unsigned long long)r->graph_launches,
                      100.0 * gd_graph_hidden_share(r), 100.0 * r->gpu_utilization);
    } else if (gd_fb_find(r, "input_first_iteration")) {
        /* the window is mostly the first iteration (DEFINITIONS "Steps" 5): no bottleneck to name */
        on = "input_first_iteration";
        char gain[96] = "";
        if (top && !isnan(top->est_gain))
            snprintf(gain, sizeof gain, " Over the whole window %s leads (est. gain %.0f%%), mostly from that iteration.",
                     top->id, 100.0 * top->est_gain);
        v = gd_format("The window has no step markers and is mostly the first iteration (initialisation, "
                      "autotuning), so which stall limits the steady state cannot be told from it; record steady-state "
                      "steps with prof.step(), or start the capture after the first iteration.%s",
                      gain);
    } else if (top && gd_mostly_startup(r)) {
        /* the cause findings are shares of what is left outside start-up: too little to rest a verdict
         * on (DEFINITIONS "Start-up in the window", steady-state step) */
        on = "startup_in_window";
        char rest[32], gain[48] = "";
        gd_format_us(rest, sizeof rest, r->steady_step_us, "us");
        if (!isnan(top->est_gain))
            snprintf(gain, sizeof gain, " (est. gain %.0f%% of it)", 100.0 * top->est_gain);
        v = gd_format("%.*f%% of the %s is start-up/compilation (%s): too little steady-state work was recorded to "
                      "judge; profile steady-state steps (%s). In the %s per step left, %s leads%s, which a trace "
                      "of steady-state steps should confirm.%s",
                      ssh >= 0.995 ? 1 : 0, 100.0 * ssh, r->steps_from_profiler ? "steps" : "window", sdur,
                      r->steps_from_profiler ? "torch.profiler schedule with wait and warmup"
                                             : "start the capture after initialisation",
                      rest, top->id, gain, gd_one_step_window(r) ? ONE_STEP_STARTUP : "");
    } else if (top) {
        on = top->id;
        r->bottleneck = top->bottleneck;
        v = verdict_cause(r, top, note);
    } else if (!isnan(r->gpu_utilization) && r->gpu_utilization < 1.0 &&
               gd_idle_cause_share(r, GPUDIAG_IDLE_PROFILER) >= 0.5 * gd_steady_share(r, 1.0 - r->gpu_utilization)) {
        /* no cause finding, and most of the idle time is the profiler's own overhead
         * (DEFINITIONS "Idle gaps and their causes", rule 0c) */
        on = "input_profiler_overhead";
        v = gd_format("The GPU is idle %.0f%% of the step, mostly (%.0f%% of the step) while the profiler's own "
                      "overhead ran (CUPTI activity buffer requests, Kineto `overhead` events): a profiling artefact, "
                      "not the program's, and no stall of the program stands out in the rest; profile more steps "
                      "(torch.profiler schedule with wait and warmup) so the profiler's one-off work weighs less.%s",
                      100.0 * (1.0 - r->gpu_utilization), 100.0 * gd_idle_cause_share(r, GPUDIAG_IDLE_PROFILER), note);
    } else if (!isnan(su) && su >= GD_LOW_UTIL_MAX && steady(r, other_idle_share(r)) >= GD_UNEXPLAINED_IDLE_MAX) {
        unexplained = 1;
        v = gd_format("The GPU is idle %.0f%% of the step, and %.0f%% of the step is idle time with no visible cause "
                      "in the trace (no host activity, sync, DataLoader, communication or copy during it%s). Look at "
                      "the largest gaps under IDLE GAPS; work the profiler did not record (another process, an "
                      "uninstrumented library) may sit there.%s",
                      100.0 * (1.0 - su), 100.0 * steady(r, other_idle_share(r)),
                      stream_wait_unexplained_us(r) > 0 ? "; or work already queued that waited for nothing the trace "
                                                          "shows"
                                                        : "",
                      note);
    } else if (!isnan(su) && su >= GD_LOW_UTIL_MAX) {
        v = verdict_busy(r, &on, su);
        if (v && note[0]) { /* the busy share is of the steady-state step: say so */
            char *w = gd_format("%s%s", v, note);
            free(v);
            v = w;
        }
    } else if (!isnan(r->gpu_utilization) && ssh >= 0.5 * (1.0 - r->gpu_utilization)) {
        on = "startup_in_window";
        v = gd_format("The GPU is idle %.0f%% of the %s, mostly start-up/compilation: %s before the first GPU "
                      "op, after the last, or while compiling or warming up. Too little steady-state work was "
                      "recorded to judge; profile steady-state steps (torch.profiler schedule with wait and "
                      "warmup).%s",
                      100.0 * (1.0 - r->gpu_utilization), r->steps_from_profiler ? "step" : "window", sdur,
                      gd_one_step_window(r) ? ONE_STEP_STARTUP : "");
    } else if (!isnan(r->gpu_utilization) && uneven_devices(r, &busy, &idle)) {
        /* FINDINGS "verdict.finding": the average of a busy GPU and an idle one hides the cause */
        v = gd_format("GPU %d runs kernels %.1f%% of the step, GPU %d %.1f%%: the work is not spread over the "
                      "GPUs, and the trace holds no evidence of why the second gets so little (no DataLoader, "
                      "launch, communication or copy pattern stands out). Check what is placed on GPU %d "
                      "(.to(device), the model-parallel split, CUDA_VISIBLE_DEVICES) and whether the job needs "
                      "it.%s",
                      r->devices[busy].id, 100.0 * r->devices[busy].gpu_utilization, r->devices[idle].id,
                      100.0 * r->devices[idle].gpu_utilization, r->devices[idle].id, note);
    } else if (!isnan(r->gpu_utilization)) {
        v = gd_format("The GPU is idle %.0f%% of the step, but the trace holds no evidence of why "
                      "(no DataLoader, launch, communication or copy pattern stands out).%s",
                      100.0 * (1.0 - r->gpu_utilization), note);
    } else {
        v = gd_format("Not enough GPU activity inside the steps to judge.");
    }
    if (v && kmiss == 1) {
        /* far fewer kernels than launch calls: the verdict stands with low confidence */
        char *w = gd_format("%s Caution: only %llu of %llu kernel launch calls have a kernel recorded: GPU time is "
                            "under-counted and idle time over-counted, so this verdict has low confidence "
                            "(input_kernels_missing).",
                            v, (unsigned long long)r->kernel_launches_joined,
                            (unsigned long long)r->kernel_launch_calls);
        free(v);
        v = w;
    }
    if (v && (unexplained || rests_on_host_gpu_timing(on)) && gd_clock_skewed(r)) {
        /* kernels before their launch calls (DEFINITIONS "Kernels"): the host/GPU attribution
         * this verdict rests on compares times of two clocks that disagree */
        char off[32];
        double least;
        uint64_t nk = gd_clock_skew_kernels(r, &least);
        gd_format_us(off, sizeof off, least, "us"); /* a lower bound of the skew */
        char *w = gd_format("%s Caution: %llu kernels start before their own launch call (GPU and host clocks "
                            "disagree by at least %s): launch delays and the host/GPU attribution of idle time are "
                            "unreliable, so this verdict has low confidence (input_gpu_clock_skew).",
                            v, (unsigned long long)nk, off);
        free(v);
        v = w;
    }
    r->verdict = gd_arena_take(r->arena, v);
    if (!r->verdict)
        b->oom = 1;
    verdict_finding(b, on);
}
