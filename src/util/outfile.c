/*
 * outfile.c — write-to-temporary-then-rename for every output file (see
 * outfile.h).
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fsync, fchmod, fdopen */
#define _XOPEN_SOURCE 700       /* realpath */
#include "util/outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static void outfile_clear(gd_outfile *o)
{
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int gd_outfile_open(gd_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || !path[0]) {
        errno = ENOENT;
        return -1;
    }
    if (strcmp(path, "-") == 0) {
        o->fp = stdout;
        o->is_stdout = 1;
        return 0;
    }
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or a FIFO the user pointed at: write it in place */
        o->fp = fopen(path, "w");
        if (!o->fp)
            return -1;
        o->target = strdup(path);
        if (!o->target) {
            fclose(o->fp);
            errno = ENOMEM;
            return -1;
        }
        return 0;
    }
    /* a symlink to a file: replace the file it points at, not the link */
    struct stat lst;
    char *target = NULL;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        target = realpath(path, NULL);
    if (!target)
        target = strdup(path);
    if (!target) {
        errno = ENOMEM;
        return -1;
    }
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    const char *name = slash ? slash + 1 : target;
    size_t len = dirlen + 1 + strlen(name) + 8;
    char *tmp = malloc(len);
    if (!tmp) {
        free(target);
        errno = ENOMEM;
        return -1;
    }
    snprintf(tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, target, name);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(target);
        errno = e;
        return -1;
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode); /* best effort: the content matters more than the mode */
    o->fp = fdopen(fd, "w");
    if (!o->fp) {
        int e = errno;
        close(fd);
        (void)unlink(tmp);
        free(tmp);
        free(target);
        errno = e;
        return -1;
    }
    o->target = target;
    o->tmp = tmp;
    return 0;
}

int gd_outfile_probe(const char *path)
{
    struct stat st;
    if (path && strcmp(path, "-") == 0)
        return 0;
    if (path && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return 0;
    gd_outfile o;
    if (gd_outfile_open(&o, path) != 0)
        return -1;
    gd_outfile_abort(&o);
    return 0;
}

const char *gd_outfile_write_path(const gd_outfile *o)
{
    if (o->is_stdout)
        return NULL;
    return o->tmp ? o->tmp : o->target;
}

int gd_outfile_commit(gd_outfile *o, int failed)
{
    int e0 = errno; /* the caller's failed write may have left its reason here */
    int e = 0;
    if (!o->fp) {
        outfile_clear(o);
        errno = EIO;
        return -1;
    }
    if (fflush(o->fp) != 0 && !e)
        e = errno ? errno : EIO;
    if (ferror(o->fp) && !e)
        e = e0 ? e0 : EIO;
    if (o->is_stdout) {
        outfile_clear(o);
        if (e || failed) {
            errno = e ? e : (e0 ? e0 : EIO);
            return -1;
        }
        return 0;
    }
    if (o->tmp && !e && !failed && fsync(fileno(o->fp)) != 0)
        e = errno;
    if (fclose(o->fp) != 0 && !e)
        e = errno ? errno : EIO;
    o->fp = NULL;
    if (!e && !failed && o->tmp && rename(o->tmp, o->target) != 0)
        e = errno;
    if (e || failed) {
        if (o->tmp)
            (void)unlink(o->tmp);
        outfile_clear(o);
        errno = e ? e : (e0 ? e0 : EIO);
        return -1;
    }
    outfile_clear(o);
    return 0;
}

void gd_outfile_abort(gd_outfile *o)
{
    if (o->fp && !o->is_stdout)
        fclose(o->fp);
    if (o->tmp)
        (void)unlink(o->tmp);
    outfile_clear(o);
}

int gd_outfile_gz_name(const char *path)
{
    size_t l = strlen(path);
    return strcmp(path, "-") != 0 && l > 3 && strcmp(path + l - 3, ".gz") == 0;
}

int gd_outfile_put_gzip(gd_outfile *o, const void *buf, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16 /* gzip wrapper */, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        errno = ENOMEM;
        return -1;
    }
    const unsigned char *in = buf;
    unsigned char out[1 << 16];
    int rc = Z_OK, flush;
    do {
        size_t chunk = n < (1u << 30) ? n : (1u << 30); /* avail_in is a uInt */
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = (uInt)chunk;
        in += chunk;
        n -= chunk;
        flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            rc = deflate(&z, flush);
            size_t have = sizeof out - z.avail_out;
            errno = 0;
            /* cppcheck-suppress uninitvar ; deflate() wrote out[0..have) */
            if (rc == Z_STREAM_ERROR || fwrite(out, 1, have, o->fp) != have) {
                int e = rc == Z_STREAM_ERROR || errno == 0 ? EIO : errno;
                deflateEnd(&z);
                errno = e;
                return -1;
            }
        } while (z.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        errno = EIO;
        return -1;
    }
    return 0;
}
