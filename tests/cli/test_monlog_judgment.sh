#!/bin/sh
# test_monlog_judgment.sh — a monitoring log's verdict words (DEFINITIONS "The verdict's words for a
# log", "Few samples") on the shared logs a new user read; expected values derived by hand below.
GD_TMP_TAG=monlogjudg
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
LOGS="$GD_SHARED/data/logs"
js() { "$GPUDIAG" analyze --json "$1" > "$2" 2> "$TMP/err" || nok "$1: exit $? $(cat "$TMP/err")"; }

# nvsmi_query_csv_l1_inference_job_gaps.csv: LLM inference, 8 samples (< 30): data_pipeline in neutral
# words ("if this is a training job's input pipeline"), "only 8 samples (fewer than 30)";
# low_gpu_utilization: gpu_util median 0.36 (0.30..0.50: medium) one level lower -> low; gain
# 1 - mean / 0.70 stays (0.35), its advice calls it a prior.
if [ -f "$LOGS/nvsmi_query_csv_l1_inference_job_gaps.csv" ]; then
    js "$LOGS/nvsmi_query_csv_l1_inference_job_gaps.csv" "$TMP/inf.json"
    if python3 - "$TMP/inf.json" <<'PY'; then ok; else nok "inference log: neutral words, few samples"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; s = v["summary"]
assert v["bottleneck"] == "data_pipeline", v
assert "if this is a training job's input pipeline" in s and "waits between bursts of work" in s, s
assert "(data supply first: DataLoader" not in s, s
assert "only 8 samples (fewer than 30): a short look, low confidence" in s, s
f = [x for x in d["findings"] if x["id"] == "low_gpu_utilization"][0]
assert f["severity"] == "low" and abs(f["est_gain"] - 0.35) < 0.01, (f["severity"], f["est_gain"])
assert f["title"].endswith("; 8 samples (fewer than 30): low confidence"), f["title"]
assert "is a prior" in f["recommendation"], f["recommendation"]
PY
fi
# dcgmi_dmon_triton_t4_resnet_1inst.log: TensorRT on Triton, 3 samples: host_launch; torch.compile
# only as an example beside framework-neutral knobs and TensorRT.
if [ -f "$LOGS/dcgmi_dmon_triton_t4_resnet_1inst.log" ]; then
    js "$LOGS/dcgmi_dmon_triton_t4_resnet_1inst.log" "$TMP/trt.json"
    if python3 - "$TMP/trt.json" <<'PY'; then ok; else nok "triton log: framework-neutral host_launch"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; s = v["summary"]
assert v["bottleneck"] == "host_launch", v
assert "(larger batch, torch.compile, CUDA Graphs)" not in s, s
i = s.index("e.g."); assert i < s.index("torch.compile") and "TensorRT" in s and "concurrent requests" in s, s
assert "only 3 samples (fewer than 30)" in s, s
PY
fi
# dcgmi_dmon_e1001_1004_1005_a100_tensor_ramp.log: tensor active median 0.93 >= 0.50 with compute
# high: saturated on the right units, never "Tensor Cores, mixed precision" as the fix.
if [ -f "$LOGS/dcgmi_dmon_e1001_1004_1005_a100_tensor_ramp.log" ]; then
    js "$LOGS/dcgmi_dmon_e1001_1004_1005_a100_tensor_ramp.log" "$TMP/tc.json"
    if python3 - "$TMP/tc.json" <<'PY'; then ok; else nok "tensor ramp: no Tensor Core advice"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; s = v["summary"]
assert v["bottleneck"] == "compute", v
assert "Tensor Cores, mixed precision" not in s and "compute-saturated on the right units" in s, s
assert "tensor active 93 %: compute-bound on Tensor Cores" in s, s
PY
fi
# 30 samples or more: no short-look note (tests/data/monlog/dmon_nccl_hang.log: 60 samples)
js "$GD_TEST_DATA/monlog/dmon_nccl_hang.log" "$TMP/long.json"
if python3 - "$TMP/long.json" <<'PY'; then ok; else nok "60 samples: no short-look note"; fi
import json, sys
s = json.load(open(sys.argv[1]))["verdict"]["summary"]
assert "fewer than 30" not in s, s
PY

# MIG counted apart (DEFINITIONS "Monitoring series", MIG): prom_8xA800_cut.prom.gz has GPUs 1-7 whole
# and GPU_I_ID 3, 5, 6 of gpu="0" (no row of GPU 0 itself): 7 + 1 parent = 8 GPUs, one split into 3
# MIG instances (10 entities, was "A snapshot of 10 GPUs").
"$GPUDIAG" analyze "$GD_TEST_DATA/monlog/prom_8xA800_cut.prom.gz" > "$TMP/mig.txt" 2>&1
"$GPUDIAG" analyze --json "$GD_TEST_DATA/monlog/prom_8xA800_cut.prom.gz" > "$TMP/mig.json" 2>/dev/null
if grep -q "(prom monitoring log, 8 GPUs, one split into 3 MIG instances; 1 sample each, a snapshot)" "$TMP/mig.txt" &&
   python3 - "$TMP/mig.json" <<'PY'; then ok; else nok "MIG: 8 GPUs, one split into 3 MIG instances"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["series"]["gpus"]) == 10
assert d["verdict"]["summary"].startswith("A snapshot of 8 GPUs, one split into 3 MIG instances: one sample"), d["verdict"]
PY
# dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log: GPU 0 and its GPU-I 0, GPU-I 1 (3 entities): the
# parent has its own row -> 1 GPU split into 2 MIG instances.
if [ -f "$LOGS/dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log" ]; then
    if "$GPUDIAG" analyze "$LOGS/dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log" 2>&1 | head -1 |
        grep -q "(dcgmi monitoring log, 1 GPU split into 2 MIG instances; 9 samples each"; then ok; else nok "MIG: dcgmi group"; fi
fi

# MIG wording by count (DEFINITIONS "Monitoring series", MIG), hand-made one-scrape exporter logs:
# GPU 0 whole + one instance (GI 3) of GPU 1 -> 2 GPUs, the second with one instance: "2 GPUs, one
# with a MIG instance" (was "2 GPUs, one split into 1 MIG instance", the shared
# dcgm_exporter_metrics_lowercase_hostname_mixed_gpus_excerpt.prom); + GI 4 of GPU 1 -> "2 GPUs, one
# split into 2 MIG instances"; GPU 0 whole + GI 1 of GPU 1 + GI 2 of GPU 2 -> "3 GPUs, 2 with a MIG
# instance each"; GI 3 of GPU 1 alone -> "1 GPU with a MIG instance".
mig_line() { # gpu uuid gi
    printf 'DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="%s",UUID="GPU-%s",modelName="NVIDIA A30",GPU_I_PROFILE="1g.6gb",GPU_I_ID="%s",Hostname="h"} 0.5\n' "$1" "$2" "$3"
}
whole='DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-a0",modelName="NVIDIA A30",Hostname="h"} 0.5'
mig_case() { # expected phrase, suffix; the log is $TMP/mig_case.prom (not a pipe: nok counts here)
    if "$GPUDIAG" analyze "$TMP/mig_case.prom" 2>&1 | head -1 | grep -qF "(prom monitoring log, $1; 1 sample$2, a snapshot)"; then
        ok
    else
        nok "MIG words: $1 ($("$GPUDIAG" analyze "$TMP/mig_case.prom" 2>&1 | head -1))"
    fi
}
{ echo "$whole"; mig_line 1 a1 3; } > "$TMP/mig_case.prom"
mig_case "2 GPUs, one with a MIG instance" " each"
{ echo "$whole"; mig_line 1 a1 3; mig_line 1 a1 4; } > "$TMP/mig_case.prom"
mig_case "2 GPUs, one split into 2 MIG instances" " each"
{ echo "$whole"; mig_line 1 a1 1; mig_line 2 a2 2; } > "$TMP/mig_case.prom"
mig_case "3 GPUs, 2 with a MIG instance each" " each"
mig_line 1 a1 3 > "$TMP/mig_case.prom"
mig_case "1 GPU with a MIG instance" ""
# GPU-Util is not measured on a MIG instance (dcgm-exporter#216: it reads 0 there):
# tests/data/monlog/prom_mig_gpu_util_zero.prom, GI 1 with GR engine active 0.81/0.78/0.84/0.80
# (mean 3.23 / 4 = 0.8075) and GPU_UTIL 0: the compute indicator is GR engine active, the verdict
# compute, no idle_gpu_holding_memory (was "All GPUs are idle", "give the GPU back"); without the
# GR rows (GPU_UTIL only) the verdict is unknown, not idle.
MIGZ="$GD_TEST_DATA/monlog/prom_mig_gpu_util_zero.prom"
"$GPUDIAG" analyze --json "$MIGZ" > "$TMP/migz.json" 2>/dev/null
if python3 - "$TMP/migz.json" <<'PY'; then ok; else nok "MIG GPU-Util 0: GR engine active is the compute indicator"; fi
import json, sys
d = json.load(open(sys.argv[1]))
g = [x for x in d["series"]["gpus"] if x.get("instance") == 1][0]
assert d["verdict"]["bottleneck"] == "compute", d["verdict"]
assert g["compute_metric"] == "gr_engine_active", g["compute_metric"]
assert abs(g["metrics"]["gr_engine_active"]["mean"] - 0.8075) < 1e-9, g["metrics"]["gr_engine_active"]
assert "idle_gpu_holding_memory" not in [f["id"] for f in d["findings"]]
PY
grep -v GR_ENGINE_ACTIVE "$MIGZ" > "$TMP/migz_util_only.prom"
if "$GPUDIAG" analyze "$TMP/migz_util_only.prom" 2>&1 | grep -q "^VERDICT  unknown" &&
   ! "$GPUDIAG" analyze "$TMP/migz_util_only.prom" 2>&1 | grep -q "idle_gpu_holding_memory\|give the GPU back"; then ok
else nok "MIG GPU-Util 0 alone: cannot tell, not idle"; fi
# mixed: GI 3 and 4 of GPU 0, GI 3 of GPU 1 -> "2 GPUs, one split into 2 MIG instances, one with a
# MIG instance" (was "2 GPUs split into 3 MIG instances": a new user's reading of the shared
# dcgm_exporter_metrics_a30_mig_excerpt.prom, GPU 0 with GI 3-6 and GPU 1 with GI 3 alone);
# GI 1, 2 of GPU 0, GI 1, 2 of GPU 1, GI 1 of GPU 2, GI 1 of GPU 3 -> "4 GPUs, 2 split into 4 MIG
# instances, 2 with a MIG instance each"
{ mig_line 0 a0 3; mig_line 0 a0 4; mig_line 1 a1 3; } > "$TMP/mig_case.prom"
mig_case "2 GPUs, one split into 2 MIG instances, one with a MIG instance" " each"
# each instance's row names the GPU it is carved from: GPU 0's GI 3 and GPU 1's GI 3 are two rows
# (both read "GPU-I 3" before)
if "$GPUDIAG" analyze "$TMP/mig_case.prom" 2>&1 | grep -q "^  GPU 0 GI 3 " &&
   "$GPUDIAG" analyze "$TMP/mig_case.prom" 2>&1 | grep -q "^  GPU 1 GI 3 "; then ok; else nok "MIG rows name their GPU"; fi
{ mig_line 0 a0 1; mig_line 0 a0 2; mig_line 1 a1 1; mig_line 1 a1 2; mig_line 2 a2 1; mig_line 3 a3 1; } > "$TMP/mig_case.prom"
mig_case "4 GPUs, 2 split into 4 MIG instances, 2 with a MIG instance each" " each"
# Two GPUs each holding a GI 3 (DEFINITIONS "Monitoring series", labels and the verdict's P), three
# scrapes, no row for either GPU: GPU 0's GI 3 (pod ml/train-0) GR engine active 0.80/0.90/0.70,
# GPU 1's GI 3 (pod ml/nb-1) 0 with 10 MiB used -> one instance in use, the other allocated but
# idle. Every place names both by their GPU: the GPUS rows "GPU 0 GI 3" / "GPU 1 GI 3", the
# finding "GPU 1 GI 3 (pod ml/nb-1)", the HTML headings. The verdict counts GPU 0 in use through
# its instance: "1 of 2 MIG instances (1 GPU, 1 MIG instance in use)" under a header of "2 GPUs
# with a MIG instance each" (was "(0 GPUs, ...)": rows of whole GPUs only).
gi3_line() { # metric gpu uuid pod value
    printf '%s{gpu="%s",UUID="GPU-%s",modelName="NVIDIA A100-SXM4-40GB",GPU_I_PROFILE="3g.20gb",GPU_I_ID="3",Hostname="h",namespace="ml",pod="%s"} %s\n' "$1" "$2" "$3" "$4" "$5"
}
for gr in 0.80 0.90 0.70; do
    gi3_line DCGM_FI_PROF_GR_ENGINE_ACTIVE 0 b0 train-0 "$gr"
    gi3_line DCGM_FI_PROF_GR_ENGINE_ACTIVE 1 b1 nb-1 0
    gi3_line DCGM_FI_DEV_FB_USED 0 b0 train-0 15000
    gi3_line DCGM_FI_DEV_FB_USED 1 b1 nb-1 10
    gi3_line DCGM_FI_DEV_FB_FREE 0 b0 train-0 4856
    gi3_line DCGM_FI_DEV_FB_FREE 1 b1 nb-1 19846
done > "$TMP/gi3.prom"
"$GPUDIAG" analyze --no-color "$TMP/gi3.prom" > "$TMP/gi3.txt" 2>&1
"$GPUDIAG" analyze --html "$TMP/gi3.html" "$TMP/gi3.prom" > /dev/null 2>&1
for want in "^  GPU 0 GI 3 NVIDIA A100-SXM4-40GB @ h \[3g.20gb\]  3 samples" \
            "^  GPU 1 GI 3 NVIDIA A100-SXM4-40GB @ h \[3g.20gb\]  3 samples" \
            "^    GPU 1 GI 3 (pod ml/nb-1): allocated but idle" \
            "(prom monitoring log, 2 GPUs with a MIG instance each; 3 samples each"; do
    if grep -q "$want" "$TMP/gi3.txt"; then ok; else nok "GI 3 of two GPUs, text: $want"; fi
done
if tr '\n' ' ' < "$TMP/gi3.txt" | grep -qF "1 of 2 MIG instances (1 GPU, 1 MIG instance in use)"; then ok
else nok "GI 3 of two GPUs: the verdict counts the GPU in use through its instance"; fi
if grep -q "0 GPUs" "$TMP/gi3.txt"; then nok "GI 3 of two GPUs: 0 GPUs"; else ok; fi
if grep -qF "<h3>GPU 0 GI 3: NVIDIA A100-SXM4-40GB [3g.20gb] on h" "$TMP/gi3.html" &&
   grep -qF "<h3>GPU 1 GI 3: NVIDIA A100-SXM4-40GB [3g.20gb] on h" "$TMP/gi3.html"; then ok
else nok "GI 3 of two GPUs: HTML headings"; fi
# dcgmi names no parent for its GPU-I entities: the HTML headings say "GPU-I 0" as the text rows do
# (they printed "GPU -1 GI 0" before)
if [ -f "$LOGS/dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log" ]; then
    "$GPUDIAG" analyze --html "$TMP/dgi.html" "$LOGS/dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log" > /dev/null 2>&1
    if grep -qF "<h3>GPU-I 0" "$TMP/dgi.html" && grep -qF "<h3>GPU-I 1" "$TMP/dgi.html" &&
       ! grep -q "GPU -1" "$TMP/dgi.html"; then ok; else nok "dcgmi GPU-I labels in the HTML"; fi
fi

# a Prometheus sample without a `gpu` label has no GPU number: its label says so (it printed
# "GPU -1" in the GPUS rows, the findings and the HTML headings); JSON keeps "index": null
printf '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{modelName="NVIDIA A100-SXM4-40GB"} 0\nDCGM_FI_DEV_FB_USED{modelName="NVIDIA A100-SXM4-40GB"} 30000\nDCGM_FI_DEV_GPU_UTIL{modelName="NVIDIA A100-SXM4-40GB"} 0\nDCGM_FI_DEV_FB_USED{modelName="NVIDIA A100-SXM4-40GB"} 30000\n' > "$TMP/nolabel.prom"
"$GPUDIAG" analyze --html "$TMP/nolabel.html" "$TMP/nolabel.prom" > "$TMP/nolabel.txt" 2>&1
"$GPUDIAG" analyze --json "$TMP/nolabel.prom" > "$TMP/nolabel.json" 2>/dev/null
if grep -q "^  GPU (no index) *NVIDIA A100-SXM4-40GB  2 samples" "$TMP/nolabel.txt" &&
   grep -qF "<h3>GPU (no index)" "$TMP/nolabel.html" &&
   ! grep -q "GPU -1" "$TMP/nolabel.txt" "$TMP/nolabel.html" &&
   grep -q '"index": *null' "$TMP/nolabel.json"; then ok; else nok "a GPU without a number: 'GPU (no index)'"; fi
# two GPUs without a number but with their UUIDs (a new user's trial: three rows all "GPU (no index)",
# the finding not saying which): the label carries the UUID
printf '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{UUID="GPU-aaaa"} 10\nDCGM_FI_DEV_GPU_UTIL{UUID="GPU-bbbb"} 95\nDCGM_FI_DEV_GPU_UTIL{UUID="GPU-aaaa"} 20\nDCGM_FI_DEV_GPU_UTIL{UUID="GPU-bbbb"} 95\n' > "$TMP/uuids.prom"
"$GPUDIAG" analyze "$TMP/uuids.prom" > "$TMP/uuids.txt" 2>&1
if grep -q "^  GPU (no index) GPU-aaaa  *2 samples" "$TMP/uuids.txt" && grep -q "^  GPU (no index) GPU-bbbb  *2 samples" "$TMP/uuids.txt"; then ok
else nok "unnumbered GPUs told apart by UUID: $(grep 'GPU (no' "$TMP/uuids.txt" | head -3)"; fi
# the "(!)" marks get a legend under the GPUS heading where a row carries one (util 0 %: all three
# targets missed), and none where no row does (util 95 % in both samples: all three met)
sed 's/} 0$/} 95/' "$TMP/nolabel.prom" > "$TMP/busy.prom"
"$GPUDIAG" analyze "$TMP/busy.prom" > "$TMP/busy.txt" 2>&1
if grep -qF "(!) misses a health target for training: median >= 70 %, p10 >= 40 %, under 30 % in < 10 % of samples" "$TMP/nolabel.txt" &&
   [ "$(grep -oF '(!)' "$TMP/nolabel.txt" | wc -l)" = 4 ] &&
   grep -q "median 95.0%  p10 95.0%" "$TMP/busy.txt" && ! grep -qF "(!)" "$TMP/busy.txt"; then ok
else nok "the (!) legend"; fi

# est. gain of a log's finding labelled a prior where the number is printed, and the HTML says the
# interval it assumed (DEFINITIONS "Estimated gain of monitoring findings"). The inference log
# above: low_gpu_utilization gain 0.348 (1 - mean / 0.70): "est. gain 35% (a prior, not measured
# from the log)" in text, "could save about 34.8% of run time (a prior, not measured from the log)"
# in HTML. tests/data/monlog/prom_timesliced_mig_pods.prom has no time column: the exporter's
# default 30 s, in the text header and both places of the HTML.
if [ -f "$LOGS/nvsmi_query_csv_l1_inference_job_gaps.csv" ]; then
    "$GPUDIAG" analyze --no-color "$LOGS/nvsmi_query_csv_l1_inference_job_gaps.csv" > "$TMP/inf.txt" 2>&1
    "$GPUDIAG" analyze --html "$TMP/inf.html" "$LOGS/nvsmi_query_csv_l1_inference_job_gaps.csv" > /dev/null 2>&1
    if grep -qF "low_gpu_utilization  est. gain 35% (a prior, not measured from the log)" "$TMP/inf.txt" &&
       grep -qF "share of run time a fix could save; a prior, not measured from the log" "$TMP/inf.txt" &&
       grep -qF "could save about 34.8% of run time (a prior, not measured from the log)" "$TMP/inf.html"; then ok
    else nok "log est. gain labelled a prior (text, HTML)"; fi
fi
P="$GD_TEST_DATA/monlog/prom_timesliced_mig_pods.prom"
"$GPUDIAG" analyze --html "$TMP/p.html" "$P" > /dev/null 2>&1
if "$GPUDIAG" analyze "$P" 2>&1 | head -1 | grep -qF "3 samples each, times assumed 30 s apart (the tool's default) from the sample order)" &&
   grep -qF "3 samples each, times assumed 30 s apart (the tool's default) from the sample order) " "$TMP/p.html" &&
   grep -qF "(no timestamps: times assumed 30 s apart (the tool's default) from the sample order)" "$TMP/p.html"; then ok
else nok "assumed interval in the HTML header and section"; fi
# tests/data/monlog/dmon_video_busy.log (DEFINITIONS "GPU states", video engines): GPU 0 sm 1/3,
# enc 86/90, dec 70/72 alternating over 60 samples, 20480 MB held -> medians sm 2 %, enc 88 %, dec
# 71 % (the mean of the two middle values): its encoder is busy, so it is in use and never idle,
# and with SMs nearly idle (median 0.02 < 0.10) a video GPU: no class, no low_gpu_utilization.
# GPU 1: sm/enc/dec 0, 15000 MB held -> idle_gpu_holding_memory "1 of 2 GPUs". Before the rule the
# same log read GPU 0 as "idle, holding memory" too ("2 of 2 GPUs wasted").
js "$GD_TEST_DATA/monlog/dmon_video_busy.log" "$TMP/video.json"
if python3 - "$TMP/video.json" <<'PY'; then ok; else nok "video GPU: in use, named by the verdict, not idle"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; s = v["summary"]
g = {x["index"]: x for x in d["series"]["gpus"]}
assert g[0]["video_busy"] is True and g[0]["in_use"] is True and g[0]["idle_holding_memory"] is False, g[0]
assert g[1]["video_busy"] is False and g[1]["idle_holding_memory"] is True, g[1]
st = g[0]["metrics"]
assert abs(st["enc_util"]["median"] - 0.88) < 1e-9 and abs(st["dec_util"]["median"] - 0.71) < 1e-9, st
assert v["bottleneck"] == "unknown", v
assert s.startswith("GPU 0 works on its video engines (encoder median 88 %, decoder median 71 %) while its SMs "
                    "are little used (gpu_util median 2 %)"), s
f = {x["id"]: x for x in d["findings"]}
assert "low_gpu_utilization" not in f, sorted(f)
assert f["idle_gpu_holding_memory"]["title"].startswith("GPU 1: memory held (15000 MiB) but no work: 1 of 2 GPUs"), f
PY
"$GPUDIAG" analyze "$GD_TEST_DATA/monlog/dmon_video_busy.log" > "$TMP/video.txt" 2>&1
if grep -qF "    video engines: encoder median 88.0%  decoder median 71.0%" "$TMP/video.txt" &&
   grep -qF -- "-> video encode/decode" "$TMP/video.txt"; then ok; else nok "video engines line in the text report"; fi
# tests/data/monlog/dcgmi_resident_one_gpu.log (DEFINITIONS "Classification" rule 7, kernels
# resident; a reviewer's rebuild of NVIDIA/DCGM#244): 30 samples of GRACT 0.997, SMACT 0.572, SMOCC
# 0.103, TENSO 0.464, DRAMA 0.198 -> SM active median 0.572 >= 0.30 with no sample under 0.30: rule 7,
# host_launch; GR engine active median 0.997 >= 0.95 beside SM active: a kernel resident nearly all
# the time, so "too small", not launch-bound (no CUDA Graphs advice). dcgmi_resident_small_kernels.log
# adds GPU 1 at GRACT 0.600 (SMACT 0.45/0.47): not every host_launch GPU is resident -> the general
# sentence stays.
"$GPUDIAG" analyze --json "$GD_TEST_DATA/monlog/dcgmi_resident_one_gpu.log" > "$TMP/res1.json" 2>&1
"$GPUDIAG" analyze --json "$GD_TEST_DATA/monlog/dcgmi_resident_small_kernels.log" > "$TMP/res2.json" 2>&1
if python3 - "$TMP/res1.json" "$TMP/res2.json" <<'PY'; then ok; else nok "kernels resident: too small, not launch-bound"; fi
import json, sys
v1 = json.load(open(sys.argv[1]))["verdict"]; v2 = json.load(open(sys.argv[2]))["verdict"]
assert v1["bottleneck"] == "host_launch", v1
assert v1["summary"].startswith("kernels are resident nearly all the time (GR engine active median 100 %) yet keep "
                                "only part of the SMs busy"), v1["summary"]
assert "CUDA Graphs" not in v1["summary"], v1["summary"]
assert v2["bottleneck"] == "host_launch" and "kernels too small or launch-bound" in v2["summary"], v2
PY
# tests/data/monlog/dmon_enc_one_spike.log (a new user's): 100 samples, sm 0, 20000 MB held, enc 12 in
# one sample and 0 in the other 99 -> enc p95 0 < 0.10: not video_busy (one stray sample is not video
# work; with the max it hid the idle GPU: "works on its video engines (encoder median 0 %)", no finding)
# -> idle holding memory, idle_gpu_holding_memory "1 of 1 GPU".
js "$GD_TEST_DATA/monlog/dmon_enc_one_spike.log" "$TMP/spike.json"
if python3 - "$TMP/spike.json" <<'PY'; then ok; else nok "one encoder sample: still idle holding memory"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]
assert g["video_busy"] is False and g["idle_holding_memory"] is True, g
assert g["metrics"]["enc_util"]["max"] == 0.12 and g["metrics"]["enc_util"]["p95"] == 0, g["metrics"]["enc_util"]
assert [f["id"] for f in d["findings"]] == ["idle_gpu_holding_memory"], [f["id"] for f in d["findings"]]
assert "video engines" not in d["verdict"]["summary"], d["verdict"]
PY
# a trace's gain is not labelled a prior
if "$GPUDIAG" analyze "$GD_TEST_DATA/ok_comm_near_tie.json" 2>&1 | grep -q "a prior"; then nok "trace gain labelled a prior"; else ok; fi

finish
