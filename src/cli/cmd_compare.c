/*
 * cmd_compare.c — `gpudiag compare BASE NEW` and `gpudiag compare --runs A... -- B...`:
 * load each side (trace, directory of rank traces, saved JSON report), compare,
 * print, and exit 1 when the gate metric regressed outside the noise.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/progress.h"
#include "gpudiag/compare.h"
#include "gpudiag/gpudiag.h"
#include "gpudiag/series.h"
#include "analyze/compare_side.h"
#include "ingest/formats.h"
#include "ingest/kineto.h"
#include "ingest/once.h"
#include "model/trace.h"
#include "util/util.h"

enum { OPT_METRIC = 200, OPT_THRESHOLD, OPT_ALPHA, OPT_FULL_NAMES, OPT_RUNS, OPT_JSON, OPT_NO_PROGRESS };

/* 0 with --no-progress: no bar while a trace file is read (README: the bar is
 * drawn on a terminal's stderr when reading takes over a second) */
static int show_progress = 1;

static const char *prog = "gpudiag";

void gd_usage_compare(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag compare [OPTIONS] BASE NEW\n"
            "       gpudiag compare [OPTIONS] --runs BASE1 BASE2 ... -- NEW1 NEW2 ...\n"
            "\n"
            "Did my change help, and did anything regress?  Compares a baseline with a change.\n"
            "Steps holding start-up, compilation or an unexplained idle tail (>= 10%% of the step)\n"
            "are left out of each side first, and named.  Then: step time (mean, median, p90)\n"
            "and throughput with a confidence statement from the per-step distributions\n"
            "(Mann-Whitney U test, bootstrap interval of the median difference), GPU utilization,\n"
            "breakdown categories, idle causes, MFU, findings that appeared, disappeared or\n"
            "changed, and a kernel-level diff (calls and time per kernel name, added and removed\n"
            "kernels, biggest movers).  Each side is a trace (.json, .json.gz), a directory of the\n"
            "rank traces of one job, or a report saved with 'gpudiag analyze --save FILE' (or\n"
            "--json).  With --runs, each side is several runs of the same setup: their run-to-run\n"
            "spread is reported and checked against the 5%%\n"
            "bar, and a change must exceed that spread to count.\n"
            "Two monitoring logs (nvidia-smi dmon / --query-gpu CSV, dcgmi dmon, dcgm-exporter\n"
            "text, plain or gzip) compare GPU util, SM active, tensor active, memory used and\n"
            "power: means, medians, and a U test over block means (samples a second apart are\n"
            "autocorrelated; the gate is GPU util, else SM active).  A log against a trace is\n"
            "refused (exit 2).\n"
            "\n"
            "Options:\n"
            "      --json            write the comparison (schema gpudiag.compare/1) to stdout\n"
            "      --metric M        the gate metric: step_time (mean, default), step_time_median,\n"
            "                        step_time_p90, throughput, gpu_utilization\n"
            "      --threshold T     relative change that counts: 0.05 or 5%% (default 5%%)\n"
            "      --alpha A         significance level of the U test (default 0.05)\n"
            "      --full-names      kernel diff by whole kernel names (default: HTA short names)\n"
            "      --runs            several runs per side, BASE runs, then '--', then NEW runs\n"
            "                        (a file named twice on one side is refused: a run counts once)\n"
            "      --no-progress     no progress bar while a trace file is read (drawn on a\n"
            "                        terminal's stderr when reading takes over a second)\n"
            "  -v, --verbose         list every kernel of the diff\n"
            "  -h, --help            show this help and exit\n"
            "\n"
            "Exit status: 0 no regression (improved, no change or inconclusive); 1 the metric\n"
            "regressed beyond --threshold and outside the noise; 2 usage error; 3 unreadable or\n"
            "malformed input; 5 internal error.\n"
            "\n"
            "Example (CI gate):\n"
            "  gpudiag compare --threshold 3%% base.pt.trace.json.gz new.pt.trace.json.gz\n");
}

static void print_err(const gpudiag_error *err)
{
    if (err->path[0] && err->offset >= 0)
        fprintf(stderr, "%s: error: %s: byte %lld: %s\n", prog, gd_tpath(err->path), (long long)err->offset,
                err->message);
    else if (err->path[0])
        fprintf(stderr, "%s: error: %s: %s\n", prog, gd_tpath(err->path), err->message);
    else
        fprintf(stderr, "%s: error: %s\n", prog, err->message);
}

static int code_for(gpudiag_status st)
{
    return st == GPUDIAG_ERR_IO || st == GPUDIAG_ERR_FORMAT ? GD_EXIT_INPUT : st == GPUDIAG_ERR_ARG ? GD_EXIT_USAGE : GD_EXIT_INTERNAL;
}

/* The analysis options of every trace compare reads. */
static void compare_opts(gpudiag_analyze_opts *ao)
{
    memset(ao, 0, sizeof *ao);
    ao->max_gaps = GPUDIAG_JSON_GAPS; /* compare reads totals, never every gap */
}

/* One trace's side, its tables over the steps compared (gpudiag_side_from_trace). */
static gpudiag_status side_from_trace(gpudiag_trace *t, gpudiag_side **out, gpudiag_error *err)
{
    gpudiag_analyze_opts ao;
    compare_opts(&ao);
    return gpudiag_side_from_trace(t, &ao, out, err);
}

/* Read one trace and make its side (side_from_trace). */
static int load_trace(const char *path, gpudiag_side **side)
{
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_trace *t = NULL;
    struct stat sb;
    uint64_t size = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
    gd_progress *bar = gd_progress_new(show_progress, 1, size);
    gpudiag_read_opts ro;
    memset(&ro, 0, sizeof ro);
    if (bar) {
        ro.progress = gd_progress_cb;
        ro.progress_ctx = gd_progress_slot_at(bar, 0);
    }
    gpudiag_status st = gpudiag_trace_read_opts(path, &ro, &t, &err);
    gd_progress_end(bar);
    if (st == GPUDIAG_OK)
        st = side_from_trace(t, side, &err);
    if (st == GPUDIAG_OK) /* a cut trace: analyze's warning, with the byte (DEFINITIONS "Comparing runs") */
        for (size_t i = 0; i < (*side)->nfind; i++)
            if (strcmp((*side)->find[i].id, "input_truncated") == 0)
                fprintf(stderr, "%s: warning: %s: byte %lld: %s\n", prog, gd_tpath(path),
                        (long long)t->truncated_at, (*side)->find[i].title);
    gpudiag_trace_free(&t);
    if (st != GPUDIAG_OK) {
        print_err(&err);
        return code_for(st);
    }
    return GD_EXIT_OK;
}


/* A directory of rank traces: one side, the job. */
static int load_dir(const char *dir, gpudiag_side **out)
{
    char **names = NULL;
    size_t n = 0;
    int rc = gd_list_trace_dir(dir, &names, &n);
    if (rc != GD_EXIT_OK)
        return rc;
    /* each rank's side with its tables over its kept steps (gpudiag_side_from_trace), then the job */
    gpudiag_side **sides = calloc(n, sizeof *sides);
    if (!sides)
        rc = GD_EXIT_INTERNAL;
    for (size_t i = 0; rc == GD_EXIT_OK && i < n; i++)
        rc = load_trace(names[i], &sides[i]);
    if (rc == GD_EXIT_OK && !(*out = gd_side_combine_ranks(sides, n, dir)))
        rc = GD_EXIT_INTERNAL;
    if (rc == GD_EXIT_INTERNAL)
        fprintf(stderr, "%s: error: out of memory\n", prog);
    for (size_t i = 0; i < n; i++) {
        if (sides)
            gpudiag_side_free(&sides[i]);
        free(names[i]);
    }
    free(sides);
    free(names);
    return rc;
}

/* 1 if the n bytes at head start a saved gpudiag report: plain JSON, or
 * gzip as --save FILE.json.gz writes it (its first decompressed bytes). */
static int head_saved(const unsigned char *head, size_t n)
{
    if (n < 2 || head[0] != 0x1f || head[1] != 0x8b)
        return gpudiag_side_sniff_json((const char *)head, n < 256 ? n : 256);
    unsigned char out[256];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)head;
    z.avail_in = (uInt)(n < (1u << 30) ? n : (1u << 30));
    z.next_out = out;
    z.avail_out = sizeof out;
    (void)inflate(&z, Z_SYNC_FLUSH); /* what came out before an error or the end of the head */
    size_t m = sizeof out - z.avail_out;
    inflateEnd(&z);
    return gpudiag_side_sniff_json((const char *)out, m);
}

/* 1 if the file starts like a saved gpudiag report (head_saved). */
static int looks_saved(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char head[4096];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return head_saved(head, n);
}

/* A side that can be read only once (a FIFO, /dev/stdin on a pipe, <(zcat ...)):
 * opened once, told apart by its head (a saved report, a trace; a monitoring
 * log or an Nsight export needs a file), read on from the same stream. */
static int load_once(const char *path, gpudiag_side **out)
{
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gd_once_in o;
    gpudiag_status st = gd_once_in_open(&o, path, &err);
    if (st == GPUDIAG_OK && gd_once_in_is_sqlite(&o))
        st = gd_set_error(&err, GPUDIAG_ERR_FORMAT, path, 0, "%s", GD_ONCE_SQLITE_MESSAGE);
    if (st == GPUDIAG_OK && gd_sniff_log_head(o.head, o.n) != GPUDIAG_LOG_AUTO) {
        gd_once_in_close(&o);
        fprintf(stderr, "%s: error: %s: a monitoring log from a pipe: compare reads the two logs from files (give "
                        "their paths)\n", prog, path);
        return GD_EXIT_USAGE;
    }
    if (st == GPUDIAG_OK && head_saved(o.head, o.n)) {
        st = gd_side_read_json_fp(o.fp, path, out, &err);
    } else if (st == GPUDIAG_OK) {
        gpudiag_trace *t = NULL;
        st = gd_trace_read_stream(o.fp, path, NULL, &t, &err);
        if (st == GPUDIAG_OK)
            st = side_from_trace(t, out, &err);
        gpudiag_trace_free(&t);
    }
    gd_once_in_close(&o);
    if (st != GPUDIAG_OK) {
        print_err(&err);
        return code_for(st);
    }
    return GD_EXIT_OK;
}

static int load_side(const char *path, gpudiag_side **out)
{
    if (path[0] == '\0') {
        fprintf(stderr, "%s: error: an empty file name was given\n", prog);
        return GD_EXIT_INPUT;
    }
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return load_dir(path, out);
    if (gd_path_read_once(path))
        return load_once(path, out);
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    if (strcmp(path, "-") != 0 && looks_saved(path)) {
        gpudiag_status st = gpudiag_side_read_json(path, out, &err);
        if (st != GPUDIAG_OK) {
            print_err(&err);
            return code_for(st);
        }
        return GD_EXIT_OK;
    }
    return load_trace(path, out);
}

/* 1 when `path` is a monitoring log (plain or gzip), by content as analyze routes it;
 * 0 for a trace, a saved report, an Nsight export, a directory, standard input. */
static int is_monlog(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    return gd_sniff_log_file(path) != GPUDIAG_LOG_AUTO;
}

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(fp, "\\u%04x", *p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.10g", v);
    else
        fputs("null", fp);
}

static const char *row_verdict(const gpudiag_series_compare_row *r)
{
    if (!r->base_n || !r->test_n)
        return "n/a";
    if (!r->higher_is_better && r->verdict != GPUDIAG_CMP_NO_CHANGE && r->changed)
        return "changed";
    return gpudiag_compare_verdict_name(r->verdict);
}

/* `gpudiag compare LOG LOG` */
static int compare_logs(const char *bpath, const char *tpath, const gpudiag_compare_opts *o, int json)
{
    gpudiag_series *b = NULL, *t = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_series_read(bpath, GPUDIAG_LOG_AUTO, &b, &err);
    if (st == GPUDIAG_OK)
        st = gpudiag_series_read(tpath, GPUDIAG_LOG_AUTO, &t, &err);
    gpudiag_series_comparison c;
    if (st == GPUDIAG_OK)
        st = gpudiag_series_compare(b, t, o, &c, &err);
    gpudiag_series_free(&b);
    gpudiag_series_free(&t);
    if (st != GPUDIAG_OK) {
        print_err(&err);
        return st == GPUDIAG_ERR_NOMEM ? GD_EXIT_INTERNAL : GD_EXIT_INPUT;
    }
    const char *gate = c.gate >= 0 ? gpudiag_metric_name((gpudiag_metric)c.rows[c.gate].metric) : NULL;
    if (json) {
        printf("{\n  \"schema\": \"gpudiag.compare-series/1\",\n  \"base\": ");
        json_str(stdout, bpath);
        printf(",\n  \"new\": ");
        json_str(stdout, tpath);
        printf(",\n  \"threshold\": ");
        json_num(stdout, c.threshold);
        printf(",\n  \"alpha\": ");
        json_num(stdout, c.alpha);
        printf(",\n  \"gate_metric\": ");
        if (gate)
            json_str(stdout, gate);
        else
            printf("null");
        printf(",\n  \"setup_differs\": {\"gpu_count\": %s, \"gpu_names\": %s}", c.setup_differs & 1 ? "true" : "false",
               c.setup_differs & 2 ? "true" : "false");
        printf(",\n  \"snapshot\": %s", c.snapshot == 3 ? "\"both\"" : c.snapshot == 2 ? "\"new\"" : c.snapshot == 1 ? "\"base\"" : "null");
        printf(",\n  \"verdict\": \"%s\",\n  \"metrics\": [", gpudiag_compare_verdict_name(c.verdict));
        for (size_t i = 0; i < c.row_count; i++) {
            const gpudiag_series_compare_row *r = &c.rows[i];
            printf("%s\n    {\"metric\": \"%s\", \"unit\": \"%s\", \"base_n\": %zu, \"new_n\": %zu, \"base_mean\": ",
                   i ? "," : "", gpudiag_metric_name((gpudiag_metric)r->metric),
                   gpudiag_metric_unit((gpudiag_metric)r->metric), r->base_n, r->test_n);
            json_num(stdout, r->base_mean);
            printf(", \"new_mean\": ");
            json_num(stdout, r->test_mean);
            printf(", \"base_median\": ");
            json_num(stdout, r->base_median);
            printf(", \"new_median\": ");
            json_num(stdout, r->test_median);
            printf(", \"change\": ");
            json_num(stdout, r->change);
            printf(", \"block_len\": %zu, \"base_blocks\": %zu, \"new_blocks\": %zu, \"mwu_p\": ", r->block_len,
                   r->base_blocks, r->test_blocks);
            json_num(stdout, r->mwu_p);
            printf(", \"mwu_p_samples\": ");
            json_num(stdout, r->mwu_p_samples);
            printf(", \"outside_noise\": %s, \"verdict\": \"%s\"}",
                   r->outside_noise < 0 ? "null" : r->outside_noise ? "true" : "false", row_verdict(r));
        }
        printf("\n  ]\n}\n");
    } else {
        printf("gpudiag compare (monitoring logs)\n  base: %s\n  new:  %s\n\n", gd_tpath(bpath), gd_tpath(tpath));
        printf("%-16s %12s %12s %9s %7s %9s  %s\n", "metric", "base mean", "new mean", "change", "block",
               "p(blocks)", "verdict");
        for (size_t i = 0; i < c.row_count; i++) {
            const gpudiag_series_compare_row *r = &c.rows[i];
            gpudiag_metric m = (gpudiag_metric)r->metric;
            if (!r->base_n && !r->test_n)
                continue;
            char bm[32], tm[32], ch[32], pp[32];
            double scale = m == GPUDIAG_M_MEM_USED_BYTES ? 1.0 / 1048576 : m == GPUDIAG_M_POWER_W ? 1 : 100;
            const char *u = m == GPUDIAG_M_MEM_USED_BYTES ? " MiB" : m == GPUDIAG_M_POWER_W ? " W" : " %";
            if (isnan(r->base_mean))
                snprintf(bm, sizeof bm, "n/a");
            else
                snprintf(bm, sizeof bm, "%.1f%s", r->base_mean * scale, u);
            if (isnan(r->test_mean))
                snprintf(tm, sizeof tm, "n/a");
            else
                snprintf(tm, sizeof tm, "%.1f%s", r->test_mean * scale, u);
            if (isnan(r->change))
                snprintf(ch, sizeof ch, "n/a");
            else
                snprintf(ch, sizeof ch, "%+.1f%%", 100 * r->change);
            if (isnan(r->mwu_p))
                snprintf(pp, sizeof pp, "n/a");
            else
                snprintf(pp, sizeof pp, "%.3g", r->mwu_p);
            printf("%-16s %12s %12s %9s %7zu %9s  %s\n", gpudiag_metric_name(m), bm, tm, ch, r->block_len, pp,
                   row_verdict(r));
        }
        printf("\nVerdict (%s, threshold %.3g%%, alpha %.3g): %s\n", gate ? gate : "no utilisation metric on both sides",
               100 * c.threshold, c.alpha, gpudiag_compare_verdict_name(c.verdict));
        if (c.setup_differs)
            printf("The two logs come from different set-ups (%s%s%s): a change may be the hardware's, not the\n"
                   "job's.\n",
                   c.setup_differs & 1 ? "GPU counts differ" : "", c.setup_differs == 3 ? ", " : "",
                   c.setup_differs & 2 ? "GPU models differ" : "");
        if (c.snapshot)
            printf("The %s one sample per GPU (a snapshot): no time series to compare, so every metric is\n"
                   "inconclusive; log both runs over time (nvidia-smi dmon -d 1, --query-gpu -l 1).\n",
                   c.snapshot == 3 ? "base and the new log hold" : c.snapshot == 1 ? "base log holds" : "new log holds");
        else
            printf("Monitoring samples a second apart are autocorrelated: the U test runs over block means\n"
                   "(block = samples per block), not over single samples.\n");
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        return gd_stdout_failed();
    return c.verdict == GPUDIAG_CMP_REGRESSED ? GD_EXIT_FINDINGS : GD_EXIT_OK;
}

static int parse_fraction(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return -1;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* What the command line asked for: the options, and the two sides
 * (bpaths[0..nb), tpaths[0..nt): one path each without --runs). */
typedef struct compare_settings {
    gpudiag_compare_opts o;
    int json, runs, verbose;
    char **bpaths, **tpaths; /* into argv */
    int nb, nt;
} compare_settings;

static const struct option compare_longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"full-names", no_argument, NULL, OPT_FULL_NAMES},
    {"runs", no_argument, NULL, OPT_RUNS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Parse argv into *s: the options (those before a '--'), then the sides.
 * Without --runs a '--' only ends the options and is taken out of argv.
 * GD_PARSE_GO to go on, else the exit status (--help: GD_EXIT_OK; a usage
 * error, said on stderr: GD_EXIT_USAGE). */
static int parse_compare(int argc, char **argv, compare_settings *s)
{
    gpudiag_compare_opts_default(&s->o);
    s->json = s->runs = s->verbose = 0;
    /* options are read only before a '--' (it separates the runs of --runs) */
    int sep = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            sep = i;
            break;
        }
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, compare_longopts);
    while ((c = getopt_long(sep, argv, ":vh", compare_longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        switch (c) {
        case OPT_JSON: s->json = 1; break;
        case OPT_FULL_NAMES: s->o.full_names = 1; break;
        case OPT_RUNS: s->runs = 1; break;
        case OPT_NO_PROGRESS: show_progress = 0; break;
        case 'v': s->verbose = 1; break;
        case OPT_METRIC: {
            int m = gpudiag_compare_metric_parse(optarg);
            if (m < 0) {
                fprintf(stderr,
                        "%s: error: --metric wants step_time, step_time_median, step_time_p90, throughput or "
                        "gpu_utilization, got '%s'\n",
                        prog, optarg);
                return GD_EXIT_USAGE;
            }
            s->o.metric = (gpudiag_compare_metric)m;
            break;
        }
        case OPT_THRESHOLD:
            if (parse_fraction(optarg, &s->o.threshold) != 0 || !(s->o.threshold > 0 && s->o.threshold < 10)) {
                fprintf(stderr, "%s: error: --threshold wants a relative change above 0, like 0.05 or 5%%, got '%s'\n",
                        prog, optarg);
                return GD_EXIT_USAGE;
            }
            break;
        case OPT_ALPHA:
            if (parse_fraction(optarg, &s->o.alpha) != 0 || !(s->o.alpha > 0 && s->o.alpha < 1)) {
                fprintf(stderr, "%s: error: --alpha wants a probability between 0 and 1, got '%s'\n", prog, optarg);
                return GD_EXIT_USAGE;
            }
            break;
        case 'h':
            gd_usage_compare(stdout);
            return GD_EXIT_OK;
        default:
            return gd_bad_option("compare", c, argv, compare_longopts);
        }
    }
    s->bpaths = argv + optind;
    s->nb = sep - optind;
    if (s->runs) {
        if (sep == argc) {
            fprintf(stderr, "%s: error: --runs wants the base runs, then '--', then the new runs\n", prog);
            return GD_EXIT_USAGE;
        }
        s->tpaths = argv + sep + 1;
        s->nt = argc - sep - 1;
        if (s->nb < 1 || s->nt < 1) {
            fprintf(stderr, "%s: error: --runs needs at least one run on each side of '--'\n", prog);
            return GD_EXIT_USAGE;
        }
    } else {
        /* without --runs, a '--' only ends the options */
        if (sep < argc) {
            for (int i = sep; i + 1 < argc; i++)
                argv[i] = argv[i + 1];
            argc--;
            s->nb = argc - optind;
        }
        if (s->nb != 2) {
            fprintf(stderr, "%s: error: compare wants two inputs, BASE and NEW (got %d; try 'gpudiag compare --help')\n",
                    prog, s->nb);
            return GD_EXIT_USAGE;
        }
        s->tpaths = s->bpaths + 1;
        s->nb = s->nt = 1;
    }
    return GD_PARSE_GO;
}

/* The inputs together: standard input at most once; with --runs, no file
 * twice on one side.  GD_PARSE_GO, or GD_EXIT_USAGE after a message. */
static int check_compare_inputs(const compare_settings *s)
{
    int nstdin = 0;
    for (int i = 0; i < s->nb; i++)
        nstdin += strcmp(s->bpaths[i], "-") == 0;
    for (int i = 0; i < s->nt; i++)
        nstdin += strcmp(s->tpaths[i], "-") == 0;
    if (nstdin > 1) {
        fprintf(stderr, "%s: error: standard input ('-') can be only one of the inputs\n", prog);
        return GD_EXIT_USAGE;
    }
    /* with --runs, each run counts once: the same file twice on one side would be counted as two
     * independent runs and shrink the p-value (second new-user trial: p 0.0022 -> 3e-07) */
    for (int side = 0; s->runs && side < 2; side++) {
        char **ps = side ? s->tpaths : s->bpaths;
        int n = side ? s->nt : s->nb;
        for (int i = 0; i < n; i++) {
            struct stat si;
            if (strcmp(ps[i], "-") == 0 || stat(ps[i], &si) != 0)
                continue;
            for (int j = 0; j < i; j++) {
                struct stat sj;
                if (strcmp(ps[j], "-") != 0 && stat(ps[j], &sj) == 0 && si.st_dev == sj.st_dev &&
                    si.st_ino == sj.st_ino) {
                    fprintf(stderr, "%s: error: %s and %s are the same file on the %s side of --runs: each run counts "
                                    "once (the same run twice would look like two agreeing runs)\n",
                            prog, ps[j], ps[i], side ? "new" : "base");
                    return GD_EXIT_USAGE;
                }
            }
        }
    }
    return GD_PARSE_GO;
}

/* Monitoring logs compare with each other only: 1 when both sides are logs
 * (compare_logs reads them), 0 when neither is, -1 after a message when
 * they are mixed or given to --runs. */
static int compare_log_sides(const compare_settings *s)
{
    /* monitoring logs compare with each other only */
    int nlog = 0;
    const char *alog = NULL, *anot = NULL;
    for (int i = 0; i < s->nb + s->nt; i++) {
        const char *pth = i < s->nb ? s->bpaths[i] : s->tpaths[i - s->nb];
        if (is_monlog(pth)) {
            nlog++;
            alog = pth;
        } else {
            anot = pth;
        }
    }
    if (nlog && (nlog != s->nb + s->nt || s->runs)) {
        if (s->runs)
            fprintf(stderr, "%s: error: --runs compares traces or saved reports; %s is a monitoring log (compare two "
                            "logs as BASE NEW)\n", prog, alog);
        else
            fprintf(stderr, "%s: error: %s is a monitoring log and %s is not: compare a log with a log, or a trace "
                            "(or saved report) with a trace\n", prog, alog, anot);
        return -1;
    }
    return nlog ? 1 : 0;
}

/* Traces or saved reports: load every side, compare, write the comparison
 * to standard output; the exit status (GD_EXIT_FINDINGS: a regression). */
static int compare_traces(const compare_settings *s)
{
    gpudiag_side **sides = calloc((size_t)(s->nb + s->nt), sizeof *sides);
    if (!sides) {
        fprintf(stderr, "%s: error: out of memory\n", prog);
        return GD_EXIT_INTERNAL;
    }
    int rc = GD_EXIT_OK;
    for (int i = 0; i < s->nb + s->nt; i++) {
        int r = load_side(i < s->nb ? s->bpaths[i] : s->tpaths[i - s->nb], &sides[i]);
        if (r > rc)
            rc = r;
    }
    if (rc == GD_EXIT_OK) {
        gpudiag_error err;
        memset(&err, 0, sizeof err);
        gpudiag_comparison *cmp = NULL;
        gpudiag_status st = gpudiag_compare((const gpudiag_side *const *)sides, (size_t)s->nb,
                                            (const gpudiag_side *const *)(sides + s->nb), (size_t)s->nt, &s->o, &cmp, &err);
        int writing = st == GPUDIAG_OK;
        if (writing) {
            if (s->json) {
                st = gpudiag_comparison_write_json(cmp, stdout, 1, &err);
            } else {
                const char *cols = getenv("COLUMNS");
                long w = cols ? strtol(cols, NULL, 10) : 100;
                gpudiag_text_opts topts = {0, s->verbose, w >= 40 && w <= 1000 ? (int)w : 100};
                st = gpudiag_comparison_write_text(cmp, stdout, &topts, &err);
            }
        }
        if (writing && st == GPUDIAG_ERR_IO) {
            rc = gd_stdout_failed(); /* the writers' only I/O is standard output */
        } else if (st != GPUDIAG_OK) {
            print_err(&err);
            rc = st == GPUDIAG_ERR_ARG ? GD_EXIT_USAGE : GD_EXIT_INTERNAL;
        } else if (cmp->verdict == GPUDIAG_CMP_REGRESSED) {
            rc = GD_EXIT_FINDINGS;
        }
        gpudiag_comparison_free(&cmp);
    }
    for (int i = 0; i < s->nb + s->nt; i++)
        gpudiag_side_free(&sides[i]);
    free(sides);
    return rc;
}

gd_exit gd_cmd_compare(int argc, char **argv)
{
    compare_settings s;
    int rc = parse_compare(argc, argv, &s);
    if (rc == GD_PARSE_GO)
        rc = check_compare_inputs(&s);
    if (rc != GD_PARSE_GO)
        return (gd_exit)rc;
    int logs = compare_log_sides(&s);
    if (logs < 0)
        return GD_EXIT_USAGE;
    if (logs)
        return compare_logs(s.bpaths[0], s.tpaths[0], &s.o, s.json);
    return (gd_exit)compare_traces(&s);
}
