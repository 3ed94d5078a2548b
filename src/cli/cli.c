/*
 * cli.c — the `gpudiag` command line: the main usage text and the dispatch
 * table of commands; each command lives in its cmd_*.c (analyze in
 * cmd_analyze.c) and returns a documented exit code, written out here.
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, siginfo_t */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/cmd_live.h"
#include "cli/cmd_serve.h"
#include "gpudiag/gpudiag.h"
#include "ingest/formats.h"
#include "util/exit_codes.h"
#include "util/util.h" /* gd_map_find */

static const char *prog = "gpudiag";

static void usage_main(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag COMMAND [OPTIONS] ...\n"
            "\n"
            "Tells what your GPU is waiting for during training, and what to change.\n"
            "\n"
            "Commands:\n"
            "  analyze PATH...   diagnose PyTorch profiler (Kineto) traces (.json, .json.gz),\n"
            "                    Nsight Systems SQLite exports (nsys export --type sqlite) and\n"
            "                    GPU monitoring logs (each format: gpudiag analyze --help)\n"
            "  mfu ...           MFU / HFU from a model, its throughput and the GPU\n"
            "  plan ...          memory bill and time cost of a training setup, before running it\n"
            "  specs [NAME]      the built-in GPU table, or one GPU with its ridge points\n"
            "  run [OPTS] -- CMD run CMD, sample the GPUs it uses through NVML, diagnose when it exits\n"
            "  watch             live view of the GPUs through NVML, with a rolling verdict\n"
            "  serve             Prometheus exporter: dcgm-exporter metrics plus the rolling verdict\n"
            "  compare BASE NEW  did a change help? step time with confidence, utilization,\n"
            "                    findings and kernel diff; exit 1 on a regression (CI gate)\n"
            "  merge SUMMARY...  the job view of many ranks from per-rank summaries\n"
            "                    (analyze --summary FILE TRACE on each rank's node)\n"
            "\n"
            "Run 'gpudiag COMMAND --help' for the options of a command.  An option that takes a\n"
            "value is given once (a repeat is a usage error).\n"
            "\n"
            "Options:\n"
            "  -h, --help        show this help and exit\n"
            "  -V, --version     print the version and exit\n"
            "\n"
            "Exit status: 0 ran; 1 --fail-on matched or compare found a regression; 2 usage error;\n"
            "3 unreadable or malformed input; 4 no GPU/driver (live modes); 5 internal error;\n"
            "6 analyze --steps/--ranks selected nothing; 7 merge: summaries of another version or job.\n");
}

static int finish(int rc)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int wrc = gd_stdout_failed();
        return rc == GD_EXIT_OK || rc == GD_EXIT_FINDINGS ? wrc : rc;
    }
    return rc;
}

/* One row per command: argv[1]'s name, the function given argc - 1 and
 * argv + 1 (fn returns a gd_exit; fn_status, used by `run` alone, returns
 * its CMD's exit status), and whether it only writes reports (then SIGPIPE
 * and SIGXFSZ are ignored, see gd_cli_run). */
typedef struct cli_command {
    const char *name;
    gd_exit (*fn)(int argc, char **argv);
    int (*fn_status)(int argc, char **argv);
    int report_only;
} cli_command;

/* A memory-mapped trace (a regular file read with --jobs > 1, docs/PERFORMANCE.md
 * "Parallel ingest") that shrinks while it is read, or whose pages cannot be read
 * (an I/O error on a network file system), raises SIGBUS where read(2) would have
 * returned short or failed: one line and exit 3 (unreadable input) instead of a
 * death by signal.  Only async-signal-safe calls; the report is not written (outputs
 * go through a temporary file renamed at the end, so no file is left half-written). */
/* s into buf at *k (bounded by cap), async-signal-safe. */
static void put_str(char *buf, size_t cap, size_t *k, const char *s)
{
    while (*s && *k + 1 < cap)
        buf[(*k)++] = *s++;
}

static void put_u64(char *buf, size_t cap, size_t *k, uint64_t v)
{
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n > 0 && *k + 1 < cap)
        buf[(*k)++] = d[--n];
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)uctx;
    char msg[1024];
    size_t k = 0;
    const char *path;
    uint64_t off;
    put_str(msg, sizeof msg, &k, "gpudiag: error: ");
    if (si && gd_map_find(si->si_addr, &path, &off)) {
        /* the file and the byte whose page could not be read (gd_map_register) */
        put_str(msg, sizeof msg, &k, path);
        put_str(msg, sizeof msg, &k, ": byte ");
        put_u64(msg, sizeof msg, &k, off);
        put_str(msg, sizeof msg, &k, ": the file shrank or could not be read while it was being read");
    } else {
        put_str(msg, sizeof msg, &k, "an input file shrank or could not be read while it was being read");
    }
    put_str(msg, sizeof msg, &k, " (SIGBUS: the file is memory-mapped); no report was written; analyse a copy that "
                                 "is not being changed, or set GPUDIAG_NO_MMAP=1 to read it with read(2)\n");
    ssize_t w = write(2, msg, k);
    (void)w;
    _exit(GD_EXIT_INPUT);
}

static const cli_command commands[] = {
    {"analyze", gd_cmd_analyze, NULL, 1},
    {"specs", gd_cmd_specs, NULL, 1},
    {"mfu", gd_cmd_mfu, NULL, 1},
    {"watch", gd_cmd_watch, NULL, 0},
    {"serve", gd_cmd_serve, NULL, 0},
    {"run", NULL, gd_cmd_run, 0},
    {"plan", gd_cmd_plan, NULL, 1},
    {"compare", gd_cmd_compare, NULL, 1},
    {"merge", gd_cmd_merge, NULL, 1},
};

int gd_cli_run(int argc, char **argv)
{
    if (argc < 2) {
        usage_main(stderr);
        return GD_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage_main(stdout);
        return finish(GD_EXIT_OK);
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("gpudiag %s\n", GPUDIAG_VERSION);
        return finish(GD_EXIT_OK);
    }
    /* Hidden, for the shell completion (completion/gpudiag.bash): the command
     * names of the table above, the --format names of the format table
     * (src/ingest/formats.c) and the values of --fail-on, --recompute,
     * --metric and --metric-names (gd_list_values), one per line. */
    if (strcmp(cmd, "--list-commands") == 0) {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            printf("%s\n", commands[i].name);
        return finish(GD_EXIT_OK);
    }
    if (strcmp(cmd, "--list-values") == 0) {
        if (argc != 3 || gd_list_values(argv[2]) != 0) {
            fprintf(stderr, "gpudiag: error: --list-values wants one of fail-on, recompute, metric, metric-names\n");
            return GD_EXIT_USAGE;
        }
        return finish(GD_EXIT_OK);
    }
    if (strcmp(cmd, "--list-formats") == 0) {
        for (size_t i = 0; i < gd_format_count; i++)
            printf("%s\n", gd_formats[i]->name);
        return finish(GD_EXIT_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const cli_command *c = &commands[i];
        if (strcmp(cmd, c->name) != 0)
            continue;
        /* For the commands that only write reports, a closed pipe (gpudiag
         * analyze ... | head -1) becomes EPIPE and a file-size limit EFBIG
         * instead of a death by signal: exit 5 through gd_stdout_failed() (in
         * finish() at the latest), silent for EPIPE, one line for the others
         * (not for run/watch: their children would inherit the disposition;
         * serve handles SIGPIPE itself); and SIGBUS, for a mapped input that shrinks,
 * becomes exit 3 (on_sigbus). */
        if (c->report_only) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_sigbus;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGBUS, &sa, NULL);
            signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
            signal(SIGXFSZ, SIG_IGN);
#endif
        }
        return finish(c->fn ? (int)c->fn(argc - 1, argv + 1) : c->fn_status(argc - 1, argv + 1));
    }
    fprintf(stderr, "%s: error: unknown command '%s' (try 'gpudiag --help')\n", prog, cmd);
    return GD_EXIT_USAGE;
}
