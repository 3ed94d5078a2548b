/*
 * rules.c — the rule catalogue and the pipeline that runs it.  Each rule reads
 * numbers from the report and may add one finding with a stable id
 * (docs/FINDINGS.md), the evidence that triggered it, a recommendation naming
 * concrete knobs (the tuning guides' list), and est_gain: the fraction of step
 * time the fix could recover.  Rules never look at events; the verdict is
 * derived from the ranked findings.
 *
 * The rules live by group: rules_input.c (notes about the input),
 * rules_steps.c (step and idle time), rules_kernel.c (kernels, roofline),
 * rules_comm.c (communication, copies); the ranking and the verdict in
 * verdict.c.  Their ids are the rows of findings.def.
 */
#include <stdlib.h>

#include "diagnose/rules.h"
#include "diagnose/rules_internal.h"

const gd_finding_row gd_catalogue[GD_F_COUNT] = {
#define GD_FINDING(id, kind, bn, rule, fix, fix_fn) {#id, kind, GPUDIAG_BN_##bn, fix, fix_fn},
#include "diagnose/findings.def"
#undef GD_FINDING
};

/* The rules over the report's numbers, in findings.def's GD_RULE order. */
enum { ANY, GPU };
static const struct {
    void (*fn)(fbuilder *b);
    int when;
} passes[] = {
#define GD_RULE(fn, when) {fn, when},
#include "diagnose/findings.def"
#undef GD_RULE
};

int gd_diagnose(const gpudiag_trace *t, gpudiag_report *r)
{
    fbuilder b = GD_FBUILD_REPORT(r);
    r->steady_step_us = gd_steady_step_us(r); /* the cause rules' unit (rules_steps.c) */
    gd_rule_input(&b, t); /* the notes about the input, first: it also reads the trace */
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++)
        if (passes[i].when == ANY || r->has_gpu)
            passes[i].fn(&b);
    gd_rank_findings(r);
    gd_verdict(&b, t);
    return b.oom ? -1 : 0;
}
