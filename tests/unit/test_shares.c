/* The report's shares and rates that the analysis computes once for the
 * renderers and rules (src/analyze/passes.h), against values worked out by
 * hand: GB/s = bytes / µs / 1e3, link share = GB/s / PCIe GB/s. */
#include <math.h>
#include <string.h>

#include "analyze/passes.h"
#include "test.h"

static void test_transfer_rates(void)
{
    gpudiag_report r;
    memset(&r, 0, sizeof r);
    gpudiag_device dev[2];
    memset(dev, 0, sizeof dev);
    dev[0].pcie_gbs_per_dir = NAN; /* GPU not identified: skipped */
    dev[1].pcie_gbs_per_dir = 31.5;
    r.devices = dev;
    r.device_count = 2;
    r.transfers[GPUDIAG_COPY_H2D] = (gpudiag_transfer){3, 6.3e9, 1e6}; /* 6.3e9 B in 1 s */
    r.transfers[GPUDIAG_COPY_D2H] = (gpudiag_transfer){1, 1e9, 0};     /* no time */
    r.transfers[GPUDIAG_COPY_D2D] = (gpudiag_transfer){2, 4e9, 2e6};   /* 4e9 B in 2 s */
    r.pageable = (gpudiag_transfer){1, 3.15e8, 1e5};                   /* 3.15e8 B in 0.1 s */
    gd_build_transfer_rates(&r);
    ASSERT_NEAR(r.pcie_link_gb_per_s, 31.5, 1e-12);
    ASSERT_NEAR(r.transfer_rates[GPUDIAG_COPY_H2D].gb_per_s, 6.3, 1e-12);
    ASSERT_NEAR(r.transfer_rates[GPUDIAG_COPY_H2D].link_gb_per_s, 31.5, 1e-12);
    ASSERT_NEAR(r.transfer_rates[GPUDIAG_COPY_H2D].link_share, 0.2, 1e-12);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_D2H].gb_per_s);
    ASSERT_NEAR(r.transfer_rates[GPUDIAG_COPY_D2H].link_gb_per_s, 31.5, 1e-12);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_D2H].link_share);
    /* device-to-device copies do not cross the host link */
    ASSERT_NEAR(r.transfer_rates[GPUDIAG_COPY_D2D].gb_per_s, 2.0, 1e-12);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_D2D].link_gb_per_s);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_D2D].link_share);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_OTHER].gb_per_s);
    ASSERT_NEAR(r.pageable_rate.gb_per_s, 3.15, 1e-12);
    ASSERT_NEAR(r.pageable_rate.link_share, 0.1, 1e-12);

    /* no identified GPU: the link and every share are unknown, the rate is not */
    r.device_count = 1;
    gd_build_transfer_rates(&r);
    ASSERT_NAN(r.pcie_link_gb_per_s);
    ASSERT_NEAR(r.transfer_rates[GPUDIAG_COPY_H2D].gb_per_s, 6.3, 1e-12);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_H2D].link_gb_per_s);
    ASSERT_NAN(r.transfer_rates[GPUDIAG_COPY_H2D].link_share);
    ASSERT_NAN(r.pageable_rate.link_share);
}

static void test_class_and_comm_shares(void)
{
    gpudiag_report r;
    memset(&r, 0, sizeof r);
    r.kernel_time_us = 400;
    r.class_time_us[GPUDIAG_KCLASS_GEMM] = 300;
    r.class_time_us[GPUDIAG_KCLASS_NORM] = 100;
    gd_build_class_shares(&r);
    ASSERT_NEAR(r.class_share[GPUDIAG_KCLASS_GEMM], 0.75, 1e-15);
    ASSERT_NEAR(r.class_share[GPUDIAG_KCLASS_NORM], 0.25, 1e-15);
    ASSERT_NEAR(r.class_share[GPUDIAG_KCLASS_ATTENTION], 0.0, 0);
    r.kernel_time_us = 0; /* no kernels */
    gd_build_class_shares(&r);
    ASSERT_NAN(r.class_share[GPUDIAG_KCLASS_GEMM]);
    r.kernel_time_us = NAN; /* a monitoring log */
    gd_build_class_shares(&r);
    ASSERT_NAN(r.class_share[GPUDIAG_KCLASS_NORM]);

    r.comm_kind_us[GPUDIAG_COMM_ALL_REDUCE] = 30;
    r.comm_kind_us[GPUDIAG_COMM_ALL_GATHER] = 10;
    gd_build_comm_kind_shares(&r);
    ASSERT_NEAR(r.comm_kind_share[GPUDIAG_COMM_ALL_REDUCE], 0.75, 1e-15);
    ASSERT_NEAR(r.comm_kind_share[GPUDIAG_COMM_ALL_GATHER], 0.25, 1e-15);
    ASSERT_NEAR(r.comm_kind_share[GPUDIAG_COMM_BROADCAST], 0.0, 0);
    memset(r.comm_kind_us, 0, sizeof r.comm_kind_us); /* no collectives */
    gd_build_comm_kind_shares(&r);
    ASSERT_NAN(r.comm_kind_share[GPUDIAG_COMM_ALL_REDUCE]);
}

/* GEMM fill through gd_build_shares, which computes every share at once. */
static void test_gemm_fill_share(void)
{
    gpudiag_report r;
    memset(&r, 0, sizeof r);
    r.kernel_time_us = NAN;
    r.gemm_blocks_known_us = 120;
    r.gemm_underfilled_us = 30;
    gd_build_shares(&r);
    ASSERT_NEAR(r.gemm_underfilled_share, 0.25, 1e-15);
    ASSERT_NAN(r.class_share[GPUDIAG_KCLASS_GEMM]); /* no kernel time */
    ASSERT_NAN(r.comm_kind_share[GPUDIAG_COMM_ALL_REDUCE]);
    ASSERT_NAN(r.pcie_link_gb_per_s);
    r.gemm_blocks_known_us = 0; /* no GEMM with "blocks per SM" */
    gd_build_shares(&r);
    ASSERT_NAN(r.gemm_underfilled_share);
}

int main(void)
{
    test_gemm_fill_share();
    test_transfer_rates();
    test_class_and_comm_shares();
    TEST_DONE("test_shares");
}
