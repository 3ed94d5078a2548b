/*
 * cmd.h — the subcommands that live in their own files (cmd_*.c), and the
 * small helpers they share: exit codes, number options, a JSON writer.
 */
#ifndef GD_CLI_CMD_H
#define GD_CLI_CMD_H

#include <getopt.h>
#include <stdio.h>

#include <yajl/yajl_gen.h>

#include "gpudiag/mfu.h"
#include "gpudiag/series.h"
#include "util/exit_codes.h"
#include "util/util.h"

/* The documented exit codes: util/exit_codes.h, one list for every command. */

/* A command parses its argv into a settings struct first, then acts: the
 * parse returns GD_PARSE_GO to go on, or the exit status to end with
 * (--help: GD_EXIT_OK; a usage error it has said: GD_EXIT_USAGE). */
#define GD_PARSE_GO (-1)

/* gpudiag analyze PATH... (cmd_analyze.c): argv[0] is "analyze"; parses its
 * options, reads and analyzes every PATH, prints the reports; returns the
 * exit status (GD_EXIT_FINDINGS when --fail-on matched, GD_EXIT_NOMATCH
 * when --steps/--ranks selected nothing, ...: util/exit_codes.h). */
gd_exit gd_cmd_analyze(int argc, char **argv);
/* gpudiag merge SUMMARY|DIR... (cmd_merge.c): the job view from per-rank
 * summaries; argv[0] is "merge". */
gd_exit gd_cmd_merge(int argc, char **argv);
/* Write FILE through a temporary renamed into place (util/outfile.h), the
 * bytes from write(fp, ctx, err): a failed write leaves the old FILE, never a
 * part.  On failure prints "PROG: error: FILE: cannot write WHAT: ..." or
 * "... writing WHAT failed: ..." and returns GD_EXIT_INPUT; else GD_EXIT_OK. */
gd_exit gd_write_file(const char *prog, const char *file, const char *what,
                      gpudiag_status (*write)(FILE *fp, void *ctx, gpudiag_error *err), void *ctx);
/* The report r as JSON (html 0) or as the HTML page (html 1) into FILE
 * through gd_write_file: a temporary renamed into place, gzip-compressed when
 * FILE ends in .gz (gd_outfile_gz_name), "-" standard output.  The one writer
 * of report files (analyze --html, run --json / --html); returns as
 * gd_write_file, naming "the HTML report" / "the JSON report". */
gd_exit gd_write_report_file(const char *prog, const gpudiag_report *r, const char *file, int html);
/* The exit status for a library status (GPUDIAG_ERR_IO -> GD_EXIT_INPUT, ...). */
gd_exit gd_exit_for_status(gpudiag_status st);

/* A path for the terminal: a copy with control characters, C1 controls and bidirectional
 * overrides each replaced by '?' (gd_term_clean), as the text report prints paths (a file named
 * "esc\033[31m.json", or with a newline in its name, reached the terminal raw in -q output and in
 * messages: a new user's trial).  One of eight static buffers, so up to eight may be used in one
 * call; the CLI prints from one thread.  Paths longer than 4095 bytes are cut; NULL reads as "". */
const char *gd_tpath(const char *path);
/* gpudiag specs [NAME], gpudiag mfu, gpudiag plan: argv[0] is the command name. */
gd_exit gd_cmd_specs(int argc, char **argv);
gd_exit gd_cmd_mfu(int argc, char **argv);
gd_exit gd_cmd_plan(int argc, char **argv);

/* Parse a finite number (decimal or 1e9 notation, with an optional k/M/B/T
 * suffix = 1e3/1e6/1e9/1e12 when allow_suffix) into *out.  On failure print
 * "gpudiag: error: OPT wants ..., got 'ARG'" and return -1. */
int gd_opt_number(const char *opt, const char *arg, int allow_suffix, double min, double max, double *out);

/* Refuse output files that would destroy an input or each other, before
 * anything is read or written.  outs[i] is the file given to option
 * opt_names[i] (NULL or "-" = not given / standard output); ins are the
 * paths of every file the command reads (trace files or directories, and
 * option inputs such as --ncu; "-" skipped).  An output is refused
 * when it is the same file as an input (same device and inode, so a symlink
 * or another spelling is caught), when it would be created inside an input
 * directory (it would be read as one of its inputs next time), or when two
 * outputs are the same file.  Prints "gpudiag: error: ..." naming both and
 * returns -1 (the caller exits 2); 0 when all is well. */
int gd_check_outputs(const char *const *opt_names, const char *const *outs, size_t nout, const char *const *ins,
                     size_t nin);

/* Before anything is read: can each output (outs[i] of option opt_names[i];
 * NULL or "-" skipped) be written?  Refused when it is a directory, its
 * directory does not exist or is not one, or the file or its directory is
 * not writable by this process (access(2); root passes that test).  Nothing
 * is created.  Prints "gpudiag: error: OPT FILE: ..." and returns -1 (the
 * caller exits 3, as for a failed write); 0 when all can be written. */
int gd_check_writable(const char *const *opt_names, const char *const *outs, size_t nout);

/* The trace files of a directory of rank traces (names gd_is_trace_name
 * accepts, not starting with '.'), as "DIR/NAME" paths sorted by strcmp:
 * *names (malloc'd array of malloc'd strings; free with gd_free_names) and
 * *n.  Used by `analyze DIR` and `compare DIR DIR`.  On failure prints
 * "gpudiag: error: ..." and returns GD_EXIT_INPUT (cannot open the directory;
 * no trace file in it) or GD_EXIT_INTERNAL (out of memory), with *names NULL
 * and *n 0; GD_EXIT_OK otherwise. */
gd_exit gd_list_trace_dir(const char *dir, char ***names, size_t *n);
/* As gd_list_trace_dir for `merge DIR`: the .json and .json.gz files (no
 * .sqlite), and "no ... summary files" when there is none. */
gd_exit gd_list_summary_dir(const char *dir, char ***names, size_t *n);
/* Free n strings and the array (NULL: nothing). */
void gd_free_names(char **names, size_t n);

/* 1 when a write to fd failed because its reader went away: err (the
 * errno of the failed write) is EPIPE, or fd is a pipe or socket whose other
 * end is closed (asked with poll(), in case errno was overwritten since).
 * SIGPIPE must be ignored for the write to fail with EPIPE at all (cli.c
 * does so for the report-only commands). */
int gd_reader_gone(int fd, int err);

/* The one place a failed write of a report to standard output ends up (every
 * report-writing command: analyze, compare, specs, mfu, plan; through
 * finish() in cli.c).  Call right after the failure, with errno still that of
 * the failed write.  Prints "gpudiag: error: cannot write the report to
 * standard output: REASON" once per process, except when the reader closed
 * the pipe (gd_reader_gone: `gpudiag analyze T | head -1`), which is not an
 * error worth a line, as in other command-line tools; a full disk or a file
 * size limit is always reported.  Returns GD_EXIT_INTERNAL (5, documented:
 * docs/gpudiag.1 EXIT STATUS) either way. */
int gd_stdout_failed(void);

/* Options that take one value, given twice (`--save A --save B`), are
 * refused instead of silently keeping the last: one gd_once per parse, over
 * the getopt_long table that parse uses (its required_argument entries are
 * the single-valued options; flags may repeat).  Entries past GD_ONCE_MAX
 * are not checked. */
#define GD_ONCE_MAX 96
typedef struct gd_once {
    const struct option *opts;    /* the getopt_long table, ending with a zero entry; borrowed */
    const char *val[GD_ONCE_MAX]; /* the value entry i took, NULL: not given yet */
} gd_once;

/* Start a parse over opts (borrowed: must outlive the parse). */
void gd_once_init(gd_once *o, const struct option *opts);

/* gd_once_check: call with each getopt_long result c and optarg, before acting on it.
 * Returns 0 when c is not a single-valued option of the table (a flag, '?',
 * a code of another table) or is given for the first time; -1 after printing
 * "gpudiag: error: --NAME given twice ('A', then 'B'): it takes one value"
 * when it was given before (the caller exits 2, GD_EXIT_USAGE). */
int gd_once_check(gd_once *o, int c, const char *arg);

/* The one wording of a usage error in a command's arguments: prints
 * "gpudiag: error: MSG (try 'gpudiag CMD --help')" (MSG from fmt, printf
 * style; cmd is the command's name, "analyze") and returns GD_EXIT_USAGE. */
gd_exit gd_usage_error(const char *cmd, const char *fmt, ...) GD_ATTR_PRINTF(2, 3);

/* What getopt_long's error return c means, said once for every command:
 * call it for c == '?' or ':' (parse with opterr = 0 and an optstring whose
 * first character after any '+' is ':', so that a missing value returns
 * ':'), with the argv and long-option table of that parse.  Prints, through
 * gd_usage_error, one of "unknown option '-x'", "unknown or ambiguous option
 * '--xyz'", "--width needs a value" ("-i (--interval) needs a value" for a
 * short option), "--json takes no value, got '--json=1'", and returns
 * GD_EXIT_USAGE. */
gd_exit gd_bad_option(const char *cmd, int c, char **argv, const struct option *longopts);

/* Match arg against the n keywords words[0..n-1] (exact, case-sensitive) and
 * return its index; on no match print "gpudiag: error: OPT wants w0, w1 or
 * w2, got 'ARG'" and return -1. */
int gd_opt_word(const char *opt, const char *arg, const char *const *words, int n);

/* --recompute none|selective|full into *out; -1 with the message above. */
int gd_opt_recompute(const char *arg, gpudiag_recompute *out);

/* serve --metric-names: its words, in the order of the value serve keeps
 * (0 gpudiag, 1 dcgm). */
extern const char *const gd_metric_names_words[2];

/* The hidden `gpudiag --list-values OPTION` (the bash completion's source):
 * print the words the parser accepts for the option named `opt` (without
 * "--": fail-on, recompute, metric, metric-names), one per line, from the
 * tables the parsers use; 0, or -1 (nothing printed) for another option. */
int gd_list_values(const char *opt);

/* A JSON writer over yajl: NaN is written as null. */
typedef struct gd_json {
    yajl_gen g;
    FILE *fp;
    int io_error;
} gd_json;

int gd_json_open(gd_json *w, FILE *fp, int pretty); /* 0, or -1 on OOM */
int gd_json_close(gd_json *w);                      /* 0, or -1 on a write error */
void gd_json_key(gd_json *w, const char *k);
void gd_json_str(gd_json *w, const char *s);        /* NULL -> null */
void gd_json_num(gd_json *w, double v);             /* integers exactly, else 9 significant digits; NaN -> null */
void gd_json_int(gd_json *w, long long v);
void gd_json_bool(gd_json *w, int v);
void gd_json_kv_num(gd_json *w, const char *k, double v);
void gd_json_kv_str(gd_json *w, const char *k, const char *s);
void gd_json_kv_int(gd_json *w, const char *k, long long v);
#define gd_json_obj(w) yajl_gen_map_open((w)->g)
#define gd_json_end_obj(w) yajl_gen_map_close((w)->g)
#define gd_json_arr(w) yajl_gen_array_open((w)->g)
#define gd_json_end_arr(w) yajl_gen_array_close((w)->g)

#endif
