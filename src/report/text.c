/*
 * text.c — the terminal report: verdict first, then the step breakdown, the
 * findings ranked by expected gain, then details.  Fits a screen by default;
 * `verbose` adds every step, every finding's evidence and more kernels.
 * Colour (ANSI) only when the caller asks for it.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/memory.h"
#include "gpudiag/roofline.h"
#include "gpudiag/series.h"
#include "model/series_internal.h"
#include "report/finding_kind.h"
#include "report/series_words.h"
#include "util/util.h"

typedef struct tw {
    FILE *fp;
    int color;
    int width;
} tw;

/* Print at most max bytes of an input-derived string (names, paths): control
 * characters and bidirectional overrides become '?' (gd_fput_term), so a
 * trace cannot drive or reorder the terminal, and the cut
 * never splits a UTF-8 sequence.  Returns 1 if the string was cut. */
/* 1 when the report holds the finding `id`. */
static int has_finding(const gpudiag_report *r, const char *id)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return 1;
    return 0;
}

static int put_clean(FILE *fp, const char *s, size_t max)
{
    size_t n = gd_utf8_prefix(s, max);
    gd_fput_term(fp, s, n);
    return n < strlen(s);
}

static const char *c_bold(const tw *w) { return w->color ? "\033[1m" : ""; }
static const char *c_dim(const tw *w) { return w->color ? "\033[2m" : ""; }
static const char *c_red(const tw *w) { return w->color ? "\033[31m" : ""; }
static const char *c_yellow(const tw *w) { return w->color ? "\033[33m" : ""; }
static const char *c_green(const tw *w) { return w->color ? "\033[32m" : ""; }
static const char *c_cyan(const tw *w) { return w->color ? "\033[36m" : ""; }
static const char *c_off(const tw *w) { return w->color ? "\033[0m" : ""; }

static const char *sev_color(const tw *w, gpudiag_severity s)
{
    switch (s) {
    case GPUDIAG_SEV_HIGH: return c_red(w);
    case GPUDIAG_SEV_MEDIUM: return c_yellow(w);
    case GPUDIAG_SEV_LOW: return c_cyan(w);
    case GPUDIAG_SEV_INFO: return c_dim(w);
    }
    return "";
}

/* Print `s` wrapped at the report width, every line prefixed by `indent`. */
/* Does a duration's unit start at p ("ms", "us", "s", "µs" ending a word)?  The wrapper keeps it on the
 * number's line ("6.63 ms", gd_format_us). */
static int unit_at(const char *p)
{
    size_t k = strncmp(p, "\xC2\xB5s", 3) == 0                    ? 3
               : (p[0] == 'm' || p[0] == 'u') && p[1] == 's' ? 2
               : p[0] == 's'                                  ? 1
                                                              : 0;
    return k && !isalnum((unsigned char)p[k]);
}

static void wrap(const tw *w, const char *indent, const char *s)
{
    size_t ind = strlen(indent);
    size_t avail = (size_t)w->width > ind + 20 ? (size_t)w->width - ind : 60;
    while (*s) {
        size_t n = strlen(s);
        size_t take = n;
        if (n > avail) {
            take = avail;
            while (take > 0 && (s[take] != ' ' || (isdigit((unsigned char)s[take - 1]) && unit_at(s + take + 1))))
                take--;
            if (take == 0)
                take = avail;
        }
        fputs(indent, w->fp);
        gd_fput_term(w->fp, s, take);
        fputc('\n', w->fp);
        s += take;
        while (*s == ' ')
            s++;
    }
}

static void pct(char *b, size_t n, double v)
{
    if (isnan(v))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%.1f%%", 100.0 * v);
}

static void num_or_na(char *b, size_t n, double v, int decimals)
{
    if (isnan(v))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%.*f", decimals, v);
}

static void ms(char *b, size_t n, double us)
{
    gd_format_us(b, n, us, "us");
}

static void bar(const tw *w, double share, int cols)
{
    if (isnan(share) || share < 0)
        share = 0;
    int n = (int)lround(share * cols);
    if (n > cols)
        n = cols;
    for (int i = 0; i < n; i++)
        fputs(w->color ? "\xe2\x96\x88" : "#", w->fp);
}

static void header(const tw *w, const gpudiag_report *r)
{
    const gpudiag_input_info *in = &r->input;
    fprintf(w->fp, "%sgpudiag %s%s  ", c_bold(w), GPUDIAG_VERSION, c_off(w));
    put_clean(w->fp, in->path ? in->path : "-", 4096);
    if (in->nsys.present)
        fprintf(w->fp, "  (Nsight Systems export%s%s, %.1f MB of SQLite, %llu records", in->nsys.version && in->nsys.version[0] ? " from nsys " : "",
                in->nsys.version ? in->nsys.version : "", (double)in->bytes / 1e6, (unsigned long long)in->events);
    else
        fprintf(w->fp, "  (%s, %.1f MB of JSON, %llu events", in->format, (double)in->bytes / 1e6,
                (unsigned long long)in->events);
    if (in->rank >= 0)
        fprintf(w->fp, ", rank %d", in->rank);
    if (in->world_size > 0)
        fprintf(w->fp, " of %d", in->world_size);
    fprintf(w->fp, ")\n");
    size_t shown = r->device_count <= 16 ? r->device_count : 8;
    for (size_t i = 0; i < shown; i++) {
        const gpudiag_device *d = &r->devices[i];
        fprintf(w->fp, "%sGPU %d: ", c_dim(w), d->id);
        put_clean(w->fp, d->name[0] ? d->name : "(unnamed device)", 95);
        if (d->num_sms > 0)
            fprintf(w->fp, ", %d %s", d->num_sms, r->is_amd ? "CUs" : "SMs");
        if (d->compute_major >= 0 && !r->is_amd && d->arch_inferred)
            fprintf(w->fp, ", compute capability %d.%d or later (inferred from kernel names)", d->compute_major,
                    d->compute_minor < 0 ? 0 : d->compute_minor);
        else if (d->compute_major >= 0 && !r->is_amd)
            fprintf(w->fp, ", compute capability %d.%d", d->compute_major, d->compute_minor < 0 ? 0 : d->compute_minor);
        fprintf(w->fp, ", %llu kernel%s%s\n", (unsigned long long)d->kernel_count, d->kernel_count == 1 ? "" : "s",
                c_off(w));
        if (d->spec_name && i == 0) { /* the table row: peak, bandwidth, ridge and host link */
            /* matched by hardware: say so, and name the other parts that fit it (DEFINITIONS "GPU table") */
            char how[256] = "";
            if (strcmp(d->spec_match ? d->spec_match : "", "hardware") == 0) {
                size_t l = (size_t)snprintf(how, sizeof how, " (matched by %s count and memory",
                                            r->is_amd ? "CU" : "SM");
                for (size_t k = 0; k < d->spec_also_fits_count && l < sizeof how; k++)
                    l += (size_t)snprintf(how + l, sizeof how - l, "%s%s", k ? ", " : "; ", d->spec_also_fits[k]);
                if (l < sizeof how)
                    snprintf(how + l, sizeof how - l, "%s%s)",
                             !d->spec_also_fits_count ? "" : d->spec_also_fits_count == 1 ? " has them too" : " have them too",
                             !d->spec_also_fits_count ? ""
                             : d->spec_peaks_differ   ? ": cannot tell which, and the peaks differ, so this one is a guess"
                                                      : ", with the same peaks");
            }
            fprintf(w->fp, "%s       %s%s%s: %.1f TFLOP/s %s peak, %.0f GB/s, ridge %.0f FLOP/B, PCIe %.1f GB/s per "
                           "direction%s%s\n",
                    c_dim(w), d->spec_match && strcmp(d->spec_match, "exact") == 0 ? "" : "taken as ",
                    d->spec_part ? d->spec_part : d->spec_name, d->spec_uncertain ? " (uncertain values)" : "",
                    d->peak_tflops, r->mfu_dtype ? r->mfu_dtype : "?", d->mem_bw_gbs, d->ridge, d->pcie_gbs_per_dir,
                    how, c_off(w));
        }
    }
    if (shown < r->device_count)
        fprintf(w->fp, "%s... and %zu more devices (--json lists them all)%s\n", c_dim(w), r->device_count - shown,
                c_off(w));
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, "input_truncated") == 0 || strcmp(r->findings[i].id, "input_malformed") == 0)
            fprintf(w->fp, "%swarning:%s %s\n", c_yellow(w), c_off(w), r->findings[i].title);
    fputc('\n', w->fp);
}

static void verdict(const tw *w, const gpudiag_report *r)
{
    fprintf(w->fp, "%sVERDICT%s  ", c_bold(w), c_off(w));
    const char *col = r->bottleneck == GPUDIAG_BN_COMPUTE ? c_green(w) : r->bottleneck == GPUDIAG_BN_UNKNOWN ? "" : c_red(w);
    fprintf(w->fp, "%s%s%s%s", c_bold(w), col, gpudiag_bottleneck_name(r->bottleneck), c_off(w));
    if (r->verdict_finding)
        fprintf(w->fp, "  (finding %s)", r->verdict_finding);
    fputc('\n', w->fp);
    wrap(w, "         ", r->verdict ? r->verdict : "");
    if (r->verdict_why) {
        char *why = gd_format("Why not the first finding: %s.", r->verdict_why);
        wrap(w, "         ", why ? why : r->verdict_why);
        free(why);
    }
    fputc('\n', w->fp);
}

static void memory_lines(const tw *w, const gpudiag_report *r);

static void numbers(const tw *w, const gpudiag_report *r)
{
    char a[32], b[32], c[32], d[32], e[32];
    if (r->step_count) {
        ms(a, sizeof a, r->step_time.mean);
        ms(b, sizeof b, r->step_time.median);
        ms(c, sizeof c, r->step_time.p90);
        ms(d, sizeof d, r->step_time.min);
        ms(e, sizeof e, r->step_time.max);
        fprintf(w->fp, "%sSTEPS%s    %zu %s: mean %s, median %s, p90 %s, min %s, max %s", c_bold(w), c_off(w),
                r->step_count,
                r->input.step_range_missing && !r->steps_from_profiler ? "window (no range matched --step-range)"
                : !r->steps_from_profiler   ? "window (no ProfilerStep markers)"
                : r->step_count == 1        ? "step"
                                            : "steps",
                a, b, c, d, e);
        if (r->step_time.mean > 0 && r->step_count > 1)
            fprintf(w->fp, " (spread %.1f%%)", 100.0 * r->step_time.stddev / r->step_time.mean);
        fputc('\n', w->fp);
        if (r->input.steps_selected) {
            char sel[64];
            int64_t f = r->input.steps_first, l = r->input.steps_last;
            if (f == l)
                snprintf(sel, sizeof sel, "%lld", (long long)f);
            else if (f == INT64_MIN)
                snprintf(sel, sizeof sel, ":%lld", (long long)l);
            else if (l == INT64_MAX)
                snprintf(sel, sizeof sel, "%lld:", (long long)f);
            else
                snprintf(sel, sizeof sel, "%lld:%lld", (long long)f, (long long)l);
            fprintf(w->fp, "         %sselected (--steps %s): %zu of the trace's %llu steps; the others and their "
                           "events are left out%s\n",
                    c_dim(w), sel, r->step_count, (unsigned long long)r->input.steps_before_selection, c_off(w));
        }
        if (r->steps_markers_merged)
            fprintf(w->fp, "         %s%d step marker%s folded into the overlapping one of the same number (several "
                           "processes or\n         threads mark each step, or the events repeat): each step spans "
                           "them all%s\n",
                    c_dim(w), r->steps_markers_merged, gd_plural((unsigned long long)r->steps_markers_merged),
                    c_off(w));
        if (r->steps_trimmed)
            fprintf(w->fp, "         %s%d trailing step%s dropped: %s launched less GPU work than the one before "
                           "(profiler cut-off)%s\n",
                    c_dim(w), r->steps_trimmed, gd_plural((unsigned long long)r->steps_trimmed),
                    r->steps_trimmed == 1 ? "it" : "they", c_off(w));
    }
    if (r->has_gpu) {
        pct(a, sizeof a, r->gpu_utilization);
        if (r->graph_launches_unrecorded && !isnan(r->gpu_utilization))
            snprintf(a, sizeof a, ">= %.1f%% (lower bound)", 100.0 * r->gpu_utilization);
        pct(b, sizeof b, r->sm_efficiency);
        pct(c, sizeof c, r->achieved_occupancy);
        if (isnan(r->sm_efficiency))
            snprintf(b, sizeof b, "n/a (no blocks per %s)", r->is_amd ? "CU" : "SM");
        if (isnan(r->achieved_occupancy))
            snprintf(c, sizeof c, "n/a (not in trace)");
        pct(d, sizeof d, r->tensor_core_share);
        fprintf(w->fp, "%sGPU%s      utilization %s   est. %s efficiency %s   est. achieved occupancy %s\n",
                c_bold(w), c_off(w), a, r->is_amd ? "CU" : "SM", b, c);
        if (!isnan(r->mfu)) {
            fprintf(w->fp, "         MFU %.1f%%   HFU %.1f%%   %.1f TFLOP/s of model FLOPs per GPU (of %.1f %s peak)\n",
                    100.0 * r->mfu, 100.0 * r->hfu, r->achieved_tflops, r->mfu_peak_tflops, r->mfu_dtype);
            if (r->mfu > 1.0)
                fprintf(w->fp, "         MFU above 100%% is impossible: check --tokens-per-step, the model size and "
                               "the GPU\n");
        } else if (!isnan(r->achieved_tflops)) {
            fprintf(w->fp, "         %.1f TFLOP/s of model FLOPs per GPU (MFU: GPU not identified, give --gpu or "
                           "--peak-tflops)\n", r->achieved_tflops);
        }
        pct(e, sizeof e, r->idle_share);
        fprintf(w->fp, "         %s kernels %s of GPU time   idle %s between the first and last GPU op",
                r->is_amd ? "Matrix Core (MFMA)" : "Tensor Core", d, e);
        if (!isnan(r->comm_overlap)) {
            pct(a, sizeof a, r->comm_overlap);
            fprintf(w->fp, "   comm overlap %s", a);
        }
        fputc('\n', w->fp);
        ms(a, sizeof a, r->median_kernel_us);
        ms(b, sizeof b, r->launch_delay_median_us);
        pct(c, sizeof c, r->short_kernel_share);
        fprintf(w->fp, "         %llu kernel%s, median %s; launch delay median %s (how far the CPU runs ahead); "
                       "short kernels %s\n",
                (unsigned long long)r->kernel_count, r->kernel_count == 1 ? "" : "s", a, b, c);
    }
    memory_lines(w, r);
    fputc('\n', w->fp);
}

static void breakdown(const tw *w, const gpudiag_report *r)
{
    if (!r->step_count || !(r->avg_step_us > 0))
        return;
    char a[32];
    ms(a, sizeof a, r->avg_step_us);
    fprintf(w->fp, "%sSTEP BREAKDOWN%s  average step %s (each instant counted once, kernel first)\n", c_bold(w),
            c_off(w), a);
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++) {
        double v = r->avg_role_us[i];
        double s = v / r->avg_step_us;
        ms(a, sizeof a, v);
        fprintf(w->fp, "  %-14s %10s %6.1f%%", gpudiag_role_name((gpudiag_role)i), a, 100.0 * s);
        if (lround(s * 40) > 0) {
            fputs("  ", w->fp);
            bar(w, s, 40);
        }
        fputc('\n', w->fp);
    }
    fputc('\n', w->fp);
}

static void idle_gaps(const tw *w, const gpudiag_report *r, int verbose)
{
    if (!r->has_gpu || !r->step_count || !(r->idle_step_us > 0) || r->idle_gap_count == 0)
        return;
    char a[32], b[32];
    ms(a, sizeof a, r->idle_gap_us);
    /* shares per device (DEFINITIONS "Idle gaps and their causes") */
    double nd = r->timeline.device_count ? (double)r->timeline.device_count : 1.0;
    double share = r->idle_gap_us / (double)r->step_count / nd / r->idle_step_us;
    fprintf(w->fp, "%sIDLE GAPS%s  the GPU had nothing to run for %s in %llu gap%s (%.1f%% of step time); by cause:\n  ",
            c_bold(w), c_off(w), a, (unsigned long long)r->idle_gap_count, r->idle_gap_count == 1 ? "" : "s",
            100.0 * share);
    int order[GPUDIAG_IDLE_CAUSE_COUNT];
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++)
        order[i] = i;
    for (int i = 1; i < GPUDIAG_IDLE_CAUSE_COUNT; i++)
        for (int j = i; j > 0 && r->idle_cause_us[order[j]] > r->idle_cause_us[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++) {
        double v = r->idle_cause_us[order[i]];
        if (v <= 0)
            continue;
        fprintf(w->fp, "%s%s %.1f%%", i ? "   " : "", gpudiag_idle_cause_name((gpudiag_idle_cause)order[i]),
                100.0 * v / (double)r->step_count / nd / r->idle_step_us);
    }
    fputc('\n', w->fp);
    /* recurring compilation is steady state (DEFINITIONS "Idle gaps and their causes", rule 0) */
    double excl = r->idle_cause_us[GPUDIAG_IDLE_STARTUP] + r->idle_cause_us[GPUDIAG_IDLE_COMPILATION] - r->recompile_idle_us;
    if (excl > 0 && gd_startup_left_out(r)) { /* DEFINITIONS steady-state step */
        ms(b, sizeof b, excl);
        ms(a, sizeof a, r->steady_step_us);
        fprintf(w->fp,
                "  %s of start-up/compilation (not steady state) excluded from the estimates and the verdict:\n"
                "  the findings' shares are of the %s per step left\n",
                b, a);
    } else if (excl > 0)
        fprintf(w->fp, "  %s of start-up/compilation (not steady state) excluded from the estimates and the verdict\n",
                (ms(b, sizeof b, excl), b));
    if (r->sync_calls)
        fprintf(w->fp, "  %llu host sync call%s in the steps, %s blocked in them\n", (unsigned long long)r->sync_calls,
                r->sync_calls == 1 ? "" : "s", (ms(b, sizeof b, r->sync_time_us), b));
    size_t n = r->top_gap_count < (verbose ? 10u : 3u) ? r->top_gap_count : (verbose ? 10u : 3u);
    for (size_t i = 0; i < n; i++) {
        const gpudiag_gap *g = &r->top_gaps[i];
        ms(a, sizeof a, g->duration_us);
        fprintf(w->fp, "  %10s at ts %.3f (GPU %d", a, g->start_us, g->device);
        if (g->step >= 0)
            fprintf(w->fp, ", step %lld", (long long)g->step);
        fprintf(w->fp, "): %s%s", gpudiag_idle_cause_name(g->cause), g->cpu_op ? ", host in " : "");
        if (g->cpu_op && put_clean(w->fp, g->cpu_op, 60))
            fputs("...", w->fp);
        fputc('\n', w->fp);
    }
    if (verbose) {
        for (size_t i = 0; i < r->stream_idle_count; i++) {
            const gpudiag_stream_idle *sid = &r->stream_idle[i];
            char h[32], k[32], o[32];
            ms(h, sizeof h, sid->host_wait_us);
            ms(k, sizeof k, sid->kernel_wait_us);
            ms(o, sizeof o, sid->other_us);
            fprintf(w->fp, "  GPU %d stream %d: %llu op%s; idle host_wait %s, kernel_wait %s, other %s (HTA)\n",
                    sid->device, sid->stream, (unsigned long long)sid->ops, gd_plural(sid->ops), h, k, o);
        }
    }
    fputc('\n', w->fp);
}

static void findings(const tw *w, const gpudiag_report *r, int verbose)
{
    if (!r->finding_count) {
        fprintf(w->fp, "%sFINDINGS%s  none\n\n", c_bold(w), c_off(w));
        return;
    }
    /* FINDINGS "Ranking": the note on the input the verdict rests on leads */
    int note_first = r->verdict_finding && strcmp(r->findings[0].id, r->verdict_finding) == 0 &&
                     strcmp(gd_finding_kind_word(&r->findings[0]), "input") == 0;
    fprintf(w->fp, "%sFINDINGS%s  %sranked by expected gain (share of %s time a fix could save%s)\n", c_bold(w),
            c_off(w), note_first ? "the verdict's input finding first, then " : "",
            gd_gain_unit(r),
            r->series ? "; " GD_SERIES_GAIN_LABEL : "");
    for (size_t i = 0; i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        char gain[80] = "";
        if (!isnan(f->est_gain))
            snprintf(gain, sizeof gain, "  est. gain %.0f%%%s", 100.0 * f->est_gain,
                     r->series ? " (" GD_SERIES_GAIN_LABEL ")" : "");
        fprintf(w->fp, "%2zu. %s[%s]%s %s%s%s%s\n", i + 1, sev_color(w, f->severity),
                gpudiag_severity_name(f->severity), c_off(w), c_bold(w), f->id, c_off(w), gain);
        wrap(w, "    ", f->title);
        wrap(w, "    > ", f->recommendation);
        if (verbose && f->evidence_count) {
            fprintf(w->fp, "    %sevidence:", c_dim(w));
            for (size_t k = 0; k < f->evidence_count; k++) {
                if (isnan(f->evidence[k].value))
                    fprintf(w->fp, " %s=null", f->evidence[k].key);
                else
                    fprintf(w->fp, " %s=%.6g", f->evidence[k].key, f->evidence[k].value);
            }
            fprintf(w->fp, "%s\n", c_off(w));
        }
    }
    fputc('\n', w->fp);
}

static void kernels(const tw *w, const gpudiag_report *r, int verbose)
{
    if (!r->kernel_stat_count)
        return;
    size_t n = verbose ? 30 : 10;
    if (n > r->kernel_stat_count)
        n = r->kernel_stat_count;
    fprintf(w->fp, "%sTOP KERNELS%s  by total GPU time (%zu distinct)\n", c_bold(w), c_off(w), r->kernel_stat_count);
    /* the class column as wide as its longest name shown, at least 11 ("communication" is 13: its rows
     * pushed the TC and name columns out of line) */
    int classw = 11;
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(gpudiag_kernel_class_name(r->kernel_stats[i].cls));
        classw = l > classw ? l : classw;
    }
    fprintf(w->fp, "  %10s %6s %7s %10s  %-*s %2s  %s\n", "total ms", "share", "calls", "mean us", classw, "class",
            "TC", "name");
    int namew = verbose ? 400 : w->width - 47 - classw; /* --verbose shows names whole (up to 400 bytes) */
    if (namew < 20)
        namew = 20;
    for (size_t i = 0; i < n; i++) {
        const gpudiag_kernel_stat *k = &r->kernel_stats[i];
        fprintf(w->fp, "  %10.2f %5.1f%% %7llu %10.1f  %-*s %2s  ", k->total_us / 1000.0, 100.0 * k->share,
                (unsigned long long)k->calls, k->mean_us, classw, gpudiag_kernel_class_name(k->cls),
                k->tensor_core ? "y" : "-");
        if (put_clean(w->fp, k->name, (size_t)namew))
            fputs("...", w->fp);
        fputc('\n', w->fp);
    }
    fputc('\n', w->fp);
}

/* Scaled count: 1.37e11 -> "137.4G". */
static void si(char *b, size_t n, double v)
{
    static const char *const suf[] = {"", "k", "M", "G", "T", "P", "E"};
    if (isnan(v)) {
        snprintf(b, n, "n/a");
        return;
    }
    int i = 0;
    while (fabs(v) >= 1000 && i < 6) {
        v /= 1000;
        i++;
    }
    snprintf(b, n, "%.1f%s", v, suf[i]);
}

/* A small log-log roofline: the roof of the first kernel's dtype, kernels as
 * their table numbers (docs/DEFINITIONS.md "Roofline of the kernels"). */
static void roofline_plot(const tw *w, const gpudiag_roofline *rl)
{
    enum { COLS = 56, ROWS = 10 };
    const gpudiag_roofline_kernel *k0 = &rl->kernels[0];
    double peak = k0->peak_tflops, bw = rl->mem_bw_gbs;
    if (!(peak > 0) || !(bw > 0))
        return;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = peak;
    size_t pts = 0;
    for (size_t i = 0; i < rl->kernel_count; i++) {
        const gpudiag_roofline_kernel *k = &rl->kernels[i];
        if (!(k->intensity > 0) || !(k->achieved_tflops > 0))
            continue;
        pts++;
        xlo = fmin(xlo, k->intensity);
        xhi = fmax(xhi, k->intensity);
        ylo = fmin(ylo, k->achieved_tflops);
        yhi = fmax(yhi, k->achieved_tflops);
    }
    if (!pts)
        return;
    double ridge = peak * 1e3 / bw;
    xlo = pow(10, floor(log10(fmin(xlo, ridge)) - 0.3));
    xhi = pow(10, ceil(log10(fmax(xhi, ridge)) + 0.3));
    ylo = pow(10, floor(log10(ylo)));
    yhi = pow(10, ceil(log10(yhi * 1.01)));
    char grid[ROWS][COLS + 1];
    memset(grid, ' ', sizeof grid);
    double lx0 = log10(xlo), lx1 = log10(xhi), ly0 = log10(ylo), ly1 = log10(yhi);
    for (int c = 0; c < COLS; c++) {
        double I = pow(10, lx0 + (c + 0.5) * (lx1 - lx0) / COLS);
        double roof = fmin(peak, I * bw / 1e3);
        int row = (int)floor((log10(roof) - ly0) / (ly1 - ly0) * ROWS);
        if (row >= 0 && row < ROWS)
            grid[ROWS - 1 - row][c] = I < ridge ? '/' : '-';
    }
    for (size_t i = rl->kernel_count; i-- > 0;) { /* the longest drawn last, on top */
        const gpudiag_roofline_kernel *k = &rl->kernels[i];
        if (!(k->intensity > 0) || !(k->achieved_tflops > 0))
            continue;
        int c = (int)floor((log10(k->intensity) - lx0) / (lx1 - lx0) * COLS);
        int row = (int)floor((log10(k->achieved_tflops) - ly0) / (ly1 - ly0) * ROWS);
        if (c < 0)
            c = 0;
        if (c >= COLS)
            c = COLS - 1;
        if (row < 0)
            row = 0;
        if (row >= ROWS)
            row = ROWS - 1;
        grid[ROWS - 1 - row][c] = (char)(i < 9 ? '1' + (int)i : '0');
    }
    fprintf(w->fp, "  TFLOP/s (log)  roof: %s%s peak %.1f TFLOP/s, %.0f GB/s, ridge %.1f FLOP/B\n",
            k0->dtype ? k0->dtype : "?", k0->matrix_peak ? " matrix (MFMA)" : "", peak, bw, ridge);
    for (int rr = 0; rr < ROWS; rr++) {
        char lab[16] = "";
        if (rr == 0)
            snprintf(lab, sizeof lab, "%g", yhi);
        else if (rr == ROWS - 1)
            snprintf(lab, sizeof lab, "%g", ylo);
        grid[rr][COLS] = '\0';
        fprintf(w->fp, "  %8s |%s\n", lab, grid[rr]);
    }
    fprintf(w->fp, "  %8s +", "");
    for (int c = 0; c < COLS; c++)
        fputc('-', w->fp);
    char l0[16], l1[16];
    snprintf(l0, sizeof l0, "%g", xlo);
    snprintf(l1, sizeof l1, "%g", xhi);
    fprintf(w->fp, "\n  %8s  %-*s%s  FLOP/byte (log)\n", "", COLS - (int)strlen(l1), l0, l1);
}

/* The roofline of the top kernels: a table, then the plot. */
static void roofline(const tw *w, const gpudiag_report *r)
{
    const gpudiag_roofline *rl = r->roofline;
    if (!rl || !rl->kernel_count)
        return;
    char t[32], f[32];
    pct(t, sizeof t, rl->kernel_time_share);
    fprintf(w->fp, "%sROOFLINE%s  %zu kernel names with known FLOPs, %s of kernel time", c_bold(w), c_off(w),
            rl->kernel_names, t);
    if (rl->gpu) {
        fputs("; roofs of ", w->fp);
        put_clean(w->fp, rl->gpu, 96);
    }
    if (rl->ncu_path)
        fprintf(w->fp, "; %llu of %llu Nsight Compute rows matched", (unsigned long long)rl->ncu_matched,
                (unsigned long long)rl->ncu_rows);
    fputc('\n', w->fp);
    fprintf(w->fp, "  %2s %9s %6s %8s %8s %6s %7s %7s %-7s %-5s %s\n", "#", "time ms", "calls", "FLOPs", "TFLOP/s",
            "%peak", "FLOP/B", "ridge", "bound", "dtype", "name");
    int namew = w->width - 86;
    if (namew < 20)
        namew = 20;
    for (size_t i = 0; i < rl->kernel_count; i++) {
        const gpudiag_roofline_kernel *k = &rl->kernels[i];
        char tf[16], pk[16], ai[16], rg[16];
        si(f, sizeof f, k->flops);
        num_or_na(tf, sizeof tf, k->achieved_tflops, 2);
        pct(pk, sizeof pk, k->peak_share);
        num_or_na(ai, sizeof ai, k->intensity, 1);
        num_or_na(rg, sizeof rg, k->ridge, 1);
        fprintf(w->fp, "  %2zu %9.3f %6llu %8s %8s %6s %7s %7s %-7s %-5s ", i + 1, k->time_us / 1000.0,
                (unsigned long long)k->calls, f, tf, pk, ai, rg, k->bound ? k->bound : "n/a", k->dtype ? k->dtype : "n/a");
        if (put_clean(w->fp, k->name, (size_t)namew))
            fputs("...", w->fp);
        fputc('\n', w->fp);
    }
    for (size_t i = 0; i < rl->kernel_count; i++)
        if (rl->kernels[i].matrix_peak) { /* say which roof, once */
            fprintf(w->fp, "  fp32 kernels on Matrix Cores (MFMA) are held to the FP32 matrix peak, %.2f TFLOP/s\n",
                    rl->kernels[i].peak_tflops);
            break;
        }
    roofline_plot(w, rl);
    fputc('\n', w->fp);
}

/* The memory timeline, one line per GPU with `[memory]` events, and the
 * allocator's calls when there are any (DEFINITIONS "Memory timeline"). */
static void memory_lines(const tw *w, const gpudiag_report *r)
{
    const gpudiag_memory *m = r->memory;
    if (!m)
        return;
    char a[32], b[32], c[32], d[32], e[32];
    enum { SHOWN = 4 }; /* GPUs with a line; the rest are counted */
    for (size_t i = 0; i < m->device_count && i < SHOWN; i++) {
        const gpudiag_memory_device *md = &m->devices[i];
        gd_format_bytes(a, sizeof a, md->peak_allocated_bytes);
        fprintf(w->fp, "%s%s%s   GPU %d: peak allocated %s%s", c_bold(w), i ? "      " : "MEMORY", c_off(w), md->id,
                md->has_totals ? "" : ">= ", a);
        if (!isnan(md->peak_reserved_bytes)) {
            gd_format_bytes(b, sizeof b, md->peak_reserved_bytes);
            fprintf(w->fp, ", reserved %s", b);
        }
        if (!isnan(md->total_bytes)) {
            gd_format_bytes(c, sizeof c, md->total_bytes);
            fprintf(w->fp, " of %s", c);
        }
        if (!isnan(md->headroom_share))
            fprintf(w->fp, " (headroom %.1f%%)", 100.0 * md->headroom_share);
        fputc('\n', w->fp);
        if (!isnan(md->transient_bytes)) {
            gd_format_bytes(d, sizeof d, md->transient_bytes);
            fprintf(w->fp, "         activations: a step rises %s above its low", d);
            if (!isnan(md->activation_fits)) {
                gd_format_bytes(e, sizeof e, md->persistent_bytes);
                fprintf(w->fp, ", beside %s held across steps: would fit %.1fx", e, md->activation_fits);
            }
            fputc('\n', w->fp);
        }
        if (!md->has_totals)
            fprintf(w->fp, "         %sonly allocation deltas (PyTorch < 1.10): counted from 0 at the first event, "
                           "a lower bound%s\n",
                    c_dim(w), c_off(w));
    }
    if (m->device_count > SHOWN)
        fprintf(w->fp, "         ... and %zu more GPUs (--json)\n", m->device_count - SHOWN);
    const gpudiag_alloc_calls *ac = &m->alloc;
    if (ac->malloc_calls + ac->free_calls) {
        ms(e, sizeof e, ac->time_us);
        fprintf(w->fp, "%s%s%s   %llu cudaMalloc and %llu cudaFree calls in the %llu steps after the first (%s)\n",
                c_bold(w), m->device_count ? "      " : "MEMORY", c_off(w), (unsigned long long)ac->malloc_calls,
                (unsigned long long)ac->free_calls, (unsigned long long)ac->steps, e);
    }
}

/* Kernel classes, GEMM fill, communication, transfers and launches: each line
 * filled, or "not available" with the reason (issue #3's done-when). */
/* LoRA adapters (DEFINITIONS "LoRA adapters"): only where seen. */
static void lora_line(const tw *w, const gpudiag_report *r)
{
    const gpudiag_lora_seen *lo = &r->lora;
    if (!lo->ops)
        return;
    fprintf(w->fp, "%sLORA%s  rank %d adapters: %llu GEMMs", c_bold(w), c_off(w), lo->rank,
            (unsigned long long)lo->ops);
    if (r->step_count)
    {
        char ps[32];
        fprintf(w->fp, " (%s per step)", gd_format_per_step(ps, sizeof ps, (double)lo->ops / (double)r->step_count));
    }
    fprintf(w->fp, ", %.1f us each, %.1f%% of GEMM time, %.2f TFLOP/s\n", lo->kernel_us / (double)lo->ops,
            100.0 * lo->share_of_gemm_time, lo->kernel_us > 0 ? lo->flops / lo->kernel_us / 1e6 : NAN);
}


/* The COMMUNICATION section's "by kind" line: each kind of collective with a
 * non-zero share of the communication kernel time, largest first (ties: kind
 * order), as summary.comm_kernel_us_by_kind (DEFINITIONS "Communication",
 * dominant kind); nothing when the kinds are unknown. */
static void comm_by_kind(const tw *w, const gpudiag_report *r)
{
    int order[GPUDIAG_COMM_KIND_COUNT] = {0}, n = 0;
    for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++) {
        if (!(r->comm_kind_share[k] > 0))
            continue;
        int j = n++;
        for (; j > 0 && r->comm_kind_share[order[j - 1]] < r->comm_kind_share[k]; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    if (n == 0)
        return;
    fputs("  by kind:", w->fp);
    for (int i = 0; i < n; i++)
    {
        double p = 100.0 * r->comm_kind_share[order[i]];
        fprintf(w->fp, p < 0.5 ? "%s %s <1%%" : "%s %s %.0f%%", i ? "," : "",
                gpudiag_comm_kind_name((gpudiag_comm_kind)order[i]), p);
    }
    fputs(" of the collective kernel time\n", w->fp);
}
/* What memory savings cost (DEFINITIONS "Memory savings and what they cost"):
 * printed only where the trace shows the technique. */
static void memory_savings(const tw *w, const gpudiag_report *r)
{
    const gpudiag_recompute_seen *rc = &r->recompute;
    lora_line(w, r);
    if (!rc->detected)
        return;
    fprintf(w->fp, "%sRECOMPUTE%s  activation checkpointing: ", c_bold(w), c_off(w));
    if (!r->step_count || isnan(rc->share_of_kernel_time)) {
        fputs("called, but no recompute measured (no backward, or no kernels, in the steps)\n", w->fp);
        return;
    }
    char a[32];
    ms(a, sizeof a, rc->recompute_us / (double)r->step_count);
    fprintf(w->fp, "%s of kernels per step re-run the forward, %.1f%% of kernel time, %.1f%% of the step\n", a,
            100.0 * rc->share_of_kernel_time, 100.0 * rc->share_of_step);
    if (!isnan(rc->hfu))
        fprintf(w->fp, "  HFU %.1f%% counting the recompute (MFU %.1f%%)\n", 100.0 * rc->hfu, 100.0 * r->mfu);
}


static void details(const tw *w, const gpudiag_report *r)
{
    if (!r->has_gpu)
        return;
    char a[32], b[32], c[32];
    double steps = (double)r->step_count;
    fprintf(w->fp, "%sKERNEL CLASSES%s ", c_bold(w), c_off(w));
    int any = 0;
    const gpudiag_kernel_class *order = r->class_order;
    for (int i = 0; i < GPUDIAG_KCLASS_COUNT && r->kernel_time_us > 0; i++) {
        double v = r->class_time_us[order[i]];
        if (v <= 0)
            continue;
        fprintf(w->fp, " %s %.1f%%", gpudiag_kernel_class_name(order[i]),
                100.0 * r->class_share[order[i]]);
        any = 1;
    }
    if (!any)
        fputs(" not available (no kernels)", w->fp);
    fputc('\n', w->fp);
    pct(a, sizeof a, r->matmul_tensor_core_share);
    if (isnan(r->matmul_tensor_core_share))
        fprintf(w->fp, "  GEMM/conv/attention time on %s: not available (no GEMM, convolution or attention kernels)\n",
                r->is_amd ? "Matrix Cores (MFMA)" : "Tensor Cores");
    else
        fprintf(w->fp, "  GEMM/conv/attention time on %s: %s\n", r->is_amd ? "Matrix Cores (MFMA)" : "Tensor Cores", a);
    if (r->gemm_calls == 0)
        fprintf(w->fp, "  GEMM fill: not available (no GEMM kernels in the steps)\n");
    else if (!(r->gemm_blocks_known_us > 0))
        fprintf(w->fp, "  GEMM fill: not available (the trace has no %s\"blocks per SM\" for its GEMMs)\n",
                r->is_amd ? "workgroups per CU, " : "");
    else {
        pct(a, sizeof a, r->gemm_underfilled_share);
        ms(b, sizeof b, steps > 0 ? r->gemm_sm_idle_us / steps : NAN);
        fprintf(w->fp, "  GEMM fill: %s of GEMM time in kernels with fewer %s than %ss (%s of %s time idle per step)\n", a,
                r->is_amd ? "workgroups" : "thread blocks", r->is_amd ? "CU" : "SM", b, r->is_amd ? "CU" : "SM");
        if (r->gemm_comm_filled_us > 0) {
            pct(a, sizeof a, r->gemm_comm_filled_us / r->gemm_blocks_known_us);
            fprintf(w->fp, "             %s more leaves the other %ss to concurrent communication kernels (not idle)\n", a,
                    r->is_amd ? "CU" : "SM");
        }
    }

    fprintf(w->fp, "%sCOMMUNICATION%s  ", c_bold(w), c_off(w));
    if (r->comm_kernel_count == 0 || !(steps > 0))
        fputs("not available (no communication kernels in the steps: single GPU, or a CPU backend)\n", w->fp);
    else {
        ms(a, sizeof a, r->comm_kernel_time_us / steps);
        pct(b, sizeof b, r->comm_share);
        pct(c, sizeof c, r->comm_overlap);
        fprintf(w->fp, "%s of collective kernels per step (%zu kernel%s in %zu step%s)\n", a, r->comm_kernel_count,
                r->comm_kernel_count == 1 ? "" : "s", r->step_count, r->step_count == 1 ? "" : "s");
        /* two exposed numbers, each named (DEFINITIONS "Communication", exposed communication) */
        ms(a, sizeof a, r->avg_role_us[GPUDIAG_ROLE_COMMUNICATION]);
        fprintf(w->fp, "  exposed (no other GPU op running) %s of the step, %s per step with host communication calls\n", b,
                a);
        ms(a, sizeof a, r->comm_kernel_exposed_us_per_step);
        fprintf(w->fp, "  (the breakdown's communication row), %s in the collective kernels alone\n", a);
        fprintf(w->fp, "  overlapped with compute %s (HTA)\n", c);
        comm_by_kind(w, r);
    }

    fprintf(w->fp, "%sTRANSFERS%s  ", c_bold(w), c_off(w));
    int copies = 0;
    for (int k = 0; k < GPUDIAG_COPY_KIND_COUNT && steps > 0; k++) {
        const gpudiag_transfer *t = &r->transfers[k];
        double gbs = r->transfer_rates[k].gb_per_s;
        if (!t->count)
            continue;
        if (t->bytes > 0) {
            gd_format_bytes(a, sizeof a, t->bytes / steps);
            if (t->time_us > 0)
                snprintf(b, sizeof b, " at %.1f GB/s", gbs);
            else
                b[0] = '\0';
        } else {
            snprintf(a, sizeof a, "%.1f copies", (double)t->count / steps);
            snprintf(b, sizeof b, " (size not recorded)");
        }
        fprintf(w->fp, "%s%s %s%s", copies ? "; " : "per step: ", gpudiag_copy_kind_name((gpudiag_copy_kind)k), a, b);
        copies = 1;
    }
    if (!copies)
        fputs("not available (no memcpys in the steps)", w->fp);
    else if (r->pageable.count) {
        gd_format_bytes(a, sizeof a, r->pageable.bytes / steps);
        fprintf(w->fp, "; pageable %s", a);
    }
    fputc('\n', w->fp);
    if (steps > 0) {
        ms(a, sizeof a, r->sync_time_us / steps);
        pct(b, sizeof b, r->idle_step_us > 0 ? r->idle_cause_us[GPUDIAG_IDLE_SYNC] / steps / (r->timeline.device_count ? (double)r->timeline.device_count : 1.0) / r->idle_step_us : NAN);
        char ps[32];
        fprintf(w->fp, "  host sync calls: %s per step, %s blocked per step; GPU idle after them %s of the step\n",
                gd_format_per_step(ps, sizeof ps, (double)r->sync_calls / steps), a, b);
    }

    fprintf(w->fp, "%sLAUNCHES%s   ", c_bold(w), c_off(w));
    if (!r->linked_kernels)
        fputs("not available (no kernel is linked to its launch call by correlation id)\n", w->fp);
    else
    {
        double kps = steps > 0 ? (double)r->kernel_count / steps : NAN;
        char kb[32];
        fprintf(w->fp, "%s kernel%s per step, %llu linked to %s launch call\n  HTA outliers: %llu launch "
                       "call%s > 50 us, %llu launch delay%s > 100 us",
                gd_format_per_step(kb, sizeof kb, kps), kps == 1 ? "" : "s", (unsigned long long)r->linked_kernels,
                r->linked_kernels == 1 ? "its" : "their", (unsigned long long)r->runtime_outliers,
                gd_plural(r->runtime_outliers), (unsigned long long)r->launch_delay_outliers,
                gd_plural(r->launch_delay_outliers));
        /* DEFINITIONS "Kernels", HTA outliers: a long delay behind running work is the CPU running ahead */
        if (r->launch_delay_outliers)
            fprintf(w->fp, ", %llu of them on an idle GPU", (unsigned long long)r->launch_delay_outliers_gpu_idle);
        fputc('\n', w->fp);
        if (r->launch_delay_outliers_gpu_idle < r->launch_delay_outliers)
            fputs("  (a long delay behind running GPU work is the CPU running ahead: healthy)\n", w->fp);
        /* DEFINITIONS "Kernels", kernels before their launch: the clocks disagree */
        if (r->kernels_before_launch) {
            char off[32];
            ms(off, sizeof off, r->launch_skew_median_us);
            int one = r->kernels_before_launch == 1;
            fprintf(w->fp, "  %llu kernel%s start%s > 50 us before %s own launch call (median %s early): GPU and "
                           "host clocks disagree, launch delays are a lower bound\n",
                    (unsigned long long)r->kernels_before_launch, one ? "" : "s", one ? "s" : "", one ? "its" : "their",
                    off);
        } else if (has_finding(r, "input_gpu_clock_skew")) {
            /* a systematic offset under 50 us (DEFINITIONS "Kernels", kernels before their launch): the rule
             * decided it (with no kernel > 50 us early, its finding fires only for that) */
            char off[32];
            ms(off, sizeof off, r->launch_skew_start_max_us);
            fprintf(w->fp, "  %llu of %llu kernels start before their own launch call (up to %s early): GPU and host "
                           "clocks disagree, launch delays are a lower bound\n",
                    (unsigned long long)r->kernels_before_launch_start, (unsigned long long)r->linked_kernels, off);
        }
    }
    if (r->gpu_ops_unlinked)
        fprintf(w->fp, "  %llu GPU op%s without a launch call (no runtime/driver call of %s correlation id): counted "
                       "in the busy and idle numbers; HTA's correlation join leaves %s out\n",
                (unsigned long long)r->gpu_ops_unlinked, gd_plural(r->gpu_ops_unlinked),
                r->gpu_ops_unlinked == 1 ? "its" : "their", r->gpu_ops_unlinked == 1 ? "it" : "them");
    memory_savings(w, r);
    fputc('\n', w->fp);
}

/* NVIDIA's expert-system rules, each with its verdict (Nsight exports only). */
static void nsight_rules(const tw *w, const gpudiag_report *r)
{
    const gpudiag_nsight_rules *R = &r->nsight;
    if (!R->available)
        return;
    char a[32], b[32];
    fprintf(w->fp, "%sNSIGHT RULES%s  NVIDIA's expert system (nsys analyze, default options, whole capture)\n",
            c_bold(w), c_off(w));
    if (R->util_chunks_total == 0) { /* no kernel, memcpy or memset: nothing to judge (DEFINITIONS "No GPU ops") */
        fprintf(w->fp, "  gpu_gaps           n/a  : no GPU activity in the capture: nothing to judge\n");
        fprintf(w->fp, "  gpu_time_util      n/a  : no GPU activity in the capture: nothing to judge\n");
    } else {
        ms(a, sizeof a, R->gap_time_us);
        fprintf(w->fp, "  gpu_gaps           %s: %llu gap%s > %.0f ms, %s in all\n", R->gaps ? "FIRES" : "ok   ",
                (unsigned long long)R->gaps, gd_plural(R->gaps), R->gap_threshold_us / 1000.0, a);
        pct(b, sizeof b, R->util_min);
        fprintf(w->fp, "  gpu_time_util      %s: %llu of %llu chunks below %.0f%% time utilization (lowest %s)\n",
                R->util_low_chunks ? "FIRES" : "ok   ", (unsigned long long)R->util_low_chunks,
                (unsigned long long)R->util_chunks_total, 100.0 * R->util_threshold, b);
    }
    ms(a, sizeof a, R->memcpy_sync_us);
    char mb[32];
    fprintf(w->fp, "  cuda_memcpy_sync   %s: %llu synchronous copies, %s MB, %s on the GPU\n",
            R->memcpy_sync ? "FIRES" : "ok   ", (unsigned long long)R->memcpy_sync,
            gd_format_sig3(mb, sizeof mb, R->memcpy_sync_bytes / 1e6), a);
    ms(a, sizeof a, R->memset_sync_us);
    fprintf(w->fp, "  cuda_memset_sync   %s: %llu synchronous memsets on pinned/managed memory, %s\n",
            R->memset_sync ? "FIRES" : "ok   ", (unsigned long long)R->memset_sync, a);
    ms(a, sizeof a, R->memcpy_async_pageable_us);
    fprintf(w->fp, "  cuda_memcpy_async  %s: %llu async copies with pageable memory, %s MB, %s\n",
            R->memcpy_async_pageable ? "FIRES" : "ok   ", (unsigned long long)R->memcpy_async_pageable,
            gd_format_sig3(mb, sizeof mb, R->memcpy_async_pageable_bytes / 1e6), a);
    ms(a, sizeof a, R->api_sync_us);
    fprintf(w->fp, "  cuda_api_sync      %s: %llu device/stream synchronize calls, %s of host time\n",
            R->api_sync ? "FIRES" : "ok   ", (unsigned long long)R->api_sync, a);
    if (r->input.nsys.steps_source && r->input.nsys.steps_source[0]) {
        fprintf(w->fp, "  %ssteps: ", c_dim(w));
        put_clean(w->fp, r->input.nsys.steps_source, 200);
        fprintf(w->fp, "%s\n", c_off(w));
    }
    fputc('\n', w->fp);
}

static void steps_table(const tw *w, const gpudiag_report *r)
{
    if (!r->step_count)
        return;
    fprintf(w->fp, "%sSTEPS%s  (ms)\n  %-8s %10s", c_bold(w), c_off(w), "step", "duration");
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        fprintf(w->fp, " %9.9s", gpudiag_role_name((gpudiag_role)i));
    fputc('\n', w->fp);
    for (size_t s = 0; s < r->step_count; s++) {
        const gpudiag_step *st = &r->steps[s];
        if (st->number >= 0)
            fprintf(w->fp, "  #%-7lld %10.2f", (long long)st->number, st->duration_us / 1000.0);
        else
            fprintf(w->fp, "  %-8s %10.2f", "all", st->duration_us / 1000.0);
        for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
            fprintf(w->fp, " %9.2f", st->role_us[i] / 1000.0);
        fputc('\n', w->fp);
    }
    fputc('\n', w->fp);
}

/* ---- monitoring-log reports (the `series` section) ----------------------- */

/* One character per bucket: 0..1 in 9 levels; blank = no sample. */
static void spark(const tw *w, const double *v, int n)
{
    while (n > 0 && isnan(v[n - 1]))
        n--;
    static const char *ascii = "_.,:-=+*#";
    static const char *blocks[] = {"\xe2\x96\x81", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
                                   "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"};
    for (int i = 0; i < n; i++) {
        if (isnan(v[i])) {
            fputc(' ', w->fp);
            continue;
        }
        double x = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i];
        int k = (int)lround(x * 8);
        if (w->color)
            fputs(blocks[k], w->fp);
        else
            fputc(ascii[k], w->fp);
    }
}

static void series_report(const tw *w, const gpudiag_report *r, int verbose)
{
    const gpudiag_series_summary *s = r->series;
    fprintf(w->fp, "%sgpudiag %s%s  ", c_bold(w), GPUDIAG_VERSION, c_off(w));
    put_clean(w->fp, r->input.path ? r->input.path : "-", 4096);
    char counts[96];
    gd_series_samples_phrase(s, counts, sizeof counts);
    char assumed[96];
    gd_series_assumed_phrase(s, assumed, sizeof assumed);
    fprintf(w->fp, "  (%s monitoring log, %s%s%s%s)\n", s->format, counts, s->snapshot ? ", a snapshot" : "",
            *assumed ? ", " : "", assumed);
    if (s->first_skipped_line > 0)
        fprintf(w->fp, "%swarning:%s %llu row%s left out, first at line %lld\n", c_yellow(w), c_off(w),
                (unsigned long long)s->skipped_rows, gd_plural(s->skipped_rows), (long long)s->first_skipped_line);
    if (s->invalid_values)
        fprintf(w->fp, "%swarning:%s %llu out-of-range value%s read as missing, first at line %lld\n", c_yellow(w),
                c_off(w), (unsigned long long)s->invalid_values, gd_plural(s->invalid_values), (long long)s->first_invalid_line);
    if (s->empty_rows)
        fprintf(w->fp, "note: %llu row%s hold%s no value (every field missing), first at line %lld: no sample%s\n",
                (unsigned long long)s->empty_rows, gd_plural(s->empty_rows), s->empty_rows == 1 ? "s" : "",
                (long long)s->first_empty_line, s->empty_rows == 1 ? "" : "s");
    if (s->header_changes)
        fprintf(w->fp, "note: the column header changed mid-file at line %lld; later rows use the new columns\n",
                (long long)s->first_header_change_line);
    fputc('\n', w->fp);
    verdict(w, r);
    fprintf(w->fp, "%sGPUS%s  compute indicator over time (%s); memory full/low x compute high/low x bandwidth\n",
            c_bold(w), c_off(w), w->color ? "bar height = 0..100 %" : "_ 0 % ... # 100 %");
    size_t shown = verbose || s->gpu_count <= 16 ? s->gpu_count : 16;
    /* the legend of the "(!)" marks, where a row below carries one (a new user: unexplained) */
    for (size_t i = 0; i < shown; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        if (g->compute_metric < GPUDIAG_M_COUNT &&
            (g->health_median_ok == 0 || g->health_p10_ok == 0 || g->health_low_ok == 0)) {
            fprintf(w->fp, "      (!) misses a health target for training: median >= 70 %%, p10 >= 40 %%, "
                           "under 30 %% in < 10 %% of samples\n");
            break;
        }
    }
    /* the label column: as wide as the longest label shown, at least 9 ("GPU 0"
     * rows of whole GPUs keep their place), so that "GPU 0" and "GPU 1 GI 13"
     * rows put their names in one column */
    int label_w = 9;
    for (size_t i = 0; i < shown; i++) {
        char label[64];
        int n = gd_series_entity_label(&s->gpus[i], label, sizeof label);
        if (n > label_w && n < (int)sizeof label)
            label_w = n;
    }
    for (size_t i = 0; i < shown; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        char label[64];
        gd_series_entity_label(g, label, sizeof label); /* "GPU 1 GI 3", as the findings name it */
        fprintf(w->fp, "  %s%-*s%s ", c_bold(w), label_w, label, c_off(w));
        if (g->name[0])
            put_clean(w->fp, g->name, 60);
        if (g->hostname[0]) {
            fprintf(w->fp, " @ ");
            put_clean(w->fp, g->hostname, 60);
        }
        if (g->mig_profile[0])
            fprintf(w->fp, " [%s]", g->mig_profile);
        char d[32];
        ms(d, sizeof d, g->duration_us);
        if (g->samples == 1)
            fprintf(w->fp, "  1 sample\n"); /* one moment: no time span to give */
        else
            fprintf(w->fp, "  %zu samples over %s\n", g->samples, d);
        if (g->pod[0]) { /* the Kubernetes owner (dcgm-exporter --kubernetes labels) */
            fprintf(w->fp, "    pod ");
            if (g->k8s_namespace[0]) {
                put_clean(w->fp, g->k8s_namespace, 63);
                fputc('/', w->fp);
            }
            put_clean(w->fp, g->pod, 253);
            if (g->container[0]) {
                fprintf(w->fp, "  container ");
                put_clean(w->fp, g->container, 63);
            }
            if (g->pods > 1)
                fprintf(w->fp, "  (time-sliced: %d pods share this GPU; the first is shown)", g->pods);
            if (g->pod_changes)
                fprintf(w->fp, "  (the pod changed %d time%s during the log: the last one is shown)", g->pod_changes,
                        gd_plural((unsigned long long)g->pod_changes));
            fputc('\n', w->fp);
        }
        if (g->warmup_samples + g->teardown_samples) {
            char ex[32];
            ms(ex, sizeof ex, g->excluded_us);
            fprintf(w->fp, "    %zu idle warm-up and %zu tear-down sample%s (%s) left out of the statistics\n",
                    g->warmup_samples, g->teardown_samples,
                    g->warmup_samples + g->teardown_samples == 1 ? "" : "s", ex);
        }
        const gpudiag_metric_stats *c = g->compute_metric < GPUDIAG_M_COUNT ? &g->stats[g->compute_metric] : NULL;
        if (c) {
            char mean[16], med[16], p10[16], p90[16], low[16], jit[16];
            pct(mean, sizeof mean, c->mean);
            pct(med, sizeof med, c->median);
            pct(p10, sizeof p10, c->p10);
            pct(p90, sizeof p90, c->p90);
            pct(low, sizeof low, c->low_share);
            pct(jit, sizeof jit, c->jitter);
            fprintf(w->fp, "    %-14s mean %s  median %s%s  p10 %s%s  p90 %s  <30%%: %s%s  jitter %s\n",
                    gpudiag_metric_name(g->compute_metric), mean, med, g->health_median_ok == 0 ? "(!)" : "", p10,
                    g->health_p10_ok == 0 ? "(!)" : "", p90, low, g->health_low_ok == 0 ? "(!)" : "", jit);
            if (g->samples > 1) {
                fprintf(w->fp, "    compute   |");
                spark(w, g->spark, GPUDIAG_SPARK_POINTS);
                fprintf(w->fp, "|\n");
            }
        } else {
            fprintf(w->fp, "    no compute indicator in this log (no GPU-Util, SM active or GR engine active)\n");
        }
        const gpudiag_metric_stats *es = &g->stats[GPUDIAG_M_ENC_UTIL], *ds = &g->stats[GPUDIAG_M_DEC_UTIL];
        const gpudiag_metric_stats *jst = &g->stats[GPUDIAG_M_JPG_UTIL], *ost = &g->stats[GPUDIAG_M_OFA_UTIL];
        if ((es->n && es->max > 0) || (ds->n && ds->max > 0) || (jst->n && jst->max > 0) ||
            (ost->n && ost->max > 0)) { /* NVENC/NVDEC/NVJPG/OFA: not in GPU-Util (DEFINITIONS "GPU states") */
            char ev[16] = "n/a", dv[16] = "n/a";
            if (es->n)
                pct(ev, sizeof ev, es->median);
            if (ds->n)
                pct(dv, sizeof dv, ds->median);
            fprintf(w->fp, "    video engines: encoder median %s  decoder median %s", ev, dv);
            const gpudiag_metric_stats *js = &g->stats[GPUDIAG_M_JPG_UTIL], *os = &g->stats[GPUDIAG_M_OFA_UTIL];
            if (js->n && js->max > 0) {
                pct(ev, sizeof ev, js->median);
                fprintf(w->fp, "  JPEG decoder median %s", ev);
            }
            if (os->n && os->max > 0) {
                pct(ev, sizeof ev, os->median);
                fprintf(w->fp, "  optical flow median %s", ev);
            }
            fprintf(w->fp, "%s\n", g->video_busy ? "" : " (p95 under 10 %: not busy)");
        }
        if (!isnan(g->mem_used_share) && g->samples > 1 && !g->mem_total_from_spec) {
            fprintf(w->fp, "    memory    |");
            spark(w, g->spark_mem, GPUDIAG_SPARK_POINTS);
            fprintf(w->fp, "|\n");
        }
        /* every number on this line is a median (the levels too: DEFINITIONS "The three indicators"),
         * and each says so: the line above gives the compute indicator's mean beside its median */
        char mem[96] = "", bw[64] = "", v[16];
        const gpudiag_metric_stats *mu = &g->stats[GPUDIAG_M_MEM_USED_BYTES];
        if (isnan(g->mem_used_share) && mu->n) /* used without a total (dmon fb) */
            snprintf(mem, sizeof mem, " (median %.1f GiB used, total unknown)", mu->median / 1073741824.0);
        else if (!isnan(g->mem_used_share)) {
            pct(v, sizeof v, g->mem_used_share);
            snprintf(mem, sizeof mem, " (median %s used%s)", v, g->mem_total_from_spec ? " of the GPU table's total" : "");
        }
        if (g->bandwidth_metric < GPUDIAG_M_COUNT) {
            pct(v, sizeof v, g->stats[g->bandwidth_metric].median);
            snprintf(bw, sizeof bw, " (%s median %s)", gpudiag_metric_name(g->bandwidth_metric), v);
        }
        fprintf(w->fp, "    memory %s%s  compute %s  bandwidth %s%s", g->memory_level ? g->memory_level : "n/a", mem,
                g->compute_level ? g->compute_level : "n/a", g->bandwidth_level ? g->bandwidth_level : "n/a", bw);
        if (g->bandwidth_unreported)
            fprintf(w->fp, "  (DRAM active reads 0 in every sample while computing: not reported)");
        if (g->profiling_unreported)
            fprintf(w->fp, "  (SM/GR/tensor active read 0 in every sample while GPU-Util is busy: not reported)");
        if (g->stats[GPUDIAG_M_TENSOR_ACTIVE].n) {
            char te[16];
            pct(te, sizeof te, g->stats[GPUDIAG_M_TENSOR_ACTIVE].median);
            fprintf(w->fp, "  tensor_active median %s", te);
        }
        if (!isnan(g->dip_period_us))
            fprintf(w->fp, "  dips every %.1f s", g->dip_period_us / 1e6);
        fprintf(w->fp, "  -> %s%s%s\n", g->idle_holding_memory ? "idle, holding memory"
                                 : g->video_busy && g->bottleneck == GPUDIAG_BN_UNKNOWN ? "video encode/decode"
                                 : !g->in_use && g->compute_metric < GPUDIAG_M_COUNT ? "idle" /* no compute data: unknown */
                                 : gpudiag_bottleneck_name(g->bottleneck),
                g->pipeline ? " / " : "", g->pipeline ? g->pipeline : "");
    }
    if (shown < s->gpu_count)
        fprintf(w->fp, "  ... and %zu more (--verbose or --json)\n", s->gpu_count - shown);
    fputc('\n', w->fp);
    findings(w, r, verbose);
}

gpudiag_status gpudiag_report_write_text(const gpudiag_report *r, FILE *fp, const gpudiag_text_opts *opts,
                                         gpudiag_error *err)
{
    if (!r || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL report or stream");
    tw w = {fp, opts ? opts->color : 0, opts && opts->width > 0 ? opts->width : 100};
    int verbose = opts ? opts->verbose : 0;
    if (r->series) {
        series_report(&w, r, verbose);
        if (ferror(fp))
            return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
        return GPUDIAG_OK;
    }
    header(&w, r);
    verdict(&w, r);
    numbers(&w, r);
    breakdown(&w, r);
    idle_gaps(&w, r, verbose);
    findings(&w, r, verbose);
    kernels(&w, r, verbose);
    roofline(&w, r);
    details(&w, r);
    nsight_rules(&w, r);
    if (verbose)
        steps_table(&w, r);
    else if (r->step_count > 1)
        fprintf(fp, "%s(--verbose for every step, the evidence behind each finding and 30 kernels; --json for "
                    "machines)%s\n",
                c_dim(&w), c_off(&w));
    if (ferror(fp))
        return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
    return GPUDIAG_OK;
}

/* The ALL-TO-ALL line of a cluster whose ranks ran matched all-to-alls
 * (DEFINITIONS "All-to-all and expert load imbalance"); nothing otherwise. */
static void cluster_all_to_all(tw *w, const gpudiag_cluster *c)
{
    double share = 0;
    size_t parts = 0;
    for (size_t i = 0; i < c->rank_count; i++)
        if (c->ranks[i].all_to_all_share > 0) {
            share += c->ranks[i].all_to_all_share;
            parts++;
        }
    if (parts == 0)
        return;
    char line[400];
    int k = snprintf(line, sizeof line, "%.1f%% of the step on average over the %zu rank%s that ran them; ",
                     100.0 * share / (double)parts, parts, parts == 1 ? "" : "s");
    size_t len = k > 0 && (size_t)k < sizeof line ? (size_t)k : 0;
    if (c->all_to_all_collectives > 0)
        snprintf(line + len, sizeof line - len,
                 "%zu matched by position: the ranks wait %.1f us per step (%.1f%% of the step) for the busiest, "
                 "rank %d; work max/mean %.2f (from time; token counts not read)",
                 c->all_to_all_collectives, c->all_to_all_wait_us_per_step, 100.0 * c->all_to_all_wait_share,
                 c->all_to_all_loaded_rank, c->all_to_all_imbalance);
    else
        snprintf(line + len, sizeof line - len, "imbalance not measured (%s)",
                 c->mixed_job ? "these traces may not be one job"
                              : "fewer than two ranks ran all-to-alls whose kind is known");
    fprintf(w->fp, "%sALL-TO-ALL%s  ", c_bold(w), c_off(w));
    wrap(w, "", line);
}

gpudiag_status gpudiag_cluster_write_text(const gpudiag_cluster *c, FILE *fp, const gpudiag_text_opts *opts,
                                          gpudiag_error *err)
{
    if (!c || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL cluster or stream");
    tw w = {fp, opts ? opts->color : 0, opts && opts->width > 0 ? opts->width : 100};
    if (c->rank_count == 1)
        fprintf(fp, "%sRANKS%s  1 trace; no other rank to match collectives with\n", c_bold(&w), c_off(&w));
    else
        fprintf(fp, "%sRANKS%s  %zu traces; collectives matched by position: %zu%s\n", c_bold(&w), c_off(&w),
                c->rank_count, c->collectives, c->collectives_mismatch ? " (ranks recorded different numbers)" : "");
    if (c->missing_ranks > 0)
        fprintf(fp, "  note: %d of the job's %d ranks %s not here and %s not compared\n", c->missing_ranks,
                c->world_size, c->missing_ranks == 1 ? "is" : "are", c->missing_ranks == 1 ? "is" : "are");
    /* coll: the collective kernels' whole time; exposed: theirs with no other GPU op running (DEFINITIONS
     * "Communication", exposed communication: two numbers) */
    fprintf(fp, "  %5s %10s %7s %7s %12s %15s %12s  %-15s %s\n", "rank", "step ms", "util", "comm", "coll us/step",
            "exposed us/step", "wait us/step", "verdict", "trace");
    for (size_t i = 0; i < c->rank_count; i++) {
        const gpudiag_rank *k = &c->ranks[i];
        char u[32], cs[32];
        pct(u, sizeof u, k->gpu_utilization);
        pct(cs, sizeof cs, k->comm_share);
        char st[32], ct[32], et[32], wt[32];
        num_or_na(st, sizeof st, k->step_time_us / 1000.0, 2);
        num_or_na(ct, sizeof ct, k->comm_time_us_per_step, 1);
        num_or_na(et, sizeof et, k->comm_exposed_us_per_step, 1);
        num_or_na(wt, sizeof wt, k->comm_wait_us_per_step, 1);
        char rk[24];
        snprintf(rk, sizeof rk, "%d%s", k->rank, k->rank_inferred ? "*" : "");
        fprintf(fp, "  %5s %10s %7s %7s %12s %15s %12s  %-15s ", rk, st, u, cs, ct, et, wt,
                gpudiag_bottleneck_name(k->bottleneck));
        put_clean(fp, k->path, 200);
        fputc('\n', fp);
    }
    fprintf(fp, "  comm: exposed communication, %% of the step (the breakdown's, host calls included); coll: collective\n"
                "  kernel time; exposed: of it, with no other GPU op running; wait: for the last rank to join\n");
    int any_inferred = 0;
    for (size_t i = 0; i < c->rank_count; i++)
        any_inferred |= c->ranks[i].rank_inferred;
    if (any_inferred)
        fprintf(fp, "  * no distributedInfo.rank in the trace: the number is its position in the directory\n");
    for (size_t i = 0; i < c->finding_count; i++)
        if (strcmp(c->findings[i].id, "input_mixed_job") == 0) {
            fprintf(fp, "%sWARNING%s  ", c_bold(&w), c_off(&w));
            wrap(&w, "", c->findings[i].title);
        }
    fprintf(fp, "%sSTRAGGLER%s  ", c_bold(&w), c_off(&w));
    wrap(&w, "", c->verdict ? c->verdict : "");
    cluster_all_to_all(&w, c);
    if (ferror(fp))
        return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
    return GPUDIAG_OK;
}
