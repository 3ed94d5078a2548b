/*
 * intervals.h — sorted interval sets ("merge ranges"), the primitive every
 * trace analysis in the field is built on (TBP range_utils, HTA merge).
 * Intervals are half-open [s, e) in ns.
 */
#ifndef GD_ANALYZE_INTERVALS_H
#define GD_ANALYZE_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

struct gd_vec;

typedef struct gd_iv {
    int64_t s, e;
} gd_iv;

/* Add [s, e) to a gd_vec of gd_iv that will be read only through gd_iv_merge
 * (a union in the making): it is joined to the last interval when it starts
 * inside or at the end of it, and a full vector of >= 4096 intervals is merged
 * in place before it grows, so the vector holds at most about twice the
 * merged set, not every interval pushed.  gd_iv_merge then gives exactly what
 * it gives for all the intervals pushed.  0, or -1 on OOM. */
int gd_iv_push(struct gd_vec *v, int64_t s, int64_t e);

/* 1 if t lies in [s, e) of some interval of a merged set (binary search). */
int gd_iv_contains(const gd_iv *a, size_t n, int64_t t);

/* Sort by start and merge overlapping or touching intervals in place, as TBP's
 * merge_ranges: an interval is joined to the previous one when it starts at
 * or before the previous end.  Returns the new count. */
size_t gd_iv_merge(gd_iv *a, size_t n);

/* |a ∩ [s, e)| for a merged set a, by binary search: O(log n + the intervals met). */
int64_t gd_iv_cover_len(const gd_iv *a, size_t n, int64_t s, int64_t e);

/* Total length of a set. */
int64_t gd_iv_sum(const gd_iv *a, size_t n);

/* a ∩ b for two merged sets; out must hold na + nb intervals. */
size_t gd_iv_intersect(const gd_iv *a, size_t na, const gd_iv *b, size_t nb, gd_iv *out);

/* a − b for two merged sets; out must hold na + nb intervals. */
size_t gd_iv_subtract(const gd_iv *a, size_t na, const gd_iv *b, size_t nb, gd_iv *out);

/* |a ∩ b| without materialising it. */
int64_t gd_iv_intersect_len(const gd_iv *a, size_t na, const gd_iv *b, size_t nb);

/* For a merged set `a` and sorted, non-overlapping windows, add |a ∩ w[i]| to
 * sums[i] for every window. */
void gd_iv_sum_per_window(const gd_iv *a, size_t na, const gd_iv *w, size_t nw, int64_t *sums);

#endif
