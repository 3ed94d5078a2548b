/*
 * markers.c — step markers for `gpudiag run` and `gpudiag serve` (see markers.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/markers.h"
#include "util/util.h"

void gd_markers_init(gd_markers *mk, const char *path)
{
    memset(mk, 0, sizeof *mk);
    snprintf(mk->path, sizeof mk->path, "%s", path);
    FILE *fp = fopen(path, "r");
    if (fp) {
        if (fseek(fp, 0, SEEK_END) == 0) {
            long end = ftell(fp);
            mk->offset = end > 0 ? end : 0;
        }
        fclose(fp);
    }
}

static void add(gd_markers *mk, const char *line, double now_s)
{
    char word[16];
    long step;
    int off = 0;
    if (sscanf(line, "%15s %ld%n", word, &step, &off) != 2 || strcmp(word, "step") != 0) {
        mk->bad++;
        return;
    }
    gd_marker m = {step, NAN, now_s, 0};
    const char *p = line + off;
    char key[16];
    double val;
    int used;
    while (sscanf(p, "%15s %lf%n", key, &val, &used) == 2) {
        if (strcmp(key, "tokens") == 0)
            m.tokens = val;
        else if (strcmp(key, "time") == 0) {
            m.t_s = val;
            m.stamped = 1;
        }
        p += used;
    }
    if (mk->n == mk->cap) {
        size_t cap = mk->cap ? mk->cap * 2 : 256;
        gd_marker *nm = realloc(mk->m, cap * sizeof *nm);
        if (!nm)
            return;
        mk->m = nm;
        mk->cap = cap;
    }
    mk->m[mk->n++] = m;
}

void gd_markers_poll(gd_markers *mk, double now_s)
{
    FILE *fp = fopen(mk->path, "r");
    if (!fp)
        return;
    if (fseek(fp, mk->offset, SEEK_SET) != 0) {
        fclose(fp);
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            if (len == sizeof line - 1) { /* an overlong line: skip it whole */
                mk->offset += (long)len;
                mk->bad++;
                int c;
                while ((c = fgetc(fp)) != EOF && c != '\n')
                    mk->offset++;
                if (c == '\n')
                    mk->offset++;
                continue;
            }
            break; /* a line still being written: read it next time */
        }
        mk->offset += (long)len;
        line[len - 1] = '\0';
        if (line[0] && line[0] != '#')
            add(mk, line, now_s);
    }
    fclose(fp);
}

void gd_markers_free(gd_markers *mk)
{
    free(mk->m);
    mk->m = NULL;
    mk->n = mk->cap = 0;
}

/* numpy's default percentile (linear between closest ranks) of sorted v[n]. */
static double pct(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double r = q * (double)(n - 1);
    size_t lo = (size_t)floor(r);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (r - (double)lo);
}

void gd_markers_report(const gd_markers *mk, const double *t, const double *util_pct, size_t ns, FILE *fp)
{
    if (mk->n == 0) {
        fprintf(fp, "gpudiag run: steps: no step markers in %s\n", mk->path);
        return;
    }
    if (mk->n < 2) {
        fprintf(fp, "gpudiag run: steps: 1 marker (step %ld); step times need two\n", mk->m[0].step);
        return;
    }
    size_t nd = mk->n - 1;
    double *d = malloc(nd * sizeof *d);
    if (!d)
        return;
    double sum = 0, tok = 0;
    int have_tok = 0;
    for (size_t k = 1; k < mk->n; k++) {
        d[k - 1] = mk->m[k].t_s - mk->m[k - 1].t_s;
        sum += d[k - 1];
        if (!isnan(mk->m[k].tokens)) {
            tok += mk->m[k].tokens;
            have_tok = 1;
        }
    }
    double span = mk->m[mk->n - 1].t_s - mk->m[0].t_s;
    qsort(d, nd, sizeof *d, gd_cmp_double);
    fprintf(fp,
            "gpudiag run: steps: %zu markers (steps %ld..%ld), %zu step times%s: mean %.1f ms, median %.1f ms, "
            "p90 %.1f ms, min %.1f ms, max %.1f ms\n",
            mk->n, mk->m[0].step, mk->m[mk->n - 1].step, nd, mk->m[1].stamped ? "" : " (stamped when read)",
            1000.0 * sum / (double)nd, 1000.0 * pct(d, nd, 0.5), 1000.0 * pct(d, nd, 0.9), 1000.0 * d[0],
            1000.0 * d[nd - 1]);
    if (have_tok && span > 0)
        fprintf(fp, "gpudiag run: steps: %.0f tokens/s (tokens of steps %ld..%ld over %.2f s)\n", tok / span,
                mk->m[1].step, mk->m[mk->n - 1].step, span);
    /* per-step utilisation: mean GPU-Util of the samples inside each step */
    size_t shown = 0, with = 0;
    double lowest = NAN;
    long lowest_step = 0;
    for (size_t k = 1; k < mk->n; k++) {
        double a = mk->m[k - 1].t_s, b = mk->m[k].t_s, s = 0;
        size_t c = 0;
        for (size_t i = 0; i < ns; i++)
            if (t[i] > a && t[i] <= b && !isnan(util_pct[i])) {
                s += util_pct[i];
                c++;
            }
        if (!c)
            continue;
        with++;
        double u = s / (double)c;
        if (isnan(lowest) || u < lowest) {
            lowest = u;
            lowest_step = mk->m[k].step;
        }
        if (shown < 10) {
            fprintf(fp, "%s step %ld %.0f%%", shown ? "," : "gpudiag run: per-step GPU-Util:", mk->m[k].step, u);
            shown++;
        }
    }
    if (shown)
        fprintf(fp, "%s; lowest: step %ld at %.0f%% (%zu of %zu steps had samples)\n", with > shown ? ", ..." : "",
                lowest_step, lowest, with, nd);
    if (mk->bad)
        fprintf(fp, "gpudiag run: steps: %zu line%s of %s were not 'step N [tokens T] [time S]'\n", mk->bad,
                mk->bad == 1 ? "" : "s", mk->path);
    free(d);
}
