#!/bin/sh
# test_monlog.sh — `gpudiag analyze` on monitoring logs (issue #4):
#  * every real log in ../shared/data/logs is read and analysed (exit 0, a series section);
#  * statistics recomputed independently by Python from the raw files (csv module / split,
#    its own percentile) on the V100 query CSV and the 2-GPU dmon log;
#  * hand-made logs in tests/data/monlog, one per rule or reader edge (expected values by hand,
#    in the comments of the Python block);
#  * a generated 4-GPU log with known ground truth (bench/gen_monlog.py): periodic DataLoader
#    dips every 10 s, a power-throttled GPU, an idle GPU holding memory, an 8 s communication
#    sawtooth;
#  * bad input and usage: exit 3 / 2 with the file named.
GD_TMP_TAG=monlog
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
LOGS="$GD_SHARED/data/logs"
DATA="$GD_TEST_DATA/monlog"

if [ -d "$LOGS" ]; then
    mkdir -p "$TMP/all"
    for f in "$LOGS"/*.log "$LOGS"/*.csv "$LOGS"/*.prom "$LOGS"/*.txt; do
        b=$(basename "$f")
        "$GPUDIAG" analyze --json "$f" > "$TMP/all/$b.json" 2> "$TMP/err" && ok || nok "$b: $(cat "$TMP/err")"
        "$GPUDIAG" analyze --no-color "$f" > "$TMP/r.txt" 2>&1 && grep -q "^VERDICT" "$TMP/r.txt" && ok || nok "text $b"
    done
    # one Python for all: each report has a series with GPUs and a verdict sentence
    python3 -c "
import json, sys, glob
bad = [p for p in glob.glob(sys.argv[1] + '/*.json')
       if not (lambda d: d['series'] and d['series']['gpus'] and d['verdict']['summary'])(json.load(open(p)))]
print('\\n'.join('FAIL series ' + b for b in bad)); sys.exit(1 if bad else 0)" "$TMP/all" && ok || nok "series sections"
    # dcgm's "Started host engine ..." banner before the dmon header is not a data row: skipped_rows
    # stays 0 (it was 1 without a first_skipped_line; fuzz_monlog, docs/FUZZING.md)
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['series']; sys.exit(0 if s['skipped_rows'] == 0 and s.get('first_skipped_line') is None else 1)" \
        "$TMP/all/dcgm_go_dmon_sample_nvsmi_format_idle.log.json" && ok || nok "banner counted as a skipped row"

    "$GPUDIAG" analyze --json "$LOGS/nvsmi_query_csv_l5_v100_training_steady.csv" > "$TMP/v100.json" || nok "v100"
    "$GPUDIAG" analyze --json "$LOGS/nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log" > "$TMP/gf.json" || nok "geforce"
    "$GPUDIAG" analyze --json "$LOGS/dcgmi_dmon_triton_t4_resnet_1inst.log" > "$TMP/t4.json" || nok "t4"
    "$GPUDIAG" analyze --json "$LOGS/nvsmi_q_clocks_event_reasons_sw_power_cap_active.txt" > "$TMP/cap.json" || nok "cap"
    "$GPUDIAG" analyze --json "$LOGS/dcgm_exporter_metrics_8xA800_mig_idle.prom" > "$TMP/a800.json" || nok "a800"
    if python3 - "$TMP" "$LOGS" <<'PY'; then ok; else nok "real-log values"; fi
import csv, json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
tmp, logs = sys.argv[1], sys.argv[2]
def pct(v, p):  # linear between closest ranks, written here independently of gpudiag
    v = sorted(v); pos = p * (len(v) - 1); i = int(pos)
    return v[-1] if i + 1 >= len(v) else v[i] + (pos - i) * (v[i + 1] - v[i])
def load(n): return json.load(open(os.path.join(tmp, n)))
checks = []
# V100 query CSV: utilization.gpu "99 %" -> 0.99
rows = list(csv.reader(open(os.path.join(logs, "nvsmi_query_csv_l5_v100_training_steady.csv")), skipinitialspace=True))
util = [float(r[2].split()[0]) / 100 for r in rows[1:]]
used = [float(r[5].split()[0]) / float(r[4].split()[0]) for r in rows[1:]]
g = load("v100.json")["series"]["gpus"][0]
m = g["metrics"]["gpu_util"]
for k, p in (("median", .5), ("p5", .05), ("p10", .1), ("p90", .9), ("p95", .95)):
    checks.append((f"v100 gpu_util {k}", m[k], pct(util, p)))
checks += [("v100 mean", m["mean"], sum(util) / len(util)), ("v100 min", m["min"], min(util)),
           ("v100 low_share", m["low_share"], sum(u < .3 for u in util) / len(util)),
           ("v100 jitter", m["jitter"], sum(abs(a - b) for a, b in zip(util, util[1:])) / (len(util) - 1)),
           ("v100 stddev", m["stddev"], (sum((u - sum(util) / len(util)) ** 2 for u in util) / len(util)) ** .5),
           ("v100 mem share", g["indicators"]["mem_used_share"], pct(used, .5)),
           ("v100 duration", g["duration_us"], 80039000.0),  # 13:48:11.412 -> 13:49:31.451
           ("v100 health p10", g["health"]["p10_ok"], pct(util, .1) >= .4)]
ids = [f["id"] for f in load("v100.json")["findings"]]
checks.append(("v100 memory_near_capacity", "memory_near_capacity" in ids, True))  # 30994/32480 = 0.954
# 2 GPUs interleaved, old header: sm column, GPU 1 holds 3741 MB and does nothing
lines = [l.split() for l in open(os.path.join(logs, "nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log")) if l.strip() and not l.startswith("#")]
sm0 = [int(l[3]) / 100 for l in lines if l[0] == "0"]
d = load("gf.json")
g0 = [x for x in d["series"]["gpus"] if x["index"] == 0][0]
g1 = [x for x in d["series"]["gpus"] if x["index"] == 1][0]
checks += [("gf gpu0 mean", g0["metrics"]["gpu_util"]["mean"], sum(sm0) / len(sm0)),
           ("gf gpu0 median", g0["metrics"]["gpu_util"]["median"], pct(sm0, .5)),
           ("gf gpu0 p10", g0["metrics"]["gpu_util"]["p10"], pct(sm0, .1)),
           ("gf gpu1 idle holding", g1["idle_holding_memory"], True),
           ("gf gpu1 fb", g1["metrics"]["mem_used_bytes"]["median"], 3741 * 1048576),
           ("gf power absent", "power_w" in g0["metrics"], False),
           ("gf finding", [f["id"] for f in d["findings"]], ["idle_gpu_holding_memory"])]
# a log measures no model FLOPs, steps or kernels: those summary fields are null (unknown), not 0;
# summary.gpu_utilization is the mean over GPUs of each GPU's mean: (0.8375 + 0) / 2
sm = d["summary"]
checks += [("gf summary " + k, sm[k], None) for k in ("achieved_tflops_per_gpu", "model_flops_per_step", "mfu_peak_tflops",
                                                      "steps", "kernel_count", "linked_kernels", "runtime_outliers",
                                                      "launch_delay_outliers")]
checks += [("gf optimizer " + k, sm["optimizer"][k], None) for k in ("kernels", "fused_kernels")]
checks.append(("gf summary gpu_utilization", sm["gpu_utilization"], (0.91 + 0.94 + 0.59 + 0.91) / 4 / 2))  # sm column, lines 3-9
# Triton T4 ResNet: GPUTL 79/92/93 % but SMACT 0.55-0.65 -> gpu_util_misleading
d = load("t4.json")
ids = [f["id"] for f in d["findings"]]
checks += [("t4 misleading", "gpu_util_misleading" in ids, True),
           ("t4 compute metric", d["series"]["gpus"][0]["compute_metric"], "sm_active"),
           ("t4 sm_active median", d["series"]["gpus"][0]["metrics"]["sm_active"]["median"], 0.562)]
# -q snapshot with SW Power Cap active: throttling (low), reason bit 0x4, a snapshot
d = load("cap.json")
checks += [("cap snapshot", d["series"]["snapshot"], True),
           ("cap reasons", d["series"]["gpus"][0]["clock_event_reasons"], 4),
           ("cap finding", [(f["id"], f["severity"]) for f in d["findings"]], [("throttling", "low")])]
# A800 exporter: 7 GPUs + 3 MIG instances (grep GPU_I_ID), one scrape
d = load("a800.json")
checks += [("a800 entities", len(d["series"]["gpus"]), 10),
           ("a800 mig", sum(x["entity"] == "gpu_instance" for x in d["series"]["gpus"]), 3),
           ("a800 snapshot", d["series"]["snapshot"], True),
           ("a800 format", d["series"]["format"], "prom")]
valcheck.run(checks, "real logs")
PY
fi

# hand-made logs
"$GPUDIAG" analyze --json "$DATA/dmon_columns_change.log" > "$TMP/cc.json" 2> "$TMP/cc.err" || nok "columns change"
grep -q "line 6: 2 data rows" "$TMP/cc.err" && ok || nok "columns change warning: $(cat "$TMP/cc.err")"
"$GPUDIAG" analyze --json "$DATA/csv_pcie_degraded.csv" > "$TMP/pcie.json" || nok "pcie"
"$GPUDIAG" analyze --json "$DATA/csv_hw_slowdown_headroom.csv" > "$TMP/hw.json" || nok "hw"
"$GPUDIAG" analyze --json "$DATA/csv_starved_headroom.csv" > "$TMP/starved.json" || nok "starved"
"$GPUDIAG" analyze --json "$DATA/csv_idle_headroom.csv" > "$TMP/idlehr.json" || nok "idle headroom"
"$GPUDIAG" analyze --json "$DATA/dcgmi_misleading.log" > "$TMP/mis.json" 2>/dev/null || nok "misleading"
"$GPUDIAG" analyze --json "$DATA/prom_two_scrapes.prom" > "$TMP/prom.json" || nok "prom scrapes"
if python3 - "$TMP" <<'PY'; then ok; else nok "hand-made values"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
tmp = sys.argv[1]
def load(n): return json.load(open(os.path.join(tmp, n)))
def fids(d): return sorted(f["id"] for f in d["findings"])
checks = []
# header redefined mid-file; '-' is missing; a 6-field row (line 6) and 'abc' (line 10) skipped:
# sm 0.80, -, 0.50, 0.60 -> n 3, mean 0.6333, median 0.60; pwr 100, 101 -> n 2; pclk 1400, 1410
d = load("cc.json"); s = d["series"]; g = s["gpus"][0]
checks += [("cc samples", g["samples"], 4), ("cc skipped", s["skipped_rows"], 2), ("cc first", s["first_skipped_line"], 6),
           ("cc util n", g["metrics"]["gpu_util"]["n"], 3), ("cc util mean", g["metrics"]["gpu_util"]["mean"], 1.9 / 3),
           ("cc util median", g["metrics"]["gpu_util"]["median"], 0.6), ("cc pwr n", g["metrics"]["power_w"]["n"], 2),
           ("cc pwr mean", g["metrics"]["power_w"]["mean"], 100.5), ("cc pclk mean", g["metrics"]["sm_clock_mhz"]["mean"], 1405),
           ("cc input finding", "input_skipped_rows" in fids(d), True),
           # the target and where it comes from in the user's words (sorted 0.5, 0.6, 0.8: p10 = 0.5 + 0.2 x 0.1);
           # 4 samples < 30: a short look, said in the title
           ("cc low util title", [x["title"] for x in d["findings"] if x["id"] == "low_gpu_utilization"],
            # each target says whether it is met (a reviewer: "median 98 % (target >= 70 %)" read as missed)
            ["GPU 0 below common health targets for training: gpu_util median 60 % (target >= 70 %), p10 52 % "
             "(meets >= 40 %), 0 % of samples under 30 % (meets < 10 %); 4 samples (fewer than 30): low confidence"])]
# PCIe gen 3 of 4 while GPU 0 is at 90 %: degraded; GPU 1 drops to gen 1 / x8 only when idle: not
d = load("pcie.json")
gs = {x["index"]: x for x in d["series"]["gpus"]}
f = [x for x in d["findings"] if x["id"] == "pcie_link_degraded"]
checks += [("pcie gpu0", gs[0]["pcie_degraded"], True), ("pcie gpu1", gs[1]["pcie_degraded"], False),
           ("pcie finding gpu", f[0]["evidence"]["gpu_index"] if f else None, 0),
           ("pcie title", f[0]["title"].startswith("GPU 0:") if f else None, True)]
# HW slowdown in 3 of 4 samples ([Not Supported] power cap leaves its bit unknown); 8000 of 81920 MiB
# used (0.0977) with ~40 % utilisation -> memory_headroom; the GPU is classed throttling
d = load("hw.json"); g = d["series"]["gpus"][0]
checks += [("hw throttle share", g["throttle_share"], 0.75), ("hw reasons", g["clock_event_reasons"], 8),
           ("hw mem share", g["indicators"]["mem_used_share"], 8000 / 81920), ("hw class", g["bottleneck"], "throttling"),
           ("hw findings", fids(d), ["low_gpu_utilization", "memory_headroom", "throttling"]),
           ("hw severity", [x["severity"] for x in d["findings"] if x["id"] == "throttling"], ["high"]),
           ("hw mem n", g["metrics"]["mem_used_bytes"]["n"], 3), ("hw interval", g["interval_us"], 1e6)]
# memory_headroom's advice follows the class: the throttled GPU above is told to fix its clocks first;
# csv_starved_headroom: utilization.gpu 25 30 0 repeating (20 samples: 7 x 25, 7 x 30, 6 x 0, median
# 25 %, a dip every 3 s), 8192 of 81920 MiB (0.10) -> data_pipeline, and the advice puts the input
# pipeline first instead of "raise the micro-batch" (a larger batch waits longer for its data)
hw_f = [x for x in d["findings"] if x["id"] == "memory_headroom"][0]
d = load("starved.json"); g = d["series"]["gpus"][0]
f = [x for x in d["findings"] if x["id"] == "memory_headroom"]
checks += [("hw headroom advice", hw_f["recommendation"].startswith("Fix the clocks first"), True),
           ("hw headroom starved", hw_f["evidence"]["data_starved"], 0),
           ("starved median", g["metrics"]["gpu_util"]["median"], 0.25), ("starved class", g["bottleneck"], "data_pipeline"),
           ("starved mem share", g["indicators"]["mem_used_share"], 0.1),
           ("starved headroom", len(f), 1),
           ("starved evidence", f[0]["evidence"]["data_starved"] if f else None, 1),
           ("starved advice", f[0]["recommendation"].startswith("Fix the input pipeline first") if f else None, True),
           ("starved not batch first", f[0]["recommendation"].startswith("Raise the micro-batch") if f else None, False)]
# csv_idle_headroom: utilization.gpu 35 0 40 0 0 repeating (12 of 20 samples 0: median 0 < 10 %, bursts to 40 %),
# 8192 of 81920 MiB -> mostly idle, no class; memory_headroom asks why it idles before any batch advice
d = load("idlehr.json"); g = d["series"]["gpus"][0]
f = [x for x in d["findings"] if x["id"] == "memory_headroom"]
checks += [("idle hr median", g["metrics"]["gpu_util"]["median"], 0), ("idle hr class", g["bottleneck"], "unknown"),
           ("idle hr advice", f[0]["recommendation"].startswith("Find out why the GPU idles first") if f else None, True)]
# dcgmi: GPUTL 95/96/N-A/94, SMACT 0.40/0.42/N-A/0.41; the Switch row is skipped (line 7)
d = load("mis.json"); s = d["series"]; g = s["gpus"][0]
# line 5 is N/A in every field: no sample (DEFINITIONS "A row that holds no value"; was 4 samples)
checks += [("mis samples", g["samples"], 3), ("mis empty", s["empty_rows"], 1), ("mis empty line", s["first_empty_line"], 5), ("mis util n", g["metrics"]["gpu_util"]["n"], 3),
           ("mis util median", g["metrics"]["gpu_util"]["median"], 0.95), ("mis smact median", g["metrics"]["sm_active"]["median"], 0.41),
           ("mis skipped", s["skipped_rows"], 1), ("mis first", s["first_skipped_line"], 7),
           ("mis finding", "gpu_util_misleading" in fids(d), True)]
# two concatenated scrapes, two hosts; total = used + free; the int64 NOT_SUPPORTED sentinel is missing
d = load("prom.json"); s = d["series"]
a = [x for x in s["gpus"] if x["hostname"] == "n1"][0]
b = [x for x in s["gpus"] if x["hostname"] == "n2"][0]
checks += [("prom gpus", len(s["gpus"]), 2), ("prom a samples", a["samples"], 2), ("prom b util mean", b["metrics"]["gpu_util"]["mean"], 0.15),
           ("prom a share", a["indicators"]["mem_used_share"], 0.375), ("prom a duration", a["duration_us"], 30e6),
           ("prom mem temp absent", "mem_temp_c" in a["metrics"], False), ("prom uuid", a["uuid"], "GPU-aaaa")]
valcheck.run(checks, "hand-made logs")
PY

# generated log with ground truth
python3 "$GD_SRC/bench/gen_monlog.py" --lines 12000 > "$TMP/gen.log"
"$GPUDIAG" analyze --json "$TMP/gen.log" > "$TMP/gen.json" || nok "generated"
if python3 - "$TMP/gen.json" <<'PY'; then ok; else nok "generated ground truth"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
gs = {x["index"]: x for x in d["series"]["gpus"]}
ids = sorted(f["id"] for f in d["findings"])
checks = [("gpu0 class", gs[0]["bottleneck"], "data_pipeline"), ("gpu0 period", gs[0]["dip_period_us"], 10e6),
          ("gpu1 class", gs[1]["bottleneck"], "throttling"), ("gpu2 idle", gs[2]["idle_holding_memory"], True),
          ("gpu2 class", gs[2]["bottleneck"], "unknown"), ("gpu3 class", gs[3]["bottleneck"], "communication"),
          ("gpu3 period", gs[3]["dip_period_us"], 8e6), ("samples", gs[0]["samples"], 3000),
          ("gpu0 low share", gs[0]["metrics"]["gpu_util"]["low_share"], 0.2),  # 2 s of every 10
          ("findings", ids, ["communication_sawtooth", "idle_gpu_holding_memory", "low_gpu_utilization", "throttling", "utilization_dips"])]
valcheck.run(checks, "generated")
PY

# dcgm-exporter --kubernetes labels (tests/data/monlog/prom_k8s_pods.prom, written by hand): GPU 0 in
# pod default/llm-train-0, llm-train-1 from the third scrape (1 change, the last kept); GPU 1 held by
# ml-team/notebook-7c9d with 8000 of 8000 + 32960 MiB and GPU_UTIL 0 -> idle holding memory, named
# with its pod; GPU 2 has empty labels (unassigned) -> null. Real labels on the shared GKE T4 log.
"$GPUDIAG" analyze --json "$DATA/prom_k8s_pods.prom" > "$TMP/k8s.json" || nok "k8s json"
"$GPUDIAG" analyze --no-color "$DATA/prom_k8s_pods.prom" > "$TMP/k8s.txt" || nok "k8s text"
"$GPUDIAG" analyze --html "$TMP/k8s.html" "$DATA/prom_k8s_pods.prom" > /dev/null || nok "k8s html"
if python3 - "$TMP" "$LOGS" <<'PY'; then ok; else nok "k8s labels"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
tmp, logs = sys.argv[1], sys.argv[2]
d = json.load(open(os.path.join(tmp, "k8s.json")))
gs = {x["index"]: x for x in d["series"]["gpus"]}
pod = lambda g: (g["namespace"], g["pod"], g["container"], g["pod_changes"])
f = [x for x in d["findings"] if x["id"] == "idle_gpu_holding_memory"]
txt = open(os.path.join(tmp, "k8s.txt")).read()
html = open(os.path.join(tmp, "k8s.html")).read()
checks = [("gpu0 pod", pod(gs[0]), ("default", "llm-train-1", "trainer", 1)),
          ("gpu1 pod", pod(gs[1]), ("ml-team", "notebook-7c9d", "jupyter", 0)),
          ("gpu2 pod", pod(gs[2]), (None, None, None, 0)),
          ("gpu1 mem share", gs[1]["indicators"]["mem_used_share"], 8000 / 40960),
          ("finding title", f[0]["title"] if f else None,
           "GPU 1 (pod ml-team/notebook-7c9d): memory held (8000 MiB) but no work: 1 of 3 GPUs wasted"),
          ("finding advice", "kubectl describe pod -n ml-team notebook-7c9d" in (f[0]["recommendation"] if f else ""), True),
          ("text pod line", "    pod ml-team/notebook-7c9d  container jupyter\n" in txt, True),
          ("text pod change", "pod default/llm-train-1  container trainer  (the pod changed 1 time" in txt, True),
          ("html pod", "Pod <code>ml-team/notebook-7c9d</code>, container <code>jupyter</code>" in html, True)]
if os.path.isdir(logs):
    g = json.load(open(os.path.join(tmp, "all", "dcgm_exporter_metrics_2xT4_gke_pod_labels_prof.prom.json")))["series"]["gpus"]
    checks += [("gke gpu0", (g[0]["namespace"], g[0]["pod"], g[0]["container"]), ("default", "triton-5f7d9c6b8d-abcde", "triton-server")),
               ("gke gpu1 empty labels", (g[1]["namespace"], g[1]["pod"], g[1]["container"]), (None, None, None))]
valcheck.run(checks, "kubernetes labels")
PY

# internal words stay out of the reports: no "seeds" in the text or HTML of a log with low_gpu_utilization
"$GPUDIAG" analyze --no-color "$DATA/dmon_columns_change.log" > "$TMP/cc.txt" 2>&1
"$GPUDIAG" analyze --html "$TMP/cc.html" "$DATA/dmon_columns_change.log" > /dev/null 2>&1
grep -q "common health targets for training" "$TMP/cc.txt" && grep -q "common health targets for training" "$TMP/cc.html" \
    && ! grep -qi "seed" "$TMP/cc.txt" "$TMP/cc.html" && ok || nok "'seeds' in a report"

# sample counts are per GPU and pluralised: header and per-GPU lines (text), header, KPI and
# section (HTML). Hand counts: the 2-GPU snapshot CSV has one row per GPU; the GeForce dmon log
# 4 rows per GPU; the inline log below 3 rows of GPU 0 and 1 of GPU 1.
if [ -d "$LOGS" ]; then
    "$GPUDIAG" analyze --no-color "$LOGS/nvsmi_query_csv_2gpu_power_clocks_snapshot.csv" > "$TMP/snap.txt" 2>&1
    head -1 "$TMP/snap.txt" | grep -q "(smi-csv monitoring log, 2 GPUs, 1 sample each, a snapshot)$" && ok || nok "snapshot header: $(head -1 "$TMP/snap.txt")"
    [ "$(grep -c "GeForce GTX 10[68]0[^|]*  1 sample$" "$TMP/snap.txt")" -eq 2 ] && ok || nok "snapshot per-GPU lines"
    "$GPUDIAG" analyze --html "$TMP/gf.html" "$LOGS/nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log" > /dev/null 2>&1
    grep -q "dmon monitoring log, 2 GPUs, 4 samples each" "$TMP/gf.html" && grep -q "Samples</dt><dd>4 per GPU</dd>" "$TMP/gf.html" \
        && grep -q "log: 2 GPUs, 4 samples each" "$TMP/gf.html" && ok || nok "HTML sample counts"
    # used memory without a total (dmon fb): the page says what the text says, 3945 MiB = 3.85 GiB
    grep -q "Memory n/a (3.9 GiB used, total unknown)" "$TMP/gf.html" && ok || nok "HTML memory without a total"
    # a log's est_gain is a share of run time, as in the text report (dmon_gains.log: low_gpu_utilization,
    # throttling; the snapshot CSV used before has no estimated finding since memory_headroom needs >= 2 samples)
    "$GPUDIAG" analyze --html "$TMP/snap.html" "$DATA/dmon_gains.log" > /dev/null 2>&1
    grep -q "could save about [0-9.]*% of run time" "$TMP/snap.html" && ! grep -q "of step time" "$TMP/snap.html" \
        && ok || nok "HTML gain of a log: run time"
fi
"$GPUDIAG" analyze --no-color "$DATA/dmon_one_sample.log" > "$TMP/one.txt" 2>&1
head -1 "$TMP/one.txt" | grep -q "(dmon monitoring log, 1 GPU, 1 sample, a snapshot)$" && ok || nok "one-sample header: $(head -1 "$TMP/one.txt")"
# inputs[] of a log: its bytes (decompressed: the same from a gzip copy) and data rows, not 0
gzip -c "$DATA/dmon_one_sample.log" > "$TMP/one.log.gz"
for f in "$DATA/dmon_one_sample.log" "$TMP/one.log.gz"; do
    "$GPUDIAG" analyze --json "$f" | python3 -c "import json,sys; i=json.load(sys.stdin)['inputs'][0]; sys.exit(0 if (i['bytes'], i['events']) == (int(sys.argv[1]), 1) else 1)" \
        "$(wc -c < "$DATA/dmon_one_sample.log")" && ok || nok "inputs bytes/events of $f"
done
printf '# gpu sm\n# Idx %%\n0 50\n1 10\n0 60\n0 70\n' > "$TMP/uneven.log"
"$GPUDIAG" analyze --no-color "$TMP/uneven.log" > "$TMP/uneven.txt" 2>&1
head -1 "$TMP/uneven.txt" | grep -q "2 GPUs, 4 samples in all (1 to 3 per GPU)" && ok || nok "uneven header: $(head -1 "$TMP/uneven.txt")"
grep -q "GPU 0 .*  3 samples over 2.00 s$" "$TMP/uneven.txt" && grep -q "GPU 1 .*  1 sample$" "$TMP/uneven.txt" && ok || nok "uneven per-GPU lines"
! grep -h " 1 samples" "$TMP/snap.txt" "$TMP/one.txt" "$TMP/uneven.txt" 2>/dev/null && ok || nok "'1 samples' printed"

# bad input and usage
printf 'hello\nworld\n' > "$TMP/junk.txt"
"$GPUDIAG" analyze --format dmon "$TMP/junk.txt" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "junk.txt" "$TMP/err" && grep -q "dmon header" "$TMP/err" && ok || nok "junk as dmon: rc $rc $(cat "$TMP/err")"
"$GPUDIAG" analyze --format smi-csv "$DATA/dmon_columns_change.log" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && ok || nok "dmon as smi-csv: rc $rc"
printf '# gpu sm\n# Idx %%\n0 x\n0 y\n' > "$TMP/allbad.log"
"$GPUDIAG" analyze "$TMP/allbad.log" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "no sample" "$TMP/err" && ok || nok "all rows bad: rc $rc $(cat "$TMP/err")"
printf 'utilization.gpu [%%]\n' > "$TMP/hdr.csv"
"$GPUDIAG" analyze "$TMP/hdr.csv" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && ok || nok "header only: rc $rc"
printf '0, 45 %%, 1234 MiB\n' > "$TMP/nohdr.csv"
"$GPUDIAG" analyze --format smi-csv "$TMP/nohdr.csv" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "noheader" "$TMP/err" && ok || nok "noheader: rc $rc $(cat "$TMP/err")"
"$GPUDIAG" analyze --format bogus "$DATA/dmon_columns_change.log" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "smi-csv" "$TMP/err" && ok || nok "--format bogus: rc $rc"
"$GPUDIAG" analyze --format dmon - < "$DATA/dmon_columns_change.log" > "$TMP/out" 2>/dev/null; rc=$?
[ "$rc" -eq 0 ] && grep -q "^VERDICT" "$TMP/out" && ok || nok "stdin with --format dmon: rc $rc"
"$GPUDIAG" analyze --format dmon "$TMP/missing.log" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "missing.log" "$TMP/err" && ok || nok "missing file: rc $rc"

# item 6 of the monitoring work: out-of-range values, a header changing mid-file, gzip, the hint
"$GPUDIAG" analyze --json "$DATA/dmon_header_change_bad_values.log" > "$TMP/hc.json" 2> "$TMP/err" || nok "header change"
grep -q "line 4: 2 out-of-range values" "$TMP/err" && ok || nok "out-of-range warning: $(cat "$TMP/err")"
"$GPUDIAG" analyze --json "$DATA/dcgmi_numeric_ids.log" > "$TMP/ids.json" 2>/dev/null || nok "dcgmi ids"
gzip -c "$DATA/dmon_header_change_bad_values.log" > "$TMP/hc.log.gz"
"$GPUDIAG" analyze --json "$TMP/hc.log.gz" > "$TMP/hcgz.json" 2>/dev/null && ok || nok "gzip log"
if python3 - "$TMP" <<'PY'; then ok; else nok "input checks"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
tmp = sys.argv[1]
def load(n): return json.load(open(os.path.join(tmp, n)))
def fids(d): return sorted(f["id"] for f in d["findings"])
checks = []
# sm 50, 120 (invalid), 70, 80 -> n 3, mean 66.67; pwr 200, -10 (invalid) -> n 1; header change at line 5
for name in ("hc.json", "hcgz.json"):
    d = load(name); s = d["series"]; g = s["gpus"][0]
    checks += [(name + " invalid", s["invalid_values"], 2), (name + " first invalid", s["first_invalid_line"], 4),
               (name + " changes", s["header_changes"], 1), (name + " change line", s["first_header_change_line"], 5),
               (name + " util n", g["metrics"]["gpu_util"]["n"], 3), (name + " util mean", g["metrics"]["gpu_util"]["mean"], 2.0 / 3),
               (name + " pwr n", g["metrics"]["power_w"]["n"], 1),
               (name + " findings", [x for x in fids(d) if x.startswith("input_")], ["input_header_changed", "input_invalid_values"])]
# dcgmi numeric ids: GPU 0 util 0.50 only (150 and -5 invalid); 1006, 9999 and FP32A ignored
d = load("ids.json"); s = d["series"]; g = [x for x in s["gpus"] if x["index"] == 0][0]
checks += [("ids util n", g["metrics"]["gpu_util"]["n"], 1), ("ids smact mean", g["metrics"]["sm_active"]["mean"], 0.6),
           ("ids invalid", s["invalid_values"], 4), ("ids ignored", s["ignored_columns"], "1006, 9999, FP32A"),
           ("ids mem share", g["indicators"]["mem_used_share"], (1024 / 16384 + 2048 / 16384) / 2),
           ("ids finding", "input_columns_ignored" in fids(d), True)]
valcheck.run(checks, "input checks")
PY
# est_gain of monitoring findings (DEFINITIONS "Estimated gain of monitoring findings"), by hand:
# GPU 0 sm 90 x8, 10 x2 -> median 0.90, 2 of 10 samples in dips at 0.10: 0.2 x (1 - 0.10/0.90) = 0.17778
#   (mean 0.74 is above the 0.70 target, so the dip term is the larger); pviol > 0 in 4 of 10 samples,
#   loaded SM clock 1050 throttled vs 1400 free: 0.4 x (1 - 1050/1400) = 0.10;
# GPU 1 idle with 20000 MiB: no step-time gain (null), 1 of 2 GPUs wasted.  Ranked by gain, unestimated after.
"$GPUDIAG" analyze --json "$DATA/dmon_gains.log" > "$TMP/gain.json" || nok "gains"
if python3 - "$TMP/gain.json" <<'PY'; then ok; else nok "est_gain values"; fi
import json, sys
d = json.load(open(sys.argv[1]))
g = {f["id"]: f["est_gain"] for f in d["findings"]}
assert [f["id"] for f in d["findings"]][:3] == ["low_gpu_utilization", "throttling", "idle_gpu_holding_memory"], d["findings"]
assert g["idle_gpu_holding_memory"] is None, g
ev = [f for f in d["findings"] if f["id"] == "idle_gpu_holding_memory"][0]["evidence"]
assert (ev["gpus_wasted"], ev["gpu_count"]) == (1, 2), ev
assert abs(g["low_gpu_utilization"] - 0.2 * (1 - 0.10 / 0.90)) < 1e-6, g
assert abs(g["throttling"] - 0.4 * (1 - 1050 / 1400)) < 1e-6, g
PY
# warm-up and tear-down (DEFINITIONS "Warm-up and tear-down"), by hand: GRACT 0, 0.01, 0, 0.04 (4 leading
# samples < 0.05), then 0.9 0.8 0.9 1.0 0.9 0.9, then 0.02 0 (2 trailing): 6 of 12 samples left out, 4 s + 2 s
# = 6e6 us (dcgmi: 1 s apart, assumed); the kept six: mean 5.4/6 = 0.9, median 0.9, min 0.8 -> compute high,
# class compute; TENSO median of 0.6 0.6 0.6 0.7 0.6 0.5 over all 12 -> 0 (the ramp would hide it), kept: 0.6
# >= 0.50 -> "tensor active 60 %: compute-bound on Tensor Cores"; DRAMA 0.000 in all 12 samples while the GPU
# computes: not reported -> bandwidth unknown (null), bandwidth_unreported true, no low_gpu_utilization.
"$GPUDIAG" analyze --json "$DATA/dcgmi_warmup_tensor.log" > "$TMP/wu.json" || nok "warm-up"
"$GPUDIAG" analyze --no-color "$DATA/dcgmi_warmup_tensor.log" > "$TMP/wu.txt" || nok "warm-up text"
if python3 - "$TMP/wu.json" "$TMP/wu.txt" <<'PY'; then ok; else nok "warm-up values"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]; txt = open(sys.argv[2]).read()
assert (g["warmup_samples"], g["teardown_samples"]) == (4, 2), g
assert abs(g["excluded_us"] - 6e6) < 1, g["excluded_us"]
m = g["metrics"]["gr_engine_active"]
assert abs(m["mean"] - 0.9) < 1e-9 and abs(m["median"] - 0.9) < 1e-9 and abs(m["min"] - 0.8) < 1e-9, m
assert abs(g["metrics"]["tensor_active"]["median"] - 0.6) < 1e-9, g["metrics"]["tensor_active"]
assert g["bottleneck"] == "compute" and d["verdict"]["bottleneck"] == "compute", g["bottleneck"]
assert g["bandwidth_unreported"] is True and g["indicators"]["bandwidth"] is None, g["indicators"]
assert "tensor active 60 %: compute-bound on Tensor Cores" in d["verdict"]["summary"], d["verdict"]["summary"]
assert "low_gpu_utilization" not in [f["id"] for f in d["findings"]], d["findings"]
assert "4 idle warm-up and 2 tear-down samples (6.00 s) left out of the statistics" in txt, txt
PY
# GPU counts and GPU-Util-only verdicts, by hand from the files:
# * 2-GPU GeForce dmon: GPU 0 sm 91 94 59 ... (compute from GPU-Util only), GPU 1 sm 0 with 3741 MiB fb:
#   "1 of 2 GPUs", the GPU-Util caveat, no Tensor Core claim (no tensor data), 1 idle holding memory;
#   idle_gpu_holding_memory has no est_gain, gpus_wasted 1 of gpu_count 2; text header "share of run time".
# * dcgmi MIG log: GPU 0 plus GPU-I 0 and GPU-I 1 (no parent index): the GPU is the parent,
#   "2 of 2 MIG instances (1 GPU, 2 MIG instances in use)"; tensor active is the first instance's (GPU-I 0).
# * one dmon row with sm 95: no compute verdict, "one sample: no time series".
if [ -d "$LOGS" ]; then
    "$GPUDIAG" analyze --json "$LOGS/nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log" > "$TMP/gf2.json" || nok "gf2"
    "$GPUDIAG" analyze --no-color "$LOGS/nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log" > "$TMP/gf2.txt" || nok "gf2 text"
    "$GPUDIAG" analyze --json "$LOGS/dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log" > "$TMP/mig.json" || nok "mig"
    if python3 - "$TMP" "$LOGS" <<'PY'; then ok; else nok "gpu counts"; fi
import json, sys, os
tmp, logs = sys.argv[1], sys.argv[2]
d = json.load(open(os.path.join(tmp, "gf2.json"))); v = d["verdict"]["summary"]
assert "— 1 of 2 GPUs; 1 idle, holding memory" in v, v
assert "GPU-Util is high: a kernel was running" in v and "Tensor Cores" not in v, v
f = [x for x in d["findings"] if x["id"] == "idle_gpu_holding_memory"][0]
assert f["est_gain"] is None and f["evidence"]["gpus_wasted"] == 1 and f["evidence"]["gpu_count"] == 2, f
txt = open(os.path.join(tmp, "gf2.txt")).read()
assert "share of run time a fix could save" in txt and "est. gain 50%" not in txt, txt
d = json.load(open(os.path.join(tmp, "mig.json"))); v = d["verdict"]["summary"]
# tensor active of GPU-I 0 recomputed from the file: TENSO of the GPU-I 0 rows after the idle first one
rows = [l.split() for l in open(os.path.join(logs, "dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log")) if l.strip().startswith("GPU-I 0")]
t = sorted(float(r[-1]) for r in rows if float(r[2]) >= 0.05)
med = t[len(t) // 2] if len(t) % 2 else (t[len(t) // 2 - 1] + t[len(t) // 2]) / 2
assert "2 of 2 MIG instances (1 GPU, 2 MIG instances in use)" in v, v
assert "tensor active %.0f %%" % (100 * med) in v, (v, med)
PY
fi
"$GPUDIAG" analyze --json "$DATA/dmon_one_sample.log" > "$TMP/one.json" || nok "one sample"
python3 -c "
import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(0 if d['verdict']['bottleneck'] == 'unknown' and 'one sample: no time series' in d['verdict']['summary'] else 1)" \
    "$TMP/one.json" && ok || nok "one sample verdict"
# units in text (DEFINITIONS "Units in text"): dcgmi_misleading.log SMACT 0.400 0.420 0.410 -> median 0.41,
# printed "SM active 41 %", never the fraction "0.41"
"$GPUDIAG" analyze --no-color "$DATA/dcgmi_misleading.log" > "$TMP/mis.txt" 2>/dev/null || nok "misleading text"
grep -q "SM active 41 %, tensor active 1[01] %" "$TMP/mis.txt" && ! grep -q "SM active 0\.41" "$TMP/mis.txt" && ok ||
    nok "units in text: $(grep -i 'SM active' "$TMP/mis.txt")"
# statistics in text (DEFINITIONS "Statistics in text"): the levels line names its medians, by hand:
# DRAMA 0.200 0.210 0.205 -> median 0.205 = 20.5 %, TENSO 0.100 0.110 0.105 -> 10.5 %, no memory column
grep -q "^    memory n/a  compute low  bandwidth low (dram_active median 20.5%)  tensor_active median 10.5%  -> " \
    "$TMP/mis.txt" && ok || nok "medians named: $(grep '^    memory' "$TMP/mis.txt")"
# used memory without a total (DEFINITIONS "three indicators", memory), by hand:
# * csv_used_no_total.csv: Tesla V100-SXM2-32GB, 16384 16384 24576 MiB used, total from the GPU table
#   32 GiB = 32768 MiB -> shares 0.5 0.5 0.75: median 0.5, max 0.75, memory "low";
# * the GeForce dmon log (no name): GPU 1 fb 3741 MiB = 3.65 GiB -> "median 3.7 GiB used, total unknown".
"$GPUDIAG" analyze --json "$DATA/csv_used_no_total.csv" > "$TMP/nt.json" || nok "no total"
python3 -c "
import json, sys; g = json.load(open(sys.argv[1]))['series']['gpus'][0]
sys.exit(0 if g['mem_total_from_spec'] and abs(g['indicators']['mem_used_share'] - 0.5) < 1e-9
         and abs(g['indicators']['mem_used_share_max'] - 0.75) < 1e-9 and g['indicators']['memory'] == 'low' else 1)" \
    "$TMP/nt.json" && ok || nok "memory total from the GPU table"
if [ -d "$LOGS" ]; then
    "$GPUDIAG" analyze --no-color "$LOGS/nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log" > "$TMP/gfm.txt" 2>&1
    grep -q "memory n/a (median 3.7 GiB used, total unknown)" "$TMP/gfm.txt" && ! grep -q "n/a used" "$TMP/gfm.txt" && ok ||
        nok "used without total: $(grep 'memory ' "$TMP/gfm.txt")"
fi
# nvidia-smi -q clock event reason counters (R580+), two snapshots 10 s apart, by hand:
# throttling counters SW Power Capping + SW Thermal Slowdown (Sync Boost left out) 1.2 s -> 4.2 s:
# 3.0 s of 10 s = 0.30; loaded SM clock 1755 MHz throttled vs 1980 free: gain 0.30 x (1 - 1755/1980)
"$GPUDIAG" analyze --json "$DATA/smi_q_reason_counters.txt" > "$TMP/ctr.json" || nok "reason counters"
if python3 - "$TMP/ctr.json" <<'PY'; then ok; else nok "reason counters values"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]
assert g["metrics"]["throttle_time_us"]["min"] == 1.2e6 and g["metrics"]["throttle_time_us"]["max"] == 4.2e6, g["metrics"]
assert abs(g["throttle_counter_share"] - 0.3) < 1e-9, g["throttle_counter_share"]
f = [x for x in d["findings"] if x["id"] == "throttling"]
assert f and abs(f[0]["evidence"]["throttle_counter_share"] - 0.3) < 1e-6, f
assert abs(f[0]["est_gain"] - 0.3 * (1 - 1755 / 1980)) < 1e-6, f
PY
# a monitoring log on standard input without --format is told by its head, as a file is (it was
# read as a trace, exit 3 with a hint naming --format dmon)
"$GPUDIAG" analyze - < "$DATA/dmon_columns_change.log" > "$TMP/out" 2> "$TMP/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q "(dmon monitoring log" "$TMP/out" && ok ||
    nok "stdin sniffed: rc $rc $(cat "$TMP/err")"

# every input that once broke tests/fuzz/fuzz_monlog (its first byte picks the format: 0 auto):
# analysed, JSON and HTML, with an exit of 0 or 3 and never a crash (the ASan+UBSan suite runs this too)
for f in "$GD_TEST_DATA/../fuzz/regress/fuzz_monlog"/*; do
    [ -f "$f" ] || continue
    tail -c +2 "$f" > "$TMP/fz.log"
    "$GPUDIAG" analyze --json "$TMP/fz.log" > /dev/null 2> "$TMP/err"; rc=$?
    "$GPUDIAG" analyze --html "$TMP/fz.html" "$TMP/fz.log" > /dev/null 2>&1; rc2=$?
    { [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; } && { [ "$rc2" -eq 0 ] || [ "$rc2" -eq 3 ]; } && ok || nok "fuzz regression $(basename "$f"): rc $rc/$rc2 $(head -c 300 "$TMP/err")"
done

# amd-smi monitor (DEFINITIONS "amd-smi monitor"), expected values by hand from the files:
# * amdsmi_monitor.txt (text table, banner line, header printed before each round, units on
#   every value): GPU 0 GFX_UTIL 83 91 88 % -> mean 0.873333, 3 samples; GPU 1 13 8 21 % -> 0.14;
#   summary (0.873333 + 0.14) / 2 = 0.506667; GPU 0 VRAM_USED 60000 MB = 60000 x 2^20 =
#   62914560000 bytes, VRAM_TOTAL 196300 MB = 205835468800 bytes; GPU 1 POWER 143 117 N/A ->
#   mean 130 W over 2 values; GPU 0 GPU_TEMP 42 43 43 -> 42.666667 C; MEM_UTIL 20 25 22 % ->
#   0.223333; GFX_CLOCK 1613 1700 1650 -> 1654.333333 MHz; MEM_TEMP 41 41 42 -> 41.333333;
#   PCIE_BW (N/A Mb/s) ignored; no row skipped; time assumed (no timestamp column).
# * amdsmi_monitor.csv (--csv, bare numbers): GPU 0 gfx 97 99 -> 0.98; GPU 1 93 95 -> 0.94,
#   power 540 (N/A left out); vram_used 150000 with vram_total 196288 (>= 4096: MiB) ->
#   157286400000 bytes; mem 40 41 -> 0.405; xcp ignored.
# * the same CSV with vram in amd-smi's default GB (vram_total 191.7 < 4096: GiB): 146.5 GiB =
#   157302767616 bytes; without vram_total the bare number is not read (no mem_used metric).
"$GPUDIAG" analyze --json "$DATA/amdsmi_monitor.txt" > "$TMP/amdt.json" 2> "$TMP/err" || nok "amd-smi text: $(cat "$TMP/err")"
"$GPUDIAG" analyze --json "$DATA/amdsmi_monitor.csv" > "$TMP/amdc.json" 2> "$TMP/err" || nok "amd-smi csv: $(cat "$TMP/err")"
printf 'gpu,gfx,vram_used,vram_total\n0,50,146.5,191.7\n0,60,146.5,191.7\n' > "$TMP/amdgb.csv"
printf 'gpu,gfx,vram_used\n0,50,146.5\n0,60,146.5\n' > "$TMP/amdnt.csv"
"$GPUDIAG" analyze --json "$TMP/amdgb.csv" > "$TMP/amdgb.json" 2> "$TMP/err" || nok "amd-smi GB: $(cat "$TMP/err")"
"$GPUDIAG" analyze --json "$TMP/amdnt.csv" > "$TMP/amdnt.json" 2> "$TMP/err" || nok "amd-smi no total: $(cat "$TMP/err")"
if python3 - "$TMP" <<'PY'; then ok; else nok "amd-smi monitor values"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
tmp = sys.argv[1]
def load(n): return json.load(open(os.path.join(tmp, n)))
t, c, gb, nt = load("amdt.json"), load("amdc.json"), load("amdgb.json"), load("amdnt.json")
ts, cs = t["series"], c["series"]
g0, g1 = ts["gpus"][0]["metrics"], ts["gpus"][1]["metrics"]
c0, c1 = cs["gpus"][0]["metrics"], cs["gpus"][1]["metrics"]
checks = [
    ("txt format", ts["format"], "amdsmi"), ("txt time", ts["time_source"], "assumed"),
    ("txt gpus", len(ts["gpus"]), 2), ("txt rows", ts["rows"], 6), ("txt skipped", ts["skipped_rows"], 0),
    ("txt header changes", ts["header_changes"], 0),
    ("txt g0 samples", ts["gpus"][0]["samples"], 3),
    ("txt g0 util", g0["gpu_util"]["mean"], (0.83 + 0.91 + 0.88) / 3),
    ("txt g1 util", g1["gpu_util"]["mean"], 0.14),
    ("txt summary util", t["summary"]["gpu_utilization"], ((0.83 + 0.91 + 0.88) / 3 + 0.14) / 2),
    ("txt g0 mem used", g0["mem_used_bytes"]["mean"], 62914560000),
    ("txt g0 mem total", g0["mem_total_bytes"]["mean"], 205835468800),
    ("txt g1 power", g1["power_w"]["mean"], 130), ("txt g1 power n", g1["power_w"]["n"], 2),
    ("txt g0 temp", g0["temp_c"]["mean"], 128 / 3),
    ("txt g0 mem temp", g0["mem_temp_c"]["mean"], 124 / 3),
    ("txt g0 mem util", g0["mem_util"]["mean"], 0.67 / 3),
    ("txt g0 clock", g0["sm_clock_mhz"]["mean"], 4963 / 3),
    ("csv format", cs["format"], "amdsmi"), ("csv rows", cs["rows"], 4),
    ("csv g0 util", c0["gpu_util"]["mean"], 0.98), ("csv g1 util", c1["gpu_util"]["mean"], 0.94),
    ("csv g1 power", c1["power_w"]["mean"], 540), ("csv g1 power n", c1["power_w"]["n"], 1),
    ("csv g0 mem used", c0["mem_used_bytes"]["mean"], 157286400000),
    ("csv g0 mem util", c0["mem_util"]["mean"], 0.405),
    ("csv GB mem used", gb["series"]["gpus"][0]["metrics"]["mem_used_bytes"]["mean"], 146.5 * 2**30),
    ("csv no total: no mem used", "mem_used_bytes" in nt["series"]["gpus"][0]["metrics"], False),
    # GPU 1 at 0.14 (0.1 % memory used): low_gpu_utilization high, one level lower (medium) for its
    # 2 samples (< 30: a short look), gain 1 - 0.14 / 0.70 = 0.80;
    # memory_headroom low with no gain (the idle time is low_gpu_utilization's), so ranked after it
    ("txt ranking", [f["id"] for f in t["findings"]], ["low_gpu_utilization", "memory_headroom", "input_columns_ignored"]),
    ("txt low util sev/gain", [(f["severity"], round(f["est_gain"], 6)) for f in t["findings"]
                               if f["id"] == "low_gpu_utilization"], [("medium", 0.8)]),
    ("txt headroom sev/gain", [(f["severity"], f.get("est_gain")) for f in t["findings"] if f["id"] == "memory_headroom"],
     [("low", None)]),
]
valcheck.run(checks, "amd-smi monitor", rel=1e-5)  # JSON keeps 6 significant digits
PY
# A gzip log cut short is read up to the cut, like a cut-off plain log (DEFINITIONS "gzip-compressed
# logs"): prom_8xA800_cut.prom.gz is the first 650 bytes of gzip -9 -n of the shared
# dcgm_exporter_metrics_8xA800_mig_idle.prom; they decompress to 43 whole lines and a partial 44th
# (`DCGM_FI_DEV_GPU_TEMP{gpu="`). By hand from those 43 lines: 10 entities (SM clock, memory clock,
# memory temperature for each), a GPU temperature for the first 5 only; line 44 is the one row
# left out (rc 0, warning "line 44"), never "read failed". A gzip log cut inside its first data
# row says so (rc 3, "cut short").
"$GPUDIAG" analyze --json "$DATA/prom_8xA800_cut.prom.gz" > "$TMP/cut.json" 2> "$TMP/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q "line 44: 1 data row could not be read" "$TMP/err" && ok || nok "gzip cut short: rc $rc $(cat "$TMP/err")"
if python3 - "$TMP" <<'PY'; then ok; else nok "gzip cut short values"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
s = json.load(open(os.path.join(sys.argv[1], "cut.json")))["series"]
checks = [
    ("entities", len(s["gpus"]), 10), ("skipped", s["skipped_rows"], 1), ("first skipped", s["first_skipped_line"], 44),
    ("with temp", sum(1 for g in s["gpus"] if "temp_c" in g["metrics"]), 5),
    ("with sm clock", sum(1 for g in s["gpus"] if "sm_clock_mhz" in g["metrics"]), 10),
]
valcheck.run(checks, "gzip cut short", rel=1e-9)
PY
printf 'index, utilization.gpu [%%]\n' > "$TMP/hdr.csv"
i=0; while [ $i -lt 200 ]; do printf '0, %d %%\n' $((i % 100)) >> "$TMP/hdr.csv"; i=$((i + 1)); done
gzip -9 -n -c "$TMP/hdr.csv" | head -c 30 > "$TMP/hdr.csv.gz"
"$GPUDIAG" analyze --format smi-csv "$TMP/hdr.csv.gz" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "cut short" "$TMP/err" && ok || nok "gzip cut in the first row: rc $rc $(cat "$TMP/err")"

# bytes after the last gzip member of a log (DEFINITIONS "Time and events"): reported as a trace's
# are, note input_gzip_trailing_data with the count (5: "JUNK\n") and the compressed offset where
# they start (= the gzip data's length, measured with wc -c before appending), and a stderr
# warning naming the file; the log itself reads as the plain one. NUL padding stays silent.
gzip -n -c "$DATA/dmon_gains.log" > "$TMP/junk.log.gz"
gzlen=$(wc -c < "$TMP/junk.log.gz")
printf 'JUNK\n' >> "$TMP/junk.log.gz"
"$GPUDIAG" analyze --json "$TMP/junk.log.gz" > "$TMP/junk.json" 2> "$TMP/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q "^gpudiag: warning: $TMP/junk.log.gz: compressed byte $gzlen: 5 bytes after the last gzip member" "$TMP/err" &&
    ok || nok "log.gz trailing junk: rc $rc stderr: $(cat "$TMP/err")"
python3 - "$TMP/junk.json" "$gzlen" <<'PY' && ok || nok "log.gz trailing junk: finding"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "input_gzip_trailing_data"]
assert len(f) == 1, [x["id"] for x in d["findings"]]
ev = f[0]["evidence"]
assert ev["trailing_bytes"] == 5 and ev["trailing_at_compressed_bytes"] == int(sys.argv[2]), ev
PY
gzip -n -c "$DATA/dmon_gains.log" > "$TMP/pad.log.gz"
head -c 512 /dev/zero >> "$TMP/pad.log.gz"
"$GPUDIAG" analyze --json "$TMP/pad.log.gz" > "$TMP/pad.json" 2> "$TMP/err"
[ ! -s "$TMP/err" ] && ! grep -q input_gzip_trailing_data "$TMP/pad.json" && ok || nok "NUL padding after a log's gzip: not silent: $(cat "$TMP/err")"

# analyze --help's opening paragraph names every monitoring format of the format table
# (src/ingest/formats.c: its `what`), as --format does: amd-smi was missing
"$GPUDIAG" analyze --help | sed '/^Options:/q' | tr '\n' ' ' > "$TMP/help.txt"
for w in "nvidia-smi dmon" "dcgmi dmon" "dcgm-exporter Prometheus text" "nvidia-smi -q" "amd-smi monitor"; do
    grep -qF "$w" "$TMP/help.txt" && ok || nok "analyze --help opening paragraph lacks '$w'"
done

# amd-smi text with per-XCP continuation rows (blank GPU column) and VRAM_USAGE "150.0/192.0 GB":
# no AMD document gives that layout, so those rows are not read, and the message says why
# (amdsmi_xcp_rows.txt, by hand: header 9 columns; lines 3, 4, 6, 7 hold 2 cells -> 4 rows left
# out, first at line 3; GPU 0 GFX% 97 -> 0.97, GPU 1 93 -> 0.93; XCP ignored; VRAM_USAGE
# 150.0/192.0 GB -> used 150 x 2^30 = 161061273600 B, total 192 x 2^30 = 206158430208 B)
"$GPUDIAG" analyze --json "$DATA/amdsmi_xcp_rows.txt" > "$TMP/xcp.json" 2> "$TMP/err" || nok "amd-smi xcp rows: $(cat "$TMP/err")"
grep -q "line 3: 4 data rows could not be read.*2 cells where the header has 9 columns" "$TMP/err" && ok || nok "xcp rows message: $(cat "$TMP/err")"
if python3 - "$TMP" <<'PY'; then ok; else nok "amd-smi xcp rows"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(os.path.join(sys.argv[1], "xcp.json")))
s = d["series"]
f = [f for f in d["findings"] if f["id"] == "input_skipped_rows"][0]
checks = [
    ("skipped", s["skipped_rows"], 4), ("first", s["first_skipped_line"], 3),
    ("ignored", s["ignored_columns"], "XCP"),
    ("vram used", s["gpus"][0]["metrics"]["mem_used_bytes"]["mean"], 161061273600),
    ("vram total", s["gpus"][1]["metrics"]["mem_total_bytes"]["mean"], 206158430208),
    ("g0", s["gpus"][0]["metrics"]["gpu_util"]["mean"], 0.97), ("g1", s["gpus"][1]["metrics"]["gpu_util"]["mean"], 0.93),
    ("finding says why", "no documented layout" in f["title"], True),
]
valcheck.run(checks, "amd-smi xcp rows", rel=1e-6)
PY

# current amd-smi's VRAM_USAGE with its total padded (amdsmi_vram_usage.txt; DEFINITIONS "amd-smi
# monitor"): "2.9/ 15.9 GB" is one cell, so the rows have the header's 11 cells (a reviewer: an
# RX 9070 XT row was "every data row malformed", exit 3, and the column was ignored). By hand:
# GPU 0 gfx 6 % -> 0.06, used 2.9 x 2^30 = 3113851289.6 B, total 15.9 x 2^30 = 17072495001.6 B;
# GPU 1 (a partition, N/A cells) used 0.5 x 2^30 = 536870912, total 48 x 2^30 = 51539607552; 0 rows left out
"$GPUDIAG" analyze --json "$DATA/amdsmi_vram_usage.txt" > "$TMP/vu.json" 2> "$TMP/err" || nok "amd-smi vram_usage: $(cat "$TMP/err")"
if python3 - "$TMP/vu.json" <<'PY'; then ok; else nok "amd-smi vram_usage"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
s = json.load(open(sys.argv[1]))["series"]
g = {x["gpu"] if "gpu" in x else i: x["metrics"] for i, x in enumerate(s["gpus"])}
m0, m1 = s["gpus"][0]["metrics"], s["gpus"][1]["metrics"]
valcheck.run([
    ("skipped", s["skipped_rows"], 0), ("gpus", len(s["gpus"]), 2),
    ("g0 util", m0["gpu_util"]["mean"], 0.06),
    ("g0 used", m0["mem_used_bytes"]["mean"], 3113851289.6), ("g0 total", m0["mem_total_bytes"]["mean"], 17072495001.6),
    ("g1 used", m1["mem_used_bytes"]["mean"], 536870912), ("g1 total", m1["mem_total_bytes"]["mean"], 51539607552),
], "amd-smi vram_usage", rel=1e-5)
PY

# amd-smi --csv -w 5 with its timestamp column (epoch seconds; DEFINITIONS "amd-smi monitor"),
# amdsmi_watch.csv: 24 rounds 5 s apart, 2 GPUs -> time absolute, 24 samples over 23 x 5 =
# 115 s, interval 5 s, nothing ignored; GPU 0 gfx 90 90 10 repeating -> mean 63.3333 %, dips
# every 3 samples x 5 s = 15 s (not 3 s as at the assumed 1 s); GPU 1 95 steady: no dips.
# A header without the column keeps 1 s a sample (time assumed); an N/A stamp skips its row.
"$GPUDIAG" analyze --json "$DATA/amdsmi_watch.csv" > "$TMP/amdw.json" 2> "$TMP/err" || nok "amd-smi watch: $(cat "$TMP/err")"
printf 'timestamp,gpu,gfx\n1733200000,0,50\nN/A,0,60\n1733200010,0,70\n' > "$TMP/amdna.csv"
"$GPUDIAG" analyze --json "$TMP/amdna.csv" > "$TMP/amdna.json" 2> "$TMP/err" || nok "amd-smi N/A stamp: $(cat "$TMP/err")"
if python3 - "$TMP" <<'PY'; then ok; else nok "amd-smi timestamps"; fi
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
tmp = sys.argv[1]
w = json.load(open(os.path.join(tmp, "amdw.json")))["series"]
na = json.load(open(os.path.join(tmp, "amdna.json")))["series"]
g0, g1 = w["gpus"]
checks = [
    ("time", w["time_source"], "absolute"), ("ignored", w["ignored_columns"], None),
    ("g0 samples", g0["samples"], 24), ("g0 duration", g0["duration_us"], 115e6),
    ("g0 interval", g0["interval_us"], 5e6), ("g0 dip period", g0["dip_period_us"], 15e6),
    ("g0 util", g0["metrics"]["gpu_util"]["mean"], 190 / 300), ("g1 dips", g1["dip_period_us"], None),
    ("N/A stamp skipped", na["skipped_rows"], 1), ("N/A duration", na["gpus"][0]["duration_us"], 10e6),
]
valcheck.run(checks, "amd-smi timestamps", rel=1e-5)
PY
# amd-smi: the format is told by content (also --format amdsmi), and a file of another format
# given --format amdsmi says what header it wanted
"$GPUDIAG" analyze -q --format amdsmi "$DATA/amdsmi_monitor.txt" > /dev/null 2>&1 && ok || nok "--format amdsmi"
"$GPUDIAG" analyze -q --format amdsmi "$DATA/dmon_gains.log" > /dev/null 2> "$TMP/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "amd-smi monitor header" "$TMP/err" && ok || nok "amdsmi on a dmon log: rc $rc $(cat "$TMP/err")"

# A GPU with no compute data (an -q snapshot of clock-event reasons only; a dmon -s m log) is
# "unknown" in the text as in JSON and HTML, never "idle" (newcomer finding)
Q="$GD_SHARED/data/logs/nvsmi_q_clocks_event_reasons_sw_power_cap_active.txt"
if [ -f "$Q" ]; then
    "$GPUDIAG" analyze "$Q" > "$TMP/q.txt" 2>&1
    grep -q -- "-> unknown" "$TMP/q.txt" && ! grep -q -- "-> idle" "$TMP/q.txt" && ok || nok "no compute data reads unknown, not idle"
    "$GPUDIAG" analyze -q --html "$TMP/q.html" "$Q" >/dev/null 2>&1
    grep -q "No utilisation data. " "$TMP/q.html" && ok || nok "HTML: no utilisation data"
fi
# ... and the verdict of a log whose GPUs all lack compute data says so, not "idle": every
# sm value out of range (250 %, -5 %), and a dmon -s m log (memory columns only)
printf '# gpu sm\n# Idx %%\n    0  250\n    0 -5\n' > "$TMP/oor.log"
"$GPUDIAG" analyze -q "$TMP/oor.log" > "$TMP/oor.txt" 2>/dev/null
grep -q "^unknown: No compute data: no GPU in this log has a usable GPU-Util" "$TMP/oor.txt" && ! grep -q "is idle\\|are idle" "$TMP/oor.txt" \
    && ok || nok "out-of-range compute: verdict $(cat "$TMP/oor.txt")"
M="$GD_SHARED/data/logs/nvsmi_dmon_m_8gpu_idle_ccpm.log"
if [ -f "$M" ]; then
    "$GPUDIAG" analyze -q "$M" > "$TMP/m.txt" 2>/dev/null
    grep -q "^unknown: No compute data" "$TMP/m.txt" && ok || nok "dmon -s m: verdict $(cat "$TMP/m.txt")"
fi
# NVJPG and OFA (dmon jpg/ofa) are video/media engine work (DEFINITIONS "GPU states"): GPU 0's jpg
# 62,65,60 % and GPU 1's ofa 41,44,40 % have p95 >= 10 % (video_busy), their SMs median 2 and 1 %
# (< 10 %: video GPUs, class unknown); GPU 2 reads 0 on every engine: not busy. The metrics
# carry the values: jpg_util median 0.62, ofa_util median 0.41.
"$GPUDIAG" analyze --json "$DATA/dmon_jpg_ofa.log" > "$TMP/jo.json" 2>/dev/null
python3 - "$TMP/jo.json" <<'PY' && ok || nok "dmon jpg/ofa: video_busy"
import json, sys
g = json.load(open(sys.argv[1]))["series"]["gpus"]
assert [x["video_busy"] for x in g] == [True, True, False], [x["video_busy"] for x in g]
assert abs(g[0]["metrics"]["jpg_util"]["median"] - 0.62) < 1e-9 and abs(g[1]["metrics"]["ofa_util"]["median"] - 0.41) < 1e-9
assert g[0]["bottleneck"] == "unknown" and g[1]["bottleneck"] == "unknown"
PY
# a video GPU (encoder 88 %, decoder 71 %, GPU-Util 2 %) using 10000 / 81920 = 12.2 % of its
# memory gets no memory_headroom: raising a training micro-batch is not its advice
"$GPUDIAG" analyze --json "$DATA/csv_video_headroom.csv" > "$TMP/vh.json" 2>/dev/null
python3 - "$TMP/vh.json" <<'PY' && ok || nok "video GPU: no memory_headroom"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["series"]["gpus"][0]["video_busy"] is True
assert "memory_headroom" not in [f["id"] for f in d["findings"]], [f["id"] for f in d["findings"]]
PY
# GPUS label column: as wide as the longest label shown (at least 9), so a whole GPU and MIG
# instances line up. prom_mig_mixed_labels.prom: labels "GPU 0" (5), "GPU 1 GI 7" (10),
# "GPU 1 GI 13" (11): width 11, so each row is 2 spaces, the label padded to 11, 1 space, then
# the name: "NVIDIA" at 0-based column 2 + 11 + 1 = 14 on all three rows (was 12, 13 and 14).
"$GPUDIAG" analyze --no-color --width 100 "$DATA/prom_mig_mixed_labels.prom" > "$TMP/mig.txt" 2>&1
cols=$(grep "^  GPU " "$TMP/mig.txt" | awk '{ print index($0, "NVIDIA") - 1 }' | tr '\n' ' ')
[ "$cols" = "14 14 14 " ] && grep -q "^  GPU 0       NVIDIA" "$TMP/mig.txt" && ok ||
    nok "MIG label column: name columns $cols: $(grep '^  GPU ' "$TMP/mig.txt")"
# ... and a log of whole GPUs keeps the 9 columns: "GPU 0" + 4 pad + 1 space, name at 12
"$GPUDIAG" analyze --no-color "$DATA/dcgmi_device_name.log" > "$TMP/g.txt" 2>&1
grep "^  GPU 0 " "$TMP/g.txt" | head -1 | grep -q "^  GPU 0     [^ ]" && ok || nok "whole-GPU label column moved: $(grep '^  GPU 0' "$TMP/g.txt")"
finish
