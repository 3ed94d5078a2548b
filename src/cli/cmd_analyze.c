/*
 * cmd_analyze.c — `gpudiag analyze`: parse into a settings struct, then act.
 * The library returns errors as data; this file turns them into
 * "gpudiag: error: ..." lines on stderr and the documented exit codes.
 * (Moved out of cli.c, which keeps the dispatch table of commands.)
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/model_opts.h"
#include "gpudiag/roofline.h"
#include "cli/cmd_live.h"
#include "cli/cmd_serve.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "gpudiag/gpudiag.h"
#include "gpudiag/summary.h"
#include "gpudiag/annotate.h"
#include "gpudiag/html.h"
#include "gpudiag/series.h"
#include "ingest/formats.h"
#include "ingest/input.h"
#include "ingest/kineto.h"
#include "ingest/monlog.h"
#include "ingest/once.h"
#include "util/exit_codes.h"
#include "util/outfile.h"
#include "util/util.h"

enum { OPT_NO_COLOR = 128, OPT_COLOR, OPT_FAIL_ON, OPT_WIDTH, OPT_JOBS, OPT_SAVE, OPT_SUMMARY, OPT_FORMAT, OPT_STEP_RANGE, OPT_HTML, OPT_TRACE_OUT,
       OPT_STEPS, OPT_RANKS, OPT_NO_PROGRESS, OPT_NCU };

typedef struct settings {
    int json;
    int quiet;
    int report_off;        /* --html - or --trace-out - has standard output: no text report there */
    int verbose;
    int color;           /* -1 auto, 0 never, 1 always */
    int width;
    int fail_on;         /* -1 off, else severity */
    int jobs;            /* threads: per rank trace of a directory, or parsing one trace; 0 = cores */
    const char *html;    /* --html FILE, or NULL */
    const char *trace_out; /* --trace-out FILE, or NULL */
    const char *save;    /* --save FILE: also write the JSON report there */
    const char *summary; /* --summary FILE: also write the per-rank summary there */
    int format;          /* FMT_*: --format */
    const char *step_range; /* --step-range NAME, or NULL */
    int select_steps;       /* --steps given */
    int64_t steps_first, steps_last;
    int use_ranks;          /* --ranks given */
    const char *ranks_spec;
    gd_rankset ranks;
    int progress;           /* 0 with --no-progress */
    const char *ncu;     /* --ncu FILE, or NULL */
    char **paths;
    int npaths;
    gd_trace_mfu_opts tm;        /* MFU options (model, tokens per step, GPU) */
    gpudiag_analyze_opts aopts;  /* what they resolve to */
} settings;

static const char *prog = "gpudiag";

/* --format values: row indexes of gd_formats[] (src/ingest/formats.h): auto,
 * the trace readers, then the monitoring-log readers */
enum { FMT_AUTO = GD_FORMAT_AUTO, FMT_KINETO = GD_FORMAT_KINETO, FMT_NSYS = GD_FORMAT_NSYS };

static gpudiag_status check_format(const char *path, int format, gpudiag_error *err);


/* text's words, wrapped at `width` columns, continuation lines indented by
 * `indent` blanks; the first line starts at column `col` (already printed). */
static void put_wrapped(FILE *fp, const char *text, size_t col, size_t indent, size_t width)
{
    int first = 1;
    for (const char *w = text; w;) {
        const char *sp = strchr(w, ' ');
        size_t n = sp ? (size_t)(sp - w) : strlen(w);
        if (!first && col + 1 + n > width) {
            fprintf(fp, "\n%*s", (int)indent, "");
            col = indent;
            first = 1;
        }
        if (!(first && n == 0)) {
            if (!first) {
                fputc(' ', fp);
                col++;
            }
            fwrite(w, 1, n, fp);
            col += n;
            first = 0;
        }
        w = sp ? sp + 1 : NULL;
    }
    fputc('\n', fp);
}

/* The --format option of `analyze --help`, its names and readers from
 * gd_formats[] (src/ingest/formats.h), wrapped at 92 columns under the
 * option column (24). */
static void usage_format(FILE *fp)
{
    char text[2048], names[256], whats[512];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof text - len, "input format: auto (default: by content)");
    for (size_t i = 0; i < gd_format_count && len < sizeof text; i++)
        if (gd_formats[i]->kind == GD_FMT_TRACE)
            len += (size_t)snprintf(text + len, sizeof text - len, ", %s", gd_formats[i]->name);
    if (len < sizeof text)
        snprintf(text + len, sizeof text - len,
                 " (traces), %s (monitoring logs: %s); standard input is told by its head as a file is.  "
                 "An explicit format is never overruled: an SQLite file given kineto or a log format, "
                 "a JSON trace given a log format, or a file without the SQLite header given nsys, exits 3 "
                 "(byte 0)",
                 gd_format_list(names, sizeof names, 0, ", ", ", "), gd_format_whats(whats, sizeof whats));
    fputs("      --format F        ", fp);
    put_wrapped(fp, text, 24, 24, 92);
}

static void usage_analyze(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag analyze [OPTIONS] PATH...\n"
            "\n");
    char para[1536], whats[512];
    /* the monitoring formats from the format table (src/ingest/formats.c), as --format's */
    snprintf(para, sizeof para,
             "Diagnose PyTorch profiler traces: verdict (the bottleneck), step-time breakdown, GPU utilization, SM "
             "efficiency, achieved occupancy, Tensor Core use, and ranked findings with the knobs to change.  PATH "
             "is a .json or .json.gz trace (gzip is detected from the content), or an Nsight Systems export (`nsys "
             "export --type sqlite`, detected by the SQLite header; NVIDIA's expert-system rules are added), or a "
             "monitoring log (%s; plain or gzip; detected by content, --format overrides); '-' reads standard "
             "input (once: a second '-' is a usage error): a trace or a log, told by its head (or named by --format).  A directory is "
             "read as the per-rank traces of one job (its .json, .json.gz and .sqlite files): each is analysed (in "
             "parallel), the ranks are shown side by side and the straggler, if any, is named.",
             gd_format_whats(whats, sizeof whats));
    put_wrapped(fp, para, 0, 0, 80);
    fprintf(fp,
            "\n"
            "Options:\n"
            "      --json            write the machine report (schema gpudiag.report/1) to stdout;\n"
            "                        with several PATHs, one JSON document per line\n"
            "  -q, --quiet           print only the verdict line (not with --json: usage error)\n"
            "  -v, --verbose         every step, the evidence of each finding, 30 kernels\n"
            "      --no-color        never colour (also when NO_COLOR is set)\n"
            "      --color           always colour\n"
            "      --width N         wrap prose at N columns, 40 to 1000 (default: $COLUMNS, else 100)\n"
            "      --jobs N          threads: for a directory of rank traces, one per trace; for one\n"
            "                        trace, threads parsing its events (default: cores)\n"
            "      --save FILE       also write the JSON report to FILE for 'gpudiag compare' later:\n"
            "                        as --json prints it, but with every kernel; one PATH only\n"
            "      --summary FILE    also write the per-rank summary to FILE for 'gpudiag merge'\n"
            "                        (rank from distributedInfo, else RANK, SLURM_PROCID,\n"
            "                        OMPI_COMM_WORLD_RANK or JOB_COMPLETION_INDEX); one PATH only\n"
            "                        (--save and --summary gzip when FILE ends in .gz; compare and\n"
            "                        merge read either; an existing FILE is replaced, as with\n"
            "                        --html and --trace-out; an input FILE is refused)\n"
            );
    usage_format(fp);
    fprintf(fp,
            "      --step-range NAME one step per range named NAME (NVTX range in an Nsight\n"
            "                        export, user annotation in a PyTorch trace), optionally\n"
            "                        numbered: NAME#N, 'NAME N', NAME_N, NAME-N, NAME:N. Default:\n"
            "                        ProfilerStep#N; in Nsight exports also iteration, train_step,\n"
            "                        training_step, train_batch, step; else the whole capture\n"
            "      --fail-on SEV     exit 1 if a finding of severity SEV or worse exists\n"
            "                        (info, low, medium, high)\n"
            "      --html FILE       also write the report as one self-contained HTML page with\n"
            "                        charts (no scripts, no network); one input only; '-' writes\n"
            "                        it to standard output instead of the text report; FILE.gz\n"
            "                        is written gzip-compressed\n"
            "      --ncu FILE        an Nsight Compute CSV (ncu --csv --page raw) with the FLOP\n"
            "                        instruction metrics sm__sass_thread_inst_executed_op_{d,f,h}\n"
            "                        {add,mul,fma}_pred_on.sum and dram__bytes.sum: FLOPs = add + mul\n"
            "                        + 2 fma, bytes = dram__bytes, joined to the trace's kernels by\n"
            "                        name (kernels not in the trace are shown on their own) for the\n"
            "                        roofline; a malformed CSV exits 3 naming the line\n"
            "      --trace-out FILE  also write the input trace plus gpudiag's annotations (idle\n"
            "                        gaps by cause, findings, utilisation and queue counters) for\n"
            "                        Perfetto or chrome://tracing; gzip when FILE ends in .gz;\n"
            "                        with --steps only the selected window's events (a slice)\n");
    fprintf(fp,
            "      --steps A:B       analyse only steps A to B (inclusive; the numbers of the report's\n"
            "                        per-step list, N of ProfilerStep#N); also A: (A to the last),\n"
            "                        :B (the first to B), N (step N alone).  The whole file is still\n"
            "                        read (trace events are not in time order); steps of an Nsight\n"
            "                        export are those --step-range or the defaults choose\n"
            "      --ranks LIST      with a directory of rank traces or several files: analyse only\n"
            "                        the ranks in LIST (e.g. 0,2-3), chosen by each file's\n"
            "                        distributedInfo.rank, read from its header only when it comes\n"
            "                        before the events (PyTorch's order); files without a rank are\n"
            "                        left out\n"
            "      --no-progress     no progress bar (shown on a terminal's stderr when reading\n"
            "                        takes over 1 s: bytes read / total, rate, ETA)\n"
            "  -h, --help            show this help and exit\n"
            "\n"
            "%s"
            "\n"
            "Exit status: 0 ran (findings or not); 1 --fail-on matched; 2 usage error;\n"
            "3 unreadable or malformed input (the message names the file and byte offset),\n"
            "or an output file that cannot be written;\n"
            "5 internal error, or standard output cannot be written (nothing is said when the\n"
            "reader closed the pipe: ... | head -1); 6 --steps or --ranks matched nothing (the\n"
            "message lists what the input has).\n"
            "\n"
            "Example:\n"
            "  gpudiag analyze examples/resnet50_v100_num_workers_0.pt.trace.json.gz\n"
            "  gpudiag analyze --model llama3-8b --tokens-per-step 16384 trace.json.gz   # with MFU\n",
            gd_trace_mfu_help);
}

/* Act on one getopt_long result c (optarg its value) of parse_analyze's
 * loop: GD_PARSE_GO when taken, else the exit status (--help: GD_EXIT_OK; a
 * bad value or an unknown option, said on stderr: GD_EXIT_USAGE). */
static int parse_option(settings *s, int c, char **argv, const struct option *all)
{
    switch (c) {
    case 'j': s->json = 1; break;
    case 'q': s->quiet = 1; break;
    case 'v': s->verbose = 1; break;
    case OPT_NO_COLOR: s->color = 0; break;
    case OPT_COLOR: s->color = 1; break;
    case OPT_WIDTH: {
        long v = 0;
        if (gd_opt_long(optarg, 40, 1000, &v) != 0) {
            fprintf(stderr, "%s: error: --width wants a number of columns from 40 to 1000, got '%s'\n", prog,
                    optarg);
            return GD_EXIT_USAGE;
        }
        s->width = (int)v;
        break;
    }
    case OPT_SAVE: s->save = optarg; break;
    case OPT_SUMMARY: s->summary = optarg; break;
    case OPT_NCU:
        if (optarg[0] == '\0') {
            fprintf(stderr, "%s: error: --ncu wants a file name\n", prog);
            return GD_EXIT_USAGE;
        }
        s->ncu = optarg;
        break;
    case OPT_JOBS: {
        long v = 0;
        if (gd_opt_long(optarg, 1, 1024, &v) != 0) {
            fprintf(stderr, "%s: error: --jobs wants a number of threads from 1 to 1024, got '%s'\n", prog, optarg);
            return GD_EXIT_USAGE;
        }
        s->jobs = (int)v;
        break;
    }
    case OPT_FORMAT: {
        int f = -1;
        for (size_t k = 0; k < gd_format_count; k++)
            if (strcmp(optarg, gd_formats[k]->name) == 0)
                f = (int)k;
        if (f < 0) {
            char names[256];
            fprintf(stderr, "%s: error: --format wants %s, got '%s'\n", prog,
                    gd_format_list(names, sizeof names, 1, ", ", " or "), optarg);
            return GD_EXIT_USAGE;
        }
        s->format = f;
        break;
    }
    case OPT_STEP_RANGE:
        if (!optarg[0] || strlen(optarg) >= 128) {
            fprintf(stderr, "%s: error: --step-range wants a range name of 1 to 127 bytes\n", prog);
            return GD_EXIT_USAGE;
        }
        s->step_range = optarg;
        break;
    case OPT_STEPS:
        if (gd_opt_steps(optarg, &s->steps_first, &s->steps_last) != 0) {
            fprintf(stderr,
                    "%s: error: --steps wants A:B, A:, :B or N (step numbers as the report lists them, "
                    "A <= B), got '%s'\n",
                    prog, optarg);
            return GD_EXIT_USAGE;
        }
        s->select_steps = 1;
        break;
    case OPT_RANKS:
        if (gd_opt_ranks(optarg, &s->ranks) != 0) {
            fprintf(stderr,
                    "%s: error: --ranks wants rank numbers and ranges separated by commas (e.g. 0,2-3; at "
                    "most %d items), got '%s'\n",
                    prog, GD_RANKSET_MAX, optarg);
            return GD_EXIT_USAGE;
        }
        s->use_ranks = 1;
        s->ranks_spec = optarg;
        break;
    case OPT_NO_PROGRESS: s->progress = 0; break;
    case OPT_FAIL_ON:
        s->fail_on = gd_opt_severity(optarg);
        if (s->fail_on < 0) {
            fprintf(stderr, "%s: error: --fail-on wants info, low, medium or high, got '%s'\n", prog, optarg);
            return GD_EXIT_USAGE;
        }
        break;
    case OPT_HTML:
    case OPT_TRACE_OUT:
        if (optarg[0] == '\0') {
            fprintf(stderr, "%s: error: %s wants a file name\n", prog, c == OPT_HTML ? "--html" : "--trace-out");
            return GD_EXIT_USAGE;
        }
        if (c == OPT_HTML)
            s->html = optarg;
        else
            s->trace_out = optarg;
        break;
    case 'h':
        usage_analyze(stdout);
        return GD_EXIT_OK;
    default:
        return gd_bad_option("analyze", c, argv, all);
    }
    return GD_PARSE_GO;
}

/* The checks on the outputs and inputs together, once parsed: no output
 * over an input or another output, each writable, one stream for standard
 * output, --format nsys not on standard input, --html / --trace-out /
 * --save with one PATH; sets s->report_off.  GD_PARSE_GO, or the exit
 * status after a message. */
static int check_analyze_outputs(settings *s)
{
    {
        static const char *const names[] = {"--html", "--trace-out", "--save", "--summary"};
        const char *outs[] = {s->html, s->trace_out, s->save, s->summary};
        /* every file the command reads: the traces, then --ncu (a user lost
         * their Nsight Compute CSV to --html before it was counted; issue 19) */
        const char **ins = malloc(((size_t)s->npaths + 1) * sizeof *ins);
        if (!ins) {
            fprintf(stderr, "%s: error: out of memory\n", prog);
            return GD_EXIT_INTERNAL;
        }
        size_t nin = 0;
        for (int i = 0; i < s->npaths; i++)
            ins[nin++] = s->paths[i];
        if (s->ncu)
            ins[nin++] = s->ncu;
        int clash = gd_check_outputs(names, outs, 4, ins, nin);
        free(ins);
        if (clash != 0)
            return GD_EXIT_USAGE;
        /* checked before the analysis, which can take minutes on a big trace (issue 19 class 18) */
        if (gd_check_writable(names, outs, 4) != 0)
            return GD_EXIT_INPUT;
    }
    {
        /* --html - and --trace-out - take standard output: the text report
         * stays off it (two documents on one stream help no one), and
         * another report asked for there is a contradiction */
        int dash_html = s->html && strcmp(s->html, "-") == 0;
        int dash_trace = s->trace_out && strcmp(s->trace_out, "-") == 0;
        if (dash_html && dash_trace) {
            fprintf(stderr, "%s: error: --html - and --trace-out - both write to standard output; give one of them a "
                            "file name\n",
                    prog);
            return GD_EXIT_USAGE;
        }
        if ((dash_html || dash_trace) && (s->json || s->quiet)) {
            fprintf(stderr, "%s: error: %s and %s - both write to standard output; give %s a file name\n", prog,
                    s->json ? "--json" : "--quiet", dash_html ? "--html" : "--trace-out",
                    dash_html ? "--html" : "--trace-out");
            return GD_EXIT_USAGE;
        }
        s->report_off = dash_html || dash_trace;
    }
    if (s->json && s->quiet) { /* as merge: one document on standard output */
        fprintf(stderr, "%s: error: --json and --quiet both choose what goes to standard output; give one\n", prog);
        return GD_EXIT_USAGE;
    }
    for (int i = 0, dashes = 0; i < s->npaths; i++)
        if (strcmp(s->paths[i], "-") == 0 && ++dashes > 1) {
            /* refused before anything is read: the second '-' would meet an exhausted stream */
            fprintf(stderr, "%s: error: standard input ('-') can be read once; it is named more than once\n", prog);
            return GD_EXIT_USAGE;
        }
    for (int i = 0; s->format == FMT_NSYS && i < s->npaths; i++)
        if (strcmp(s->paths[i], "-") == 0) {
            fprintf(stderr, "%s: error: --format nsys reads an SQLite file, which needs a path: standard input "
                            "cannot be one (give the .sqlite file's path)\n",
                    prog);
            return GD_EXIT_USAGE;
        }
    if ((s->html || s->trace_out) && s->npaths != 1) {
        fprintf(stderr, "%s: error: %s writes the report of one trace file; give exactly one PATH\n", prog,
                s->html ? "--html" : "--trace-out");
        return GD_EXIT_USAGE;
    }
    if ((s->save || s->summary) && s->npaths != 1) {
        fprintf(stderr, "%s: error: %s writes one report: give one trace or one directory\n", prog,
                s->save ? "--save" : "--summary");
        return GD_EXIT_USAGE;
    }
    return GD_PARSE_GO;
}


/* Parse argv into *s: GD_PARSE_GO to go on, else the exit status. */
static int parse_analyze(int argc, char **argv, settings *s)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"no-color", no_argument, NULL, OPT_NO_COLOR},
        {"color", no_argument, NULL, OPT_COLOR},
        {"width", required_argument, NULL, OPT_WIDTH},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"html", required_argument, NULL, OPT_HTML},
        {"trace-out", required_argument, NULL, OPT_TRACE_OUT},
        {"save", required_argument, NULL, OPT_SAVE},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"step-range", required_argument, NULL, OPT_STEP_RANGE},
        {"steps", required_argument, NULL, OPT_STEPS},
        {"ranks", required_argument, NULL, OPT_RANKS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"ncu", required_argument, NULL, OPT_NCU},
        {"help", no_argument, NULL, 'h'},
    };
    struct option all[64]; /* the options above, then the MFU ones (cli/model_opts.c) */
    size_t nbase = sizeof longopts / sizeof longopts[0];
    memcpy(all, longopts, sizeof longopts);
    size_t nall = nbase + gd_trace_mfu_table(all + nbase, 63 - nbase);
    memset(&all[nall], 0, sizeof all[0]);
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, all);
    while ((c = getopt_long(argc, argv, ":qvh", all, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        int taken = gd_trace_mfu_take(&s->tm, c, optarg);
        if (taken < 0)
            return GD_EXIT_USAGE;
        if (taken > 0)
            continue;
        int rc = parse_option(s, c, argv, all);
        if (rc != GD_PARSE_GO)
            return rc;
    }
    if (gd_trace_mfu_resolve(&s->tm, &s->aopts) < 0)
        return GD_EXIT_USAGE;
    /* only --trace-out walks every idle gap; the reports need the longest */
    if (!s->trace_out)
        s->aopts.max_gaps = GPUDIAG_JSON_GAPS;
    s->paths = argv + optind;
    s->npaths = argc - optind;
    if (s->npaths == 0) {
        fprintf(stderr, "%s: error: analyze needs a trace file (try 'gpudiag analyze --help')\n", prog);
        return GD_EXIT_USAGE;
    }
    return check_analyze_outputs(s);
}

static void print_error(const gpudiag_error *err)
{
    if (err->path[0] && err->offset >= 0)
        fprintf(stderr, "%s: error: %s: byte %lld: %s\n", prog, gd_tpath(err->path), (long long)err->offset, err->message);
    else if (err->path[0])
        fprintf(stderr, "%s: error: %s: %s\n", prog, gd_tpath(err->path), err->message);
    else
        fprintf(stderr, "%s: error: %s\n", prog, err->message);
}

/* Partly valid input is analysed; say so on stderr too, with file and offset. */
static void warn_input(const gpudiag_report *r)
{
    if (r->series && r->series->first_skipped_line > 0)
        fprintf(stderr, "%s: warning: %s: line %lld: %llu data row%s could not be read and %s left out%s%s%s\n",
                prog, gd_tpath(r->input.path), (long long)r->series->first_skipped_line,
                (unsigned long long)r->series->skipped_rows, gd_plural(r->series->skipped_rows),
                r->series->skipped_rows == 1 ? "was" : "were", r->series->skip_reason[0] ? " (first: " : "",
                r->series->skip_reason, r->series->skip_reason[0] ? ")" : "");
    if (r->series && r->series->invalid_values > 0)
        fprintf(stderr, "%s: warning: %s: line %lld: %llu out-of-range value%s (utilisation above 100 %% or below 0, "
                        "negative memory, temperature > 150 C, clock > 5 GHz, power > 2x the limit, NaN/Inf, a GPU id that is no "
                        "index) read as missing\n",
                prog, gd_tpath(r->input.path), (long long)r->series->first_invalid_line,
                (unsigned long long)r->series->invalid_values, gd_plural(r->series->invalid_values));
    for (size_t i = 0; i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        if (strcmp(f->id, "input_truncated") == 0)
            fprintf(stderr, "%s: warning: %s: byte %lld: %s\n", prog, gd_tpath(r->input.path), (long long)r->input.truncated_at,
                    f->title);
        else if (strcmp(f->id, "input_trailing_data") == 0)
            fprintf(stderr, "%s: warning: %s: byte %lld: %s\n", prog, gd_tpath(r->input.path), (long long)r->input.trailing_at,
                    f->title);
        else if (strcmp(f->id, "input_gzip_trailing_data") == 0)
            fprintf(stderr, "%s: warning: %s: compressed byte %llu: %s\n", prog, gd_tpath(r->input.path),
                    (unsigned long long)r->input.gz_trailing_at, f->title);
        else if (strcmp(f->id, "input_malformed") == 0 && f->evidence_count > 1)
            fprintf(stderr, "%s: warning: %s: byte %lld: %s\n", prog, gd_tpath(r->input.path), (long long)f->evidence[1].value,
                    f->title);
    }
}

/* --save FILE: write a report (or a cluster) as pretty JSON; an exit code.
 * Written to a temporary and renamed into place (util/outfile.h): a failed
 * write leaves the old FILE, never a truncated report. */
typedef struct save_ctx {
    const gpudiag_report *r;
    const gpudiag_cluster *c;
    const gpudiag_report *const *reports;
} save_ctx;

static gpudiag_status write_saved(FILE *fp, void *ctx, gpudiag_error *err)
{
    const save_ctx *x = ctx;
    /* every kernel, so that `compare` diffs them all (not only the top 50 of --json) */
    int flags = GPUDIAG_JSON_PRETTY | GPUDIAG_JSON_ALL_KERNELS;
    return x->c ? gpudiag_cluster_write_json(x->c, x->reports, fp, flags, err)
                : gpudiag_report_write_json(x->r, fp, flags, err);
}

static int save_json(const char *file, const gpudiag_report *r, const gpudiag_cluster *c,
                     const gpudiag_report *const *reports)
{
    save_ctx x = {r, c, reports};
    return gd_write_file(prog, file, "the report", write_saved, &x);
}

/* The rank of this process in its job from the environment, for a trace
 * without distributedInfo.rank (docs/DEFINITIONS.md "Summaries and merge"):
 * torchrun's RANK, Slurm's SLURM_PROCID (not in an array task: there it is
 * the task's own step rank, 0 in every task), Open MPI's
 * OMPI_COMM_WORLD_RANK, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX.
 * -1 when none is set to a number.  With warn (the trace has no rank of its
 * own), a variable set to something else ("abc", "-1") is said on stderr
 * before it is passed over, naming the trace (issue 22: the rank was null
 * without a word). */
static int rank_from_env(const char **source, int warn, const char *trace)
{
    static const char *const vars[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        long r = 0;
        if (!v || gd_opt_long(v, 0, 1L << 30, &r) != 0) {
            if (v && warn)
                fprintf(stderr,
                        "%s: warning: %s='%s' is not a rank number (0 to 2^30): ignored as the rank of %s, which "
                        "has none in the trace\n",
                        prog, vars[i], v, trace);
            continue;
        }
        if (strcmp(vars[i], "SLURM_PROCID") == 0 && getenv("SLURM_ARRAY_TASK_ID"))
            continue;
        *source = vars[i];
        return (int)r;
    }
    *source = NULL;
    return -1;
}

/* The job a summary belongs to, from the environment: GPUDIAG_JOB_ID, else
 * "slurm:" and SLURM_ARRAY_JOB_ID (all tasks of an array share it) or
 * SLURM_JOB_ID; NULL when none is set.  Into buf[cap]. */
static const char *job_from_env(char *buf, size_t cap)
{
    const char *v = getenv("GPUDIAG_JOB_ID");
    if (v && v[0])
        return v;
    v = getenv("SLURM_ARRAY_JOB_ID");
    if (!v || !v[0])
        v = getenv("SLURM_JOB_ID");
    if (!v || !v[0])
        return NULL;
    snprintf(buf, cap, "slurm:%s", v);
    return buf;
}

/* --summary FILE: the per-rank summary of n reports (one trace: its rank may
 * come from the environment; a directory: each trace's own); an exit code. */
static gpudiag_status write_summary(FILE *fp, void *ctx, gpudiag_error *err)
{
    return gpudiag_summary_write_json(ctx, fp, 0, err);
}

static int save_summary(const char *file, const gpudiag_report *const *reports, size_t n)
{
    char jbuf[160];
    gpudiag_summary *sum = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_summary_new(job_from_env(jbuf, sizeof jbuf), &sum, &err);
    for (size_t i = 0; st == GPUDIAG_OK && i < n; i++) {
        const char *source = NULL;
        int rank = n == 1 ? rank_from_env(&source, reports[i]->input.rank < 0, reports[i]->input.path) : -1;
        st = gpudiag_summary_add_report(sum, reports[i], rank, source, &err);
    }
    int code;
    if (st != GPUDIAG_OK) {
        fprintf(stderr, "%s: error: %s\n", prog, err.message);
        code = gd_exit_for_status(st);
    } else {
        code = gd_write_file(prog, file, "the summary", write_summary, sum);
    }
    gpudiag_summary_free(&sum);
    return code;
}

static int terminal_width(void)
{
    const char *cols = getenv("COLUMNS");
    long v = 0;
    if (cols && gd_opt_long(cols, 40, 1000, &v) == 0)
        return (int)v;
    return 100;
}

/* ---- a directory of rank traces ------------------------------------------ */

typedef struct rank_job {
    char *path;
    gpudiag_report *report;
    gpudiag_error err;
    gpudiag_status st;
    int rank;            /* from a header-only read (--ranks) */
} rank_job;

typedef struct rank_pool {
    const gpudiag_read_opts *ropts;
    rank_job *jobs;
    size_t n;
    size_t next;
    pthread_mutex_t lock;
    const gpudiag_analyze_opts *opts;
    gd_progress *prog;   /* NULL: no bar */
    int format;          /* FMT_AUTO, FMT_KINETO or FMT_NSYS: checked per file (check_format) */
} rank_pool;

/* The read options of the settings (progress is set per file). */
static gpudiag_read_opts read_opts_of(const settings *s)
{
    gpudiag_read_opts o;
    memset(&o, 0, sizeof o);
    o.step_range = s->step_range;
    o.select_steps = s->select_steps;
    o.steps_first = s->steps_first;
    o.steps_last = s->steps_last;
    /* one trace's events parsed on --jobs threads (default: cores; issue 24) */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = s->jobs > 0 ? s->jobs : (int)(cores > 1 ? (cores < 64 ? cores : 64) : 1);
    return o;
}

static void *rank_worker(void *arg)
{
    rank_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t i = pool->next++;
        pthread_mutex_unlock(&pool->lock);
        if (i >= pool->n)
            return NULL;
        rank_job *j = &pool->jobs[i];
        gpudiag_trace *t = NULL;
        gpudiag_read_opts ro = *pool->ropts;
        if (pool->prog) {
            ro.progress = gd_progress_cb;
            ro.progress_ctx = gd_progress_slot_at(pool->prog, i);
        }
        j->st = check_format(j->path, pool->format, &j->err);
        if (j->st == GPUDIAG_OK)
            j->st = gpudiag_trace_read_opts(j->path, &ro, &t, &j->err);
        if (j->st == GPUDIAG_OK && ro.header_only) {
            j->rank = gpudiag_trace_rank(t);
            gpudiag_trace_free(&t);
        } else if (j->st == GPUDIAG_OK) {
            j->st = gpudiag_analyze(t, pool->opts, &j->report, &j->err);
            gpudiag_trace_free(&t);
        }
    }
}

/* Run the jobs through nthreads threads (or here, if none can start). */
static void run_pool(rank_pool *pool, size_t nthreads)
{
    if (nthreads > pool->n)
        nthreads = pool->n;
    pthread_t *th = calloc(nthreads ? nthreads : 1, sizeof *th);
    size_t started = 0;
    for (size_t i = 0; th && i < nthreads; i++)
        if (pthread_create(&th[i], NULL, rank_worker, pool) == 0)
            started++;
    if (started == 0)
        rank_worker(pool); /* no threads: do the work here */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* "0-3, 5, 7" from n ranks (sorted here), cut with ", ..." to fit cap. */
static void format_ranks(int *r, size_t n, char *buf, size_t cap)
{
    qsort(r, n, sizeof *r, cmp_int);
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && (r[j + 1] == r[j] || r[j + 1] == r[j] + 1))
            j++;
        char item[48];
        if (r[i] == r[j])
            snprintf(item, sizeof item, "%s%d", len ? ", " : "", r[i]);
        else
            snprintf(item, sizeof item, "%s%d-%d", len ? ", " : "", r[i], r[j]);
        if (len + strlen(item) + 6 >= cap) {
            snprintf(buf + len, cap - len, ", ...");
            return;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s", item);
        i = j + 1;
    }
}

/* The size of a file for the progress bar, 0 if unknown. */
static uint64_t file_size(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
        return (uint64_t)sb.st_size;
    return 0;
}

/* --ranks over a directory: read each file's header (in parallel), keep the
 * jobs whose rank is in the set (compacted to the front; the others freed).
 * Returns the number kept; *worst is raised for unreadable files. */
static size_t choose_ranks(const char *dir, const settings *s, rank_job *jobs, size_t n, size_t nthreads, int *worst)
{
    gpudiag_read_opts hopts;
    memset(&hopts, 0, sizeof hopts);
    hopts.header_only = 1;
    rank_pool pool = {&hopts, jobs, n, 0, PTHREAD_MUTEX_INITIALIZER, &s->aopts, NULL, s->format};
    run_pool(&pool, nthreads);
    int *found = calloc(n ? n : 1, sizeof *found);
    size_t nfound = 0, nkept = 0, norank = 0;
    for (size_t i = 0; i < n; i++) {
        rank_job *j = &jobs[i];
        if (j->st != GPUDIAG_OK) {
            print_error(&j->err);
            int code = gd_exit_for_status(j->st);
            if (code > *worst)
                *worst = code;
        } else if (j->rank < 0) {
            norank++;
            fprintf(stderr, "%s: warning: %s: no distributedInfo rank: left out by --ranks\n", prog, gd_tpath(j->path));
        } else {
            if (found)
                found[nfound++] = j->rank;
            if (gd_rankset_has(&s->ranks, j->rank)) {
                rank_job keep = {j->path, NULL, {0}, GPUDIAG_OK, j->rank};
                jobs[nkept++] = keep;
                continue;
            }
        }
        free(j->path);
        j->path = NULL;
    }
    if (nkept == 0) {
        char have[256] = "";
        if (found)
            format_ranks(found, nfound, have, sizeof have);
        fprintf(stderr, "%s: error: %s: --ranks %s matched no trace; the directory has %s%s%s\n", prog, dir,
                s->ranks_spec, nfound ? "ranks " : "no trace with a rank", have,
                norank ? " (and traces without a rank)" : "");
        if (GD_EXIT_NOMATCH > *worst)
            *worst = GD_EXIT_NOMATCH;
    }
    free(found);
    return nkept;
}

static int analyze_dir(const char *dir, const settings *s, const gpudiag_text_opts *topts, int *matched)
{
    char **names = NULL;
    size_t n = 0;
    gd_exit lrc = gd_list_trace_dir(dir, &names, &n);
    if (lrc != GD_EXIT_OK)
        return lrc;
    rank_job *jobs = calloc(n, sizeof *jobs);
    if (!jobs) {
        gd_free_names(names, n);
        fprintf(stderr, "%s: error: out of memory\n", prog);
        return GD_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < n; i++)
        jobs[i].path = names[i];
    free(names);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = s->jobs > 0 ? (size_t)s->jobs : (size_t)(cores > 0 ? cores : 1);
    int worst = GD_EXIT_OK;
    if (s->use_ranks) {
        n = choose_ranks(dir, s, jobs, n, nthreads, &worst);
        if (n == 0) {
            free(jobs);
            return worst;
        }
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += file_size(jobs[i].path);
    gpudiag_read_opts ropts = read_opts_of(s);
    ropts.threads = 1; /* the ranks are the parallelism: one thread per trace */
    rank_pool pool = {&ropts, jobs, n, 0, PTHREAD_MUTEX_INITIALIZER, &s->aopts,
                      gd_progress_new(s->progress, n, total), s->format};
    run_pool(&pool, nthreads);
    gd_progress_end(pool.prog);

    const gpudiag_report **ok = calloc(n, sizeof *ok);
    size_t nok = 0;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].st != GPUDIAG_OK) {
            print_error(&jobs[i].err);
            int code = gd_exit_for_status(jobs[i].st);
            if (code > worst)
                worst = code;
        } else if (ok) {
            warn_input(jobs[i].report);
            ok[nok++] = jobs[i].report;
            for (size_t k = 0; k < jobs[i].report->finding_count && s->fail_on >= 0; k++)
                if ((int)jobs[i].report->findings[k].severity >= s->fail_on)
                    *matched = 1;
        }
    }
    if (nok > 0) {
        gpudiag_cluster *c = NULL;
        gpudiag_error err;
        memset(&err, 0, sizeof err);
        gpudiag_status st = gpudiag_cluster_analyze(ok, nok, &c, &err);
        if (st == GPUDIAG_OK && s->save) {
            int code = save_json(s->save, NULL, c, ok);
            if (code > worst)
                worst = code;
        }
        if (st == GPUDIAG_OK && s->summary) {
            int code = save_summary(s->summary, ok, nok);
            if (code > worst)
                worst = code;
        }
        if (st == GPUDIAG_OK) {
            if (s->json) {
                st = gpudiag_cluster_write_json(c, ok, stdout, s->npaths == 1, &err); /* JSON Lines with several paths */
            } else if (s->quiet) {
                for (size_t i = 0; i < nok; i++)
                    printf("%s: %s: %s\n", gd_tpath(ok[i]->input.path), gpudiag_bottleneck_name(ok[i]->bottleneck),
                           ok[i]->verdict ? ok[i]->verdict : "");
                printf("%s: %s\n", gd_tpath(dir), c->verdict);
            } else {
                st = gpudiag_cluster_write_text(c, stdout, topts, &err);
                for (size_t i = 0; st == GPUDIAG_OK && i < nok && s->verbose; i++) {
                    printf("\n");
                    st = gpudiag_report_write_text(ok[i], stdout, topts, &err);
                }
                if (!s->verbose)
                    printf("(--verbose adds each rank's full report; --json gives all of them)\n");
            }
        }
        if (st == GPUDIAG_ERR_IO) {
            worst = gd_stdout_failed();
        } else if (st != GPUDIAG_OK) {
            fprintf(stderr, "%s: error: %s\n", prog, err.message);
            worst = GD_EXIT_INTERNAL;
        }
        gpudiag_cluster_free(&c);
    }
    for (size_t i = 0; i < n; i++) {
        gpudiag_report_free(&jobs[i].report);
        free(jobs[i].path);
    }
    free(ok);
    free(jobs);
    return worst;
}

/* Write the HTML page to `path` ("-" = stdout); returns an exit code.  A
 * file goes through gd_write_report_file (a temporary renamed into place,
 * gzip when the name ends in .gz, as --save and --trace-out). */
static int write_html(const gpudiag_report *r, const char *path)
{
    if (strcmp(path, "-") != 0)
        return gd_write_report_file(prog, r, path, 1);
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_report_write_html(r, stdout, NULL, &err);
    if (st == GPUDIAG_OK && fflush(stdout) == 0 && !ferror(stdout))
        return GD_EXIT_OK;
    if (st == GPUDIAG_ERR_IO || st == GPUDIAG_OK)
        return gd_stdout_failed(); /* --html -: standard output, as the other reports */
    fprintf(stderr, "%s: error: -: writing the HTML report failed: %s\n", prog, err.message);
    return GD_EXIT_INPUT;
}

/* Which reader a file goes to: a trace (Kineto JSON, gzip, SQLite: what
 * gpudiag_trace_read takes) or a monitoring log (sniffed by content). */
static gpudiag_log_format route(const char *path, int format)
{
    const gd_input_format *f = gd_formats[format];
    if (f->kind == GD_FMT_LOG)
        return (gpudiag_log_format)f->id;
    if (f->kind == GD_FMT_TRACE)
        return GPUDIAG_LOG_AUTO;
    return gd_sniff_log_file(path);
}

/* 1 when the file starts with the SQLite magic (an Nsight Systems export),
 * 0 when not, -1 when it cannot be opened (the reader then says why). */
static int is_sqlite_file(const char *path)
{
    unsigned char magic[16];
    FILE *fp = strcmp(path, "-") == 0 ? NULL : fopen(path, "rb");
    if (!fp)
        return -1;
    size_t n = fread(magic, 1, sizeof magic, fp);
    fclose(fp);
    return n == sizeof magic && memcmp(magic, "SQLite format 3", 16) == 0;
}

/* A log format given a JSON trace (plain or gzip: kind GD_SNIFF_JSON, its
 * first byte in first): GPUDIAG_ERR_FORMAT at byte 0 saying so, not the log
 * reader's guess ("CSV without its header line"); GPUDIAG_OK otherwise. */
static gpudiag_status json_given_log(const char *path, int format, gd_sniff_kind kind, char first,
                                     gpudiag_error *err)
{
    if (kind != GD_SNIFF_JSON || gd_formats[format]->kind != GD_FMT_LOG)
        return GPUDIAG_OK;
    return gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0,
                        "--format %s, but this looks like a JSON trace (it starts with '%c'), not %s; drop --format "
                        "to read it by its content",
                        gd_formats[format]->name, first, gd_formats[format]->what);
}

/* A log reader forced by --format failed on a file whose content looks like
 * another log format: add that to its message ("drop --format or give
 * --format Y").  The reader's own words stay first (it may be right: a
 * damaged file of the format given). */
static void hint_other_log(gpudiag_error *err, int format, gpudiag_log_format seen)
{
    const gd_input_format *y = gd_format_of_log(seen);
    if (!y || gd_formats[format]->kind != GD_FMT_LOG || y == gd_formats[format])
        return;
    size_t len = strlen(err->message);
    if (len < sizeof err->message)
        snprintf(err->message + len, sizeof err->message - len,
                 " (this looks like %s: drop --format or give --format %s)", y->what, y->name);
}

/* An explicit --format is honoured, never overruled by the content: a file
 * that plainly is not in that format (an SQLite database given kineto or a
 * log format; anything but SQLite given nsys; a JSON trace, plain or gzip,
 * given a log format) is malformed input at byte 0, GPUDIAG_ERR_FORMAT
 * (exit 3), as the format's own reader would have it.  Other mismatches (a
 * log given --format kineto, a log given another log's format) are left to
 * the reader, which reports them with their offset (and, for a log read as
 * another, what it looks like: hint_other_log).  GPUDIAG_OK otherwise, also when
 * the file cannot be opened (the reader says why). */
static gpudiag_status check_format(const char *path, int format, gpudiag_error *err)
{
    if (format == FMT_AUTO || strcmp(path, "-") == 0)
        return GPUDIAG_OK;
    int sq = is_sqlite_file(path);
    if (sq < 0)
        return GPUDIAG_OK;
    if ((format == FMT_NSYS) == (sq == 1)) {
        if (gd_formats[format]->kind != GD_FMT_LOG)
            return GPUDIAG_OK;
        gpudiag_log_format seen;
        char first;
        gd_sniff_kind kind = gd_sniff_file_kind(path, &seen, &first);
        return json_given_log(path, format, kind, first, err);
    }
    err->code = GPUDIAG_ERR_FORMAT;
    err->offset = 0;
    snprintf(err->path, sizeof err->path, "%s", path);
    if (format == FMT_NSYS)
        snprintf(err->message, sizeof err->message,
                 "--format nsys, but this is not an Nsight Systems export (no SQLite header \"SQLite format 3\"); "
                 "drop --format to read it by its content");
    else
        snprintf(err->message, sizeof err->message,
                 "--format %s, but this is an SQLite database (an Nsight Systems export), not %s; drop --format "
                 "or give --format nsys",
                 gd_formats[format]->name,
                 gd_formats[format]->kind == GD_FMT_TRACE ? gd_formats[format]->what : "a monitoring log");
    return GPUDIAG_ERR_FORMAT;
}

/* An input that can be read only once (a FIFO, /dev/stdin on a pipe, the
 * /dev/fd/N of <(zcat ...)): opened once, its format told from its head,
 * and the reader continues the same stream.  Opening it again for each sniff
 * hung (issue 19 class 17). */
static gpudiag_status read_once_and_analyze(const char *path, const settings *s, gpudiag_report **r,
                                            gpudiag_error *err)
{
    gd_once_in o;
    gpudiag_status st = gd_once_in_open(&o, path, err);
    if (st != GPUDIAG_OK)
        return st;
    if (gd_once_in_is_sqlite(&o) || s->format == FMT_NSYS) {
        if (gd_once_in_is_sqlite(&o))
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0, "%s",
                              strcmp(path, "-") == 0 ? GD_STDIN_SQLITE_MESSAGE : GD_ONCE_SQLITE_MESSAGE);
        else
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0,
                              "--format nsys, but this is not an Nsight Systems export (no SQLite header \"SQLite "
                              "format 3\"); drop --format to read it by its content");
        gd_once_in_close(&o);
        return st;
    }
    gpudiag_log_format lf = s->format == FMT_AUTO ? gd_sniff_log_head(o.head, o.n) : route(path, s->format);
    if (lf != GPUDIAG_LOG_AUTO && s->select_steps) {
        gd_once_in_close(&o);
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "--steps selects steps of a trace; this is a monitoring log");
    }
    if (lf != GPUDIAG_LOG_AUTO) {
        gpudiag_log_format seen = GPUDIAG_LOG_AUTO;
        char first = 0;
        gd_sniff_kind kind = s->format == FMT_AUTO ? GD_SNIFF_LOG : gd_sniff_head_kind(o.head, o.n, &seen, &first);
        st = json_given_log(path, s->format, kind, first, err);
        if (st != GPUDIAG_OK) {
            gd_once_in_close(&o);
            return st;
        }
        gpudiag_series *ser = NULL;
        st = gd_series_read_fp(o.fp, path, lf, &ser, err);
        gd_once_in_close(&o);
        if (st == GPUDIAG_ERR_FORMAT && kind == GD_SNIFF_LOG)
            hint_other_log(err, s->format, seen);
        if (st != GPUDIAG_OK)
            return st;
        st = gpudiag_series_analyze(ser, path, r, err);
        gpudiag_series_free(&ser);
        return st;
    }
    gpudiag_trace *t = NULL;
    gpudiag_read_opts ropts = read_opts_of(s);
    st = gd_trace_read_stream(o.fp, path, &ropts, &t, err);
    gd_once_in_close(&o);
    if (st != GPUDIAG_OK)
        return st;
    gpudiag_analyze_opts ao = s->aopts;
    ao.threads = ropts.threads; /* one trace: its analysis may split too (a directory's ranks do not) */
    st = gpudiag_analyze(t, &ao, r, err);
    gpudiag_trace_free(&t);
    return st;
}

/* Read and analyse one file with the reader route() picks. */
static gpudiag_status read_and_analyze(const char *path, const settings *s, gpudiag_report **r, gpudiag_error *err)
{
    /* standard input with no --format is sniffed as a file is: its head tells a log from a trace;
     * with a log format, its head tells a JSON trace given that format */
    if (gd_path_read_once(path) ||
        (strcmp(path, "-") == 0 && (s->format == FMT_AUTO || gd_formats[s->format]->kind == GD_FMT_LOG)))
        return read_once_and_analyze(path, s, r, err);
    gpudiag_status st = check_format(path, s->format, err);
    if (st != GPUDIAG_OK)
        return st;
    gpudiag_log_format lf = route(path, s->format);
    if (lf != GPUDIAG_LOG_AUTO && s->select_steps)
    {
        err->code = GPUDIAG_ERR_ARG;
        err->offset = -1;
        snprintf(err->path, sizeof err->path, "%s", path);
        snprintf(err->message, sizeof err->message, "--steps selects steps of a trace; this is a monitoring log");
        return GPUDIAG_ERR_ARG;
    }
    if (lf != GPUDIAG_LOG_AUTO) {
        st = gd_analyze_log_file(path, lf, r, err);
        if (st == GPUDIAG_ERR_FORMAT && s->format != FMT_AUTO) {
            gpudiag_log_format seen;
            char first;
            if (gd_sniff_file_kind(path, &seen, &first) == GD_SNIFF_LOG)
                hint_other_log(err, s->format, seen);
        }
        return st;
    }
    gpudiag_trace *t = NULL;
    gpudiag_read_opts ropts = read_opts_of(s);
    gd_progress *bar = gd_progress_new(s->progress, 1, file_size(path));
    if (bar) {
        ropts.progress = gd_progress_cb;
        ropts.progress_ctx = gd_progress_slot_at(bar, 0);
    }
    st = gpudiag_trace_read_opts(path, &ropts, &t, err);
    gd_progress_end(bar);
    if (st != GPUDIAG_OK)
        return st;
    gpudiag_analyze_opts ao = s->aopts;
    ao.threads = ropts.threads; /* one trace: its analysis may split too (a directory's ranks do not) */
    st = gpudiag_analyze(t, &ao, r, err);
    gpudiag_trace_free(&t);
    return st;
}

/* --ranks with a file: 1 to analyse it, 0 to leave it out (said on stderr
 * when it has no rank), -1 when its header cannot be read (error printed,
 * *worst raised).  Its rank is added to found[*nfound] for the final message. */
static int rank_chosen(const char *path, const settings *s, int *found, size_t *nfound, int *worst)
{
    gpudiag_read_opts hopts;
    memset(&hopts, 0, sizeof hopts);
    hopts.header_only = 1;
    gpudiag_trace *t = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = check_format(path, s->format, &err);
    if (st == GPUDIAG_OK && route(path, s->format) == GPUDIAG_LOG_AUTO)
        st = gpudiag_trace_read_opts(path, &hopts, &t, &err);
    if (st != GPUDIAG_OK) {
        print_error(&err);
        int code = gd_exit_for_status(st);
        if (code > *worst)
            *worst = code;
        return -1;
    }
    int rank = gpudiag_trace_rank(t);
    gpudiag_trace_free(&t);
    if (rank < 0) {
        fprintf(stderr, "%s: warning: %s: no distributedInfo rank: left out by --ranks\n", prog, path);
        return 0;
    }
    found[(*nfound)++] = rank;
    return gd_rankset_has(&s->ranks, rank);
}

/* What the PATHs of one `analyze` add up to. */
typedef struct analyze_totals {
    int worst;        /* the highest exit status so far */
    int matched;      /* --fail-on matched a finding */
    int *found;       /* --ranks: the ranks of the files seen (npaths + 1) */
    size_t nfound, nchosen, nrank_inputs;
} analyze_totals;

/* The report r of PATH number i out: on standard output (JSON, the quiet
 * line or the text), --save, --html, --trace-out, then --fail-on; frees r.
 * GD_PARSE_GO to go on to the next PATH, else the exit status to end with
 * (standard output failed, the report could not be written). */
static int emit_report(const settings *s, int i, const char *path, gpudiag_report *r,
                       const gpudiag_text_opts *topts, analyze_totals *t)
{
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = GPUDIAG_OK;
    if (s->save) {
        int code = save_json(s->save, r, NULL, NULL);
        if (code > t->worst)
            t->worst = code;
    }
    if (s->summary && r->series) {
        fprintf(stderr, "%s: error: %s: --summary keeps what the job view of a trace's ranks needs; this is a "
                        "monitoring log: no summary written\n",
                prog, gd_tpath(r->input.path));
        if (GD_EXIT_USAGE > t->worst)
            t->worst = GD_EXIT_USAGE;
    } else if (s->summary) {
        const gpudiag_report *one[1] = {r};
        int code = save_summary(s->summary, one, 1);
        if (code > t->worst)
            t->worst = code;
    }
    if (s->report_off) {
        /* standard output belongs to --html - / --trace-out - */
    } else if (s->json) {
        st = gpudiag_report_write_json(r, stdout, s->npaths == 1, &err);
    } else if (s->quiet) {
        if (s->npaths > 1)
            printf("%s: ", gd_tpath(r->input.path));
        printf("%s: %s\n", gpudiag_bottleneck_name(r->bottleneck), r->verdict ? r->verdict : "");
    } else {
        if (i > 0)
            printf("\n");
        st = gpudiag_report_write_text(r, stdout, topts, &err);
    }
    if (st == GPUDIAG_OK && s->html) {
        int code = write_html(r, s->html);
        if (code > t->worst)
            t->worst = code;
    }
    if (st == GPUDIAG_OK && s->trace_out) {
        gpudiag_error terr;
        memset(&terr, 0, sizeof terr);
        gpudiag_status ts = gpudiag_trace_write_annotated(path, r, s->trace_out, &terr);
        if (ts == GPUDIAG_ERR_IO && strcmp(s->trace_out, "-") == 0 && ferror(stdout)) {
            int code = gd_stdout_failed(); /* --trace-out -: a closed pipe is quiet, as for the reports */
            if (code > t->worst)
                t->worst = code;
        } else if (ts != GPUDIAG_OK) {
            print_error(&terr);
            int code = ts == GPUDIAG_ERR_ARG ? GD_EXIT_USAGE : gd_exit_for_status(ts);
            if (code > t->worst)
                t->worst = code;
        }
    }
    for (size_t k = 0; k < r->finding_count && s->fail_on >= 0; k++)
        if ((int)r->findings[k].severity >= s->fail_on)
            t->matched = 1;
    gpudiag_report_free(&r);
    if (st == GPUDIAG_ERR_IO)
        return gd_stdout_failed();
    if (st != GPUDIAG_OK) {
        fprintf(stderr, "%s: error: writing the report: %s\n", prog, err.message);
        return GD_EXIT_INTERNAL;
    }
    return GD_PARSE_GO;
}

/* Analyze PATH number i (a file, "-" or a directory of rank traces) and
 * write its report, adding up into *t.  GD_PARSE_GO to go on, else the exit
 * status to end with (a usage error this PATH shows, a failed output). */
static int analyze_path(const settings *s, int i, const gpudiag_text_opts *topts, analyze_totals *t)
{
    const char *path = s->paths[i];
    if (path[0] == '\0') {
        fprintf(stderr, "%s: error: an empty file name was given\n", prog);
        if (GD_EXIT_INPUT > t->worst)
            t->worst = GD_EXIT_INPUT;
        return GD_PARSE_GO;
    }
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (s->html || s->trace_out) {
            fprintf(stderr, "%s: error: %s: %s writes the report of one trace file, not a directory of ranks\n",
                    prog, path, s->html ? "--html" : "--trace-out");
            return GD_EXIT_USAGE;
        }
        if (gd_formats[s->format]->kind == GD_FMT_LOG) {
            fprintf(stderr, "%s: error: %s: --format %s names a monitoring log; a directory is read as the rank "
                            "traces of one job (its .json, .json.gz and .sqlite files)\n",
                    prog, path, gd_formats[s->format]->name);
            return GD_EXIT_USAGE;
        }
        int code = analyze_dir(path, s, topts, &t->matched);
        if (code > t->worst)
            t->worst = code;
        return GD_PARSE_GO;
    }
    if (s->use_ranks && (strcmp(path, "-") == 0 || gd_path_read_once(path))) {
        fprintf(stderr, "%s: error: --ranks reads each file's header before choosing it; %s can "
                        "be read only once: give the files' paths\n",
                prog, strcmp(path, "-") == 0 ? "standard input" : path);
        return GD_EXIT_USAGE;
    }
    if (s->trace_out && (strcmp(path, "-") == 0 || gd_path_read_once(path))) {
        fprintf(stderr, "%s: error: --trace-out copies the input trace after analysing it; %s can be read only "
                        "once: give the trace's path\n",
                prog, strcmp(path, "-") == 0 ? "standard input" : path);
        return GD_EXIT_USAGE;
    }
    if (s->use_ranks) {
        t->nrank_inputs++;
        int c = rank_chosen(path, s, t->found, &t->nfound, &t->worst);
        if (c <= 0)
            return GD_PARSE_GO;
        t->nchosen++;
    }
    if (s->trace_out && strcmp(path, "-") != 0) {
        const char *what = route(path, s->format) != GPUDIAG_LOG_AUTO ? "a monitoring log"
                           : is_sqlite_file(path) == 1                ? "an Nsight Systems export"
                                                                      : NULL;
        if (what) {
            fprintf(stderr, "%s: error: %s: --trace-out annotates a PyTorch profiler (Kineto) trace; this is %s\n",
                    prog, path, what);
            return GD_EXIT_USAGE;
        }
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_report *r = NULL;
    gpudiag_status st = read_and_analyze(path, s, &r, &err);
    if (st == GPUDIAG_OK)
        warn_input(r);
    if (st != GPUDIAG_OK) {
        print_error(&err);
        int code = gd_exit_for_status(st);
        if (code > t->worst)
            t->worst = code;
        return GD_PARSE_GO;
    }
    return emit_report(s, i, path, r, topts, t);
}

static gd_exit cmd_analyze_run(int argc, char **argv, gpudiag_ncu **ncu)
{
    settings s = {.json = 0, .quiet = 0, .verbose = 0, .color = -1, .width = 0, .fail_on = -1, .jobs = 0, .progress = 1};
    gd_trace_mfu_init(&s.tm);
    int rc = parse_analyze(argc, argv, &s);
    if (rc != GD_PARSE_GO)
        return rc;
    if (s.ncu) {
        gpudiag_error nerr;
        memset(&nerr, 0, sizeof nerr);
        gpudiag_status nst = gpudiag_ncu_read(s.ncu, ncu, &nerr);
        if (nst != GPUDIAG_OK) {
            print_error(&nerr);
            return gd_exit_for_status(nst);
        }
        s.aopts.ncu = *ncu;
    }
    if (s.color < 0) { /* an explicit --color or --no-color wins over NO_COLOR and the tty test */
        const char *nc = getenv("NO_COLOR");
        s.color = isatty(STDOUT_FILENO) && !(nc && nc[0]) ? 1 : 0;
    }
    gpudiag_text_opts topts = {s.color, s.verbose, s.width ? s.width : terminal_width()};
    int *found = calloc((size_t)s.npaths + 1, sizeof *found); /* --ranks: the ranks of the files seen */
    if (!found) {
        fprintf(stderr, "%s: error: out of memory\n", prog);
        return GD_EXIT_INTERNAL;
    }
    analyze_totals t = {GD_EXIT_OK, 0, found, 0, 0, 0};
    for (int i = 0; i < s.npaths; i++) {
        rc = analyze_path(&s, i, &topts, &t);
        if (rc != GD_PARSE_GO) {
            free(found);
            return rc;
        }
    }
    int worst = t.worst;
    if (s.use_ranks && t.nrank_inputs > 0 && t.nchosen == 0) {
        char have[256] = "";
        format_ranks(found, t.nfound, have, sizeof have);
        fprintf(stderr, "%s: error: --ranks %s matched %s %zu trace file%s; %s %s%s\n", prog,
                s.ranks_spec, t.nrank_inputs == 1 ? "not the" : "none of the", t.nrank_inputs,
                gd_plural(t.nrank_inputs), t.nrank_inputs == 1 ? "it has" : "they have", t.nfound ? "ranks " : "no distributedInfo rank", have);
        if (GD_EXIT_NOMATCH > worst)
            worst = GD_EXIT_NOMATCH;
    }
    free(found);
    if (worst == GD_EXIT_OK && t.matched)
        worst = GD_EXIT_FINDINGS;
    return worst;
}

gd_exit gd_cmd_analyze(int argc, char **argv)
{
    gpudiag_ncu *ncu = NULL; /* --ncu: lives across every PATH */
    int rc = cmd_analyze_run(argc, argv, &ncu);
    gpudiag_ncu_free(&ncu);
    return rc;
}
