#!/bin/sh
# A sync call that returns a few us into a gap the host then spends in the DataLoader does not own
# the gap (DEFINITIONS "Idle gaps and their causes", rule 1). A new user's trial found TraceLens'
# MI300 OWLv2 trace with dataloader_stall 64% and sync_stall 56% both [high]: 120% of a step that
# was 69.7% idle, the same gaps counted twice.
# tests/data/ok_sync_then_dataloader.json, by hand (offsets from ts 1000, one step [0,1000]):
#   host: cudaLaunchKernel [-20,-10] -> k1 [0,100]; cudaMemcpy (sync, DtoH) [50,103] -> copy
#         [100,101]; DataLoader __next__ [110,780]; cudaLaunchKernel [785,795] -> k2 [800,1000]
#   gap [101,800] 699: the sync call runs at 101 but returns at 103 (2 us of the gap, < half);
#   the DataLoader op covers 670 >= 349.5 -> dataloader 699 (before: sync 699).
#   dataloader_stall = DataLoader time while no GPU op runs: 670/1000 = 0.67, leads; no
#   sync_stall (before: sync_stall 0.699 and dataloader_stall 0.67, 137% of the step).
set -eu
GD_TMP_TAG=syncdl
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("gaps", [(g["start_us"] - 1000, g["duration_us"], g["cause"]) for g in i["gaps"]], [(101, 699, "dataloader")]),
    ("sync", c["sync"], 0), ("dataloader", c["dataloader"], 699),
    ("dl gain", f["dataloader_stall"]["est_gain"], 0.67), ("no sync_stall", "sync_stall" in f, False),
    ("bottleneck", d["verdict"]["bottleneck"], "data_pipeline"), ("finding", d["verdict"]["finding"], "dataloader_stall"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_sync_then_dataloader.json" "$PY" || rc=1
exit $rc
