#!/bin/sh
# test_watch.sh — `gpudiag watch` against the fake libnvidia-ml (tests/fake_nvml)
# loaded through gpudiag's real dlopen path (GPUDIAG_NVML_LIB), and the
# built-in test backend.  Expected values are written from the scripts by hand
# (bytes -> MiB, KB/s -> MiB/s, mW handled by the fake), not from gpudiag's output.
# Cases: no library / bad path / nvmlInit failure -> exit 4 with a message
# naming what was looked for; full driver (memory v2, ClocksEventReasons, GPM
# from the second sample on); old driver (v1 memory: used includes reserved,
# ClocksThrottleReasons, no GPM); a library with only the required symbols
# (everything N/A, no crash); a GPU lost mid-run; a GPU whose handle cannot be
# opened; --gpus selection and usage errors; the tty-less verdict lines; --json lines;
# NVML's encoder/decoder utilisation (a video GPU's rolling verdict; NOT_SUPPORTED or
# missing symbols -> null and the verdict of before).
# Environment: GPUDIAG, FAKE_NVML_FULL/OLD/MINIMAL (paths of the fake builds).
# Exit: 0 all passed, 1 any failure, 77 fake libraries or python3 missing.

GD_TMP_TAG=watch
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

if [ -z "${FAKE_NVML_FULL:-}" ] || [ ! -f "$FAKE_NVML_FULL" ]; then
    echo "skip: FAKE_NVML_FULL not set (run through ctest)"
    exit 77
fi

GD_SHOW_STDERR=1   # nok prints the head of $TMP/err (tests/cli/common.sh)

expect_err() {
    if grep -q -- "$1" "$TMP/err"; then ok; else nok "stderr lacks '$1'"; fi
}

cat > "$TMP/full.txt" <<'S'
count 2
name 0 NVIDIA H100 80GB HBM3
driver 550.54.15
gpm 0 1
set 0 util 98
set 0 memutil 30
set 0 mem_total 85899345920     # 81920 MiB
set 0 mem_used 42949672960      # 40960 MiB
set 0 mem_reserved 536870912    # 512 MiB
set 0 sm_clock 1755
set 0 sm_clock_max 1980
set 0 mem_clock 2619
set 0 mem_clock_max 2619
set 0 power 512.5
set 0 power_limit 700
set 0 temp 61
set 0 pcie_rx 2048              # KB/s -> 2 MiB/s
set 0 pcie_tx 512               # 0.5 MiB/s
set 0 pcie_gen 4
set 0 pcie_gen_max 5
set 0 pcie_width 16
set 0 pcie_width_max 16
set 0 reasons 4                 # SW power cap
set 0 sm_active 41,43
set 0 tensor 12
set 0 dram 20
set 0 sm_occupancy 15
set 0 nvlink_rx 100
set 1 util 10,20
set 1 temp NOT_SUPPORTED
S

# -- no GPU / driver ------------------------------------------------------
CASE="no library"
expect_rc 4 env GPUDIAG_NVML_LIB= LD_LIBRARY_PATH=/nonexistent "$GPUDIAG" watch --count 1
if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1 ]; then
    echo "note: a real libnvidia-ml is installed; the no-library case is not meaningful here"
else
    expect_err "libnvidia-ml.so.1"
    expect_err "GPUDIAG_NVML_LIB"
fi
CASE="bad GPUDIAG_NVML_LIB"
expect_rc 4 env GPUDIAG_NVML_LIB="$TMP/nope.so" "$GPUDIAG" watch --count 1
expect_err "nope.so"
CASE="init fails"
printf 'init DRIVER_NOT_LOADED\n' > "$TMP/init.txt"
expect_rc 4 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/init.txt" "$GPUDIAG" watch --count 1
expect_err "nvmlInit failed: Driver Not Loaded"
CASE="no GPUs"
printf 'count 0\n' > "$TMP/zero.txt"
expect_rc 4 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/zero.txt" "$GPUDIAG" watch --count 1
expect_err "NVML lists no GPU"

# -- usage ----------------------------------------------------------------
CASE="usage"
expect_rc 2 "$GPUDIAG" watch --interval 0
expect_rc 2 "$GPUDIAG" watch --count x
expect_rc 2 "$GPUDIAG" watch extra
expect_rc 0 "$GPUDIAG" watch --help
grep -q "Usage: gpudiag watch" "$TMP/out" && ok || nok "--help text"
expect_rc 2 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/full.txt" "$GPUDIAG" watch --count 1 --gpus 7
expect_err "no GPU '7'"

# -- full driver: CSV values ----------------------------------------------
CASE="full csv"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 3 --interval 250ms --csv
cp "$TMP/out" "$TMP/full.csv"
python3 - "$TMP/full.csv" <<'PY' && ok || nok "values"
import sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[1])]
hdr, rows = rows[0], rows[1:]
col = {h: i for i, h in enumerate(hdr)}
def v(r, name):
    x = r[col[name]]
    return None if x == "[N/A]" else (x if not x.replace(".", "").isdigit() else float(x))
g0 = [r for r in rows if r[1] == "0"]; g1 = [r for r in rows if r[1] == "1"]
c = [("rows", len(rows), 6), ("gpu0 rows", len(g0), 3), ("name", g0[0][3], "NVIDIA H100 80GB HBM3"),
     ("util", v(g0[0], "utilization.gpu [%]"), 98), ("memutil", v(g0[0], "utilization.memory [%]"), 30),
     ("used MiB", v(g0[0], "memory.used [MiB]"), 40960), ("total MiB", v(g0[0], "memory.total [MiB]"), 81920),
     ("reserved MiB", v(g0[0], "memory.reserved [MiB]"), 512),
     ("sm clock", v(g0[0], "clocks.current.sm [MHz]"), 1755), ("sm max", v(g0[0], "clocks.max.sm [MHz]"), 1980),
     ("mem clock", v(g0[0], "clocks.current.memory [MHz]"), 2619),
     ("power", v(g0[0], "power.draw [W]"), 512.5), ("limit", v(g0[0], "enforced.power.limit [W]"), 700),
     ("temp", v(g0[0], "temperature.gpu"), 61), ("gen", v(g0[0], "pcie.link.gen.current"), 4),
     ("gen max", v(g0[0], "pcie.link.gen.max"), 5), ("width", v(g0[0], "pcie.link.width.current"), 16),
     ("reasons", g0[0][col["clocks_event_reasons.active"]], "0x0000000000000004"),
     ("rx", v(g0[0], "pcie.rx [MiB/s]"), 2), ("tx", v(g0[0], "pcie.tx [MiB/s]"), 0.5),
     # GPM needs two samples: the first row primes the baseline
     ("sm active first", v(g0[0], "gpm.sm_active [%]"), None),
     # later rows: GPM over a pair of samples >= 100 ms apart (a row closer than that to
     # the baseline, possible on a loaded machine, has none); the fake's values cycle 41, 43
     ("sm active later", [x for x in (v(r, "gpm.sm_active [%]") for r in g0[1:]) if x is not None][:2],
      [41, 43][:len([r for r in g0[1:] if v(r, "gpm.sm_active [%]") is not None])]),
     ("some GPM row", any(v(r, "gpm.sm_active [%]") is not None for r in g0[1:]), True),
     ("tensor", set(v(r, "gpm.tensor_active [%]") for r in g0[1:]) - {None}, {12}),
     ("dram", set(v(r, "gpm.dram_active [%]") for r in g0[1:]) - {None}, {20}),
     ("occupancy", set(v(r, "gpm.sm_occupancy [%]") for r in g0[1:]) - {None}, {15}),
     ("nvlink rx", set(v(r, "gpm.nvlink.rx [MiB/s]") for r in g0[1:]) - {None}, {100}),
     ("nvlink tx unsupported", set(v(r, "gpm.nvlink.tx [MiB/s]") for r in g0), {None}),
     ("gpu1 util seq", [v(r, "utilization.gpu [%]") for r in g1], [10, 20, 10]),
     ("gpu1 temp unsupported", v(g1[0], "temperature.gpu"), None),
     ("gpu1 no gpm", v(g1[1], "gpm.sm_active [%]"), None),
     ("gpu1 power unset", v(g1[0], "power.draw [W]"), None)]
valcheck.run(c, "full csv")
PY

# -- full driver: JSON lines (gpudiag.watch/1) --------------------------------
# The same script in the sampler's units: bytes (MiB x 2^20), bytes/s (KB/s x 1024 for
# PCIe, MiB/s x 2^20 for GPM NVLink), W, MHz, %; unknown values null, never 0.
CASE="full json"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 3 --interval 250ms --json
python3 - "$TMP/out" <<'PY' && ok || nok "json values"
import json, os, sys, time
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
lines = open(sys.argv[1]).read().splitlines()
rows = [json.loads(l) for l in lines]
g0 = [r for r in rows if r["index"] == 0]; g1 = [r for r in rows if r["index"] == 1]
def later(k):
    return set(r[k] for r in g0[1:]) - {None}
c = [("lines", len(lines), 6), ("schema", set(r["schema"] for r in rows), {"gpudiag.watch/1"}),
     ("order", [r["index"] for r in rows], [0, 1, 0, 1, 0, 1]),
     ("name", g0[0]["name"], "NVIDIA H100 80GB HBM3"), ("uuid", g0[0]["uuid"][:4], "GPU-"),
     ("lost", set(r["lost"] for r in rows), {False}),
     ("util", g0[0]["gpu_util_pct"], 98), ("memutil", g0[0]["mem_util_pct"], 30),
     ("used", g0[0]["mem_used_bytes"], 42949672960), ("total", g0[0]["mem_total_bytes"], 85899345920),
     ("reserved", g0[0]["mem_reserved_bytes"], 536870912),
     ("sm clock", g0[0]["sm_clock_mhz"], 1755), ("sm max", g0[0]["sm_clock_max_mhz"], 1980),
     ("mem clock", g0[0]["mem_clock_mhz"], 2619), ("mem max", g0[0]["mem_clock_max_mhz"], 2619),
     ("power", g0[0]["power_w"], 512.5), ("limit", g0[0]["power_limit_w"], 700), ("temp", g0[0]["temp_c"], 61),
     ("rx", g0[0]["pcie_rx_bytes_per_s"], 2097152), ("tx", g0[0]["pcie_tx_bytes_per_s"], 524288),
     ("gen", g0[0]["pcie_gen"], 4), ("gen max", g0[0]["pcie_gen_max"], 5), ("width", g0[0]["pcie_width"], 16),
     ("reasons", g0[0]["clock_event_reasons"], 4),
     ("sm active first", g0[0]["sm_active_pct"], None),
     ("sm active later", [x for x in (r["sm_active_pct"] for r in g0[1:]) if x is not None],
      [41, 43][:len([r for r in g0[1:] if r["sm_active_pct"] is not None])]),
     ("tensor", later("tensor_active_pct"), {12}), ("dram", later("dram_active_pct"), {20}),
     ("occupancy", later("sm_occupancy_pct"), {15}), ("nvlink rx", later("nvlink_rx_bytes_per_s"), {104857600}),
     ("nvlink tx unsupported", set(r["nvlink_tx_bytes_per_s"] for r in g0), {None}),
     ("gpu1 util seq", [r["gpu_util_pct"] for r in g1], [10, 20, 10]),
     ("gpu1 temp unsupported", g1[0]["temp_c"], None), ("gpu1 power unset", g1[0]["power_w"], None),
     ("gpu1 no gpm", g1[1]["sm_active_pct"], None),
     ("encoder never set: null", set(r["enc_util_pct"] for r in rows), {None}),
     ("decoder never set: null", set(r["dec_util_pct"] for r in rows), {None}),
     ("time rises", all(a["t_s"] <= b["t_s"] for a, b in zip(g0, g0[1:])), True),
     ("time is now", abs(g0[0]["t_s"] - time.time()) < 600, True),
     ("verdicts", all(r["verdict"].startswith("GPU %d: " % r["index"]) for r in rows), True)]
valcheck.run(c, "full json")
PY
expect_rc 2 "$GPUDIAG" watch --csv --json
expect_err "give one"

CASE="full text + verdict"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 3 --interval 250ms --gpus 0
grep -q "^# verdict: GPU 0: GPU-Util 98% but SM active 4[123]%: util is misleading" "$TMP/out" && ok || nok "misleading verdict: $(grep verdict "$TMP/out")"
grep -q "clocks held down: power cap" "$TMP/out" && ok || nok "power cap in verdict"
grep -q "PCIe link gen 4 x16 of gen 5 x16" "$TMP/out" && ok || nok "PCIe degraded in verdict"
grep -q "^    1 " "$TMP/out" && nok "--gpus 0 printed GPU 1" || ok

CASE="idle verdict"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 2 --interval 20ms --gpus GPU-fake0000-0000-0000-0000-000000000001
grep -q "^# verdict: GPU 1: GPU-Util 15%: idle most of the time" "$TMP/out" && ok || nok "idle verdict: $(grep verdict "$TMP/out")"

# -- video engines (NVENC/NVDEC) -------------------------------------------------
# GPU-Util 2,1,3 over the 3 samples: mean 2 % (< 30: the idle line), but the encoder reads 88 %
# and the decoder 71 % on every sample (>= 10 %: the video engines are busy, DEFINITIONS
# "Rolling verdict"), so the verdict names their means 88 % and 71 % instead of "idle".  The same
# GPU with the encoder NOT_SUPPORTED and no decoder answer keeps the idle line of before.
printf 'count 1\nset 0 util 2,1,3\nset 0 mem_total 25769803776\nset 0 mem_used 21474836480\nset 0 enc_util 88\nset 0 dec_util 71\n' > "$TMP/video.txt"
printf 'count 1\nset 0 util 2,1,3\nset 0 mem_total 25769803776\nset 0 mem_used 21474836480\nset 0 enc_util NOT_SUPPORTED\n' > "$TMP/novideo.txt"
CASE="video verdict"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/video.txt" \
    "$GPUDIAG" watch --count 3 --interval 20ms
grep -q "^# verdict: GPU 0: video encode/decode: encoder 88%, decoder 71% (GPU-Util 2% does not count NVENC/NVDEC)$" "$TMP/out" &&
    ok || nok "video verdict: $(grep verdict "$TMP/out")"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/video.txt" \
    "$GPUDIAG" watch --count 3 --interval 20ms --json
python3 - "$TMP/out" <<'PY' && ok || nok "video json"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["enc_util_pct"] for r in rows] == [88] * 3 and [r["dec_util_pct"] for r in rows] == [71] * 3, rows[0]
assert rows[-1]["verdict"].startswith("GPU 0: video encode/decode: encoder 88%, decoder 71%"), rows[-1]["verdict"]
PY
# the window's p95, as logs judge it (one helper): 20 samples, the encoder 12 % on one, 0 on the
# others: p95 = 0 + (12 - 0) x (0.95 x 19 - 18) = 0.6 % < 10 %: not video work, the idle line
# (before: any sample >= 10 % made it a video GPU)
printf 'count 1\nset 0 util 2\nset 0 enc_util 0,0,0,0,0,0,0,0,0,12,0,0,0,0,0,0,0,0,0,0\nset 0 dec_util 0\n' > "$TMP/spike.txt"
CASE="one encoder spike"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/spike.txt" \
    "$GPUDIAG" watch --count 20 --interval 10ms --json
python3 - "$TMP/out" <<'PY' && ok || nok "one encoder spike: idle, not video"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(r["enc_util_pct"] for r in rows) == [0] * 19 + [12], [r["enc_util_pct"] for r in rows]
assert rows[-1]["verdict"].startswith("GPU 0: GPU-Util 2%: idle most of the time"), rows[-1]["verdict"]
PY
CASE="no video readings"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/novideo.txt" \
    "$GPUDIAG" watch --count 3 --interval 20ms --json
python3 - "$TMP/out" <<'PY' && ok || nok "not supported: null, and the idle verdict of before"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert all(r["enc_util_pct"] is None and r["dec_util_pct"] is None for r in rows), rows[0]
assert rows[-1]["verdict"] == "GPU 0: GPU-Util 2%: idle most of the time; it waits for input data, the host or communication", rows[-1]["verdict"]
PY
# a reading above 100 % is no percentage: unknown (null), never clipped; 100 itself is kept
printf 'count 1\nset 0 util 2\nset 0 enc_util 101,100\n' > "$TMP/video101.txt"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/video101.txt" \
    "$GPUDIAG" watch --count 3 --interval 20ms --json
python3 -c 'import json,sys; e=[json.loads(l)["enc_util_pct"] for l in open(sys.argv[1])]; sys.exit(e != [None, 100, None])' "$TMP/out" &&
    ok || nok "encoder 101,100,101: $(cut -c1-120 "$TMP/out")"

# -- old driver: only unversioned symbols ----------------------------------
CASE="old driver"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_OLD" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 2 --interval 120ms --csv
python3 - "$TMP/out" <<'PY' && ok || nok "old driver values"
import sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[1])]
col = {h: i for i, h in enumerate(rows[0])}
r = [x for x in rows[1:] if x[1] == "0"][1]
c = [("v1 used includes reserved", r[col["memory.used [MiB]"]], "41472"),
     ("v1 has no reserved", r[col["memory.reserved [MiB]"]], "[N/A]"),
     ("throttle reasons (old name)", r[col["clocks_event_reasons.active"]], "0x0000000000000004"),
     ("no GPM symbols", r[col["gpm.sm_active [%]"]], "[N/A]"),
     ("util", r[col["utilization.gpu [%]"]], "98")]
valcheck.run(c, "old driver")
PY

# -- only the required symbols ----------------------------------------------
CASE="minimal library"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_MINIMAL" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 2 --interval 20ms --csv
python3 - "$TMP/out" <<'PY' && ok || nok "minimal: every value N/A"
import sys
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[1])][1:]
assert len(rows) == 4, rows
for r in rows:
    assert r[2] == "[N/A]" and r[3] == "[N/A]", r       # no UUID / name symbols
    assert all(x == "[N/A]" for x in r[4:]), r
PY
CASE="minimal text"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_MINIMAL" FAKE_NVML_SCRIPT="$TMP/full.txt" \
    "$GPUDIAG" watch --count 1
grep -q "no utilization reading" "$TMP/out" && ok || nok "minimal verdict"

CASE="minimal: no encoder/decoder symbols"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_MINIMAL" FAKE_NVML_SCRIPT="$TMP/video.txt" \
    "$GPUDIAG" watch --count 1 --json
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); sys.exit(not (r["enc_util_pct"] is None and r["dec_util_pct"] is None))' "$TMP/out" &&
    ok || nok "minimal: encoder/decoder not null: $(head -c 300 "$TMP/out")"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_MINIMAL" FAKE_NVML_SCRIPT="$TMP/video.txt" \
    "$GPUDIAG" watch --count 1 --csv
head -1 "$TMP/out" | grep -q ', utilization.encoder \[%\], utilization.decoder \[%\]$' && ok || nok "csv header lacks the encoder/decoder columns"

# -- a GPU lost mid-run, a GPU that cannot be opened --------------------------
cat > "$TMP/lost.txt" <<'S'
count 3
handle_err 1 NO_PERMISSION
set 0 util 90
set 0 temp 50
lost_after 0 2
set 2 util 55
S
CASE="lost GPU"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/lost.txt" \
    "$GPUDIAG" watch --count 4 --interval 10ms --csv
python3 - "$TMP/out" <<'PY' && ok || nok "lost GPU rows"
import sys
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[1])][1:]
idx = sorted(set(r[1] for r in rows))
assert idx == ["0", "2"], idx                            # GPU 1 has no handle: skipped
g0 = [r for r in rows if r[1] == "0"]
assert [r[4] for r in g0] == ["90", "90", "[N/A]", "[N/A]"], [r[4] for r in g0]
assert g0[2][15] == "[N/A]" and g0[1][15] == "50"
assert [r[4] for r in rows if r[1] == "2"] == ["55"] * 4
PY
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/lost.txt" \
    "$GPUDIAG" watch --count 4 --interval 10ms --gpus 0
grep -q "GPU is lost" "$TMP/out" && ok || nok "lost row in text"
expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/lost.txt" \
    "$GPUDIAG" watch --count 4 --interval 10ms --gpus 0 --json
python3 - "$TMP/out" <<'PY' && ok || nok "lost GPU in json"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["lost"] for r in rows] == [False, False, True, True], [r["lost"] for r in rows]
assert rows[1]["temp_c"] == 50 and rows[2]["temp_c"] is None and rows[2]["gpu_util_pct"] is None, rows[2]
PY
grep -q "lost during the window" "$TMP/out" && ok || nok "lost in verdict"

# -- test backend -----------------------------------------------------------
CASE="test backend"
expect_rc 0 env GPUDIAG_TEST_GPUS=3 "$GPUDIAG" watch --backend test --count 4 --interval 10ms --csv
python3 - "$TMP/out" <<'PY' && ok || nok "test backend pattern"
import sys
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[1])][1:]
assert len(rows) == 12, len(rows)
g2 = [r for r in rows if r[1] == "2"]
assert [r[4] for r in g2] == ["90", "90", "90", "10"], [r[4] for r in g2]
assert [r[23] for r in g2] == ["[N/A]", "45.0", "45.0", "5.0"], [r[23] for r in g2]
PY
expect_rc 2 "$GPUDIAG" watch --backend nope --count 1
expect_err "unknown sampling backend"

finish
