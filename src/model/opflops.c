/*
 * opflops.c — FLOPs and minimum bytes of GEMM ops from recorded shapes
 * (opflops.h; docs/DEFINITIONS.md "Roofline of the kernels").
 */
#include <math.h>
#include <string.h>

#include "model/opflops.h"

#define EQ(lit) (len == sizeof(lit) - 1 && memcmp(s, lit, sizeof(lit) - 1) == 0)

int gd_elt_from_name(const char *s, size_t len)
{
    if (len == 0)
        return GD_ELT_UNKNOWN;
    if (EQ("float") || EQ("c10::Float") || EQ("torch.float32"))
        return GD_ELT_F32;
    if (EQ("double") || EQ("torch.float64"))
        return GD_ELT_F64;
    if (EQ("c10::Half") || EQ("torch.float16"))
        return GD_ELT_F16;
    if (EQ("c10::BFloat16") || EQ("torch.bfloat16"))
        return GD_ELT_BF16;
    if (len > 13 && memcmp(s, "c10::Float8_", 12) == 0)
        return GD_ELT_F8;
    if (EQ("signed char") || EQ("torch.int8"))
        return GD_ELT_I8;
    return GD_ELT_OTHER;
}

int gd_elt_size(int elt)
{
    switch (elt) {
    case GD_ELT_F64: return 8;
    case GD_ELT_F32: return 4;
    case GD_ELT_F16:
    case GD_ELT_BF16: return 2;
    case GD_ELT_F8:
    case GD_ELT_I8: return 1;
    default: return 0;
    }
}

const char *gd_elt_name(int elt)
{
    switch (elt) {
    case GD_ELT_F64: return "fp64";
    case GD_ELT_F32: return "fp32";
    case GD_ELT_F16: return "fp16";
    case GD_ELT_BF16: return "bf16";
    case GD_ELT_F8: return "fp8";
    case GD_ELT_I8: return "int8";
    default: return NULL;
    }
}

/* a @ b with torch.matmul's rules: 1-D operands become [1,K] / [K,1], the
 * leading (batch) dims broadcast.  FLOPs 2·batch·M·N·K; bytes read A and B
 * once and write C once.  Returns 0 when the shapes do not fit. */
static int matmul(const int64_t *a, int ra, const int64_t *b, int rb, double *flops, double *elems, int64_t kn[2])
{
    if (ra < 1 || rb < 1 || ra > GD_OPF_MAX_RANK || rb > GD_OPF_MAX_RANK)
        return 0;
    for (int i = 0; i < ra; i++)
        if (a[i] <= 0)
            return 0;
    for (int i = 0; i < rb; i++)
        if (b[i] <= 0)
            return 0;
    double M = ra == 1 ? 1 : (double)a[ra - 2], K = (double)a[ra - 1];
    double K2 = rb == 1 ? (double)b[0] : (double)b[rb - 2], N = rb == 1 ? 1 : (double)b[rb - 1];
    if (K != K2)
        return 0;
    int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0;
    double ba = 1, bb = 1, batch = 1;
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) { /* aligned from the right */
        int64_t da = i < na ? a[na - 1 - i] : 1, db = i < nb ? b[nb - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            return 0;
        ba *= (double)da;
        bb *= (double)db;
        batch *= (double)(da > db ? da : db);
    }
    *flops = 2.0 * batch * M * N * K;
    *elems = ba * M * K + bb * K * N + batch * M * N;
    kn[0] = a[ra - 1];
    kn[1] = rb == 1 ? 1 : b[rb - 1];
    return 1;
}

int gd_adapter_rank(int64_t k, int64_t n)
{
    int64_t lo = k < n ? k : n, hi = k < n ? n : k;
    return lo >= 1 && lo <= GD_ADAPTER_RANK_MAX && hi >= GD_ADAPTER_WIDTH_MIN ? (int)lo : 0;
}

int gd_op_flops_from_shapes(const char *s, size_t len, const gd_op_shapes *sh, double *flops, double *bytes,
                            int *elt)
{
    gd_gemm_shape g;
    if (!gd_op_gemm_from_shapes(s, len, sh, &g))
        return 0;
    *flops = g.flops;
    *bytes = g.bytes;
    *elt = g.elt;
    return 1;
}

int gd_op_gemm_from_shapes(const char *s, size_t len, const gd_op_shapes *sh, gd_gemm_shape *g)
{
    int ia, ib; /* the two matrix operands */
    int need_rank = 0;
    if (EQ("aten::mm")) {
        ia = 0, ib = 1, need_rank = 2;
    } else if (EQ("aten::addmm")) {
        ia = 1, ib = 2, need_rank = 2;
    } else if (EQ("aten::bmm")) {
        ia = 0, ib = 1, need_rank = 3;
    } else if (EQ("aten::baddbmm")) {
        ia = 1, ib = 2, need_rank = 3;
    } else if (EQ("aten::matmul") || EQ("aten::linear")) {
        ia = 0, ib = 1;
    } else {
        return 0;
    }
    if (sh->n_in <= ib || ib >= GD_OPF_MAX_IN)
        return 0;
    int ra = sh->rank[ia], rb = sh->rank[ib];
    if (need_rank && (ra != need_rank || rb != need_rank))
        return 0;
    if (need_rank == 3 && sh->dim[ia][0] != sh->dim[ib][0])
        return 0;
    double f, e;
    int64_t kn[2];
    if (EQ("aten::linear")) {
        /* weight [N, K]: x @ weightᵀ */
        if (rb != 2)
            return 0;
        int64_t wt[2] = {sh->dim[ib][1], sh->dim[ib][0]};
        if (!matmul(sh->dim[ia], ra, wt, 2, &f, &e, kn))
            return 0;
    } else if (!matmul(sh->dim[ia], ra, sh->dim[ib], rb, &f, &e, kn)) {
        return 0;
    }
    int t = ia < sh->n_types && ia < GD_OPF_MAX_IN ? sh->type[ia] : GD_ELT_UNKNOWN;
    int size = gd_elt_size(t);
    g->flops = f;
    g->bytes = size > 0 ? e * size : NAN;
    g->elt = t;
    g->k = kn[0];
    g->n = kn[1];
    g->weight = EQ("aten::linear");
    return 1;
}
