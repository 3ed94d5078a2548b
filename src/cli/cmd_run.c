/*
 * cmd_run.c — `gpudiag run [OPTIONS] -- CMD ARGS...`: run a command, sample
 * the GPUs it uses through NVML while it runs, log every sample, and diagnose
 * the run when the command exits.
 *
 * Behaves like `time` or `nsys profile`: CMD keeps gpudiag's stdin, stdout
 * and stderr; SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to
 * gpudiag with kill(2) are forwarded to CMD (a terminal's Ctrl-C already
 * reaches CMD through the process group, so it is not sent twice); the exit
 * status is CMD's (128 + signal number when a signal killed it), and 125 /
 * 126 / 127 when gpudiag itself failed / CMD cannot be executed / CMD was not
 * found, as env(1) and timeout(1) do.  Usage errors exit 2 and no GPU or
 * driver exits 4, both before CMD is started.
 *
 * The log (docs/REPORT.md "The live log") is appended and flushed one sample
 * at a time and never rewritten, so it is complete up to the last sample even
 * if gpudiag is killed.  GPUs: --gpus, else CUDA_VISIBLE_DEVICES (indices or
 * UUID prefixes), else all; every chosen GPU is logged, and the diagnosis
 * covers those on which NVML listed a process of CMD's process tree (all
 * chosen GPUs when none was seen, e.g. in a container without the host's pid
 * namespace).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "util/util.h"
#include "cli/cmd_live.h"
#include "cli/live.h"
#include "gpudiag/html.h"
#include "gpudiag/series.h"
#include "model/markers.h"

enum { R_OPT_BACKEND = 300, R_OPT_GPUS, R_OPT_JSON, R_OPT_HTML };

static volatile sig_atomic_t run_child_pid;

/* Forward a signal sent with kill(2) to the child; one from the terminal
 * (si_code SI_KERNEL) reached the child through the process group already. */
static void forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (run_child_pid > 0 && (!si || si->si_code <= 0))
        kill((pid_t)run_child_pid, sig);
}

static void usage_run(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag run [OPTIONS] -- CMD [ARGS...]\n"
            "\n"
            "Run CMD, sample the GPUs it uses through NVML while it runs, write every sample to\n"
            "a log as it goes, and when CMD exits print the diagnosis of the run on stderr: the\n"
            "same analysis as 'gpudiag analyze LOG' (statistics per GPU, the three indicators,\n"
            "findings and the verdict).\n"
            "CMD keeps the terminal: stdin, stdout and stderr are untouched, and SIGINT, SIGTERM,\n"
            "SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 sent to gpudiag are forwarded to CMD.\n"
            "\n"
            "Options:\n"
            "  -i, --interval T      time between samples: 500ms, 2s, 1m (default 500ms)\n"
            "  -o, --output FILE     the sample log (default gpudiag-run-YYYYmmdd-HHMMSS.csv); a CSV\n"
            "                        with nvidia-smi --query-gpu names that 'gpudiag analyze' reads\n"
            "      --gpus LIST       GPUs to sample: NVML indices or UUID prefixes, comma-separated\n"
            "                        (default: CUDA_VISIBLE_DEVICES when set, else all)\n"
            "  -q, --quiet           print only the verdict line at the end\n"
            "      --json FILE       also write the report (schema gpudiag.report/1) to FILE\n"
            "                        (--json and --html gzip when FILE ends in .gz)\n"
            "      --html FILE       also write the report as a self-contained HTML page with the\n"
            "                        GPUs' compute, bandwidth and memory over time\n"
            "      --backend NAME    nvml (default) or test (synthetic GPUs; also $GPUDIAG_BACKEND)\n"
            "  -h, --help            show this help and exit\n"
            "\n"
            "Step markers: CMD may append 'step N [tokens T] [time UNIX_SECONDS]' lines to the\n"
            "file named in $GPUDIAG_MARKERS (set to LOG.steps unless already set); the report\n"
            "then gives step-time statistics, tokens/s and GPU-Util per step.\n"
            "\n"
            "Exit status: CMD's exit status (128+N when signal N killed it); 2 usage error and\n"
            "4 no GPU, driver or NVML library (both before CMD starts); 125 gpudiag failed;\n"
            "126 CMD cannot be executed; 127 CMD was not found.\n"
            "\n"
            "Example:\n"
            "  gpudiag run --interval 250ms -o train.csv -- python train.py --epochs 1\n");
}

/* Is pid `pid` the child or one of its descendants?  Walks /proc/PID/stat. */
static int in_tree(pid_t pid, pid_t root)
{
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        if (pid == root)
            return 1;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *fp = fopen(path, "r");
        if (!fp)
            return 0;
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        buf[n] = '\0';
        const char *rp = strrchr(buf, ')');
        int ppid = 0;
        if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
            return 0;
        pid = (pid_t)ppid;
    }
    return 0;
}

/* Select from CUDA_VISIBLE_DEVICES: integers are taken as NVML indices (true
 * when CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML's order), GPU-… as UUID prefixes.
 * Returns the number chosen, -1 when an entry matches nothing (then all). */
static int select_cvd(const gpudiag_sampler *s, const char *cvd, int *sel)
{
    char why[256];
    int n = gd_live_select(s, cvd, sel, why, sizeof why);
    if (n < 0)
        fprintf(stderr, "gpudiag: warning: CUDA_VISIBLE_DEVICES=%s: %s; sampling every GPU\n", cvd, why);
    return n;
}

/* Every sample's time and GPU-Util, for the per-step utilisation. */
typedef struct run_hist {
    double *t, *util;
    size_t *gpu;
    size_t n, cap;
} run_hist;

static void hist_add(run_hist *h, double t, double util, size_t gpu)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 1024;
        double *nt = realloc(h->t, cap * sizeof *nt);
        if (nt)
            h->t = nt;
        double *nu = realloc(h->util, cap * sizeof *nu);
        if (nu)
            h->util = nu;
        size_t *ng = realloc(h->gpu, cap * sizeof *ng);
        if (ng)
            h->gpu = ng;
        if (!nt || !nu || !ng)
            return;
        h->cap = cap;
    }
    h->t[h->n] = t;
    h->util[h->n] = util;
    h->gpu[h->n] = gpu;
    h->n++;
}

/* Write the run's report to path as JSON (html 0) or as the HTML page
 * (html 1): gd_write_report_file (gzip when the name ends in .gz); -1 with a
 * message naming the file on failure. */
static int write_report_file(const gpudiag_report *r, const char *path, int html)
{
    /* run has always written "-" as a file of that name, not standard output */
    return gd_write_report_file("gpudiag", r, strcmp(path, "-") == 0 ? "./-" : path, html) == GD_EXIT_OK ? 0 : -1;
}

/* Diagnose the run: the series of the GPUs the command used (all sampled
 * GPUs when none was seen) through the monitoring-log analysis, so the
 * report is the one `gpudiag analyze LOG` gives.  Returns 0, or -1 when the
 * analysis or a write failed (the message is printed). */
static int run_report(const gpudiag_series *all, const gpudiag_sampler *s, const int *sel, const int *used, size_t n,
                      size_t nused, const char *logname, const char *json, const char *html, int quiet)
{
    gpudiag_series *pick = NULL;
    gpudiag_report *r = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    int rc = -1;
    if (gpudiag_series_new("nvml", &pick) != GPUDIAG_OK)
        goto out;
    pick->time_source = all->time_source;
    pick->interval_us = all->interval_us;
    for (size_t i = 0; i < n; i++) {
        if (!sel[i] || (nused && !used[i]))
            continue;
        const gpudiag_gpu_info *info = gpudiag_sampler_gpu(s, i);
        for (size_t g = 0; g < all->gpu_count; g++) {
            const gpudiag_gpu_series *gs = &all->gpus[g];
            if (gs->index != (int)info->index)
                continue;
            long pg = gpudiag_series_gpu(pick, GPUDIAG_ENTITY_GPU, gs->index, -1, gs->uuid, NULL);
            if (pg < 0)
                goto out;
            memcpy(pick->gpus[pg].name, gs->name, sizeof gs->name);
            memcpy(pick->gpus[pg].bus_id, gs->bus_id, sizeof gs->bus_id);
            for (size_t k = 0; k < gs->count; k++) {
                double v[GPUDIAG_M_COUNT];
                for (int m = 0; m < GPUDIAG_M_COUNT; m++)
                    v[m] = gs->v[m] ? gs->v[m][k] : NAN;
                if (gpudiag_series_append(pick, (size_t)pg, gs->t_us[k], v) != GPUDIAG_OK)
                    goto out;
                pick->rows++;
            }
        }
    }
    if (gpudiag_series_analyze(pick, logname, &r, &err) != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: analysing the run: %s\n", err.message);
        goto out;
    }
    if (quiet) {
        fprintf(stderr, "gpudiag run: %s: %s\n", gpudiag_bottleneck_name(r->bottleneck), r->verdict ? r->verdict : "");
    } else {
        const char *nc = getenv("NO_COLOR");
        const char *cols = getenv("COLUMNS");
        long w = cols ? strtol(cols, NULL, 10) : 0;
        gpudiag_text_opts topts = {isatty(STDERR_FILENO) && !(nc && nc[0]), 0, (w >= 40 && w <= 1000) ? (int)w : 100};
        if (gpudiag_report_write_text(r, stderr, &topts, &err) != GPUDIAG_OK)
            goto out;
    }
    int unwritten = json && write_report_file(r, json, 0) != 0; /* the HTML is written even then */
    unwritten |= html && write_report_file(r, html, 1) != 0;
    if (unwritten)
        goto out;
    rc = 0;
out:
    if (rc != 0 && !err.message[0] && !r)
        fprintf(stderr, "gpudiag: error: out of memory while analysing the run\n");
    gpudiag_report_free(&r);
    gpudiag_series_free(&pick);
    return rc;
}

/* What the command line asked for. */
typedef struct run_settings {
    double interval;     /* seconds between samples */
    const char *output, *gpus, *backend, *json, *html; /* NULL unless given (borrowed from argv) */
    int quiet;
    char **cmd;          /* CMD and its arguments: argv's NULL-terminated tail */
} run_settings;

static const struct option run_longopts[] = {
    {"interval", required_argument, NULL, 'i'},
    {"output", required_argument, NULL, 'o'},
    {"gpus", required_argument, NULL, R_OPT_GPUS},
    {"quiet", no_argument, NULL, 'q'},
    {"json", required_argument, NULL, R_OPT_JSON},
    {"html", required_argument, NULL, R_OPT_HTML},
    {"backend", required_argument, NULL, R_OPT_BACKEND},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Parse argv into *o and check the output files.  GD_PARSE_GO to go on, else
 * the exit status (GD_EXIT_OK for --help; GD_EXIT_USAGE, or
 * GD_EXIT_RUN_FAILED for a report file that could not be written, after a
 * message). */
static int parse_run(int argc, char **argv, run_settings *o)
{
    memset(o, 0, sizeof *o);
    o->interval = 0.5;
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, run_longopts);
    while ((c = getopt_long(argc, argv, "+:i:o:qh", run_longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        switch (c) {
        case 'i':
            if (gd_live_time_option("interval", optarg, &o->interval) != 0)
                return GD_EXIT_USAGE;
            break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case R_OPT_GPUS: o->gpus = optarg; break;
        case R_OPT_JSON: o->json = optarg; break;
        case R_OPT_HTML: o->html = optarg; break;
        case R_OPT_BACKEND: o->backend = optarg; break;
        case 'h': usage_run(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("run", c, argv, run_longopts);
        }
    }
    char **cmd = argv + optind;
    int ncmd = argc - optind;
    if (ncmd > 0 && strcmp(cmd[0], "--") == 0) {
        cmd++;
        ncmd--;
    }
    if (ncmd <= 0 || !cmd[0][0]) {
        fprintf(stderr, "gpudiag: error: run needs a command: gpudiag run [OPTIONS] -- CMD [ARGS...]\n");
        return GD_EXIT_USAGE;
    }
    o->cmd = cmd;
    static const char *const names[] = {"--output", "--json", "--html"};
    const char *outs[] = {o->output, o->json, o->html};
    if (gd_check_outputs(names, outs, 3, NULL, 0) != 0)
        return GD_EXIT_USAGE;
    /* the reports are written when CMD ends, maybe hours later: check them now
     * (the sample log is created at once and says so itself) */
    const char *late[] = {NULL, o->json, o->html};
    if (gd_check_writable(names, late, 3) != 0)
        return GD_EXIT_RUN_FAILED;
    return GD_PARSE_GO;
}

/* One run's state, from the sampler's opening to the report; gd_cmd_run
 * frees it. */
typedef struct run_state {
    gpudiag_sampler *s;
    size_t n;                /* GPUs the sampler sees */
    int *sel, *used;         /* n each: sampled; a process of CMD was seen on it */
    size_t nsel, nused, samples;
    gd_live_window *win;     /* n */
    FILE *log;
    char logname[512];
    char mpath[600];         /* the step-marker file */
    int own_markers;         /* 1: ours (LOG.steps), 0: $GPUDIAG_MARKERS, -1: none this run */
    gd_markers mk;
    run_hist hist;
    gpudiag_series *ser;
    pid_t child;
    int status;              /* waitpid's */
    sigset_t chld, old;      /* SIGCHLD; the mask before it was blocked */
    double wall;             /* seconds CMD ran */
} run_state;

/* Which GPUs to sample: --gpus, else CUDA_VISIBLE_DEVICES, else all
 * (st->sel, st->nsel).  GD_EXIT_OK, or GD_EXIT_USAGE after a message. */
static int run_choose_gpus(const run_settings *o, run_state *st)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (o->gpus) {
        char why[256];
        if (gd_live_select(st->s, o->gpus, st->sel, why, sizeof why) < 0) {
            fprintf(stderr, "gpudiag: error: --gpus: %s\n", why);
            return GD_EXIT_USAGE;
        }
    } else if (cvd && select_cvd(st->s, cvd, st->sel) >= 0) {
        /* chosen by CUDA_VISIBLE_DEVICES (possibly none: CVD="" hides every GPU) */
    } else {
        for (size_t i = 0; i < st->n; i++)
            st->sel[i] = 1;
    }
    for (size_t i = 0; i < st->n; i++)
        st->nsel += st->sel[i] != 0;
    if (st->nsel == 0)
        fprintf(stderr, "gpudiag: warning: CUDA_VISIBLE_DEVICES='%s' hides every GPU: nothing to sample\n",
                cvd ? cvd : "");
    return GD_EXIT_OK;
}

/* Create the sample log (its header written), the series the report is
 * made from, and the step-marker file ($GPUDIAG_MARKERS, set to LOG.steps
 * when unset).  GD_EXIT_OK, or GD_EXIT_RUN_FAILED after a message. */
static int run_open_log(const run_settings *o, run_state *st)
{
    if (o->output) {
        snprintf(st->logname, sizeof st->logname, "%s", o->output);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(st->logname, sizeof st->logname, "gpudiag-run-%Y%m%d-%H%M%S.csv", &tm);
    }
    st->log = fopen(st->logname, "w");
    if (!st->log) {
        fprintf(stderr, "gpudiag: error: %s: cannot create the sample log: %s\n", st->logname, strerror(errno));
        return GD_EXIT_RUN_FAILED;
    }
    gd_live_csv_header(st->log);
    fflush(st->log);
    if (gpudiag_series_new("nvml", &st->ser) != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: out of memory\n");
        return GD_EXIT_RUN_FAILED;
    }
    st->ser->time_source = GPUDIAG_TIME_ABSOLUTE;
    st->ser->interval_us = (int64_t)llround(o->interval * 1e6);

    /* step markers: the script appends to $GPUDIAG_MARKERS (ours when unset) */
    const char *menv = getenv("GPUDIAG_MARKERS");
    st->own_markers = !(menv && menv[0]);
    if (st->own_markers) {
        snprintf(st->mpath, sizeof st->mpath, "%s.steps", st->logname);
        FILE *mf = fopen(st->mpath, "w");
        if (mf)
            fclose(mf);
        if (!mf || setenv("GPUDIAG_MARKERS", st->mpath, 1) != 0)
            st->own_markers = -1; /* no markers this run */
    } else {
        snprintf(st->mpath, sizeof st->mpath, "%s", menv);
    }
    gd_markers_init(&st->mk, st->mpath);
    return GD_EXIT_OK;
}

/* Start CMD with SIGCHLD blocked (st->old: the mask before).  GD_EXIT_OK
 * when it runs (st->child); else, after a message, GD_EXIT_RUN_FAILED (pipe
 * or fork failed) or GD_EXIT_RUN_NOTFOUND / GD_EXIT_RUN_NOEXEC (exec failed:
 * the empty log and marker file are removed, the mask restored). */
static int run_start(const run_settings *o, run_state *st)
{
    char **cmd = o->cmd;
    int pfd[2];
    if (pipe(pfd) != 0 || fcntl(pfd[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(pfd[1], F_SETFD, FD_CLOEXEC) != 0) {
        fprintf(stderr, "gpudiag: error: pipe: %s\n", strerror(errno));
        return GD_EXIT_RUN_FAILED;
    }
    sigemptyset(&st->chld);
    sigaddset(&st->chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &st->chld, &st->old);
    fflush(NULL);
    st->child = fork();
    if (st->child < 0) {
        fprintf(stderr, "gpudiag: error: fork: %s\n", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        sigprocmask(SIG_SETMASK, &st->old, NULL);
        return GD_EXIT_RUN_FAILED;
    }
    if (st->child == 0) {
        sigprocmask(SIG_SETMASK, &st->old, NULL);
        close(pfd[0]);
        if (st->log)
            close(fileno(st->log));
        execvp(cmd[0], cmd);
        int e = errno;
        ssize_t w = write(pfd[1], &e, sizeof e);
        (void)w;
        _exit(e == ENOENT || e == ENOTDIR ? GD_EXIT_RUN_NOTFOUND : GD_EXIT_RUN_NOEXEC);
    }
    close(pfd[1]);
    int exec_errno = 0;
    ssize_t got;
    do
        got = read(pfd[0], &exec_errno, sizeof exec_errno);
    while (got < 0 && errno == EINTR);
    close(pfd[0]);
    if (got != (ssize_t)sizeof exec_errno)
        return GD_EXIT_OK;
    while (waitpid(st->child, &st->status, 0) < 0 && errno == EINTR)
        ;
    sigprocmask(SIG_SETMASK, &st->old, NULL);
    int notfound = exec_errno == ENOENT || exec_errno == ENOTDIR;
    fprintf(stderr, "gpudiag: error: %s: %s%s\n", cmd[0], notfound ? "command not found" : "cannot execute: ",
            notfound ? "" : strerror(exec_errno));
    fclose(st->log);
    st->log = NULL;
    (void)gd_remove_partial_output(st->logname); /* nothing was sampled */
    if (st->own_markers > 0)
        (void)gd_remove_partial_output(st->mpath);
    return notfound ? GD_EXIT_RUN_NOTFOUND : GD_EXIT_RUN_NOEXEC;
}

/* One reading of every selected GPU: into the window, the history, the
 * series and the log (*log_ok cleared, with a warning, when a write fails). */
static void run_sample_once(run_state *st, int *log_ok)
{
    for (size_t i = 0; i < st->n; i++) {
        if (!st->sel[i])
            continue;
        gpudiag_gpu_sample smp;
        gpudiag_sampler_read(st->s, i, &smp, NULL);
        gd_live_window_push(&st->win[i], &smp);
        hist_add(&st->hist, smp.t_s, smp.gpu_util_pct, i);
        if (gpudiag_series_append_sample(st->ser, gpudiag_sampler_gpu(st->s, i), &smp, NULL) == GPUDIAG_OK)
            st->ser->rows++;
        for (size_t k = 0; k < smp.process_count && !st->used[i]; k++)
            if (in_tree((pid_t)smp.processes[k].pid, st->child))
                st->used[i] = 1;
        if (*log_ok) {
            gd_live_csv_row(st->log, gpudiag_sampler_gpu(st->s, i), &smp);
            if (ferror(st->log)) {
                fprintf(stderr, "gpudiag: warning: %s: write failed (%s); sampling goes on without the log\n",
                        st->logname, strerror(errno));
                *log_ok = 0;
            }
        }
    }
    if (*log_ok && fflush(st->log) != 0) {
        fprintf(stderr, "gpudiag: warning: %s: write failed (%s); sampling goes on without the log\n", st->logname,
                strerror(errno));
        *log_ok = 0;
    }
}

/* Sample every interval until CMD exits (st->status, st->wall,
 * st->samples), forwarding the signals sent to gpudiag meanwhile; then
 * restore the signal handlers and mask and close the log. */
static void run_sample_loop(const run_settings *o, run_state *st)
{
    run_child_pid = st->child;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    struct sigaction saved[sizeof fwd / sizeof fwd[0]];
    for (size_t k = 0; k < sizeof fwd / sizeof fwd[0]; k++)
        sigaction(fwd[k], &sa, &saved[k]);

    int log_ok = 1, exited = 0;
    double t0 = gd_mono_s();
    while (!exited) {
        double tick = gd_mono_s();
        run_sample_once(st, &log_ok);
        st->samples++;
        if (st->own_markers >= 0)
            gd_markers_poll(&st->mk, gd_wall_s());
        /* wait for the next tick or the child's exit, whichever comes first */
        for (;;) {
            pid_t w = waitpid(st->child, &st->status, WNOHANG);
            if (w == st->child) {
                exited = 1;
                break;
            }
            double left = tick + o->interval - gd_mono_s();
            if (left <= 0)
                break;
            struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
            int sig = sigtimedwait(&st->chld, NULL, &ts);
            if (sig < 0 && errno == EAGAIN)
                break;
        }
    }
    st->wall = gd_mono_s() - t0;
    if (st->own_markers >= 0)
        gd_markers_poll(&st->mk, gd_wall_s());
    run_child_pid = 0;
    for (size_t k = 0; k < sizeof fwd / sizeof fwd[0]; k++)
        sigaction(fwd[k], &saved[k], NULL);
    sigprocmask(SIG_SETMASK, &st->old, NULL);
    if (fclose(st->log) != 0 && log_ok)
        fprintf(stderr, "gpudiag: warning: %s: %s\n", st->logname, strerror(errno));
    st->log = NULL;
}

/* After CMD exited: the summary line, the diagnosis and the per-step
 * report on stderr, the report files.  Returns the exit status: CMD's
 * (128 + N when signal N killed it), GD_EXIT_RUN_FAILED when CMD succeeded
 * but the report failed. */
static int run_finish(const run_settings *o, run_state *st)
{
    int status = st->status;
    int code = WIFEXITED(status)     ? WEXITSTATUS(status)
               : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                     : GD_EXIT_RUN_FAILED;
    for (size_t i = 0; i < st->n; i++)
        st->nused += st->used[i] != 0;
    size_t nsel = st->nsel, nused = st->nused, samples = st->samples;
    if (!o->quiet) {
        /* one sample = one reading of every selected GPU: the count is per GPU */
        fprintf(stderr, "\ngpudiag run: %s %s after %.1f s (%zu GPU%s, %zu sample%s%s every %.0f ms), log: %s\n",
                o->cmd[0], WIFSIGNALED(status) ? "was killed" : "exited", st->wall, nsel, nsel == 1 ? "" : "s",
                samples, samples == 1 ? "" : "s", nsel > 1 ? " each" : "", o->interval * 1000.0, st->logname);
        if (nsel && nused == 0)
            fprintf(stderr, "gpudiag run: no process of the command was seen in NVML's process lists; "
                            "the diagnosis covers every sampled GPU\n");
    }
    if (nsel > 0 &&
        run_report(st->ser, st->s, st->sel, st->used, st->n, nused, st->logname, o->json, o->html, o->quiet) != 0 &&
        code == 0)
        code = GD_EXIT_RUN_FAILED;
    if (!o->quiet && st->own_markers >= 0 && (st->mk.n > 0 || !st->own_markers)) {
        run_hist *hist = &st->hist;
        size_t k = 0;
        for (size_t i = 0; i < hist->n; i++) /* keep the diagnosed GPUs' samples */
            if (nused == 0 || st->used[hist->gpu[i]]) {
                hist->t[k] = hist->t[i];
                hist->util[k] = hist->util[i];
                k++;
            }
        gd_markers_report(&st->mk, hist->t, hist->util, k, stderr);
    }
    if (st->own_markers > 0 && st->mk.n == 0 && st->mk.bad == 0)
        (void)gd_remove_partial_output(st->mpath); /* the command wrote no markers: leave no empty file */
    return code;
}

int gd_cmd_run(int argc, char **argv)
{
    run_settings o;
    int code = parse_run(argc, argv, &o);
    if (code != GD_PARSE_GO)
        return code;
    code = GD_EXIT_OK;
    run_state st;
    memset(&st, 0, sizeof st);
    st.child = -1;
    st.s = gd_live_open(o.backend, &code);
    if (!st.s)
        return code;
    st.n = gpudiag_sampler_gpu_count(st.s);
    st.sel = calloc(st.n, sizeof *st.sel);
    st.used = calloc(st.n, sizeof *st.used);
    st.win = calloc(st.n, sizeof *st.win);
    if (!st.sel || !st.used || !st.win) {
        fprintf(stderr, "gpudiag: error: out of memory\n");
        code = GD_EXIT_RUN_FAILED;
    }
    if (code == GD_EXIT_OK)
        code = run_choose_gpus(&o, &st);
    if (code == GD_EXIT_OK)
        code = run_open_log(&o, &st);
    if (code == GD_EXIT_OK)
        code = run_start(&o, &st);
    if (code == GD_EXIT_OK) {
        run_sample_loop(&o, &st);
        code = run_finish(&o, &st);
    }
    if (st.log)
        fclose(st.log);
    gd_markers_free(&st.mk);
    gpudiag_series_free(&st.ser);
    free(st.hist.t);
    free(st.hist.util);
    free(st.hist.gpu);
    free(st.sel);
    free(st.used);
    free(st.win);
    gpudiag_sampler_free(&st.s);
    return code;
}
