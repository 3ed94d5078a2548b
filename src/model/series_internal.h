/*
 * series_internal.h — library-internal helpers of the series model
 * (src/model/series.c), not part of the public API.
 */
#ifndef GD_MODEL_SERIES_INTERNAL_H
#define GD_MODEL_SERIES_INTERNAL_H

#include <stddef.h>

#include "gpudiag/series.h"

/* Grow GPU `gpu`'s storage to hold at least `cap` samples now, so that a
 * reader that can estimate a log's length fills it without re-copying.
 * A hint: 0 on success or when cap is not larger, -1 when out of memory
 * (the series is unchanged and still valid). */
int gd_series_reserve(gpudiag_series *s, size_t gpu, size_t cap);

/* 1 when metric m is a fraction 0..1 (its unit in the metric table is
 * "fraction": utilisations, activities, the power-violation share), else 0. */
int gd_metric_is_fraction(gpudiag_metric m);

/* The GPUs of a log summary in words, physical GPUs and MIG instances counted apart (DEFINITIONS
 * "Monitoring series", MIG): "1 GPU", "4 GPUs"; "8 GPUs, one split into 3 MIG instances" (a parent
 * counts once whether or not the log has a row of its own: same host and index, or the log's only
 * GPU for an instance that names none); "1 GPU split into 2 MIG instances"; "2 GPUs, one split into 4
 * MIG instances, one with a MIG instance"; "2 GPUs, one with a MIG
 * instance" (one instance is not called a split); "2 GPUs and 3 MIG
 * instances" (some instances name no GPU); "3 MIG instances (their GPUs not named)". Written to buf
 * (NUL-terminated, truncated to len - 1 bytes); s not NULL. */
void gd_series_gpus_phrase(const gpudiag_series_summary *s, char *buf, size_t len);

/* The label of one GPU or MIG instance of a log (DEFINITIONS "Monitoring series", labels): "GPU 0";
 * "GPU 1 GI 3" / "GPU 1 CI 2" for an instance that names its GPU; "GPU-I 3" / "GPU-CI 2" for one
 * that names none (dcgmi).  Written to buf (NUL-terminated, truncated); returns snprintf's count. */
int gd_series_entity_label(const gpudiag_gpu_summary *g, char *buf, size_t len);

#endif
