/*
 * faultinject.c — an LD_PRELOAD shim that makes allocation and reading fail,
 * for tests/fault/test_faults.sh (docs/FUZZING.md, "Fault injection").
 *
 *   GD_FAULT_MALLOC=N  malloc, calloc, realloc, aligned_alloc, posix_memalign
 *                      and operator new's malloc fail (NULL, ENOMEM) from the
 *                      (N+1)-th call on, counted from main();
 *   GD_FAULT_READ=N    fread fails (0, ferror set, EIO) from the (N+1)-th call;
 *   GD_FAULT_COUNT=F   at exit, write "malloc M\nread R\n" (the calls seen)
 *                      to file F, to choose N.
 * Write failures need no shim: /dev/full (ENOSPC), a closed pipe (EPIPE) and
 * `ulimit -f` (EFBIG after so many bytes) make real ones.
 * glibc only: fread's error flag is set through _IO_ERR_SEEN.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static size_t (*real_fread)(void *, size_t, size_t, FILE *);

static long malloc_after = -1, read_after = -1;
static long mallocs, reads;
static int armed;          /* counting starts at main() (the constructor) */
static int resolving;
static const char *count_file;

/* dlsym may calloc before real_calloc is known: serve it from here */
static unsigned char boot[4096];
static size_t boot_used;

static void resolve(void)
{
    if (real_malloc || resolving)
        return;
    resolving = 1;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real_fread = (size_t(*)(void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fread");
    resolving = 0;
}

static int fail_alloc(void)
{
    if (!armed)
        return 0;
    mallocs++;
    if (malloc_after >= 0 && mallocs > malloc_after) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

static void report(void)
{
    if (!count_file)
        return;
    armed = 0;
    FILE *fp = fopen(count_file, "w");
    if (fp) {
        fprintf(fp, "malloc %ld\nread %ld\n", mallocs, reads);
        fclose(fp);
    }
}

__attribute__((constructor)) static void init(void)
{
    resolve();
    const char *m = getenv("GD_FAULT_MALLOC");
    const char *r = getenv("GD_FAULT_READ");
    count_file = getenv("GD_FAULT_COUNT");
    if (m && *m)
        malloc_after = strtol(m, NULL, 10);
    if (r && *r)
        read_after = strtol(r, NULL, 10);
    if (count_file)
        atexit(report);
    armed = 1;
}

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc) {
        size_t a = (n + 15) & ~(size_t)15;
        if (boot_used + a > sizeof boot)
            return NULL;
        void *p = boot + boot_used;
        boot_used += a;
        return p;
    }
    return fail_alloc() ? NULL : real_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    resolve();
    if (!real_calloc) {
        if (size && n > SIZE_MAX / size)
            return NULL;
        void *p = malloc(n * size); /* the boot buffer: zero already */
        return p;
    }
    return fail_alloc() ? NULL : real_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    resolve();
    if ((unsigned char *)p >= boot && (unsigned char *)p < boot + sizeof boot) {
        void *q = malloc(n);
        if (q && p)
            memcpy(q, p, n < sizeof boot ? n : sizeof boot);
        return q;
    }
    return fail_alloc() ? NULL : real_realloc(p, n);
}

void free(void *p)
{
    static void (*real_free)(void *);
    if ((unsigned char *)p >= boot && (unsigned char *)p < boot + sizeof boot)
        return;
    if (!real_free)
        real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    resolve();
    return fail_alloc() ? ENOMEM : real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    resolve();
    return fail_alloc() ? NULL : real_aligned_alloc(align, n);
}

size_t fread(void *buf, size_t size, size_t n, FILE *fp)
{
    resolve();
    if (armed) {
        reads++;
        if (read_after >= 0 && reads > read_after) {
            fp->_flags |= _IO_ERR_SEEN;
            errno = EIO;
            return 0;
        }
    }
    return real_fread(buf, size, n, fp);
}
