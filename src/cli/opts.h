/*
 * opts.h — the value parsers behind the command line's options, kept apart
 * from cli.c so that a fuzz target (tests/fuzz/fuzz_cli_opts.c) can drive
 * them without the rest of the program.
 */
#ifndef GD_CLI_OPTS_H
#define GD_CLI_OPTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse s as a whole decimal integer within [lo, hi] (as --width, --jobs).
 * Accepted: optional '+' or '-', then digits only: no blanks, no base prefix,
 * no trailing bytes.  Returns 0 and sets *out, or -1 (s untouched otherwise;
 * NULL s is -1).
 */
int gd_opt_long(const char *s, long lo, long hi, long *out);

/* "info", "low", "medium", "high" to GPUDIAG_SEV_*; -1 for anything else. */
int gd_opt_severity(const char *s);

/*
 * --steps SPEC: "A:B" (A to B inclusive), "A:" (A to the last), ":B" (the
 * first to B) or "N" (step N alone); A, B, N are step numbers: decimal digits
 * only (no sign, no blanks), at most INT64_MAX, and A <= B.  Returns 0 with
 * *first / *last set (INT64_MIN / INT64_MAX for an open end), or -1 (a
 * malformed spec; *first, *last untouched).
 */
int gd_opt_steps(const char *s, int64_t *first, int64_t *last);

/* --ranks LIST: comma-separated rank numbers and inclusive ranges, "0,2-3". */
#define GD_RANKSET_MAX 256
typedef struct gd_rankset {
    size_t n;                    /* ranges in lo/hi */
    int lo[GD_RANKSET_MAX], hi[GD_RANKSET_MAX];
} gd_rankset;

/*
 * Parse a --ranks LIST: items separated by single commas, each "N" or "A-B"
 * with A <= B; numbers are decimal digits only, 0 to INT32_MAX; no blanks, no
 * empty item, at most GD_RANKSET_MAX items.  Returns 0 and fills *out, or -1.
 */
int gd_opt_ranks(const char *s, gd_rankset *out);

/* 1 if rank is in the set. */
int gd_rankset_has(const gd_rankset *set, int rank);

#endif
