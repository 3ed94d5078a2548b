/*
 * bigalloc.c — the gpudiag binary's large heap blocks on transparent huge
 * pages.  The binary is linked with --wrap=malloc,calloc,realloc (CMakeLists),
 * so the calls of gpudiag's own code (not libc's or the libraries') come here.
 * A block of GD_BIG_BLOCK bytes or more is a fresh mapping (main.c sets glibc's
 * mmap threshold to 256 KiB); it gets madvise(MADV_HUGEPAGE) before it is first
 * written, so it takes one page fault per 2 MiB instead of one per 4 KiB.  On a
 * paravirtualised host a fault cost ~4.6 µs and faults were 11 % of the CPU of
 * analysing a 1.13 GB trace (docs/PERFORMANCE.md, issue 24).  Advice only: a
 * kernel that refuses it (THP "never") changes nothing.  This is glibc's own
 * glibc.malloc.hugetlb=1 tunable, which a program cannot set for itself.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE, malloc_usable_size */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define GD_BIG_BLOCK ((size_t)4 << 20)

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static void *advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (p && n >= GD_BIG_BLOCK && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)n;
#endif
    return p;
}

void *__wrap_malloc(size_t n)
{
    return advise(__real_malloc(n), n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return advise(__real_calloc(n, size), n && size <= SIZE_MAX / n ? n * size : 0);
}

/* A block growing to GD_BIG_BLOCK or more moves to a fresh advised block (the
 * copy is written onto huge pages); anything else is glibc's realloc. */
void *__wrap_realloc(void *p, size_t n)
{
    if (!p || n < GD_BIG_BLOCK)
        return p ? __real_realloc(p, n) : __wrap_malloc(n);
    size_t old = malloc_usable_size(p);
    if (old >= n)
        return __real_realloc(p, n);
    void *q = __wrap_malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, old);
    free(p);
    return q;
}
