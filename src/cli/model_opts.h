/*
 * model_opts.h — the model and GPU options shared by `gpudiag mfu` and
 * `gpudiag plan` (and `analyze`): a preset or a config or a parameter count,
 * and a GPU from the table with overrides.
 */
#ifndef GD_CLI_MODEL_OPTS_H
#define GD_CLI_MODEL_OPTS_H

#include <getopt.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "gpudiag/mfu.h"
#include "gpudiag/specs.h"

typedef struct gd_model_opts {
    const char *preset;
    double params, active_params;        /* NaN unless given */
    int layers, hidden, heads, kv_heads, head_dim, ffn, vocab, seq, experts, top_k; /* -1 unless given */
    int mlp_gated;                       /* -1 unless --mlp given */
    int tied;                            /* -1 unless --tied given */
    const gpudiag_gpu_spec *gpu;         /* --gpu */
    gpudiag_dtype dtype;                 /* --dtype, default bf16 */
    int dtype_given;
    double peak_tflops, mem_bw;          /* overrides; NaN unless given */
} gd_model_opts;

/* The model after presets, config and overrides are combined. */
typedef struct gd_model {
    const char *name;                    /* preset name or "custom" */
    const char *source;                  /* preset source or NULL */
    int has_config;                      /* 1: the config below is complete (params counted) */
    gpudiag_model_config cfg;
    gpudiag_param_count count;           /* from the config; NaN fields without one */
    double n_matmul;                     /* N of 6N (all experts) */
    double n_active;                     /* N active per token (MoE), = n_matmul for dense */
    double n_total;                      /* every parameter (for memory); NaN if unknown */
    int layers, heads, head_dim, seq, hidden, kv_heads; /* 0 when unknown */
    int params_given;                    /* 1: --params overrode the count */
} gd_model;

extern const char gd_model_opts_help[];

void gd_model_opts_init(gd_model_opts *o);
/* Append the model/GPU options to a getopt_long table; returns how many (<= max). */
size_t gd_model_opts_table(struct option *out, size_t max);
/* A whole getopt_long table: the model/GPU options, then the command's own
 * nbase options, then the all-zero terminator; cap is out's length and must
 * hold them all (the tables are static: an overflow is a programming error
 * and aborts). */
void gd_model_opts_longopts(struct option *out, size_t cap, const struct option *base, size_t nbase);
/* Take option c if it is a model/GPU option: 1 taken, 0 not ours, -1 invalid (message printed). */
int gd_model_opts_take(gd_model_opts *o, int c, const char *arg);
/* Combine into a model; -1 with a message when the model is missing or inconsistent. */
int gd_model_opts_resolve(const gd_model_opts *o, gd_model *m);
/* Does o give a model at all (preset, config or --params)? */
int gd_model_opts_any(const gd_model_opts *o);
/* `analyze`: the model options plus --tokens-per-step, --recompute and
 * --causal-half, turned into gpudiag_analyze_opts. */
typedef struct gd_trace_mfu_opts {
    gd_model_opts mo;
    double tokens_per_step;              /* NaN unless given */
    gpudiag_recompute recompute;
    int causal_half;
} gd_trace_mfu_opts;

extern const char gd_trace_mfu_help[];
void gd_trace_mfu_init(gd_trace_mfu_opts *o);
size_t gd_trace_mfu_table(struct option *out, size_t max);
int gd_trace_mfu_take(gd_trace_mfu_opts *o, int c, const char *arg);
/* Fill out (zeroed first); -1 with a message on inconsistent options. */
int gd_trace_mfu_resolve(const gd_trace_mfu_opts *o, gpudiag_analyze_opts *out);

/* Text and JSON renderings of the resolved model. */
void gd_model_print(FILE *fp, const gd_model *m);
void gd_model_json(gd_json *w, const gd_model *m);

#endif
