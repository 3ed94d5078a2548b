/*
 * arch.c — NVIDIA architecture families: from a kernel name's tag, from a
 * compute capability, and the Tensor Core number formats of each
 * (include/gpudiag/specs.h; docs/DEFINITIONS.md "GPU metrics", architecture
 * inferred from kernel names).
 */
#include <stddef.h>
#include <string.h>

#include "gpudiag/specs.h"

/* Compute capabilities NVIDIA has shipped, as major * 10 + minor. */
static const int known_cc[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121};

static const struct {
    const char *word;
    int major, minor;
} family_words[] = {
    {"maxwell", 5, 0}, {"pascal", 6, 0}, {"volta", 7, 0}, {"turing", 7, 5},
    {"ampere", 8, 0},  {"hopper", 9, 0}, {"blackwell", 10, 0},
};

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int lower(char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Word w (n bytes) equals the lower-case literal lit. */
static int word_is(const char *w, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    if (n != l)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(w[i]) != lit[i])
            return 0;
    return 1;
}

/* A compute capability written as 2 or 3 digits ("80", "90", "100", "120"): major*10+minor of
 * a known one, else -1. */
static int cc_digits(const char *d, size_t n)
{
    if (n < 2 || n > 3)
        return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] < '0' || d[i] > '9')
            return -1;
        v = v * 10 + (d[i] - '0');
    }
    for (size_t i = 0; i < sizeof known_cc / sizeof known_cc[0]; i++)
        if (known_cc[i] == v)
            return v;
    return -1;
}

/* "sm80", "sm90a", "sm100f": the capability, else -1. */
static int sm_word(const char *w, size_t n)
{
    if (n < 4 || lower(w[0]) != 's' || lower(w[1]) != 'm')
        return -1;
    size_t e = n;
    if (lower(w[e - 1]) == 'a' || lower(w[e - 1]) == 'f')
        e--;
    return cc_digits(w + 2, e - 2);
}

static int all_digits(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] < '0' || w[i] > '9')
            return 0;
    return n > 0;
}

const char *gpudiag_arch_family(const char *name, size_t len, int *major, int *minor)
{
    if (!name)
        return NULL;
    int best = -1;
    const char *pw = NULL; /* the previous word */
    size_t pn = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && !is_alnum(name[i]))
            i++;
        size_t s = i;
        while (i < len && is_alnum(name[i]))
            i++;
        if (i == s)
            break;
        const char *w = name + s;
        size_t n = i - s;
        int cc = sm_word(w, n);
        if (cc < 0 && pw && all_digits(w, n) && (word_is(pw, pn, "sm") || word_is(pw, pn, "cutlass")))
            cc = cc_digits(w, n);
        if (cc < 0)
            for (size_t k = 0; k < sizeof family_words / sizeof family_words[0]; k++)
                if (word_is(w, n, family_words[k].word))
                    cc = family_words[k].major * 10 + family_words[k].minor;
        if (cc > best)
            best = cc;
        pw = w;
        pn = n;
    }
    if (best < 0)
        return NULL;
    if (major)
        *major = best / 10;
    if (minor)
        *minor = best % 10;
    return gpudiag_arch_name(best / 10, best % 10);
}

const char *gpudiag_arch_name(int major, int minor)
{
    switch (major) {
    case 5:
        return "Maxwell";
    case 6:
        return "Pascal";
    case 7:
        return minor >= 5 ? "Turing" : "Volta";
    case 8:
        return minor >= 9 ? "Ada" : "Ampere";
    case 9:
        return "Hopper";
    case 10:
    case 11:
    case 12:
        return "Blackwell";
    default:
        return NULL;
    }
}

unsigned gpudiag_tensor_core_dtypes(int major, int minor)
{
    const unsigned fp16 = 1u << GPUDIAG_DTYPE_FP16, int8 = 1u << GPUDIAG_DTYPE_INT8;
    const unsigned tf32 = 1u << GPUDIAG_DTYPE_TF32, bf16 = 1u << GPUDIAG_DTYPE_BF16, fp8 = 1u << GPUDIAG_DTYPE_FP8;
    if (major < 7)
        return 0;
    if (major == 7)
        return minor == 0 ? fp16 : fp16 | int8;
    if (major == 8 && minor < 9)
        return tf32 | fp16 | bf16 | int8;
    return tf32 | fp16 | bf16 | int8 | fp8;
}
