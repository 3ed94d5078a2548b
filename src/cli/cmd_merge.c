/*
 * cmd_merge.c — gpudiag merge SUMMARY|DIR...: the job view of `analyze DIR`
 * from per-rank summaries (gpudiag/summary.h), so each rank's trace is
 * analysed where it was written and only kilobytes travel (issue 22).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "gpudiag/gpudiag.h"
#include "gpudiag/summary.h"
#include "util/exit_codes.h"

static const char *prog = "gpudiag";

static void usage(FILE *fp)
{
    fprintf(fp, "usage: gpudiag merge [options] SUMMARY|DIR...\n"
                "\n"
                "The job view of 'gpudiag analyze DIR' (ranks side by side, the straggler, collective\n"
                "waits, verdict) from per-rank summaries, written where each rank's trace is with\n"
                "'gpudiag analyze --summary FILE TRACE'.  A DIR is read as its .json and .json.gz\n"
                "files.  The JSON is byte-identical to 'analyze --json' on a directory of the traces;\n"
                "merging is associative and order-independent (merge --summary writes a summary\n"
                "that merges again).  Summaries from another gpudiag version, or naming another job\n"
                "(GPUDIAG_JOB_ID, SLURM_ARRAY_JOB_ID or SLURM_JOB_ID when written), or one naming a\n"
                "job mixed with one naming none, or of two --steps windows, are refused.\n"
                "\n"
                "options:\n"
                "      --json            the job view as JSON on standard output\n"
                "  -o, --output FILE     also write the job view as JSON to FILE (every kernel, as\n"
                "                        'analyze --save FILE DIR' writes it)\n"
                "      --summary FILE    also write the merged summary to FILE (to merge again)\n"
                "                        (-o and --summary gzip when FILE ends in .gz)\n"
                "  -q, --quiet           only the verdict line\n"
                "  -h, --help            this help\n"
                "\n"
                "Exit status: 0 ran; 2 usage error; 3 unreadable or malformed input (a file that is\n"
                "not a summary) or an unwritable output; 5 internal error; 7 summaries of another\n"
                "version or job, or one rank given twice (the same rank, world size and numbers:\n"
                "the same summary twice, a merged summary and one of its ranks, or one trace\n"
                "under two paths or names).\n");
}

/* Read one summary file or every .json/.json.gz of a directory into *acc. */
static int read_path(const char *path, gpudiag_summary **acc)
{
    struct stat sb;
    char **names = NULL;
    size_t n = 1;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        gd_exit lrc = gd_list_summary_dir(path, &names, &n);
        if (lrc != GD_EXIT_OK)
            return lrc;
    }
    int rc = GD_EXIT_OK;
    for (size_t i = 0; i < n && rc == GD_EXIT_OK; i++) {
        const char *file = names ? names[i] : path;
        gpudiag_error err;
        memset(&err, 0, sizeof err);
        gpudiag_summary *one = NULL;
        gpudiag_status st = gpudiag_summary_read(file, &one, &err);
        if (st == GPUDIAG_OK && !*acc) {
            *acc = one;
            continue;
        }
        if (st == GPUDIAG_OK && (st = gpudiag_summary_merge(*acc, &one, &err)) != GPUDIAG_OK)
            snprintf(err.path, sizeof err.path, "%s", file);
        gpudiag_summary_free(&one);
        if (st == GPUDIAG_OK)
            continue;
        if (err.offset >= 0 && err.path[0])
            fprintf(stderr, "%s: error: %s: byte %lld: %s\n", prog, gd_tpath(err.path), (long long)err.offset,
                    err.message);
        else if (err.path[0])
            fprintf(stderr, "%s: error: %s: %s\n", prog, gd_tpath(err.path), err.message);
        else
            fprintf(stderr, "%s: error: %s\n", prog, err.message);
        rc = gd_exit_for_status(st);
    }
    gd_free_names(names, names ? n : 0);
    return rc;
}

/* merge -o: the job view with every kernel, as analyze --save writes it */
typedef struct view_ctx {
    gpudiag_summary *s;
    const gpudiag_cluster *c;
} view_ctx;

static gpudiag_status write_view(FILE *fp, void *ctx, gpudiag_error *err)
{
    const view_ctx *x = ctx;
    return gpudiag_summary_write_cluster_json(x->s, x->c, fp, GPUDIAG_JSON_PRETTY | GPUDIAG_JSON_ALL_KERNELS, err);
}

/* merge --summary: the merged summary */
static gpudiag_status write_merged(FILE *fp, void *ctx, gpudiag_error *err)
{
    return gpudiag_summary_write_json(ctx, fp, 0, err);
}

gd_exit gd_cmd_merge(int argc, char **argv)
{
    int json = 0, quiet = 0;
    const char *out = NULL, *summary = NULL;
    enum { OPT_JSON = 128, OPT_SUMMARY };
    static const struct option longs[] = {{"json", no_argument, NULL, OPT_JSON},
                                          {"output", required_argument, NULL, 'o'},
                                          {"summary", required_argument, NULL, OPT_SUMMARY},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    opterr = 0;
    optind = 1;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, longs);
    int ch;
    while ((ch = getopt_long(argc, argv, "+o:qh", longs, NULL)) != -1) {
        if (gd_once_check(&once, ch, optarg) != 0)
            return GD_EXIT_USAGE;
        switch (ch) {
        case OPT_JSON: json = 1; break;
        case 'o': out = optarg; break;
        case OPT_SUMMARY: summary = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return GD_EXIT_OK;
        default:
            fprintf(stderr, "%s: error: unknown or incomplete option '%s' (try 'gpudiag merge --help')\n", prog,
                    argv[optind - 1]);
            return GD_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: error: merge needs summaries or directories of them (try 'gpudiag merge --help')\n", prog);
        return GD_EXIT_USAGE;
    }
    if (json && quiet) {
        fprintf(stderr, "%s: error: --json and --quiet both choose what goes to standard output; give one\n", prog);
        return GD_EXIT_USAGE;
    }
    static const char *const names[] = {"--output", "--summary"};
    const char *outs[] = {out, summary};
    if (gd_check_outputs(names, outs, 2, (const char *const *)(argv + optind), (size_t)(argc - optind)) != 0)
        return GD_EXIT_USAGE;
    if (gd_check_writable(names, outs, 2) != 0)
        return GD_EXIT_INPUT;
    gpudiag_summary *acc = NULL;
    for (int i = optind; i < argc; i++) {
        int rc = read_path(argv[i], &acc);
        if (rc != GD_EXIT_OK) {
            gpudiag_summary_free(&acc);
            return rc;
        }
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_cluster *c = NULL;
    gpudiag_status st = gpudiag_summary_cluster(acc, &c, &err);
    int worst = GD_EXIT_OK;
    if (st == GPUDIAG_OK && summary)
        worst = gd_write_file(prog, summary, "the summary", write_merged, acc);
    view_ctx view = {acc, c};
    if (st == GPUDIAG_OK && out) {
        int rc = gd_write_file(prog, out, "the job view", write_view, &view);
        worst = rc > worst ? rc : worst;
    }
    if (st == GPUDIAG_OK) {
        if (json) {
            st = gpudiag_summary_write_cluster_json(acc, c, stdout, GPUDIAG_JSON_PRETTY, &err);
        } else if (quiet) {
            printf("%s\n", c->verdict);
        } else {
            const char *nc = getenv("NO_COLOR");
            gpudiag_text_opts topts = {isatty(STDOUT_FILENO) && !(nc && nc[0]), 0, 100};
            st = gpudiag_cluster_write_text(c, stdout, &topts, &err);
            printf("(each rank's full report: gpudiag merge --json)\n");
        }
    }
    if (st == GPUDIAG_ERR_IO) {
        worst = gd_stdout_failed();
    } else if (st != GPUDIAG_OK) {
        fprintf(stderr, "%s: error: %s\n", prog, err.message);
        worst = gd_exit_for_status(st);
    }
    gpudiag_cluster_free(&c);
    gpudiag_summary_free(&acc);
    return worst;
}
