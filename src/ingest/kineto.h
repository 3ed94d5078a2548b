/*
 * kineto.h — the PyTorch profiler (Kineto) JSON reader.
 */
#ifndef GD_INGEST_KINETO_H
#define GD_INGEST_KINETO_H

#include "gpudiag/gpudiag.h"

/* See gpudiag_trace_read() in gpudiag.h for the contract. */
gpudiag_status gd_kineto_read(const char *path, gpudiag_trace **out, gpudiag_error *err);

#endif
