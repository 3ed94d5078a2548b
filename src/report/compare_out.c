/*
 * compare_out.c — `gpudiag compare` output: the machine comparison (schema
 * gpudiag.compare/1, docs/REPORT.md) through yajl's generator, and the
 * terminal comparison.  NaN (unknown) is null in JSON and "n/a" in text.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "gpudiag/compare.h"
#include "util/util.h"

#define TEXT_MOVERS 10
#define TEXT_NAME_COLS 60

typedef struct cw {
    yajl_gen g;
    FILE *fp;
    int io_error;
} cw;

static void cw_print(void *ctx, const char *s, size_t len)
{
    cw *w = ctx;
    if (fwrite(s, 1, len, w->fp) != len)
        w->io_error = 1;
}

static void ckey(cw *w, const char *k)
{
    yajl_gen_string(w->g, (const unsigned char *)k, strlen(k));
}

static void cstr(cw *w, const char *s)
{
    if (!s)
        yajl_gen_null(w->g);
    else
        yajl_gen_string(w->g, (const unsigned char *)s, strlen(s));
}

/* 6 significant digits; whole numbers exactly; NaN -> null. */
static void cnum(cw *w, double v)
{
    if (!isfinite(v)) {
        yajl_gen_null(w->g);
        return;
    }
    char b[64];
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(b, sizeof b, "%.0f", v);
    else
        snprintf(b, sizeof b, "%.6g", v);
    if (strcmp(b, "-0") == 0)
        snprintf(b, sizeof b, "0");
    yajl_gen_number(w->g, b, strlen(b));
}

/* µs: 3 decimals (ns), trailing zeros trimmed. */
static void cus(cw *w, double v)
{
    if (!isfinite(v)) {
        yajl_gen_null(w->g);
        return;
    }
    char b[64];
    snprintf(b, sizeof b, "%.3f", v);
    char *dot = strchr(b, '.');
    if (dot) {
        char *e = b + strlen(b) - 1;
        while (e > dot && *e == '0')
            *e-- = '\0';
        if (e == dot)
            *e = '\0';
    }
    if (strcmp(b, "-0") == 0)
        snprintf(b, sizeof b, "0");
    yajl_gen_number(w->g, b, strlen(b));
}

static void kv_cnum(cw *w, const char *k, double v) { ckey(w, k); cnum(w, v); }
static void kv_cus(cw *w, const char *k, double v) { ckey(w, k); cus(w, v); }
static void kv_cstr(cw *w, const char *k, const char *v) { ckey(w, k); cstr(w, v); }

static void kv_tri(cw *w, const char *k, int v)
{
    ckey(w, k);
    if (v < 0)
        yajl_gen_null(w->g);
    else
        yajl_gen_bool(w->g, v);
}

static int key_is_us(const char *k)
{
    return strncmp(k, "step_time_us.", 13) == 0;
}

static void side_json(cw *w, const char *k, const gpudiag_compare_runs *r, const char *const *labels, size_t n)
{
    ckey(w, k);
    yajl_gen_map_open(w->g);
    ckey(w, "runs");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < n; i++)
        cstr(w, labels[i]);
    yajl_gen_array_close(w->g);
    kv_cnum(w, "steps", (double)r->steps);
    kv_cnum(w, "run_spread", r->run_spread);
    kv_tri(w, "within_5pct_bar", r->within_bar);
    kv_cnum(w, "metric_spread", r->metric_spread);
    ckey(w, "kernels_partial");
    yajl_gen_bool(w->g, r->kernels_partial);
    kv_cnum(w, "steps_excluded", (double)r->steps_excluded);
    ckey(w, "excluded_steps");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < r->excluded_listed; i++) {
        const gpudiag_excluded_step *e = &r->excluded[i];
        yajl_gen_map_open(w->g);
        kv_cnum(w, "step", e->number >= 0 ? (double)e->number : NAN);
        kv_cnum(w, "duration_us", e->duration_us);
        kv_cnum(w, "startup_idle_us", e->startup_idle_us);
        kv_cnum(w, "unexplained_tail_us", e->unexplained_tail_us);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    ckey(w, "steady_unsure");
    yajl_gen_bool(w->g, r->steady_unsure);
    ckey(w, "tables_all_steps");
    yajl_gen_bool(w->g, r->tables_all_steps);
    yajl_gen_map_close(w->g);
}

static const char *sev_name_or_null(int s)
{
    return s < 0 ? NULL : gpudiag_severity_name((gpudiag_severity)s);
}

gpudiag_status gpudiag_comparison_write_json(const gpudiag_comparison *c, FILE *fp, int pretty, gpudiag_error *err)
{
    if (!c || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_comparison_write_json: NULL argument");
    cw w0 = {NULL, fp, 0}, *w = &w0;
    w->g = yajl_gen_alloc(NULL);
    if (!w->g)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    yajl_gen_config(w->g, yajl_gen_beautify, pretty ? 1 : 0);
    yajl_gen_config(w->g, yajl_gen_indent_string, "  ");
    yajl_gen_config(w->g, yajl_gen_print_callback, cw_print, w);

    yajl_gen_map_open(w->g);
    kv_cstr(w, "schema", GPUDIAG_COMPARE_SCHEMA);
    ckey(w, "tool");
    yajl_gen_map_open(w->g);
    kv_cstr(w, "name", "gpudiag");
    kv_cstr(w, "version", GPUDIAG_VERSION);
    yajl_gen_map_close(w->g);
    side_json(w, "base", &c->base_runs, c->base_labels, c->base_count);
    side_json(w, "new", &c->test_runs, c->test_labels, c->test_count);

    ckey(w, "metrics");
    yajl_gen_map_open(w->g);
    for (size_t i = 0; i < c->row_count; i++) {
        const gpudiag_compare_row *r = &c->rows[i];
        ckey(w, r->key);
        yajl_gen_map_open(w->g);
        if (key_is_us(r->key)) {
            kv_cus(w, "base", r->base);
            kv_cus(w, "new", r->test);
            kv_cus(w, "delta", r->delta);
        } else {
            kv_cnum(w, "base", r->base);
            kv_cnum(w, "new", r->test);
            kv_cnum(w, "delta", r->delta);
        }
        kv_cnum(w, "change", r->change);
        kv_cstr(w, "better", r->better > 0 ? "higher" : r->better < 0 ? "lower" : NULL);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_map_close(w->g);

    ckey(w, "confidence");
    yajl_gen_map_open(w->g);
    kv_cstr(w, "samples", c->metric == GPUDIAG_METRIC_GPU_UTILIZATION ? "step_gpu_utilization" : "step_time_us");
    kv_cstr(w, "test", "mann_whitney_u");
    kv_cnum(w, "u", c->mwu_u);
    kv_cnum(w, "p", c->mwu_p);
    ckey(w, "exact");
    yajl_gen_bool(w->g, c->mwu_exact);
    int us = c->metric != GPUDIAG_METRIC_GPU_UTILIZATION;
    ckey(w, "median_diff");
    us ? cus(w, c->median_diff) : cnum(w, c->median_diff);
    ckey(w, "median_diff_ci95");
    yajl_gen_array_open(w->g);
    us ? cus(w, c->median_diff_lo) : cnum(w, c->median_diff_lo);
    us ? cus(w, c->median_diff_hi) : cnum(w, c->median_diff_hi);
    yajl_gen_array_close(w->g);
    kv_cnum(w, "bootstrap_resamples", 2000);
    yajl_gen_map_close(w->g);

    ckey(w, "gate");
    yajl_gen_map_open(w->g);
    kv_cstr(w, "metric", gpudiag_compare_metric_name(c->metric));
    kv_cnum(w, "threshold", c->threshold);
    kv_cnum(w, "alpha", c->alpha);
    if (c->metric <= GPUDIAG_METRIC_STEP_TIME_P90) {
        kv_cus(w, "base", c->metric_base);
        kv_cus(w, "new", c->metric_test);
    } else {
        kv_cnum(w, "base", c->metric_base);
        kv_cnum(w, "new", c->metric_test);
    }
    kv_cnum(w, "change", c->metric_change);
    kv_tri(w, "outside_noise", c->outside_noise);
    kv_cstr(w, "verdict", gpudiag_compare_verdict_name(c->verdict));
    kv_cnum(w, "exit_code", c->verdict == GPUDIAG_CMP_REGRESSED ? 1 : 0);
    yajl_gen_map_close(w->g);
    kv_cstr(w, "summary", c->summary);
    ckey(w, "mixed_job");
    yajl_gen_array_open(w->g);
    for (unsigned b = 1; b <= GPUDIAG_MIX_GPU_COUNT; b <<= 1)
        if (c->mixed_job & b)
            yajl_gen_string(w->g, (const unsigned char *)gpudiag_mix_name(b), strlen(gpudiag_mix_name(b)));
    yajl_gen_array_close(w->g);

    ckey(w, "findings");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < c->finding_count; i++) {
        const gpudiag_compare_finding *f = &c->findings[i];
        yajl_gen_map_open(w->g);
        kv_cstr(w, "id", f->id);
        kv_cstr(w, "change", gpudiag_finding_change_name(f->change));
        kv_cstr(w, "title", f->title);
        for (int side = 0; side < 2; side++) {
            int sev = side ? f->test_severity : f->base_severity;
            ckey(w, side ? "new" : "base");
            if (sev < 0) {
                yajl_gen_null(w->g);
                continue;
            }
            yajl_gen_map_open(w->g);
            kv_cstr(w, "severity", sev_name_or_null(sev));
            kv_cnum(w, "est_gain", side ? f->test_est_gain : f->base_est_gain);
            yajl_gen_map_close(w->g);
        }
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);

    ckey(w, "kernels");
    yajl_gen_map_open(w->g);
    kv_cstr(w, "names", c->full_names ? "full" : "short");
    ckey(w, "partial");
    yajl_gen_bool(w->g, c->base_runs.kernels_partial || c->test_runs.kernels_partial);
    kv_cnum(w, "added", (double)c->kernels_added);
    kv_cnum(w, "removed", (double)c->kernels_removed);
    kv_cnum(w, "in_both", (double)(c->kernel_count - c->kernels_added - c->kernels_removed));
    ckey(w, "diff");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < c->kernel_count; i++) {
        const gpudiag_compare_kernel *k = &c->kernels[i];
        yajl_gen_map_open(w->g);
        kv_cstr(w, "name", k->name);
        kv_cstr(w, "change", k->change == GPUDIAG_KC_ADDED ? "added" : k->change == GPUDIAG_KC_REMOVED ? "removed" : "both");
        kv_cnum(w, "base_calls", k->base_calls);
        kv_cnum(w, "new_calls", k->test_calls);
        kv_cus(w, "base_us", k->base_us);
        kv_cus(w, "new_us", k->test_us);
        kv_cus(w, "delta_us", k->delta_us);
        kv_cus(w, "delta_us_per_step", k->delta_us_per_step);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
    yajl_gen_map_close(w->g);
    if (!pretty)
        cw_print(w, "\n", 1);
    yajl_gen_free(w->g);
    if (w->io_error || ferror(fp))
        return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
    return GPUDIAG_OK;
}

/* ---- text ------------------------------------------------------------------------- */

/* The row of a key; an all-unknown row when there is none. */
static const gpudiag_compare_row *row(const gpudiag_comparison *c, const char *key)
{
    static const gpudiag_compare_row unknown = {"", NAN, NAN, NAN, NAN, 0};
    for (size_t i = 0; i < c->row_count; i++)
        if (strcmp(c->rows[i].key, key) == 0)
            return &c->rows[i];
    return &unknown;
}

static void fmt_ms(char *b, size_t n, double us)
{
    if (isnan(us))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%.2f ms", us / 1000);
}

static void fmt_pct(char *b, size_t n, double f)
{
    if (isnan(f))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%.1f%%", f * 100);
}

static void fmt_change(char *b, size_t n, double ch)
{
    if (isnan(ch))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%+.1f%%", ch * 100);
}

static void fmt_pts(char *b, size_t n, double d)
{
    if (isnan(d))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%+.1f pts", d * 100);
}

/* The part of a key after its last dot. */
static const char *leaf(const char *k)
{
    const char *d = strrchr(k, '.');
    return d ? d + 1 : k;
}

static void share_rows(FILE *fp, const gpudiag_comparison *c, const char *prefix, const char *title)
{
    size_t pl = strlen(prefix);
    int any = 0;
    for (size_t i = 0; i < c->row_count; i++) {
        const gpudiag_compare_row *r = &c->rows[i];
        if (strncmp(r->key, prefix, pl) != 0 || (isnan(r->base) && isnan(r->test)))
            continue;
        if (!any)
            fprintf(fp, "\n%-30s %10s %10s %12s\n", title, "base", "new", "change");
        any = 1;
        char b[32], t[32], d[32];
        fmt_pct(b, sizeof b, r->base);
        fmt_pct(t, sizeof t, r->test);
        fmt_pts(d, sizeof d, r->delta);
        fprintf(fp, "  %-28s %10s %10s %12s\n", leaf(r->key), b, t, d);
    }
}

static void short_name(char *b, size_t n, const char *name)
{
    size_t len = strlen(name);
    if (len < n && len <= TEXT_NAME_COLS) {
        snprintf(b, n, "%s", name);
    } else {
        size_t keep = gd_utf8_prefix(name, TEXT_NAME_COLS - 3 < n - 4 ? TEXT_NAME_COLS - 3 : n - 4);
        snprintf(b, n, "%.*s...", (int)keep, name);
    }
    gd_term_clean(b); /* names come from the inputs: no escapes or bidi overrides to the terminal */
}

/* The run lines of one side (side 0: base, 1: new): its runs, the steps left
 * out of its steady state and why, its run-to-run spread. */
static void text_side(FILE *fp, const gpudiag_comparison *c, int side)
{
    size_t n = side ? c->test_count : c->base_count;
    const char *const *labels = side ? c->test_labels : c->base_labels;
    const gpudiag_compare_runs *r = side ? &c->test_runs : &c->base_runs;
    fprintf(fp, "  %-5s", side ? "new:" : "base:");
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : " ", fp);
        gd_fput_term(fp, labels[i], strlen(labels[i])); /* paths from the command line: cleaned */
    }
    fprintf(fp, "  (%zu run%s, %zu step%s)\n", n, n == 1 ? "" : "s", r->steps, r->steps == 1 ? "" : "s");
    /* DEFINITIONS "Steady state of a run": say which steps were left out, and why */
    if (r->steps_excluded) {
        fprintf(fp, "         steady state: %zu step%s left out:", r->steps_excluded, r->steps_excluded == 1 ? "" : "s");
        for (size_t e = 0; e < r->excluded_listed; e++) {
            const gpudiag_excluded_step *x = &r->excluded[e];
            char num[32];
            if (x->number >= 0)
                snprintf(num, sizeof num, "#%lld", (long long)x->number);
            else
                snprintf(num, sizeof num, "(window)");
            fprintf(fp, "%s %s %.2f ms (", e ? "," : "", num, x->duration_us / 1e3);
            if (x->startup_idle_us > 0)
                fprintf(fp, "start-up/compilation %.2f ms%s", x->startup_idle_us / 1e3,
                        x->unexplained_tail_us > 0 ? ", " : "");
            if (x->unexplained_tail_us > 0)
                fprintf(fp, "unexplained tail %.2f ms", x->unexplained_tail_us / 1e3);
            fputc(')', fp);
        }
        if (r->steps_excluded > r->excluded_listed)
            fprintf(fp, ", ...");
        fputc('\n', fp);
        if (r->tables_all_steps)
            fprintf(fp, "         the tables below still include them (a saved report, or left-out steps between "
                        "kept ones)\n");
        else
            fprintf(fp, "         the tables below cover the same %zu steps\n", r->steps);
    }
    if (r->steady_unsure)
        fprintf(fp, "         steady state: unknown: leaving out the start-up steps would leave fewer than 2; all kept\n");
    if (n >= 2) {
        char sp[32];
        fmt_pct(sp, sizeof sp, r->run_spread);
        fprintf(fp, "         run-to-run spread of mean step time %s: %s\n", sp,
                r->within_bar == 1   ? "within the 5% bar"
                : r->within_bar == 0 ? "ABOVE the 5% bar, too noisy to trust a 5% change"
                                     : "unknown");
    }

}

/* "Step time": mean, median, p90, throughput, and the confidence of the change. */
static void text_step_time(FILE *fp, const gpudiag_comparison *c)
{
    fprintf(fp, "\n%-30s %10s %10s %12s\n", "Step time", "base", "new", "change");
    static const char *const st_keys[] = {"step_time_us.mean", "step_time_us.median", "step_time_us.p90"};
    for (size_t i = 0; i < 3; i++) {
        const gpudiag_compare_row *r = row(c, st_keys[i]);
        char b[32], t[32], d[32];
        fmt_ms(b, sizeof b, r->base);
        fmt_ms(t, sizeof t, r->test);
        fmt_change(d, sizeof d, r->change);
        fprintf(fp, "  %-28s %10s %10s %12s\n", leaf(r->key), b, t, d);
    }
    const gpudiag_compare_row *tp = row(c, "throughput_steps_per_s");
    char b[64], t[64], d[64];
    snprintf(b, sizeof b, "%s/s", gd_format_sig3(d, sizeof d, tp->base));
    snprintf(t, sizeof t, "%s/s", gd_format_sig3(d, sizeof d, tp->test));
    fmt_change(d, sizeof d, tp->change);
    fprintf(fp, "  %-28s %10s %10s %12s\n", "throughput (steps)", b, t, d);
    int us = c->metric != GPUDIAG_METRIC_GPU_UTILIZATION;
    const char *what = us ? "step times" : "per-step GPU utilization";
    if (isnan(c->mwu_p)) {
        fprintf(fp, "  confidence: unknown (%zu vs %zu steps; the test needs at least 2 per side)\n", c->base_runs.steps,
                c->test_runs.steps);
    } else {
        fprintf(fp, "  confidence: Mann-Whitney U = %g on the %s, two-sided p = %.3g (%s)%s\n", c->mwu_u, what,
                c->mwu_p, c->mwu_exact ? "exact" : "normal approximation",
                c->mwu_p < c->alpha ? ": the distributions differ" : ": not distinguishable from noise");
        if (us) {
            fmt_ms(b, sizeof b, c->median_diff);
            fmt_ms(t, sizeof t, c->median_diff_lo);
            fmt_ms(d, sizeof d, c->median_diff_hi);
        } else {
            fmt_pts(b, sizeof b, c->median_diff);
            fmt_pts(t, sizeof t, c->median_diff_lo);
            fmt_pts(d, sizeof d, c->median_diff_hi);
        }
        fprintf(fp, "  median difference (new - base) %s, 95%% bootstrap interval [%s, %s]\n", b, t, d);
    }
}

/* "GPU": utilization, efficiency, shares and MFU; then the breakdown and idle shares. */
static void text_gpu(FILE *fp, const gpudiag_comparison *c)
{
    char b[64], t[64], d[64];
    fprintf(fp, "\n%-30s %10s %10s %12s\n", "GPU", "base", "new", "change");
    static const char *const gk[] = {"gpu_utilization", "sm_efficiency", "achieved_occupancy", "tensor_core_share",
                                     "idle_share",      "comm_share",    "mfu"};
    for (size_t i = 0; i < sizeof gk / sizeof gk[0]; i++) {
        const gpudiag_compare_row *r = row(c, gk[i]);
        if (isnan(r->base) && isnan(r->test)) {
            if (strcmp(gk[i], "mfu") == 0)
                fprintf(fp, "  %-28s %10s %10s %12s\n", "mfu", "n/a", "n/a", "(no model size)");
            continue;
        }
        fmt_pct(b, sizeof b, r->base);
        fmt_pct(t, sizeof t, r->test);
        fmt_pts(d, sizeof d, r->delta);
        fprintf(fp, "  %-28s %10s %10s %12s\n", gk[i], b, t, d);
    }
    share_rows(fp, c, "breakdown.share.", "Breakdown (share of step)");
    share_rows(fp, c, "idle.by_cause_share_of_step.", "GPU idle by cause (of step)");
}

/* "Findings": appeared, disappeared, changed, then the unchanged ids on one line. */
static void text_findings(FILE *fp, const gpudiag_comparison *c)
{
    fprintf(fp, "\nFindings\n");
    size_t unchanged = 0;
    for (size_t i = 0; i < c->finding_count; i++) {
        const gpudiag_compare_finding *f = &c->findings[i];
        if (f->change == GPUDIAG_FC_UNCHANGED) {
            unchanged++;
            continue;
        }
        const char *mark = f->change == GPUDIAG_FC_APPEARED ? "+ appeared   " : f->change == GPUDIAG_FC_DISAPPEARED ? "- disappeared" : "~ changed    ";
        char sv[64];
        if (f->change == GPUDIAG_FC_CHANGED)
            snprintf(sv, sizeof sv, "%s -> %s", gpudiag_severity_name((gpudiag_severity)f->base_severity),
                     gpudiag_severity_name((gpudiag_severity)f->test_severity));
        else
            snprintf(sv, sizeof sv, "%s", sev_name_or_null(f->change == GPUDIAG_FC_APPEARED ? f->test_severity : f->base_severity));
        fprintf(fp, "  %s %s (%s): %s\n", mark, f->id, sv, f->title);
    }
    if (unchanged) {
        fprintf(fp, "  = unchanged  ");
        size_t k = 0;
        for (size_t i = 0; i < c->finding_count; i++)
            if (c->findings[i].change == GPUDIAG_FC_UNCHANGED)
                fprintf(fp, "%s%s", k++ ? ", " : "", c->findings[i].id);
        fprintf(fp, "\n");
    }
    if (c->finding_count == 0)
        fprintf(fp, "  none on either side\n");
}

/* "Kernels": counts, then the biggest movers (all with verbose). */
static void text_kernels(FILE *fp, const gpudiag_comparison *c, int verbose)
{
    size_t both = c->kernel_count - c->kernels_added - c->kernels_removed;
    fprintf(fp, "\nKernels (%s names%s): %zu added, %zu removed, %zu in both%s\n",
            c->full_names ? "full" : "HTA short", c->full_names ? "" : "; --full-names for whole names",
            c->kernels_added, c->kernels_removed, both,
            c->base_runs.kernels_partial || c->test_runs.kernels_partial ? " (partial: a --json report keeps its top 50 kernels; analyze --save keeps all)" : "");
    size_t show = verbose ? c->kernel_count : (c->kernel_count < TEXT_MOVERS ? c->kernel_count : TEXT_MOVERS);
    if (show) {
        fprintf(fp, "  %-*s %9s %9s %11s %11s %12s\n", TEXT_NAME_COLS, "biggest movers (per step)", "calls", "calls",
                "base ms", "new ms", "delta/step");
        for (size_t i = 0; i < show; i++) {
            const gpudiag_compare_kernel *k = &c->kernels[i];
            char nm[TEXT_NAME_COLS + 8], dl[32];
            short_name(nm, sizeof nm, k->name);
            if (isnan(k->delta_us_per_step))
                snprintf(dl, sizeof dl, "n/a");
            else
                snprintf(dl, sizeof dl, "%+.3f ms", k->delta_us_per_step / 1000);
            fprintf(fp, "  %-*s %9.0f %9.0f %11.3f %11.3f %12s%s\n", TEXT_NAME_COLS, nm, k->base_calls, k->test_calls,
                    k->base_us / 1000, k->test_us / 1000, dl,
                    k->change == GPUDIAG_KC_ADDED ? " added" : k->change == GPUDIAG_KC_REMOVED ? " removed" : "");
        }
        if (show < c->kernel_count)
            fprintf(fp, "  (%zu more; --verbose lists all, --json gives every row)\n", c->kernel_count - show);
    }
}

gpudiag_status gpudiag_comparison_write_text(const gpudiag_comparison *c, FILE *fp, const gpudiag_text_opts *opts,
                                             gpudiag_error *err)
{
    if (!c || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_comparison_write_text: NULL argument");
    int verbose = opts ? opts->verbose : 0;
    const char *v = gpudiag_compare_verdict_name(c->verdict);
    fprintf(fp, "COMPARE  %s\n", c->summary);
    if (c->mixed_job)
    {
        const char *words[] = {"different GPU models", "different GPU counts", "different world sizes"};
        const unsigned bits[] = {GPUDIAG_MIX_GPU, GPUDIAG_MIX_GPU_COUNT, GPUDIAG_MIX_WORLD_SIZE};
        fprintf(fp, "WARNING  base and test are not the same set-up:");
        for (int i = 0, k = 0; i < 3; i++)
            if (c->mixed_job & bits[i])
                fprintf(fp, "%s %s", k++ ? "," : "", words[i]);
        fprintf(fp, "; the change mixes set-up and code\n");
    }
    for (int side = 0; side < 2; side++)
        text_side(fp, c, side);
    text_step_time(fp, c);
    text_gpu(fp, c);
    text_findings(fp, c);
    text_kernels(fp, c, verbose);
    char ch[32];
    fmt_change(ch, sizeof ch, c->metric_change);
    fprintf(fp, "\nGate: %s %s (threshold %.3g%%, %s) -> %s, exit %d\n", gpudiag_compare_metric_name(c->metric), ch,
            c->threshold * 100,
            c->outside_noise == 1 ? "outside the noise" : c->outside_noise == 0 ? "within the noise" : "noise unknown",
            v, c->verdict == GPUDIAG_CMP_REGRESSED ? 1 : 0);
    if (ferror(fp))
        return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
    return GPUDIAG_OK;
}
