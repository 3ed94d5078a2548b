#!/bin/sh
# Idle gaps and their causes on tests/data/ok_idle_causes.json, values derived
# by hand (docs/DEFINITIONS.md "Idle gaps and their causes"):
#   (all times below are offsets from ts 1000: a GPU op at ts 0 would be read as
#   "no CUPTI timestamp")
#   one step [0,1000]; kernels k1 [0,100] k2 [300,400] k3 [500,600] k4 [800,1000]
#   gaps inside the step: [100,300] [400,500] [600,800] = 500 us in 3 gaps
#   [100,300]: cudaStreamSynchronize [50,110] started before 100 and was still
#              running at 100                                  -> sync 200
#   [400,500]: DataLoader op [390,480] covers 80 >= 50% of it    -> dataloader 100
#   [600,800]: aten::foo [600,800]; "## forward ##" encloses all -> host_launch 200
#   HTA per stream 7: k2 launched at 250 > 100 (host_wait 200), k3 at 420 > 400
#   (host_wait 100), k4 at 590 < 600 and 200 >= 30 (other 200)
#   HTA queue length on stream 7: each launch precedes its kernel's start and the
#   previous kernel started before it, so the series is 1,0,1,0,1,0,1,0: mean 0.5, max 1
#   sync: 1 call, 60 us; top gaps by length, ties in time order:
#   [100,300] sync "## forward ##", [600,800] host_launch "aten::foo",
#   [400,500] dataloader "enumerate(DataLoader)#..."
set -eu
GD_TMP_TAG=idle
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); i = d["idle"]
checks = [
    ("gap_us", i["gap_us"], 500), ("gap_count", i["gap_count"], 3),
    ("sync", i["by_cause_us"]["sync"], 200), ("dataloader", i["by_cause_us"]["dataloader"], 100),
    ("host_launch", i["by_cause_us"]["host_launch"], 200), ("optimizer", i["by_cause_us"]["optimizer"], 0),
    ("communication", i["by_cause_us"]["communication"], 0), ("other", i["by_cause_us"]["other"], 0),
    ("sync share", i["by_cause_share_of_step"]["sync"], 0.2),
    ("sync_calls", i["sync_calls"], 1), ("sync_time_us", i["sync_time_us"], 60),
    ("stream host_wait", i["streams"][0]["host_wait_us"], 300),
    ("stream kernel_wait", i["streams"][0]["kernel_wait_us"], 0),
    ("stream other", i["streams"][0]["other_us"], 200), ("stream ops", i["streams"][0]["ops"], 4),
    ("queue mean", i["streams"][0]["queue_mean"], 0.5), ("queue max", i["streams"][0]["queue_max"], 1),
    ("full queue", i["streams"][0]["full_queue_us"], 0),
    ("top0 start", i["top_gaps"][0]["start_us"], 1100), ("top0 cause", i["top_gaps"][0]["cause"], "sync"),
    ("top0 op", i["top_gaps"][0]["cpu_op"], "## forward ##"), ("top0 step", i["top_gaps"][0]["step"], 1),
    ("top1 start", i["top_gaps"][1]["start_us"], 1600), ("top1 cause", i["top_gaps"][1]["cause"], "host_launch"),
    ("top1 op", i["top_gaps"][1]["cpu_op"], "aten::foo"),
    ("top2 start", i["top_gaps"][2]["start_us"], 1400), ("top2 cause", i["top_gaps"][2]["cause"], "dataloader"),
    ("top2 op", i["top_gaps"][2]["cpu_op"], "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
]
import os
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_idle_causes.json" "$PY"
