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
#include <sys/mman.h>

#define GD_BIG_BLOCK ((size_t)4 << 20)

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

/* madvise(MADV_HUGEPAGE) over the whole of p's block, from its page to the
 * end of its usable size: for a block of its own mapping (every block of
 * GD_BIG_BLOCK bytes: main.c's mmap threshold is 256 KiB) that is the whole
 * mapping, so the advice does not split it into several kernel areas (vmas),
 * and glibc's realloc can still grow it with mremap() (which fails across
 * vmas and then copies).  The kernel puts huge pages where 2 MiB-aligned
 * spans of it are first written. */
static void *advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (p && n >= GD_BIG_BLOCK) {
        const uintptr_t page = 4096;
        uintptr_t lo = (uintptr_t)p & ~(page - 1);
        uintptr_t hi = ((uintptr_t)p + malloc_usable_size(p) + page - 1) & ~(page - 1);
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
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

/* glibc's realloc, advised when the block is GD_BIG_BLOCK or more: a block of
 * its own mapping grows by mremap(), which moves page tables rather than
 * bytes, so the pages written so far are neither copied nor faulted in
 * again; only the new part is.  (It moved to a fresh advised block, copying
 * and clearing twice each growing vector's final size: one thread's system
 * time on a 5.5 GB .json.gz was 1.42 s, now 0.94 s; docs/PERFORMANCE.md
 * step 11.) */
void *__wrap_realloc(void *p, size_t n)
{
    if (!p)
        return __wrap_malloc(n);
    return advise(__real_realloc(p, n), n);
}
