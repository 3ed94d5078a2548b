/*
 * opflops.h — FLOPs and minimum memory traffic of one framework op from the
 * shapes the PyTorch profiler recorded (`record_shapes=True`: args "Input Dims"
 * and "Input type"), or from its `flops` arg (`with_flops=True`).
 * Definitions: docs/DEFINITIONS.md "Roofline of the kernels".
 *
 * The Kineto reader fills a gd_op_shapes per cpu_op while it parses, and keeps
 * one gd_op_flops (64 bytes) per op that it could count; the roofline analysis
 * (analyze/roofline.c) joins them to the kernels they launched.
 */
#ifndef GD_MODEL_OPFLOPS_H
#define GD_MODEL_OPFLOPS_H

#include <stddef.h>
#include <stdint.h>

#define GD_OPF_MAX_IN 8    /* inputs whose shapes are kept */
#define GD_OPF_MAX_RANK 6  /* dims kept per input */

/* Element types named in "Input type". */
enum gd_elt {
    GD_ELT_UNKNOWN = 0, /* not recorded */
    GD_ELT_F64,         /* "double" */
    GD_ELT_F32,         /* "float" */
    GD_ELT_F16,         /* "c10::Half" */
    GD_ELT_BF16,        /* "c10::BFloat16" */
    GD_ELT_F8,          /* "c10::Float8_e4m3fn", "c10::Float8_e5m2", ... */
    GD_ELT_I8,          /* "signed char" */
    GD_ELT_OTHER        /* Scalar, GenericList, Int, Bool, long int, ... */
};

/* The shapes of one op as read: n_in inputs (all counted, the first
 * GD_OPF_MAX_IN kept), rank[i] dims each (the first GD_OPF_MAX_RANK kept). */
typedef struct gd_op_shapes {
    int n_in;
    int n_types;
    int rank[GD_OPF_MAX_IN];
    int64_t dim[GD_OPF_MAX_IN][GD_OPF_MAX_RANK];
    uint8_t type[GD_OPF_MAX_IN]; /* enum gd_elt */
} gd_op_shapes;

enum gd_opf_source { GD_OPF_SHAPES = 1, GD_OPF_FLOPS_ARG = 2 };

/* One counted op. */
typedef struct gd_op_flops {
    int64_t ts_ns, dur_ns;  /* the op's span on its thread: a kernel belongs to the innermost
                               counted op whose span holds its launch call */
    int32_t tid;
    int32_t inner;          /* 1: another counted op runs inside this one (linear holding
                               addmm): not joined, so FLOPs count once */
    int64_t external_id;
    double flops;      /* FLOPs of one call */
    double bytes;      /* minimum bytes moved (GEMM shapes); NaN when unknown */
    uint8_t elt;       /* enum gd_elt of the first matrix operand */
    uint8_t source;    /* enum gd_opf_source */
    uint8_t adapter_rank; /* aten::linear with an adapter-shaped weight (gd_adapter_rank): its rank r, 0 if not */
    uint8_t adapter_up;   /* 1: r -> width (LoRA's B, K = r); 0: width -> r (LoRA's A, N = r) */
    uint8_t pad[4];
} gd_op_flops;

/* The gd_elt of an "Input type" string. */
int gd_elt_from_name(const char *s, size_t len);

/* Bytes per element of a gd_elt; 0 when unknown. */
int gd_elt_size(int elt);

/* "fp64", "fp32", "fp16", "bf16", "fp8", "int8", or NULL. */
const char *gd_elt_name(int elt);

/*
 * FLOPs and minimum bytes of a GEMM op from its shapes: aten::mm, aten::addmm,
 * aten::bmm, aten::baddbmm, aten::matmul, aten::linear (docs/DEFINITIONS.md).
 * Returns 1 and fills *flops, *bytes (NaN when the element type is unknown)
 * and *elt; 0 when the op is not one of those or its shapes do not fit.
 */
int gd_op_flops_from_shapes(const char *s, size_t len, const gd_op_shapes *sh, double *flops, double *bytes,
                            int *elt);

/* A GEMM op as its shapes give it: FLOPs, minimum bytes, element type, and the
 * K × N sides of its second operand (the weight; aten::linear's transposed). */
typedef struct gd_gemm_shape {
    double flops, bytes; /* as gd_op_flops_from_shapes */
    int elt;
    int64_t k, n;
    int weight; /* 1: the second operand is a layer's weight (aten::linear), not an activation */
} gd_gemm_shape;

/* gd_op_flops_from_shapes with the weight's sides: 1 and *g filled, or 0. */
int gd_op_gemm_from_shapes(const char *s, size_t len, const gd_op_shapes *sh, gd_gemm_shape *g);

/* LoRA adapter shape (docs/DEFINITIONS.md "LoRA adapters"): one side of the
 * K × N weight <= GD_ADAPTER_RANK_MAX, the other >= GD_ADAPTER_WIDTH_MIN. */
#define GD_ADAPTER_RANK_MAX 64
#define GD_ADAPTER_WIDTH_MIN 1024

/* The adapter rank (the small side, 1..GD_ADAPTER_RANK_MAX) of a K × N weight, or 0 when it is not
 * adapter-shaped. */
int gd_adapter_rank(int64_t k, int64_t n);

#endif
