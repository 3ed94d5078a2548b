/*
 * smi_q.c — `nvidia-smi -q` / `-a` text (also -d PERFORMANCE,CLOCK excerpts and
 * -q -l loops): a snapshot per GPU block (monitoring-peers.md §1.5, §3.5).
 *
 * The text is a tree by indentation: a line without a value opens a section,
 * `Key : value` lines belong to the nearest section above them with a smaller
 * indent.  A block starts at `GPU 00000000:2F:00.0`; an excerpt without that
 * line is one GPU.  Read: product name, UUID, bus id, PCIe generation and width
 * (current and max), PCIe Tx/Rx throughput (KB/s), FB memory used/total,
 * utilization, temperatures, power draw and limit, clocks and max clocks, and
 * the "Clocks Event Reasons" / older "Clocks Throttle Reasons" block as reason
 * bits (an `N/A` entry leaves its bit unknown, i.e. not set).  Each block is one
 * sample at the `Timestamp` line's time (local time read as UTC) or 0.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "util/util.h"

#define Q_DEPTH 16

typedef struct q_gpu {
    int open;
    double v[GPUDIAG_M_COUNT];
    uint64_t bits;
    int any_bit;
    char name[96], uuid[96], bus[32];
} q_gpu;

static void q_reset(q_gpu *g)
{
    memset(g, 0, sizeof *g);
    gd_values_clear(g->v);
}

static gpudiag_status q_commit(gpudiag_series *s, q_gpu *g, int pos, int64_t t, gd_lines *l, gpudiag_error *err)
{
    if (!g->open)
        return GPUDIAG_OK;
    if (g->any_bit)
        g->v[GPUDIAG_M_CLOCK_REASONS] = (double)g->bits;
    if (gd_series_empty_row(s, g->v, 0, l->line_no)) { /* every value it maps N/A: no sample */
        q_reset(g);
        return GPUDIAG_OK;
    }
    gd_values_validate(s, g->v, l->line_no);
    long k = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, pos, -1, g->uuid[0] ? g->uuid : NULL, NULL);
    if (k < 0 || gpudiag_series_append(s, (size_t)k, t, g->v) != GPUDIAG_OK)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
    gpudiag_gpu_series *gs = &s->gpus[k];
    if (g->name[0])
        snprintf(gs->name, sizeof gs->name, "%s", g->name);
    if (g->bus[0])
        snprintf(gs->bus_id, sizeof gs->bus_id, "%s", g->bus);
    s->rows++;
    q_reset(g);
    return GPUDIAG_OK;
}

/* "Thu Jan  4 14:41:13 2024" -> µs since epoch; -1 if malformed. */
static int64_t parse_ctime(const char *s, size_t n)
{
    static const char *mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    gd_tok t[6];
    if (gd_split_ws(s, n, t, 6) != 5 || t[1].n != 3)
        return -1;
    int m = -1;
    for (int i = 0; i < 12; i++)
        if (memcmp(t[1].s, mon[i], 3) == 0)
            m = i + 1;
    int ok;
    double d = gd_parse_value(t[2].s, t[2].n, &ok), y = gd_parse_value(t[4].s, t[4].n, &ok);
    int64_t hms = gd_parse_hms(t[3].s, t[3].n);
    if (m < 0 || !isfinite(d) || !isfinite(y) || hms < 0 || d < 1 || d > 31 || y < 1 || y > 9999)
        return -1;
    return gd_days_from_civil((int64_t)y, (unsigned)m, (unsigned)d) * 86400000000LL + hms;
}

static int eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* A line of a "Clocks Event Reasons" (or "Clocks Throttle Reasons") section:
 * its reason bit when Active; Not Active makes the bits known. */
static void q_reason_bit(q_gpu *g, const char *k, size_t keyn, const char *val, size_t valn)
{
    static const struct {
        const char *key;
        uint64_t bit;
    } rs[] = {
        {"Idle", GPUDIAG_REASON_GPU_IDLE},
        {"Applications Clocks Setting", GPUDIAG_REASON_APP_CLOCKS},
        {"SW Power Cap", GPUDIAG_REASON_SW_POWER_CAP},
        {"HW Slowdown", GPUDIAG_REASON_HW_SLOWDOWN},
        {"HW Thermal Slowdown", GPUDIAG_REASON_HW_THERMAL},
        {"HW Power Brake Slowdown", GPUDIAG_REASON_HW_POWER_BRAKE},
        {"Sync Boost", GPUDIAG_REASON_SYNC_BOOST},
        {"SW Thermal Slowdown", GPUDIAG_REASON_SW_THERMAL},
        {"Display Clock Setting", GPUDIAG_REASON_DISPLAY_CLOCK},
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        if (!eq(k, keyn, rs[i].key))
            continue;
        if (eq(val, valn, "Active")) {
            g->bits |= rs[i].bit;
            g->any_bit = 1;
        } else if (eq(val, valn, "Not Active")) {
            g->any_bit = 1;
        }
    }
}

/* A line of a "Clocks Event Reasons Counters" section: cumulative µs per
 * reason (R580+); the throttling ones are summed. */
static void q_reason_counter(q_gpu *g, const char *k, size_t keyn, const char *val, size_t valn)
{
    if (!(eq(k, keyn, "SW Power Capping") || eq(k, keyn, "SW Thermal Slowdown") ||
          eq(k, keyn, "HW Thermal Slowdown") || eq(k, keyn, "HW Power Braking") || eq(k, keyn, "SW Power Cap") ||
          eq(k, keyn, "HW Power Brake Slowdown")))
        return;
    int ok;
    double x = gd_parse_value(val, valn, &ok);
    if (!ok || isnan(x))
        return;
    double us = x;
    size_t u = valn;
    while (u && isalpha((unsigned char)val[u - 1]))
        u--;
    if (gd_ieq(val + u, valn - u, "ms"))
        us = x * 1e3;
    else if (gd_ieq(val + u, valn - u, "ns"))
        us = x / NS_PER_US;
    else if (gd_ieq(val + u, valn - u, "s"))
        us = x * 1e6;
    g->v[GPUDIAG_M_THROTTLE_TIME_US] = (isnan(g->v[GPUDIAG_M_THROTTLE_TIME_US]) ? 0 : g->v[GPUDIAG_M_THROTTLE_TIME_US]) + us;
    if (!gd_starts_with(k, keyn, "SW Power Cap")) /* the thermal / HW part */
        g->v[GPUDIAG_M_THERMAL_THROTTLE_TIME_US] =
            (isnan(g->v[GPUDIAG_M_THERMAL_THROTTLE_TIME_US]) ? 0 : g->v[GPUDIAG_M_THERMAL_THROTTLE_TIME_US]) + us;
}

/* The metric of key k in section parent (-1: none) and *scale to its unit. */
static int q_metric(const char *parent, size_t pn, const char *k, size_t keyn, double *scale)
{
    int metric = -1;
    if (eq(parent, pn, "PCIe Generation")) {
        metric = eq(k, keyn, "Current") ? GPUDIAG_M_PCIE_GEN : eq(k, keyn, "Max") ? GPUDIAG_M_PCIE_GEN_MAX : -1;
    } else if (eq(parent, pn, "Link Width")) {
        metric = eq(k, keyn, "Current") ? GPUDIAG_M_PCIE_WIDTH : eq(k, keyn, "Max") ? GPUDIAG_M_PCIE_WIDTH_MAX : -1;
    } else if (eq(k, keyn, "Tx Throughput") || eq(k, keyn, "Rx Throughput")) {
        metric = k[0] == 'T' ? GPUDIAG_M_PCIE_TX_BPS : GPUDIAG_M_PCIE_RX_BPS;
        *scale = 1000.0; /* KB/s */
    } else if (eq(parent, pn, "FB Memory Usage")) {
        metric = eq(k, keyn, "Total") ? GPUDIAG_M_MEM_TOTAL_BYTES : eq(k, keyn, "Used") ? GPUDIAG_M_MEM_USED_BYTES : -1;
        *scale = 1048576.0;
    } else if (eq(parent, pn, "Utilization")) {
        metric = eq(k, keyn, "Gpu")       ? GPUDIAG_M_GPU_UTIL
                 : eq(k, keyn, "Memory")  ? GPUDIAG_M_MEM_UTIL
                 : eq(k, keyn, "Encoder") ? GPUDIAG_M_ENC_UTIL
                 : eq(k, keyn, "Decoder") ? GPUDIAG_M_DEC_UTIL
                                          : -1;
        *scale = 0.01;
    } else if (eq(parent, pn, "Temperature")) {
        metric = eq(k, keyn, "GPU Current Temp")      ? GPUDIAG_M_TEMP_C
                 : eq(k, keyn, "Memory Current Temp") ? GPUDIAG_M_MEM_TEMP_C
                 : eq(k, keyn, "GPU Slowdown Temp")   ? GPUDIAG_M_TEMP_SLOWDOWN_C
                                                      : -1;
    } else if (eq(parent, pn, "GPU Power Readings") || eq(parent, pn, "Power Readings")) {
        if (eq(k, keyn, "Power Draw") || eq(k, keyn, "Average Power Draw"))
            metric = GPUDIAG_M_POWER_W;
        else if (eq(k, keyn, "Current Power Limit") || eq(k, keyn, "Power Limit") ||
                 eq(k, keyn, "Enforced Power Limit"))
            metric = GPUDIAG_M_POWER_LIMIT_W;
    } else if (eq(parent, pn, "Clocks")) {
        metric = eq(k, keyn, "SM") ? GPUDIAG_M_SM_CLOCK_MHZ : eq(k, keyn, "Memory") ? GPUDIAG_M_MEM_CLOCK_MHZ : -1;
    } else if (eq(parent, pn, "Max Clocks")) {
        metric = eq(k, keyn, "SM") ? GPUDIAG_M_SM_CLOCK_MAX_MHZ : -1;
    }
    return metric;
}

/* One `Key : value` line inside a GPU block, in section parent. */
static void q_value(q_gpu *g, const char *parent, const char *k, size_t keyn, const char *val, size_t valn)
{
    size_t pn = strlen(parent);
    int metric = -1;
    double scale = 1;
    if (eq(k, keyn, "Product Name"))
        snprintf(g->name, sizeof g->name, "%.*s", (int)valn, val);
    else if (eq(k, keyn, "GPU UUID"))
        snprintf(g->uuid, sizeof g->uuid, "%.*s", (int)valn, val);
    else if (eq(parent, pn, "PCI") && eq(k, keyn, "Bus Id"))
        snprintf(g->bus, sizeof g->bus, "%.*s", (int)valn, val);
    else if (eq(parent, pn, "Clocks Event Reasons") || eq(parent, pn, "Clocks Throttle Reasons"))
        q_reason_bit(g, k, keyn, val, valn);
    else if (gd_starts_with(parent, pn, "Clocks Event Reasons Counters") ||
             gd_starts_with(parent, pn, "Clocks Throttle Reasons Counters"))
        q_reason_counter(g, k, keyn, val, valn);
    else
        metric = q_metric(parent, pn, k, keyn, &scale);
    if (metric >= 0 && isnan(g->v[metric])) {
        int ok;
        double x = gd_parse_value(val, valn, &ok);
        if (ok && !isnan(x))
            g->v[metric] = x * scale;
    }
}

gpudiag_status gd_read_smi_q(gd_lines *l, gpudiag_series *s, gpudiag_error *err)
{
    struct {
        size_t indent;
        char name[64];
    } stack[Q_DEPTH];
    size_t depth = 0;
    q_gpu g;
    q_reset(&g);
    int pos = 0, g_pos = 0;
    int64_t t = 0;
    const char *line;
    size_t n;
    int r;
    gpudiag_status st = GPUDIAG_OK;
    s->time_source = GPUDIAG_TIME_SNAPSHOT;
    while ((r = gd_lines_next(l, &line, &n, err)) == 1) {
        s->lines++;
        size_t ind = 0;
        while (ind < n && (line[ind] == ' ' || line[ind] == '\t'))
            ind++;
        if (ind == n)
            continue;
        const char *k = line + ind;
        size_t kn = n - ind;
        const char *colon = memchr(k, ':', kn);
        /* `GPU 00000000:2F:00.0` opens a GPU block (its colons are in the bus id) */
        if (ind == 0 && kn > 4 && memcmp(k, "GPU ", 4) == 0 && (!colon || colon[1] != ' ')) {
            if ((st = q_commit(s, &g, g_pos, t, l, err)) != GPUDIAG_OK)
                return st;
            g_pos = pos++;
            g.open = 1;
            snprintf(g.bus, sizeof g.bus, "%.*s", (int)(kn - 4), k + 4);
            depth = 0;
            continue;
        }
        while (depth && stack[depth - 1].indent >= ind)
            depth--;
        if (!colon || (colon + 1 < k + kn && colon[1] != ' ')) {
            if (!isalpha((unsigned char)k[0]) || gd_icontains(k, kn, "nvsmi log"))
                continue;
            if (depth < Q_DEPTH) {
                stack[depth].indent = ind;
                snprintf(stack[depth].name, sizeof stack[depth].name, "%.*s", (int)kn, k);
                depth++;
            }
            continue;
        }
        size_t keyn = (size_t)(colon - k);
        while (keyn && k[keyn - 1] == ' ')
            keyn--;
        const char *val = colon + 1;
        size_t valn = (size_t)(k + kn - val);
        while (valn && *val == ' ') {
            val++;
            valn--;
        }
        while (valn && val[valn - 1] == ' ')
            valn--;
        if (ind == 0 && eq(k, keyn, "Timestamp")) {
            int64_t ts = parse_ctime(val, valn);
            if ((st = q_commit(s, &g, g_pos, t, l, err)) != GPUDIAG_OK)
                return st;
            pos = 0;
            if (ts >= 0)
                t = ts;
            continue;
        }
        if (ind == 0)
            continue; /* Driver Version, Attached GPUs, ... */
        if (!g.open) {
            g.open = 1;
            g_pos = pos++;
        }
        q_value(&g, depth ? stack[depth - 1].name : "", k, keyn, val, valn);
    }
    if (r < 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    return q_commit(s, &g, g_pos, t, l, err);
}

/* "NVSMI LOG" or a "Clocks Event/Throttle Reasons" line (tier 1), else the
 * third indented "Key   : value" line (tier 3: a guess from several lines). */
static long sniff_smi_q(const char *buf, size_t len)
{
    gd_sniff_iter it = {buf, len, 0, 0};
    const char *t;
    size_t tn, indent;
    int line, colon_lines = 0;
    while (gd_sniff_next(&it, &t, &tn, &indent, &line)) {
        if (t[0] == '#')
            continue;
        if (gd_icontains(t, tn, "nvsmi log") || gd_starts_with(t, tn, "Clocks Event Reasons") ||
            gd_starts_with(t, tn, "Clocks Throttle Reasons"))
            return GD_SNIFF_AT(line, 1);
        const char *colon = memchr(t, ':', tn);
        if (colon && colon > t + 1 && colon[-1] == ' ' && isupper((unsigned char)t[0]))
            colon_lines++;
        if (colon_lines >= 3 && indent > 0)
            return GD_SNIFF_AT(line, 3);
    }
    return -1;
}

const gd_input_format gd_format_smi_q = {
    .name = "smi-q",
    .kind = GD_FMT_LOG,
    .id = GPUDIAG_LOG_SMI_Q,
    .what = "nvidia-smi -q",
    .sniff = sniff_smi_q,
    .read = gd_read_smi_q,
};
