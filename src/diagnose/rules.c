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

/* The rules over the report's numbers, in the order they run (it matters: a
 * rule may read an earlier rule's finding, has_finding).  GPU: only when the
 * trace has device activity; ANY: always. */
enum { ANY, GPU };
static const struct {
    void (*fn)(fbuilder *b);
    int when;
} passes[] = {
    {gd_rule_startup, GPU},         {gd_rule_dataloader, ANY},      {gd_rule_host_overhead, GPU},
    {gd_rule_communication, GPU},   {gd_rule_collective_host, GPU}, {gd_rule_stream_wait, GPU},
    {gd_rule_offload, GPU},         {gd_rule_memcpy, GPU},          {gd_rule_small_gemms, GPU},
    {gd_rule_memory_bound, GPU},    {gd_rule_attention, GPU},       {gd_rule_sync, GPU},
    {gd_rule_pageable, GPU},        {gd_rule_optimizer, GPU},       {gd_rule_tensor_cores, GPU},
    {gd_rule_low_util, GPU},        {gd_rule_low_mfu, GPU},         {gd_rule_nsight, GPU},
    {gd_rule_graph_replays, ANY},   {gd_rule_graph_capture, GPU},   {gd_rule_recompute, GPU},
    {gd_rule_memory_headroom, GPU}, {gd_rule_allocator_churn, GPU},
    {gd_rule_lora, GPU},            {gd_rule_accumulation, GPU},
};

int gd_diagnose(const gpudiag_trace *t, gpudiag_report *r)
{
    fbuilder b = GD_FBUILD_REPORT(r);
    gd_rule_input(&b, t); /* the notes about the input, first: it also reads the trace */
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++)
        if (passes[i].when == ANY || r->has_gpu)
            passes[i].fn(&b);
    gd_rank_findings(r);
    gd_verdict(&b, t);
    return b.oom ? -1 : 0;
}
