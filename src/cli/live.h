/*
 * live.h — helpers shared by the live subcommands (`run`, `watch`): option
 * parsing for intervals and GPU lists, opening the sampler, the monitoring
 * CSV (docs/REPORT.md, "The live log") and the rolling verdict.
 */
#ifndef GD_CLI_LIVE_H
#define GD_CLI_LIVE_H

#include <stdio.h>

#include "gpudiag/sampler.h"

/* Parse "500ms", "2s", "0.5" (seconds), "1m" into seconds; 0 ok, -1 bad. */
int gd_live_parse_interval(const char *s, double *out_s);
/* gd_live_parse_interval for the command-line option --NAME: on failure prints
 * the one error message all live commands use (naming the option and the
 * value) to stderr and returns -1; the caller exits 2. */
int gd_live_time_option(const char *name, const char *arg, double *out_s);

/* Select GPUs of the sampler from a list "0,2,GPU-8a..." (indices or UUID
 * prefixes).  sel[i] = 1 for chosen GPUs.  Returns the number chosen, or -1
 * with a message in why (an entry that matches no GPU). */
int gd_live_select(const gpudiag_sampler *s, const char *list, int *sel, char *why, size_t why_len);

/* Open the sampler named by $GPUDIAG_BACKEND (default NVML); on failure print
 * "gpudiag: error: ..." and return NULL; *code receives the exit code
 * (GD_EXIT_NO_DEVICE, GD_EXIT_USAGE or GD_EXIT_INTERNAL; GD_EXIT_OK on success). */
gpudiag_sampler *gd_live_open(const char *backend, int *code);

/* The monitoring CSV: nvidia-smi --query-gpu names (csv, nounits style) plus
 * gpudiag's GPM columns.  Missing values are "[N/A]". */
void gd_live_csv_header(FILE *fp);
void gd_live_csv_row(FILE *fp, const gpudiag_gpu_info *info, const gpudiag_gpu_sample *s);

/* A rolling window of samples for one GPU and the verdict drawn from it. */
#define GD_LIVE_WINDOW 64
typedef struct gd_live_window {
    gpudiag_gpu_sample s[GD_LIVE_WINDOW];
    size_t n, next;
} gd_live_window;

void gd_live_window_push(gd_live_window *w, const gpudiag_gpu_sample *s);

/* One-line verdict for GPU `index` over the window, e.g. "GPU 0: GPU-Util 98%
 * but SM active 41%: util is misleading"; the rules are in
 * docs/DEFINITIONS.md ("Rolling verdict"). */
void gd_live_verdict(const gd_live_window *w, unsigned index, char *buf, size_t len);

#endif
