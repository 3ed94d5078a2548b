/*
 * report.h — making a report: the struct and the arena that owns everything
 * in it (src/util/arena.h); gpudiag_report_free frees both in one call.
 */
#ifndef GD_MODEL_REPORT_H
#define GD_MODEL_REPORT_H

#include "gpudiag/gpudiag.h"
#include "util/arena.h"

/* A zeroed report living in a new arena of its own (r->arena); NULL on OOM.
 * Every string and array of the report is allocated from r->arena:
 * gd_arena_calloc(r->arena, n, size), gd_arena_take(r->arena, gd_format(...)),
 * ...; none of them is freed on its own. */
gpudiag_report *gd_report_new(void);

#endif
