/*
 * fuzz_cli_opts.c — libFuzzer target for the command line's option value
 * parsers: the integer and severity options (src/cli/opts.c), checked
 * against a reference written here from the documented grammar
 * [+-]?[0-9]+ in [lo, hi]; the durations of run/watch --interval
 * (gd_live_parse_interval: "500ms", "2s", "0.5", "1m") and the numbers with
 * k/M/B/T suffixes of mfu/plan (gd_opt_number), checked for their promise:
 * accepted means a finite value within the documented bounds; analyze's
 * --steps and --ranks (gd_opt_steps, gd_opt_ranks) against references written
 * here from their grammar (src/cli/opts.h).
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

/* s[0..len) is 1+ digits with value <= max: 1 and *v, else 0 (reference for --steps / --ranks) */
static int ref_digits(const char *s, size_t len, unsigned long long max, unsigned long long *v)
{
    if (len == 0)
        return 0;
    unsigned long long m = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (m > (max - (unsigned)(s[i] - '0')) / 10)
            return 0;
        m = m * 10 + (unsigned)(s[i] - '0');
    }
    *v = m;
    return 1;
}

/* --steps: N | A:B | A: | :B with A <= B, each a number <= INT64_MAX */
static void check_steps(const char *s)
{
    int64_t f = 777, l = 777;
    int ok = gd_opt_steps(s, &f, &l) == 0;
    const char *c = strchr(s, ':');
    unsigned long long a = 0, b = 0;
    int ref;
    long long wf, wl;
    if (!c) {
        ref = ref_digits(s, strlen(s), INT64_MAX, &a);
        wf = wl = (long long)a;
    } else {
        size_t la = (size_t)(c - s), lb = strlen(c + 1);
        int ha = la > 0, hb = lb > 0;
        ref = (ha || hb) && (!ha || ref_digits(s, la, INT64_MAX, &a)) && (!hb || ref_digits(c + 1, lb, INT64_MAX, &b));
        wf = ha ? (long long)a : INT64_MIN;
        wl = hb ? (long long)b : INT64_MAX;
        ref = ref && wf <= wl;
    }
    if (ok != ref || (ok && (f != wf || l != wl)) || (!ok && (f != 777 || l != 777))) {
        fprintf(stderr, "fuzz_cli_opts: --steps '%s': parser %d (%lld:%lld), reference %d (%lld:%lld)\n", s, ok,
                (long long)f, (long long)l, ref, wf, wl);
        abort();
    }
}

/* --ranks: items N or A-B (A <= B, <= INT32_MAX) joined by single commas, at most GD_RANKSET_MAX */
static void check_ranks(const char *s)
{
    gd_rankset set;
    int ok = gd_opt_ranks(s, &set) == 0;
    int ref = *s != '\0';
    size_t items = 0;
    int lo[GD_RANKSET_MAX + 1], hi[GD_RANKSET_MAX + 1];
    const char *p = s;
    while (ref) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *d = memchr(p, '-', len);
        unsigned long long a = 0, b = 0;
        if (d)
            ref = ref_digits(p, (size_t)(d - p), INT32_MAX, &a) && ref_digits(d + 1, len - (size_t)(d - p) - 1, INT32_MAX, &b) && a <= b;
        else
            ref = ref_digits(p, len, INT32_MAX, &a), b = a;
        if (ref && items == GD_RANKSET_MAX)
            ref = 0;
        if (ref) {
            lo[items] = (int)a;
            hi[items] = (int)b;
            items++;
        }
        if (!e)
            break;
        p = e + 1;
    }
    if (ok != ref) {
        fprintf(stderr, "fuzz_cli_opts: --ranks '%s': parser %d, reference %d\n", s, ok, ref);
        abort();
    }
    for (int r = 0; ok && r < 40; r++) {
        int want = 0;
        for (size_t i = 0; i < items; i++)
            want |= r >= lo[i] && r <= hi[i];
        if (gd_rankset_has(&set, r) != want) {
            fprintf(stderr, "fuzz_cli_opts: --ranks '%s': rank %d membership differs\n", s, r);
            abort();
        }
    }
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
    check_steps(s);
    check_ranks(s);
    free(s);
    return 0;
}
