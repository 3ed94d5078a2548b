/*
 * nsys.h — the Nsight Systems SQLite export reader (nsys.c).
 */
#ifndef GD_INGEST_NSYS_H
#define GD_INGEST_NSYS_H

#include "gpudiag/gpudiag.h"

/* Read an `nsys export --type sqlite` file into the model; steps are chosen
 * afterwards by gd_steps_select().  Contract as gpudiag_trace_read_opts(). */
gpudiag_status gd_nsys_read(const char *path, gpudiag_trace **out, gpudiag_error *err);

#endif
