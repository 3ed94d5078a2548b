/*
 * opts.c — option value parsers (see opts.h).
 */
#include "cli/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/gpudiag.h"

int gd_opt_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !out)
        return -1;
    const char *d = s + (s[0] == '+' || s[0] == '-');
    if (*d < '0' || *d > '9')
        return -1; /* strtol would skip blanks and take "" as 0 */
    for (const char *c = d; *c; c++)
        if (*c < '0' || *c > '9')
            return -1;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || !end || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int gd_opt_severity(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "info") == 0)
        return GPUDIAG_SEV_INFO;
    if (strcmp(s, "low") == 0)
        return GPUDIAG_SEV_LOW;
    if (strcmp(s, "medium") == 0)
        return GPUDIAG_SEV_MEDIUM;
    if (strcmp(s, "high") == 0)
        return GPUDIAG_SEV_HIGH;
    return -1;
}
