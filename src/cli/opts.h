/*
 * opts.h — the value parsers behind the command line's options, kept apart
 * from cli.c so that a fuzz target (tests/fuzz/fuzz_cli_opts.c) can drive
 * them without the rest of the program.
 */
#ifndef GD_CLI_OPTS_H
#define GD_CLI_OPTS_H

/*
 * Parse s as a whole decimal integer within [lo, hi] (as --width, --jobs).
 * Accepted: optional '+' or '-', then digits only: no blanks, no base prefix,
 * no trailing bytes.  Returns 0 and sets *out, or -1 (s untouched otherwise;
 * NULL s is -1).
 */
int gd_opt_long(const char *s, long lo, long hi, long *out);

/* "info", "low", "medium", "high" to GPUDIAG_SEV_*; -1 for anything else. */
int gd_opt_severity(const char *s);

#endif
