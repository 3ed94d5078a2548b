#define _POSIX_C_SOURCE 200809L
/* The Kineto reader and the analyses on the bundled real trace, and exact
 * number handling on small traces written here.
 *
 * Expected counts for examples/resnet50_v100_num_workers_0 were taken
 * independently with zcat | grep -c: 75718 events ("ph"), 8772 "Kernel",
 * 12 "Memcpy", 312 "Memset", 11923 "Runtime", 23646 "Operator" of which 6 are
 * ProfilerStep#5..#10; 35049145 bytes uncompressed.  The analysis values are
 * those the PyTorch TensorBoard plugin itself showed for this very trace (its
 * front-end mock data, reproduced by tests/oracle/tbp_oracle.py): 6 steps,
 * average step 177592.17 us, DataLoader 59261.83 us, GPU utilization 55.51%,
 * Est. SM efficiency 54.68%, Est. achieved occupancy 49.13%.
 */
#include <unistd.h>

#include "gpudiag/gpudiag.h"
#include "ingest/sj_shim.h"
#include "model/steps.h"
#include "model/trace.h"
#include "test.h"

static char tmpdir[] = "/tmp/gd_test_kineto_XXXXXX";

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

static void test_example(void)
{
    gpudiag_trace *t = NULL;
    gpudiag_error err;
    memset(&err, 0x5a, sizeof err); /* poison */
    gpudiag_status st = gpudiag_trace_read(GD_EXAMPLES "/resnet50_v100_num_workers_0.pt.trace.json.gz", &t, &err);
    ASSERT_EQ_INT(st, GPUDIAG_OK);
    ASSERT_EQ_INT(t->events, 75718);
    ASSERT_EQ_INT(t->bytes, 35049145);
    ASSERT_EQ_INT(t->gpu_ops.len, 8772 + 12 + 312);
    ASSERT_EQ_INT(t->runtimes.len, 11923);
    ASSERT_EQ_INT(t->host_steps.len, 6);
    ASSERT_EQ_INT(t->cpu_ops.len, 23646 - 6);
    ASSERT_EQ_INT(t->devices.len, 4);
    ASSERT_EQ_INT(t->truncated, 0);

    gpudiag_report *r = NULL;
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, &err), GPUDIAG_OK);
    gpudiag_trace_free(&t);
    ASSERT_TRUE(t == NULL);
    ASSERT_EQ_INT(r->step_count, 6);
    ASSERT_EQ_INT(r->steps[0].number, 5);
    ASSERT_EQ_INT(r->steps[5].number, 10);
    ASSERT_NEAR(r->avg_step_us, 177592.1666667, 1e-3);
    ASSERT_NEAR(r->avg_role_us[GPUDIAG_ROLE_DATALOADER], 59261.8333333, 1e-3);
    ASSERT_EQ_INT(r->device_count, 1);
    ASSERT_NEAR(r->devices[0].gpu_utilization, 0.5551, 5e-5);
    ASSERT_NEAR(r->devices[0].sm_efficiency, 0.5468, 5e-5);
    ASSERT_NEAR(r->devices[0].achieved_occupancy, 0.4913, 5e-5);
    ASSERT_NEAR(r->tensor_core_share, 0.0, 0);
    /* every step is partitioned exactly */
    for (size_t i = 0; i < r->step_count; i++) {
        double sum = 0;
        for (int k = 0; k < GPUDIAG_ROLE_COUNT; k++)
            sum += r->steps[i].role_us[k];
        ASSERT_NEAR(sum, r->steps[i].duration_us, 1e-6);
    }
    ASSERT_EQ_INT(r->bottleneck, GPUDIAG_BN_DATA_PIPELINE);
    ASSERT_TRUE(r->finding_count >= 1);
    ASSERT_STR_EQ(r->findings[0].id, "dataloader_stall");
    ASSERT_NEAR(r->findings[0].est_gain, 59261.8333333 / 177592.1666667, 1e-6);
    ASSERT_NAN(r->mfu);
    gpudiag_report_free(&r);
    ASSERT_TRUE(r == NULL);
}

static void test_exact_numbers(void)
{
    /* 19 significant digits: a double cannot hold ts; we keep exact ns. */
    const char *p = write_tmp("ns.json",
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1712195495502094.5,"
        "\"dur\":1.25,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,\"Comms Id\":18446744073709551615}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
        "\"ts\":1712195495502090.123,\"dur\":2,\"args\":{\"correlation\":1}}\n"
        "]}\n");
    gpudiag_trace *t = NULL;
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(t->gpu_ops.len, 1);
    const gd_gpu_op *op = t->gpu_ops.data;
    ASSERT_EQ_INT(op->ts_ns, 1712195495502094500LL);
    ASSERT_EQ_INT(op->dur_ns, 1250);
    ASSERT_EQ_INT(op->stream, 7);
    const gd_runtime *rt = t->runtimes.data;
    ASSERT_EQ_INT(rt->ts_ns, 1712195495502090123LL);
    gpudiag_trace_free(&t);
}

static void test_truncated_and_malformed(void)
{
    /* cut mid-array: the two complete events survive */
    const char *p = write_tmp("cut.json",
        "{\"traceEvents\":[\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"na");
    gpudiag_trace *t = NULL;
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(t->cpu_ops.len, 2);
    ASSERT_EQ_INT(t->truncated, 1);
    gpudiag_trace_free(&t);

    /* an unescaped quote breaks one event; reading resumes at the next line */
    p = write_tmp("quote.json",
        "{\"traceEvents\":[\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"file \"x.py\" line\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":1},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5}\n"
        "]}\n");
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(t->cpu_ops.len, 2);
    ASSERT_EQ_INT(t->skipped_malformed, 1);
    ASSERT_EQ_INT(t->truncated, 0);
    ASSERT_TRUE(t->first_error_at > 100 && t->first_error_at < 200);
    gpudiag_trace_free(&t);

    /* dur -1 and GPU ts 0 are skipped and counted */
    p = write_tmp("dirty.json",
        "{\"traceEvents\":[\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":-1},\n"
        "  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":0},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":20}\n"
        "]}\n");
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(t->cpu_ops.len, 0);
    ASSERT_EQ_INT(t->skipped_no_dur, 2);
    ASSERT_EQ_INT(t->skipped_zero_ts, 1);
    gpudiag_trace_free(&t);
}

static void test_zero_length_step(void)
{
    const char *p = write_tmp("zstep.json",
        "{\"traceEvents\":[\n"
        "  {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":0},\n"
        "  {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5}\n"
        "]}\n");
    gpudiag_trace *t = NULL;
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(t->host_steps.len, 1);
    gpudiag_report *r = NULL;
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(r->step_count, 1);
    ASSERT_EQ_INT(r->steps[0].number, 2);
    ASSERT_NEAR(r->step_time.mean, 100.0, 1e-9);
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);
}

/* Host durations are 32-bit in the model; 2^32 - 1 ns and more go to a side
 * table that gd_rt_dur / gd_cpu_dur read, and that follows the CPU ops when
 * step ranges are taken out of them. */
static void test_long_durations(void)
{
    const char *p = write_tmp("long.json",
        "{\"traceEvents\":[\n"
        "  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":5000000},\n"
        "  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":7,\"ts\":200,\"dur\":3},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":4294967.295},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":4294967.294},\n"
        "  {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"iter#1\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":6000000},\n"
        "  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":7000000}\n"
        "]}\n");
    gpudiag_trace *t = NULL;
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, NULL), GPUDIAG_OK);
    ASSERT_EQ_INT(t->runtimes.len, 2);
    const gd_runtime *rt = t->runtimes.data;
    ASSERT_EQ_INT(rt[0].dur32, GD_DUR_LONG);
    ASSERT_EQ_INT(gd_rt_dur(t, &rt[0]), 5000000000LL);
    ASSERT_EQ_INT(gd_rt_dur(t, &rt[1]), 3000);
    ASSERT_EQ_INT(t->rt_long_durs.len, 1);
    /* threads, run-length encoded: tid 1, then 7 */
    ASSERT_EQ_INT(gd_rt_tid(t, &rt[0]), 1);
    ASSERT_EQ_INT(gd_rt_tid(t, &rt[1]), 7);
    ASSERT_EQ_INT(t->rt_tid_runs.len, 2);
    ASSERT_EQ_INT(t->cpu_ops.len, 4);
    const gd_cpu_op *c = t->cpu_ops.data;
    ASSERT_EQ_INT(c[0].dur32, GD_DUR_LONG); /* exactly 2^32 - 1 ns: the sentinel itself */
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[0]), 4294967295LL);
    ASSERT_EQ_INT(c[1].dur32, 4294967294u);
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[1]), 4294967294LL);
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[2]), 6000000000LL);
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[3]), 7000000000LL);
    ASSERT_EQ_INT(t->cpu_long_durs.len, 3);
    /* "iter#1" becomes the step and leaves cpu_ops: "c" moves from index 3 to 2 */
    ASSERT_EQ_INT(gd_steps_select(t, "iter", 0), 0);
    ASSERT_EQ_INT(t->host_steps.len, 1);
    ASSERT_EQ_INT(((const gd_host_step *)t->host_steps.data)->dur_ns, 6000000000LL);
    ASSERT_EQ_INT(t->cpu_ops.len, 3);
    c = t->cpu_ops.data;
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[0]), 4294967295LL);
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[1]), 4294967294LL);
    ASSERT_EQ_INT(gd_cpu_dur(t, &c[2]), 7000000000LL);
    ASSERT_EQ_INT(t->cpu_long_durs.len, 2);
    gpudiag_trace_free(&t);
}

static void test_errors(void)
{
    gpudiag_trace *t = (gpudiag_trace *)(uintptr_t)1; /* poison */
    gpudiag_error err;
    memset(&err, 0x5a, sizeof err);
    ASSERT_EQ_INT(gpudiag_trace_read("/nonexistent/x.json", &t, &err), GPUDIAG_ERR_IO);
    ASSERT_TRUE(t == NULL);
    ASSERT_EQ_INT(err.code, GPUDIAG_ERR_IO);
    ASSERT_STR_EQ(err.path, "/nonexistent/x.json");

    const char *p = write_tmp("notjson.txt", "hello world\n");
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, &err), GPUDIAG_ERR_FORMAT);
    ASSERT_TRUE(err.offset >= 0 && err.offset <= 1); /* yajl reports the byte after the bad one */
    p = write_tmp("empty.json", "");
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, &err), GPUDIAG_ERR_FORMAT);
    p = write_tmp("shape.json", "{\"a\": [1, 2, {\"b\": 3}]}");
    ASSERT_EQ_INT(gpudiag_trace_read(p, &t, &err), GPUDIAG_ERR_FORMAT);
    ASSERT_TRUE(strstr(err.message, "traceEvents") != NULL);
    ASSERT_STR_EQ(gpudiag_errname(GPUDIAG_ERR_FORMAT), "format");
    ASSERT_EQ_INT(gpudiag_analyze(NULL, NULL, NULL, &err), GPUDIAG_ERR_ARG);
}

#ifdef GPUDIAG_HAVE_SIMDJSON
/* The simdjson window parser (src/ingest/sj_shim.cpp) with stale bytes after
 * the window, as the reader's buffer holds them: a window that ends inside an
 * event (here at "{\n"), followed by the rest of an older window ('y]",' and
 * more).  simdjson 3.0.1 read past the synthetic ']' and rejected the
 * window's FIRST event, so the reader gave the rest of the trace to yajl (a
 * 5 GB trace from 1.05 GB on).  Both complete events must be consumed. */
static int sjt_maps;
static int sjt_start(void *c) { (void)c; sjt_maps++; return 1; }
static int sjt_end(void *c) { (void)c; return 1; }
static int sjt_key(void *c, const char *k, size_t n) { (void)c; (void)k; (void)n; return 1; }
static int sjt_val(void *c, const char *s, size_t n) { (void)c; (void)s; (void)n; return 1; }
static void sjt_reset(void *c) { (void)c; }

static void test_sj_stale_padding(void)
{
    static const char events[] =
        "{\n    \"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": 1, \"tid\": 2,\n"
        "    \"ts\": 1623142655510244,\n    \"args\": {\n      \"Bytes\": 8\n    }\n  },\n"
        "  {\n    \"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": 1, \"tid\": 2,\n"
        "    \"ts\": 1623142655510290,\n    \"args\": {\n      \"Bytes\": -8\n    }\n  },\n  {\n";
    static const char stale[] = "y]\",\n    \"pid\": 25738, \"tid\": 25772,\n    \"ts\": 1623142655510244,\n"
                                "    \"args\": {\n      \"Device Type\": 0, \"Device Id\": -1, \"Bytes\": 8\n    }\n  },\n";
    size_t len = sizeof events - 1;
    unsigned char *buf = malloc(1 + len + GD_SJ_PADDING);
    ASSERT_TRUE(buf != NULL);
    unsigned char *win = buf + 1;
    buf[0] = 'x';
    memcpy(win, events, len);
    memset(win + len, ' ', GD_SJ_PADDING);
    memcpy(win + len, stale, sizeof stale - 1 < GD_SJ_PADDING ? sizeof stale - 1 : GD_SJ_PADDING);
    unsigned char before[GD_SJ_PADDING];
    memcpy(before, win + len, GD_SJ_PADDING);
    gd_sj *sj = gd_sj_new();
    ASSERT_TRUE(sj != NULL);
    gd_sj_cb cb = {sjt_start, sjt_end, sjt_key, sjt_val, sjt_val, sjt_reset, NULL, NULL};
    size_t consumed = 0;
    sjt_maps = 0;
    ASSERT_EQ_INT(gd_sj_events(sj, win, len, &cb, NULL, &consumed), GD_SJ_MORE);
    /* both events (the first one's args map too), up to the cut "{" */
    ASSERT_EQ_INT(consumed, len - 2);
    ASSERT_TRUE(sjt_maps >= 4);
    ASSERT_TRUE(buf[0] == 'x' && memcmp(win + len, before, GD_SJ_PADDING) == 0); /* restored */
    gd_sj_free(sj);
    free(buf);
}
#endif

/* Issue 24: the parallel path is really taken (a window that fails falls back to the
 * serial reader silently, and the report is the same either way, so only these
 * counters show it).  ok_two_steps.json: the traceEvents array holds 31 events, one per
 * line, every line longer than the 64-byte windows asked for, so each window is one
 * event; all but the last merge from a parse thread (the last one's window reaches the
 * array's ']', which the serial reader takes): 30 windows, and their bytes run from
 * the byte after the array's '[' (the parallel phase starts where the reader stands)
 * to the last event's '{'. */
static void test_parallel_taken(void)
{
    static const char *const modes[] = {NULL, "1"}; /* mapped, then GPUDIAG_NO_MMAP (copied) */
    FILE *fp = fopen(GD_TEST_DATA "/ok_two_steps.json", "rb");
    ASSERT_TRUE(fp != NULL);
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    const char *first = strchr(strstr(text, "\"traceEvents\""), '[') + 1;
    const char *last = first;
    for (const char *q = first; (q = strstr(q + 1, "\n  {")) != NULL;)
        last = q + 3;
    uint64_t want_bytes = (uint64_t)(last - first);
    setenv("GPUDIAG_PARSE_WINDOW", "64", 1);
    for (size_t m = 0; m < 2; m++) {
        if (modes[m])
            setenv("GPUDIAG_NO_MMAP", modes[m], 1);
        gpudiag_read_opts o;
        memset(&o, 0, sizeof o);
        o.threads = 2;
        gpudiag_trace *t = NULL;
        gpudiag_error err;
        ASSERT_EQ_INT(gpudiag_trace_read_opts(GD_TEST_DATA "/ok_two_steps.json", &o, &t, &err), GPUDIAG_OK);
#ifdef GPUDIAG_HAVE_SIMDJSON
        ASSERT_EQ_INT(t->par_windows, 30);
        ASSERT_EQ_INT(t->par_bytes, want_bytes);
#else
        ASSERT_EQ_INT(t->par_windows, 0); /* no simdjson: no parse threads */
#endif
        gpudiag_trace_free(&t);
    }
    unsetenv("GPUDIAG_NO_MMAP");
    unsetenv("GPUDIAG_PARSE_WINDOW");
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    test_example();
#ifdef GPUDIAG_HAVE_SIMDJSON
    test_sj_stale_padding();
#endif
    test_exact_numbers();
    test_truncated_and_malformed();
    test_zero_length_step();
    test_long_durations();
    test_errors();
    test_parallel_taken();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        return 1;
    TEST_DONE("test_kineto");
}
