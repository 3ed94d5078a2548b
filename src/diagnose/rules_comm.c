/*
 * rules_comm.c — the communication and copy rules: collectives (their share,
 * overlap and kind), the host side of coalesced collectives, CPU offload,
 * copies and pageable memory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_internal.h"

/* The group with the largest share of the communication kernel time (ties:
 * the first), G_NONE when every share is 0 or NaN (DEFINITIONS
 * "Communication", dominant kind); *second: the next largest (G_NONE when
 * none; may be NULL). */
int gd_comm_dominant(const double gs[G_NONE], int *second)
{
    int g = G_NONE, g2 = G_NONE;
    for (int k = 0; k < G_NONE; k++) {
        if (!(gs[k] > 0))
            continue;
        if (g == G_NONE || gs[k] > gs[g]) {
            g2 = g;
            g = k;
        } else if (g2 == G_NONE || gs[k] > gs[g2]) {
            g2 = k;
        }
    }
    if (second)
        *second = g2;
    return g;
}

/* How many groups are about equal to the largest (within GD_COMM_KIND_NEAR_TIE, itself
 * included); 0 when none is > 0. */
static int near_largest(const double gs[G_NONE])
{
    int a = gd_comm_dominant(gs, NULL), n = 0;
    for (int k = 0; a != G_NONE && k < G_NONE; k++)
        /* 1e-9: shares exactly one point apart (0.26 - 0.25) are within it */
        n += gs[k] > 0 && gs[a] - gs[k] <= GD_COMM_KIND_NEAR_TIE + 1e-9;
    return n;
}

/* Exactly two groups about equal at the top (DEFINITIONS "Communication", dominant kind). */
int gd_comm_near_tie(const double gs[G_NONE], int *g, int *g2)
{
    if (near_largest(gs) != 2)
        return 0;
    *g = gd_comm_dominant(gs, g2);
    return 1;
}

/* The groups a title names, by share (ties: enum order) into order[]: the
 * largest two, then each next one about equal to the last named (within
 * GD_COMM_KIND_NEAR_TIE), so that of two about-equal groups neither is left
 * out.  Returns how many. */
static int named_groups(const double gs[G_NONE], int order[G_NONE])
{
    int n = 0;
    for (int k = 0; k < G_NONE; k++) {
        if (!(gs[k] > 0))
            continue;
        int at = n++;
        while (at > 0 && gs[order[at - 1]] < gs[k]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    int keep = n < 2 ? n : 2;
    while (keep < n && gs[order[keep - 1]] - gs[order[keep]] <= GD_COMM_KIND_NEAR_TIE + 1e-9)
        keep++;
    return keep;
}

/* "A 46%, B 27%, C 27%" (with about_equal: "A, B and C, about equal, hold 26.0%, 25.9% and 25.5%")
 * of the groups order[0..n); malloc'd, NULL on OOM. */
static char *groups_words(const char *const *what, const double gs[G_NONE], const int *order, int n, int about_equal)
{
    char names[1024] = "", shares[256] = "", list[1280] = "";
    size_t ln = 0, ls = 0, ll = 0;
    for (int i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : i == n - 1 ? " and " : ", ";
        if (about_equal) {
            ln += (size_t)snprintf(names + ln, ln < sizeof names ? sizeof names - ln : 0, "%s%s", sep, what[order[i]]);
            ls += (size_t)snprintf(shares + ls, ls < sizeof shares ? sizeof shares - ls : 0, "%s%.1f%%", sep,
                                   100.0 * gs[order[i]]);
        } else {
            ll += (size_t)snprintf(list + ll, ll < sizeof list ? sizeof list - ll : 0, "%s%s %.0f%%", i ? ", " : "",
                                   what[order[i]], 100.0 * gs[order[i]]);
        }
    }
    return about_equal ? gd_format("%s, about equal, hold %s", names, shares) : gd_format("%s", list);
}

/* The group whose advice alone the finding and the verdict's fix give: the
 * largest, G_NONE when none or when another is about equal to it. */
int gd_comm_advice_group(const double gs[G_NONE])
{
    return near_largest(gs) == 1 ? gd_comm_dominant(gs, NULL) : G_NONE;
}

int gd_comm_group_shares(const gpudiag_report *r, double gs[G_NONE])
{
    const double *k = r->comm_kind_share;
    gs[G_ALL_REDUCE] = k[GPUDIAG_COMM_ALL_REDUCE];
    gs[G_SHARDED] = k[GPUDIAG_COMM_ALL_GATHER] + k[GPUDIAG_COMM_REDUCE_SCATTER];
    gs[G_ALL_TO_ALL] = k[GPUDIAG_COMM_ALL_TO_ALL];
    gs[G_P2P] = k[GPUDIAG_COMM_SEND_RECV];
    gs[G_BROADCAST] = k[GPUDIAG_COMM_BROADCAST];
    gs[G_UNKNOWN] = k[GPUDIAG_COMM_UNKNOWN];
    /* the shares are NaN when no communication kernel time is known by kind */
    return !isnan(k[GPUDIAG_COMM_ALL_REDUCE]);
}

const char *gd_comm_group_fix(int g)
{
    static const char *const fix[G_NONE + 1] = {
        "overlap all-reduce with backward, communicate less often",
        "prefetch FSDP all-gathers, limit_all_gathers, larger wrap units",
        "overlap the all-to-all with compute, send fewer bytes, balance the shards",
        "more micro-batches, an interleaved pipeline schedule, overlap send/recv with compute",
        "broadcast_buffers=False, broadcast parameters once",
        "overlap collectives with compute, communicate less often",
        "overlap collectives with compute, communicate less often"};
    return fix[g >= 0 && g <= G_NONE ? g : G_NONE];
}

/* Device-idle time in the host side of coalesced collectives (DEFINITIONS
 * "Idle gaps and their causes", rule 2), ÷ devices, as a share of the analysed
 * time; 0 when none. */
double gd_collective_host_share(const gpudiag_report *r)
{
    size_t nd = r->timeline.device_count;
    if (!r->has_gpu || !nd || !r->step_count || !(r->avg_step_us > 0) || !(r->collective_host_us > 0))
        return 0;
    return r->collective_host_us / (double)nd / ((double)r->step_count * r->avg_step_us);
}

void gd_rule_collective_host(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = gd_steady_share(r, gd_collective_host_share(r));
    if (!(s >= GD_COMM_SHARE_LOW))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_collective_host_work, sev_for_share(s), s);
    gd_fb_ev(f, "collective_host_share", s);
    gd_fb_ev(f, "collective_host_us_per_step",
             r->collective_host_us / (double)r->timeline.device_count / (double)r->step_count);
    gd_fb_text(b, f,
         gd_format("The GPU waits %.1f%% of each step while the host flattens and unflattens tensors for a "
                   "coalesced collective (aten::flatten_dense_tensors / unflatten_dense_tensors around "
                   "nccl:broadcast)",
                   100.0 * s),
         gd_format("This is DDP's buffer broadcast before every forward (or ZeRO/apex bucket copies): pass "
                   "broadcast_buffers=False to DistributedDataParallel when the buffers need no syncing every "
                   "step (BatchNorm running statistics: use SyncBatchNorm, or sync them every N steps), keep "
                   "buffers few and large, or register them as non-persistent state outside the module."));
}

static const char *const short_what[G_NONE] = {"all-reduce", "all-gather/reduce-scatter", "all-to-all",
                                               "send/recv", "broadcast", "unnamed collectives"};

/* communication_bound's advice for one group of collective kinds (G_NONE: the general advice),
 * allocated (NULL on OOM). */
static char *group_advice(int g)
{
    char *advice;
    switch (g) {
    case G_SHARDED:
        advice = gd_format(
            "Hide the all-gathers behind compute: FSDP(forward_prefetch=True, backward_prefetch="
            "BackwardPrefetch.BACKWARD_PRE) issues the next unit's all-gather early, and limit_all_gathers=True keeps "
            "that prefetch from stalling on memory; wrap larger units (fewer, larger all-gathers) or keep the last "
            "blocks unsharded (FSDP2 reshard_after_forward=False); with DeepSpeed ZeRO-3 raise "
            "allgather_bucket_size / reduce_bucket_size and set overlap_comm=True; shard within a node "
            "(HYBRID_SHARD) when the link between nodes is slow; check the interconnect with NCCL_DEBUG=INFO.");
        break;
    case G_P2P:
        advice = gd_format(
            "Shrink the pipeline bubble and hide the send/recv: raise the number of micro-batches per step (the "
            "bubble is about (stages - 1) / micro-batches of the step), use an interleaved 1F1B schedule (virtual "
            "stages: torch.distributed.pipelining ScheduleInterleaved1F1B, Megatron "
            "--num-layers-per-virtual-pipeline-stage), overlap p2p with compute (Megatron overlap_p2p_comm, "
            "batch_isend_irecv on a side stream), balance layers across stages, and check the link between "
            "stage ranks with NCCL_DEBUG=INFO.");
        break;
    case G_ALL_TO_ALL:
        advice = gd_format(
            "Overlap and shrink the all-to-all: pipeline it with compute (TorchRec TrainPipelineSparseDist "
            "distributes the next batch's features while this one trains; MoE: overlap token dispatch with expert "
            "compute), send fewer bytes (TorchRec quantised comms in fp16/bf16; a lower MoE capacity factor), "
            "balance the shards (TorchRec planner) so no rank sends much more than the others, and check the "
            "interconnect with NCCL_DEBUG=INFO.");
        break;
    case G_BROADCAST:
        advice = gd_format(
            "Broadcasts every step are usually DDP's buffer broadcast before each forward: pass "
            "broadcast_buffers=False when the buffers need no syncing (BatchNorm: SyncBatchNorm), and broadcast "
            "parameters once at start-up only; check the interconnect with NCCL_DEBUG=INFO.");
        break;
    case G_ALL_REDUCE:
        advice = gd_format(
            "Overlap and shrink the gradient all-reduce: tune DDP bucket_cap_mb, accumulate gradients over more "
            "micro-batches (model.no_sync()) so all-reduce runs less often, raise the per-GPU batch, compress "
            "gradients to bf16 with a DDP comm hook (or PowerSGD), and check the interconnect with NCCL_DEBUG=INFO "
            "(NVLink vs PCIe, IB vs TCP).");
        break;
    case G_UNKNOWN:
        advice = gd_format(
            "Overlap and shrink collectives: keep them behind compute (DDP buckets, FSDP/ZeRO prefetch), "
            "communicate less often (gradient accumulation with model.no_sync()) and check the interconnect with "
            "NCCL_DEBUG=INFO. Which collective runs cannot be told here: NCCL names its kernels SendRecv or "
            "Generic whatever they run; a PyTorch >= 2.1 profile records the collective's name with each kernel, "
            "and keeping the host ops (nccl:*, record_param_comms) in the trace names the rest.");
        break;
    default:
        advice = gd_format(
            "Overlap and shrink collectives: tune DDP bucket_cap_mb, accumulate gradients over more "
            "micro-batches (model.no_sync()) so all-reduce runs less often, raise the per-GPU batch, "
            "compress gradients to bf16 with a DDP comm hook, enable FSDP/ZeRO prefetch, and check the "
            "interconnect with NCCL_DEBUG=INFO (NVLink vs PCIe, IB vs TCP).");
        break;
    }
    return advice;
}

void gd_rule_communication(fbuilder *b)
{
    gpudiag_report *r = b->r;
    /* start-up communication left out (DEFINITIONS "Communication", start-up communication) */
    double s = r->comm_share;
    if (!isnan(s) && r->comm_startup_us > 0 && r->avg_step_us > 0) {
        s -= r->comm_startup_us / r->avg_step_us;
        if (s < 0)
            s = 0;
    }
    s = gd_steady_share(r, s);
    /* TBP's "> 10 % communication", or communication that compute barely hides */
    int poorly_overlapped = !isnan(r->comm_overlap) && r->comm_overlap < GD_COMM_OVERLAP_MIN && s > GD_COMM_SHARE_LOW;
    if (isnan(s) || !(s > GD_COMM_SHARE_MIN || poorly_overlapped))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_communication_bound, sev_for_share(s), s);
    gd_fb_ev(f, "comm_share", s);
    /* the breakdown's Communication role, host calls included (DEFINITIONS "Communication", two
     * numbers; the collective kernels alone are summary.comm_kernel_exposed_us_per_step) */
    gd_fb_ev(f, "comm_us_per_step", r->avg_role_us[GPUDIAG_ROLE_COMMUNICATION]);
    if (r->comm_startup_us > 0)
        gd_fb_ev(f, "comm_startup_us_per_step", r->comm_startup_us);
    gd_fb_ev(f, "comm_overlap", r->comm_overlap);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    /* what the collectives moved, as NCCL-tests rates it, beside the GPU link's peak (a lower
     * bound: a duration holds the wait for the other ranks; DEFINITIONS "Communication", bandwidth) */
    if (!isnan(r->comm_alg_gb_per_s)) {
        gd_fb_ev(f, "collective_algbw_gb_per_s", r->comm_alg_gb_per_s);
        gd_fb_ev(f, "collective_busbw_gb_per_s", r->comm_bus_gb_per_s);
        gd_fb_ev(f, "gpu_link_gb_per_s", r->nvlink_gb_per_s);
    }
    /* the dominant kind of collective picks the advice (DEFINITIONS "Communication", collective kinds):
     * all-gather and reduce-scatter together are FSDP / ZeRO-3 sharding */
    double gs[G_NONE];
    int kinds = gd_comm_group_shares(r, gs);
    int g = G_NONE, g2 = G_NONE, t1 = G_NONE, t2 = G_NONE;
    /* every share fits: 5 above (comm_startup_us_per_step), 3 with bytes, one per kind, steady_step_us
     * (gd_rule_mostly_startup), kernels_recorded_share (gd_rule_kernels_missing) */
    _Static_assert(5 + 3 + GPUDIAG_COMM_KIND_COUNT + 2 <= GPUDIAG_MAX_EVIDENCE, "communication_bound's evidence");
    if (kinds) {
        static const char *const keys[GPUDIAG_COMM_KIND_COUNT] = {
#define GPUDIAG_COMM_KIND_ROW(e, name, share_key) share_key,
#include "gpudiag/comm_kinds.def"
#undef GPUDIAG_COMM_KIND_ROW
        };
        for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
            gd_fb_ev(f, keys[k], r->comm_kind_share[k]);
        g = gd_comm_dominant(gs, &g2);
    }
    /* the two largest about equal (DEFINITIONS "Communication", dominant kind): both named, both advised */
    int tie = kinds && gd_comm_near_tie(gs, &t1, &t2);
    static const char *const what[G_NONE] = {
        "all-reduce", "all-gather/reduce-scatter (sharded data parallel: FSDP, ZeRO-3)",
        "all-to-all (embedding sharding, mixture-of-experts)", "point-to-point send/recv (pipeline parallelism)",
        "broadcast", "a collective this trace cannot name (SendRecv/Generic kernels without their launching call)"};
    /* the groups the title names: of two about equal, neither left out (three or more about equal at the
     * top: named together) */
    int order[G_NONE];
    int nnamed = kinds && g != G_NONE ? named_groups(gs, order) : 0;
    /* three or more about equal to the largest: exactly those, the first of the order */
    int near = nnamed ? near_largest(gs) : 0, near3 = near >= 3;
    if (near3)
        nnamed = near;
    char *named = nnamed ? groups_words(what, gs, order, nnamed, near3) : NULL;
    /* no collective kernels, MPI calls on the host: the GPU waits for MPI (an HPC code) */
    int mpi = !kinds && r->input.nsys.mpi_calls > 0;
    if (mpi)
        gd_fb_ev(f, "mpi_calls", (double)r->input.nsys.mpi_calls);
    char *title = mpi ? gd_format("Communication not hidden behind compute takes %.1f%% of each step: the GPU waits "
                                  "while the host is in MPI calls",
                                  100.0 * s)
                : g == G_NONE ? gd_format("Communication not hidden behind compute takes %.1f%% of each step", 100.0 * s)
                : tie ? gd_format("Communication not hidden behind compute takes %.1f%% of each step; %s and %s, about "
                                  "equal, hold %.1f%% and %.1f%% of the communication kernel time",
                                  100.0 * s, what[t1], what[t2], 100.0 * gs[t1], 100.0 * gs[t2])
                : gs[g] >= GD_COMM_KIND_DOMINANT
                    ? gd_format("Communication not hidden behind compute takes %.1f%% of each step; %s is "
                                "%.0f%% of the communication kernel time",
                                100.0 * s, what[g], 100.0 * gs[g])
                : near3 ? gd_format("Communication not hidden behind compute takes %.1f%% of each step; %s of the "
                                    "communication kernel time",
                                    100.0 * s, named ? named : "")
                        : gd_format("Communication not hidden behind compute takes %.1f%% of each step; no kind of "
                                    "collective holds half of the communication kernel time: %s",
                                    100.0 * s, named ? named : "");
    free(named);
    char *advice;
    if (mpi) {
        advice = gd_format(
            "Overlap MPI with GPU work: post MPI_Irecv/MPI_Isend as soon as the data exists and compute what does "
            "not need it (the interior of the domain) while the messages travel, waiting (MPI_Wait) only right "
            "before the data is used; use CUDA-aware MPI (GPUDirect RDMA) so device buffers are sent without "
            "host staging copies; send fewer, larger messages; check the network and the GPU-NIC affinity.");
    } else if (!rf_pytorch(b)) {
        /* NCCL/RCCL kernels in a trace that shows no framework (DEFINITIONS "Framework"): no DDP/FSDP knobs */
        advice = gd_format(
            "Overlap the collectives with compute: enqueue each NCCL/RCCL call on its own stream as soon as its "
            "data is ready and run the work that does not need the result meanwhile, waiting on an event only "
            "where the result is used; communicate less often and in larger messages (group small calls between "
            "ncclGroupStart/ncclGroupEnd); check the interconnect with NCCL_DEBUG=INFO (NVLink vs PCIe, IB vs "
            "TCP).");
    } else if (tie) {
        /* about equal (DEFINITIONS "Communication", dominant kind): both groups' advice, the larger first */
        char *a1 = group_advice(t1), *a2 = group_advice(t2);
        advice = a1 && a2 ? gd_format("Two kinds of collective take about equal time, %s (%.1f%%) and %s (%.1f%%): "
                                      "work on both. 1. %s: %s 2. %s: %s",
                                      short_what[t1], 100.0 * gs[t1], short_what[t2], 100.0 * gs[t2],
                                      short_what[t1], a1, short_what[t2], a2)
                          : NULL;
        free(a1);
        free(a2);
    } else {
        advice = group_advice(gd_comm_advice_group(gs));
    }
    /* a mix (DEFINITIONS "Communication", dominant kind): the advice starts with the largest group */
    if (!mpi && rf_pytorch(b) && gd_comm_advice_group(gs) != G_NONE && gs[g] < GD_COMM_KIND_DOMINANT && advice) {
        char *mix = gd_format("No kind of collective dominates; start with the largest, %s (%.0f%%): %s",
                              short_what[g], 100.0 * gs[g], advice);
        if (mix) {
            free(advice);
            advice = mix;
        }
    }
    /* one rank of several: a collective kernel runs until the last rank joins, so its time holds the wait
     * for the slowest rank (DEFINITIONS "Communication", what one rank's trace cannot tell) */
    if (!mpi && r->input.world_size > 1 && advice) {
        char *all = gd_format("%s This is one rank of %d: a collective kernel runs until every rank has joined, so "
                              "its time includes waiting for the slowest rank, and one rank's trace alone cannot tell "
                              "a slow link from a late rank: analyzing every rank's trace together (gpudiag analyze "
                              "DIR, its STRAGGLER line) shows whether a straggler holds the others.",
                              advice, r->input.world_size);
        if (all) {
            free(advice);
            advice = all;
        }
    }
    gd_fb_text(b, f, title, advice);
}

/* Offload: large host<->device traffic in both directions every step
 * (ZeRO-Offload, FSDP CPU offload, activation offload, swapping). */
void gd_rule_offload(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0))
        return;
    double n = (double)r->step_count;
    const gpudiag_transfer *h2d = &r->transfers[GPUDIAG_COPY_H2D], *d2h = &r->transfers[GPUDIAG_COPY_D2H];
    double h2d_step = h2d->bytes / n, d2h_step = d2h->bytes / n;
    double time_share = gd_steady_share(r, (h2d->time_us + d2h->time_us) / n / r->avg_step_us);
    if (h2d_step < GD_OFFLOAD_BYTES_MIN || d2h_step < GD_OFFLOAD_BYTES_MIN || !(time_share >= GD_OFFLOAD_TIME_MIN))
        return;
    double exposed = gd_steady_share(r, role_share(r, GPUDIAG_ROLE_MEMCPY));
    gpudiag_finding *f = rf_add(b, GD_F_offload_transfer, sev_for_share(time_share), exposed);
    gd_fb_ev(f, "h2d_bytes_per_step", h2d_step);
    gd_fb_ev(f, "d2h_bytes_per_step", d2h_step);
    gd_fb_ev(f, "h2d_gb_per_s", r->transfer_rates[GPUDIAG_COPY_H2D].gb_per_s);
    gd_fb_ev(f, "d2h_gb_per_s", r->transfer_rates[GPUDIAG_COPY_D2H].gb_per_s);
    gd_fb_ev(f, "transfer_time_share", time_share);
    gd_fb_ev(f, "exposed_memcpy_share", exposed);
    gd_fb_ev(f, "pcie_link_gb_per_s", r->pcie_link_gb_per_s); /* per direction, of the identified GPU */
    gd_fb_ev(f, "min_link_us_per_step", r->offload.min_link_us_per_step);
    gd_fb_ev(f, "copy_over_link", r->offload.copy_over_link);
    /* no framework seen (DEFINITIONS "Offload traffic"): the program's own copies, not ZeRO/FSDP offload */
    if (r->input.framework && strcmp(r->input.framework, "none") == 0) {
        gd_fb_text(b, f,
             gd_format("Every step moves %.0f MiB to the GPU and %.0f MiB back: the program's own host-device copies "
                       "run for %.1f%% of the step, %.1f%% with no kernel running",
                       h2d_step / 1048576.0, d2h_step / 1048576.0, 100.0 * time_share, 100.0 * exposed),
             gd_format("Keep the data resident on the GPU across iterations and copy back only what the host needs "
                       "(and only when it needs it); copy only what changed; use pinned host memory "
                       "(cudaMallocHost / cudaHostRegister) with cudaMemcpyAsync, and overlap the copies with compute "
                       "on other streams (split the data into chunks: copy one while the kernel works on another); "
                       "batch small transfers into few large ones."));
    } else {
        gd_fb_text(b, f,
             gd_format("Every step moves %.0f MiB to the GPU and %.0f MiB back over PCIe (offload): the copies run for "
                       "%.1f%% of the step, %.1f%% with no kernel running",
                       h2d_step / 1048576.0, d2h_step / 1048576.0, 100.0 * time_share, 100.0 * exposed),
             gd_format("The step is paying for memory savings with bandwidth. If the model fits without offload "
                       "(see `gpudiag plan`), turn it off (ZeRO offload_optimizer/offload_param, FSDP "
                       "CPUOffload, activation offloading); otherwise overlap it: pinned buffers, non_blocking "
                       "copies on a side stream, prefetch the next layer's parameters, or prefer activation "
                       "checkpointing (costs ~1/3 more compute, no PCIe) and ZeRO sharding across GPUs (uses "
                       "NVLink) over CPU offload."));
    }
    const gpudiag_offload_seen *of = &r->offload;
    if (of->min_link_us_per_step > 0)
        gd_fb_append(b, f,
                     gd_format("At %.1f GB/s per direction these bytes need at least %.0f us per step (%.1f%% of "
                               "the step) even fully overlapped; the copies take %.1fx that.",
                               r->pcie_link_gb_per_s, of->min_link_us_per_step,
                               100.0 * of->min_link_us_per_step / r->avg_step_us, of->copy_over_link));
}

void gd_rule_memcpy(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = gd_steady_share(r, role_share(r, GPUDIAG_ROLE_MEMCPY) + role_share(r, GPUDIAG_ROLE_MEMSET));
    /* offload_transfer is the more specific diagnosis of the same copy time */
    if (isnan(s) || !(s > GD_MEMCPY_SHARE_MIN) || has_finding(r, "offload_transfer"))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_memcpy_heavy, sev_for_share(s), s);
    double copy_us = 0;
    for (int k = 0; k < GPUDIAG_COPY_KIND_COUNT; k++)
        copy_us += r->transfers[k].time_us;
    double d2d = copy_us > 0 ? r->transfers[GPUDIAG_COPY_D2D].time_us / copy_us : NAN;
    gd_fb_ev(f, "memcpy_share", role_share(r, GPUDIAG_ROLE_MEMCPY));
    gd_fb_ev(f, "memset_share", role_share(r, GPUDIAG_ROLE_MEMSET));
    gd_fb_ev(f, "h2d_copy_time_share", copy_us > 0 ? r->transfers[GPUDIAG_COPY_H2D].time_us / copy_us : NAN);
    gd_fb_ev(f, "d2h_copy_time_share", copy_us > 0 ? r->transfers[GPUDIAG_COPY_D2H].time_us / copy_us : NAN);
    gd_fb_ev(f, "d2d_copy_time_share", d2d);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    gd_fb_ev(f, "pcie_link_gb_per_s", r->pcie_link_gb_per_s);
    /* the fix depends on where the bytes go: device-to-device copies are the
     * framework's own (layout changes, concatenation), host copies are I/O */
    int device_copies = !isnan(d2d) && d2d > 0.5;
    gd_fb_text(b, f, gd_format("Memory copies and memsets not hidden behind kernels take %.1f%% of each step%s", 100.0 * s,
                         device_copies ? ", mostly device-to-device" : ""),
         device_copies
             ? gd_format("Most copy time is device-to-device: tensors are being copied or re-laid out on the GPU. "
                         "Look for .contiguous(), .clone(), .to(dtype) and torch.cat/stack in the step (the "
                         "largest gaps and top kernels say where), keep one memory layout (channels_last end to "
                         "end), use in-place or out= variants, preallocate buffers instead of concatenating, and "
                         "let torch.compile fuse the copies away.")
             : rf_pytorch(b)
             ? gd_format("Keep data on the GPU: pin host memory (pin_memory=True) and copy with non_blocking=True "
                         "so transfers overlap compute, avoid .cpu()/.item()/.numpy() inside the step, create "
                         "tensors directly on the device (torch.zeros(..., device='cuda')), and batch many small "
                         "copies into one.")
             : gd_format("Keep data on the GPU: allocate host buffers pinned (cudaMallocHost) and copy with "
                         "cudaMemcpyAsync on a stream other than the compute stream so transfers overlap kernels, "
                         "copy results back only when needed, initialise arrays on the device (cudaMemsetAsync or "
                         "a kernel) instead of copying them in, and batch many small copies into one."));
}

void gd_rule_pageable(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0) || r->pageable.count == 0)
        return;
    double per_step = r->pageable.time_us / (double)r->step_count;
    double s = gd_steady_share(r, per_step / r->avg_step_us);
    if (!(s >= GD_PAGEABLE_SHARE_MIN))
        return;
    double gain = s * 0.5;
    gpudiag_finding *f = rf_add(b, GD_F_pageable_memcpy, sev_for_share(gain), gain);
    gd_fb_ev(f, "pageable_copy_share", s);
    gd_fb_ev(f, "pageable_copies_per_step", (double)r->pageable.count / (double)r->step_count);
    gd_fb_ev(f, "pageable_bytes_per_step", r->pageable.bytes / (double)r->step_count);
    gd_fb_ev(f, "pageable_copy_us_per_step", per_step);
    double copies = (double)r->pageable.count / (double)r->step_count;
    char cs[32];
    gd_fb_text(b, f,
         gd_format("Copies from or to pageable host memory take %.1f%% of each step (%s cop%s per step); they are "
                   "staged through a bounce buffer and block the host",
                   100.0 * s, gd_format_per_step(cs, sizeof cs, copies), copies == 1 ? "y" : "ies"),
         rf_pytorch(b)
             ? gd_format("Use pinned memory: DataLoader(pin_memory=True) and tensor.to(device, non_blocking=True) for "
                         "inputs; for results copied back, copy into a preallocated pinned tensor "
                         "(torch.empty(..., pin_memory=True).copy_(x, non_blocking=True)) and wait on a CUDA event "
                         "only when the value is needed. Pinned copies run at full PCIe speed and overlap compute.")
             : gd_format("Use pinned memory: allocate the host buffers with cudaMallocHost (or pin existing ones "
                         "with cudaHostRegister) and copy with cudaMemcpyAsync on a stream, waiting on a CUDA event "
                         "only when the value is needed. Pinned copies run at full PCIe speed and overlap "
                         "compute."));
}
