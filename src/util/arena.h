/*
 * arena.h — one owner for many allocations: everything handed out by an arena
 * is freed by gd_arena_free, in one call (the model: yyjson's document, whose
 * values and strings live exactly as long as the document).
 *
 * A report owns its strings and arrays through its arena (gpudiag_report.arena,
 * gpudiag_report_free): a new report field allocated here needs no free line.
 *
 * Two kinds of block:
 *   - strings (gd_arena_strdup, gd_arena_take) are bumped out of shared blocks
 *     of GD_ARENA_BLOCK bytes (a longer string gets a block of its own); they
 *     are never freed or grown one by one;
 *   - arrays and structs (gd_arena_alloc, gd_arena_calloc, gd_arena_realloc)
 *     are allocations of their own, linked into the arena, so that they can be
 *     grown (realloc) or given back early (gd_arena_release: an error path)
 *     like malloc'd ones;
 *   - a buffer malloc'd elsewhere (a gd_vec's data) is handed over with
 *     gd_arena_adopt.
 * Every function returns NULL (or does nothing) when a is NULL; allocation
 * failures are returned, never fatal.  Memory is zeroed (strings excepted).
 * Threads may allocate from one arena side by side (a mutex guards it: the
 * analysis passes that run side by side share the report's arena); growing
 * or releasing one allocation stays its owner's, as with malloc.
 */
#ifndef GD_UTIL_ARENA_H
#define GD_UTIL_ARENA_H

#include <stddef.h>

#define GD_ARENA_BLOCK 4096 /* bytes of a shared string block */

typedef struct gd_arena gd_arena;

/* A new empty arena; NULL on OOM. */
gd_arena *gd_arena_new(void);
/* Free everything the arena handed out, and the arena.  NULL-safe. */
void gd_arena_free(gd_arena *a);

/* n zeroed bytes aligned for any type; NULL on OOM (n 0: a valid 0-byte block). */
void *gd_arena_alloc(gd_arena *a, size_t n);
/* n * size zeroed bytes; NULL on OOM or when n * size overflows. */
void *gd_arena_calloc(gd_arena *a, size_t n, size_t size);
/* Grow or shrink p (NULL, or from gd_arena_alloc/calloc/realloc of this
 * arena) to n bytes; bytes past the old size are zeroed.  NULL on OOM, and p
 * is then unchanged and still owned. */
void *gd_arena_realloc(gd_arena *a, void *p, size_t n);
/* Free p (NULL, or from gd_arena_alloc/calloc/realloc of this arena) now. */
void gd_arena_release(gd_arena *a, void *p);
/* Hand the malloc'd p to the arena, which frees it with itself; returns p.
 * NULL p: NULL.  On OOM p is freed and NULL returned. */
void *gd_arena_adopt(gd_arena *a, void *p);

/* A copy of s in the arena; NULL when s is NULL or on OOM. */
char *gd_arena_strdup(gd_arena *a, const char *s);
/* A copy of the malloc'd string s in the arena, s freed (also on failure);
 * NULL when s is NULL or on OOM.  For strings built with gd_format,
 * gd_utf8_clean, ...: r->verdict = gd_arena_take(r->arena, gd_format(...)). */
char *gd_arena_take(gd_arena *a, char *s);

#endif
