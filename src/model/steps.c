/*
 * steps.c — step ranges from annotation ranges (steps.h).
 */
#include "model/steps.h"

#include <stdlib.h>
#include <string.h>

#include "model/trace.h"
#include "util/util.h"

/* The iteration ranges recognised in an Nsight export without ProfilerStep#N
 * ranges, in this order (case ignored; each may carry a step number). */
static const char *const iteration_names[] = {"iteration", "train_step", "training_step", "train_batch", "step"};

int gd_step_name_match(const char *s, size_t len, const char *name, int icase, int64_t *number)
{
    size_t nl = strlen(name);
    *number = -1;
    if (nl == 0 || len < nl)
        return 0;
    for (size_t i = 0; i < nl; i++) {
        char a = s[i], b = name[i];
        if (icase) {
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
        }
        if (a != b)
            return 0;
    }
    size_t i = nl;
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: len == nl when the text is exactly the name */
    if (i == len)
        return 1;
    /* a name that already ends in a separator ("ProfilerStep#") takes digits directly */
    char last = name[nl - 1];
    int name_has_sep = last == '#' || last == ' ' || last == '_' || last == '-' || last == ':';
    if (!name_has_sep && (s[i] == '#' || s[i] == ' ' || s[i] == '_' || s[i] == '-' || s[i] == ':'))
        i++;
    if (i == len)
        return 0;
    int64_t v = 0;
    for (size_t k = i; k < len; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        if (v > (INT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (s[k] - '0');
    }
    *number = v;
    return 1;
}

typedef struct cand {
    int64_t s, e, number;
    size_t idx;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Count (and with `take`, move) the user annotations matching name into host steps. */
static int take_ranges(gpudiag_trace *t, const char *name, int icase, int take, size_t *found)
{
    *found = 0;
    size_t n = t->cpu_ops.len;
    for (size_t i = 0; i < n; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        int64_t num;
        if (c->cat == GD_CPU_USER_ANNOT && gd_cpu_dur(t, c) > 0 &&
            gd_step_name_match(gd_strtab_get(&t->names, c->name_id), gd_strtab_len(&t->names, c->name_id), name,
                               icase, &num))
            (*found)++;
    }
    if (!take || *found == 0)
        return 0;
    cand *cs = malloc(*found * sizeof *cs);
    if (!cs)
        return -1;
    /* the long-duration side table is renumbered in place as ops move down:
     * entries are read (rj) before any is rewritten (lj <= rj) */
    gd_long_dur *side = t->cpu_long_durs.data;
    size_t k = 0, w = 0, rj = 0, lj = 0;
    for (size_t i = 0; i < n; i++) {
        gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        int64_t num;
        int64_t dur = c->dur32;
        if (c->dur32 == GD_DUR_LONG && rj < t->cpu_long_durs.len && side[rj].idx == i)
            dur = side[rj++].dur_ns;
        if (c->cat == GD_CPU_USER_ANNOT && dur > 0 &&
            gd_step_name_match(gd_strtab_get(&t->names, c->name_id), gd_strtab_len(&t->names, c->name_id), name,
                               icase, &num)) {
            cs[k].s = c->ts_ns;
            cs[k].e = c->ts_ns + dur;
            cs[k].number = num;
            cs[k].idx = k;
            k++;
            continue; /* a step range leaves cpu_ops */
        }
        if (c->dur32 == GD_DUR_LONG) {
            side[lj].idx = w;
            side[lj++].dur_ns = dur;
        }
        if (w != i)
            memcpy(gd_vec_at(&t->cpu_ops, w), c, sizeof *c);
        w++;
    }
    t->cpu_ops.len = w;
    t->cpu_long_durs.len = lj;
    qsort(cs, k, sizeof *cs, cmp_cand);
    t->host_steps.len = 0;
    int numbered = 1;
    for (size_t i = 0; i < k; i++)
        if (cs[i].number < 0)
            numbered = 0;
    for (size_t i = 0; i < k; i++) {
        gd_host_step st = {cs[i].s, cs[i].e - cs[i].s, numbered ? cs[i].number : (int64_t)i};
        if (!gd_vec_push(&t->host_steps, &st)) {
            free(cs);
            return -1;
        }
    }
    free(cs);
    return 0;
}

/* Ranges that enclose a whole step are markers around the steps, not CPU work. */
static void clear_enclosing_roles(gpudiag_trace *t)
{
    if (!t->host_steps.len)
        return;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat != GD_CPU_USER_ANNOT)
            continue;
        for (size_t k = 0; k < t->host_steps.len; k++) {
            const gd_host_step *h = gd_vec_at(&t->host_steps, k);
            if (c->ts_ns <= h->ts_ns && c->ts_ns + gd_cpu_dur(t, c) >= h->ts_ns + h->dur_ns) {
                c->role = GD_CR_NONE;
                break;
            }
        }
    }
}

int gd_steps_select(gpudiag_trace *t, const char *name, int nsys_defaults)
{
    size_t found = 0;
    if (name && name[0]) {
        snprintf(t->step_range, sizeof t->step_range, "%s", name);
        if (take_ranges(t, name, 0, 1, &found) != 0)
            return -1;
        if (found) {
            snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source, "ranges named '%.100s' (--step-range)", name);
        } else {
            /* Kineto's ProfilerStep#N are host steps already */
            int64_t num;
            if (t->host_steps.len && gd_step_name_match("ProfilerStep#0", 14, name, 0, &num)) {
                snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source, "ProfilerStep#N (--step-range)");
            } else if (t->host_steps.len) {
                /* a name that matches nothing keeps the trace's own ProfilerStep#N steps
                 * (a typo must not drop them; input_step_range_missing says so) */
                t->step_range_missing = 1;
                snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source,
                         "ProfilerStep#N (no range named '%.100s')", name);
            } else {
                t->step_range_missing = 1;
                snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source,
                         "the whole capture (no range named '%.100s')", name);
            }
        }
    } else if (nsys_defaults) {
        if (take_ranges(t, "ProfilerStep#", 0, 1, &found) != 0)
            return -1;
        if (found)
            snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source, "NVTX ranges ProfilerStep#N");
        for (size_t i = 0; !found && i < sizeof iteration_names / sizeof iteration_names[0]; i++) {
            if (take_ranges(t, iteration_names[i], 1, 1, &found) != 0)
                return -1;
            if (found)
                snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source, "NVTX ranges named '%s' (any case, numbered or not)",
                         iteration_names[i]);
        }
        if (!found)
            snprintf(t->nsys.steps_source, sizeof t->nsys.steps_source,
                     "the whole capture (no ProfilerStep#N or iteration NVTX ranges; see --step-range)");
    }
    clear_enclosing_roles(t);
    return 0;
}
