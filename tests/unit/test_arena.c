/*
 * The arena (src/util/arena.h): what it hands out is zeroed, aligned, keeps
 * its bytes across realloc and string-block changes, and is all freed by one
 * gd_arena_free (the ASan/valgrind runs of this test find a leak or a double
 * free).  Expected values are the inputs themselves, written by hand.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/arena.h"
#include "util/util.h"

/* Threads allocating from one arena side by side (the analysis passes that
 * run side by side share the report's arena): each keeps its own blocks and
 * strings, grows and releases some, and checks them all at the end.  Without
 * the arena's lock the ring and the string blocks are corrupted (a crash, or
 * an ASan report in the sanitizer run). */
enum { TH_N = 4, TH_ITEMS = 3000 };

typedef struct th_job {
    gd_arena *a;
    int id, ok;
} th_job;

static void *th_run(void *arg)
{
    th_job *j = arg;
    static _Thread_local uint32_t *blk[TH_ITEMS];
    static _Thread_local char *str[TH_ITEMS];
    j->ok = 1;
    for (int i = 0; i < TH_ITEMS; i++) {
        blk[i] = gd_arena_alloc(j->a, 4 * sizeof(uint32_t));
        char buf[32];
        snprintf(buf, sizeof buf, "t%d-%d", j->id, i);
        str[i] = gd_arena_strdup(j->a, buf);
        if (!blk[i] || !str[i]) {
            j->ok = 0;
            return NULL;
        }
        blk[i][0] = (uint32_t)(j->id * 100000 + i);
        if (i % 3 == 0) { /* grown: the bytes stay, the rest is zeroed */
            blk[i] = gd_arena_realloc(j->a, blk[i], 64 * sizeof(uint32_t));
            if (!blk[i] || blk[i][63] != 0) {
                j->ok = 0;
                return NULL;
            }
        }
        if (i % 7 == 0 && i > 0) { /* one given back early */
            gd_arena_release(j->a, blk[i - 1]);
            blk[i - 1] = NULL;
        }
        if (i % 500 == 0 && !gd_arena_adopt(j->a, malloc(16))) {
            j->ok = 0;
            return NULL;
        }
    }
    for (int i = 0; i < TH_ITEMS; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "t%d-%d", j->id, i);
        if ((blk[i] && blk[i][0] != (uint32_t)(j->id * 100000 + i)) || strcmp(str[i], buf) != 0)
            j->ok = 0;
    }
    return NULL;
}

static void test_threads(void)
{
    gd_arena *a = gd_arena_new();
    ASSERT_TRUE(a != NULL);
    pthread_t th[TH_N];
    th_job jobs[TH_N];
    for (int t = 0; t < TH_N; t++) {
        jobs[t] = (th_job){a, t, 0};
        ASSERT_EQ_INT(pthread_create(&th[t], NULL, th_run, &jobs[t]), 0);
    }
    for (int t = 0; t < TH_N; t++) {
        pthread_join(th[t], NULL);
        ASSERT_EQ_INT(jobs[t].ok, 1);
    }
    gd_arena_free(a);
}

int main(void)
{
    test_threads();
    ASSERT_TRUE(gd_arena_alloc(NULL, 8) == NULL);
    ASSERT_TRUE(gd_arena_strdup(NULL, "x") == NULL);
    gd_arena_free(NULL);

    gd_arena *a = gd_arena_new();
    ASSERT_TRUE(a != NULL);

    /* zeroed and aligned for any type */
    double *d = gd_arena_calloc(a, 5, sizeof *d);
    ASSERT_TRUE(d != NULL);
    ASSERT_EQ_INT((int)((uintptr_t)d % alignof(max_align_t)), 0);
    for (int i = 0; i < 5; i++)
        ASSERT_TRUE(d[i] == 0.0);
    ASSERT_TRUE(gd_arena_calloc(a, SIZE_MAX / 2, 4) == NULL); /* n * size overflows */

    /* realloc keeps the old bytes, zeroes the new ones */
    for (int i = 0; i < 5; i++)
        d[i] = i + 0.5;
    d = gd_arena_realloc(a, d, 1000 * sizeof *d);
    ASSERT_TRUE(d != NULL);
    ASSERT_TRUE(d[0] == 0.5 && d[4] == 4.5);
    ASSERT_TRUE(d[5] == 0.0 && d[999] == 0.0);
    int *v = gd_arena_realloc(a, NULL, 3 * sizeof *v); /* NULL: a new block */
    ASSERT_TRUE(v != NULL && v[2] == 0);

    /* release in the middle of the ring, then the rest goes with the arena */
    int *x = gd_arena_alloc(a, sizeof *x);
    int *y = gd_arena_alloc(a, sizeof *y);
    ASSERT_TRUE(x && y);
    gd_arena_release(a, x);
    gd_arena_release(a, NULL);
    *y = 7;

    /* strings: short ones share a block, one longer than a block gets its
     * own, and the shared block keeps filling after it */
    char *s1 = gd_arena_strdup(a, "kernel");
    char *big = malloc(GD_ARENA_BLOCK + 100);
    ASSERT_TRUE(s1 && big);
    memset(big, 'b', GD_ARENA_BLOCK + 99);
    big[GD_ARENA_BLOCK + 99] = 0;
    char *s2 = gd_arena_take(a, big); /* big is freed */
    char *s3 = gd_arena_take(a, gd_format("%d steps", 3));
    ASSERT_TRUE(s2 && s3);
    ASSERT_EQ_INT((int)strlen(s2), GD_ARENA_BLOCK + 99);
    ASSERT_STR_EQ(s1, "kernel");
    ASSERT_STR_EQ(s3, "3 steps");
    ASSERT_TRUE(s3 == s1 + 7); /* bumped right after "kernel\0" */
    ASSERT_TRUE(gd_arena_take(a, NULL) == NULL);
    for (int i = 0; i < 2000; i++) /* several shared blocks */
        ASSERT_TRUE(gd_arena_strdup(a, "0123456789") != NULL);
    ASSERT_STR_EQ(s1, "kernel");

    /* adopt a malloc'd buffer */
    char *m = malloc(64);
    ASSERT_TRUE(gd_arena_adopt(a, m) == m);
    ASSERT_TRUE(gd_arena_adopt(a, NULL) == NULL);
    for (int i = 0; i < 20; i++) /* grows the adopted list */
        ASSERT_TRUE(gd_arena_adopt(a, malloc(8)) != NULL);

    ASSERT_EQ_INT(*y, 7);
    gd_arena_free(a); /* one call frees all of it */
    TEST_DONE("arena");
}
