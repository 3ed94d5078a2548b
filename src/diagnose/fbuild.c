/*
 * fbuild.c — appending findings to a report or a cluster (fbuild.h).
 */
#include "diagnose/fbuild.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/report.h"
#include "util/util.h"

gpudiag_finding *gd_fb_add(gd_fbuild *b, const char *id, gpudiag_severity sev, gd_finding_kind kind,
                           gpudiag_bottleneck bn, double est_gain)
{
    if (*b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        gpudiag_finding *f = b->arena ? gd_arena_realloc(b->arena, *b->findings, cap * sizeof *f)
                                      : realloc(*b->findings, cap * sizeof *f);
        if (!f) {
            b->oom = 1;
            return NULL;
        }
        *b->findings = f;
        b->cap = cap;
    }
    gpudiag_finding *f = &(*b->findings)[(*b->count)++];
    memset(f, 0, sizeof *f);
    f->id = id;
    f->severity = sev;
    f->is_cause = kind == CAUSE;
    f->kind = kind == CAUSE ? "cause" : kind == NOTE ? "input" : "symptom";
    f->bottleneck = bn;
    f->est_gain = est_gain;
    return f;
}

void gd_fb_ev(gpudiag_finding *f, const char *key, double v)
{
    /* a rule that sets more than the cap is a defect (the number would be dropped without a word):
     * debug builds stop here; cli/test_golden checks every golden report stays below the cap */
    assert(!f || f->evidence_count < GPUDIAG_MAX_EVIDENCE);
    if (f && f->evidence_count < GPUDIAG_MAX_EVIDENCE) {
        f->evidence[f->evidence_count].key = key;
        f->evidence[f->evidence_count].value = v;
        f->evidence_count++;
    }
}

void gd_fb_text(gd_fbuild *b, gpudiag_finding *f, char *title, char *rec)
{
    if (!f || !title || !rec) {
        free(title);
        free(rec);
        b->oom = 1;
        return;
    }
    if (b->arena) {
        f->title = gd_arena_take(b->arena, title);
        f->recommendation = gd_arena_take(b->arena, rec);
        if (!f->title || !f->recommendation)
            b->oom = 1;
        return;
    }
    f->title = title;
    f->recommendation = rec;
}

void gd_fb_append(gd_fbuild *b, gpudiag_finding *f, char *more)
{
    if (!f || !more || !f->recommendation) {
        free(more);
        b->oom = b->oom || !more;
        return;
    }
    size_t a = strlen(f->recommendation), m = strlen(more);
    char *rec = malloc(a + 1 + m + 1);
    if (!rec) {
        free(more);
        b->oom = 1;
        return;
    }
    memcpy(rec, f->recommendation, a);
    rec[a] = ' ';
    memcpy(rec + a + 1, more, m + 1);
    free(more);
    if (b->arena) {
        /* the old text stays in the arena until the report is freed */
        const char *kept = gd_arena_take(b->arena, rec);
        if (!kept)
            b->oom = 1;
        else
            f->recommendation = kept;
        return;
    }
    free((char *)(uintptr_t)f->recommendation); /* malloc'd by gd_fb_text without an arena */
    f->recommendation = rec;
}

void gd_fb_gzip_trailing(gd_fbuild *b, gpudiag_finding *f, const char *what)
{
    const gpudiag_report *r = b->r;
    gd_fb_ev(f, "trailing_bytes", (double)r->input.gz_trailing_bytes);
    gd_fb_ev(f, "trailing_at_compressed_bytes", (double)r->input.gz_trailing_at);
    gd_fb_text(b, f,
         gd_format("%llu byte%s after the last gzip member of %s, from compressed byte %llu, %s not gzip data "
                   "and %s not read; the %s before %s was read whole",
                   (unsigned long long)r->input.gz_trailing_bytes, gd_plural(r->input.gz_trailing_bytes),
                   r->input.path, (unsigned long long)r->input.gz_trailing_at,
                   r->input.gz_trailing_bytes == 1 ? "is" : "are", r->input.gz_trailing_bytes == 1 ? "was" : "were",
                   what, r->input.gz_trailing_bytes == 1 ? "it" : "them"),
         gd_format("Something was appended to the .gz file after gzip wrote it (a file that is not gzip "
                   "concatenated onto it, a copy or download that added bytes); gzip -t reports it as "
                   "\"trailing garbage ignored\". The %s's members passed their CRC check and no number "
                   "here depends on the extra bytes. If they belong to the %s, recover them from where the "
                   "file came from and compress it again.",
                   what, what));
}

const gpudiag_finding *gd_fb_find(const gpudiag_report *r, const char *id)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return &r->findings[i];
    return NULL;
}
