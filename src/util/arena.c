/*
 * arena.c — one owner for many allocations (arena.h).
 */
#include "util/arena.h"

#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The header before every linked allocation: a doubly-linked ring through
 * the arena's sentinel, so that release and realloc unlink in O(1). */
typedef union link {
    struct {
        union link *prev, *next;
        size_t size;
    } h;
    max_align_t align; /* cppcheck-suppress unusedStructMember ; never read: it aligns what follows the header */
} link;

/* A shared block that strings are bumped out of. */
typedef struct sblock {
    struct sblock *next;
    size_t used, cap;
    char data[];
} sblock;

struct gd_arena {
    pthread_mutex_t lock; /* every call takes it: passes that run side by side share the report's arena */
    link ring;       /* sentinel of the linked allocations */
    sblock *strings; /* newest string block first */
    void **adopted;  /* malloc'd buffers handed over */
    size_t nadopted, capadopted;
};

gd_arena *gd_arena_new(void)
{
    gd_arena *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        free(a);
        return NULL;
    }
    a->ring.h.prev = a->ring.h.next = &a->ring;
    return a;
}

void gd_arena_free(gd_arena *a)
{
    if (!a)
        return;
    for (link *l = a->ring.h.next, *n; l != &a->ring; l = n) {
        n = l->h.next;
        free(l);
    }
    for (sblock *b = a->strings, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    for (size_t i = 0; i < a->nadopted; i++)
        free(a->adopted[i]);
    free(a->adopted);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

static void ring_insert(gd_arena *a, link *l)
{
    l->h.prev = &a->ring;
    l->h.next = a->ring.h.next;
    a->ring.h.next->h.prev = l;
    a->ring.h.next = l;
}

void *gd_arena_alloc(gd_arena *a, size_t n)
{
    if (!a || n > SIZE_MAX - sizeof(link))
        return NULL;
    link *l = calloc(1, sizeof(link) + n);
    if (!l)
        return NULL;
    l->h.size = n;
    pthread_mutex_lock(&a->lock);
    ring_insert(a, l);
    pthread_mutex_unlock(&a->lock);
    return l + 1;
}

void *gd_arena_calloc(gd_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return gd_arena_alloc(a, n * size);
}

void *gd_arena_realloc(gd_arena *a, void *p, size_t n)
{
    if (!p)
        return gd_arena_alloc(a, n);
    if (!a || n > SIZE_MAX - sizeof(link))
        return NULL;
    link *old = (link *)p - 1;
    pthread_mutex_lock(&a->lock); /* another thread's insert or release may relink old's neighbours */
    link *prev = old->h.prev, *next = old->h.next;
    size_t had = old->h.size;
    link *l = realloc(old, sizeof(link) + n);
    if (l) {
        l->h.size = n;
        prev->h.next = l;
        next->h.prev = l;
    }
    pthread_mutex_unlock(&a->lock);
    if (!l)
        return NULL; /* old is still linked where it was */
    if (n > had)
        memset((char *)(l + 1) + had, 0, n - had);
    return l + 1;
}

/* cppcheck-suppress constParameter ; the arena's ring is changed through a's sentinel */
void gd_arena_release(gd_arena *a, void *p)
{
    if (!a || !p)
        return;
    link *l = (link *)p - 1;
    pthread_mutex_lock(&a->lock);
    l->h.prev->h.next = l->h.next;
    l->h.next->h.prev = l->h.prev;
    pthread_mutex_unlock(&a->lock);
    free(l);
}

void *gd_arena_adopt(gd_arena *a, void *p)
{
    if (!p)
        return NULL;
    if (!a) {
        free(p);
        return NULL;
    }
    pthread_mutex_lock(&a->lock);
    if (a->nadopted == a->capadopted) {
        size_t cap = a->capadopted ? 2 * a->capadopted : 8;
        void **v = realloc(a->adopted, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&a->lock);
            free(p);
            return NULL;
        }
        a->adopted = v;
        a->capadopted = cap;
    }
    a->adopted[a->nadopted++] = p;
    pthread_mutex_unlock(&a->lock);
    return p;
}

/* n bytes (n >= 1) for a string, from the newest block or a new one. */
static char *string_space(gd_arena *a, size_t n)
{
    sblock *b = a->strings;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > GD_ARENA_BLOCK ? n : GD_ARENA_BLOCK;
        if (cap > SIZE_MAX - sizeof *b)
            return NULL;
        sblock *nb = malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        if (b && n > GD_ARENA_BLOCK) {
            /* a long string's own block goes behind the newest, which keeps its free room */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->strings = nb;
        }
        b = nb;
    }
    char *s = b->data + b->used;
    b->used += n;
    return s;
}

char *gd_arena_strdup(gd_arena *a, const char *s)
{
    if (!a || !s)
        return NULL;
    size_t n = strlen(s) + 1;
    pthread_mutex_lock(&a->lock);
    char *d = string_space(a, n);
    pthread_mutex_unlock(&a->lock);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *gd_arena_take(gd_arena *a, char *s)
{
    char *d = gd_arena_strdup(a, s);
    free(s);
    return d;
}
