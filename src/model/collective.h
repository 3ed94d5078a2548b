/*
 * collective.h — which collective a communication kernel runs, in one place for
 * every reader and analysis (docs/DEFINITIONS.md "Communication", collective kinds).
 *
 * A NCCL/RCCL kernel name is only a hint: NCCL 2.12–2.13 names every collective
 * kernel SendRecv (NVIDIA/nccl#714), all-to-all runs on SendRecv kernels, one
 * kernel can run several grouped operations, and ncclDevKernel_Generic says
 * nothing.  So the kind is taken, first match:
 *   1. from the kernel's own args ("Collective name", PyTorch ≥ 2.1);
 *   2. from the host call that launched it: the host op with the kernel's
 *      External id, else the innermost host call on the launch call's thread
 *      whose span holds the launch call (joined by correlation) — `nccl:*`,
 *      `gloo:*`, `c10d::*`, `record_param_comms` with its "Collective name",
 *      NCCL's own NVTX ranges (`ncclAllReduce`), MPI calls (`MPI_Allreduce`);
 *   3. from the kernel name, where it names one (AllReduce, AllGather, ...);
 *      SendRecv / Send / Recv / Generic kernels are `unknown`.
 * The join uses ids and spans, never the order of the events in the file, so a
 * trace cut short gives the same answer for every kernel whose launching call
 * it still holds.
 */
#ifndef GD_MODEL_COLLECTIVE_H
#define GD_MODEL_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "model/trace.h"

/* Where gd_coll_kind() found the kind. */
enum gd_coll_source { GD_COLL_SRC_ARGS = 0, GD_COLL_SRC_HOST, GD_COLL_SRC_NAME };

/* Kind named by a collective's name as PyTorch writes it in args["Collective name"]
 * ("allreduce", "_allgather_base", "alltoall_base", "reduce_scatter_tensor_coalesced",
 * "send", "recv", "broadcast", "barrier", ...) or by the part of an API / op name after
 * its prefix.  Case and '_' are ignored.  s: len bytes, not NUL-terminated.  Returns the
 * gpudiag_comm_kind, or -1 when the text names no kind ("wait", "init", "coalesced", ""). */
int gd_coll_kind_from_text(const char *s, size_t len);

/* Kind named by a host call's name: "nccl:<name>", "gloo:<name>", "ucc:<name>",
 * "mpi:<name>", "c10d::<name>", NCCL's API / NVTX names "ncclAllReduce", "ncclSend",
 * MPI calls "MPI_Allreduce", "MPI_Irecv", "MPI_Wait" (MPI_Wait*, MPI_Test*, MPI_Barrier:
 * other).  -1 for any other name (record_param_comms: its arg carries the kind). */
int gd_coll_kind_from_host(const char *s, size_t len);

/* 1 when name is an MPI call ("MPI_" prefix, as the MPI standard spells every call;
 * "PMPI_" for the profiling interface). */
int gd_coll_is_mpi(const char *s, size_t len);

/* Kind hinted by a NCCL/RCCL kernel name (case-insensitive, first match): AllReduce,
 * AllGather, ReduceScatter, AllToAll, Broadcast; SendRecv / _Send / _Recv / Generic ->
 * GPUDIAG_COMM_UNKNOWN (they run any collective); anything else GPUDIAG_COMM_OTHER. */
gpudiag_comm_kind gd_coll_kind_from_kernel(const char *s, size_t len);

/* The size in bytes of one element of a PyTorch dtype as record_param_comms writes it
 * in args "dtype" (c10 ScalarType names: "Float" 4, "BFloat16" 2, "Half" 2, "Double" 8,
 * "Long" 8, "Int" 4, "Short" 2, "Char"/"Byte"/"Bool" 1, "Float8_*" 1, "UInt16" 2,
 * "UInt32" 4, "UInt64" 8, "ComplexHalf" 4, "ComplexFloat" 8, "ComplexDouble" 16; the exact
 * spelling).  s: len bytes.  0 for any other name (unknown: no bytes are guessed). */
int gd_coll_dtype_size(const char *s, size_t len);

/* What record_param_comms says of one collective: element counts (-1 unknown), bytes per
 * element (0 unknown), the process group's size (0 unknown). */
typedef struct gd_coll_params {
    int64_t in_nelems, out_nelems;
    int dtype_size;
    int group_size;
} gd_coll_params;

/* The bytes of a collective of kind k, as NCCL-tests counts a collective's size (the
 * larger buffer): all_reduce, broadcast, all_to_all: in_nelems; all_gather: out_nelems
 * (the gathered tensor); reduce_scatter: in_nelems (the tensor scattered); send_recv:
 * the larger of the two (a send names its input, a recv its output); times dtype_size.
 * NaN when k is other or unknown, the count needed or the dtype is unknown, or the
 * product passes 2^53 (DEFINITIONS "Communication", collective bytes). */
double gd_coll_bytes(int k, const gd_coll_params *p);

/* NCCL-tests' bus bandwidth factor of a collective of kind k over n ranks: all_reduce
 * 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; broadcast, send_recv 1.  NaN
 * for other / unknown kinds, or n unknown (< 1) where the factor needs it. */
double gd_coll_bus_factor(int k, int n);

/* Keep a host call (a framework op, annotation, NVTX range or MPI call named name, len
 * bytes) in t->comm_calls when it names a collective: arg_coll (1 + the kind its
 * "Collective name" arg names, 0 if none) first, else its name (gd_coll_kind_from_host).
 * ts_ns/dur_ns: its span in ns on the trace clock; external_id: -1 if absent; tid: its
 * thread; params: its record_param_comms args (NULL: none known).  Returns 0 (kept or not
 * a collective), or -1 when out of memory. */
int gd_trace_note_comm_call(gpudiag_trace *t, const char *name, size_t len, int arg_coll, int64_t ts_ns,
                            int64_t dur_ns, int64_t external_id, int32_t tid, const gd_coll_params *params);

/* Index over t->comm_calls for gd_coll_kind (built once per analysis). */
typedef struct gd_coll_ext {
    int64_t external_id;
    uint32_t idx;          /* into t->comm_calls */
} gd_coll_ext;

typedef struct gd_coll_span {
    int64_t ts_ns;
    int32_t tid;
    uint32_t idx;          /* into t->comm_calls */
} gd_coll_span;

typedef struct gd_coll_join {
    const gpudiag_trace *t;
    gd_coll_ext *by_ext;   /* the calls with an External id, by id (ties: read first) */
    size_t n_ext;
    gd_coll_span *by_tid;  /* every call, by (tid, start) (ties: read first) */
    size_t n_tid;
    int64_t max_dur_ns;    /* the longest call: how far back a span holding ts can start */
} gd_coll_join;

/* Build the index for t (t must outlive j).  Returns 0, or -1 when out of memory (j is
 * then empty and safe to free). */
int gd_coll_join_init(gd_coll_join *j, const gpudiag_trace *t);
void gd_coll_join_free(gd_coll_join *j);

/* 1 when an MPI call on thread tid holds time ts (ns): a runtime call made there is the MPI
 * library's own (CUDA-aware MPI copies and synchronises inside MPI_Send/MPI_Recv). */
int gd_coll_in_mpi(const gd_coll_join *j, int32_t tid, int64_t ts);

/* The kind of communication kernel op (an element of t->gpu_ops) whose launch call is rt
 * (NULL when none is joined).  *source (may be NULL) is set to an enum gd_coll_source. */
gpudiag_comm_kind gd_coll_kind(const gd_coll_join *j, const gd_gpu_op *op, const gd_runtime *rt, int *source);

/* The record_param_comms args of communication kernel op (launch call rt, NULL when none
 * is joined), joined as the kind is: the host call with the kernel's External id when it
 * carries them, else the innermost call carrying them on the launch call's thread whose
 * span holds the launch.  *out: counts -1, sizes 0 when no call carries them. */
void gd_coll_params_of(const gd_coll_join *j, const gd_gpu_op *op, const gd_runtime *rt, gd_coll_params *out);

#endif
