/*
 * dmon.c — nvidia-smi dmon logs (monitoring-peers.md §1.1-1.4).
 *
 * Columns come from the `#` header line (any -s groups, in any order; -o D/T/DT;
 * old `pwr temp` and new `pwr gtemp mtemp`; jpg/ofa (read)/ccpm), never from fixed
 * positions; a header line anywhere redefines them.  Rows are split on blanks,
 * or on commas for `--format csv`.  `-` is a missing value.  Times come from
 * the Date/Time columns when present (local wall time read as UTC; a Time-only
 * log that passes midnight moves to the next day); otherwise sample k of a GPU
 * is at k seconds (dmon's default -d 1; GPUDIAG_TIME_ASSUMED).
 */
#include <math.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "util/util.h"

#define DMON_MAX_COLS 64

enum { COL_IGNORE = -1, COL_GPU = -2, COL_DATE = -3, COL_TIME = -4 };

typedef struct dmon_col {
    int metric;   /* gpudiag_metric, or COL_* */
    double scale; /* multiply the printed value */
} dmon_col;

static dmon_col map_column(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int metric;
        double scale;
    } map[] = {
        {"gpu", COL_GPU, 1},
        {"date", COL_DATE, 1},
        {"time", COL_TIME, 1},
        {"pwr", GPUDIAG_M_POWER_W, 1},
        {"gtemp", GPUDIAG_M_TEMP_C, 1},
        {"temp", GPUDIAG_M_TEMP_C, 1},
        {"mtemp", GPUDIAG_M_MEM_TEMP_C, 1},
        {"sm", GPUDIAG_M_GPU_UTIL, 0.01},
        {"mem", GPUDIAG_M_MEM_UTIL, 0.01},
        {"enc", GPUDIAG_M_ENC_UTIL, 0.01},
        {"dec", GPUDIAG_M_DEC_UTIL, 0.01},
        {"jpg", GPUDIAG_M_JPG_UTIL, 0.01}, /* NVJPG and OFA: media engines, as enc/dec (DEFINITIONS "GPU states") */
        {"ofa", GPUDIAG_M_OFA_UTIL, 0.01},
        {"mclk", GPUDIAG_M_MEM_CLOCK_MHZ, 1},
        {"pclk", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"pviol", GPUDIAG_M_POWER_VIOLATION, 0.01},
        {"tviol", GPUDIAG_M_THERMAL_VIOLATION, 1},
        {"fb", GPUDIAG_M_MEM_USED_BYTES, 1048576.0}, /* nvidia-smi's "MB" are MiB */
        {"rxpci", GPUDIAG_M_PCIE_RX_BPS, 1e6},
        {"txpci", GPUDIAG_M_PCIE_TX_BPS, 1e6},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (gd_ieq(s, n, map[i].name))
            return (dmon_col){map[i].metric, map[i].scale};
    return (dmon_col){COL_IGNORE, 1}; /* bar1 ccpm sbecc dbecc pci and unknown groups */
}

/* Parse one cell into v / *gpu / *date / *tod; 0 when it is malformed. */
static int cell(dmon_col col, const char *s, size_t n, double v[GPUDIAG_M_COUNT], int *gpu, int64_t *date,
                int64_t *tod)
{
    if (col.metric == COL_IGNORE)
        return 1;
    if (col.metric == COL_DATE) {
        *date = gd_parse_yyyymmdd(s, n);
        return *date >= 0;
    }
    if (col.metric == COL_TIME) {
        *tod = gd_parse_hms(s, n);
        return *tod >= 0;
    }
    int ok;
    double x = gd_parse_value(s, n, &ok);
    if (!ok)
        return 0;
    if (col.metric == COL_GPU) {
        if (isnan(x))
            return 0;
        *gpu = gd_gpu_index(x); /* a number but no index: GD_GPU_ID_INVALID, an invalid value */
        return 1;
    }
    v[col.metric] = x * col.scale;
    return 1;
}

/* Tokens of a line: commas when the header used them, else blanks. */
static size_t split_row(const char *s, size_t n, int csv, gd_tok *tok, size_t max)
{
    return csv ? gd_split_comma(s, n, tok, max) : gd_split_ws(s, n, tok, max);
}

gpudiag_status gd_read_dmon(gd_lines *l, gpudiag_series *s, gpudiag_error *err)
{
    dmon_col cols[DMON_MAX_COLS];
    size_t ncols = 0;
    int csv = 0, have_date = 0, have_time = 0, have_header = 0;
    int64_t last_t = -1, day_shift = 0;
    gd_tok tok[DMON_MAX_COLS + 1];
    double v[GPUDIAG_M_COUNT];
    const char *line;
    size_t n;
    int r;
    s->time_source = GPUDIAG_TIME_ASSUMED;
    s->interval_us = 1000000;
    while ((r = gd_lines_next(l, &line, &n, err)) == 1) {
        s->lines++;
        size_t b = 0;
        while (b < n && (line[b] == ' ' || line[b] == '\t'))
            b++;
        if (b == n)
            continue;
        if (line[b] == '#') {
            /* "# gpu pwr ...", "#Date Time gpu ...", "# Idx W ..." (units), "#YYYYMMDD ..." */
            const char *h = line + b + 1;
            size_t hn = n - b - 1;
            int hcsv = memchr(h, ',', hn) != NULL;
            size_t c = split_row(h, hn, hcsv, tok, DMON_MAX_COLS + 1);
            if (c == 0 || gd_ieq(tok[0].s, tok[0].n, "idx") || gd_ieq(tok[0].s, tok[0].n, "yyyymmdd") ||
                gd_ieq(tok[0].s, tok[0].n, "hh:mm:ss"))
                continue; /* units line */
            int has_gpu = 0;
            for (size_t i = 0; i < c; i++)
                if (gd_ieq(tok[i].s, tok[i].n, "gpu"))
                    has_gpu = 1;
            if (!has_gpu)
                continue; /* some other comment */
            if (c > DMON_MAX_COLS)
                return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, l->line_off,
                                    "line %llu: a dmon header with more than %d columns",
                                    (unsigned long long)l->line_no, DMON_MAX_COLS);
            ncols = c;
            csv = hcsv;
            have_date = have_time = 0;
            for (size_t i = 0; i < c; i++) {
                cols[i] = map_column(tok[i].s, tok[i].n);
                have_date |= cols[i].metric == COL_DATE;
                have_time |= cols[i].metric == COL_TIME;
            }
            gd_series_note_header(s, h, hn, l->line_no, have_header);
            have_header = 1;
            if (have_time)
                s->time_source = GPUDIAG_TIME_ABSOLUTE;
            continue;
        }
        if (!have_header)
            continue; /* a banner before the header ("Started host engine ..."): not a data row */
        gd_values_clear(v);
        int gpu = -1, bad = 0, other = 0; /* other: an ignored column held a number */
        int64_t date = -1, tod = -1;
        size_t c;
        if (csv) {
            c = split_row(line + b, n - b, csv, tok, DMON_MAX_COLS + 1);
            bad = c != ncols;
            for (size_t i = 0; i < c && !bad; i++) {
                bad = !cell(cols[i], tok[i].s, tok[i].n, v, &gpu, &date, &tod);
                if (cols[i].metric == COL_IGNORE && !other)
                    other = gd_cell_number(tok[i].s, tok[i].n);
            }
        } else {
            /* One pass over the row: find each blank-separated cell and parse it
             * at once; plain integers (most of dmon) without gd_parse_value.
             * Splitting first and parsing after was a fifth of the reading time. */
            const char *p = line + b, *e = line + n;
            c = 0;
            while (!bad) {
                while (p < e && (*p == ' ' || *p == '\t'))
                    p++;
                if (p >= e)
                    break;
                if (c >= ncols) {
                    bad = 1; /* more cells than the header has columns */
                    break;
                }
                dmon_col col = cols[c++];
                const char *ts = p;
                if (col.metric >= 0 || col.metric == COL_GPU) {
                    uint64_t mant = 0;
                    while (p < e && (unsigned)(*p - '0') < 10u)
                        mant = mant * 10 + (uint64_t)(*p++ - '0');
                    if (p > ts && p - ts <= 12 && (p == e || *p == ' ' || *p == '\t')) {
                        if (col.metric >= 0)
                            v[col.metric] = (double)mant * col.scale;
                        else
                            gpu = mant <= 65535 ? (int)mant : GD_GPU_ID_INVALID;
                        continue;
                    }
                }
                while (p < e && *p != ' ' && *p != '\t')
                    p++;
                if (col.metric != COL_IGNORE)
                    bad = !cell(col, ts, (size_t)(p - ts), v, &gpu, &date, &tod);
                else if (!other)
                    other = gd_cell_number(ts, (size_t)(p - ts));
            }
            bad |= c != ncols;
        }
        if (!bad && gpu == GD_GPU_ID_INVALID) /* the row cannot be placed: left out, and counted invalid */
            gd_series_invalid(s, l->line_no);
        if (bad || gpu < 0) {
            gd_series_skip(s, l->line_no);
            continue;
        }
        if (gd_series_empty_row(s, v, other, l->line_no))
            continue; /* every column '-': no sample */
        gd_values_validate(s, v, l->line_no);
        long g = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, gpu, -1, NULL, NULL);
        if (g < 0)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        int64_t t;
        if (have_time) {
            t = (have_date ? date : 0) + tod;
            if (!have_date) {
                t += day_shift;
                if (last_t >= 0 && t + 43200000000LL < last_t) { /* wrapped past midnight */
                    day_shift += 86400000000LL;
                    t += 86400000000LL;
                }
            }
            last_t = t;
        } else {
            t = (int64_t)s->gpus[g].count * s->interval_us;
        }
        if (gpudiag_series_append(s, (size_t)g, t, v) != GPUDIAG_OK)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        s->rows++;
        gd_lines_size_hint(l, s);
    }
    if (r < 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    if (!have_header)
        return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, 0,
                            "no nvidia-smi dmon header line (\"# gpu ...\") in the file");
    return GPUDIAG_OK;
}

/* A comment line "#Date", "#Time" or "# gpu ..." (nvidia-smi dmon's header;
 * "# gpu," in its --format csv form). */
static long sniff_dmon(const char *buf, size_t len)
{
    gd_sniff_iter it = {buf, len, 0, 0};
    const char *t;
    size_t tn, indent;
    int line;
    while (gd_sniff_next(&it, &t, &tn, &indent, &line)) {
        if (t[0] != '#')
            continue;
        gd_tok tok[4];
        size_t c = gd_split_ws(t + 1, tn - 1, tok, 4);
        if (gd_starts_with(t, tn, "#Date") || gd_starts_with(t, tn, "#Time") ||
            (c && tok[0].n >= 3 && gd_starts_with(tok[0].s, tok[0].n, "gpu") && (tok[0].n == 3 || tok[0].s[3] == ',')))
            return GD_SNIFF_AT(line, 0);
    }
    return -1;
}

const gd_input_format gd_format_dmon = {
    .name = "dmon",
    .kind = GD_FMT_LOG,
    .id = GPUDIAG_LOG_DMON,
    .what = "nvidia-smi dmon",
    .sniff = sniff_dmon,
    .read = gd_read_dmon,
};
