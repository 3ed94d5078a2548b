/*
 * amdsmi.c — AMD's `amd-smi monitor` logs: the text table and its --csv form
 * (DEFINITIONS "amd-smi monitor"; peer: amd-smi's own `monitor` command).
 *
 * Columns come from the header line ("GPU  POWER  GPU_TEMP ..." or
 * "gpu,power_usage,hotspot_temperature,..."), any case, both generations of
 * names; a header anywhere redefines them.  Text cells are a value and its
 * unit as separate words ("182 W", "42 °C", "N/A Mb/s"); CSV cells are bare
 * numbers or "N/A".  amd-smi's MB are MiB; a bare CSV VRAM number is MiB or
 * GiB by the row's vram_total (>= 4096: MiB), and not read without one.
 * A `timestamp` column (the CSV of `amd-smi monitor -w N`: epoch seconds)
 * gives each row its time (GPUDIAG_TIME_ABSOLUTE); without one, sample k of
 * a GPU is at k seconds (GPUDIAG_TIME_ASSUMED).
 */
#include <math.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "util/util.h"

#define AMD_MAX_COLS 64

enum { COL_IGNORE = -1, COL_GPU = -2, COL_VRAM_USED = -3, COL_VRAM_TOTAL = -4, COL_TIME = -5, COL_VRAM_USAGE = -6 };

/* Epoch seconds beyond this (year 5138) are no amd-smi timestamp. */
#define AMD_MAX_EPOCH_S 1e11

typedef struct amd_col {
    int metric;   /* gpudiag_metric, or COL_* */
    double scale; /* multiply the printed value */
} amd_col;

static amd_col map_column(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int metric;
        double scale;
    } map[] = {
        {"gpu", COL_GPU, 1},
        {"timestamp", COL_TIME, 1},
        {"power", GPUDIAG_M_POWER_W, 1},
        {"power_usage", GPUDIAG_M_POWER_W, 1},
        {"pwr_cap", GPUDIAG_M_POWER_LIMIT_W, 1},
        {"max_power", GPUDIAG_M_POWER_LIMIT_W, 1},
        {"gpu_temp", GPUDIAG_M_TEMP_C, 1},
        {"gpu_t", GPUDIAG_M_TEMP_C, 1},
        {"hotspot_temperature", GPUDIAG_M_TEMP_C, 1},
        {"mem_temp", GPUDIAG_M_MEM_TEMP_C, 1},
        {"mem_t", GPUDIAG_M_MEM_TEMP_C, 1},
        {"memory_temperature", GPUDIAG_M_MEM_TEMP_C, 1},
        {"gfx_util", GPUDIAG_M_GPU_UTIL, 0.01},
        {"gfx%", GPUDIAG_M_GPU_UTIL, 0.01},
        {"gfx", GPUDIAG_M_GPU_UTIL, 0.01},
        {"gfx_clock", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"gfx_clk", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"mem_util", GPUDIAG_M_MEM_UTIL, 0.01},
        {"mem%", GPUDIAG_M_MEM_UTIL, 0.01},
        {"mem", GPUDIAG_M_MEM_UTIL, 0.01},
        {"mem_clock", GPUDIAG_M_MEM_CLOCK_MHZ, 1},
        {"enc_util", GPUDIAG_M_ENC_UTIL, 0.01},
        {"enc%", GPUDIAG_M_ENC_UTIL, 0.01},
        {"encoder", GPUDIAG_M_ENC_UTIL, 0.01},
        {"dec_util", GPUDIAG_M_DEC_UTIL, 0.01},
        {"dec%", GPUDIAG_M_DEC_UTIL, 0.01},
        {"decoder", GPUDIAG_M_DEC_UTIL, 0.01},
        {"vram_used", COL_VRAM_USED, 1},
        {"vram_total", COL_VRAM_TOTAL, 1},
        {"vram_usage", COL_VRAM_USAGE, 1},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (gd_ieq(s, n, map[i].name))
            return (amd_col){map[i].metric, map[i].scale};
    return (amd_col){COL_IGNORE, 1};
}

/* The unit words amd-smi prints after a value in its text table. */
static int is_unit(const char *s, size_t n)
{
    static const char *const units[] = {"W", "\302\260C" /* °C */, "C", "%", "MHz", "MB", "GB", "Mb/s", "KB", "B"};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (n == strlen(units[i]) && memcmp(s, units[i], n) == 0)
            return 1;
    return 0;
}

/* The cells of a text row: each word, with the unit word after it when there
 * is one ("182 W" is one cell), and a word ending in '/' joined to the next
 * (VRAM_USAGE's "2.9/ 15.9 GB", its total padded).  Returns the count (at most max). */
static size_t split_text(const char *s, size_t n, gd_tok *cell, size_t max)
{
    gd_tok tok[3 * AMD_MAX_COLS + 3];
    size_t nt = gd_split_ws(s, n, tok, sizeof tok / sizeof tok[0]), c = 0;
    for (size_t i = 0; i < nt && c < max; i++) {
        cell[c] = tok[i];
        if (tok[i].n > 1 && tok[i].s[tok[i].n - 1] == '/' && i + 1 < nt) {
            cell[c].n = (size_t)(tok[i + 1].s + tok[i + 1].n - tok[i].s);
            i++;
        }
        if (i + 1 < nt && is_unit(tok[i + 1].s, tok[i + 1].n)) {
            cell[c].n = (size_t)(tok[i + 1].s + tok[i + 1].n - cell[c].s);
            i++;
        }
        c++;
    }
    return c;
}

/* A cell's number and, after a blank, its unit word (*unit NULL when none):
 * gd_parse_value's rules for the number ("N/A" is missing). */
static double cell_value(gd_tok t, const char **unit, size_t *unit_n, int *ok)
{
    const char *sp = memchr(t.s, ' ', t.n);
    *unit = NULL;
    *unit_n = 0;
    if (sp) {
        *unit = sp + 1;
        *unit_n = (size_t)(t.s + t.n - *unit);
        while (*unit_n && **unit == ' ') {
            (*unit)++;
            (*unit_n)--;
        }
        t.n = (size_t)(sp - t.s);
    }
    return gd_parse_value(t.s, t.n, ok);
}

/* Bytes per printed unit of VRAM: MB (MiB), GB (GiB); a bare number by the
 * row's total (total >= 4096: MiB, below: GiB); NaN when it cannot be told. */
static double vram_scale(const char *unit, size_t unit_n, double bare_total)
{
    if (unit && gd_ieq(unit, unit_n, "mb"))
        return 1048576.0;
    if (unit && gd_ieq(unit, unit_n, "gb"))
        return 1073741824.0;
    if (unit || isnan(bare_total))
        return NAN;
    return bare_total >= 4096 ? 1048576.0 : 1073741824.0;
}

typedef struct amd_row {
    int gpu;
    int64_t t_us;                 /* the timestamp cell, µs since 1970; -1 when no column */
    double v[GPUDIAG_M_COUNT];
    double used, total;           /* VRAM as printed */
    const char *used_u, *total_u; /* their units, NULL when bare */
    size_t used_un, total_un;
    int other;                    /* a number in a column the reader ignores, or VRAM it cannot scale: a reading */
} amd_row;

/* Parse the cells of one data row into *r; 0 when a cell is malformed (*bad:
 * its position). */
static int parse_row(const amd_col *cols, const gd_tok *cell, size_t c, amd_row *r, size_t *bad)
{
    r->gpu = -1;
    r->t_us = -1;
    r->used = r->total = NAN;
    r->used_u = r->total_u = NULL;
    r->used_un = r->total_un = 0;
    r->other = 0;
    gd_values_clear(r->v);
    for (size_t i = 0; i < c; i++) {
        amd_col col = cols[i];
        const char *unit;
        size_t un;
        int ok;
        if (col.metric == COL_IGNORE) {
            double y = cell_value(cell[i], &unit, &un, &ok);
            r->other |= ok && !isnan(y);
            continue;
        }
        *bad = i;
        if (col.metric == COL_VRAM_USAGE) {
            /* "used/total unit": both in the total's unit; "N/A" is missing */
            const char *sl = memchr(cell[i].s, '/', cell[i].n);
            if (!sl) {
                (void)cell_value(cell[i], &unit, &un, &ok);
                if (!ok)
                    return 0;
                continue; /* N/A */
            }
            gd_tok used = {cell[i].s, (size_t)(sl - cell[i].s)}, tot = {sl + 1, (size_t)(cell[i].s + cell[i].n - sl - 1)};
            while (tot.n && *tot.s == ' ')
                tot.s++, tot.n--;
            int ok1;
            r->used = gd_parse_value(used.s, used.n, &ok1);
            r->total = cell_value(tot, &unit, &un, &ok);
            if (!ok || !ok1 || !unit)
                return 0; /* a bare "a/b" has no unit to read it by */
            r->used_u = r->total_u = unit;
            r->used_un = r->total_un = un;
            continue;
        }
        double x = cell_value(cell[i], &unit, &un, &ok);
        if (!ok)
            return 0;
        if (col.metric == COL_GPU) {
            if (isnan(x))
                return 0;
            r->gpu = gd_gpu_index(x);
        } else if (col.metric == COL_TIME) {
            if (!(x >= 0 && x < AMD_MAX_EPOCH_S) || unit)
                return 0; /* N/A, negative or no epoch seconds: the row's time is unknown */
            r->t_us = llround(x * 1e6);
        } else if (col.metric == COL_VRAM_USED) {
            r->used = x;
            r->used_u = unit;
            r->used_un = un;
        } else if (col.metric == COL_VRAM_TOTAL) {
            r->total = x;
            r->total_u = unit;
            r->total_un = un;
        } else {
            r->v[col.metric] = x * col.scale;
        }
    }
    r->other |= !isnan(r->used) || !isnan(r->total);
    double bare_total = r->total_u ? NAN : r->total;
    r->v[GPUDIAG_M_MEM_USED_BYTES] = r->used * vram_scale(r->used_u, r->used_un, bare_total);
    r->v[GPUDIAG_M_MEM_TOTAL_BYTES] = r->total * vram_scale(r->total_u, r->total_un, bare_total);
    return 1;
}

/* A header line: "GPU  POWER ..." (text) or "gpu,..." / "timestamp,gpu,..." (CSV)
 * with at least one column amd-smi names.  Fills cols and returns their
 * count, *csv set, the ignored columns noted in ser (NULL: not noted); 0
 * when the line is not a header. */
static size_t parse_header(const char *s, size_t n, amd_col *cols, int *csv, gpudiag_series *ser)
{
    gd_tok tok[AMD_MAX_COLS + 1];
    int is_csv = memchr(s, ',', n) != NULL;
    size_t c = is_csv ? gd_split_comma(s, n, tok, AMD_MAX_COLS + 1) : gd_split_ws(s, n, tok, AMD_MAX_COLS + 1);
    size_t first = c > 1 && is_csv && gd_ieq(tok[0].s, tok[0].n, "timestamp") ? 1 : 0;
    if (c < 2 || c > AMD_MAX_COLS || !gd_ieq(tok[first].s, tok[first].n, "gpu"))
        return 0;
    if (!is_csv && !(tok[0].n == 3 && memcmp(tok[0].s, "GPU", 3) == 0))
        return 0; /* the text table's header is upper case */
    int known = 0;
    for (size_t i = 0; i < c; i++) {
        cols[i] = map_column(tok[i].s, tok[i].n);
        known += cols[i].metric >= 0 || cols[i].metric == COL_VRAM_USED || cols[i].metric == COL_VRAM_TOTAL ||
                 cols[i].metric == COL_VRAM_USAGE;
    }
    if (!known)
        return 0;
    for (size_t i = 0; ser && i < c; i++)
        if (cols[i].metric == COL_IGNORE)
            gd_series_note_ignored(ser, tok[i].s, tok[i].n);
    *csv = is_csv;
    return c;
}

/* The CSV header of `amd-smi metric --csv` ("timestamp,gpu,gfx_activity,umc_activity,..."): amd-smi's
 * gpu column (after an optional timestamp) and the metric command's gfx_activity or umc_activity.
 * Not read (DEFINITIONS "Reading": its cells hold quoted lists with commas). */
static int is_metric_header(const char *s, size_t n)
{
    size_t p = 0;
    if (n >= 10 && gd_ieq(s, 10, "timestamp,"))
        p = 10;
    if (n - p < 4 || !gd_ieq(s + p, 4, "gpu,"))
        return 0;
    for (size_t i = p; i + 1 < n; i++) {
        if (s[i] != ',')
            continue;
        const char *c = s + i + 1;
        const char *e = memchr(c, ',', n - i - 1);
        size_t cn = e ? (size_t)(e - c) : n - i - 1;
        if (gd_ieq(c, cn, "gfx_activity") || gd_ieq(c, cn, "umc_activity"))
            return 1;
    }
    return 0;
}

static gpudiag_status read_amdsmi(gd_lines *l, gpudiag_series *s, gpudiag_error *err)
{
    amd_col cols[AMD_MAX_COLS];
    size_t ncols = 0;
    int csv = 0, have_header = 0;
    gd_tok cell[AMD_MAX_COLS + 1];
    amd_row row;
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
        if (is_metric_header(line + b, n - b))
            return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, l->line_off,
                                "line %llu: amd-smi metric --csv output (gfx_activity, umc_activity, ... with lists "
                                "per XCP), which gpudiag does not read: log with `amd-smi monitor --csv` (-w N for a "
                                "watch) and give that file",
                                (unsigned long long)l->line_no);
        amd_col hc[AMD_MAX_COLS];
        int hcsv = 0;
        size_t hn = parse_header(line + b, n - b, hc, &hcsv, s);
        if (hn) {
            memcpy(cols, hc, hn * sizeof hc[0]);
            ncols = hn;
            csv = hcsv;
            int has_time = 0;
            for (size_t i = 0; i < hn; i++)
                has_time |= hc[i].metric == COL_TIME;
            /* absolute only while every header has the column (a log without it is at k s) */
            s->time_source = has_time && (!have_header || s->time_source == GPUDIAG_TIME_ABSOLUTE)
                                 ? GPUDIAG_TIME_ABSOLUTE
                                 : GPUDIAG_TIME_ASSUMED;
            gd_series_note_header(s, line + b, n - b, l->line_no, have_header);
            have_header = 1;
            continue;
        }
        if (!have_header)
            continue; /* the "AMDSMI Tool: ... | ROCm version: ..." banner: not a data row */
        size_t c = csv ? gd_split_comma(line + b, n - b, cell, AMD_MAX_COLS + 1)
                       : split_text(line + b, n - b, cell, AMD_MAX_COLS + 1);
        size_t bad = 0;
        int ok = c == ncols && parse_row(cols, cell, c, &row, &bad);
        if (ok && row.gpu == GD_GPU_ID_INVALID)
            gd_series_invalid(s, l->line_no);
        if (c != ncols) /* e.g. a row with a blank GPU column, one per XCP of a partitioned MI300: undocumented */
            gd_series_skip_why(s, l->line_no,
                               "%zu cells where the header has %zu columns; rows with a blank GPU column (as "
                               "per-XCP rows) have no documented layout and are not read",
                               c, ncols);
        else if (!ok)
            gd_series_skip_why(s, l->line_no, "\"%.*s\" (cell %zu) is not a number this reader knows",
                               (int)(cell[bad].n < 40 ? cell[bad].n : 40), cell[bad].s, bad + 1);
        if (!ok || row.gpu < 0) {
            if (ok)
                gd_series_skip(s, l->line_no);
            continue;
        }
        if (gd_series_empty_row(s, row.v, row.other, l->line_no))
            continue; /* every cell N/A: no sample */
        gd_values_validate(s, row.v, l->line_no);
        long g = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, row.gpu, -1, NULL, NULL);
        if (g < 0)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        int64_t t = row.t_us >= 0 ? row.t_us : (int64_t)s->gpus[g].count * s->interval_us;
        if (gpudiag_series_append(s, (size_t)g, t, row.v) != GPUDIAG_OK)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        s->rows++;
        gd_lines_size_hint(l, s);
    }
    if (r < 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    if (!have_header)
        return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, 0,
                            "no amd-smi monitor header line (\"GPU  POWER  GPU_TEMP ...\" or "
                            "\"gpu,power_usage,...\") in the file");
    return GPUDIAG_OK;
}

/* An amd-smi monitor header line (tier 1: amd-smi's column names), or amd-smi metric's (named
 * in the reader's error). */
static long sniff_amdsmi(const char *buf, size_t len)
{
    gd_sniff_iter it = {buf, len, 0, 0};
    const char *t;
    size_t tn, indent;
    int line;
    amd_col cols[AMD_MAX_COLS];
    while (gd_sniff_next(&it, &t, &tn, &indent, &line)) {
        int csv;
        if (is_metric_header(t, tn) || parse_header(t, tn, cols, &csv, NULL))
            return GD_SNIFF_AT(line, 1);
    }
    return -1;
}

const gd_input_format gd_format_amdsmi = {
    .name = "amdsmi",
    .kind = GD_FMT_LOG,
    .id = GPUDIAG_LOG_AMDSMI,
    .what = "amd-smi monitor",
    .sniff = sniff_amdsmi,
    .read = read_amdsmi,
};
