/*
 * intervals.c — interval-set algebra (see intervals.h).  All operations are
 * linear two-pointer sweeps over sorted sets, except the O(n log n) sort.
 */
#include "analyze/intervals.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int cmp_iv(const void *pa, const void *pb)
{
    const gd_iv *a = pa, *b = pb;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    if (a->e != b->e)
        return a->e < b->e ? -1 : 1;
    return 0;
}

/* Coalesce a set already sorted by start: overlapping or touching
 * intervals become one. */
static size_t iv_coalesce(gd_iv *a, size_t n)
{
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (a[i].e > a[m].e) {
            if (a[i].s <= a[m].e)
                a[m].e = a[i].e;
            else
                a[++m] = a[i];
        }
    }
    return m + 1;
}

static size_t iv_sort_coalesce(gd_iv *a, size_t n)
{
    size_t i = 1;
    while (i < n && a[i].s >= a[i - 1].s) /* sorted already (a merged set joined to another): no sort */
        i++;
    /* Equal starts may come in any order: the union is the same. */
    if (i < n && gd_radix_sort_i64(a, n, sizeof *a, offsetof(gd_iv, s)) != 0)
        qsort(a, n, sizeof *a, cmp_iv);
    return iv_coalesce(a, n);
}

size_t gd_iv_merge(gd_iv *a, size_t n)
{
    if (n == 0)
        return 0;
    /* A set built by gd_iv_push is a merged run (sorted, disjoint, not
     * touching) followed by the intervals pushed since the last compaction.
     * When that run is a large part of the set, merge only the rest and join
     * the two sorted sets linearly, instead of sorting the run again: the
     * host-activity sets of a 1 GB trace were re-sorted whole at every
     * compaction (a quarter of the analysis' page faults). */
    size_t p = 1;
    while (p < n && a[p].s > a[p - 1].e)
        p++;
    if (p == n)
        return n;
    if (p < n / 4)
        return iv_sort_coalesce(a, n);
    size_t t = iv_sort_coalesce(a + p, n - p);
    gd_iv *tail = malloc(t * sizeof *tail);
    if (!tail)
        return iv_sort_coalesce(a, p + t);
    memcpy(tail, a + p, t * sizeof *tail);
    /* backward merge by start into a[0, p + t): the write index never falls
     * below the read index of the run, so nothing unread is overwritten */
    size_t i = p, j = t, k = p + t;
    while (j > 0) {
        if (i > 0 && a[i - 1].s > tail[j - 1].s)
            a[--k] = a[--i];
        else
            a[--k] = tail[--j];
    }
    free(tail);
    return iv_coalesce(a, p + t);
}

int64_t gd_iv_sum(const gd_iv *a, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i].e - a[i].s;
    return s;
}

size_t gd_iv_intersect(const gd_iv *a, size_t na, const gd_iv *b, size_t nb, gd_iv *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
        int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (s < e) {
            out[k].s = s;
            out[k].e = e;
            k++;
        }
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return k;
}

int64_t gd_iv_intersect_len(const gd_iv *a, size_t na, const gd_iv *b, size_t nb)
{
    size_t i = 0, j = 0;
    int64_t sum = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
        int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (s < e)
            sum += e - s;
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return sum;
}

size_t gd_iv_subtract(const gd_iv *a, size_t na, const gd_iv *b, size_t nb, gd_iv *out)
{
    size_t k = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        int64_t s = a[i].s, e = a[i].e;
        while (j < nb && b[j].e <= s)
            j++;
        size_t jj = j;
        while (jj < nb && b[jj].s < e) {
            if (b[jj].s > s) {
                out[k].s = s;
                out[k].e = b[jj].s;
                k++;
            }
            if (b[jj].e > s)
                s = b[jj].e;
            if (s >= e)
                break;
            jj++;
        }
        if (s < e) {
            out[k].s = s;
            out[k].e = e;
            k++;
        }
    }
    return k;
}

void gd_iv_sum_per_window(const gd_iv *a, size_t na, const gd_iv *w, size_t nw, int64_t *sums)
{
    size_t j = 0;
    for (size_t i = 0; i < na && j < nw; i++) {
        while (j < nw && w[j].e <= a[i].s)
            j++;
        for (size_t jj = j; jj < nw && w[jj].s < a[i].e; jj++) {
            int64_t s = a[i].s > w[jj].s ? a[i].s : w[jj].s;
            int64_t e = a[i].e < w[jj].e ? a[i].e : w[jj].e;
            if (s < e)
                sums[jj] += e - s;
        }
    }
}

/* Below this many intervals a full vector simply grows. */
#define GD_IV_COMPACT_MIN 4096

int gd_iv_push(gd_vec *v, int64_t s, int64_t e)
{
    if (v->len) {
        /* joins the tail as gd_iv_merge would join it: starts inside it or at its end */
        gd_iv *t = (gd_iv *)v->data + v->len - 1;
        if (s >= t->s && s <= t->e) {
            if (e > t->e)
                t->e = e;
            return 0;
        }
    }
    if (v->len == v->cap && v->len >= GD_IV_COMPACT_MIN) {
        /* Full: merge what is there.  merge(merge(A) ∪ B) = merge(A ∪ B), so the
         * set stays the same; growing only when less than half was freed keeps
         * the cost amortised O(1) per push and the memory within 2× the union. */
        v->len = gd_iv_merge(v->data, v->len);
        if (v->len > v->cap / 2 && gd_vec_reserve(v, v->cap * 2) != 0)
            return -1;
    }
    gd_iv iv = {s, e};
    return gd_vec_push(v, &iv) ? 0 : -1;
}

/* The first interval of a merged set ending after t (n if none): ends are sorted. */
static size_t first_ending_after(const gd_iv *a, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].e <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int gd_iv_contains(const gd_iv *a, size_t n, int64_t t)
{
    size_t lo = first_ending_after(a, n, t);
    return lo < n && a[lo].s <= t;
}

int64_t gd_iv_cover_len(const gd_iv *a, size_t n, int64_t s, int64_t e)
{
    int64_t len = 0;
    for (size_t i = first_ending_after(a, n, s); i < n && a[i].s < e; i++) {
        int64_t lo = a[i].s > s ? a[i].s : s, hi = a[i].e < e ? a[i].e : e;
        if (hi > lo)
            len += hi - lo;
    }
    return len;
}
