/*
 * monlog.c — line iterator, value parsing, time conversion and the format
 * dispatcher of the monitoring-log readers (see monlog.h, series.h).
 */
#include "ingest/monlog.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/formats.h"
#include "model/series_internal.h"
#include "util/util.h"

#ifndef GD_LINES_CHUNK
#define GD_LINES_CHUNK (1u << 20)
#endif

/* After gd_input_open*(): the buffer and its first chunk (for the sniffer). */
static int lines_start(gd_lines *l, const char *path, gpudiag_error *err)
{
    l->cap = GD_LINES_CHUNK;
    l->buf = malloc(l->cap);
    if (!l->buf) {
        gd_input_close(&l->in);
        gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    /* fill the first chunk so that the sniffer can look at it */
    while (l->len < l->cap && !l->eof) {
        size_t got = 0;
        gd_input_status st = gd_input_read(&l->in, (unsigned char *)l->buf + l->len, l->cap - l->len, &got);
        if (st == GD_IN_EOF) {
            l->eof = 1;
        } else if (st != GD_IN_OK) {
            l->status = st;
            l->eof = 1;
        }
        l->len += got;
        if (st == GD_IN_OK && got == 0)
            break;
    }
    return 0;
}

int gd_lines_open(gd_lines *l, const char *path, gpudiag_error *err)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    l->cut_at = -1;
    if (gd_input_open(&l->in, path) != 0) {
        gd_set_error(err, l->in.unsupported ? GPUDIAG_ERR_FORMAT : GPUDIAG_ERR_IO, path, -1, "%s", l->in.message);
        return -1;
    }
    return lines_start(l, path, err);
}

int gd_lines_open_fp(gd_lines *l, FILE *fp, const char *name, gpudiag_error *err)
{
    memset(l, 0, sizeof *l);
    l->path = name;
    l->cut_at = -1;
    if (gd_input_open_fp(&l->in, fp, 0) != 0) {
        gd_set_error(err, l->in.oom ? GPUDIAG_ERR_NOMEM : l->in.unsupported ? GPUDIAG_ERR_FORMAT : GPUDIAG_ERR_IO,
                     name, -1, "%s", l->in.message);
        return -1;
    }
    return lines_start(l, name, err);
}

void gd_lines_close(gd_lines *l)
{
    free(l->buf);
    l->buf = NULL;
    gd_input_close(&l->in);
}

int gd_lines_next(gd_lines *l, const char **s, size_t *n, gpudiag_error *err)
{
    for (;;) {
        char *start = l->buf + l->pos;
        size_t avail = l->len - l->pos;
        char *nl = avail ? memchr(start, '\n', avail) : NULL;
        int cut = l->eof && l->status == GD_IN_TRUNCATED;
        if (nl || (l->eof && avail && !cut)) {
            size_t len = nl ? (size_t)(nl - start) : avail;
            l->pos += nl ? len + 1 : len;
            l->line_off = l->next_off;
            l->next_off += (int64_t)(nl ? len + 1 : len);
            l->line_no++;
            if (len && start[len - 1] == '\r')
                len--;
            /* a UTF-8 byte-order mark before the first line (Excel, PowerShell's Out-File): not part of the
             * header, as the Kineto reader skips it; offsets still count its bytes */
            if (l->line_no == 1 && len >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
                start += 3;
                len -= 3;
            }
            *s = start;
            *n = len;
            return 1;
        }
        if (cut) {
            if (!l->cut_line) {
                l->cut_line = (int64_t)l->line_no + 1;
                l->cut_at = l->next_off;
                l->pos = l->len;
            }
            return 0;
        }
        if (l->eof) {
            if (l->status != GD_IN_OK) {
                gd_set_error(err, GPUDIAG_ERR_IO, l->path, l->next_off, "read failed: %s",
                             l->in.message[0] ? l->in.message : "input error");
                return -1;
            }
            return 0;
        }
        /* move the partial line to the front, grow when it fills the buffer */
        if (l->pos) {
            memmove(l->buf, l->buf + l->pos, avail);
            l->len = avail;
            l->pos = 0;
        }
        if (l->len == l->cap) {
            if (l->cap >= (size_t)64 << 20) {
                gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, l->next_off,
                             "a line longer than 64 MiB: not a monitoring log");
                return -1;
            }
            char *nb = realloc(l->buf, l->cap * 2);
            if (!nb) {
                gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
                return -1;
            }
            l->buf = nb;
            l->cap *= 2;
        }
        size_t got = 0;
        gd_input_status st = gd_input_read(&l->in, (unsigned char *)l->buf + l->len, l->cap - l->len, &got);
        l->len += got;
        if (st == GD_IN_EOF) {
            l->eof = 1;
        } else if (st != GD_IN_OK) {
            l->status = st;
            l->eof = 1;
        }
    }
}

size_t gd_split_ws(const char *s, size_t n, gd_tok *tok, size_t max)
{
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= n)
            break;
        size_t b = i;
        while (i < n && s[i] != ' ' && s[i] != '\t')
            i++;
        if (k < max) {
            tok[k].s = s + b;
            tok[k].n = i - b;
        }
        k++;
    }
    return k < max ? k : max;
}

size_t gd_split_comma(const char *s, size_t n, gd_tok *tok, size_t max)
{
    size_t k = 0, i = 0;
    for (;;) {
        size_t b = i;
        while (i < n && s[i] != ',')
            i++;
        size_t e = i;
        while (b < e && (s[b] == ' ' || s[b] == '\t'))
            b++;
        while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
            e--;
        if (k < max) {
            tok[k].s = s + b;
            tok[k].n = e - b;
        }
        k++;
        if (i >= n)
            break;
        i++;
    }
    return k < max ? k : max;
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_missing_word(const char *s, size_t n)
{
    if (n == 1 && s[0] == '-')
        return 1;
    if (s[0] == '[')
        return 1; /* [N/A], [Not Supported], [Unknown Error], [Insufficient Permissions] */
    /* dcgmi dmon prints N/W for a field it could not watch (DCGM 1.x, NVIDIA/DCGM#8) and N/S for one
     * the device does not support */
    return gd_ieq(s, n, "n/a") || gd_ieq(s, n, "na") || gd_ieq(s, n, "n/w") || gd_ieq(s, n, "n/s") ||
           gd_ieq(s, n, "not supported") || gd_ieq(s, n, "unknown error") || gd_ieq(s, n, "");
}

double gd_parse_value(const char *s, size_t n, int *ok)
{
    *ok = 1;
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0)
        return NAN;
    if (!((s[0] >= '0' && s[0] <= '9') || (n > 1 && (s[0] == '-' || s[0] == '+' || s[0] == '.') && s[1] >= '0' &&
                                           s[1] <= '9')) &&
        is_missing_word(s, n))
        return NAN;
    {
        size_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
        if (gd_ieq(s + k, n - k, "nan") || gd_ieq(s + k, n - k, "inf") || gd_ieq(s + k, n - k, "infinity"))
            return INFINITY; /* a value, but not a valid one: gd_values_validate() drops and counts it */
    }
    size_t i = 0;
    int neg = 0;
    if (s[i] == '-' || s[i] == '+') {
        neg = s[i] == '-';
        i++;
    }
    uint64_t mant = 0;
    int digits = 0, frac = 0, any = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (digits < 19) {
            mant = mant * 10 + (uint64_t)(s[i] - '0');
            if (mant)
                digits++;
        } else {
            digits = 99;
        }
        i++;
        any = 1;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (digits < 19 && frac < 22) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                if (mant)
                    digits++;
                frac++;
            } else {
                digits = 99;
            }
            i++;
            any = 1;
        }
    }
    if (!any) {
        *ok = 0;
        return NAN;
    }
    double v;
    if (digits > 19 || (i < n && (s[i] == 'e' || s[i] == 'E'))) {
        char tmp[64];
        size_t m = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
        memcpy(tmp, s, m);
        tmp[m] = 0;
        char *end = NULL;
        v = strtod(tmp, &end);
        i = (size_t)(end - tmp);
    } else {
        v = (double)mant / pow10_tab[frac];
        if (neg)
            v = -v;
    }
    /* what follows must be a unit ("%", "MiB", "W", "MHz", "KB/s", "x") */
    while (i < n && s[i] == ' ')
        i++;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(isalpha(c) || c == '%' || c == '/')) {
            *ok = 0;
            return NAN;
        }
    }
    if (!isfinite(v))
        return INFINITY; /* "1e999": out of range, counted by gd_values_validate() */
    /* DCGM blank sentinels: int64 0x7ffffffffffffff0.. (all 2^63 as a double) and double 2^47 + 0..3
     * (dcgm_structs.h); any other large number is a value, out of range for its field and counted by
     * gd_values_validate() as "-5 %" is, never dropped unseen */
    if ((v >= 9.2233720368547e18 && v <= 9.2233720368548e18) || (v >= 140737488355328.0 && v <= 140737488355331.0))
        return NAN;
    return v;
}

int gd_gpu_index(double x)
{
    if (isnan(x))
        return -1;
    /* (int) of a number beyond int is undefined: the range test comes first */
    return (x < 0 || x > 65535 || x != floor(x)) ? GD_GPU_ID_INVALID : (int)x;
}

int64_t gd_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    /* Howard Hinnant's days_from_civil */
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int digits_at(const char *s, size_t n, size_t at, size_t count, unsigned *out)
{
    if (at + count > n)
        return 0;
    unsigned v = 0;
    for (size_t i = 0; i < count; i++) {
        char c = s[at + i];
        if (c < '0' || c > '9')
            return 0;
        v = v * 10 + (unsigned)(c - '0');
    }
    *out = v;
    return 1;
}

int64_t gd_parse_yyyymmdd(const char *s, size_t n)
{
    unsigned y, m, d;
    if (n != 8 || !digits_at(s, n, 0, 4, &y) || !digits_at(s, n, 4, 2, &m) || !digits_at(s, n, 6, 2, &d) || m < 1 ||
        m > 12 || d < 1 || d > 31)
        return -1;
    return gd_days_from_civil(y, m, d) * 86400000000LL;
}

int64_t gd_parse_hms(const char *s, size_t n)
{
    unsigned h, mi, se;
    if (n < 8 || !digits_at(s, n, 0, 2, &h) || s[2] != ':' || !digits_at(s, n, 3, 2, &mi) || s[5] != ':' ||
        !digits_at(s, n, 6, 2, &se) || h > 23 || mi > 59 || se > 60)
        return -1;
    int64_t us = ((int64_t)h * 3600 + mi * 60 + se) * 1000000LL;
    if (n > 8) {
        if (s[8] != '.' && s[8] != ',')
            return -1;
        int64_t scale = 100000;
        for (size_t i = 9; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            us += (s[i] - '0') * scale;
            scale /= 10;
        }
    }
    return us;
}

int64_t gd_parse_datetime(const char *s, size_t n)
{
    unsigned y, m, d;
    if (n < 19 || !digits_at(s, n, 0, 4, &y) || (s[4] != '/' && s[4] != '-') || !digits_at(s, n, 5, 2, &m) ||
        s[7] != s[4] || !digits_at(s, n, 8, 2, &d) || (s[10] != ' ' && s[10] != 'T') || m < 1 || m > 12 || d < 1 ||
        d > 31)
        return -1;
    int64_t t = gd_parse_hms(s + 11, n - 11);
    if (t < 0)
        return -1;
    return gd_days_from_civil(y, m, d) * 86400000000LL + t;
}

void gd_values_clear(double v[GPUDIAG_M_COUNT])
{
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        v[m] = NAN;
}

void gd_lines_size_hint(gd_lines *l, gpudiag_series *s)
{
    if (s->rows != GD_LINES_HINT_ROWS || s->gpu_count == 0 || l->next_off <= 0)
        return;
    uint64_t total = gd_input_size_estimate(&l->in);
    if (total <= (uint64_t)l->next_off * 2)
        return; /* short file: doubling is cheap enough */
    /* rows per byte so far, spread evenly over the GPUs seen, +3 % */
    double rows = (double)s->rows * ((double)total / (double)l->next_off);
    double per_gpu = rows / (double)s->gpu_count * 1.03 + 64;
    if (per_gpu > 1e9)
        return;
    for (size_t g = 0; g < s->gpu_count; g++)
        (void)gd_series_reserve(s, g, (size_t)per_gpu);
}

int gd_value_valid(int m, double x)
{
    if (isnan(x))
        return 1; /* missing, not invalid */
    if (!isfinite(x))
        return 0;
    if (gd_metric_is_fraction((gpudiag_metric)m))
        return x >= 0 && x <= 1 + 1e-9;
    switch (m) {
    case GPUDIAG_M_TEMP_C:
    case GPUDIAG_M_MEM_TEMP_C:
    case GPUDIAG_M_TEMP_SLOWDOWN_C: return x > -273.15 && x <= GD_MON_TEMP_MAX_C;
    case GPUDIAG_M_SM_CLOCK_MHZ:
    case GPUDIAG_M_SM_CLOCK_MAX_MHZ: return x >= 0 && x <= GD_MON_CLOCK_MAX_MHZ;
    case GPUDIAG_M_MEM_CLOCK_MHZ: return x >= 0 && x <= GD_MON_MEM_CLOCK_MAX_MHZ;
    case GPUDIAG_M_POWER_W:
    case GPUDIAG_M_POWER_LIMIT_W: return x >= 0 && x <= 2 * GD_MON_BOARD_POWER_MAX_W;
    case GPUDIAG_M_CLOCK_REASONS: return x >= 0 && x < 18446744073709551616.0 && x == floor(x); /* 64 bits */
    case GPUDIAG_M_MEM_USED_BYTES:
    case GPUDIAG_M_MEM_TOTAL_BYTES: return x >= 0 && x <= GD_MON_MEM_BYTES_MAX;
    default: return x >= 0;
    }
}

void gd_series_invalid(gpudiag_series *s, uint64_t line_no)
{
    s->invalid_values++;
    if (s->first_invalid_line < 0)
        s->first_invalid_line = (int64_t)line_no;
}

void gd_values_validate(gpudiag_series *s, double v[GPUDIAG_M_COUNT], uint64_t line_no)
{
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        if (!gd_value_valid(m, v[m])) {
            v[m] = NAN;
            gd_series_invalid(s, line_no);
        }
    /* power above twice the board's own limit in the same row (DEFINITIONS "Invalid monitoring values") */
    double p = v[GPUDIAG_M_POWER_W], lim = v[GPUDIAG_M_POWER_LIMIT_W];
    if (!isnan(p) && !isnan(lim) && lim > 0 && p > 2 * lim) {
        v[GPUDIAG_M_POWER_W] = NAN;
        gd_series_invalid(s, line_no);
    }
}

void gd_series_note_header(gpudiag_series *s, const char *line, size_t n, uint64_t line_no, int had_header)
{
    /* FNV-1a over the non-blank bytes, lower-cased: spacing and case do not make a new header */
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        h = (h ^ (uint64_t)tolower(c)) * 1099511628211ull;
    }
    if (h == 0)
        h = 1;
    if (had_header && s->header_hash && h != s->header_hash) {
        s->header_changes++;
        if (s->first_header_change_line < 0)
            s->first_header_change_line = (int64_t)line_no;
    }
    s->header_hash = h;
}

void gd_series_note_ignored(gpudiag_series *s, const char *name, size_t n)
{
    char *b = s->ignored_columns;
    size_t len = strlen(b);
    if (n == 0)
        return;
    /* already listed? */
    for (const char *p = b; *p;) {
        const char *e = strstr(p, ", ");
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && memcmp(p, name, n) == 0)
            return;
        p = e ? e + 2 : p + k;
    }
    size_t need = (len ? 2 : 0) + n;
    if (len + need >= sizeof s->ignored_columns)
        return;
    if (len) {
        b[len++] = ',';
        b[len++] = ' ';
    }
    memcpy(b + len, name, n);
    b[len + n] = 0;
}

void gd_series_skip_why(gpudiag_series *s, uint64_t line_no, const char *fmt, ...)
{
    if (s->first_skipped_line < 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->skip_reason, sizeof s->skip_reason, fmt, ap);
        va_end(ap);
    }
    gd_series_skip(s, line_no);
}

int gd_cell_number(const char *s, size_t n)
{
    int ok;
    double x = gd_parse_value(s, n, &ok);
    return ok && !isnan(x);
}

int gd_series_empty_row(gpudiag_series *s, const double v[GPUDIAG_M_COUNT], int other, uint64_t line_no)
{
    if (other)
        return 0;
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        if (!isnan(v[m]))
            return 0;
    s->empty_rows++;
    if (s->first_empty_line < 0)
        s->first_empty_line = (int64_t)line_no;
    return 1;
}

void gd_series_skip(gpudiag_series *s, uint64_t line_no)
{
    s->skipped_rows++;
    if (s->first_skipped_line < 0)
        s->first_skipped_line = (int64_t)line_no;
}

/* ---------------------------------------------------------------------- */
/* Detection by content                                                    */
/* ---------------------------------------------------------------------- */

/* Every log row's sniffer; the earliest, strongest clue wins (formats.h,
 * GD_SNIFF_AT), a tie the earlier row. */
gpudiag_log_format gpudiag_log_format_sniff(const char *buf, size_t len)
{
    const gd_input_format *best = NULL;
    long best_at = -1;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 BOM: gd_lines_next skips it too */
        buf += 3;
        len -= 3;
    }
    for (size_t i = 0; i < gd_format_count; i++) {
        const gd_input_format *f = gd_formats[i];
        if (f->kind != GD_FMT_LOG || !f->sniff)
            continue;
        long at = f->sniff(buf, len);
        if (at >= 0 && (best_at < 0 || at < best_at)) {
            best = f;
            best_at = at;
        }
    }
    return best ? (gpudiag_log_format)best->id : GPUDIAG_LOG_AUTO;
}

/* The format dispatcher over an opened gd_lines (closed here). */
static gpudiag_status series_read_lines(gd_lines *l, const char *path, gpudiag_log_format format,
                                        gpudiag_series **out, gpudiag_error *err)
{
    if (format == GPUDIAG_LOG_AUTO) {
        format = gpudiag_log_format_sniff(l->buf, l->len < 65536 ? l->len : 65536);
        if (format == GPUDIAG_LOG_AUTO) {
            char whats[512];
            gd_lines_close(l);
            return gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0, "not a monitoring log gpudiag reads (%s)",
                                gd_format_whats(whats, sizeof whats));
        }
    }
    const gd_input_format *row = gd_format_of_log(format);
    gpudiag_series *s = NULL;
    gpudiag_status st = gpudiag_series_new(gpudiag_log_format_name(format), &s);
    if (st != GPUDIAG_OK) {
        gd_lines_close(l);
        return gd_set_error(err, st, path, -1, "out of memory");
    }
    if (row && row->read)
        st = row->read(l, s, err);
    else
        st = gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "unknown log format %d", (int)format);
    s->bytes = l->next_off > 0 ? (uint64_t)l->next_off : 0;
    if (st == GPUDIAG_OK && l->cut_line > 0) {
        gd_series_skip(s, (uint64_t)l->cut_line); /* the row the cut fell in, as a cut-off plain log's last row */
        s->lines = (uint64_t)l->cut_line;        /* that line was begun (or due): one of the lines seen */
    }
    if (l->in.tail_bytes && l->in.tail_nonzero) { /* DEFINITIONS "Time and events", after the last gzip member */
        s->gz_trailing_bytes = l->in.tail_bytes;
        s->gz_trailing_at = l->in.tail_at;
    }
    gd_lines_close(l);
    if (st == GPUDIAG_OK && s->empty_rows) {
        /* a GPU whose every row held no value has no sample: not listed (DEFINITIONS "A row that holds
         * no value"); the Prometheus reader places a GPU before its scrape's values are known */
        size_t k = 0;
        for (size_t g = 0; g < s->gpu_count; g++) {
            if (s->gpus[g].count == 0)
                free(s->gpus[g].arena);
            else
                s->gpus[k++] = s->gpus[g];
        }
        s->gpu_count = k;
    }
    if (st == GPUDIAG_OK) {
        size_t samples = 0;
        for (size_t g = 0; g < s->gpu_count; g++)
            samples += s->gpus[g].count;
        if (samples == 0 && l->cut_line > 0)
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, l->cut_at,
                              "no sample found in this %s log before its gzip stream was cut short (in line %lld)",
                              gpudiag_log_format_name(format), (long long)l->cut_line);
        else if (samples == 0) {
            int empty = s->empty_rows > 0, malformed = s->first_skipped_line > 0;
            const char *why = "";
            if (empty && malformed)
                why = " (every data row was malformed or held no value)";
            else if (empty)
                why = " (every data row held no value: all missing)";
            else if (malformed)
                why = " (every data row was malformed)";
            char first[400] = "";
            if (malformed) /* DEFINITIONS "Reading": the first line left out, and why where the reader says */
                snprintf(first, sizeof first, "; first: line %lld%s%s", (long long)s->first_skipped_line,
                         s->skip_reason[0] ? ": " : "", s->skip_reason);
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, -1, "no sample found in this %s log%.*s%s%s",
                              gpudiag_log_format_name(format), (int)(why[0] ? strlen(why) - 1 : 0), why, first,
                              why[0] ? ")" : "");
        }
    }
    if (st == GPUDIAG_ERR_FORMAT && l->cut_line > 0 && err && !strstr(err->message, "cut short")) {
        size_t m = strlen(err->message);
        snprintf(err->message + m, sizeof err->message - m, " (its gzip stream is cut short in line %lld)",
                 (long long)l->cut_line);
    }
    if (st != GPUDIAG_OK) {
        gpudiag_series_free(&s);
        return st;
    }
    *out = s;
    return GPUDIAG_OK;
}

gpudiag_status gpudiag_series_read(const char *path, gpudiag_log_format format, gpudiag_series **out,
                                   gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path ? path : "", -1, "path and out must not be NULL");
    *out = NULL;
    gd_lines l;
    if (gd_lines_open(&l, path, err) != 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    return series_read_lines(&l, path, format, out, err);
}

gpudiag_status gd_series_read_fp(FILE *fp, const char *name, gpudiag_log_format format, gpudiag_series **out,
                                 gpudiag_error *err)
{
    if (!fp || !name || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, name ? name : "", -1, "fp, name and out must not be NULL");
    *out = NULL;
    gd_lines l;
    if (gd_lines_open_fp(&l, fp, name, err) != 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    return series_read_lines(&l, name, format, out, err);
}
