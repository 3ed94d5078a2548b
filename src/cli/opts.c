/*
 * opts.c — option value parsers (see opts.h).
 */
#include "cli/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/gpudiag.h"

int gd_opt_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !out)
        return -1;
    const char *d = s + (s[0] == '+' || s[0] == '-');
    if (*d < '0' || *d > '9')
        return -1; /* strtol would skip blanks and take "" as 0 */
    for (const char *c = d; *c; c++)
        if (*c < '0' || *c > '9')
            return -1;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || !end || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int gd_opt_severity(const char *s)
{
    if (!s)
        return -1;
    for (int i = GPUDIAG_SEV_INFO; i <= GPUDIAG_SEV_HIGH; i++)
        if (strcmp(s, gpudiag_severity_name((gpudiag_severity)i)) == 0)
            return i;
    return -1;
}

/* Digits s[0..len) as a non-negative number <= max; -1 if empty, not digits, or too big. */
static int digits_upto(const char *s, size_t len, int64_t max, int64_t *out)
{
    if (len == 0)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        int d = s[i] - '0';
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int gd_opt_steps(const char *s, int64_t *first, int64_t *last)
{
    if (!s || !first || !last)
        return -1;
    const char *colon = strchr(s, ':');
    int64_t a = INT64_MIN, b = INT64_MAX;
    if (!colon) {
        if (digits_upto(s, strlen(s), INT64_MAX, &a) != 0)
            return -1;
        b = a;
    } else {
        size_t la = (size_t)(colon - s), lb = strlen(colon + 1);
        if (la == 0 && lb == 0)
            return -1; /* ":" selects nothing in particular */
        if (la && digits_upto(s, la, INT64_MAX, &a) != 0)
            return -1;
        if (lb && digits_upto(colon + 1, lb, INT64_MAX, &b) != 0)
            return -1;
        if (a > b)
            return -1;
    }
    *first = a;
    *last = b;
    return 0;
}

int gd_opt_ranks(const char *s, gd_rankset *out)
{
    if (!s || !out || !*s)
        return -1;
    gd_rankset set;
    set.n = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *dash = memchr(p, '-', len);
        int64_t a = 0, b = 0;
        if (dash) {
            if (digits_upto(p, (size_t)(dash - p), INT32_MAX, &a) != 0 ||
                digits_upto(dash + 1, len - (size_t)(dash - p) - 1, INT32_MAX, &b) != 0 || a > b)
                return -1;
        } else {
            if (digits_upto(p, len, INT32_MAX, &a) != 0)
                return -1;
            b = a;
        }
        if (set.n == GD_RANKSET_MAX)
            return -1;
        set.lo[set.n] = (int)a;
        set.hi[set.n] = (int)b;
        set.n++;
        if (!end)
            break;
        p = end + 1;
    }
    *out = set;
    return 0;
}

int gd_rankset_has(const gd_rankset *set, int rank)
{
    for (size_t i = 0; i < set->n; i++)
        if (rank >= set->lo[i] && rank <= set->hi[i])
            return 1;
    return 0;
}
