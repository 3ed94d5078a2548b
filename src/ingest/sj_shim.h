/*
 * sj_shim.h — the thin C interface to simdjson On-Demand (sj_shim.cpp), used
 * by the Kineto reader for the bulk of a trace: the events array.  Windows of
 * whole lines are parsed as "[" + window + "]"; each event is replayed into
 * the reader's SAX callbacks (the same ones yajl drives), keys first, so only
 * the values the reader wants are ever decoded.
 */
#ifndef GD_INGEST_SJ_SHIM_H
#define GD_INGEST_SJ_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes that must be readable and writable after a window. */
#define GD_SJ_PADDING 128

typedef struct gd_sj_cb {
    int (*start_map)(void *ctx);
    int (*end_map)(void *ctx);
    /* returns nonzero if the value of this key is wanted */
    int (*key)(void *ctx, const char *k, size_t len);
    /* string and number return 1 (ok), 0 (cancel: out of memory) or -1 (the
     * value is not valid JSON: the event is broken) */
    int (*string)(void *ctx, const char *s, size_t len);
    int (*number)(void *ctx, const char *s, size_t len);
    /* the event being replayed is abandoned: back to the events array */
    void (*reset)(void *ctx);
    /* an array value of a wanted key inside an object of the event (args["Input
     * Dims"]) opens and closes; its elements are replayed (numbers, strings,
     * nested arrays up to 3 deep) without keys.  NULL: arrays are skipped. */
    int (*start_array)(void *ctx);
    int (*end_array)(void *ctx);
} gd_sj_cb;

enum gd_sj_result {
    GD_SJ_MORE = 0,   /* every complete event consumed; the rest needs more bytes (or is broken) */
    GD_SJ_END = 1,    /* the events array closed inside the window */
    GD_SJ_CANCEL = 2  /* a callback failed (out of memory) */
};

typedef struct gd_sj gd_sj;

gd_sj *gd_sj_new(void);
void gd_sj_free(gd_sj *sj);

/*
 * Parse the events in win[0..len).  win[-1] and win[len .. len+GD_SJ_PADDING)
 * must be writable; they are restored.  *consumed receives the number of bytes
 * fully processed: after the last complete event (GD_SJ_MORE) or after the
 * closing ']' of the events array (GD_SJ_END).
 */
int gd_sj_events(gd_sj *sj, unsigned char *win, size_t len, const gd_sj_cb *cb, void *ctx, size_t *consumed);

#ifdef __cplusplus
}
#endif
#endif
