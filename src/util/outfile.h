/*
 * outfile.h — the one way gpudiag writes an output file (--save, --html,
 * --trace-out, run's -o/--json/--html): into a temporary file in the target's
 * directory, renamed over the target only after a complete, flushed, synced
 * and closed write.  A failed write (a full disk, a file-size limit) removes
 * the temporary and leaves the old target as it was: never a cut file, never
 * a deleted one (new-user trial of issue 19).
 */
#ifndef GD_OUTFILE_H
#define GD_OUTFILE_H

#include <stdio.h>

typedef struct gd_outfile {
    FILE *fp;         /* write the output here (owned; closed by commit/abort) */
    char *target;     /* the file that will hold the output (a symlink resolved), malloc'd */
    char *tmp;        /* the temporary being written, malloc'd; NULL when fp is the
                       * target itself: standard output ("-") or an existing
                       * device or FIFO (/dev/null, /dev/full, a pipe), which cannot
                       * be replaced and is never removed */
    int is_stdout;    /* fp is stdout */
} gd_outfile;

/* Open `path` for writing ("-" = standard output).  Returns 0 with o->fp
 * ready, or -1 with errno set (o holds nothing to free).  The temporary is
 * named ".<name>.XXXXXX" beside the target; its mode becomes the old
 * target's, or 0666 less the umask for a new file. */
int gd_outfile_open(gd_outfile *o, const char *path);

/* 0 when gd_outfile_open(path) would succeed now: the temporary is
 * created beside the target and removed at once; the target itself is not
 * opened, truncated or touched.  -1 with errno set otherwise (e.g. a
 * directory that access() calls writable but that takes no new file, as
 * /proc for root).  "-" and an existing non-regular file (a device, a FIFO:
 * opening a FIFO would block) are not probed: 0. */
int gd_outfile_probe(const char *path);

/* The path a second writer (gzopen) may open instead of o->fp: the
 * temporary, or the target when there is none; NULL for standard output. */
const char *gd_outfile_write_path(const gd_outfile *o);

/* Finish: `failed` nonzero when the caller's writing failed.  Flushes,
 * fsyncs (regular files) and closes; when all of that and the caller's
 * writing succeeded, renames the temporary over the target and returns 0.
 * Otherwise removes the temporary (the old target stays) and returns -1
 * with errno set to the first failure's reason (e.g. ENOSPC, EFBIG; EIO
 * when none is known).  Standard output is flushed, not closed.  o is
 * emptied either way. */
int gd_outfile_commit(gd_outfile *o, int failed);

/* 1 when the output named `path` is written gzip-compressed: its name ends
 * in ".gz" (and it is not "-", standard output).  The one rule for every
 * writer (--trace-out, --save, --summary, merge -o and --summary, run's
 * --json and --html). */
int gd_outfile_gz_name(const char *path);

/* Write the n bytes at buf to o->fp as one gzip member (deflate level 6).
 * Returns 0, or -1 with errno set (ENOMEM, or the write's reason; EIO when
 * none is known). */
int gd_outfile_put_gzip(gd_outfile *o, const void *buf, size_t n);

/* Give up: close and remove the temporary; the old target stays. */
void gd_outfile_abort(gd_outfile *o);

#endif /* GD_OUTFILE_H */
