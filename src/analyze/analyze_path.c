/*
 * analyze_path.c — gpudiag_analyze_path(): one file to one report, routed by
 * its content as `gpudiag analyze FILE` routes it without --format: a
 * monitoring log (gd_sniff_log_file) through the series reader and analysis,
 * anything else through gpudiag_trace_read_opts() (Kineto JSON, gzip, Nsight
 * SQLite) and gpudiag_analyze().  The entry point of bindings (python/).
 */
#include <stdio.h>
#include <string.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/series.h"
#include "analyze/analyze.h"
#include "ingest/formats.h"
#include "util/util.h"

gpudiag_status gd_analyze_log_file(const char *path, gpudiag_log_format lf, gpudiag_report **out, gpudiag_error *err)
{
    gpudiag_series *ser = NULL;
    gpudiag_status st = gpudiag_series_read(path, lf, &ser, err);
    if (st != GPUDIAG_OK)
        return st;
    st = gpudiag_series_analyze(ser, path, out, err);
    gpudiag_series_free(&ser);
    return st;
}

gpudiag_status gpudiag_analyze_path(const char *path, const gpudiag_read_opts *ropts,
                                    const gpudiag_analyze_opts *aopts, gpudiag_report **out, gpudiag_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL path or out");
    gpudiag_log_format lf = gd_sniff_log_file(path);
    gpudiag_status st;
    if (lf != GPUDIAG_LOG_AUTO) {
        if (ropts && ropts->select_steps)
            return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1,
                                "a step selection applies to a trace; this is a monitoring log");
        return gd_analyze_log_file(path, lf, out, err);
    }
    gpudiag_trace *t = NULL;
    st = gpudiag_trace_read_opts(path, ropts, &t, err);
    if (st != GPUDIAG_OK)
        return st;
    st = gpudiag_analyze(t, aopts, out, err);
    gpudiag_trace_free(&t);
    return st;
}
