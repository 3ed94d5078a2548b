/*
 * smi_csv.c — nvidia-smi --query-gpu=... --format=csv[,nounits] logs, -l/-lms
 * loops (monitoring-peers.md §1.5-1.6).
 *
 * The header names the fields ("utilization.gpu [%]"; the unit suffix is
 * dropped); any field set and order.  Values may carry units ("45 %",
 * "1234 MiB") or not; "[N/A]" / "[Not Supported]" are missing.  Both the
 * clocks_event_reasons.* and the older clocks_throttle_reasons.* names are
 * read.  A header line later in the file redefines the columns.
 *
 * GPU identity: index, else uuid, else pci.bus_id.  Without any of them a
 * log with timestamps is one GPU; a log without timestamps restarts its GPU
 * count when the first row's `name` comes round again (one row per GPU per loop,
 * in index order).  Times: the timestamp column (local time read as UTC), else
 * sample k at k seconds (GPUDIAG_TIME_ASSUMED).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "util/util.h"

#define CSV_MAX_COLS 128

enum {
    F_IGNORE = -1,
    F_TIMESTAMP = -2,
    F_INDEX = -3,
    F_UUID = -4,
    F_NAME = -5,
    F_BUS = -6,
    F_MEM_FREE = -7,
    F_REASONS_MASK = -8,
    F_REASON_BIT = -9,
    F_SM_CLOCK_GR = -10 /* graphics clock: SM clock when no clocks.sm column */
};

typedef struct csv_col {
    int field;
    double scale;
    uint64_t bit;
} csv_col;

static csv_col map_field(const char *s, size_t n)
{
    /* drop " [unit]" */
    const char *br = memchr(s, '[', n);
    if (br) {
        n = (size_t)(br - s);
        while (n && s[n - 1] == ' ')
            n--;
    }
    static const struct {
        const char *name;
        int field;
        double scale;
    } map[] = {
        {"timestamp", F_TIMESTAMP, 1},
        {"index", F_INDEX, 1},
        {"uuid", F_UUID, 1},
        {"gpu_uuid", F_UUID, 1},
        {"name", F_NAME, 1},
        {"gpu_name", F_NAME, 1},
        {"pci.bus_id", F_BUS, 1},
        {"gpu_bus_id", F_BUS, 1},
        {"utilization.gpu", GPUDIAG_M_GPU_UTIL, 0.01},
        {"utilization.memory", GPUDIAG_M_MEM_UTIL, 0.01},
        {"utilization.encoder", GPUDIAG_M_ENC_UTIL, 0.01},
        {"utilization.decoder", GPUDIAG_M_DEC_UTIL, 0.01},
        {"memory.total", GPUDIAG_M_MEM_TOTAL_BYTES, 1048576.0},
        {"memory.used", GPUDIAG_M_MEM_USED_BYTES, 1048576.0},
        {"memory.free", F_MEM_FREE, 1048576.0},
        {"clocks.current.sm", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"clocks.sm", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"clocks.current.graphics", F_SM_CLOCK_GR, 1},
        {"clocks.gr", F_SM_CLOCK_GR, 1},
        {"clocks.current.memory", GPUDIAG_M_MEM_CLOCK_MHZ, 1},
        {"clocks.mem", GPUDIAG_M_MEM_CLOCK_MHZ, 1},
        {"clocks.max.sm", GPUDIAG_M_SM_CLOCK_MAX_MHZ, 1},
        {"clocks.max.graphics", GPUDIAG_M_SM_CLOCK_MAX_MHZ, 1},
        {"clocks.max.gr", GPUDIAG_M_SM_CLOCK_MAX_MHZ, 1},
        {"power.draw", GPUDIAG_M_POWER_W, 1},
        {"power.draw.average", GPUDIAG_M_POWER_W, 1},
        {"power.draw.instant", GPUDIAG_M_POWER_W, 1},
        {"power.limit", GPUDIAG_M_POWER_LIMIT_W, 1},
        {"enforced.power.limit", GPUDIAG_M_POWER_LIMIT_W, 1},
        {"temperature.gpu", GPUDIAG_M_TEMP_C, 1},
        {"temperature.memory", GPUDIAG_M_MEM_TEMP_C, 1},
        {"pcie.link.gen.current", GPUDIAG_M_PCIE_GEN, 1},
        {"pcie.link.gen.gpucurrent", GPUDIAG_M_PCIE_GEN, 1},
        {"pcie.link.gen.max", GPUDIAG_M_PCIE_GEN_MAX, 1},
        {"pcie.link.width.current", GPUDIAG_M_PCIE_WIDTH, 1},
        {"pcie.link.width.max", GPUDIAG_M_PCIE_WIDTH_MAX, 1},
        /* gpudiag's own live log (gpudiag run / watch --csv, src/cli/live.c): nvidia-smi names plus these */
        {"pcie.rx", GPUDIAG_M_PCIE_RX_BPS, 1048576.0},
        {"pcie.tx", GPUDIAG_M_PCIE_TX_BPS, 1048576.0},
        {"gpm.sm_active", GPUDIAG_M_SM_ACTIVE, 0.01},
        {"gpm.sm_occupancy", GPUDIAG_M_SM_OCCUPANCY, 0.01},
        {"gpm.tensor_active", GPUDIAG_M_TENSOR_ACTIVE, 0.01},
        {"gpm.dram_active", GPUDIAG_M_DRAM_ACTIVE, 0.01},
        {"gpm.nvlink.rx", GPUDIAG_M_NVLINK_RX_BPS, 1048576.0},
        {"gpm.nvlink.tx", GPUDIAG_M_NVLINK_TX_BPS, 1048576.0},
        {"clocks_event_reasons.active", F_REASONS_MASK, 1},
        {"clocks_throttle_reasons.active", F_REASONS_MASK, 1},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (gd_ieq(s, n, map[i].name))
            return (csv_col){map[i].field, map[i].scale, 0};
    static const struct {
        const char *suffix;
        uint64_t bit;
    } reasons[] = {
        {"gpu_idle", GPUDIAG_REASON_GPU_IDLE},
        {"applications_clocks_setting", GPUDIAG_REASON_APP_CLOCKS},
        {"sw_power_cap", GPUDIAG_REASON_SW_POWER_CAP},
        {"hw_slowdown", GPUDIAG_REASON_HW_SLOWDOWN},
        {"sync_boost", GPUDIAG_REASON_SYNC_BOOST},
        {"sw_thermal_slowdown", GPUDIAG_REASON_SW_THERMAL},
        {"hw_thermal_slowdown", GPUDIAG_REASON_HW_THERMAL},
        {"hw_power_brake_slowdown", GPUDIAG_REASON_HW_POWER_BRAKE},
        {"display_clock_setting", GPUDIAG_REASON_DISPLAY_CLOCK},
    };
    const char *p = NULL;
    size_t pn = 0;
    if (gd_starts_with(s, n, "clocks_event_reasons.")) {
        p = s + 21;
        pn = n - 21;
    } else if (gd_starts_with(s, n, "clocks_throttle_reasons.")) {
        p = s + 24;
        pn = n - 24;
    }
    if (p)
        for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
            if (gd_ieq(p, pn, reasons[i].suffix))
                return (csv_col){F_REASON_BIT, 1, reasons[i].bit};
    return (csv_col){F_IGNORE, 1, 0};
}

/* A header field: lower-case identifier with dots/underscores, optional " [unit]". */
static int looks_like_field(const char *s, size_t n)
{
    if (!n)
        return 0;
    size_t i = 0;
    while (i < n && (islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == '_'))
        i++;
    if (i == 0 || !islower((unsigned char)s[0]))
        return 0;
    while (i < n && s[i] == ' ')
        i++;
    return i == n || s[i] == '[';
}

static int parse_hex_or_value(const char *s, size_t n, double *out)
{
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        uint64_t v = 0;
        size_t sig = 0; /* significant hex digits */
        for (size_t i = 2; i < n; i++) {
            int c = tolower((unsigned char)s[i]), d;
            if (c >= '0' && c <= '9')
                d = c - '0';
            else if (c >= 'a' && c <= 'f')
                d = c - 'a' + 10;
            else
                return 0;
            sig += sig || d;
            v = (v << 4) | (uint64_t)d;
        }
        /* beyond 64 bits: no bitmask (invalid, DEFINITIONS "Invalid monitoring values") */
        *out = sig > 16 ? INFINITY : (double)v;
        return 1;
    }
    int ok;
    *out = gd_parse_value(s, n, &ok);
    return ok;
}

/* Unix epoch seconds in the timestamp column (DEFINITIONS "Time"): a bare number, whole or with a
 * fraction, 0 <= x < 1e11 (the amd-smi reader's bound, year 5138); µs since 1970, -1 when not one. */
static int64_t parse_epoch(const char *s, size_t n)
{
    size_t i = 0, digits = 0, dots = 0;
    for (; i < n; i++) {
        if (isdigit((unsigned char)s[i]))
            digits++;
        else if (s[i] == '.' && digits)
            dots++;
        else
            return -1;
    }
    if (!digits || dots > 1 || n > 32)
        return -1;
    char b[33];
    memcpy(b, s, n);
    b[n] = 0;
    double x = strtod(b, NULL);
    if (!(x >= 0 && x < 1e11))
        return -1;
    return llround(x * 1e6);
}

gpudiag_status gd_read_smi_csv(gd_lines *l, gpudiag_series *s, gpudiag_error *err)
{
    csv_col cols[CSV_MAX_COLS];
    size_t ncols = 0;
    int have_header = 0, have_ts = 0, have_id = 0, have_sm_col = 0, col_name = -1;
    gd_tok tok[CSV_MAX_COLS + 1];
    double v[GPUDIAG_M_COUNT];
    char first_name[96] = "";
    int loop_pos = 0;
    const char *line;
    size_t n;
    int r;
    s->time_source = GPUDIAG_TIME_ASSUMED;
    s->interval_us = 1000000;
    while ((r = gd_lines_next(l, &line, &n, err)) == 1) {
        s->lines++;
        size_t c = gd_split_comma(line, n, tok, CSV_MAX_COLS + 1);
        if (c == 1 && tok[0].n == 0)
            continue; /* blank */
        int header = 1;
        for (size_t i = 0; i < c && header; i++)
            header = looks_like_field(tok[i].s, tok[i].n);
        if (header) {
            if (c > CSV_MAX_COLS)
                return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, l->line_off,
                                    "line %llu: more than %d fields in the header", (unsigned long long)l->line_no,
                                    CSV_MAX_COLS);
            ncols = c;
            have_ts = have_id = have_sm_col = 0;
            col_name = -1;
            for (size_t i = 0; i < c; i++) {
                cols[i] = map_field(tok[i].s, tok[i].n);
                have_ts |= cols[i].field == F_TIMESTAMP;
                have_id |= cols[i].field == F_INDEX || cols[i].field == F_UUID || cols[i].field == F_BUS;
                have_sm_col |= cols[i].field == GPUDIAG_M_SM_CLOCK_MHZ;
                if (cols[i].field == F_NAME)
                    col_name = (int)i;
            }
            gd_series_note_header(s, line, n, l->line_no, have_header);
            have_header = 1;
            if (have_ts)
                s->time_source = GPUDIAG_TIME_ABSOLUTE;
            first_name[0] = 0;
            loop_pos = 0;
            continue;
        }
        if (!have_header)
            return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, l->line_off,
                                "line %llu: nvidia-smi CSV without its header line (--format=csv,noheader): the "
                                "field names are needed; log with --format=csv",
                                (unsigned long long)l->line_no);
        if (c != ncols) {
            gd_series_skip_why(s, l->line_no, "%zu cells where the header has %zu columns", c, ncols);
            continue;
        }
        gd_values_clear(v);
        int index = -1, bad = 0, any_bit = 0, other = 0; /* other: an ignored column held a number */
        uint64_t bits = 0;
        int64_t t = -1;
        double mem_free = NAN, gr_clock = NAN;
        char uuid[96] = "", bus[32] = "", name[96] = "";
        size_t bad_at = 0;
        for (size_t i = 0; i < c && !bad; i++) {
            const gd_tok *k = &tok[i];
            bad_at = i;
            double x = NAN;
            switch (cols[i].field) {
            case F_IGNORE:
                other |= gd_cell_number(k->s, k->n);
                break;
            case F_TIMESTAMP:
                t = gd_parse_datetime(k->s, k->n);
                if (t < 0)
                    t = parse_epoch(k->s, k->n);
                bad = t < 0;
                break;
            case F_INDEX: {
                int ok;
                x = gd_parse_value(k->s, k->n, &ok);
                int id = gd_gpu_index(ok ? x : NAN);
                bad = id < 0;
                if (id == GD_GPU_ID_INVALID) /* a number that is no index (beyond int, inf): invalid */
                    gd_series_invalid(s, l->line_no);
                index = bad ? -1 : id;
                break;
            }
            case F_UUID: snprintf(uuid, sizeof uuid, "%.*s", (int)k->n, k->s); break;
            case F_BUS: snprintf(bus, sizeof bus, "%.*s", (int)k->n, k->s); break;
            case F_NAME: snprintf(name, sizeof name, "%.*s", (int)k->n, k->s); break;
            case F_REASON_BIT:
                if (gd_ieq(k->s, k->n, "active")) {
                    bits |= cols[i].bit;
                    any_bit = 1;
                } else if (gd_ieq(k->s, k->n, "not active")) {
                    any_bit = 1;
                }
                break;
            case F_REASONS_MASK:
                bad = !parse_hex_or_value(k->s, k->n, &x);
                v[GPUDIAG_M_CLOCK_REASONS] = x;
                break;
            default: {
                int ok;
                x = gd_parse_value(k->s, k->n, &ok);
                bad = !ok;
                x *= cols[i].scale;
                if (cols[i].field == F_MEM_FREE)
                    mem_free = x;
                else if (cols[i].field == F_SM_CLOCK_GR)
                    gr_clock = x;
                else
                    v[cols[i].field] = x;
            }
            }
        }
        if (bad) {
            const gd_tok *k = &tok[bad_at];
            gd_series_skip_why(s, l->line_no, "\"%.*s\" (cell %zu) is not %s", (int)(k->n < 40 ? k->n : 40), k->s,
                               bad_at + 1,
                               cols[bad_at].field == F_TIMESTAMP ? "a time stamp (YYYY/MM/DD HH:MM:SS or epoch seconds)"
                               : cols[bad_at].field == F_INDEX   ? "a GPU index"
                                                                 : "a number this reader knows");
            continue;
        }
        if (any_bit && isnan(v[GPUDIAG_M_CLOCK_REASONS]))
            v[GPUDIAG_M_CLOCK_REASONS] = (double)bits;
        if (!have_sm_col)
            v[GPUDIAG_M_SM_CLOCK_MHZ] = gr_clock;
        if (isnan(v[GPUDIAG_M_MEM_TOTAL_BYTES]) && !isnan(mem_free) && !isnan(v[GPUDIAG_M_MEM_USED_BYTES]))
            v[GPUDIAG_M_MEM_TOTAL_BYTES] = v[GPUDIAG_M_MEM_USED_BYTES] + mem_free;
        if (!have_id && !have_ts) {
            if (col_name >= 0 && loop_pos > 0 && strcmp(name, first_name) == 0)
                loop_pos = 0;
            if (loop_pos == 0)
                snprintf(first_name, sizeof first_name, "%s", name);
            index = col_name >= 0 ? loop_pos++ : 0;
        } else if (!have_id) {
            index = 0;
        }
        if (gd_series_empty_row(s, v, other || !isnan(mem_free), l->line_no))
            continue; /* every field [N/A]: no sample */
        gd_values_validate(s, v, l->line_no);
        long g = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, index, -1, uuid[0] ? uuid : (bus[0] ? bus : NULL), NULL);
        if (g < 0)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        gpudiag_gpu_series *gs = &s->gpus[g];
        if (name[0] && !gs->name[0])
            snprintf(gs->name, sizeof gs->name, "%s", name);
        if (bus[0] && !gs->bus_id[0])
            snprintf(gs->bus_id, sizeof gs->bus_id, "%s", bus);
        if (!have_ts)
            t = (int64_t)gs->count * s->interval_us;
        if (gpudiag_series_append(s, (size_t)g, t, v) != GPUDIAG_OK)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        s->rows++;
        gd_lines_size_hint(l, s);
    }
    if (r < 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    if (!have_header)
        return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, 0, "no nvidia-smi --query-gpu CSV header line");
    return GPUDIAG_OK;
}

/* A one-field query's header ("utilization.gpu [%]", no comma): one field the reader maps, with
 * its [unit] or a dot (a bare word such as "timestamp" is no evidence). */
static int one_field_header(const char *t, size_t tn)
{
    if (memchr(t, ',', tn) || !looks_like_field(t, tn))
        return 0;
    csv_col col = map_field(t, tn);
    return col.field != F_IGNORE && (memchr(t, '[', tn) || memchr(t, '.', tn));
}

/* A --format=csv,noheader row: nvidia-smi's time stamp ("2026/04/25 16:06:06.780": slashes, which
 * Python logging's "2026-04-25 16:06:06,780 INFO ..." has not), then a cell that is a number. */
static int headerless_row(const char *t, size_t tn)
{
    const char *comma = memchr(t, ',', tn);
    if (!comma || tn < 5 || t[4] != '/' || gd_parse_datetime(t, (size_t)(comma - t)) < 0)
        return 0;
    gd_tok tok[CSV_MAX_COLS + 1];
    size_t c = gd_split_comma(t, tn, tok, CSV_MAX_COLS + 1);
    for (size_t i = 1; i < c; i++)
        if (gd_cell_number(tok[i].s, tok[i].n))
            return 1;
    return 0;
}

/* A comma-separated line naming --query-gpu fields (the CSV header), a one-field header, or a
 * headerless row (the reader names it). */
static long sniff_smi_csv(const char *buf, size_t len)
{
    gd_sniff_iter it = {buf, len, 0, 0};
    const char *t;
    size_t tn, indent;
    int line;
    while (gd_sniff_next(&it, &t, &tn, &indent, &line)) {
        if (t[0] == '#')
            continue;
        if (memchr(t, ',', tn) &&
            (gd_icontains(t, tn, "utilization.") || gd_icontains(t, tn, "memory.") || gd_icontains(t, tn, "timestamp") ||
             gd_icontains(t, tn, "temperature.") || gd_icontains(t, tn, "power.") || gd_icontains(t, tn, "clocks.") ||
             gd_icontains(t, tn, "pci.bus_id") || gd_icontains(t, tn, "pstate")))
            return GD_SNIFF_AT(line, 2);
        if (one_field_header(t, tn) || headerless_row(t, tn))
            return GD_SNIFF_AT(line, 2);
    }
    return -1;
}

const gd_input_format gd_format_smi_csv = {
    .name = "smi-csv",
    .kind = GD_FMT_LOG,
    .id = GPUDIAG_LOG_SMI_CSV,
    .what = "nvidia-smi --query-gpu CSV with its header",
    .sniff = sniff_smi_csv,
    .read = gd_read_smi_csv,
};
