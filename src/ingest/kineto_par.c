/*
 * kineto_par.c — parallel parsing of the Kineto events array (issue 24;
 * docs/PERFORMANCE.md "Parallel ingest").
 *
 * The driver (kineto.c) cuts the events array into windows that start at an
 * event ('{' at a line start, Kineto's layout) and submits them here.  Worker
 * threads parse each window with simdjson through the same SAX state machine
 * (kineto_sax.c), but instead of committing each event to the model they
 * record it (the scratch event, its name and shapes) in the window's own
 * buffer.  The driver merges windows strictly in file order: a window whose
 * events all parsed is replayed through gd_kt_commit_event() on the driver's
 * parser, exactly as the serial reader would have committed them; the first
 * window that did not parse cleanly (a broken event, the end of the array, an
 * event cut by a false boundary, out of memory) stops the parallel phase, and
 * the serial reader takes over at that window's first byte.  So the model, the
 * counts and every error offset are those of the serial reader.
 *
 * A window's bytes live in its slot once its worker copied them (the
 * driver's buffer then moves on); when the serial reader must take over,
 * gd_kt_par_take() hands the bytes of the windows in flight back, oldest
 * first.
 *
 * A window submitted as bytes is copied into its slot by the worker that
 * parses it, not by the driver (for a .gz the driver inflates and commits:
 * it is the busier thread, and the copy was ~0.1 s of its ~1.2 s on a
 * 1.13 GB trace; docs/PERFORMANCE.md, step 9).  Until then the bytes stay
 * where the driver read them: it calls gd_kt_par_wait_copied() before it
 * moves or frees its buffer.
 *
 * A plain regular file is not copied by the driver (gd_kt_par_new() with its
 * fd): the driver submits byte ranges, and the worker reads its window with
 * pread() into its slot, so the copy out of the page cache runs on the
 * parse threads.  (Mapping each window privately instead, as first built,
 * cost more: a page fault per 64 KiB and a TLB shootdown per unmap across
 * the threads; docs/PERFORMANCE.md, step 4.)  The driver re-reads from the
 * file when the serial reader takes over.
 *
 * Memory: 2 x threads windows in flight, each holding its bytes (a window is
 * ~1 MiB plus the rest of the line-start event it ends before) and its
 * records (~0.3 x its bytes for Kineto's events), plus one simdjson parser
 * per thread (a few times the window).
 */
#define _POSIX_C_SOURCE 200809L /* pread */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/kineto_int.h"
#include "util/util.h"

#ifdef GPUDIAG_HAVE_SIMDJSON

/* The recorded events of a window: one stream of 8-byte words, record after
 * record (gd_kt_record_event / replay).  A record is
 *   - a head word: bit w set for each nonzero 8-byte word w of the event's
 *     ev_scratch (which the state machine zeroes at each event's start, so
 *     most words are 0), bit 63 when shapes follow;
 *   - those nonzero words, in order;
 *   - with shapes: a word n_in | n_types << 32, the first min(n_in, 8) ranks
 *     as int32 pairs, each kept input's first min(rank, 6) dims, and one word
 *     of the first min(n_types, 8) types: exactly what the serial reader's
 *     consumers read of gd_op_shapes;
 *   - the name (ev.name_len bytes), NUL-terminated, padded to a word.
 * About 145 bytes for a Kineto event, where a copy of the scratch event was
 * 360 bytes plus 432 of shapes for an op that has them: the parse threads
 * write, and the merge reads, that much less (docs/PERFORMANCE.md, step 5). */
struct gd_kt_evbuf {
    uint64_t *w;       /* the words */
    size_t len, cap;   /* in words */
    size_t nrec;
    int ts_float;      /* a `ts` with a fraction was read (the serial reader's t->ts_is_float) */
};

#define EV_WORDS (sizeof(ev_scratch) / 8)
#define REC_SHAPES (1ull << 63)
_Static_assert(sizeof(ev_scratch) % 8 == 0 && EV_WORDS < 63, "ev_scratch is whole words, a head word's bits");
_Static_assert(GD_OPF_MAX_IN <= 8, "one word holds the kept inputs' types");

enum slot_state { SLOT_FREE = 0, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

/* Slots and workers each start on a cache-line pair of their own: a parse
 * thread writes its slot's record counts and its parser's state at every
 * event, and another thread reading a neighbour on the same line would make
 * each of those writes a cache miss (false sharing). */
#define GD_PAR_LINE 128

typedef struct kt_slot {
    _Alignas(GD_PAR_LINE) int state;
    unsigned char *alloc; /* 1 + cap + GD_SJ_PADDING */
    size_t cap, len;
    uint64_t abs_start;   /* byte offset of the window's first byte in the input */
    int in_file;          /* the bytes are the file's [abs_start, +len): the worker reads them */
    const unsigned char *src; /* the driver's bytes the worker copies into alloc, NULL: none (or copied) */
    int copied;           /* the window's bytes are in the slot (or the file's): the driver's are free */
    int res;              /* gd_sj_events() result; -1: the file's bytes could not be read */
    size_t consumed;
    gd_kt_evbuf out;
} kt_slot;

typedef struct kt_worker {
    _Alignas(GD_PAR_LINE) gd_kt_par *par;
    pthread_t th;
    int started;
    parser p;
    gd_sj *sj;
} kt_worker;

struct gd_kt_par {
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a slot was queued, or stop */
    pthread_cond_t done;   /* a slot was parsed */
    int stop;
    kt_slot *slots;
    size_t nslots;
    size_t head;           /* oldest slot submitted and not merged */
    size_t count;          /* slots submitted and not merged */
    size_t next_queued;    /* the next slot a worker takes, in submission order */
    kt_worker *workers;
    int nworkers;
    const parser *proto;   /* the driver's parser: its context stack at the events array */
    int fd;                /* the plain file windows are read from (gd_kt_par_submit with no bytes), -1: none */
};

static void evbuf_init(gd_kt_evbuf *b)
{
    memset(b, 0, sizeof *b);
}

static void evbuf_clear(gd_kt_evbuf *b)
{
    b->len = 0;
    b->nrec = 0;
    b->ts_float = 0;
}

static void evbuf_free(gd_kt_evbuf *b)
{
    free(b->w);
}

/* Room for n more words; 0, or -1 when out of memory. */
static int evbuf_reserve(gd_kt_evbuf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap * 2 : 16384;
    while (nc < b->len + n)
        nc *= 2;
    uint64_t *nw = realloc(b->w, nc * sizeof *nw);
    if (!nw)
        return -1;
    b->w = nw;
    b->cap = nc;
    return 0;
}

/* The kept part of sh (see gd_kt_evbuf) at w; the words written. */
static size_t pack_shapes(uint64_t *w, const gd_op_shapes *sh)
{
    size_t k = 0;
    w[k++] = (uint64_t)(uint32_t)sh->n_in | (uint64_t)(uint32_t)sh->n_types << 32;
    int ni = sh->n_in < GD_OPF_MAX_IN ? sh->n_in : GD_OPF_MAX_IN;
    for (int i = 0; i < ni; i += 2)
        w[k++] = (uint64_t)(uint32_t)sh->rank[i] | (i + 1 < ni ? (uint64_t)(uint32_t)sh->rank[i + 1] << 32 : 0);
    for (int i = 0; i < ni; i++) {
        int nd = sh->rank[i] < GD_OPF_MAX_RANK ? sh->rank[i] : GD_OPF_MAX_RANK;
        for (int d = 0; d < nd; d++)
            memcpy(&w[k++], &sh->dim[i][d], 8);
    }
    if (sh->n_types > 0) {
        uint64_t t = 0;
        memcpy(&t, sh->type, GD_OPF_MAX_IN);
        w[k++] = t;
    }
    return k;
}

/* pack_shapes' words at w back into *sh; the words read. */
static size_t unpack_shapes(const uint64_t *w, gd_op_shapes *sh)
{
    size_t k = 0;
    sh->n_in = (int)(uint32_t)w[k];
    sh->n_types = (int)(uint32_t)(w[k++] >> 32);
    int ni = sh->n_in < GD_OPF_MAX_IN ? sh->n_in : GD_OPF_MAX_IN;
    for (int i = 0; i < ni; i += 2) {
        sh->rank[i] = (int)(uint32_t)w[k];
        if (i + 1 < ni)
            sh->rank[i + 1] = (int)(uint32_t)(w[k] >> 32);
        k++;
    }
    for (int i = 0; i < ni; i++) {
        int nd = sh->rank[i] < GD_OPF_MAX_RANK ? sh->rank[i] : GD_OPF_MAX_RANK;
        for (int d = 0; d < nd; d++)
            memcpy(&sh->dim[i][d], &w[k++], 8);
    }
    if (sh->n_types > 0)
        memcpy(sh->type, &w[k++], GD_OPF_MAX_IN);
    return k;
}

int gd_kt_record_event(parser *p)
{
    gd_kt_evbuf *b = p->rec;
    size_t n = p->ev.name_len;
    /* the commit's work that does not depend on the model, done here: the name's hash */
    p->ev.name_hash = gd_strtab_hash(p->name, n);
    p->ev.has_name_hash = 1;
    int shapes = p->shapes.n_in > 0 || p->shapes.n_types > 0;
    /* the most a record takes: head, every word, shapes (head, ranks, dims, types), the name */
    size_t most = 2 + EV_WORDS + (shapes ? 2 + GD_OPF_MAX_IN / 2 + GD_OPF_MAX_IN * GD_OPF_MAX_RANK : 0) + n / 8 + 1;
    if (evbuf_reserve(b, most) != 0)
        return -1;
    uint64_t *w = b->w + b->len, head = shapes ? REC_SHAPES : 0;
    size_t k = 1;
    const unsigned char *ev = (const unsigned char *)&p->ev;
#if defined(__clang__)
#pragma unroll
#elif defined(__GNUC__)
#pragma GCC unroll 64
#endif
    for (size_t i = 0; i < EV_WORDS; i++) { /* branch-free: which words are set varies by event */
        uint64_t v;
        memcpy(&v, ev + 8 * i, 8);
        w[k] = v;
        head |= (uint64_t)(v != 0) << i;
        k += v != 0;
    }
    w[0] = head;
    if (shapes)
        k += pack_shapes(w + k, &p->shapes);
    w[k + n / 8] = 0; /* the NUL and the padding */
    memcpy(w + k, p->name, n);
    k += n / 8 + 1;
    b->len += k;
    b->nrec++;
    return 0;
}

/* Room for len bytes (and the shim's byte before and padding after) in s. */
static int slot_reserve(kt_slot *s, size_t len)
{
    if (len <= s->cap && s->alloc)
        return 0;
    size_t nc = len + len / 4;
    unsigned char *na = realloc(s->alloc, 1 + nc + GD_SJ_PADDING);
    if (!na)
        return -1;
    s->alloc = na;
    s->cap = nc;
    return 0;
}

/* The window of an in_file slot: the file's bytes [abs_start, abs_start +
 * len) read with pread() into the slot, the worker's own copy (the shim
 * writes a '[' before it and blanks after it).  The window's first byte, or
 * NULL when the bytes cannot be read. */
static unsigned char *file_window(const gd_kt_par *par, kt_slot *s)
{
    if (slot_reserve(s, s->len) != 0)
        return NULL;
    size_t have = 0;
    while (have < s->len) {
        ssize_t got = pread(par->fd, s->alloc + 1 + have, s->len - have, (off_t)(s->abs_start + have));
        if (got <= 0)
            return NULL;
        have += (size_t)got;
    }
    return s->alloc + 1;
}

/* Parse slot s on worker w (no lock held). */
static void parse_slot(kt_worker *w, kt_slot *s)
{
    parser *p = &w->p;
    const parser *proto = w->par->proto;
    unsigned char *win = s->in_file ? file_window(w->par, s) : s->alloc + 1;
    evbuf_clear(&s->out);
    s->consumed = 0;
    if (!win) {
        s->res = -1; /* not clean: the serial reader takes over here and reports what it finds */
        return;
    }
    memcpy(p->ctx, proto->ctx, (size_t)proto->events_depth);
    p->depth = proto->events_depth;
    p->events_depth = proto->events_depth;
    p->overflow_depth = 0;
    p->key = K_NONE;
    p->in_events = 1;
    p->saw_events = 1;
    p->oom = 0;
    p->dim_in = -1;
    p->rec = &s->out;
    p->ts_float_at = &s->out.ts_float;
    p->buf_data = win;
    p->buf_end = &s->len;
    p->buf_base = &s->abs_start;
    s->res = gd_sj_events(w->sj, win, s->len, &gd_kt_sj_callbacks, p, &s->consumed);
    p->buf_data = NULL;
}

static void *worker_main(void *arg)
{
    kt_worker *w = arg;
    gd_kt_par *par = w->par;
    pthread_mutex_lock(&par->lock);
    for (;;) {
        while (!par->stop && !(par->count > 0 && par->slots[par->next_queued].state == SLOT_QUEUED))
            pthread_cond_wait(&par->work, &par->lock);
        if (par->stop)
            break;
        kt_slot *s = &par->slots[par->next_queued];
        par->next_queued = (par->next_queued + 1) % par->nslots;
        s->state = SLOT_BUSY;
        pthread_mutex_unlock(&par->lock);
        if (s->src) {
            memcpy(s->alloc + 1, s->src, s->len); /* room reserved by gd_kt_par_submit() */
            pthread_mutex_lock(&par->lock);
            s->src = NULL;
            s->copied = 1;
            pthread_cond_broadcast(&par->done);
            pthread_mutex_unlock(&par->lock);
        }
        parse_slot(w, s);
        pthread_mutex_lock(&par->lock);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&par->done);
    }
    pthread_mutex_unlock(&par->lock);
    return NULL;
}

/* n zeroed elements of size (a multiple of GD_PAR_LINE) on a GD_PAR_LINE
 * boundary; free() frees it.  NULL on OOM. */
static void *aligned_calloc(size_t n, size_t size)
{
    if (n == 0 || size > SIZE_MAX / n)
        return NULL;
    void *m = aligned_alloc(GD_PAR_LINE, n * size);
    if (m)
        memset(m, 0, n * size);
    return m;
}

gd_kt_par *gd_kt_par_new(int threads, const parser *proto, int fd)
{
    gd_kt_par *par = calloc(1, sizeof *par);
    if (!par)
        return NULL;
    par->fd = fd;
    pthread_mutex_init(&par->lock, NULL);
    pthread_cond_init(&par->work, NULL);
    pthread_cond_init(&par->done, NULL);
    par->proto = proto;
    par->nslots = 2 * (size_t)threads;
    par->slots = aligned_calloc(par->nslots, sizeof *par->slots);
    par->workers = aligned_calloc((size_t)threads, sizeof *par->workers);
    if (!par->slots || !par->workers) {
        gd_kt_par_free(par);
        return NULL;
    }
    for (size_t i = 0; i < par->nslots; i++)
        evbuf_init(&par->slots[i].out);
    for (int i = 0; i < threads; i++) {
        kt_worker *w = &par->workers[i];
        w->par = par;
        w->p.t = proto->t;
        w->p.name = malloc(GD_NAME_CAP + 1);
        w->sj = gd_sj_new();
        par->nworkers = i + 1;
        if (!w->p.name || !w->sj || pthread_create(&w->th, NULL, worker_main, w) != 0) {
            gd_kt_par_free(par);
            return NULL;
        }
        w->started = 1;
    }
    return par;
}

void gd_kt_par_free(gd_kt_par *par)
{
    if (!par)
        return;
    pthread_mutex_lock(&par->lock);
    par->stop = 1;
    pthread_cond_broadcast(&par->work);
    pthread_mutex_unlock(&par->lock);
    for (int i = 0; i < par->nworkers; i++) {
        kt_worker *w = &par->workers[i];
        if (w->started)
            pthread_join(w->th, NULL);
        free(w->p.name);
        gd_sj_free(w->sj);
    }
    for (size_t i = 0; par->slots && i < par->nslots; i++) {
        free(par->slots[i].alloc);
        evbuf_free(&par->slots[i].out);
    }
    free(par->slots);
    free(par->workers);
    pthread_cond_destroy(&par->work);
    pthread_cond_destroy(&par->done);
    pthread_mutex_destroy(&par->lock);
    free(par);
}

int gd_kt_par_full(const gd_kt_par *par)
{
    return par->count == par->nslots;
}

size_t gd_kt_par_inflight(const gd_kt_par *par)
{
    return par->count;
}

int gd_kt_par_submit(gd_kt_par *par, const unsigned char *bytes, size_t len, uint64_t abs_start)
{
    if (!bytes && par->fd < 0)
        return -1; /* a file window needs the file */
    /* the slot after the newest one is free: only the driver's thread submits and merges */
    kt_slot *s = &par->slots[(par->head + par->count) % par->nslots];
    if (bytes && slot_reserve(s, len) != 0)
        return -1;
    s->src = bytes; /* the worker copies them */
    s->copied = bytes == NULL;
    s->in_file = bytes == NULL;
    s->len = len;
    s->abs_start = abs_start;
    pthread_mutex_lock(&par->lock);
    s->state = SLOT_QUEUED;
    par->count++;
    pthread_cond_signal(&par->work);
    pthread_mutex_unlock(&par->lock);
    return 0;
}

void gd_kt_par_wait_copied(gd_kt_par *par)
{
    pthread_mutex_lock(&par->lock);
    for (size_t i = 0; i < par->count;) {
        if (par->slots[(par->head + i) % par->nslots].copied)
            i++;
        else
            pthread_cond_wait(&par->done, &par->lock);
    }
    pthread_mutex_unlock(&par->lock);
}

/* Wait until the oldest slot is parsed. */
static kt_slot *wait_oldest(gd_kt_par *par)
{
    kt_slot *s = &par->slots[par->head];
    pthread_mutex_lock(&par->lock);
    while (s->state != SLOT_DONE)
        pthread_cond_wait(&par->done, &par->lock);
    pthread_mutex_unlock(&par->lock);
    return s;
}

static void release_oldest(gd_kt_par *par)
{
    pthread_mutex_lock(&par->lock);
    par->slots[par->head].state = SLOT_FREE;
    par->head = (par->head + 1) % par->nslots;
    par->count--;
    pthread_mutex_unlock(&par->lock);
}

/* Commit the events of a clean window through p, in order: each record
 * unpacked into p's scratch event and shapes, as the serial reader would
 * have left them, its name where it is in the record. */
static int replay(parser *p, const gd_kt_evbuf *b)
{
    static const gd_op_shapes no_shapes; /* n_in = n_types = 0 */
    if (b->ts_float)
        *p->ts_float_at = 1;
    const uint64_t *w = b->w;
    unsigned char *ev = (unsigned char *)&p->ev;
    for (size_t r = 0; r < b->nrec; r++) {
        uint64_t head = *w++;
        gd_kt_ev_clear(&p->ev);
        for (uint64_t m = head & ~REC_SHAPES; m; m &= m - 1)
            memcpy(ev + 8 * (size_t)__builtin_ctzll(m), w++, 8);
        const gd_op_shapes *sh = &no_shapes;
        if (head & REC_SHAPES) {
            w += unpack_shapes(w, &p->shapes);
            sh = &p->shapes;
        }
        const char *name = (const char *)w;
        w += p->ev.name_len / 8 + 1;
        if (gd_kt_commit_event(p, &p->ev, name, sh) != 0)
            return -1;
    }
    return 0;
}

int gd_kt_par_merge_oldest(gd_kt_par *par, parser *p, uint64_t *abs_start, uint64_t *abs_end)
{
    kt_slot *s = wait_oldest(par);
    *abs_start = s->abs_start;
    *abs_end = s->abs_start + s->len;
    if (s->res != GD_SJ_MORE || s->consumed != s->len)
        return 0; /* not clean: the serial reader takes over at abs_start */
    int rc = replay(p, &s->out);
    release_oldest(par);
    return rc == 0 ? 1 : -1;
}

size_t gd_kt_par_bytes(const gd_kt_par *par)
{
    size_t n = 0;
    for (size_t i = 0; i < par->count; i++)
        n += par->slots[(par->head + i) % par->nslots].len;
    return n;
}

uint64_t gd_kt_par_take(gd_kt_par *par, unsigned char *dst)
{
    uint64_t first = par->count ? par->slots[par->head].abs_start : 0;
    while (par->count > 0) {
        kt_slot *s = wait_oldest(par);
        memcpy(dst, s->alloc + 1, s->len);
        dst += s->len;
        release_oldest(par);
    }
    return first;
}

void gd_kt_par_drain(gd_kt_par *par)
{
    while (par->count > 0) {
        wait_oldest(par);
        release_oldest(par);
    }
}

#endif
