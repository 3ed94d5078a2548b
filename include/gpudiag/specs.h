/*
 * specs.h — the built-in GPU table (data/gpu_specs.csv, compiled into the
 * library) and how a GPU name from NVML, nvidia-smi or a trace is matched
 * to one of its rows.
 *
 * Units: TFLOPS = 1e12 FLOP/s (TOPS for int8), GB/s = 1e9 B/s, memory in the
 * vendor's "GB" label (80 for an "80 GB" part), power in W.  Peaks are dense
 * (no 2:4 sparsity); FP16/BF16/FP8 are tensor-core rates with FP32 accumulate
 * (what PyTorch uses; half the FP16-accumulate figure on GeForce cards).
 * Unknown or unsupported values are NaN, never 0.  Sources are in each row's
 * `source` text; the facts and their provenance are in
 * ../shared/docs/reference/mfu-and-memory.md.
 *
 * The table is immutable and lives for the whole process: every pointer
 * returned here is static and must not be freed.  All functions are
 * thread-safe (the compiled-in CSV is parsed once, on first use).
 */
#ifndef GPUDIAG_SPECS_H
#define GPUDIAG_SPECS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number formats with a peak in the table. */
typedef enum gpudiag_dtype {
    GPUDIAG_DTYPE_FP64 = 0, /**< vector (non-tensor) FP64 */
    GPUDIAG_DTYPE_FP32,     /**< vector (non-tensor) FP32: the CUDA-core rate */
    GPUDIAG_DTYPE_TF32,     /**< tensor TF32, dense */
    GPUDIAG_DTYPE_FP16,     /**< tensor FP16 with FP32 accumulate, dense */
    GPUDIAG_DTYPE_BF16,     /**< tensor BF16 with FP32 accumulate, dense */
    GPUDIAG_DTYPE_FP8,      /**< tensor FP8 with FP32 accumulate, dense */
    GPUDIAG_DTYPE_INT8,     /**< tensor INT8, dense (TOPS) */
    GPUDIAG_DTYPE_COUNT
} gpudiag_dtype;

/** "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"; "?" out of range. */
const char *gpudiag_dtype_name(gpudiag_dtype dt);

/** Parse a dtype name (case-insensitive; "float16"/"half" and "bfloat16" are
 *  accepted too).  Returns 0 and sets *out, or -1 for an unknown name. */
int gpudiag_dtype_parse(const char *name, gpudiag_dtype *out);

/** One row of data/gpu_specs.csv.  All strings are static. */
typedef struct gpudiag_gpu_spec {
    const char *name;             /**< name_pattern: the name NVML / torch report */
    const char *vendor;           /**< "NVIDIA" or "AMD" */
    const char *arch;             /**< e.g. "Hopper (GH100)" */
    const char *compute_capability; /**< "9.0"; the gfx target on AMD ("gfx90a") */
    int sm_count;                 /**< SMs (NVIDIA) or CUs (AMD); 0 if unknown */
    double boost_clock_mhz;
    double mem_gb;                /**< vendor GB label */
    double mem_bw_gbs;            /**< HBM/GDDR bandwidth, GB/s */
    double peak_tflops[GPUDIAG_DTYPE_COUNT]; /**< dense peak per dtype; NaN = unsupported/unknown */
    int pcie_gen;                 /**< 0 if none (NVLink-C2C parts) or unknown */
    double pcie_bw_gbs_per_dir;   /**< theoretical x16 rate per direction, GB/s; NaN if none */
    double nvlink_bw_gbs_total;   /**< GPU-GPU link, both directions summed; 0 = none (AMD: Infinity Fabric) */
    double tdp_w;
    const char *source;           /**< where every number comes from */
    int uncertain;                /**< 1 when the source says UNCERTAIN: show the row as such */
    double fp32_matrix_tflops;    /**< AMD: dense FP32 peak of the Matrix Cores (MFMA, e.g. v_mfma_f32_16x16x4f32),
                                       TFLOP/s, from AMD's data sheets (CDNA2: twice the FP32 vector rate, 256 FLOP
                                       per clock per CU); NaN when the GPU has none or it is not published (NVIDIA
                                       runs FP32 GEMMs on Tensor Cores as TF32: peak_tflops[TF32]).  CSV column
                                       fp32_matrix_tflops_dense, optional */
} gpudiag_gpu_spec;

/** Rows in the table (45 in this version). */
size_t gpudiag_gpu_count(void);

/** Row i (0-based, in CSV order), or NULL when i is out of range. */
const gpudiag_gpu_spec *gpudiag_gpu_at(size_t i);

/**
 * Find a GPU by name, as a user types it or a tool reports it.
 *
 * 1. Exact match with a row's name, ignoring case and repeated spaces.
 * 2. Otherwise the name is split into tokens at spaces, '-', '_' and '/', and
 *    the vendor words (nvidia, tesla, geforce, amd, instinct) are dropped.  A
 *    row is a candidate when every token of the query is a whole token of the
 *    row's name: "L4" matches "NVIDIA L4" only, never "L40S"; "H200 NVL" never
 *    matches "NVIDIA H200".  Among the candidates the one with the fewest
 *    extra tokens wins ("H200" → "NVIDIA H200", not "NVIDIA H200 NVL"); a tie
 *    is ambiguous and returns NULL ("A100 80GB" could be PCIe or SXM4).
 *
 * Rows sharing one name (the two "AMD Instinct MI250X/MI250" GCD rows) are
 * returned as the first (MI250X GCD); gpudiag_gpu_identify() tells them apart.
 * Returns NULL for NULL, an empty, an unknown or an ambiguous name.
 */
const gpudiag_gpu_spec *gpudiag_gpu_find(const char *name);

/** Every row whose name holds all the whole tokens of `name` (the rule of
 *  gpudiag_gpu_find() step 2, without the fewest-extras choice), in table
 *  order: the choices to show when a name is ambiguous.  Writes up to max
 *  pointers to out (may be NULL with max 0); returns how many rows match. */
size_t gpudiag_gpu_candidates(const char *name, const gpudiag_gpu_spec **out, size_t max);

/** How gpudiag_gpu_identify() matched (for the report's wording). */
typedef enum gpudiag_gpu_match {
    GPUDIAG_GPU_MATCH_NONE = 0,  /**< not identified */
    GPUDIAG_GPU_MATCH_EXACT,     /**< the name equals a row's name */
    GPUDIAG_GPU_MATCH_NAME,      /**< whole-token name rule (gpudiag_gpu_find step 2) */
    GPUDIAG_GPU_MATCH_HARDWARE   /**< by SM/CU count and memory size among the name's candidates
                                      (or, on AMD, among all AMD rows) */
} gpudiag_gpu_match;

/** "none", "exact", "name", "hardware". */
const char *gpudiag_gpu_match_name(gpudiag_gpu_match m);

/**
 * Identify the GPU a trace (deviceProperties) or NVML describes.
 *
 * name:            as reported; may be NULL or "" (then only the hardware rule runs).
 * num_sms:         SMs or CUs; 0 if unknown.
 * warp_size:       32 (NVIDIA), 64 (AMD); 0 if unknown.
 * total_mem_bytes: device memory in bytes (torch's totalGlobalMem); NaN or <= 0 if unknown.
 * how:             optional; receives how the row was matched.
 *
 * Exact name first.  Rows sharing that name (the MI250X/MI250 GCDs) are then
 * told apart by SM/CU count.  Otherwise the whole-token rule of
 * gpudiag_gpu_find() gives candidates, and the ones whose SM count equals
 * num_sms and whose memory label is within 10 % of total_mem_bytes (counted in
 * GiB, as drivers report a little less than the label) are kept; one left wins.
 * AMD devices (warp size 64, or an "AMD" name) that no name matches — ROCm
 * often reports "AMD Radeon Graphics" — are matched by CU count among the AMD
 * rows, then by memory: 104 CUs and 64 GB is one GCD of an MI250 (each GCD is
 * its own device; the MI210 has the same shape and rates within 0.1 %).
 * Returns NULL when nothing, or more than one row, fits.
 */
const gpudiag_gpu_spec *gpudiag_gpu_identify(const char *name, int num_sms, int warp_size, double total_mem_bytes,
                                             gpudiag_gpu_match *how);

/**
 * Ridge point of the roofline: peak FLOP/s ÷ memory bytes/s, in FLOP per byte
 * (Williams et al. 2009).  Kernels with a lower arithmetic intensity are
 * memory-bound.  peak_tflops / mem_bw_gbs override the row when > 0 (pass NaN
 * or 0 to use the row's); spec may be NULL when both overrides are given.
 * NaN when the dtype has no peak or the bandwidth is unknown.
 */
double gpudiag_gpu_ridge(const gpudiag_gpu_spec *spec, gpudiag_dtype dt, double peak_tflops, double mem_bw_gbs);

/**
 * The NVIDIA architecture a kernel name says it was built for (docs/DEFINITIONS.md "GPU
 * metrics", architecture inferred from kernel names).  This is the one place that maps names
 * to architectures.
 *
 * name, len: the kernel name as recorded (not NUL-terminated; len bytes).
 * major, minor: receive the compute capability of the tag (e.g. 8, 0 for `sm80_xmma_gemm...`
 *               or `ampere_sgemm...`); left unchanged when the name has no tag.  May be NULL.
 *
 * A tag is a whole word (a maximal run of ASCII letters and digits, compared case-
 * insensitively): maxwell (5.0), pascal (6.0), volta (7.0), turing (7.5), ampere (8.0),
 * hopper (9.0), blackwell (10.0); smXY / smXYZ with an optional a or f suffix; or the word sm
 * or cutlass followed by a word of digits ("sm_80", "cutlass_80_tensorop").  A number tag counts
 * only when it is a real compute capability (5.0 ... 12.1).  When a name holds several tags the
 * highest wins.  "ada" is not a tag (a common part of other words); Ada kernels say sm89.
 *
 * Returns the family name ("Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper",
 * "Blackwell"; static, do not free), or NULL when the name carries no tag.  Thread-safe.
 */
const char *gpudiag_arch_family(const char *name, size_t len, int *major, int *minor);

/** The family name of an NVIDIA compute capability: 5.x "Maxwell", 6.x "Pascal", 7.0/7.2 "Volta",
 *  7.5 "Turing", 8.0-8.7 "Ampere", 8.9 "Ada", 9.x "Hopper", 10.x-12.x "Blackwell"; NULL when
 *  major is below 5 or unknown (< 0) or above 12.  Static string. */
const char *gpudiag_arch_name(int major, int minor);

/**
 * The number formats an NVIDIA GPU of compute capability major.minor runs on Tensor Cores, as a
 * bit set: bit (1u << GPUDIAG_DTYPE_x) for each.  From NVIDIA's architecture whitepapers:
 * 7.0 FP16; 7.2 and 7.5 FP16, INT8; 8.0-8.7 TF32, FP16, BF16, INT8; 8.9 and 9.0 and later also
 * FP8.  0 below 7.0 (no Tensor Cores) and when major < 0 (unknown).  AMD's Matrix Cores are not
 * covered (pass an NVIDIA capability only).
 */
unsigned gpudiag_tensor_core_dtypes(int major, int minor);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_SPECS_H */
