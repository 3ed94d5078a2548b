/*
 * backend.h — the sampler's backend interface (internal).
 *
 * One backend is one file filling one const vtable; the list of backends is
 * the explicit NULL-terminated table gd_sample_backends[] in sampler.c (no
 * constructor self-registration, which a static link may drop).  A backend
 * keeps all its state in the object returned by `open`: no globals.
 *
 * Contract: `open` either fails with an error naming what was looked for
 * (and leaves nothing allocated) or returns a state with >= 1 GPU.  `read`
 * fills a sample whose fields were all set to NaN / 0 by the caller first;
 * it sets only what it could read.
 */
#ifndef GD_SAMPLE_BACKEND_H
#define GD_SAMPLE_BACKEND_H

#include "gpudiag/sampler.h"

typedef struct gd_sample_backend {
    const char *name;
    /* Open and enumerate; *state receives the backend's object. */
    gpudiag_status (*open)(void **state, gpudiag_error *err);
    size_t (*gpu_count)(const void *state);
    const gpudiag_gpu_info *(*gpu)(const void *state, size_t i);
    const char *(*driver_version)(const void *state);
    /* Fill the fields it can; `out` is pre-set to "unknown" by the caller. */
    void (*read)(void *state, size_t i, gpudiag_gpu_sample *out);
    void (*close)(void *state);
} gd_sample_backend;

extern const gd_sample_backend gd_nvml_backend;
extern const gd_sample_backend gd_test_backend;

/* Reset every field of a sample to "unknown" (NaN, 0 flags). */
void gd_sample_clear(gpudiag_gpu_sample *s);

#endif
