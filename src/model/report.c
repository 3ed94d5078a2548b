/*
 * report.c — a report and its arena (report.h): one owner, one free.
 */
#include "model/report.h"

#include <stddef.h>

gpudiag_report *gd_report_new(void)
{
    gd_arena *a = gd_arena_new();
    gpudiag_report *r = a ? gd_arena_alloc(a, sizeof *r) : NULL;
    if (!r) {
        gd_arena_free(a);
        return NULL;
    }
    r->arena = a;
    return r;
}

void gpudiag_report_free(gpudiag_report **rp)
{
    if (!rp || !*rp)
        return;
    gd_arena_free((*rp)->arena); /* the report itself lives in its arena */
    *rp = NULL;
}
