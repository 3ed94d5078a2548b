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

#endif
