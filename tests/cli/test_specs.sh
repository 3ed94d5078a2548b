#!/bin/sh
# test_specs.sh — `gpudiag specs`: every row of the compiled-in table equals
# data/gpu_specs.csv as Python's csv module reads it (an independent parser),
# ridge points are peak × 1000 / bandwidth, overrides apply, exit codes.
. "$(dirname "$0")/common.sh"
expect_rc 0 "$GPUDIAG" specs --json
python3 - "$TMP/out" "$GD_SRC/data/gpu_specs.csv" <<'PY' || nok "specs --json against gpu_specs.csv"
import csv, json, math, sys
sys.path.insert(0, __import__("os").environ["GD_CLI_DIR"])
import valcheck
rep = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
checks = [("rows", len(rep["gpus"]), len(rows)), ("schema", rep["schema"], "gpudiag.specs/1")]
cols = {"fp64": "fp64_tflops", "fp32": "fp32_tflops", "tf32": "tf32_tensor_tflops_dense",
        "fp16": "fp16_tensor_tflops_dense", "bf16": "bf16_tensor_tflops_dense",
        "fp8": "fp8_tensor_tflops_dense", "int8": "int8_tensor_tops_dense"}
num = lambda s: float(s) if s != "" else None
for g, r in zip(rep["gpus"], rows):
    n = r["name_pattern"]
    checks += [(n + " name", g["name"], n), (n + " vendor", g["vendor"], r["vendor"]),
               (n + " arch", g["arch"], r["arch"]), (n + " source", g["source"], r["source"]),
               (n + " cc", g["compute_capability"], r["compute_capability"]),
               (n + " sms", g["sm_count"], int(r["sm_count"])),
               (n + " mem", g["mem_gb"], num(r["mem_gb"])), (n + " bw", g["mem_bw_gbs"], num(r["mem_bw_gbs"])),
               (n + " pcie", g["pcie_bw_gbs_per_dir"], num(r["pcie_bw_gbs_per_dir"])),
               (n + " nvlink", g["nvlink_bw_gbs_total"], num(r["nvlink_bw_gbs_total"])),
               (n + " tdp", g["tdp_w"], num(r["tdp_w"])),
               (n + " uncertain", g["uncertain"], "UNCERTAIN" in r["source"]),
               (n + " fp32 matrix", g["fp32_matrix_tflops"], num(r["fp32_matrix_tflops_dense"]))]
    for d, c in cols.items():
        p = num(r[c])
        checks.append((n + " " + d, g["peak_tflops"][d], p))
        bw = num(r["mem_bw_gbs"])
        checks.append((n + " ridge " + d, g["ridge_flop_per_byte"][d], p * 1000 / bw if p and bw else None))
valcheck.run(checks, "specs table", rel=1e-8)
PY
# one GPU, with overrides: the ridge follows them
expect_rc 0 "$GPUDIAG" specs --json --peak-tflops 200 --mem-bw 1000 L4
python3 - "$TMP/out" <<'PY' || nok "specs L4 with overrides"
import json, sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
g = json.load(open(sys.argv[1]))["gpus"][0]
valcheck.run([("name", g["name"], "NVIDIA L4"), ("bf16", g["peak_tflops"]["bf16"], 200),
              ("fp16 untouched", g["peak_tflops"]["fp16"], 121), ("bw", g["mem_bw_gbs"], 1000),
              ("ridge bf16", g["ridge_flop_per_byte"]["bf16"], 200.0),
              ("ridge fp8", g["ridge_flop_per_byte"]["fp8"], 242.5)], "specs L4 overrides")
PY
expect_rc 0 "$GPUDIAG" specs H200 NVL
grep -q "^NVIDIA H200 NVL" "$TMP/out" || nok "'specs H200 NVL' shows $(head -1 "$TMP/out")"
grep -q "bf16 *835.5 *174.1" "$TMP/out" || nok "H200 NVL bf16 ridge line missing"
# AMD's FP32 matrix (MFMA) peak, from the data sheet by hand: MI250X 95.7 TFLOPS per package,
# an MI250X GCD half of it (47.85), an MI250 GCD half of 90.5 (45.25); NVIDIA rows have none
expect_rc 0 "$GPUDIAG" specs --json
python3 - "$TMP/out" <<'PY' || nok "fp32 matrix peaks"
import json, sys
g = {(x["name"], x["sm_count"]): x["fp32_matrix_tflops"] for x in json.load(open(sys.argv[1]))["gpus"]}
want = {("AMD Instinct MI250X", 220): 95.7, ("AMD Instinct MI250X/MI250", 110): 47.85,
        ("AMD Instinct MI250X/MI250", 104): 45.25, ("NVIDIA H100 80GB HBM3", 132): None}
bad = {k: (g.get(k), v) for k, v in want.items() if g.get(k, "absent") != v}
print("FAIL fp32 matrix:", bad) if bad else None
sys.exit(1 if bad else 0)
PY
expect_rc 0 "$GPUDIAG" specs 'AMD Instinct MI210'
grep -qF "fp32 on Matrix Cores (MFMA): 45.30 TFLOP/s, ridge 27.6 FLOP/B" "$TMP/out" || nok "MI210 fp32 matrix line"
expect_rc 0 "$GPUDIAG" specs
grep -q "^? NVIDIA A10G" "$TMP/out" || nok "uncertain row not marked in the table"
expect_rc 2 "$GPUDIAG" specs A100 80GB
grep -q "ambiguous.*'NVIDIA A100 80GB PCIe', 'NVIDIA A100-SXM4-80GB'" "$TMP/err" || nok "ambiguous message: $(cat "$TMP/err")"
expect_rc 2 "$GPUDIAG" specs NoSuchGPU
expect_rc 2 "$GPUDIAG" specs --peak-tflops abc L4
expect_rc 2 "$GPUDIAG" specs --dtype fp4 L4
expect_rc 2 "$GPUDIAG" specs --mem-bw 100
expect_rc 2 "$GPUDIAG" specs --bogus
expect_rc 0 "$GPUDIAG" specs --help
finish
