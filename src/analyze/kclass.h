/*
 * kclass.h — kernel classification by name (docs/DEFINITIONS.md §Kernels).
 */
#ifndef GD_ANALYZE_KCLASS_H
#define GD_ANALYZE_KCLASS_H

#include <stddef.h>

#include "gpudiag/gpudiag.h"

/* Class of a kernel from its (demangled) name. */
gpudiag_kernel_class gd_kernel_class(const char *name, size_t len);

/* 1 if the name marks a kernel that runs on Tensor Cores (TBP's PyProf list
 * plus Ampere/Hopper/Blackwell and AMD MFMA patterns). */
int gd_kernel_uses_tensor_cores(const char *name, size_t len);

/* 1 for HTA's COMMUNICATION class: names starting with nccl/rccl (any case of
 * "nccl" at the start) or containing "ncclKernel"/"ncclDevKernel". */
int gd_kernel_is_comm(const char *name, size_t len);

/* 1 for HTA's COMPUTATION class: a kernel that is not communication, memory
 * or synchronisation by name. */
int gd_kernel_is_compute(const char *name, size_t len);

#endif
