/*
 * util.c — growable arrays, string interning (FNV-1a, open addressing, linear
 * probing, load factor <= 0.5) and small string helpers.
 */
#define _POSIX_C_SOURCE 200809L /* lstat */
#include "util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void gd_vec_init(gd_vec *v, size_t elem_size)
{
    v->data = NULL;
    v->len = 0;
    v->cap = 0;
    v->elem = elem_size;
}

void gd_vec_free(gd_vec *v)
{
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

int gd_vec_reserve(gd_vec *v, size_t n)
{
    if (n <= v->cap)
        return 0;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < n) {
        if (cap > SIZE_MAX / 2 / v->elem)
            return -1;
        cap *= 2;
    }
    void *p = realloc(v->data, cap * v->elem);
    if (!p)
        return -1;
    v->data = p;
    v->cap = cap;
    return 0;
}

void *gd_vec_push(gd_vec *v, const void *elem)
{
    if (v->len == v->cap && gd_vec_reserve(v, v->len + 1) != 0)
        return NULL;
    void *slot = (char *)v->data + v->len * v->elem;
    memcpy(slot, elem, v->elem);
    v->len++;
    return slot;
}

void gd_strtab_init(gd_strtab *t)
{
    memset(t, 0, sizeof *t);
}

void gd_strtab_free(gd_strtab *t)
{
    free(t->bytes);
    free(t->offsets);
    free(t->lens);
    free(t->slots);
    free(t->hashes);
    memset(t, 0, sizeof *t);
}

/* 8 bytes at a time: multiply-xorshift mixing (names are long kernel
 * signatures; a byte-at-a-time hash showed up in profiles). */
static uint32_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h ^= w;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, s + i, len - i);
    h ^= w;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32));
}

static int strtab_rehash(gd_strtab *t, size_t new_cap)
{
    uint32_t *slots = calloc(new_cap, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t id = 0; id < t->count; id++) {
        size_t i = t->hashes[id] & (new_cap - 1);
        while (slots[i])
            i = (i + 1) & (new_cap - 1);
        slots[i] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->slot_cap = new_cap;
    return 0;
}

uint32_t gd_strtab_hash(const char *s, size_t len)
{
    return fnv1a(s, len > UINT32_MAX - 1 ? UINT32_MAX - 1 : len);
}

uint32_t gd_strtab_intern(gd_strtab *t, const char *s, size_t len)
{
    return gd_strtab_intern_hashed(t, s, len, gd_strtab_hash(s, len));
}

uint32_t gd_strtab_intern_hashed(gd_strtab *t, const char *s, size_t len, uint32_t h)
{
    if (len > UINT32_MAX - 1)
        len = UINT32_MAX - 1;
    if (t->slot_cap == 0 && strtab_rehash(t, 1024) != 0)
        return UINT32_MAX;
    size_t i = h & (t->slot_cap - 1);
    while (t->slots[i]) {
        uint32_t id = t->slots[i] - 1;
        if (t->hashes[id] == h && t->lens[id] == len && memcmp(t->bytes + t->offsets[id], s, len) == 0)
            return id;
        i = (i + 1) & (t->slot_cap - 1);
    }
    if (t->count == UINT32_MAX - 1)
        return UINT32_MAX;
    if (t->count == t->ids_cap) {
        uint32_t cap = t->ids_cap ? t->ids_cap * 2 : 256;
        uint64_t *o = realloc(t->offsets, cap * sizeof *o);
        if (!o)
            return UINT32_MAX;
        t->offsets = o;
        uint32_t *l = realloc(t->lens, cap * sizeof *l);
        if (!l)
            return UINT32_MAX;
        t->lens = l;
        uint32_t *hs = realloc(t->hashes, cap * sizeof *hs);
        if (!hs)
            return UINT32_MAX;
        t->hashes = hs;
        t->ids_cap = cap;
    }
    if (t->bytes_len + len + 1 > t->bytes_cap) {
        size_t cap = t->bytes_cap ? t->bytes_cap : 65536;
        while (cap < t->bytes_len + len + 1)
            cap *= 2;
        char *b = realloc(t->bytes, cap);
        if (!b)
            return UINT32_MAX;
        t->bytes = b;
        t->bytes_cap = cap;
    }
    uint32_t id = t->count++;
    t->offsets[id] = t->bytes_len;
    t->lens[id] = (uint32_t)len;
    t->hashes[id] = h;
    memcpy(t->bytes + t->bytes_len, s, len);
    t->bytes[t->bytes_len + len] = '\0';
    t->bytes_len += len + 1;
    t->slots[i] = id + 1;
    if ((size_t)t->count * 2 > t->slot_cap && strtab_rehash(t, t->slot_cap * 2) != 0) {
        /* the string is stored; the table is just fuller than we like */
    }
    return id;
}

gpudiag_status gd_set_error(gpudiag_error *err, gpudiag_status code, const char *path, int64_t offset,
                            const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->offset = offset;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

char *gd_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *gd_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *gd_strdup(const char *s)
{
    return gd_strndup(s, strlen(s));
}

int gd_ieq(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    if (n != len)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != lit[i])
            return 0;
    return 1;
}

int gd_starts_with(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

int gd_ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

int gd_icontains(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    if (n == 0)
        return 1;
    if (len < n)
        return 0;
    for (size_t i = 0; i + n <= len; i++) {
        size_t j = 0;
        while (j < n && tolower((unsigned char)s[i + j]) == lit[j])
            j++;
        if (j == n)
            return 1;
    }
    return 0;
}

static uint64_t key_at(const unsigned char *rec, size_t off)
{
    int64_t k;
    memcpy(&k, rec + off, sizeof k);
    return (uint64_t)k ^ 0x8000000000000000ull; /* signed order as unsigned */
}

/* One scatter pass of the LSD radix sort: each record of src goes to
 * dst[pos[digit]++].  The record size is a compile-time constant in the
 * common instantiations, so the copy is a few moves, not a memcpy call per
 * record (that call was 11 % of a 1 GB run). */
#define GD_RADIX_DIGIT_BITS 11
#define GD_RADIX_BUCKETS (1u << GD_RADIX_DIGIT_BITS)
#define GD_RADIX_MAX_PASSES ((64 + GD_RADIX_DIGIT_BITS - 1) / GD_RADIX_DIGIT_BITS)

#define GD_RADIX_SCATTER(NAME, SIZE)                                                               \
    static void NAME(const unsigned char *src, unsigned char *dst, size_t n, size_t size,        \
                     size_t key_offset, unsigned shift, size_t *pos)                              \
    {                                                                                              \
        (void)size;                                                                                \
        for (size_t i = 0; i < n; i++) {                                                           \
            const unsigned char *r = src + i * (SIZE);                                             \
            size_t d = (size_t)(key_at(r, key_offset) >> shift) & (GD_RADIX_BUCKETS - 1);          \
            memcpy(dst + pos[d]++ * (SIZE), r, (SIZE));                                            \
        }                                                                                          \
    }
GD_RADIX_SCATTER(radix_scatter_8, 8)
GD_RADIX_SCATTER(radix_scatter_16, 16)
GD_RADIX_SCATTER(radix_scatter_24, 24)
GD_RADIX_SCATTER(radix_scatter_32, 32)
GD_RADIX_SCATTER(radix_scatter_any, size)

int gd_radix_sort_i64(void *base, size_t n, size_t size, size_t key_offset)
{
    if (n < 2)
        return 0;
    unsigned char *a = base;
    if (n <= 32) {
        /* insertion sort; stable */
        unsigned char tmp[64];
        if (size > sizeof tmp)
            return -1;
        for (size_t i = 1; i < n; i++) {
            uint64_t k = key_at(a + i * size, key_offset);
            size_t j = i;
            if (key_at(a + (j - 1) * size, key_offset) <= k)
                continue;
            memcpy(tmp, a + i * size, size);
            while (j > 0 && key_at(a + (j - 1) * size, key_offset) > k) {
                memcpy(a + j * size, a + (j - 1) * size, size);
                j--;
            }
            memcpy(a + j * size, tmp, size);
        }
        return 0;
    }
    /* already sorted?  (common: one stream, one thread) */
    int sorted = 1;
    uint64_t lo = key_at(a, key_offset), hi = lo, prev = lo;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = key_at(a + i * size, key_offset);
        if (k < prev)
            sorted = 0;
        if (k < lo)
            lo = k;
        if (k > hi)
            hi = k;
        prev = k;
    }
    if (sorted)
        return 0;
    /* Digits of 11 bits: 2048 counters (16 KiB) stay in L1 and the scatter
     * writes to at most 2048 places at once; 16-bit digits (one pass fewer on
     * timestamps) thrashed the cache and the TLB and cleared 512 KiB per pass,
     * which dominated the many small sorts of the interval sets.  Digits
     * above the highest bit where lo and hi differ are the same in every key
     * and are skipped; so is any pass whose digit is the same in every key. */
    uint64_t diff = lo ^ hi;
    unsigned passes = 0;
    while (passes < GD_RADIX_MAX_PASSES && (diff >> (passes * GD_RADIX_DIGIT_BITS)) != 0)
        passes++;
    unsigned char *tmp = malloc(n * size);
    size_t *count = calloc((size_t)passes * GD_RADIX_BUCKETS, sizeof *count);
    if (!tmp || !count) {
        free(tmp);
        free(count);
        return -1;
    }
    /* all histograms in one read of the keys */
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_at(a + i * size, key_offset);
        for (unsigned p = 0; p < passes; p++)
            count[p * GD_RADIX_BUCKETS + ((k >> (p * GD_RADIX_DIGIT_BITS)) & (GD_RADIX_BUCKETS - 1))]++;
    }
    void (*scatter)(const unsigned char *, unsigned char *, size_t, size_t, size_t, unsigned, size_t *) =
        size == 8    ? radix_scatter_8
        : size == 16 ? radix_scatter_16
        : size == 24 ? radix_scatter_24
        : size == 32 ? radix_scatter_32
                     : radix_scatter_any;
    unsigned char *src = a, *dst = tmp;
    for (unsigned p = 0; p < passes; p++) {
        size_t *pos = count + (size_t)p * GD_RADIX_BUCKETS;
        size_t sum = 0, nonzero = 0;
        for (size_t d = 0; d < GD_RADIX_BUCKETS; d++) {
            size_t c = pos[d];
            nonzero += c != 0;
            pos[d] = sum;
            sum += c;
        }
        if (nonzero <= 1)
            continue; /* every key has the same digit here: the order stays */
        scatter(src, dst, n, size, key_offset, p * GD_RADIX_DIGIT_BITS, pos);
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * size);
    free(tmp);
    free(count);
    return 0;
}

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates, beyond U+10FFFF */
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

int gd_utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(u + i, len - i);
        if (k == 0)
            return 0;
        i += k;
    }
    return 1;
}

char *gd_utf8_clean(const char *s, size_t len)
{
    char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(u + i, len - i);
        if (k == 0) {
            out[o++] = (char)0xef;
            out[o++] = (char)0xbf;
            out[o++] = (char)0xbd;
            i++;
        } else {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = '\0';
    return out;
}

size_t gd_utf8_prefix(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return n;
    n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    return n;
}

size_t gd_term_unsafe(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x20 || u[0] == 0x7f)
        return 1;
    if (n >= 2 && u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
        return 2; /* C1 */
    if (n >= 2 && u[0] == 0xd8 && u[1] == 0x9c)
        return 2; /* U+061C arabic letter mark */
    if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0x8e || u[2] == 0x8f || (u[2] >= 0xaa && u[2] <= 0xae)))
        return 3; /* U+200E/F, U+202A..E */
    if (n >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9)
        return 3; /* U+2066..9 isolates */
    return 0;
}

void gd_fput_term(FILE *fp, const char *s, size_t n)
{
    size_t i = 0, run = 0;
    while (i < n) {
        size_t bad = gd_term_unsafe(s + i, n - i);
        if (!bad) {
            i++;
            continue;
        }
        fwrite(s + run, 1, i - run, fp);
        fputc('?', fp);
        i += bad;
        run = i;
    }
    fwrite(s + run, 1, n - run, fp);
}

void gd_term_clean(char *s)
{
    size_t n = strlen(s), o = 0;
    for (size_t i = 0; i < n;) {
        size_t bad = gd_term_unsafe(s + i, n - i);
        if (bad) {
            s[o++] = '?';
            i += bad;
        } else {
            s[o++] = s[i++];
        }
    }
    s[o] = '\0';
}

size_t gd_find_i64(const void *base, size_t n, size_t size, int64_t key)
{
    const unsigned char *a = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t k;
        memcpy(&k, a + mid * size, sizeof k);
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n) {
        int64_t k;
        memcpy(&k, a + lo * size, sizeof k);
        if (k == key)
            return lo;
    }
    return n;
}

void gd_oom_exit(const char *where)
{
    /* once: parse threads (issue 24) can run out of memory together; the first says so
     * and ends the process, the others wait for that */
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&said))
        for (;;)
            pause();
    char msg[160];
    int n = snprintf(msg, sizeof msg, "gpudiag: error: out of memory (%s)\n", where);
    if (n > 0)
        fputs(msg, stderr);
    fflush(stderr);
    _Exit(5);
}

void *gd_yajl_malloc(void *ctx, size_t n)
{
    (void)ctx;
    void *p = malloc(n);
    if (!p)
        gd_oom_exit("JSON library");
    return p;
}

void *gd_yajl_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    void *q = realloc(p, n);
    if (!q)
        gd_oom_exit("JSON library");
    return q;
}

void gd_yajl_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

/* --- quantiles by selection ------------------------------------------------ */

int gd_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gd_sort_doubles(double *v, size_t n)
{
    if (n >= 4096) {
        /* IEEE-754 bits made an order-preserving signed key: a negative
         * number's bits flipped, a positive one's sign bit set, then offset to
         * signed.  Skipped for a NaN (unordered) and a -0.0 (it would sort
         * before +0.0, which qsort leaves in input order). */
        unsigned char *raw = (unsigned char *)v; /* the keys in place of the numbers, through memcpy */
        size_t i = 0;
        for (; i < n; i++) {
            uint64_t b;
            memcpy(&b, raw + 8 * i, 8);
            if (isnan(v[i]) || b == 0x8000000000000000ull)
                break;
            uint64_t key = ((b >> 63) ? ~b : b | 0x8000000000000000ull) ^ 0x8000000000000000ull;
            memcpy(raw + 8 * i, &key, 8);
        }
        int sorted = i == n && gd_radix_sort_i64(raw, n, 8, 0) == 0;
        for (size_t j = 0; j < i; j++) { /* back to numbers, sorted or not */
            uint64_t u;
            memcpy(&u, raw + 8 * j, 8);
            u ^= 0x8000000000000000ull;
            uint64_t b = (u >> 63) ? u & 0x7fffffffffffffffull : ~u;
            memcpy(raw + 8 * j, &b, 8);
        }
        if (sorted)
            return;
    }
    qsort(v, n, sizeof *v, gd_cmp_double);
}

char *gd_format_bytes(char *b, size_t n, double bytes)
{
    if (bytes >= 1073741824.0)
        snprintf(b, n, "%.2f GiB", bytes / 1073741824.0);
    else if (bytes >= 1048576.0)
        snprintf(b, n, "%.1f MiB", bytes / 1048576.0);
    else if (bytes >= 1024.0)
        snprintf(b, n, "%.1f KiB", bytes / 1024.0);
    else
        snprintf(b, n, "%.0f B", bytes);
    return b;
}

/* decimals that print |v| (< 999.5) with 3 significant figures, after rounding */
static int sig3_decimals(double v)
{
    v = fabs(v);
    return v >= 99.95 ? 0 : v >= 9.995 ? 1 : v >= 0.9995 ? 2 : 3;
}

char *gd_format_per_step(char *b, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(b, n, "n/a");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.1f", v);
    return b;
}

const char *gd_plural(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

char *gd_format_sig3(char *b, size_t n, double v)
{
    if (!isfinite(v)) {
        snprintf(b, n, "n/a");
        return b;
    }
    double a = fabs(v);
    int d = 0;
    if (a > 0 && a < 99.5) {
        d = 2 - (int)floor(log10(a));
        if (d > 17)
            d = 17;
        /* 9.996 rounds to 10.0: one decimal fewer keeps 3 significant figures */
        if (d > 0 && fabs(round(v * pow(10, d))) >= 1000)
            d--;
    }
    int len = snprintf(b, n, "%.*f", d, v);
    if (d > 0 && len > 0 && (size_t)len < n) {
        while (len > 0 && b[len - 1] == '0')
            b[--len] = '\0';
        if (len > 0 && b[len - 1] == '.')
            b[--len] = '\0';
    }
    if (strcmp(b, "-0") == 0)
        snprintf(b, n, "0");
    return b;
}

char *gd_format_us(char *b, size_t n, double us, const char *micro)
{
    double a = fabs(us);
    if (!isfinite(us))
        snprintf(b, n, "n/a");
    else if (a >= 999.5e3)
        snprintf(b, n, "%.2f s", us / 1e6);
    else if (a >= 999.5)
        snprintf(b, n, "%.*f ms", sig3_decimals(us / 1e3), us / 1e3);
    else if (us == 0)
        snprintf(b, n, "0 %s", micro);
    else
        snprintf(b, n, "%.*f %s", sig3_decimals(us), us, micro);
    return b;
}

void gd_format_ns_as_us(int64_t ns, char b[GD_NS_AS_US_LEN])
{
    int64_t q = ns / 1000, rem = ns % 1000;
    if (rem < 0) {
        rem += 1000;
        q -= 1;
    }
    if (q < 0 && rem != 0)
        snprintf(b, GD_NS_AS_US_LEN, "-%lld.%03lld", (long long)(-(q + 1)), (long long)(1000 - rem));
    else
        snprintf(b, GD_NS_AS_US_LEN, "%lld.%03lld", (long long)q, (long long)rem);
}

static double clock_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gd_wall_s(void) { return clock_s(CLOCK_REALTIME); }

double gd_mono_s(void) { return clock_s(CLOCK_MONOTONIC); }

int gd_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

double gd_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return v[lo] + (v[hi] - v[lo]) * frac;
}

static void insertion_dbl(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static double med3(double a, double b, double c)
{
    if (a < b)
        return b < c ? b : (a < c ? c : a);
    return a < c ? a : (b < c ? c : b);
}

/* Put the order statistics ranks[0..nr) (sorted ascending, all in [lo, hi))
 * in place within v[lo..hi). */
static void select_ranks(double *v, size_t lo, size_t hi, const size_t *ranks, size_t nr, int depth)
{
    while (nr > 0 && hi - lo > 1) {
        size_t n = hi - lo;
        if (n <= 24) {
            insertion_dbl(v + lo, n);
            return;
        }
        if (depth <= 0) {
            qsort(v + lo, n, sizeof *v, gd_cmp_double);
            return;
        }
        depth--;
        double *a = v + lo;
        double p = med3(med3(a[0], a[n / 8], a[n / 4]), med3(a[3 * n / 8], a[n / 2], a[5 * n / 8]),
                        med3(a[3 * n / 4], a[7 * n / 8], a[n - 1]));
        /* Dijkstra's three-way partition: [0, lt) < p, [lt, gt) == p, [gt, n) > p */
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            double x = a[i];
            if (x < p) {
                a[i++] = a[lt];
                a[lt++] = x;
            } else if (x > p) {
                a[i] = a[--gt];
                a[gt] = x;
            } else {
                i++;
            }
        }
        size_t L = lo + lt, G = lo + gt;
        /* ranks below L go left, ranks at or above G go right, the rest are placed */
        size_t nl = 0;
        while (nl < nr && ranks[nl] < L)
            nl++;
        size_t ng = nl;
        while (ng < nr && ranks[ng] < G)
            ng++;
        /* recurse into the smaller side, loop on the larger */
        if (L - lo < hi - G) {
            select_ranks(v, lo, L, ranks, nl, depth);
            lo = G;
            ranks += ng;
            nr -= ng;
        } else {
            select_ranks(v, G, hi, ranks + ng, nr - ng, depth);
            hi = L;
            nr = nl;
        }
    }
}

void gd_quantiles(double *v, size_t n, const double *q, size_t nq, double *out)
{
    size_t ranks[34];
    size_t nr = 0;
    if (nq > 16)
        nq = 16;
    for (size_t k = 0; k < nq; k++) {
        double pos = q[k] * (double)(n - 1);
        size_t i = (size_t)pos;
        if (i >= n)
            i = n - 1;
        ranks[nr++] = i;
        if (i + 1 < n)
            ranks[nr++] = i + 1;
    }
    /* sort and dedupe the ranks (few) */
    for (size_t i = 1; i < nr; i++) {
        size_t x = ranks[i], j = i;
        while (j > 0 && ranks[j - 1] > x) {
            ranks[j] = ranks[j - 1];
            j--;
        }
        ranks[j] = x;
    }
    size_t u = 0;
    for (size_t i = 0; i < nr; i++)
        if (u == 0 || ranks[u - 1] != ranks[i])
            ranks[u++] = ranks[i];
    int depth = 2;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    select_ranks(v, 0, n, ranks, u, depth);
    for (size_t k = 0; k < nq; k++) {
        double pos = q[k] * (double)(n - 1);
        size_t i = (size_t)pos;
        if (i + 1 >= n)
            out[k] = v[n - 1];
        else
            out[k] = v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
    }
}

int gd_remove_partial_output(const char *path)
{
    struct stat st;
    if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return remove(path) == 0 ? 0 : -1;
}

void gd_topk_push(void *h, size_t *n, size_t max, size_t size, const void *rec,
                  int (*cmp)(const void *, const void *))
{
    unsigned char *a = h;
#define GD_AT(i) (a + (i) * size)
    size_t c;
    if (*n < max) {
        /* sift up: a parent never sorts before its children */
        for (c = (*n)++; c > 0 && cmp(GD_AT((c - 1) / 2), rec) < 0; c = (c - 1) / 2)
            memcpy(GD_AT(c), GD_AT((c - 1) / 2), size);
    } else {
        if (max == 0 || cmp(rec, GD_AT(0)) >= 0)
            return; /* does not sort before the last one kept */
        for (c = 0;;) {
            size_t l = 2 * c + 1, m = l;
            if (l >= max)
                break;
            if (l + 1 < max && cmp(GD_AT(l), GD_AT(l + 1)) < 0)
                m = l + 1;
            if (cmp(rec, GD_AT(m)) >= 0)
                break;
            memcpy(GD_AT(c), GD_AT(m), size);
            c = m;
        }
    }
    memcpy(GD_AT(c), rec, size);
#undef GD_AT
}

/* The registered maps (gd_map_register): a slot is free while its path is NULL. */
static struct {
    _Atomic(const char *) path;
    _Atomic(uintptr_t) base;
    _Atomic(size_t) len;
} g_maps[GD_MAP_SLOTS];

int gd_map_register(const char *path, const void *base, size_t len)
{
    for (int i = 0; i < GD_MAP_SLOTS; i++) {
        const char *none = NULL;
        /* a free slot's len is 0 (unregister clears it first): no match until it is filled */
        if (atomic_compare_exchange_strong(&g_maps[i].path, &none, path)) {
            atomic_store(&g_maps[i].base, (uintptr_t)base);
            atomic_store(&g_maps[i].len, len);
            return i;
        }
    }
    return -1;
}

void gd_map_unregister(int handle)
{
    if (handle < 0 || handle >= GD_MAP_SLOTS)
        return;
    atomic_store(&g_maps[handle].len, 0);
    atomic_store(&g_maps[handle].path, NULL);
}

int gd_map_find(const void *addr, const char **path, uint64_t *offset)
{
    uintptr_t a = (uintptr_t)addr;
    for (int i = 0; i < GD_MAP_SLOTS; i++) {
        size_t len = atomic_load(&g_maps[i].len);
        uintptr_t base = atomic_load(&g_maps[i].base);
        const char *p = atomic_load(&g_maps[i].path);
        if (p && len && a >= base && a - base < len) {
            *path = p;
            *offset = (uint64_t)(a - base);
            return 1;
        }
    }
    return 0;
}

int gd_video_busy(const double *p95, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p95[i] >= GD_VIDEO_BUSY_P95) /* NaN compares false: an engine not reported */
            return 1;
    return 0;
}
