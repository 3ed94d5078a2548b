#define _POSIX_C_SOURCE 200809L
/* gpudiag_trace_select_steps(), header-only reads and the progress callback
 * (include/gpudiag/gpudiag.h), on tests/data/ok_three_steps.json, whose
 * events were written by hand (tests/cli/test_steps.sh has the step
 * arithmetic):
 *   host steps 1 [1000,1100], 2 [1100,1200], 3 [1200,1300] us;
 *   runtimes 1010-1020 (corr 1), 1110-1120 (2), 1210-1220 (3), 1250-1260 (4);
 *   GPU ops 1030-1070 (1), 1130-1230 (2), 1240-1260 (3), 1265-1275 (4);
 *   cpu ops 1005-1035, 1105-1135, 1205-1235.
 * --steps 2: window [1100,1200] extended to 1230 (the end of the kernel its
 * runtime launched); overlapping it: GPU op 2; runtimes 2 and 3; cpu ops 2 and 3. */
#include <sys/stat.h>
#include <unistd.h>

#include "gpudiag/gpudiag.h"
#include "model/trace.h"
#include "test.h"

#define THREE GD_TEST_DATA "/ok_three_steps.json"

static char tmpdir[] = "/tmp/gd_test_select_XXXXXX";

static const char *write_tmp(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "wb");
    ASSERT_TRUE(fp != NULL);
    fputs(text, fp);
    fclose(fp);
    return path;
}

static void test_select(void)
{
    gpudiag_trace *t = NULL;
    gpudiag_error err;
    ASSERT_EQ_INT(gpudiag_trace_read(THREE, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(t->host_steps.len, 3);
    ASSERT_EQ_INT(t->gpu_ops.len, 4);
    ASSERT_EQ_INT(t->runtimes.len, 4);
    ASSERT_EQ_INT(t->cpu_ops.len, 3);
    /* bad arguments and no match leave the trace as it was */
    ASSERT_EQ_INT(gpudiag_trace_select_steps(NULL, 1, 1, &err), GPUDIAG_ERR_ARG);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 3, 1, &err), GPUDIAG_ERR_ARG);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 7, 9, &err), GPUDIAG_ERR_NOMATCH);
    ASSERT_TRUE(strstr(err.message, "the trace has steps 1-3") != NULL);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, INT64_MIN, 0, &err), GPUDIAG_ERR_NOMATCH);
    ASSERT_EQ_INT(t->host_steps.len, 3);
    ASSERT_EQ_INT(t->gpu_ops.len, 4);
    ASSERT_EQ_INT(t->steps_selected, 0);
    /* step 2 */
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 2, 2, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(t->host_steps.len, 1);
    ASSERT_EQ_INT(((gd_host_step *)gd_vec_at(&t->host_steps, 0))->number, 2);
    ASSERT_EQ_INT(t->gpu_ops.len, 1);
    ASSERT_EQ_INT(((gd_gpu_op *)gd_vec_at(&t->gpu_ops, 0))->correlation, 2);
    ASSERT_EQ_INT(t->runtimes.len, 2);
    ASSERT_EQ_INT(((gd_runtime *)gd_vec_at(&t->runtimes, 0))->correlation, 2);
    ASSERT_EQ_INT(((gd_runtime *)gd_vec_at(&t->runtimes, 1))->correlation, 3);
    ASSERT_EQ_INT(t->cpu_ops.len, 2);
    ASSERT_EQ_INT(t->steps_before_selection, 3);
    gpudiag_report *r = NULL;
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->step_count, 1);
    ASSERT_EQ_INT(r->steps[0].start_ns, 1100000);
    ASSERT_EQ_INT(r->steps[0].end_ns, 1230000);
    ASSERT_EQ_INT(r->input.steps_selected, 1);
    ASSERT_EQ_INT(r->input.steps_first, 2);
    ASSERT_EQ_INT(r->input.steps_before_selection, 3);
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);

    /* through the read options: 2 to the last */
    gpudiag_read_opts o;
    memset(&o, 0, sizeof o);
    o.select_steps = 1;
    o.steps_first = 2;
    o.steps_last = INT64_MAX;
    ASSERT_EQ_INT(gpudiag_trace_read_opts(THREE, &o, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(t->host_steps.len, 2);
    gpudiag_trace_free(&t);
    o.steps_first = 4;
    ASSERT_EQ_INT(gpudiag_trace_read_opts(THREE, &o, &t, &err), GPUDIAG_ERR_NOMATCH);
    ASSERT_TRUE(t == NULL);
    ASSERT_STR_EQ(gpudiag_errname(GPUDIAG_ERR_NOMATCH), "nomatch");

    /* the previous step's end: step 1 is the first (no floor); step 3 follows step 2,
     * which ends at 1230 us (its kernel) in ok_three_steps and at 1250 us in the
     * overlap variant (the kernel moved to stream 8 and lengthened to 120 us) */
    ASSERT_EQ_INT(gpudiag_trace_read(THREE, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 1, 2, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(t->has_steps_floor, 0);
    gpudiag_trace_free(&t);
    ASSERT_EQ_INT(gpudiag_trace_read(THREE, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 3, 3, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(t->has_steps_floor, 1);
    ASSERT_EQ_INT(t->steps_floor_ns, 1230000);
    gpudiag_trace_free(&t);
    ASSERT_EQ_INT(gpudiag_trace_read(GD_TEST_DATA "/ok_three_steps_overlap.json", &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 3, INT64_MAX, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(t->has_steps_floor, 1);
    ASSERT_EQ_INT(t->steps_floor_ns, 1250000);
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->steps[0].start_ns, 1250000);
    ASSERT_EQ_INT(r->steps[0].end_ns, 1300000);
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);
}

static void test_header_only(void)
{
    gpudiag_read_opts o;
    memset(&o, 0, sizeof o);
    o.header_only = 1;
    gpudiag_trace *t = NULL;
    gpudiag_error err;
    ASSERT_EQ_INT(gpudiag_trace_read_opts(THREE, &o, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_rank(t), 0);
    ASSERT_EQ_INT(gpudiag_trace_world_size(t), 1);
    ASSERT_EQ_INT(t->header_only, 1);
    ASSERT_EQ_INT(t->events, 0);       /* stopped before traceEvents */
    ASSERT_EQ_INT(t->devices.len, 1);  /* deviceProperties came first */
    gpudiag_report *r = NULL;
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, &err), GPUDIAG_ERR_ARG);
    ASSERT_EQ_INT(gpudiag_trace_select_steps(t, 1, 1, &err), GPUDIAG_ERR_ARG);
    gpudiag_trace_free(&t);
    ASSERT_EQ_INT(gpudiag_trace_rank(NULL), -1);

    /* garbage after the header is never reached */
    const char *p = write_tmp("garbage.json", "{\"distributedInfo\": {\"rank\": 7, \"world_size\": 8}, \"traceEvents\": [ not json");
    ASSERT_EQ_INT(gpudiag_trace_read_opts(p, &o, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_rank(t), 7);
    ASSERT_EQ_INT(gpudiag_trace_world_size(t), 8);
    gpudiag_trace_free(&t);
    /* ... while a full read of it fails */
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, &err), GPUDIAG_ERR_FORMAT);

    /* distributedInfo after the events: parsed through, 2 events counted, none kept */
    p = write_tmp("late.json",
                  "{\"traceEvents\": [\n"
                  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5, "
                  "\"args\": {\"device\": 0, \"stream\": 7}},\n"
                  "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 5}\n"
                  "], \"distributedInfo\": {\"rank\": 3, \"world_size\": 4}}\n");
    ASSERT_EQ_INT(gpudiag_trace_read_opts(p, &o, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_rank(t), 3);
    ASSERT_EQ_INT(t->events, 2);
    ASSERT_EQ_INT(t->gpu_ops.len, 0);
    ASSERT_EQ_INT(t->cpu_ops.len, 0);
    gpudiag_trace_free(&t);
    /* no distributedInfo at all: rank -1 */
    p = write_tmp("none.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}]}");
    ASSERT_EQ_INT(gpudiag_trace_read_opts(p, &o, &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_trace_rank(t), -1);
    gpudiag_trace_free(&t);
}

typedef struct prog_seen {
    int calls;
    uint64_t last_done, last_total;
    int monotonic;
} prog_seen;

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    prog_seen *s = ctx;
    if (s->calls && done < s->last_done)
        s->monotonic = 0;
    s->calls++;
    s->last_done = done;
    s->last_total = total;
}

static void test_progress(void)
{
    struct stat sb;
    ASSERT_EQ_INT(stat(THREE, &sb), 0);
    prog_seen seen = {0, 0, 0, 1};
    gpudiag_read_opts o;
    memset(&o, 0, sizeof o);
    o.progress = on_progress;
    o.progress_ctx = &seen;
    gpudiag_trace *t = NULL;
    gpudiag_error err;
    ASSERT_EQ_INT(gpudiag_trace_read_opts(THREE, &o, &t, &err), GPUDIAG_OK);
    ASSERT_TRUE(seen.calls >= 2); /* after the block read and once at the end */
    ASSERT_TRUE(seen.monotonic);
    ASSERT_EQ_INT(seen.last_done, sb.st_size);
    ASSERT_EQ_INT(seen.last_total, sb.st_size);
    gpudiag_trace_free(&t);
}

/* opts.max_gaps keeps the N longest idle gaps (ties: the earlier), in their
 * order, and leaves the totals alone.  Gaps by hand: ok_idle_causes has
 * 200 µs at 1100, 100 at 1400, 200 at 1600; ok_three_steps 30 at 1000,
 * 60 at 1070, 10 at 1230, 5 at 1260, 25 at 1275. */
static void test_max_gaps(void)
{
    gpudiag_trace *t = NULL;
    gpudiag_error err;
    gpudiag_report *r = NULL;
    gpudiag_analyze_opts o;
    memset(&o, 0, sizeof o);
    ASSERT_EQ_INT(gpudiag_trace_read(GD_TEST_DATA "/ok_idle_causes.json", &t, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_analyze(t, &o, &r, &err), GPUDIAG_OK); /* 0: every gap */
    ASSERT_EQ_INT(r->idle_gap_count, 3);
    ASSERT_EQ_INT(r->gaps_kept, 3);
    gpudiag_report_free(&r);
    o.max_gaps = 2;
    ASSERT_EQ_INT(gpudiag_analyze(t, &o, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->idle_gap_count, 3);
    ASSERT_TRUE(r->idle_gap_us == 500.0);
    ASSERT_EQ_INT(r->gaps_kept, 2);
    ASSERT_TRUE(r->gaps[0].start_us == 1100.0 && r->gaps[0].duration_us == 200.0);
    ASSERT_TRUE(r->gaps[1].start_us == 1600.0 && r->gaps[1].duration_us == 200.0);
    gpudiag_report_free(&r);
    o.max_gaps = 1; /* a tie: the earlier */
    ASSERT_EQ_INT(gpudiag_analyze(t, &o, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->gaps_kept, 1);
    ASSERT_TRUE(r->gaps[0].start_us == 1100.0);
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);

    ASSERT_EQ_INT(gpudiag_trace_read(THREE, &t, &err), GPUDIAG_OK);
    o.max_gaps = 3;
    ASSERT_EQ_INT(gpudiag_analyze(t, &o, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->idle_gap_count, 5);
    ASSERT_EQ_INT(r->gaps_kept, 3);
    ASSERT_TRUE(r->gaps[0].start_us == 1000.0 && r->gaps[0].duration_us == 30.0);
    ASSERT_TRUE(r->gaps[1].start_us == 1070.0 && r->gaps[1].duration_us == 60.0);
    ASSERT_TRUE(r->gaps[2].start_us == 1275.0 && r->gaps[2].duration_us == 25.0);
    gpudiag_report_free(&r);
    o.max_gaps = 10; /* more than there are: all, as without a limit */
    ASSERT_EQ_INT(gpudiag_analyze(t, &o, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->gaps_kept, 5);
    ASSERT_TRUE(r->gaps[3].start_us == 1260.0 && r->gaps[3].duration_us == 5.0);
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    test_select();
    test_header_only();
    test_max_gaps();
    test_progress();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        return 1;
    printf("test_select: %d assertions passed\n", gd_test_count);
    return 0;
}
