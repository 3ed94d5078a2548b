/*
 * fuzz_cli_opts.c — libFuzzer target for the command line's option value
 * parsers (src/cli/opts.c), checked against a reference written here from
 * the documented grammar: [+-]?[0-9]+ whose value lies in [lo, hi].
 * Input: byte 0 picks the range, the rest (to the first NUL) is the value.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    free(s);
    if (sev != want_sev)
        abort();
    return 0;
}
