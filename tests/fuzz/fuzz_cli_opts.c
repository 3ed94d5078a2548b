/*
 * fuzz_cli_opts.c — libFuzzer target for the command line's option value
 * parsers: the integer and severity options (src/cli/opts.c), checked
 * against a reference written here from the documented grammar
 * [+-]?[0-9]+ in [lo, hi]; the durations of run/watch --interval
 * (gd_live_parse_interval: "500ms", "2s", "0.5", "1m") and the numbers with
 * k/M/B/T suffixes of mfu/plan (gd_opt_number), checked for their promise:
 * accepted means a finite value within the documented bounds.
 * Input: byte 0 picks the range, the rest (to the first NUL) is the value.
 */
#include <math.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/live.h"
#include "cli/opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 and *v if s is [+-]?[0-9]+ and fits a long, else 0 */
static int reference(const char *s, long *v)
{
    int neg = 0;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (!*s)
        return 0;
    unsigned long long mag = 0, limit = neg ? (unsigned long long)LONG_MAX + 1 : (unsigned long long)LONG_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        unsigned d = (unsigned)(*s - '0');
        if (mag > (limit - d) / 10)
            return 0; /* beyond long */
        mag = mag * 10 + d;
    }
    *v = neg ? (mag == (unsigned long long)LONG_MAX + 1 ? LONG_MIN : -(long)mag) : (long)mag;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long ranges[][2] = {{40, 1000}, {1, 1024}, {0, LONG_MAX}, {LONG_MIN, LONG_MAX}, {-5, 5}};
    if (size == 0)
        return 0;
    const long *rg = ranges[data[0] % (sizeof ranges / sizeof ranges[0])];
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    long got = 777, want = 0;
    int ok = gd_opt_long(s, rg[0], rg[1], &got) == 0;
    int ref = reference(s, &want) && want >= rg[0] && want <= rg[1];
    if (ok != ref || (ok && got != want)) {
        fprintf(stderr, "fuzz_cli_opts: '%s' in [%ld, %ld]: parser %d (%ld), reference %d (%ld)\n", s, rg[0], rg[1],
                ok, got, ref, want);
        abort();
    }
    if (!ok && got != 777)
        abort(); /* *out untouched on failure */
    int sev = gd_opt_severity(s);
    int want_sev = !strcmp(s, "info") ? 0 : !strcmp(s, "low") ? 1 : !strcmp(s, "medium") ? 2 : !strcmp(s, "high") ? 3 : -1;
    if (sev != want_sev)
        abort();
    double secs = -1;
    if (gd_live_parse_interval(s, &secs) == 0 && !(isfinite(secs) && secs >= 0.01 && secs <= 3600.0)) {
        fprintf(stderr, "fuzz_cli_opts: interval '%s' taken as %g s\n", s, secs);
        abort();
    }
    double v = NAN;
    double lo = rg[0] < -1e6 ? -1e15 : (double)rg[0], hi = rg[1] > 1e6 ? 1e15 : (double)rg[1];
    if (gd_opt_number("--x", s, data[0] & 1, lo, hi, &v) == 0 && !(isfinite(v) && v >= lo && v <= hi)) {
        fprintf(stderr, "fuzz_cli_opts: number '%s' taken as %g outside [%g, %g]\n", s, v, lo, hi);
        abort();
    }
    free(s);
    return 0;
}
