/*
 * html.c — the report as one self-contained HTML page with inline SVG charts
 * (include/gpudiag/html.h).  No scripts: the page is static markup and CSS,
 * so escaping every input string (gpudiag_html_escape) is all it takes to keep
 * a hostile trace inert.  Charts share one coordinate convention: a viewBox
 * 960 units wide, labels left of x = LABEL_W, values right of the bars.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/html.h"
#include "gpudiag/memory.h"
#include "gpudiag/roofline.h"
#include "gpudiag/series.h"
#include "report/finding_kind.h"
#include "model/series_internal.h"
#include "report/series_words.h"
#include "util/util.h"

#define VIEW_W 960.0
#define LABEL_W 130.0
#define VALUE_W 210.0
#define PLOT_W (VIEW_W - LABEL_W - VALUE_W)
#define TOP_KERNELS 15

typedef struct hw {
    FILE *fp;
    int io_error;
    int fig;          /* running number for element ids */
} hw;

static void put(hw *w, const char *s)
{
    if (fputs(s, w->fp) == EOF)
        w->io_error = 1;
}

static void putf(hw *w, const char *fmt, ...) GD_ATTR_PRINTF(2, 3);
static void putf(hw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(w->fp, fmt, ap) < 0)
        w->io_error = 1;
    va_end(ap);
}

int gpudiag_html_escape(FILE *fp, const char *s)
{
    if (!s)
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: break;
        }
        if (rep) {
            if (fputs(rep, fp) == EOF)
                return -1;
        } else if (*p < 0x20 && *p != '\t' && *p != '\n') {
            continue;
        } else if (fputc(*p, fp) == EOF) {
            return -1;
        }
    }
    return 0;
}

static void esc(hw *w, const char *s)
{
    if (gpudiag_html_escape(w->fp, s) != 0)
        w->io_error = 1;
}

/* ---- number formatting ---------------------------------------------------- */

static const char *fmt_us(char *b, size_t n, double us)
{
    return gd_format_us(b, n, us, "\xC2\xB5s");
}

static const char *fmt_pct(char *b, size_t n, double share)
{
    if (!isfinite(share))
        snprintf(b, n, "n/a");
    else
        snprintf(b, n, "%.1f%%", share * 100.0);
    return b;
}

/* A human label for a snake_case name ("host_launch" -> "host launch"). */
static void esc_name(hw *w, const char *s)
{
    char b[64];
    size_t i = 0;
    for (; s && s[i] && i + 1 < sizeof b; i++)
        b[i] = s[i] == '_' ? ' ' : s[i];
    b[i] = '\0';
    esc(w, b);
}

/* ---- style ----------------------------------------------------------------- */

static const char *const CSS =
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa;"
    "--pat:rgba(0,0,0,.55);"
    "--r-kernel:#0072b2;--r-memcpy:#e69f00;--r-memset:#f0e442;--r-communication:#cc79a7;--r-runtime:#d55e00;"
    "--r-dataloader:#009e73;--r-cpu_exec:#56b4e9;--r-other:#999999;"
    "--c-sync:#d55e00;--c-dataloader:#009e73;--c-communication:#cc79a7;--c-optimizer:#e69f00;"
    "--c-host_launch:#56b4e9;--c-other:#999999;--c-startup:#cccccc;--c-compilation:#bbbbbb;--c-stream_wait:#cc79a7;--c-kernel_wait:#f0e442;--c-profiler:#8c564b;--busy:#0072b2;--tc:#0072b2;--notc:#9ecae1;"
    "--high:#b42318;--medium:#b54708;--low:#1d4ed8;--info:#57606a}"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;"
    "--panel:#161b22;--pat:rgba(255,255,255,.6);--busy:#58a6ff;--tc:#58a6ff;--notc:#1f4b7a;"
    "--r-kernel:#58a6ff;--high:#ff7b72;--medium:#f0b72f;--low:#79c0ff;--info:#9da7b3}}"
    "@media print{:root{--bg:#fff;--fg:#000;--muted:#333;--panel:#fff;--line:#bbb}"
    "figure,section.finding,table{break-inside:avoid}details{display:block}}"
    "body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0 auto;max-width:1000px;padding:1.5em}"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid var(--line)}"
    ".muted{color:var(--muted)}code{font:13px ui-monospace,'DejaVu Sans Mono',monospace;word-break:break-all}"
    ".verdict{background:var(--panel);border:1px solid var(--line);border-left:6px solid var(--r-runtime);"
    "padding:.8em 1em;border-radius:6px}.verdict p{margin:.3em 0}.verdict .bn{font-size:1.15em}"
    "dl.kpi{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:.5em;margin:1em 0}"
    "dl.kpi div{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.4em .7em}"
    "dl.kpi dt{font-size:.8em;color:var(--muted)}dl.kpi dd{margin:0;font-size:1.2em;font-weight:600}"
    "ol.findings{padding-left:1.4em}ol.findings li{margin:.7em 0}"
    ".sev{display:inline-block;font-size:.75em;font-weight:700;border:1.5px solid;border-radius:4px;"
    "padding:0 .35em;margin-right:.4em;letter-spacing:.04em}"
    ".sev-high{color:var(--high)}.sev-medium{color:var(--medium)}.sev-low{color:var(--low)}"
    ".sev-info{color:var(--info)}"
    "figure{margin:1em 0}figcaption{color:var(--muted);font-size:.9em}"
    "svg.chart{width:100%;height:auto;display:block}svg text{fill:var(--fg);font:12px system-ui,sans-serif}"
    "svg .axis{stroke:var(--line)}svg .grid{stroke:var(--line);stroke-dasharray:2 3}"
    "svg .stepline{stroke:var(--muted);stroke-width:.6;stroke-dasharray:3 3}"
    "svg .busy{fill:var(--busy)}svg .tc{fill:var(--tc)}svg .notc{fill:var(--notc)}"
    "svg .mem{fill:var(--r-dataloader);opacity:.5}svg .memres{fill:none;stroke:var(--fg);stroke-width:1;"
    "stroke-dasharray:4 2}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid var(--line);"
    "padding:.2em .5em;text-align:left;vertical-align:top}td.n{text-align:right;white-space:nowrap}"
    "details{margin:.4em 0}summary{cursor:pointer;color:var(--muted)}"
    ".legend{display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:.9em;margin:.3em 0;padding:0;list-style:none}"
    ".legend svg{vertical-align:middle;margin-right:.3em}"
    "svg .lowband{fill:var(--muted);opacity:.2}svg .ind{fill:none;stroke-width:1.6}"
    "svg .ind-compute{stroke:var(--busy)}svg .ind-min{stroke:var(--busy);stroke-width:.7;stroke-dasharray:1 2}"
    "svg .ind-bw{stroke:var(--r-memcpy);stroke-dasharray:6 3}svg .ind-mem{stroke:var(--r-dataloader);"
    "stroke-dasharray:10 3 2 3}"
    "svg .roof{fill:none;stroke:var(--fg);stroke-width:1.6}svg .kcomp{fill:var(--busy);stroke:var(--busy)}"
    "svg .kmem{fill:var(--bg);stroke:var(--r-runtime);stroke-width:2}";

static const char *const ROLE_ABBR[GPUDIAG_ROLE_COUNT] = {
#define GPUDIAG_ROLE_ROW(e, name, abbr) abbr,
#include "gpudiag/roles.def"
#undef GPUDIAG_ROLE_ROW
};

/* Patterns tell the idle causes apart without colour. */
static void write_patterns(hw *w)
{
    put(w, "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\" focusable=\"false\"><defs>");
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++) {
        const char *n = gpudiag_idle_cause_name((gpudiag_idle_cause)c);
        putf(w,
             "<pattern id=\"p-%s\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
             "<rect width=\"8\" height=\"8\" style=\"fill:var(--c-%s)\"/>",
             n, n);
        switch ((gpudiag_idle_cause)c) {
        case GPUDIAG_IDLE_SYNC:
            put(w, "<path d=\"M0,8 L8,0 M-2,2 L2,-2 M6,10 L10,6\" style=\"stroke:var(--pat)\" stroke-width=\"1.5\"/>");
            break;
        case GPUDIAG_IDLE_DATALOADER:
            put(w, "<circle cx=\"4\" cy=\"4\" r=\"1.6\" style=\"fill:var(--pat)\"/>");
            break;
        case GPUDIAG_IDLE_COMMUNICATION:
            put(w, "<path d=\"M0,8 L8,0 M0,0 L8,8\" style=\"stroke:var(--pat)\" stroke-width=\"1.2\"/>");
            break;
        case GPUDIAG_IDLE_OPTIMIZER:
            put(w, "<path d=\"M0,4 L8,4\" style=\"stroke:var(--pat)\" stroke-width=\"1.5\"/>");
            break;
        case GPUDIAG_IDLE_HOST_LAUNCH:
            put(w, "<path d=\"M4,0 L4,8\" style=\"stroke:var(--pat)\" stroke-width=\"1.5\"/>");
            break;
        case GPUDIAG_IDLE_STARTUP:
            put(w, "<rect x=\"2\" y=\"2\" width=\"4\" height=\"4\" style=\"fill:none;stroke:var(--pat)\" stroke-width=\"1\"/>");
            break;
        case GPUDIAG_IDLE_COMPILATION:
            put(w, "<path d=\"M0,6 L4,2 L8,6\" style=\"fill:none;stroke:var(--pat)\" stroke-width=\"1.2\"/>");
            break;
        case GPUDIAG_IDLE_STREAM_WAIT:
            put(w, "<path d=\"M0,2 L8,2 M0,6 L8,6\" style=\"stroke:var(--pat)\" stroke-width=\"1\"/>");
            break;
        case GPUDIAG_IDLE_KERNEL_WAIT:
            put(w, "<circle cx=\"2\" cy=\"2\" r=\"1\" style=\"fill:var(--pat)\"/><circle cx=\"6\" cy=\"6\" r=\"1\" style=\"fill:var(--pat)\"/>");
            break;
        default:
            break;
        }
        put(w, "</pattern>");
    }
    put(w, "<pattern id=\"p-tc\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
           "<rect width=\"6\" height=\"6\" style=\"fill:var(--tc)\"/>"
           "<path d=\"M0,6 L6,0\" style=\"stroke:var(--pat)\" stroke-width=\"1\"/></pattern>");
    put(w, "</defs></svg>\n");
}

/* Open a chart: <figure><svg role=img> with a title and a description. */
static int chart_open(hw *w, double height, const char *title, const char *desc)
{
    int id = ++w->fig;
    putf(w,
         "<figure><svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
         "aria-labelledby=\"t%d d%d\" xmlns=\"http://www.w3.org/2000/svg\"><title id=\"t%d\">",
         VIEW_W, height, id, id, id);
    esc(w, title);
    putf(w, "</title><desc id=\"d%d\">", id);
    esc(w, desc);
    put(w, "</desc>");
    return id;
}

static void chart_close(hw *w, const char *caption)
{
    put(w, "</svg><figcaption>");
    esc(w, caption);
    put(w, "</figcaption></figure>\n");
}

static void legend_swatch(hw *w, const char *fill, const char *label)
{
    putf(w, "<li><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><rect width=\"14\" height=\"14\" "
            "style=\"fill:%s;stroke:var(--fg);stroke-width:.5\"/></svg>", fill);
    esc_name(w, label);
    put(w, "</li>");
}

/* A "nice" tick step (1, 2, 5 × 10^k) giving about n ticks over range. */
static double nice_step(double range, int n)
{
    if (!(range > 0))
        return 1;
    double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* A horizontal time axis from 0 to range_us at y, over x0..x0+width. */
static void time_axis(hw *w, double x0, double width, double y, double range_us, double grid_top)
{
    double step = nice_step(range_us, 6);
    double unit = step >= 1e6 ? 1e6 : step >= 1e3 ? 1e3 : 1;
    const char *uname = unit == 1e6 ? "s" : unit == 1e3 ? "ms" : "\xC2\xB5s";
    putf(w, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0, y, x0 + width, y);
    for (double t = 0; t <= range_us * 1.0001; t += step) {
        double x = x0 + width * t / range_us;
        char b[32];
        if (grid_top < y)
            putf(w, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, grid_top, x, y);
        snprintf(b, sizeof b, "%g %s", t / unit, uname);
        putf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x, y + 14, b);
    }
}

/* ---- sections ----------------------------------------------------------------- */

static void write_head(hw *w, const gpudiag_report *r, const gpudiag_html_opts *o)
{
    put(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
           "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
           "<meta name=\"generator\" content=\"gpudiag " GPUDIAG_VERSION "\"><title>");
    if (o->title) {
        esc(w, o->title);
    } else {
        put(w, "gpudiag report: ");
        esc(w, r->input.path);
    }
    put(w, "</title><style>");
    put(w, CSS);
    put(w, "</style></head>\n<body>\n");
    write_patterns(w);
    put(w, "<header><h1>");
    if (o->title)
        esc(w, o->title);
    else
        put(w, "gpudiag report");
    put(w, "</h1><p class=\"muted\">Input: <code>");
    esc(w, r->input.path);
    if (r->series) {
        put(w, "</code> (");
        esc(w, r->series->format);
        char counts[96], assumed[96];
        gd_series_samples_phrase(r->series, counts, sizeof counts);
        gd_series_assumed_phrase(r->series, assumed, sizeof assumed);
        putf(w, " monitoring log, %s%s%s", counts, *assumed ? ", " : "", assumed);
    } else {
        putf(w, "</code> (%s, %llu events", r->input.format ? r->input.format : "?",
             (unsigned long long)r->input.events);
    }
    if (r->input.rank >= 0)
        putf(w, ", rank %d", r->input.rank);
    if (r->input.world_size > 0) /* as the text report: a rank without a world size says no "of" */
        putf(w, " of %d", r->input.world_size);
    put(w, ") \xC2\xB7 gpudiag " GPUDIAG_VERSION "</p>");
    for (size_t i = 0; i < r->device_count; i++) {
        const gpudiag_device *d = &r->devices[i];
        putf(w, "%s GPU %d", i ? "; " : "<p class=\"muted\">", d->id);
        if (d->name[0]) {
            put(w, ": ");
            esc(w, d->name);
        }
        if (d->num_sms > 0)
            putf(w, ", %d %s", d->num_sms, r->is_amd ? "CUs" : "SMs"); /* AMD: compute units */
        if (i + 1 == r->device_count)
            put(w, "</p>");
    }
    put(w, "</header>\n<main>\n");
}

static void kpi(hw *w, const char *label, const char *value)
{
    put(w, "<div><dt>");
    esc(w, label);
    put(w, "</dt><dd>");
    esc(w, value);
    put(w, "</dd></div>");
}

/* The verdict's key numbers for a monitoring log: GPUs, samples, time, and
 * the compute indicator over all GPUs in use (the median of their medians). */
static void write_series_kpis(hw *w, const gpudiag_series_summary *s)
{
    char b[64];
    size_t in_use = 0, holding = 0, samples = 0;
    double span = 0, med[64];
    size_t nmed = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        in_use += g->in_use;
        holding += g->idle_holding_memory;
        samples += g->samples;
        if (isfinite(g->duration_us) && g->duration_us > span)
            span = g->duration_us;
        if (g->in_use && g->compute_metric < GPUDIAG_M_COUNT && isfinite(g->stats[g->compute_metric].median) &&
            nmed < sizeof med / sizeof med[0])
            med[nmed++] = g->stats[g->compute_metric].median;
    }
    snprintf(b, sizeof b, "%zu of %zu", in_use, s->gpu_count);
    kpi(w, "GPUs in use", b);
    snprintf(b, sizeof b, "%zu", holding);
    kpi(w, "Idle, holding memory", b);
    /* a sample is one reading of one GPU: per GPU when the GPUs have the same count */
    size_t lo = (size_t)-1, hi = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        lo = s->gpus[i].samples < lo ? s->gpus[i].samples : lo;
        hi = s->gpus[i].samples > hi ? s->gpus[i].samples : hi;
    }
    if (s->gpu_count < 2)
        snprintf(b, sizeof b, "%zu", samples);
    else if (lo == hi)
        snprintf(b, sizeof b, "%zu per GPU", lo);
    else
        snprintf(b, sizeof b, "%zu (%zu to %zu per GPU)", samples, lo, hi);
    kpi(w, "Samples", b);
    kpi(w, "Time covered", s->snapshot ? "snapshot" : fmt_us(b, sizeof b, span));
    for (size_t i = 1; i < nmed; i++) /* insertion sort: a handful of GPUs */
        for (size_t j = i; j > 0 && med[j] < med[j - 1]; j--) {
            double t = med[j];
            med[j] = med[j - 1];
            med[j - 1] = t;
        }
    kpi(w, "Median compute (GPUs in use)",
        nmed ? fmt_pct(b, sizeof b, nmed % 2 ? med[nmed / 2] : (med[nmed / 2 - 1] + med[nmed / 2]) / 2) : "n/a");
}

static void write_verdict(hw *w, const gpudiag_report *r)
{
    char b[64];
    put(w, "<section aria-labelledby=\"h-verdict\"><h2 id=\"h-verdict\">Verdict</h2><div class=\"verdict\">"
           "<p class=\"bn\">Bottleneck: <strong>");
    esc_name(w, gpudiag_bottleneck_name(r->bottleneck));
    put(w, "</strong>");
    if (r->verdict_finding) {
        put(w, " (finding <code>");
        esc(w, r->verdict_finding);
        put(w, "</code>)");
    }
    put(w, "</p><p>");
    esc(w, r->verdict);
    put(w, "</p>");
    if (r->verdict_why) {
        put(w, "<p>Why not the first finding: ");
        esc(w, r->verdict_why);
        put(w, ".</p>");
    }
    put(w, "</div><dl class=\"kpi\">");
    if (r->series) {
        write_series_kpis(w, r->series);
        put(w, "</dl></section>\n");
        return;
    }
    snprintf(b, sizeof b, "%zu%s", r->step_count, r->steps_from_profiler ? "" : " (whole trace)");
    kpi(w, "Steps", b);
    kpi(w, "Mean step time", fmt_us(b, sizeof b, r->step_time.mean));
    /* DEFINITIONS "Graph replays": unrecorded replays are missing from the busy time */
    kpi(w, r->graph_launches_unrecorded ? "GPU utilization (lower bound)" : "GPU utilization",
        fmt_pct(b, sizeof b, r->gpu_utilization));
    kpi(w, "GPU idle (HTA)", fmt_pct(b, sizeof b, r->idle_share));
    kpi(w, r->is_amd ? "CU efficiency" : "SM efficiency", fmt_pct(b, sizeof b, r->sm_efficiency));
    kpi(w, "Achieved occupancy", fmt_pct(b, sizeof b, r->achieved_occupancy));
    kpi(w, r->is_amd ? "Matrix Core share" : "Tensor Core share", fmt_pct(b, sizeof b, r->tensor_core_share));
    snprintf(b, sizeof b, "%llu", (unsigned long long)r->kernel_count);
    kpi(w, "Kernels", b);
    put(w, "</dl></section>\n");
}

static void write_findings(hw *w, const gpudiag_report *r)
{
    char b[64];
    put(w, "<section aria-labelledby=\"h-findings\"><h2 id=\"h-findings\">Findings, ranked</h2>");
    if (r->finding_count == 0) {
        put(w, "<p>No findings.</p></section>\n");
        return;
    }
    put(w, "<ol class=\"findings\">");
    for (size_t i = 0; i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        const char *sev = gpudiag_severity_name(f->severity);
        const char *kind = gd_finding_kind_word(f);
        putf(w, "<li><span class=\"sev sev-%s\">%s</span><strong>", sev, sev);
        esc(w, f->title);
        put(w, "</strong> <span class=\"muted\">(<code>");
        esc(w, f->id);
        putf(w, "</code>, %s", kind);
        if (isfinite(f->est_gain))
            putf(w, ", could save about %s of %s time%s", fmt_pct(b, sizeof b, f->est_gain),
                 gd_gain_unit(r),
                 r->series ? " (" GD_SERIES_GAIN_LABEL ")" : "");
        put(w, ")</span>");
        if (f->recommendation && f->recommendation[0]) {
            put(w, "<br>Fix: ");
            esc(w, f->recommendation);
        }
        if (f->evidence_count) {
            put(w, "<details><summary>Evidence</summary><table><tr><th scope=\"col\">number</th>"
                   "<th scope=\"col\">value</th></tr>");
            for (size_t k = 0; k < f->evidence_count; k++) {
                put(w, "<tr><td><code>");
                esc(w, f->evidence[k].key);
                if (isfinite(f->evidence[k].value))
                    putf(w, "</code></td><td class=\"n\">%.6g</td></tr>", f->evidence[k].value);
                else
                    put(w, "</code></td><td class=\"n\">n/a</td></tr>");
            }
            put(w, "</table></details>");
        }
        put(w, "</li>");
    }
    put(w, "</ol></section>\n");
}

static void write_steps(hw *w, const gpudiag_report *r, size_t max_steps)
{
    put(w, "<section aria-labelledby=\"h-steps\"><h2 id=\"h-steps\">Step time breakdown</h2>");
    if (r->step_count == 0) {
        put(w, "<p>No steps: the trace has no host activity to break down.</p></section>\n");
        return;
    }
    size_t shown = r->step_count < max_steps ? r->step_count : max_steps;
    double longest = 0;
    for (size_t i = 0; i < r->step_count; i++)
        if (r->steps[i].duration_us > longest)
            longest = r->steps[i].duration_us;
    if (!(longest > 0))
        longest = 1;
    const double row = 22, top = 6;
    double height = top + row * (double)shown + 30;
    char b[64], b2[64];
    (void)chart_open(w, height, "Step time by category, one bar per step",
                     "Each bar is one training step; its segments are the time of each category of the "
                     "PyTorch profiler's step breakdown (kernel, memcpy, memset, communication, runtime, "
                     "dataloader, CPU execution, other). The data table below lists the values.");
    for (size_t k = 0; k < shown; k++) {
        /* cppcheck-suppress knownConditionTrueFalse ; shown <= step_count and equal when every step is drawn; cppcheck mis-tracks shown */
        size_t i = shown == r->step_count ? k : k * (r->step_count - 1) / (shown > 1 ? shown - 1 : 1);
        const gpudiag_step *s = &r->steps[i];
        double y = top + row * (double)k;
        if (s->number >= 0)
            putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">step %lld</text>", LABEL_W - 8, y + 14,
                 (long long)s->number);
        else
            putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">whole trace</text>", LABEL_W - 8, y + 14);
        double x = LABEL_W;
        for (int ro = 0; ro < GPUDIAG_ROLE_COUNT; ro++) {
            double v = s->role_us[ro];
            if (!(v > 0))
                continue;
            double wd = PLOT_W * v / longest;
            const char *rn = gpudiag_role_name((gpudiag_role)ro);
            putf(w, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" style=\"fill:var(--r-%s)\"><title>",
                 x, y + 2, wd, row - 5, rn);
            esc_name(w, rn);
            putf(w, ": %s (%s of the step)</title></rect>", fmt_us(b, sizeof b, v),
                 fmt_pct(b2, sizeof b2, s->duration_us > 0 ? v / s->duration_us : NAN));
            if (wd >= 30)
                putf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" aria-hidden=\"true\" "
                        "style=\"fill:#000;font-size:10px\">%s</text>",
                     x + wd / 2, y + 14, ROLE_ABBR[ro]);
            x += wd;
        }
        putf(w, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x + 6, y + 14, fmt_us(b, sizeof b, s->duration_us));
    }
    time_axis(w, LABEL_W, PLOT_W, top + row * (double)shown + 4, longest, top);
    char cap[256];
    snprintf(cap, sizeof cap, "%zu of %zu steps drawn%s; segment labels: K kernel, Mc memcpy, Ms memset, Comm "
             "communication, RT runtime, DL dataloader, CPU CPU execution, O other.",
             /* cppcheck-suppress knownConditionTrueFalse ; fewer steps are drawn than there are when there are many */
             shown, r->step_count, shown < r->step_count ? " (evenly chosen)" : "");
    chart_close(w, cap);
    put(w, "<ul class=\"legend\">");
    for (int ro = 0; ro < GPUDIAG_ROLE_COUNT; ro++) {
        char fill[48];
        snprintf(fill, sizeof fill, "var(--r-%s)", gpudiag_role_name((gpudiag_role)ro));
        legend_swatch(w, fill, gpudiag_role_name((gpudiag_role)ro));
    }
    put(w, "</ul><details><summary>Data table: breakdown per step</summary><table><tr><th scope=\"col\">step</th>"
           "<th scope=\"col\">duration</th>");
    for (int ro = 0; ro < GPUDIAG_ROLE_COUNT; ro++) {
        put(w, "<th scope=\"col\">");
        esc_name(w, gpudiag_role_name((gpudiag_role)ro));
        put(w, "</th>");
    }
    put(w, "</tr>");
    for (size_t i = 0; i < r->step_count; i++) {
        const gpudiag_step *s = &r->steps[i];
        if (s->number >= 0)
            putf(w, "<tr><td>%lld</td>", (long long)s->number);
        else
            put(w, "<tr><td>whole trace</td>");
        putf(w, "<td class=\"n\">%s</td>", fmt_us(b, sizeof b, s->duration_us));
        for (int ro = 0; ro < GPUDIAG_ROLE_COUNT; ro++)
            putf(w, "<td class=\"n\">%s</td>", fmt_us(b, sizeof b, s->role_us[ro]));
        put(w, "</tr>");
    }
    put(w, "</table></details></section>\n");
}

/* A step-shaped area: bins of `v` (0..full, stacked on `lo` when given) drawn as
 * heights up to h above base; runs of equal height become one segment. */
static double area_y(const double *lo, const double *v, size_t i, double full, double base, double h)
{
    return base - h * ((lo ? lo[i] : 0) + (v ? v[i] : 0)) / full;
}

static void area_edge(hw *w, const double *lo, const double *v, size_t n, double full, double x0, double bw,
                      double base, double h, int reverse)
{
    double prev = NAN;
    for (size_t k = 0; k < n; k++) {
        size_t i = reverse ? n - 1 - k : k;
        double y = area_y(lo, v, i, full, base, h);
        double x = x0 + bw * (double)(reverse ? i + 1 : i);
        if (k == 0)
            putf(w, "%.2f,%.2f ", x, y);
        else if (fabs(y - prev) > 0.005)
            putf(w, "%.2f,%.2f %.2f,%.2f ", x, prev, x, y);
        prev = y;
    }
    putf(w, "%.2f,%.2f ", x0 + bw * (double)(reverse ? 0 : n), prev);
}

static void area_path(hw *w, const double *lo, const double *v, size_t n, double full, double x0, double bw,
                      double base, double h)
{
    put(w, "M");
    area_edge(w, lo, v, n, full, x0, bw, base, h, 0);
    area_edge(w, lo, NULL, n, full, x0, bw, base, h, 1);
    put(w, "Z");
}

static double sum(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; v && i < n; i++)
        s += v[i];
    return s;
}

/* The memory timeline of GPU `device` when it has bins on the timeline's axis, else NULL. */
static const gpudiag_memory_device *timeline_memory(const gpudiag_report *r, int device)
{
    for (size_t i = 0; r->memory && i < r->memory->device_count; i++) {
        const gpudiag_memory_device *md = &r->memory->devices[i];
        if (md->id == device && md->bins == r->timeline.bins && md->bins)
            return md;
    }
    return NULL;
}

/* One GPU's memory row under its idle row (DEFINITIONS "Memory timeline", chart): the highest
 * allocated level per bin as an area, the reserved level as a dashed line, both scaled to the
 * highest level drawn; the titles give the peaks and the device's memory. */
static void memory_row(hw *w, const gpudiag_memory_device *md, const gpudiag_timeline *tl, double y, double row,
                       double bw)
{
    double *v = malloc(md->bins * sizeof *v);
    double *res = md->reserved_max ? malloc(md->bins * sizeof *res) : NULL;
    if (!v || (md->reserved_max && !res)) {
        free(v);
        free(res);
        return;
    }
    double top = 0;
    for (size_t i = 0; i < md->bins; i++) {
        v[i] = isnan(md->allocated_max[i]) ? 0 : md->allocated_max[i];
        if (res)
            res[i] = isnan(md->reserved_max[i]) ? 0 : md->reserved_max[i];
        top = fmax(top, fmax(v[i], res ? res[i] : 0));
    }
    double full = top; /* the curve's shape; the total is in the titles (a 2 GB curve on an 80 GB scale is flat) */
    char b[64], b2[64];
    if (full > 0) {
        putf(w, "<g><line class=\"axis\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", LABEL_W, y + row,
             LABEL_W + PLOT_W, y + row);
        put(w, "<path class=\"mem\" d=\"");
        area_path(w, NULL, v, md->bins, full, LABEL_W, bw, y + row, row);
        putf(w, "\"><title>GPU %d allocated%s: peak %s of %s</title></path>", md->id,
             md->has_totals ? "" : " (from 0 at the first event: a lower bound)",
             gd_format_bytes(b, sizeof b, md->peak_allocated_bytes),
             md->total_bytes > 0 ? gd_format_bytes(b2, sizeof b2, md->total_bytes) : "the highest level");
        if (res) {
            put(w, "<path class=\"memres\" d=\"M");
            area_edge(w, NULL, res, md->bins, full, LABEL_W, bw, y + row, row, 0);
            putf(w, "\"><title>GPU %d reserved: peak %s</title></path>", md->id,
                 gd_format_bytes(b, sizeof b, md->peak_reserved_bytes));
        }
        putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">memory, to peak</text></g>", LABEL_W - 8,
             y + 18);
    }
    (void)tl;
    free(v);
    free(res);
}

static void write_timeline(hw *w, const gpudiag_report *r)
{
    const gpudiag_timeline *tl = &r->timeline;
    put(w, "<section aria-labelledby=\"h-timeline\"><h2 id=\"h-timeline\">GPU timeline</h2>");
    if (!tl->bins || tl->device_count == 0) {
        put(w, "<p>No GPU activity inside the steps: nothing to draw.</p></section>\n");
        return;
    }
    const double row = 26, gap = 8, top = 18;
    size_t rows = tl->lane_count + 2 * tl->device_count;
    for (size_t d = 0; d < tl->device_count; d++)
        rows += timeline_memory(r, tl->devices[d].device) != NULL;
    double height = top + (row + 2) * (double)rows + gap * (double)tl->device_count + 34;
    double range_us = ns_to_us(tl->end_ns - tl->start_ns);
    double bw = PLOT_W / (double)tl->bins;
    char b[64], b2[64];
    put(w, "<p>Each stream's row is filled to the share of each time bin that it was busy; "
           "the <em>idle</em> row of each GPU shows the time no stream of it was busy, stacked by cause "
           "(pattern and colour). Dashed lines mark step starts.</p>");
    char desc[256];
    snprintf(desc, sizeof desc, "Timeline of the steps span (%s) in %zu bins of %s: busy share per stream and "
             "device-idle time by cause per GPU.", fmt_us(b, sizeof b, range_us), tl->bins,
             fmt_us(b2, sizeof b2, tl->bin_us));
    (void)chart_open(w, height, "GPU activity per stream and idle time by cause over the steps", desc);
    /* step starts */
    double plot_bottom = height - 34;
    size_t every = r->step_count > 40 ? (r->step_count + 39) / 40 : 1;
    for (size_t i = 0; i < r->step_count; i++) {
        double x = LABEL_W + PLOT_W * (double)(r->steps[i].start_ns - tl->start_ns) / NS_PER_US / range_us;
        putf(w, "<line class=\"stepline\" x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.1f\"/>", x, top - 4, x,
             plot_bottom);
        if (r->steps[i].number >= 0 && i % every == 0)
            putf(w, "<text x=\"%.2f\" y=\"%.0f\" style=\"font-size:10px\">%lld</text>", x + 2, top - 6,
                 (long long)r->steps[i].number);
    }
    double y = top;
    size_t lane = 0;
    for (size_t d = 0; d < tl->device_count; d++) {
        const gpudiag_timeline_device *td = &tl->devices[d];
        putf(w, "<g><text x=\"4\" y=\"%.1f\" style=\"font-weight:600\">GPU %d</text>", y + 16, td->device);
        putf(w, "<path class=\"busy\" d=\"");
        area_path(w, NULL, td->busy_us, tl->bins, tl->bin_us, LABEL_W, bw, y + row, row);
        putf(w, "\"><title>GPU %d, any stream: busy %s of the steps span</title></path>", td->device,
             fmt_pct(b, sizeof b, sum(td->busy_us, tl->bins) / range_us));
        putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">all streams</text></g>", LABEL_W - 8, y + 18);
        y += row + 2;
        for (; lane < tl->lane_count && tl->lanes[lane].device == td->device; lane++) {
            const gpudiag_timeline_lane *l = &tl->lanes[lane];
            putf(w, "<g><line class=\"axis\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", LABEL_W, y + row,
                 LABEL_W + PLOT_W, y + row);
            put(w, "<path class=\"busy\" style=\"opacity:.75\" d=\"");
            area_path(w, NULL, l->busy_us, tl->bins, tl->bin_us, LABEL_W, bw, y + row, row);
            putf(w, "\"><title>GPU %d stream %d: busy %s of the steps span</title></path>", l->device, l->stream,
                 fmt_pct(b, sizeof b, sum(l->busy_us, tl->bins) / range_us));
            putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">stream %d</text></g>", LABEL_W - 8, y + 18,
                 l->stream);
            y += row + 2;
        }
        /* idle by cause, stacked */
        double *acc = calloc(tl->bins, sizeof *acc);
        put(w, "<g>");
        for (int c = 0; acc && c < GPUDIAG_IDLE_CAUSE_COUNT; c++) {
            const double *v = td->idle_us[c];
            double tot = sum(v, tl->bins);
            if (!(tot > 0))
                continue;
            const char *cn = gpudiag_idle_cause_name((gpudiag_idle_cause)c);
            putf(w, "<path style=\"fill:url(#p-%s)\" d=\"", cn);
            area_path(w, acc, v, tl->bins, tl->bin_us, LABEL_W, bw, y + row, row);
            putf(w, "\"><title>GPU %d idle, ", td->device);
            esc_name(w, cn);
            putf(w, ": %s</title></path>", fmt_us(b, sizeof b, tot));
            for (size_t i = 0; i < tl->bins; i++)
                acc[i] += v[i];
        }
        free(acc);
        putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">idle, by cause</text></g>", LABEL_W - 8, y + 18);
        const gpudiag_memory_device *md = timeline_memory(r, td->device);
        if (md) {
            y += row + 2;
            memory_row(w, md, tl, y, row, bw);
        }
        y += row + 2 + gap;
    }
    time_axis(w, LABEL_W, PLOT_W, plot_bottom, range_us, plot_bottom);
    chart_close(w, "Time from the first step's start. Hover a row for its totals; the idle causes are "
                   "listed with their patterns below.");
    put(w, "<ul class=\"legend\">");
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++) {
        char fill[48];
        snprintf(fill, sizeof fill, "url(#p-%s)", gpudiag_idle_cause_name((gpudiag_idle_cause)c));
        legend_swatch(w, fill, gpudiag_idle_cause_name((gpudiag_idle_cause)c));
    }
    put(w, "</ul></section>\n");
}

static void write_idle(hw *w, const gpudiag_report *r)
{
    char b[64], b2[64];
    put(w, "<section aria-labelledby=\"h-idle\"><h2 id=\"h-idle\">Idle time by cause</h2>");
    if (!r->has_gpu || r->step_count == 0 || !(r->idle_gap_us > 0)) {
        put(w, "<p>No device-idle time inside the steps.</p></section>\n");
        return;
    }
    double maxv = 0;
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++)
        if (r->idle_cause_us[c] > maxv)
            maxv = r->idle_cause_us[c];
    const double row = 26, top = 4;
    double height = top + row * GPUDIAG_IDLE_CAUSE_COUNT + 6;
    double steps = (double)r->step_count;
    snprintf(b2, sizeof b2, "%llu", (unsigned long long)r->idle_gap_count);
    char desc[320];
    snprintf(desc, sizeof desc, "Device-idle time inside the steps, %s in %s gaps, split by what the host was "
             "doing; values are per step.", fmt_us(b, sizeof b, r->idle_gap_us / steps), b2);
    (void)chart_open(w, height, "GPU idle time per step by cause", desc);
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++) {
        double v = r->idle_cause_us[c];
        const char *cn = gpudiag_idle_cause_name((gpudiag_idle_cause)c);
        double y = top + row * c;
        put(w, "<g><text x=\"");
        putf(w, "%.0f\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8, y + 17);
        esc_name(w, cn);
        put(w, "</text>");
        double wd = maxv > 0 ? PLOT_W * v / maxv : 0;
        putf(w, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" style=\"fill:url(#p-%s)\"><title>", LABEL_W,
             y + 3, wd, row - 6, cn);
        esc_name(w, cn);
        putf(w, ": %s per step</title></rect>", fmt_us(b, sizeof b, v / steps));
        putf(w, "<text x=\"%.1f\" y=\"%.1f\">%s/step (%s of step)</text></g>", LABEL_W + wd + 6, y + 17,
             fmt_us(b, sizeof b, v / steps),
             fmt_pct(b2, sizeof b2, r->idle_step_us > 0 ? v / steps / (r->timeline.device_count ? (double)r->timeline.device_count : 1.0) / r->idle_step_us : NAN));
    }
    chart_close(w, "Causes (docs/DEFINITIONS.md): sync = a host sync call was waiting; dataloader = the host was "
                   "fetching data; communication = a collective call; optimizer = Optimizer.step; host launch = "
                   "the host was busy elsewhere; other = no host activity recorded.");
    if (r->top_gap_count) {
        put(w, "<details><summary>Longest gaps</summary><table><tr><th scope=\"col\">start (trace clock)</th>"
               "<th scope=\"col\">duration</th><th scope=\"col\">GPU</th><th scope=\"col\">step</th>"
               "<th scope=\"col\">cause</th><th scope=\"col\">host op at the start</th></tr>");
        for (size_t i = 0; i < r->top_gap_count; i++) {
            const gpudiag_gap *g = &r->top_gaps[i];
            putf(w, "<tr><td class=\"n\">%.3f \xC2\xB5s</td><td class=\"n\">%s</td><td>%d</td><td>", g->start_us,
                 fmt_us(b, sizeof b, g->duration_us), g->device);
            if (g->step >= 0)
                putf(w, "%lld", (long long)g->step);
            put(w, "</td><td>");
            esc_name(w, gpudiag_idle_cause_name(g->cause));
            put(w, "</td><td><code>");
            esc(w, g->cpu_op);
            put(w, "</code></td></tr>");
        }
        put(w, "</table></details>");
    }
    put(w, "</section>\n");
}

/* ---- monitoring series -------------------------------------------------------- */

#define SERIES_CHARTS 16

/* One indicator as a path over the chart's buckets, broken where it is NaN. */
static void series_line(hw *w, const gpudiag_gpu_chart *ch, const double *v, const char *cls, double x0,
                        double pw, double y0, double ph, double range_us)
{
    int pen = 0, any = 0;
    for (size_t i = 0; i < ch->points; i++) {
        if (isnan(v[i]) || isnan(ch->t_us[i])) {
            pen = 0;
            continue;
        }
        double f = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i];
        double x = x0 + (range_us > 0 ? pw * ch->t_us[i] / range_us : pw / 2);
        double y = y0 + ph * (1 - f);
        if (!any)
            putf(w, "<path class=\"ind %s\" d=\"", cls);
        putf(w, "%s%.1f,%.1f ", pen ? "L" : "M", x, y);
        pen = any = 1;
    }
    if (any)
        put(w, "\"/>");
}

static void legend_line(hw *w, const char *cls, const char *label)
{
    putf(w, "<li><svg width=\"28\" height=\"10\" aria-hidden=\"true\"><line class=\"ind %s\" x1=\"0\" y1=\"5\" "
            "x2=\"28\" y2=\"5\"/></svg>", cls);
    esc(w, label);
    put(w, "</li>");
}

/* A value of metric m for the statistics table. */
static const char *fmt_metric(char *b, size_t n, gpudiag_metric m, double v)
{
    const char *unit = gpudiag_metric_unit(m);
    if (!isfinite(v))
        snprintf(b, n, "n/a");
    else if (strcmp(unit, "fraction") == 0)
        snprintf(b, n, "%.1f%%", 100 * v);
    else if (strcmp(unit, "bytes") == 0)
        snprintf(b, n, "%.2f GB", v / 1e9);
    else if (strcmp(unit, "bytes/s") == 0)
    {
        char g[32];
        snprintf(b, n, "%s GB/s", gd_format_sig3(g, sizeof g, v / 1e9));
    }
    else if (strcmp(unit, "bitmask") == 0)
        snprintf(b, n, "0x%llx", (unsigned long long)v);
    else
        snprintf(b, n, "%.4g %s", v, unit);
    return b;
}

static void write_series_gpu_chart(hw *w, const gpudiag_gpu_summary *g, const char *label)
{
    const gpudiag_gpu_chart *ch = &g->chart;
    const double top = 12, ph = 150, height = top + ph + 36, x0 = 60, pw = VIEW_W - x0 - 20;
    double range = ch->points ? ch->t_us[ch->points - 1] : 0;
    char title[300], desc[400], b1[32], b2[32];
    const char *cm = g->compute_metric < GPUDIAG_M_COUNT ? gpudiag_metric_name(g->compute_metric) : "none";
    const char *bm = g->bandwidth_metric < GPUDIAG_M_COUNT ? gpudiag_metric_name(g->bandwidth_metric) : "none";
    const gpudiag_metric_stats *cs = g->compute_metric < GPUDIAG_M_COUNT ? &g->stats[g->compute_metric] : NULL;
    snprintf(title, sizeof title, "%s: compute, bandwidth and memory over time", label);
    snprintf(desc, sizeof desc,
             "Compute indicator %s (median %s), bandwidth indicator %s, memory used share; %zu sample%s over %s; "
             "shaded where compute averaged below 30%%.",
             cm, cs ? fmt_pct(b1, sizeof b1, cs->median) : "n/a", bm, g->samples, gd_plural(g->samples), fmt_us(b2, sizeof b2, range));
    chart_open(w, height, title, desc);
    for (int k = 0; k <= 4; k++) { /* y grid: 0, 25, ... 100 % */
        double y = top + ph * (1 - k / 4.0);
        putf(w, "<line class=\"%s\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", k ? "grid" : "axis", x0, y,
             x0 + pw, y);
        putf(w, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>", x0 - 6, y + 4, 25 * k);
    }
    /* low-utilisation bands: runs of buckets whose mean compute < 30 %, each
     * bucket spanning halfway to its neighbours */
    for (size_t i = 0; range > 0 && i < ch->points;) {
        if (!(ch->compute[i] < 0.30)) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < ch->points && ch->compute[j + 1] < 0.30)
            j++;
        double a = i ? (ch->t_us[i - 1] + ch->t_us[i]) / 2 : 0;
        double z = j + 1 < ch->points ? (ch->t_us[j] + ch->t_us[j + 1]) / 2 : range;
        putf(w, "<rect class=\"lowband\" x=\"%.1f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\"><title>",
             x0 + pw * a / range, top, pw * (z - a) / range > 0.5 ? pw * (z - a) / range : 0.5, ph);
        putf(w, "compute below 30%% from %s", fmt_us(b1, sizeof b1, a));
        putf(w, " to %s</title></rect>", fmt_us(b2, sizeof b2, z));
        i = j + 1;
    }
    series_line(w, ch, ch->mem_share, "ind-mem", x0, pw, top, ph, range);
    series_line(w, ch, ch->bandwidth, "ind-bw", x0, pw, top, ph, range);
    if (g->samples > ch->points)
        series_line(w, ch, ch->compute_min, "ind-min", x0, pw, top, ph, range);
    series_line(w, ch, ch->compute, "ind-compute", x0, pw, top, ph, range);
    if (range > 0)
        time_axis(w, x0, pw, top + ph, range, top + ph);
    chart_close(w, g->samples > ch->points ? "Each point is the mean of the samples in an equal-time bucket; the "
                                             "dotted line is the lowest sample in the bucket."
                                           : "One point per sample.");
}

static void write_series_gpu_table(hw *w, const gpudiag_gpu_summary *g)
{
    char b[8][40];
    put(w, "<details><summary>Statistics per metric</summary><table><tr><th scope=\"col\">metric</th>"
           "<th scope=\"col\">mean</th><th scope=\"col\">median</th><th scope=\"col\">p10</th>"
           "<th scope=\"col\">p90</th><th scope=\"col\">min</th><th scope=\"col\">max</th>"
           "<th scope=\"col\">under 30%</th><th scope=\"col\">samples</th></tr>");
    for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
        const gpudiag_metric_stats *st = &g->stats[m];
        if (!st->n)
            continue;
        gpudiag_metric mm = (gpudiag_metric)m;
        put(w, "<tr><td><code>");
        esc(w, gpudiag_metric_name(mm));
        putf(w, "</code></td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%zu</td></tr>",
             fmt_metric(b[0], 40, mm, st->mean), fmt_metric(b[1], 40, mm, st->median),
             fmt_metric(b[2], 40, mm, st->p10), fmt_metric(b[3], 40, mm, st->p90), fmt_metric(b[4], 40, mm, st->min),
             fmt_metric(b[5], 40, mm, st->max), isfinite(st->low_share) ? fmt_pct(b[6], 40, st->low_share) : "",
             st->n);
    }
    put(w, "</table></details>");
}

static void write_series(hw *w, const gpudiag_report *r)
{
    const gpudiag_series_summary *s = r->series;
    char b1[64], b2[64], counts[96], assumed[96];
    put(w, "<section aria-labelledby=\"h-series\"><h2 id=\"h-series\">GPUs over time</h2>");
    put(w, "<p class=\"muted\">From a <code>");
    esc(w, s->format);
    gd_series_samples_phrase(s, counts, sizeof counts);
    gd_series_assumed_phrase(s, assumed, sizeof assumed);
    putf(w, "</code> log: %s%s%s%s. Three indicators on one time axis: compute (SM active "
            "where present, else GPU-Util), bandwidth (DRAM active, else memory-controller util) and memory "
            "used; common health targets for training: compute median &ge; 70%%, p10 &ge; 40%%, under 30%% less "
            "than 10%% of the time.</p>",
         counts, *assumed ? " (no timestamps: " : "", assumed, *assumed ? ")" : "");
    if (s->snapshot)
        put(w, "<p>A snapshot (one sample per GPU): no time series to chart.</p>");
    for (size_t i = 0; i < s->gpu_count; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        char label[200];
        gd_series_entity_label(g, label, sizeof label); /* as the text report: "GPU 1 GI 3", dcgmi's "GPU-I 0" */
        put(w, "<h3>");
        esc(w, label);
        if (g->name[0]) {
            put(w, ": ");
            esc(w, g->name);
        }
        if (g->mig_profile[0]) {
            put(w, " [");
            esc(w, g->mig_profile);
            put(w, "]");
        }
        if (g->hostname[0]) {
            put(w, " on ");
            esc(w, g->hostname);
        }
        put(w, "</h3>");
        if (g->pod[0]) { /* the Kubernetes owner (dcgm-exporter --kubernetes labels) */
            put(w, "<p class=\"pod\">Pod <code>");
            if (g->k8s_namespace[0]) {
                esc(w, g->k8s_namespace);
                put(w, "/");
            }
            esc(w, g->pod);
            put(w, "</code>");
            if (g->container[0]) {
                put(w, ", container <code>");
                esc(w, g->container);
                put(w, "</code>");
            }
            if (g->pod_changes)
                putf(w, " (the pod changed %d time%s during the log: the last one is shown)", g->pod_changes,
                     gd_plural((unsigned long long)g->pod_changes));
            put(w, "</p>");
        }
        put(w, "<p>");
        if (g->idle_holding_memory)
            put(w, "<strong>Idle, holding memory.</strong> ");
        else if (!g->in_use)
            put(w, g->compute_metric < GPUDIAG_M_COUNT ? "Idle. " : "No utilisation data. ");
        put(w, "Memory ");
        esc(w, g->memory_level ? g->memory_level : "n/a");
        const gpudiag_metric_stats *mu = &g->stats[GPUDIAG_M_MEM_USED_BYTES];
        if (isnan(g->mem_used_share) && mu->n) /* used without a total (dmon fb): as the text report says */
            putf(w, " (%.1f GiB used, total unknown)", mu->median / 1073741824.0);
        else
            putf(w, " (%s used%s)", fmt_pct(b1, sizeof b1, g->mem_used_share),
                 g->mem_total_from_spec ? " of the GPU table's total" : "");
        put(w, ", compute ");
        esc(w, g->compute_level ? g->compute_level : "n/a");
        put(w, ", bandwidth ");
        esc(w, g->bandwidth_level ? g->bandwidth_level : "n/a");
        put(w, " &rarr; <strong>");
        esc_name(w, gpudiag_bottleneck_name(g->bottleneck));
        put(w, "</strong>");
        if (g->pipeline) {
            put(w, " (pipeline: ");
            esc_name(w, g->pipeline);
            put(w, ")");
        }
        if (isfinite(g->dip_period_us))
            putf(w, "; dips repeat every %s", fmt_us(b1, sizeof b1, g->dip_period_us));
        if (isfinite(g->throttle_share) && g->throttle_share > 0)
            putf(w, "; clocks held down %s of the time", fmt_pct(b2, sizeof b2, g->throttle_share));
        if (g->pcie_degraded == 1)
            put(w, "; PCIe link below its maximum under load");
        put(w, ".</p>");
        if (!s->snapshot && i < SERIES_CHARTS && g->chart.points > 1)
            write_series_gpu_chart(w, g, label);
        write_series_gpu_table(w, g);
    }
    if (!s->snapshot && s->gpu_count > SERIES_CHARTS)
        putf(w, "<p class=\"muted\">Charts for the first %d GPUs; the JSON report has every GPU.</p>", SERIES_CHARTS);
    put(w, "<ul class=\"legend\" aria-label=\"chart legend\">");
    legend_line(w, "ind-compute", "compute (mean per bucket)");
    legend_line(w, "ind-min", "compute, lowest sample");
    legend_line(w, "ind-bw", "bandwidth");
    legend_line(w, "ind-mem", "memory used / total");
    put(w, "<li><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><rect class=\"lowband\" width=\"14\" "
           "height=\"14\"/></svg>compute below 30%</li></ul></section>\n");
}

static void write_kernels(hw *w, const gpudiag_report *r)
{
    char b[64], b2[64];
    put(w, "<section aria-labelledby=\"h-kernels\"><h2 id=\"h-kernels\">Kernel time by class</h2>");
    if (!(r->kernel_time_us > 0)) {
        put(w, "<p>No kernels.</p></section>\n");
        return;
    }
    double tc[GPUDIAG_KCLASS_COUNT] = {0};
    for (size_t i = 0; i < r->kernel_stat_count; i++) {
        const gpudiag_kernel_stat *k = &r->kernel_stats[i];
        if (k->tensor_core && (unsigned)k->cls < GPUDIAG_KCLASS_COUNT)
            tc[k->cls] += k->total_us;
    }
    int order[GPUDIAG_KCLASS_COUNT] = {0}, n = 0;
    for (int i = 0; i < GPUDIAG_KCLASS_COUNT; i++) /* by time, longest first */
        if (r->class_time_us[r->class_order[i]] > 0)
            order[n++] = (int)r->class_order[i];
    double maxv = n ? r->class_time_us[order[0]] : 1;
    const double row = 26, top = 4;
    const char *unit = r->is_amd ? "Matrix Core" : "Tensor Core";
    char desc[256];
    snprintf(desc, sizeof desc, "Summed kernel time per class; the hatched part of each bar ran on %ss "
             "(%s of GEMM, convolution and attention time).", unit,
             fmt_pct(b, sizeof b, r->matmul_tensor_core_share));
    (void)chart_open(w, top + row * n + 6, "Kernel time by class with the Tensor Core share", desc);
    for (int i = 0; i < n; i++) {
        int c = order[i];
        double v = r->class_time_us[c], y = top + row * i;
        const char *cn = gpudiag_kernel_class_name((gpudiag_kernel_class)c);
        double wd = PLOT_W * v / maxv, wtc = PLOT_W * tc[c] / maxv;
        putf(w, "<g><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8, y + 17);
        esc_name(w, cn);
        putf(w, "</text><rect class=\"notc\" x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\"><title>", LABEL_W,
             y + 3, wd, row - 6);
        esc_name(w, cn);
        putf(w, ": %s (%s of kernel time)</title></rect>", fmt_us(b, sizeof b, v),
             fmt_pct(b2, sizeof b2, r->class_share[c]));
        if (wtc > 0) {
            putf(w, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" style=\"fill:url(#p-tc)\"><title>",
                 LABEL_W, y + 3, wtc, row - 6);
            esc_name(w, cn);
            putf(w, " on %ss: %s</title></rect>", unit, fmt_us(b, sizeof b, tc[c]));
        }
        putf(w, "<text x=\"%.1f\" y=\"%.1f\">%s (%s)", LABEL_W + wd + 6, y + 17, fmt_us(b, sizeof b, v),
             fmt_pct(b2, sizeof b2, r->class_share[c]));
        if (tc[c] > 0)
            putf(w, ", %s %s", fmt_pct(b, sizeof b, tc[c] / v), unit);
        put(w, "</text></g>");
    }
    chart_close(w, "Plain part: other kernels of the class; hatched part: Tensor/Matrix Core kernels "
                   "(by kernel name, docs/DEFINITIONS.md).");
    put(w, "<ul class=\"legend\">");
    legend_swatch(w, "url(#p-tc)", r->is_amd ? "Matrix Core kernels (hatched)" : "Tensor Core kernels (hatched)");
    legend_swatch(w, "var(--notc)", "other kernels (plain)");
    put(w, "</ul>");
    size_t top_n = r->kernel_stat_count < TOP_KERNELS ? r->kernel_stat_count : TOP_KERNELS;
    putf(w, "<h3>Top %zu kernels by time</h3><table><tr><th scope=\"col\">kernel</th><th scope=\"col\">class</th>"
            "<th scope=\"col\">%s</th><th scope=\"col\">calls</th><th scope=\"col\">total</th>"
            "<th scope=\"col\">mean</th><th scope=\"col\">share</th></tr>",
         top_n, unit);
    /* cppcheck-suppress knownConditionTrueFalse ; top_n = min(kernel_stat_count, 15) may be >= 1; cppcheck assumes 0 kernels */
    for (size_t i = 0; i < top_n; i++) {
        const gpudiag_kernel_stat *k = &r->kernel_stats[i];
        put(w, "<tr><td><code>");
        esc(w, k->name);
        put(w, "</code></td><td>");
        esc_name(w, gpudiag_kernel_class_name(k->cls));
        putf(w, "</td><td>%s</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>", k->tensor_core ? "yes" : "no",
             (unsigned long long)k->calls, fmt_us(b, sizeof b, k->total_us));
        putf(w, "<td class=\"n\">%s</td><td class=\"n\">%s</td></tr>", fmt_us(b, sizeof b, k->mean_us),
             fmt_pct(b2, sizeof b2, k->share));
    }
    put(w, "</table></section>\n");
}

/* The roofline of the top kernels (docs/DEFINITIONS.md "Roofline of the kernels"):
 * log-log axes, one roof per dtype present (min(peak, I x bandwidth)), each
 * kernel with known intensity a numbered point with a <title>; the table
 * below names every kernel. */
static void write_roofline(hw *w, const gpudiag_report *r)
{
    const gpudiag_roofline *rl = r->roofline;
    if (!rl || !rl->kernel_count)
        return;
    char b[64], b2[64], b3[64];
    put(w, "<section aria-labelledby=\"h-roofline\"><h2 id=\"h-roofline\">Roofline of the top kernels</h2>");
    putf(w, "<p>%zu kernel names with known FLOPs cover %s of kernel time", rl->kernel_names,
         fmt_pct(b, sizeof b, rl->kernel_time_share));
    if (rl->gpu) {
        put(w, "; roofs of the ");
        esc(w, rl->gpu);
    }
    if (rl->ncu_path) {
        putf(w, "; %llu of %llu Nsight Compute rows from <code>", (unsigned long long)rl->ncu_matched,
             (unsigned long long)rl->ncu_rows);
        esc(w, rl->ncu_path);
        put(w, "</code> matched trace kernels");
    }
    put(w, ".</p>");
    double bw = rl->mem_bw_gbs;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t pts = 0;
    for (size_t i = 0; i < rl->kernel_count; i++) {
        const gpudiag_roofline_kernel *k = &rl->kernels[i];
        if (k->peak_tflops > 0 && k->ridge > 0) {
            xlo = fmin(xlo, k->ridge);
            xhi = fmax(xhi, k->ridge);
            yhi = fmax(yhi, k->peak_tflops);
        }
        if (!(k->intensity > 0) || !(k->achieved_tflops > 0))
            continue;
        pts++;
        xlo = fmin(xlo, k->intensity);
        xhi = fmax(xhi, k->intensity);
        ylo = fmin(ylo, k->achieved_tflops);
        yhi = fmax(yhi, k->achieved_tflops);
    }
    if (pts && bw > 0) {
        double lx0 = floor(log10(xlo)) - (log10(xlo) - floor(log10(xlo)) < 0.3 ? 1 : 0);
        double lx1 = ceil(log10(xhi)) + (ceil(log10(xhi)) - log10(xhi) < 0.3 ? 1 : 0);
        double ly0 = floor(log10(ylo)), ly1 = ceil(log10(yhi * 1.05));
        if (ly1 - ly0 < 2)
            ly0 = ly1 - 2;
        const double X0 = 70, PW = VIEW_W - X0 - 170, Y0 = 16, PH = 300, H = Y0 + PH + 40;
#define RX(v) (X0 + PW * (log10(v) - lx0) / (lx1 - lx0))
#define RY(v) (Y0 + PH - PH * (log10(v) - ly0) / (ly1 - ly0))
        char desc[320];
        snprintf(desc, sizeof desc,
                 "Log-log roofline: arithmetic intensity (FLOP per DRAM byte) across, achieved TFLOP/s up; "
                 "each roof is min(peak, intensity x %.0f GB/s) for one dtype; %zu kernels drawn as numbered points.",
                 bw, pts);
        (void)chart_open(w, H, "Roofline of the top kernels", desc);
        for (double e = lx0; e <= lx1 + 1e-9; e++) {
            double x = X0 + PW * (e - lx0) / (lx1 - lx0);
            putf(w, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, Y0, x, Y0 + PH);
            putf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>", x, Y0 + PH + 16, pow(10, e));
        }
        for (double e = ly0; e <= ly1 + 1e-9; e++) {
            double y = Y0 + PH - PH * (e - ly0) / (ly1 - ly0);
            putf(w, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", X0, y, X0 + PW, y);
            putf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>", X0 - 6, y + 4, pow(10, e));
        }
        putf(w, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", X0, Y0 + PH, X0 + PW,
             Y0 + PH);
        putf(w, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", X0, Y0, X0, Y0 + PH);
        putf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">FLOP per byte (log)</text>", X0 + PW / 2,
             Y0 + PH + 34);
        putf(w, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">TFLOP/s (log)</text>",
             Y0 + PH / 2, Y0 + PH / 2);
        /* one roof per dtype present (FP32 on AMD Matrix Cores is its own), in the kernels' order */
        const char *seen[GPUDIAG_ROOFLINE_TOP];
        int seen_m[GPUDIAG_ROOFLINE_TOP];
        size_t nseen = 0;
        for (size_t i = 0; i < rl->kernel_count; i++) {
            const gpudiag_roofline_kernel *k = &rl->kernels[i];
            if (!(k->peak_tflops > 0) || !(k->ridge > 0) || !k->dtype)
                continue;
            int dup = 0;
            for (size_t j = 0; j < nseen; j++)
                dup |= strcmp(seen[j], k->dtype) == 0 && seen_m[j] == k->matrix_peak;
            if (dup)
                continue;
            seen_m[nseen] = k->matrix_peak;
            seen[nseen++] = k->dtype;
            const char *mx = k->matrix_peak ? " matrix" : "";
            double xa = pow(10, lx0), xr = k->ridge, xb = pow(10, lx1);
            double ya = xa * bw / 1e3;
            if (ya < pow(10, ly0)) { /* the slope enters through the bottom edge */
                ya = pow(10, ly0);
                xa = ya * 1e3 / bw;
            }
            putf(w, "<g><title>%s%s roof: peak ", k->dtype, mx);
            putf(w, "%.1f TFLOP/s, ridge %.1f FLOP/B</title><path class=\"roof\" d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f\"/>",
                 k->peak_tflops, k->ridge, RX(xa), RY(ya), RX(xr), RY(k->peak_tflops), RX(xb), RY(k->peak_tflops));
            putf(w, "<text x=\"%.1f\" y=\"%.1f\">%s%s %.0f TFLOP/s</text></g>", RX(xb) + 4, RY(k->peak_tflops) + 4,
                 k->dtype, mx, k->peak_tflops);
        }
        for (size_t i = rl->kernel_count; i-- > 0;) {
            const gpudiag_roofline_kernel *k = &rl->kernels[i];
            if (!(k->intensity > 0) || !(k->achieved_tflops > 0))
                continue;
            double x = RX(k->intensity), y = RY(k->achieved_tflops);
            putf(w, "<g><title>#%zu ", i + 1);
            esc(w, k->name);
            putf(w, ": %s FLOP/B, %s TFLOP/s (%s of the %s%s peak), %s-bound</title>",
                 (snprintf(b, sizeof b, "%.1f", k->intensity), b), (snprintf(b2, sizeof b2, "%.2f", k->achieved_tflops), b2),
                 fmt_pct(b3, sizeof b3, k->peak_share), k->dtype ? k->dtype : "?", k->matrix_peak ? " matrix" : "",
                 k->bound ? k->bound : "unknown");
            putf(w, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>",
                 k->bound && strcmp(k->bound, "memory") == 0 ? "kmem" : "kcomp", x, y);
            putf(w, "<text x=\"%.1f\" y=\"%.1f\">%zu</text></g>", x + 7, y - 5, i + 1);
        }
#undef RX
#undef RY
        chart_close(w, "Filled circles: compute-bound kernels; open circles: memory-bound (intensity below the "
                       "ridge of their dtype). Numbers refer to the table below.");
    }
    put(w, "<table><tr><th scope=\"col\">#</th><th scope=\"col\">kernel</th><th scope=\"col\">calls</th>"
           "<th scope=\"col\">time</th><th scope=\"col\">FLOPs</th><th scope=\"col\">FLOP/B</th>"
           "<th scope=\"col\">TFLOP/s</th><th scope=\"col\">% of peak</th><th scope=\"col\">dtype</th>"
           "<th scope=\"col\">bound</th><th scope=\"col\">source</th></tr>");
    for (size_t i = 0; i < rl->kernel_count; i++) {
        const gpudiag_roofline_kernel *k = &rl->kernels[i];
        putf(w, "<tr><td class=\"n\">%zu</td><td><code>", i + 1);
        esc(w, k->name);
        putf(w, "</code></td><td class=\"n\">%llu</td><td class=\"n\">%s</td><td class=\"n\">%.4g</td>",
             (unsigned long long)k->calls, fmt_us(b, sizeof b, k->time_us), k->flops);
        if (isfinite(k->intensity))
            putf(w, "<td class=\"n\">%.1f</td>", k->intensity);
        else
            put(w, "<td class=\"n\">n/a</td>");
        if (isfinite(k->achieved_tflops))
            putf(w, "<td class=\"n\">%.2f</td>", k->achieved_tflops);
        else
            put(w, "<td class=\"n\">n/a</td>");
        putf(w, "<td class=\"n\">%s</td><td>%s%s</td><td>%s</td><td>", fmt_pct(b, sizeof b, k->peak_share),
             k->dtype ? k->dtype : "n/a", k->matrix_peak ? " matrix (MFMA)" : "", k->bound ? k->bound : "n/a");
        esc_name(w, k->source);
        put(w, "</td></tr>");
    }
    put(w, "</table></section>\n");
}

gpudiag_status gpudiag_report_write_html(const gpudiag_report *r, FILE *fp, const gpudiag_html_opts *opts,
                                         gpudiag_error *err)
{
    if (!r || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL report or stream");
    gpudiag_html_opts o = {NULL, 0};
    if (opts)
        o = *opts;
    if (o.max_steps == 0)
        o.max_steps = 120;
    hw w = {fp, 0, 0};
    write_head(&w, r, &o);
    write_verdict(&w, r);
    write_findings(&w, r);
    if (r->series) {
        write_series(&w, r);
    } else {
        write_steps(&w, r, o.max_steps);
        write_timeline(&w, r);
        write_idle(&w, r);
        write_kernels(&w, r);
        write_roofline(&w, r);
    }
    put(&w, "</main>\n<footer><p class=\"muted\">Definitions: docs/DEFINITIONS.md; findings: docs/FINDINGS.md; "
            "the same numbers as <code>gpudiag analyze --json</code>.</p></footer>\n</body></html>\n");
    if (w.io_error || ferror(fp))
        return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
    return GPUDIAG_OK;
}
