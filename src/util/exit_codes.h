/*
 * exit_codes.h — the exit status of every gpudiag command, in one list.
 *
 * Each row is X(NAME, value, "phrase"): the enum gets GD_EXIT_<NAME> = value;
 * the phrase is how README.md ("Exit status"), `gpudiag --help` (`gpudiag run
 * --help` for the run-only codes) and docs/gpudiag.1 (EXIT STATUS) name the
 * code, and tests/cli/test_exit_codes.sh checks, case-insensitively, that each
 * of them says it next to the number and lists no code missing here.  One row
 * per line: that test reads this file.  Adding a code: a row here, then the
 * three documents.  Values are a contract (scripts test them): never change
 * one.
 */
#ifndef GD_EXIT_CODES_H
#define GD_EXIT_CODES_H

#define GD_EXIT_CODES(X)                                                         \
    X(OK, 0, "ran")                               /* findings or not */          \
    X(FINDINGS, 1, "--fail-on matched")           /* compare: a regression */    \
    X(USAGE, 2, "usage error")                    /* also refused outputs */     \
    X(INPUT, 3, "unreadable or malformed input")  /* or an unwritable output */  \
    X(NO_DEVICE, 4, "no GPU")                     /* no driver or NVML either */ \
    X(INTERNAL, 5, "internal error")              /* OOM, stdout write failed */ \
    X(NOMATCH, 6, "selected nothing")             /* --steps / --ranks */        \
    X(MISMATCH, 7, "summaries of another version or job") /* merge */            \
    X(RUN_FAILED, 125, "failed")                  /* run: gpudiag itself */      \
    X(RUN_NOEXEC, 126, "cannot be executed")      /* run: CMD */                 \
    X(RUN_NOTFOUND, 127, "not found")             /* run: CMD */

/* The exit status a command returns (main() returns it unchanged).  `run`
 * otherwise exits with its CMD's status, which is not one of these. */
typedef enum gd_exit {
#define GD_EXIT_ENUM_ROW(name, value, phrase) GD_EXIT_##name = value,
    GD_EXIT_CODES(GD_EXIT_ENUM_ROW)
#undef GD_EXIT_ENUM_ROW
} gd_exit;

#endif
