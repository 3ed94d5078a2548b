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
#ifdef M_ARENA_MAX
    /* One malloc arena for every thread: the threads an analysis runs side by
     * side (and a directory's ranks) then reuse the memory the read freed
     * instead of growing arenas of their own, whose every new page the kernel
     * must clear first (clear_page: 376 perf samples in --jobs 2's analysis of
     * a 1.13 GB trace against 36 with one thread; with one arena, --jobs 2
     * uses ~7 % less CPU in all and 4 ranks of 317 MB read 1.09-1.14 s
     * instead of 1.18-1.43 s; docs/PERFORMANCE.md).  The threads allocate
     * little while they parse, so the arena's lock is not contended. */
    mallopt(M_ARENA_MAX, 1);
#endif
    return gd_cli_run(argc, argv);
}
