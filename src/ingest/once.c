/*
 * once.c — inputs read once (see once.h): a replaying stream over
 * fopencookie(3).
 */
#define _GNU_SOURCE /* fopencookie */
#include "ingest/once.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

int gd_path_read_once(const char *path)
{
    struct stat sb;
    if (!path || strcmp(path, "-") == 0 || stat(path, &sb) != 0)
        return 0;
    return S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode) || S_ISSOCK(sb.st_mode);
}

typedef struct replay {
    FILE *src;
    const unsigned char *head;
    size_t n, pos;
} replay;

static ssize_t replay_read(void *c, char *buf, size_t size)
{
    replay *r = c;
    if (r->pos < r->n) {
        size_t k = r->n - r->pos < size ? r->n - r->pos : size;
        memcpy(buf, r->head + r->pos, k);
        r->pos += k;
        return (ssize_t)k;
    }
    size_t got = fread(buf, 1, size, r->src);
    if (got == 0 && ferror(r->src))
        return -1;
    return (ssize_t)got;
}

static int replay_close(void *c)
{
    replay *r = c;
    int rc = fclose(r->src);
    free(r);
    return rc;
}

gpudiag_status gd_once_in_open(gd_once_in *o, const char *path, gpudiag_error *err)
{
    memset(o, 0, sizeof *o);
    FILE *src = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb"); /* "-": standard input, read once too */
    if (!src)
        return gd_set_error(err, errno == ENOMEM ? GPUDIAG_ERR_NOMEM : GPUDIAG_ERR_IO, path, -1, "cannot open: %s",
                            strerror(errno));
    o->head = malloc(GD_ONCE_HEAD);
    replay *r = calloc(1, sizeof *r);
    if (!o->head || !r) {
        free(r);
        fclose(src);
        gd_once_in_close(o);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    }
    /* a pipe hands over what its writer has written so far: read until the head is full or the input ends */
    while (o->n < GD_ONCE_HEAD) {
        size_t got = fread(o->head + o->n, 1, GD_ONCE_HEAD - o->n, src);
        o->n += got;
        if (got == 0)
            break;
    }
    if (ferror(src)) {
        int e = errno;
        free(r);
        fclose(src);
        gd_once_in_close(o);
        return gd_set_error(err, GPUDIAG_ERR_IO, path, 0, "read error: %s", strerror(e));
    }
    r->src = src;
    r->head = o->head;
    r->n = o->n;
    cookie_io_functions_t io = {.read = replay_read, .write = NULL, .seek = NULL, .close = replay_close};
    o->fp = fopencookie(r, "rb", io);
    if (!o->fp) {
        replay_close(r);
        gd_once_in_close(o);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    }
    return GPUDIAG_OK;
}

void gd_once_in_close(gd_once_in *o)
{
    if (o->fp)
        fclose(o->fp);
    free(o->head);
    memset(o, 0, sizeof *o);
}

int gd_once_in_is_sqlite(const gd_once_in *o)
{
    return o->n >= 16 && memcmp(o->head, "SQLite format 3", 16) == 0;
}
