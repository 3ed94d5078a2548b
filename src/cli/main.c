/* main.c — the gpudiag binary: everything happens in gd_cli_run(). */
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

#include "cli/cli.h"

int main(int argc, char **argv)
{
#ifdef M_MMAP_THRESHOLD
    /* Blocks of 256 KiB and more (the model's vectors, the analyses' scratch
     * arrays) get their own mappings and go back to the OS when freed.  Setting
     * the threshold stops glibc from raising it after the first large free,
     * which would put later big arrays on the heap, where freed memory stays
     * resident: 116 -> 94 MiB peak on a 1.13 GB trace (docs/PERFORMANCE.md). */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    return gd_cli_run(argc, argv);
}
