/*
 * kineto_num.c — number parsing for the Kineto reader (kineto_int.h).
 *
 * Numbers are taken raw (yajl's number callback), so `ts`/`dur` become exact
 * int64 nanoseconds whether written as epoch-µs integers, 3-decimal floats, or
 * 19-digit transitional values that a double cannot hold.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/kineto_int.h"


/* Parse a JSON number given in µs into exact int64 ns.  Handles a fraction of
 * any length (digits past ns are truncated) and falls back to strtod for an
 * exponent.  Returns 0, or -1 if it does not fit. */
int gd_kt_parse_us_to_ns(const char *s, size_t len, int64_t *out, int *had_frac)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    uint64_t ip = 0;
    size_t digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (ip > (UINT64_MAX - 9) / 10)
            return -1;
        ip = ip * 10 + (uint64_t)(s[i] - '0');
        i++;
        digits++;
    }
    if (digits == 0)
        return -1;
    uint64_t frac = 0;
    int fdig = 0;
    if (i < len && s[i] == '.') {
        i++;
        *had_frac = 1;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (fdig < 3) {
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                fdig++;
            }
            i++;
        }
        while (fdig < 3) {
            frac *= 10;
            fdig++;
        }
    } else {
        frac = 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        char buf[64];
        if (len >= sizeof buf)
            return -1;
        memcpy(buf, s, len);
        buf[len] = '\0';
        double v = strtod(buf, NULL) * 1000.0;
        if (!isfinite(v) || v > 9.2e18 || v < -9.2e18)
            return -1;
        *out = (int64_t)v;
        *had_frac = 1;
        return 0;
    }
    if (ip > (uint64_t)INT64_MAX / 1000 - 1)
        return -1;
    int64_t v = (int64_t)(ip * 1000 + frac);
    *out = neg ? -v : v;
    return 0;
}

int gd_kt_parse_int64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    uint64_t v = 0;
    size_t digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (v > ((uint64_t)INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
        i++;
        digits++;
    }
    if (digits == 0 || i < len)
        return -1; /* a fraction or exponent where an integer is expected: not taken */
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int gd_kt_parse_double(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* First run of digits in a string such as "stream 7", "25738" or "0x0" (→ 0). */
int gd_kt_digits_in_string(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    while (i < len && !(s[i] >= '0' && s[i] <= '9'))
        i++;
    if (i == len)
        return -1;
    if (s[i] == '0' && i + 1 < len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        char buf[32];
        size_t n = len - i;
        if (n >= sizeof buf)
            n = sizeof buf - 1;
        memcpy(buf, s + i, n);
        buf[n] = '\0';
        *out = (int64_t)strtoll(buf, NULL, 16);
        return 0;
    }
    size_t j = i;
    while (j < len && s[j] >= '0' && s[j] <= '9')
        j++;
    return gd_kt_parse_int64(s + i, j - i, out);
}


/* Index of the first non-digit at or after i. */
static size_t skip_digits(const char *s, size_t i, size_t len)
{
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

/* 1 if s[0..len) is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
int gd_kt_json_number_ok(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    if (i >= len)
        return 0;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        i = skip_digits(s, i, len);
    else
        return 0;
    if (i < len && s[i] == '.') {
        size_t d = i + 1;
        i = skip_digits(s, d, len);
        if (i == d)
            return 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        i = skip_digits(s, d, len);
        if (i == d)
            return 0;
    }
    return i == len;
}
