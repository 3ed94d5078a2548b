/*
 * test_saved.c — a saved report read back by compare is input like any other
 * (issue 19 class 18): every field compare uses is checked for type and for
 * the range analyze writes, and a bad one is refused naming the field.  Each
 * document below is written by hand; the accepted one's per-step utilisation
 * is its kernel time over its duration (40/100, 60/120).
 */
#include <string.h>

#include "analyze/compare_side.h"
#include "gpudiag/compare.h"
#include "test.h"

#define HEAD "{\"schema\":\"gpudiag.report/1\","
#define STEPS_OK "\"steps\":[{\"number\":1,\"duration_us\":100,\"breakdown_us\":{\"kernel\":40}}," \
                 "{\"number\":2,\"duration_us\":120,\"breakdown_us\":{\"kernel\":60}}]"

static gpudiag_status parse(const char *doc, gpudiag_side **s, gpudiag_error *err)
{
    memset(err, 0, sizeof *err);
    *s = NULL;
    return gd_side_parse_json(doc, strlen(doc), "saved.json", s, err);
}

/* doc is refused (malformed input, exit 3) with a message containing want. */
static void refused(const char *doc, const char *want)
{
    gpudiag_side *s = NULL;
    gpudiag_error err;
    gpudiag_status st = parse(doc, &s, &err);
    if (st != GPUDIAG_ERR_FORMAT || !strstr(err.message, want))
        fprintf(stderr, "document: %s\nstatus %d, message: %s\nwanted: %s\n", doc, (int)st, err.message, want);
    ASSERT_EQ_INT(st, GPUDIAG_ERR_FORMAT);
    ASSERT_TRUE(strstr(err.message, want) != NULL);
    ASSERT_STR_EQ(err.path, "saved.json");
    ASSERT_TRUE(s == NULL);
}

int main(void)
{
    gpudiag_side *s = NULL;
    gpudiag_error err;
    /* accepted: nulls where analyze writes null, absent optional fields */
    ASSERT_EQ_INT(parse(HEAD STEPS_OK ",\"summary\":{\"gpu_utilization\":0.45,\"mfu\":null},"
                        "\"findings\":[{\"id\":\"host_overhead\",\"title\":\"t\",\"severity\":\"high\",\"est_gain\":0.3},"
                        "{\"id\":\"single_step\",\"severity\":\"info\",\"est_gain\":null}],"
                        "\"kernels\":{\"distinct\":1,\"top\":[{\"name\":\"k\",\"calls\":3,\"total_us\":100}]}}",
                        &s, &err),
                  GPUDIAG_OK);
    ASSERT_EQ_INT(s->nsteps, 2);
    ASSERT_NEAR(s->step_util[0], 0.4, 1e-12);
    ASSERT_NEAR(s->step_util[1], 0.5, 1e-12);
    ASSERT_NEAR(s->gpu_utilization, 0.45, 1e-12);
    ASSERT_NAN(s->mfu);
    ASSERT_EQ_INT(s->nfind, 2);
    ASSERT_EQ_INT(s->nkern, 1);
    gpudiag_side_free(&s);

    /* types */
    refused(HEAD "\"steps\":[{\"number\":1,\"duration_us\":\"100\"}]}",
            "steps[0].duration_us wants a number in [0, 1e+15], got a string");
    refused(HEAD "\"steps\":[{\"number\":1}]}", "steps[0].duration_us wants a number in [0, 1e+15], got nothing");
    refused(HEAD "\"steps\":[{\"number\":1,\"duration_us\":null}]}", "steps[0].duration_us wants a number");
    refused(HEAD "\"steps\":[7]}", "steps[0] wants an object, got 7");
    refused(HEAD "\"steps\":[{\"number\":1.5,\"duration_us\":100}]}", "steps[0].number wants a whole number");
    refused(HEAD STEPS_OK ",\"summary\":{\"idle_share\":true}}", "summary.idle_share wants a number in [0, 1] or null, got a boolean");
    refused(HEAD STEPS_OK ",\"findings\":{}}", "findings wants an array, got an object");
    refused(HEAD STEPS_OK ",\"findings\":[{\"severity\":\"high\"}]}", "findings[0].id wants a finding id");
    refused(HEAD STEPS_OK ",\"kernels\":{\"top\":[{\"name\":3,\"calls\":1,\"total_us\":1}]}}",
            "kernels.top[0].name wants a string, got 3");
    /* ranges */
    refused(HEAD "\"steps\":[{\"number\":1,\"duration_us\":-5}]}", "steps[0].duration_us wants a number in [0, 1e+15], got -5");
    refused(HEAD "\"steps\":[{\"number\":1,\"duration_us\":1e400}]}", "steps[0].duration_us wants a number");
    refused(HEAD "\"steps\":[{\"number\":1,\"duration_us\":100,\"breakdown_us\":{\"kernel\":-1}}]}",
            "steps[0].breakdown_us.kernel wants a number in [0, 1e+15] or null, got -1");
    refused(HEAD STEPS_OK ",\"summary\":{\"gpu_utilization\":1.5}}",
            "summary.gpu_utilization wants a number in [0, 1] or null, got 1.5");
    refused(HEAD STEPS_OK ",\"breakdown\":{\"share\":{\"dataloader\":2}}}", "breakdown.share.dataloader wants a number in [0, 1]");
    refused(HEAD STEPS_OK ",\"idle\":{\"by_cause_share_of_step\":{\"sync\":-0.1}}}",
            "idle.by_cause_share_of_step.sync wants a number in [0, 1] or null, got -0.1");
    refused(HEAD STEPS_OK ",\"findings\":[{\"id\":\"x\",\"severity\":\"urgent\"}]}",
            "findings[0].severity wants one of info, low, medium, high, got a string");
    refused(HEAD STEPS_OK ",\"findings\":[{\"id\":\"x\",\"severity\":\"low\",\"est_gain\":1.2}]}",
            "findings[0].est_gain wants a number in [0, 1] or null, got 1.2");
    refused(HEAD STEPS_OK ",\"kernels\":{\"top\":[{\"name\":\"k\",\"calls\":2.5,\"total_us\":1}]}}",
            "kernels.top[0].calls wants a whole number");
    refused(HEAD STEPS_OK ",\"kernels\":{\"top\":[{\"name\":\"k\",\"calls\":2,\"total_us\":-3}]}}",
            "kernels.top[0].total_us wants a number in [0, 1e+15], got -3");
    /* a cluster document names the report */
    refused("{\"schema\":\"gpudiag.cluster/1\",\"reports\":[" HEAD STEPS_OK "}," HEAD
            "\"steps\":[{\"number\":1,\"duration_us\":-1}]}]}",
            "reports[1].steps[0].duration_us wants a number");
    printf("test_saved: %d checks passed\n", gd_test_count);
    return 0;
}
