/*
 * util.h — internal helpers: growable arrays, a string-interning table and
 * error filling.  Allocation failures are returned (NULL / -1), never fatal:
 * the library must not abort on bad or huge input.
 */
#ifndef GD_UTIL_H
#define GD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"

#if defined(__GNUC__) || defined(__clang__)
#define GD_ATTR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define GD_ATTR_WUR __attribute__((warn_unused_result))
#else
#define GD_ATTR_PRINTF(a, b)
#define GD_ATTR_WUR
#endif

/* A growable array of fixed-size elements. */
typedef struct gd_vec {
    void *data;
    size_t len;
    size_t cap;
    size_t elem;
} gd_vec;

void gd_vec_init(gd_vec *v, size_t elem_size);
void gd_vec_free(gd_vec *v);
/* Append one element (copied from `elem`); returns the slot or NULL on OOM. */
void *gd_vec_push(gd_vec *v, const void *elem) GD_ATTR_WUR;
/* Ensure capacity for `n` elements in total; 0 or -1 on OOM. */
int gd_vec_reserve(gd_vec *v, size_t n) GD_ATTR_WUR;
static inline void *gd_vec_at(const gd_vec *v, size_t i) { return (char *)v->data + i * v->elem; }

/* String interning: every distinct byte string gets a dense uint32 id. */
typedef struct gd_strtab {
    char *bytes;        /* all strings, NUL-terminated, back to back */
    size_t bytes_len, bytes_cap;
    uint64_t *offsets;  /* id -> offset into bytes */
    uint32_t *lens;     /* id -> length */
    uint32_t count, ids_cap;
    uint32_t *slots;    /* open addressing: id+1, 0 = empty */
    uint32_t *hashes;   /* id -> hash (for rehash) */
    size_t slot_cap;    /* power of two */
} gd_strtab;

void gd_strtab_init(gd_strtab *t);
void gd_strtab_free(gd_strtab *t);
/* Intern s[0..len); returns the id, or UINT32_MAX on OOM. */
uint32_t gd_strtab_intern(gd_strtab *t, const char *s, size_t len);
/* The hash gd_strtab_intern computes for s[0..len) (a pure function: another
 * thread may compute it ahead, as the parallel Kineto reader's parse threads do). */
uint32_t gd_strtab_hash(const char *s, size_t len);
/* gd_strtab_intern with h = gd_strtab_hash(s, len) already computed. */
uint32_t gd_strtab_intern_hashed(gd_strtab *t, const char *s, size_t len, uint32_t h);
static inline const char *gd_strtab_get(const gd_strtab *t, uint32_t id) { return t->bytes + t->offsets[id]; }
static inline uint32_t gd_strtab_len(const gd_strtab *t, uint32_t id) { return t->lens[id]; }

/* Fill an error (err may be NULL); returns code for tail calls. */
gpudiag_status gd_set_error(gpudiag_error *err, gpudiag_status code, const char *path, int64_t offset,
                            const char *fmt, ...) GD_ATTR_PRINTF(5, 6);

/* A malloc'd printf-formatted string; NULL on OOM. */
char *gd_format(const char *fmt, ...) GD_ATTR_PRINTF(1, 2);

/* strdup that returns NULL on OOM. */
char *gd_strdup(const char *s);
char *gd_strndup(const char *s, size_t n);

/* Case-insensitive compare of s[0..len) with a NUL-terminated lowercase literal. */
int gd_ieq(const char *s, size_t len, const char *lit);
/* 1 if s[0..len) starts with prefix. */
int gd_starts_with(const char *s, size_t len, const char *prefix);
/* 1 if s[0..len) ends with suffix. */
int gd_ends_with(const char *s, size_t len, const char *suffix);
/* 1 if the NUL-terminated lowercase literal occurs in s[0..len), ignoring case. */
int gd_icontains(const char *s, size_t len, const char *lit);

/* Stable LSD radix sort of n records of `size` bytes by the int64 key at
 * `key_offset` (ascending, signed order).  Equal keys keep their input order.
 * Returns 0, or -1 if the scratch buffer cannot be allocated (then the array
 * is left unsorted). */
int gd_radix_sort_i64(void *base, size_t n, size_t size, size_t key_offset) GD_ATTR_WUR;

/* Keep the `max` records that sort first by `cmp` (qsort-style, a total
 * order) out of a stream, in a heap: h holds *n (<= max) records of `size`
 * bytes, the one that sorts last at h[0], in no other order.  `rec` is copied
 * in (it must not point into h) or dropped: O(log max) per record kept, one
 * comparison per record dropped.  Sort h afterwards for an ordered list. */
void gd_topk_push(void *h, size_t *n, size_t max, size_t size, const void *rec,
                  int (*cmp)(const void *, const void *));

/* Remove a partial output file after a failed write, but only if `path` is a
 * regular file: an output named /dev/full, /dev/null or a FIFO is a device
 * the user pointed at, never ours to delete (gpudiag run as root once
 * removed /dev/full this way).  Returns 0 if removed, -1 if left alone. */
int gd_remove_partial_output(const char *path);

/* A malloc'd copy of s[0..len) that is valid UTF-8: each invalid or truncated
 * sequence becomes U+FFFD.  NULL on OOM. */
char *gd_utf8_clean(const char *s, size_t len);

/* 1 if s[0..len) is valid UTF-8 (no overlong forms, surrogates or code
 * points beyond U+10FFFF), else 0. */
int gd_utf8_valid(const char *s, size_t len);

/* Length of the longest prefix of s (NUL-terminated) that is at most max bytes
 * and does not end inside a UTF-8 sequence. */
size_t gd_utf8_prefix(const char *s, size_t max);

/* Terminal safety for input-derived strings (kernel names, paths) printed as
 * text.  gd_term_unsafe: the byte length (1..3) of the sequence at s[0..n)
 * that must not reach a terminal, else 0: C0 controls and DEL (escape
 * sequences), C1 controls U+0080..U+009F, and the bidirectional controls
 * U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069 ("Trojan Source": they
 * reorder what is shown).  gd_fput_term writes s[0..n) to fp with each such
 * sequence replaced by one '?'; gd_term_clean does the same in place on a
 * NUL-terminated string (it never grows). */
size_t gd_term_unsafe(const char *s, size_t n);
void gd_fput_term(FILE *fp, const char *s, size_t n);
void gd_term_clean(char *s);

/* Out of memory where the caller cannot fail softly (inside yajl, which does
 * not check its own allocations, and simdjson, which throws): write
 * "gpudiag: error: out of memory (WHERE)" to stderr and _Exit(5), the
 * documented exit status for an internal error.  Found by tests/fault.
 * Thread-safe: when several threads run out at once, one line is written. */
void gd_oom_exit(const char *where) __attribute__((noreturn));

/* The files mapped for reading (a plain trace read with --jobs > 1), so that a
 * SIGBUS handler can name the file and the byte whose page could not be read
 * (a file that shrank while it was read).  gd_map_register records path
 * (borrowed: it must outlive the map) and [base, base + len); it returns a
 * handle for gd_map_unregister, or -1 when all GD_MAP_SLOTS are taken (then
 * the handler names no file).  gd_map_find is async-signal-safe: 1 with
 * *path and *offset (bytes from the file's start) when addr falls in a
 * registered map, else 0. */
#define GD_MAP_SLOTS 64
int gd_map_register(const char *path, const void *base, size_t len);
void gd_map_unregister(int handle);
int gd_map_find(const void *addr, const char **path, uint64_t *offset);

/* yajl_alloc_funcs members that call gd_oom_exit() instead of returning NULL
 * (ctx unused). */
void *gd_yajl_malloc(void *ctx, size_t n);
void *gd_yajl_realloc(void *ctx, void *p, size_t n);
void gd_yajl_free(void *ctx, void *p);

/* Index of the first of n records (sorted by the int64 key at offset 0) whose
 * key equals `key`, or n if none. */
size_t gd_find_i64(const void *base, size_t n, size_t size, int64_t key);

/* qsort()/bsearch() comparator of two doubles, ascending: -1, 0 or 1 (two
 * NaN, or a NaN and a number, compare equal: sort only NaN-free arrays). */
int gd_cmp_double(const void *a, const void *b);

/* Sort v[0..n) ascending: the order qsort() with gd_cmp_double gives a
 * NaN-free array, by a radix sort of the numbers' bits when n is large (a
 * million kernels' launch delays: ~5x faster than qsort), by qsort when n is
 * small, or v holds a NaN or a -0.0, or the radix sort's scratch cannot be
 * allocated. */
void gd_sort_doubles(double *v, size_t n);

/* Nanoseconds per microsecond: the model keeps exact ns (trace clock x 1000),
 * the report speaks µs.  Divide a double of ns by it, or use ns_to_us. */
#define NS_PER_US 1000.0

/* The model's nanoseconds as the report's microseconds: (double)ns / 1000,
 * the one conversion every pass, reader and renderer uses. */
static inline double ns_to_us(int64_t ns) { return (double)ns / NS_PER_US; }

/* An exact time in ns written as µs with 3 decimals into b ("-0.500" for
 * -500 ns, "1700000000123456.789" for an epoch timestamp: a double cannot hold
 * 19 digits), NUL-terminated; b has room for any int64_t.  Never fails. */
#define GD_NS_AS_US_LEN 32
void gd_format_ns_as_us(int64_t ns, char b[GD_NS_AS_US_LEN]);

/* bytes (>= 0) in binary units for people: "2.23 GiB", "953.7 MiB", "1.5 KiB",
 * "12 B" (GiB with 2 decimals, MiB/KiB with 1), into b[0..n); returns b. */
char *gd_format_bytes(char *b, size_t n, double bytes);

/* A duration of `us` microseconds for people, into b[0..n) with the unit `micro` spells µs in
 * ("us" in text, "\xC2\xB5s" in HTML); returns b.  Under 1 s: 3 significant figures, in µs below
 * 1 ms ("6.80 us", "539 us") and in ms below 1 s ("6.63 ms", "66.3 ms", "618 ms"); from 1 s:
 * seconds with 2 decimals ("1.00 s", "12.34 s"); 0 is "0 us"; NaN or infinite "n/a".  The one
 * duration formatter of reports, findings and the CLI (DEFINITIONS "Numbers in reports"). */
char *gd_format_us(char *b, size_t n, double us, const char *micro);

/* A count per step for people, into b[0..n); returns b: a whole number without decimals ("1591"),
 * any other value with one ("0.5"); NaN or infinite "n/a" (DEFINITIONS "Numbers in reports"). */
char *gd_format_per_step(char *b, size_t n, double v);

/* "" when n is 1, else "s": the English plural of a count's noun ("1 event", "2 events"); a count
 * is never written "event(s)" (REPORT.md "Wording of the text report"). */
const char *gd_plural(unsigned long long n);

/* A number for people that is neither a duration nor a count per step (MB, micro-steps, GB/s),
 * into b[0..n); returns b: never an exponent; |v| >= 100 (after rounding) a whole number with all
 * its digits ("2113"), below that 3 significant figures with trailing zeros dropped ("12.3",
 * "1.5", "0.25", "0.000123"); 0 is "0"; NaN or infinite "n/a" (DEFINITIONS "Numbers in reports"). */
char *gd_format_sig3(char *b, size_t n, double v);

/* Seconds now on the wall clock (CLOCK_REALTIME: Unix time, for timestamps
 * in output) and on the monotonic clock (CLOCK_MONOTONIC: for intervals and
 * deadlines, never jumps).  Never fail. */
double gd_wall_s(void);
double gd_mono_s(void);

/* qsort()/bsearch() comparator of two int64_t, ascending: -1, 0 or 1. */
int gd_cmp_i64(const void *a, const void *b);

/* The q quantile (q in [0, 1]) of v[0..n), sorted ascending and NaN-free, with
 * linear interpolation between closest ranks (numpy's default, "type 7"):
 * v[lo] + (v[hi] - v[lo]) × frac at position q × (n − 1).  NaN when n is 0.
 * Same units as v; v is not changed. */
double gd_quantile_sorted(const double *v, size_t n, double q);

/* Percentiles of v[0..n) (no NaN; n >= 1) by selection instead of a full
 * sort: out[k] = the q[k] quantile with linear interpolation between closest
 * ranks (numpy's default, the same number a sort followed by interpolation
 * gives, bit for bit).  q[k] in [0, 1], nq <= 16.  v is reordered.  Expected
 * O(n log nq); three-way partitioning keeps many equal values linear, and a
 * sort takes over a range that partitions badly.  Also gives min (q = 0) and
 * max (q = 1).  Never fails. */
void gd_quantiles(double *v, size_t n, const double *q, size_t nq, double *out);

/* The video/media engines are busy (DEFINITIONS "GPU states"): any of the n
 * engines' p95 (fractions 0..1 over the samples: NVENC, NVDEC, NVJPG, OFA;
 * NaN = the engine is not reported) is >= GD_VIDEO_BUSY_P95.  The one rule for
 * a log's gpus[].video_busy and watch's rolling verdict. */
#define GD_VIDEO_BUSY_P95 0.10
int gd_video_busy(const double *p95, size_t n);

#endif
