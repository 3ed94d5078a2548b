/*
 * test_specs.c — the compiled-in GPU table and the name rules.  Expected
 * values are read off data/gpu_specs.csv by hand (and ridge points computed
 * by hand: peak TFLOP/s × 1000 / GB/s); tests/cli/test_specs.sh compares every
 * row with Python's csv module.
 */
#include <math.h>
#include <string.h>

#include "gpudiag/specs.h"
#include "model/specs_internal.h"
#include "test.h"

static const char *find_name(const char *q)
{
    const gpudiag_gpu_spec *g = gpudiag_gpu_find(q);
    return g ? g->name : "(null)";
}

static void test_table(void)
{
    ASSERT_EQ_INT(gd_specs_load_error(), 0);
    ASSERT_EQ_INT(gpudiag_gpu_count(), 45);
    const gpudiag_gpu_spec *g = gpudiag_gpu_at(0);
    ASSERT_STR_EQ(g->name, "Tesla V100-SXM2-16GB");
    ASSERT_NAN(g->peak_tflops[GPUDIAG_DTYPE_BF16]); /* Volta: no BF16 */
    ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_FP16], 125, 0);
    ASSERT_EQ_INT(g->pcie_gen, 3);
    ASSERT_TRUE(gpudiag_gpu_at(45) == NULL);
    g = gpudiag_gpu_find("NVIDIA H100 80GB HBM3");
    ASSERT_TRUE(g != NULL);
    ASSERT_EQ_INT(g->sm_count, 132);
    ASSERT_NEAR(g->mem_bw_gbs, 3350, 0);
    ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_BF16], 989.4, 0);
    ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_FP8], 1978.9, 0);
    ASSERT_NEAR(g->pcie_bw_gbs_per_dir, 63.0, 0);
    ASSERT_NEAR(g->nvlink_bw_gbs_total, 900, 0);
    ASSERT_NEAR(g->tdp_w, 700, 0);
    ASSERT_EQ_INT(g->uncertain, 0);
    ASSERT_TRUE(strstr(g->source, "H100 datasheet") != NULL);
    /* the rows the reference lists as uncertain */
    const char *unc[] = {"NVIDIA A10G", "NVIDIA RTX 6000 Ada Generation", "NVIDIA GeForce RTX 5090", "NVIDIA H20",
                         "NVIDIA H800 PCIe", "NVIDIA B100", "NVIDIA H100", "Tesla V100-DGXS-32GB"};
    for (size_t i = 0; i < sizeof unc / sizeof unc[0]; i++) {
        g = gpudiag_gpu_find(unc[i]);
        ASSERT_TRUE(g != NULL);
        ASSERT_STR_EQ(g->name, unc[i]);
        ASSERT_EQ_INT(g->uncertain, 1);
    }
    /* GH200 has no PCIe hop: empty cells are unknown, not 0 */
    g = gpudiag_gpu_find("NVIDIA GH200 480GB");
    ASSERT_EQ_INT(g->pcie_gen, 0);
    ASSERT_NAN(g->pcie_bw_gbs_per_dir);
}

static void test_find(void)
{
    ASSERT_STR_EQ(find_name("L4"), "NVIDIA L4");
    ASSERT_STR_EQ(find_name("l40s"), "NVIDIA L40S");
    ASSERT_STR_EQ(find_name("L40"), "NVIDIA L40");
    ASSERT_STR_EQ(find_name("H200"), "NVIDIA H200");
    ASSERT_STR_EQ(find_name("H200 NVL"), "NVIDIA H200 NVL");
    ASSERT_STR_EQ(find_name("NVIDIA  H200   NVL "), "NVIDIA H200 NVL");
    ASSERT_STR_EQ(find_name("nvidia h100 nvl"), "NVIDIA H100 NVL");
    ASSERT_STR_EQ(find_name("RTX 4090"), "NVIDIA GeForce RTX 4090");
    ASSERT_STR_EQ(find_name("4090"), "NVIDIA GeForce RTX 4090");
    ASSERT_STR_EQ(find_name("A100-SXM4-80GB"), "NVIDIA A100-SXM4-80GB");
    ASSERT_STR_EQ(find_name("MI300X"), "AMD Instinct MI300X");
    ASSERT_STR_EQ(find_name("V100-SXM2-16GB"), "Tesla V100-SXM2-16GB");
    ASSERT_STR_EQ(find_name("A100 80GB"), "(null)"); /* PCIe or SXM4: ambiguous */
    ASSERT_STR_EQ(find_name("A100"), "(null)");
    ASSERT_STR_EQ(find_name("L"), "(null)");
    ASSERT_STR_EQ(find_name("H2"), "(null)");
    ASSERT_STR_EQ(find_name("NVIDIA"), "(null)");
    ASSERT_STR_EQ(find_name(""), "(null)");
    ASSERT_TRUE(gpudiag_gpu_find(NULL) == NULL);
    const gpudiag_gpu_spec *c[8];
    ASSERT_EQ_INT(gpudiag_gpu_candidates("A100 80GB", c, 8), 2);
    ASSERT_STR_EQ(c[0]->name, "NVIDIA A100 80GB PCIe");
    ASSERT_STR_EQ(c[1]->name, "NVIDIA A100-SXM4-80GB");
    ASSERT_EQ_INT(gpudiag_gpu_candidates("H200", c, 8), 2);
}

static void test_identify(void)
{
    gpudiag_gpu_match how;
    const gpudiag_gpu_spec *g;
    /* as the shared traces report them */
    g = gpudiag_gpu_identify("NVIDIA A100-PG509-200", 108, 32, 42505273344.0, &how);
    ASSERT_STR_EQ(g->name, "NVIDIA A100-PG509-200");
    ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_EXACT);
    g = gpudiag_gpu_identify("Tesla V100-DGXS-32GB", 80, 32, 34084028416.0, &how);
    ASSERT_STR_EQ(g->name, "Tesla V100-DGXS-32GB");
    ASSERT_EQ_INT(g->uncertain, 1);
    /* ROCm's generic name: 104 CUs, 64 GiB -> one GCD of an MI250 */
    g = gpudiag_gpu_identify("AMD Radeon Graphics", 104, 64, 68702699520.0, &how);
    ASSERT_TRUE(g != NULL);
    ASSERT_STR_EQ(g->name, "AMD Instinct MI250X/MI250");
    ASSERT_EQ_INT(g->sm_count, 104);
    ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_BF16], 181.05, 0);
    ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_HARDWARE);
    /* the shared name, told apart by CU count */
    g = gpudiag_gpu_identify("AMD Instinct MI250X/MI250", 110, 64, NAN, &how);
    ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_BF16], 191.5, 0);
    ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_EXACT);
    g = gpudiag_gpu_identify("AMD Instinct MI250X/MI250", 104, 64, NAN, &how);
    ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_BF16], 181.05, 0);
    ASSERT_TRUE(gpudiag_gpu_identify("AMD Instinct MI250X/MI250", 0, 64, NAN, &how) == NULL);
    /* which part, and what else fits (DEFINITIONS "GPU table"): 104 CUs and 64 GiB are one GCD of an
     * MI250 (2 x 104 CUs; an MI250X GCD has 110) and an MI210 (104 CUs, 64 GB) alike, with the same
     * peaks (181 / 181.05 TFLOP/s bf16, 1638.4 GB/s) */
    {
        char part[128];
        const gpudiag_gpu_spec *also[4];
        g = gpudiag_gpu_identify("AMD Radeon Graphics", 104, 64, 68702699520.0, &how);
        ASSERT_STR_EQ(gd_gpu_part_name(g, part, sizeof part), "AMD Instinct MI250, one GCD");
        ASSERT_EQ_INT((int)gd_gpu_also_fits(g, 104, 68702699520.0, also, 4), 1);
        ASSERT_STR_EQ(also[0]->name, "AMD Instinct MI210");
        ASSERT_STR_EQ(gd_gpu_part_name(also[0], part, sizeof part), "AMD Instinct MI210");
        g = gpudiag_gpu_identify("AMD Instinct MI250X/MI250", 110, 64, NAN, &how);
        ASSERT_STR_EQ(gd_gpu_part_name(g, part, sizeof part), "AMD Instinct MI250X, one GCD");
        ASSERT_EQ_INT((int)gd_gpu_also_fits(g, 110, NAN, also, 4), 0);
        /* the name says the 220-CU, 128 GB package but the device has one GCD's 104 CUs and 64 GiB:
         * the hardware decides among the rows with the name's tokens (was: the package's 383 TFLOP/s) */
        g = gpudiag_gpu_identify("AMD Instinct MI250X", 104, 64, 68702699520.0, &how);
        ASSERT_EQ_INT(g->sm_count, 104);
        ASSERT_NEAR(g->peak_tflops[GPUDIAG_DTYPE_BF16], 181.05, 0);
        ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_HARDWARE);
        g = gpudiag_gpu_identify("AMD Instinct MI250X", 220, 64, 128.0 * 1073741824.0, &how);
        ASSERT_EQ_INT(g->sm_count, 220);
        ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_EXACT);
    }
    /* MI300X vs MI325X: same CUs, memory decides */
    g = gpudiag_gpu_identify("", 304, 64, 192.0 * 1073741824.0, &how);
    ASSERT_TRUE(g != NULL);
    ASSERT_STR_EQ(g->name, "AMD Instinct MI300X");
    g = gpudiag_gpu_identify(NULL, 304, 64, 256.0 * 1073741824.0, &how);
    ASSERT_STR_EQ(g->name, "AMD Instinct MI325X");
    /* extra words in the reported name never match a shorter row by name ("H200 NVL" is
     * not "H200"); RunPod's "MI300X OAM" is found by CUs and memory instead */
    g = gpudiag_gpu_identify("AMD Instinct MI300X OAM", 304, 64, 191.5 * 1073741824.0, &how);
    ASSERT_TRUE(g != NULL);
    ASSERT_STR_EQ(g->name, "AMD Instinct MI300X");
    ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_HARDWARE);
    ASSERT_TRUE(gpudiag_gpu_identify("AMD Instinct MI300X OAM", 304, 64, NAN, &how) == NULL);
    g = gpudiag_gpu_identify("MI300X", 304, 64, NAN, &how);
    ASSERT_TRUE(g != NULL);
    ASSERT_STR_EQ(g->name, "AMD Instinct MI300X");
    ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_NAME);
    /* an ambiguous name settled by memory: 80 GB -> SXM4 or PCIe, 108 SMs both: still ambiguous */
    ASSERT_TRUE(gpudiag_gpu_identify("A100 80GB", 108, 32, 84990623744.0, &how) == NULL);
    /* H200 by name with NVL's... the name rule never crosses "NVL" */
    g = gpudiag_gpu_identify("NVIDIA H200 NVL", 132, 32, 150.0e9, &how);
    ASSERT_TRUE(g != NULL);
    ASSERT_STR_EQ(g->name, "NVIDIA H200 NVL");
    ASSERT_TRUE(gpudiag_gpu_identify("NVIDIA H200 NVL PCIe", 132, 32, 150.0e9, &how) == NULL);
    /* a name's single candidate whose SM count disagrees is not taken */
    ASSERT_TRUE(gpudiag_gpu_identify("L4", 142, 32, NAN, &how) == NULL);
    /* NVIDIA hardware alone is never guessed */
    ASSERT_TRUE(gpudiag_gpu_identify("NVIDIA Graphics Device", 132, 32, 85e9, &how) == NULL);
    ASSERT_EQ_INT(how, GPUDIAG_GPU_MATCH_NONE);
}

static void test_ridge(void)
{
    const gpudiag_gpu_spec *g = gpudiag_gpu_find("NVIDIA A100-SXM4-80GB");
    ASSERT_NEAR(gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_BF16, NAN, NAN), 312000.0 / 2039.0, 1e-9);
    ASSERT_NEAR(gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_TF32, NAN, NAN), 156000.0 / 2039.0, 1e-9);
    ASSERT_NAN(gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_FP8, NAN, NAN)); /* Ampere: no FP8 */
    ASSERT_NEAR(gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_BF16, 300, 2000), 150, 1e-9);
    ASSERT_NEAR(gpudiag_gpu_ridge(NULL, GPUDIAG_DTYPE_BF16, 100, 1000), 100, 1e-9);
    ASSERT_NAN(gpudiag_gpu_ridge(NULL, GPUDIAG_DTYPE_BF16, 100, NAN));
    g = gpudiag_gpu_find("RTX 4090"); /* the reference's check: 164, not ~80 */
    ASSERT_NEAR(gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_BF16, NAN, NAN), 163.888, 1e-3);
    gpudiag_dtype dt;
    ASSERT_EQ_INT(gpudiag_dtype_parse("BF16", &dt), 0);
    ASSERT_EQ_INT(dt, GPUDIAG_DTYPE_BF16);
    ASSERT_EQ_INT(gpudiag_dtype_parse("bfloat16", &dt), 0);
    ASSERT_EQ_INT(dt, GPUDIAG_DTYPE_BF16);
    ASSERT_EQ_INT(gpudiag_dtype_parse("half", &dt), 0);
    ASSERT_EQ_INT(dt, GPUDIAG_DTYPE_FP16);
    ASSERT_EQ_INT(gpudiag_dtype_parse("fp4", &dt), -1);
}

static void test_parser(void)
{
    gpudiag_gpu_spec rows[4];
    size_t n, bad;
    const char *hdr = "name_pattern,vendor,arch,compute_capability,sm_count,boost_clock_mhz,mem_gb,mem_bw_gbs,"
                      "fp64_tflops,fp32_tflops,tf32_tensor_tflops_dense,fp16_tensor_tflops_dense,"
                      "bf16_tensor_tflops_dense,fp8_tensor_tflops_dense,int8_tensor_tops_dense,pcie_gen,"
                      "pcie_bw_gbs_per_dir,nvlink_bw_gbs_total,tdp_w,source\n";
    char buf[2048];
    snprintf(buf, sizeof buf, "%sX,NVIDIA,\"A, \"\"B\"\"\",8.0,10,1,2,3,,,,,4,,,4,31.5,0,5,\"UNCERTAIN: x\"\r\n", hdr);
    ASSERT_EQ_INT(gd_specs_parse(buf, strlen(buf), rows, 4, &n, &bad), 0);
    ASSERT_EQ_INT(n, 1);
    ASSERT_STR_EQ(rows[0].arch, "A, \"B\"");
    ASSERT_NEAR(rows[0].peak_tflops[GPUDIAG_DTYPE_BF16], 4, 0);
    ASSERT_NAN(rows[0].peak_tflops[GPUDIAG_DTYPE_FP16]);
    ASSERT_EQ_INT(rows[0].uncertain, 1);
    snprintf(buf, sizeof buf, "%sX,NVIDIA,A,8.0,10,1,2,3,,,,,4,,,4,31.5,0,5,s\nY,NVIDIA,A,8.0,ten,1,2,3,,,,,4,,,4,31.5,0,5,s\n",
             hdr);
    ASSERT_EQ_INT(gd_specs_parse(buf, strlen(buf), rows, 4, &n, &bad), -1);
    ASSERT_EQ_INT(bad, 3); /* "ten" */
    snprintf(buf, sizeof buf, "%sX,NVIDIA,A,8.0\n", hdr);
    ASSERT_EQ_INT(gd_specs_parse(buf, strlen(buf), rows, 4, &n, &bad), -1);
    ASSERT_EQ_INT(bad, 2); /* too few fields */
    snprintf(buf, sizeof buf, "%sX,NVIDIA,\"A,8.0,10,1,2,3,,,,,4,,,4,31.5,0,5,s\n", hdr);
    ASSERT_EQ_INT(gd_specs_parse(buf, strlen(buf), rows, 4, &n, &bad), -1); /* unterminated quote */
    snprintf(buf, sizeof buf, "name,vendor\nX,Y\n");
    ASSERT_EQ_INT(gd_specs_parse(buf, strlen(buf), rows, 4, &n, &bad), -1);
    ASSERT_EQ_INT(bad, 1); /* missing columns */
}

int main(void)
{
    test_table();
    test_find();
    test_identify();
    test_ridge();
    test_parser();
    printf("test_specs: %d checks passed\n", gd_test_count);
    return 0;
}
