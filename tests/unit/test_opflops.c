/*
 * FLOPs and minimum bytes of GEMM ops from recorded shapes (model/opflops.c;
 * docs/DEFINITIONS.md "Roofline of the kernels"), and the Nsight Compute CSV
 * reader's arithmetic.  Every expected value is worked out in the comment next
 * to it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpudiag/roofline.h"
#include "model/opflops.h"
#include "test.h"

static gd_op_shapes shapes2(int ra, const int64_t *a, int rb, const int64_t *b, int ta, int pre)
{
    /* pre: inputs before the two matrices (addmm's bias) */
    gd_op_shapes s;
    memset(&s, 0, sizeof s);
    int i = 0;
    for (; i < pre; i++) {
        s.rank[i] = 1;
        s.dim[i][0] = b[rb - 1];
        s.type[i] = (uint8_t)ta;
    }
    s.rank[i] = ra;
    memcpy(s.dim[i], a, (size_t)ra * sizeof *a);
    s.type[i++] = (uint8_t)ta;
    s.rank[i] = rb;
    memcpy(s.dim[i], b, (size_t)rb * sizeof *b);
    s.type[i++] = (uint8_t)ta;
    s.n_in = s.n_types = i;
    return s;
}

#define OP(n) n, strlen(n)

int main(void)
{
    double f, by;
    int elt;
    /* mm [128,64]x[64,32] bf16: 2·128·32·64 = 524,288 FLOPs; (128·64 + 64·32 + 128·32)·2 = 28,672 B */
    {
        int64_t a[] = {128, 64}, b[] = {64, 32};
        gd_op_shapes s = shapes2(2, a, 2, b, GD_ELT_BF16, 0);
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::mm"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 524288, 0);
        ASSERT_NEAR(by, 28672, 0);
        ASSERT_EQ_INT(elt, GD_ELT_BF16);
        /* K mismatch: not counted */
        int64_t c[] = {63, 32};
        s = shapes2(2, a, 2, c, GD_ELT_BF16, 0);
        ASSERT_TRUE(!gd_op_flops_from_shapes(OP("aten::mm"), &s, &f, &by, &elt));
        /* bmm shapes given to mm: not counted */
        int64_t a3[] = {2, 128, 64}, b3[] = {2, 64, 32};
        s = shapes2(3, a3, 3, b3, GD_ELT_BF16, 0);
        ASSERT_TRUE(!gd_op_flops_from_shapes(OP("aten::mm"), &s, &f, &by, &elt));
        /* bmm: 2 × the mm above: 1,048,576 FLOPs, 57,344 B */
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::bmm"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 1048576, 0);
        ASSERT_NEAR(by, 57344, 0);
    }
    /* addmm (bias [32], [128,64], [64,32]) fp32: 524,288 FLOPs; 14,336 elements × 4 = 57,344 B */
    {
        int64_t a[] = {128, 64}, b[] = {64, 32};
        gd_op_shapes s = shapes2(2, a, 2, b, GD_ELT_F32, 1);
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::addmm"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 524288, 0);
        ASSERT_NEAR(by, 57344, 0);
        ASSERT_EQ_INT(elt, GD_ELT_F32);
    }
    /* linear x [4,8,64], weight [32,64] fp16: M = 32, N = 32, K = 64 -> 2·32·32·64 = 131,072 FLOPs;
     * x 2048 + W 2048 + out 1024 = 5120 elements × 2 = 10,240 B */
    {
        int64_t x[] = {4, 8, 64}, w[] = {32, 64};
        gd_op_shapes s = shapes2(3, x, 2, w, GD_ELT_F16, 0);
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::linear"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 131072, 0);
        ASSERT_NEAR(by, 10240, 0);
    }
    /* weight sides and the LoRA adapter shape (DEFINITIONS "LoRA adapters"): linear x [512,4096],
     * W [16,4096] is K 4096 x N 16 (width -> rank 16); W [4096,16] on x [512,16] is K 16 x N 4096;
     * mm [32,2048] x [2048,1000] (a classifier's weight gradient shape) is K 2048 x N 1000: no adapter,
     * and mm is never a weight */
    {
        gd_gemm_shape g;
        int64_t x[] = {512, 4096}, wa[] = {16, 4096}, xb[] = {512, 16}, wb[] = {4096, 16};
        gd_op_shapes s = shapes2(2, x, 2, wa, GD_ELT_BF16, 0);
        ASSERT_TRUE(gd_op_gemm_from_shapes(OP("aten::linear"), &s, &g));
        ASSERT_EQ_INT((int)g.k, 4096);
        ASSERT_EQ_INT((int)g.n, 16);
        ASSERT_EQ_INT(g.weight, 1);
        ASSERT_NEAR(g.flops, 2.0 * 512 * 16 * 4096, 0);
        ASSERT_EQ_INT(gd_adapter_rank(g.k, g.n), 16);
        s = shapes2(2, xb, 2, wb, GD_ELT_BF16, 0);
        ASSERT_TRUE(gd_op_gemm_from_shapes(OP("aten::linear"), &s, &g));
        ASSERT_EQ_INT((int)g.k, 16);
        ASSERT_EQ_INT((int)g.n, 4096);
        ASSERT_EQ_INT(gd_adapter_rank(g.k, g.n), 16);
        int64_t ga[] = {32, 2048}, gb[] = {2048, 1000};
        s = shapes2(2, ga, 2, gb, GD_ELT_F32, 0);
        ASSERT_TRUE(gd_op_gemm_from_shapes(OP("aten::mm"), &s, &g));
        ASSERT_EQ_INT(g.weight, 0);
        ASSERT_EQ_INT(gd_adapter_rank(g.k, g.n), 0);
        ASSERT_EQ_INT(gd_adapter_rank(64, 1024), 64);
        ASSERT_EQ_INT(gd_adapter_rank(65, 1024), 0);
        ASSERT_EQ_INT(gd_adapter_rank(64, 1023), 0);
        ASSERT_EQ_INT(gd_adapter_rank(0, 4096), 0);
    }
    /* matmul broadcast: [5,1,16,8] @ [3,8,4] -> batch 5·3 = 15: 2·15·16·4·8 = 15,360 FLOPs;
     * A 5·16·8 = 640, B 3·8·4 = 96, C 15·16·4 = 960 -> 1696 elements × 4 = 6,784 B */
    {
        int64_t a[] = {5, 1, 16, 8}, b[] = {3, 8, 4};
        gd_op_shapes s = shapes2(4, a, 3, b, GD_ELT_F32, 0);
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::matmul"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 15360, 0);
        ASSERT_NEAR(by, 6784, 0);
        /* vector @ matrix: [8] @ [8,4] -> 2·4·8 = 64 FLOPs, (8 + 32 + 4)·4 = 176 B */
        int64_t v[] = {8}, m[] = {8, 4};
        s = shapes2(1, v, 2, m, GD_ELT_F32, 0);
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::matmul"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 64, 0);
        ASSERT_NEAR(by, 176, 0);
        /* batch dims that do not broadcast (5 vs 3): not counted */
        int64_t a2[] = {5, 16, 8}, b2[] = {3, 8, 4};
        s = shapes2(3, a2, 3, b2, GD_ELT_F32, 0);
        ASSERT_TRUE(!gd_op_flops_from_shapes(OP("aten::matmul"), &s, &f, &by, &elt));
    }
    /* unknown element type: FLOPs, no bytes; other ops: not counted */
    {
        int64_t a[] = {2, 3}, b[] = {3, 4};
        gd_op_shapes s = shapes2(2, a, 2, b, GD_ELT_OTHER, 0);
        ASSERT_TRUE(gd_op_flops_from_shapes(OP("aten::mm"), &s, &f, &by, &elt));
        ASSERT_NEAR(f, 48, 0);
        ASSERT_TRUE(isnan(by));
        ASSERT_TRUE(!gd_op_flops_from_shapes(OP("aten::conv2d"), &s, &f, &by, &elt));
        ASSERT_TRUE(!gd_op_flops_from_shapes(OP("aten::mmx"), &s, &f, &by, &elt));
    }
    ASSERT_EQ_INT(gd_elt_from_name(OP("c10::BFloat16")), GD_ELT_BF16);
    ASSERT_EQ_INT(gd_elt_from_name(OP("c10::Float8_e4m3fn")), GD_ELT_F8);
    ASSERT_EQ_INT(gd_elt_from_name(OP("Scalar")), GD_ELT_OTHER);
    /* the CSV reader: the hand-made sample (tests/data/ncu/SOURCES.md) */
    {
        gpudiag_ncu *n = NULL;
        gpudiag_error err;
        ASSERT_EQ_INT(gpudiag_ncu_read(GD_TEST_DATA "/ncu/roofline_h100.csv", &n, &err), GPUDIAG_OK);
        ASSERT_EQ_INT(n->count, 4);
        ASSERT_EQ_INT(n->kernels[0].id, 0);
        ASSERT_NEAR(n->kernels[0].flops_fp32, 16777216, 0); /* 2 × ffma 8,388,608 */
        ASSERT_NEAR(n->kernels[0].bytes, 4.5e6, 1e-6);      /* 4.50 Mbyte */
        ASSERT_NEAR(n->kernels[0].time_us, 12.54, 1e-9);    /* usecond */
        ASSERT_NEAR(n->kernels[3].flops_fp16, 7340032, 0);  /* 2,097,152 + 1,048,576 + 2·2,097,152 */
        ASSERT_NEAR(n->kernels[3].flops_fp32, 0, 0);
        gpudiag_ncu_free(&n);
        ASSERT_TRUE(n == NULL);
        ASSERT_EQ_INT(gpudiag_ncu_read(GD_TEST_DATA "/ncu/bad_number.csv", &n, &err), GPUDIAG_ERR_FORMAT);
        ASSERT_TRUE(strstr(err.message, "line 4:") != NULL);
        ASSERT_TRUE(n == NULL);
    }
    printf("test_opflops: %d checks passed\n", gd_test_count);
    return 0;
}
