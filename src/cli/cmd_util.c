/*
 * cmd_util.c — helpers shared by the cmd_*.c subcommands (see cmd.h).
 */
#define _POSIX_C_SOURCE 200809L /* fileno, poll, S_ISSOCK */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "gpudiag/compare.h"
#include "gpudiag/gpudiag.h"
#include "gpudiag/html.h"
#include "ingest/input.h"
#include "util/outfile.h"

int gd_reader_gone(int fd, int err)
{
    if (err == EPIPE)
        return 1;
    /* errno may have been overwritten since the failed write: ask the pipe.
     * Linux reports POLLERR on the write end of a pipe without readers
     * (POLLHUP on a socket the peer shut); a file or a terminal never. */
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !(S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
        return 0;
    struct pollfd p = {.fd = fd, .events = POLLOUT, .revents = 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

static int stdout_error_reported;

int gd_stdout_failed(void)
{
    int e = errno;
    if (!stdout_error_reported && !gd_reader_gone(STDOUT_FILENO, e))
        fprintf(stderr, "gpudiag: error: cannot write the report to standard output: %s\n",
                e ? strerror(e) : "write error");
    stdout_error_reported = 1;
    return GD_EXIT_INTERNAL;
}

/* stat of the directory a path names a file in */
static int stat_parent(const char *path, struct stat *sb)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof dir)
            return -1;
        memcpy(dir, path, n);
        dir[n] = '\0';
        if (n == 0)
            snprintf(dir, sizeof dir, "/");
    }
    return stat(dir, sb);
}

static int same_inode(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int gd_check_outputs(const char *const *opt_names, const char *const *outs, size_t nout, const char *const *ins,
                     size_t nin)
{
    for (size_t i = 0; i < nout; i++) {
        if (!outs[i] || strcmp(outs[i], "-") == 0)
            continue;
        struct stat so, sp;
        int exists = stat(outs[i], &so) == 0;
        int parent = stat_parent(outs[i], &sp) == 0;
        for (size_t j = 0; j < nin; j++) {
            struct stat si;
            if (strcmp(ins[j], "-") == 0 || stat(ins[j], &si) != 0)
                continue;
            if (exists && !S_ISDIR(si.st_mode) && same_inode(&so, &si)) {
                fprintf(stderr, "gpudiag: error: %s %s is the input %s: refusing to overwrite it\n", opt_names[i],
                        gd_tpath(outs[i]), gd_tpath(ins[j]));
                return -1;
            }
            if (parent && S_ISDIR(si.st_mode) && same_inode(&sp, &si)) {
                fprintf(stderr,
                        "gpudiag: error: %s %s would be written into the input directory %s (and read as one of "
                        "its inputs next time): write it elsewhere\n",
                        opt_names[i], gd_tpath(outs[i]), gd_tpath(ins[j]));
                return -1;
            }
        }
        for (size_t k = 0; k < i; k++) {
            struct stat sk;
            if (!outs[k] || strcmp(outs[k], "-") == 0)
                continue;
            int same = exists && stat(outs[k], &sk) == 0 ? same_inode(&so, &sk) : strcmp(outs[i], outs[k]) == 0;
            if (same) {
                fprintf(stderr, "gpudiag: error: %s and %s name the same file %s: give each its own\n", opt_names[k],
                        opt_names[i], gd_tpath(outs[i]));
                return -1;
            }
        }
    }
    return 0;
}

/* 1 if the file at path starts with SQLite's header ("SQLite format 3\0"). */
static int is_sqlite_file(const char *path)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t got = fread(head, 1, sizeof head, fp);
    fclose(fp);
    return got == sizeof head && memcmp(head, magic, sizeof magic) == 0;
}

int gd_check_writable(const char *const *opt_names, const char *const *outs, size_t nout)
{
    for (size_t i = 0; i < nout; i++) {
        if (!outs[i] || strcmp(outs[i], "-") == 0)
            continue;
        struct stat so, sp;
        const char *why = NULL;
        char dir[4096], probe_why[320];
        const char *slash = strrchr(outs[i], '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else if (slash == outs[i])
            snprintf(dir, sizeof dir, "/");
        else
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - outs[i]), outs[i]);
        if (outs[i][0] == '\0')
            why = "an empty file name";
        else if (stat(outs[i], &so) == 0) {
            if (S_ISDIR(so.st_mode))
                why = "is a directory";
            else if (access(outs[i], W_OK) != 0)
                why = strerror(errno);
            else if (S_ISREG(so.st_mode) && access(dir, W_OK | X_OK) != 0)
                why = "its directory is not writable (the file is replaced by a temporary written there)";
            else if (S_ISREG(so.st_mode) && is_sqlite_file(outs[i]))
                /* a new user's --trace-out replaced a shared Nsight export, read-only directory
                 * and all (root): data that no report can stand in for is never replaced */
                why = "it is an SQLite database (an Nsight Systems export?), which gpudiag never replaces: "
                      "remove it or choose another path";
        } else if (errno != ENOENT) {
            why = strerror(errno); /* e.g. a path through a file: ENOTDIR */
        } else if (slash && slash[1] == '\0') {
            why = "is a directory";
        } else if (stat_parent(outs[i], &sp) != 0) {
            why = errno == ENOTDIR ? "its directory is not a directory" : "its directory does not exist";
        } else if (!S_ISDIR(sp.st_mode)) {
            why = "its directory is not a directory";
        } else if (access(dir, W_OK | X_OK) != 0) {
            why = "its directory is not writable";
        }
        /* access() can say yes where no file can be made (root in /proc, a
         * read-only bind): create the temporary the write will use, and remove it */
        if (!why && gd_outfile_probe(outs[i]) != 0) {
            snprintf(probe_why, sizeof probe_why, "no file can be created in its directory (%s)", strerror(errno));
            why = probe_why;
        }
        if (why) {
            fprintf(stderr, "gpudiag: error: %s %s: cannot be written: %s (checked before anything is read or run)\n", opt_names[i],
                    gd_tpath(outs[i]), why);
            return -1;
        }
    }
    return 0;
}

void gd_once_init(gd_once *o, const struct option *opts)
{
    memset(o, 0, sizeof *o);
    o->opts = opts;
}

int gd_once_check(gd_once *o, int c, const char *arg)
{
    for (size_t i = 0; o->opts && o->opts[i].name && i < GD_ONCE_MAX; i++) {
        const struct option *e = &o->opts[i];
        if (e->val != c || e->flag || e->has_arg != required_argument)
            continue;
        const char *v = arg ? arg : "";
        if (o->val[i]) {
            char shortname[8] = "";
            if (c > ' ' && c < 127)
                snprintf(shortname, sizeof shortname, " (-%c)", c);
            fprintf(stderr, "gpudiag: error: --%s%s given twice ('%s', then '%s'): it takes one value\n", e->name,
                    shortname, o->val[i], v);
            return -1;
        }
        o->val[i] = v;
        return 0;
    }
    return 0;
}

gd_exit gd_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpudiag: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try 'gpudiag %s --help')\n", cmd);
    va_end(ap);
    return GD_EXIT_USAGE;
}

/* The long option of longopts whose value is val, or NULL. */
static const struct option *long_of(const struct option *longopts, int val)
{
    for (const struct option *o = longopts; o && o->name; o++)
        if (!o->flag && o->val == val)
            return o;
    return NULL;
}

gd_exit gd_bad_option(const char *cmd, int c, char **argv, const struct option *longopts)
{
    /* getopt_long has moved optind past a long option (the whole "--name=value"
     * argument), not always past a short one ("-zq": still on it): the failed
     * option is argv[optind - 1] only when that is the long option optopt
     * names (optopt 0: an unknown or ambiguous long option). */
    const char *prev = optind > 0 ? argv[optind - 1] : "";
    const struct option *o = optopt ? long_of(longopts, optopt) : NULL;
    int is_long = 0;
    if (prev && strncmp(prev, "--", 2) == 0 && prev[2]) {
        size_t n = strcspn(prev + 2, "=");
        is_long = optopt == 0 || (o && strncmp(o->name, prev + 2, n) == 0);
    }
    if (is_long && !o)
        return gd_usage_error(cmd, "unknown or ambiguous option '%s'", prev);
    if (is_long && c == ':')
        return gd_usage_error(cmd, "--%s needs a value", o->name);
    if (is_long)
        return gd_usage_error(cmd, "--%s takes no value, got '%s'", o->name, prev);
    if (optopt > 0 && optopt < 128 && c == ':' && o)
        return gd_usage_error(cmd, "-%c (--%s) needs a value", optopt, o->name);
    if (optopt > 0 && optopt < 128 && c == ':')
        return gd_usage_error(cmd, "-%c needs a value", optopt);
    if (optopt > 0 && optopt < 128)
        return gd_usage_error(cmd, "unknown option '-%c'", optopt);
    return gd_usage_error(cmd, "unknown or incomplete option '%s'", prev ? prev : "");
}

int gd_opt_word(const char *opt, const char *arg, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, words[i]) == 0)
            return i;
    fprintf(stderr, "gpudiag: error: %s wants ", opt);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
    fprintf(stderr, ", got '%s'\n", arg);
    return -1;
}

const char *const gd_metric_names_words[2] = {"gpudiag", "dcgm"};

int gd_list_values(const char *opt)
{
    if (strcmp(opt, "fail-on") == 0) { /* gd_opt_severity (cli/opts.c) */
        for (int i = GPUDIAG_SEV_INFO; i <= GPUDIAG_SEV_HIGH; i++)
            printf("%s\n", gpudiag_severity_name((gpudiag_severity)i));
    } else if (strcmp(opt, "recompute") == 0) { /* gd_opt_recompute */
        for (int i = GPUDIAG_RECOMPUTE_NONE; i <= GPUDIAG_RECOMPUTE_FULL; i++)
            printf("%s\n", gpudiag_recompute_name((gpudiag_recompute)i));
    } else if (strcmp(opt, "metric") == 0) { /* compare: gpudiag_compare_metric_parse */
        for (int i = 0; i < GPUDIAG_METRIC_COUNT; i++)
            printf("%s\n", gpudiag_compare_metric_name((gpudiag_compare_metric)i));
    } else if (strcmp(opt, "metric-names") == 0) {
        for (size_t i = 0; i < sizeof gd_metric_names_words / sizeof *gd_metric_names_words; i++)
            printf("%s\n", gd_metric_names_words[i]);
    } else {
        return -1;
    }
    return 0;
}

int gd_opt_recompute(const char *arg, gpudiag_recompute *out)
{
    /* in the order of gpudiag_recompute */
    static const char *const words[] = {"none", "selective", "full"};
    int i = gd_opt_word("--recompute", arg, words, 3);
    if (i < 0)
        return -1;
    *out = (gpudiag_recompute)i;
    return 0;
}

int gd_opt_number(const char *opt, const char *arg, int allow_suffix, double min, double max, double *out)
{
    char *end = NULL;
    double v = arg ? strtod(arg, &end) : NAN;
    if (arg && end && end != arg && allow_suffix && end[0] && !end[1]) {
        switch (end[0]) {
        case 'k': case 'K': v *= 1e3; end++; break;
        case 'M': case 'm': v *= 1e6; end++; break;
        case 'B': case 'b': case 'G': case 'g': v *= 1e9; end++; break;
        case 'T': case 't': v *= 1e12; end++; break;
        default: break;
        }
    }
    if (!arg || !end || end == arg || *end || !isfinite(v) || v < min || v > max) {
        fprintf(stderr, "gpudiag: error: %s wants a number from %g to %g%s, got '%s'\n", opt, min, max,
                allow_suffix ? " (k, M, B, T suffixes allowed)" : "", arg ? arg : "");
        return -1;
    }
    *out = v;
    return 0;
}

static void print_cb(void *ctx, const char *s, size_t len)
{
    gd_json *w = ctx;
    if (fwrite(s, 1, len, w->fp) != len)
        w->io_error = 1;
}

int gd_json_open(gd_json *w, FILE *fp, int pretty)
{
    w->fp = fp;
    w->io_error = 0;
    w->g = yajl_gen_alloc(NULL);
    if (!w->g)
        return -1;
    yajl_gen_config(w->g, yajl_gen_beautify, pretty ? 1 : 0);
    yajl_gen_config(w->g, yajl_gen_validate_utf8, 1);
    yajl_gen_config(w->g, yajl_gen_print_callback, print_cb, w);
    return 0;
}

int gd_json_close(gd_json *w)
{
    yajl_gen_free(w->g);
    w->g = NULL;
    if (fputc('\n', w->fp) == EOF)
        w->io_error = 1;
    return w->io_error ? -1 : 0;
}

void gd_json_key(gd_json *w, const char *k)
{
    yajl_gen_string(w->g, (const unsigned char *)k, strlen(k));
}

void gd_json_str(gd_json *w, const char *s)
{
    if (!s)
        yajl_gen_null(w->g);
    else
        yajl_gen_string(w->g, (const unsigned char *)s, strlen(s));
}

void gd_json_num(gd_json *w, double v)
{
    if (!isfinite(v)) {
        yajl_gen_null(w->g);
        return;
    }
    char b[64];
    if (v == floor(v) && fabs(v) < 9007199254740992.0) /* integral (counts, bytes): exact */
        snprintf(b, sizeof b, "%.0f", v);
    else
        snprintf(b, sizeof b, "%.9g", v);
    yajl_gen_number(w->g, b, strlen(b));
}

void gd_json_int(gd_json *w, long long v)
{
    yajl_gen_integer(w->g, v);
}

void gd_json_bool(gd_json *w, int v)
{
    yajl_gen_bool(w->g, v ? 1 : 0);
}

void gd_json_kv_num(gd_json *w, const char *k, double v)
{
    gd_json_key(w, k);
    gd_json_num(w, v);
}

void gd_json_kv_str(gd_json *w, const char *k, const char *s)
{
    gd_json_key(w, k);
    gd_json_str(w, s);
}

void gd_json_kv_int(gd_json *w, const char *k, long long v)
{
    gd_json_key(w, k);
    gd_json_int(w, v);
}

void gd_free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gd_is_trace_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && strcmp(n + l - 5, ".json") == 0) || (l > 8 && strcmp(n + l - 8, ".json.gz") == 0) ||
           (l > 7 && strcmp(n + l - 7, ".sqlite") == 0);
}

/* .json or .json.gz: a summary's name */
static int is_summary_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && strcmp(n + l - 5, ".json") == 0) || (l > 8 && strcmp(n + l - 8, ".json.gz") == 0);
}

/* dir + "/" + name, malloc'd (NULL on OOM), with dir's trailing slashes
 * dropped ("ranks/" and "ranks" give the same "ranks/x.json.gz"; "/" stays
 * "/"): the one place a directory's file paths are made, so reports name a
 * file the same whichever way the directory was typed. */
static char *join_path(const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    int root = dl == 1 && dir[0] == '/';
    size_t len = dl + strlen(name) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%.*s%s%s", (int)dl, dir, root ? "" : "/", name);
    return p;
}

/* gd_list_trace_dir, or with summaries set gd_list_summary_dir */
static gd_exit list_dir(const char *dir, int summaries, char ***names_out, size_t *n_out)
{
    *names_out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "gpudiag: error: %s: cannot open the directory: %s\n", gd_tpath(dir), strerror(errno));
        return GD_EXIT_INPUT;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !(summaries ? is_summary_name(de->d_name) : gd_is_trace_name(de->d_name)))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                goto oom;
            names = nn;
        }
        if (!(names[n] = join_path(dir, de->d_name)))
            goto oom;
        /* regular files only (a symlink to one counts): opening a FIFO
         * blocks until a writer comes, which hung `analyze DIR` (new-user
         * trial of issue 19); a FIFO named on the command line is still read */
        struct stat sb;
        const char *what = NULL;
        if (stat(names[n], &sb) != 0)
            what = NULL; /* e.g. a dangling symlink: the reader says why, as before */
        else if (S_ISFIFO(sb.st_mode))
            what = "a FIFO";
        else if (S_ISDIR(sb.st_mode))
            what = "a directory";
        else if (S_ISSOCK(sb.st_mode))
            what = "a socket";
        else if (!S_ISREG(sb.st_mode))
            what = "a device or other special file";
        if (what) {
            fprintf(stderr, "gpudiag: note: %s: skipped: %s, not a regular file\n", gd_tpath(names[n]), what);
            free(names[n]);
            continue;
        }
        n++;
    }
    closedir(d);
    if (n == 0) {
        if (summaries)
            fprintf(stderr,
                    "gpudiag: error: %s: no .json or .json.gz summary files in this directory (merge reads the "
                    "summaries 'gpudiag analyze --summary FILE TRACE' writes, not traces)\n",
                    dir);
        else
            fprintf(stderr, "gpudiag: error: %s: no .json, .json.gz or .sqlite trace files in this directory\n",
                    gd_tpath(dir));
        free(names);
        return GD_EXIT_INPUT;
    }
    qsort(names, n, sizeof *names, cmp_str);
    *names_out = names;
    *n_out = n;
    return GD_EXIT_OK;
oom:
    closedir(d);
    gd_free_names(names, n);
    fprintf(stderr, "gpudiag: error: out of memory\n");
    return GD_EXIT_INTERNAL;
}

gd_exit gd_list_trace_dir(const char *dir, char ***names_out, size_t *n_out)
{
    return list_dir(dir, 0, names_out, n_out);
}

gd_exit gd_list_summary_dir(const char *dir, char ***names_out, size_t *n_out)
{
    return list_dir(dir, 1, names_out, n_out);
}

gd_exit gd_exit_for_status(gpudiag_status st)
{
    switch (st) {
    case GPUDIAG_OK: return GD_EXIT_OK;
    case GPUDIAG_ERR_IO:
    case GPUDIAG_ERR_FORMAT: return GD_EXIT_INPUT;
    case GPUDIAG_ERR_ARG: return GD_EXIT_USAGE;
    case GPUDIAG_ERR_NOMEM:
    case GPUDIAG_ERR_INTERNAL: return GD_EXIT_INTERNAL;
    case GPUDIAG_ERR_NODEV: return GD_EXIT_NO_DEVICE;
    case GPUDIAG_ERR_NOMATCH: return GD_EXIT_NOMATCH;
    case GPUDIAG_ERR_MISMATCH: return GD_EXIT_MISMATCH;
    }
    return GD_EXIT_INTERNAL;
}

gd_exit gd_write_file(const char *prog, const char *file, const char *what,
                      gpudiag_status (*write)(FILE *fp, void *ctx, gpudiag_error *err), void *ctx)
{
    gd_outfile of;
    if (gd_outfile_open(&of, file) != 0) {
        fprintf(stderr, "%s: error: %s: cannot write %s: %s\n", prog, gd_tpath(file), what, strerror(errno));
        return GD_EXIT_INPUT;
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st;
    if (gd_outfile_gz_name(file)) {
        /* FILE.gz: the document is made in memory, then written gzip-compressed */
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        st = mem ? write(mem, ctx, &err) : GPUDIAG_ERR_IO;
        if (mem && fclose(mem) != 0 && st == GPUDIAG_OK)
            st = GPUDIAG_ERR_IO;
        if (st == GPUDIAG_OK && gd_outfile_put_gzip(&of, buf, len) != 0)
            st = GPUDIAG_ERR_IO;
        free(buf);
    } else {
        st = write(of.fp, ctx, &err);
    }
    int replacing = of.tmp != NULL; /* not a device or a FIFO written in place */
    if (gd_outfile_commit(&of, st != GPUDIAG_OK) != 0) {
        fprintf(stderr, "%s: error: %s: writing %s failed: %s%s\n", prog, gd_tpath(file), what,
                st != GPUDIAG_OK && st != GPUDIAG_ERR_IO ? err.message : strerror(errno),
                replacing ? " (no partial file is left; an old one is kept)" : "");
        return GD_EXIT_INPUT;
    }
    return GD_EXIT_OK;
}

typedef struct report_out {
    const gpudiag_report *r;
    int html;
} report_out;

static gpudiag_status put_report(FILE *fp, void *ctx, gpudiag_error *err)
{
    const report_out *x = ctx;
    return x->html ? gpudiag_report_write_html(x->r, fp, NULL, err) : gpudiag_report_write_json(x->r, fp, 1, err);
}

gd_exit gd_write_report_file(const char *prog, const gpudiag_report *r, const char *file, int html)
{
    report_out x = {r, html};
    return gd_write_file(prog, file, html ? "the HTML report" : "the JSON report", put_report, &x);
}

const char *gd_tpath(const char *path)
{
    static char buf[8][4096];
    static unsigned next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s", path ? path : "");
    gd_term_clean(b);
    return b;
}
