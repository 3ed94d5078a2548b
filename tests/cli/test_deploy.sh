#!/bin/sh
# deploy/: the Kubernetes manifests parse as YAML with the expected kinds and
# ports, the Grafana dashboard parses as JSON, and every metric family the
# dashboard queries is one that docs/SERVE.md says gpudiag serve exports; the
# Indexed Job + merge Job recipe runs its two steps here and matches analyze DIR.
set -eu
GD_TMP_TAG=deploy
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if ! python3 -c 'import yaml' 2>/dev/null; then echo "skip: python3-yaml not installed"; exit 77; fi
python3 - "$GD_SRC" <<'PY'
import json, re, sys, yaml
src = sys.argv[1]
docs = [d for d in yaml.safe_load_all(open(src + "/deploy/kubernetes/gpudiag-serve.yaml")) if d]
kinds = [d["kind"] for d in docs]
assert kinds == ["DaemonSet", "Service", "ServiceMonitor"], kinds
ds = docs[0]["spec"]["template"]["spec"]["containers"][0]
assert ds["ports"][0] == {"name": "metrics", "containerPort": 9401}, ds["ports"]
assert ds["args"][:3] == ["serve", "--listen", "0.0.0.0:9401"], ds["args"]
assert ds["readinessProbe"]["httpGet"]["path"] == "/healthz"
assert docs[2]["spec"]["endpoints"][0]["port"] == "metrics"
sel = docs[0]["spec"]["selector"]["matchLabels"]
assert docs[1]["spec"]["selector"] == sel and docs[2]["spec"]["selector"]["matchLabels"] == sel
dash = json.load(open(src + "/deploy/grafana/gpudiag-dashboard.json"))
exported = set(re.findall(r"^\| `((?:DCGM_FI|gpudiag)_[A-Za-z_]+)`", open(src + "/docs/SERVE.md").read(), re.M))
assert len(exported) >= 20, exported
used = set()
for p in dash["panels"]:
    for t in p.get("targets", []):
        used |= set(re.findall(r"\b(DCGM_FI_[A-Z_]+|gpudiag_[a-z_]+)\b", t["expr"]))
missing = used - exported
assert not missing, "dashboard queries families serve does not export: %s" % sorted(missing)
for need in ("gpudiag_memory_used_bytes", "gpudiag_sm_active_ratio", "gpudiag_dram_active_ratio", "gpudiag_bottleneck"):
    assert need in used, need
# the default names only (serve runs beside dcgm-exporter), a data source variable instead of
# __inputs, and job / instance / GPU filters on every query
assert not any(u.startswith("DCGM_FI_") for u in used), sorted(used)
assert "__inputs" not in dash
names = [v["name"] for v in dash["templating"]["list"]]
assert names == ["datasource", "job", "instance", "gpu"], names
for p in dash["panels"]:
    if p.get("datasource"):
        assert p["datasource"]["uid"] == "${datasource}", p["title"]
    for t in p.get("targets", []):
        for sel in re.findall(r"\{([^}]*)\}", t["expr"]):
            assert 'job=~"$job"' in sel and 'instance=~"$instance"' in sel and 'gpu=~"$gpu"' in sel, t["expr"]
ids = [p["id"] for p in dash["panels"]]
assert len(ids) == len(set(ids)), "duplicate panel ids"
print("deploy ok: %d manifests, %d panels, %d metric families queried" % (len(docs), len(ids), len(used)))
PY
# the Indexed Job + merge Job recipe: its kinds, and its two shell steps run here
# (with /data a temporary folder and gpudiag this build) over 4 generated ranks:
# the merged view equals analyze --json of the traces
python3 - "$GD_SRC" "$TMP" <<'PY'
import sys, yaml
src, tmp = sys.argv[1:3]
docs = [d for d in yaml.safe_load_all(open(src + "/deploy/kubernetes/gpudiag-ranks-job.yaml")) if d]
assert [d["kind"] for d in docs] == ["Job", "Job"], docs
ranks, merge = docs
assert ranks["spec"]["completionMode"] == "Indexed"
assert ranks["spec"]["completions"] == ranks["spec"]["parallelism"]
assert [d["metadata"]["labels"]["step"] for d in docs] == ["ranks", "merge"]
env = {e["name"]: e["value"] for e in ranks["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["GPUDIAG_JOB_ID"], env
for name, d in (("ranks", ranks), ("merge", merge)):
    c = d["spec"]["template"]["spec"]["containers"][0]
    assert c["command"] == ["/bin/sh", "-c"], c
    open("%s/%s.sh" % (tmp, name), "w").write(c["args"][0].replace("/data", tmp + "/data"))
PY
mkdir -p "$TMP/data" "$TMP/bin"
ln -s "$GPUDIAG" "$TMP/bin/gpudiag"
python3 "$GD_SRC/bench/gen_ranks.py" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/data/traces" --ranks 4 --straggler 2 \
    --delay-us 40 > /dev/null
for i in 0 1 2 3; do
    PATH="$TMP/bin:$PATH" JOB_COMPLETION_INDEX=$i GPUDIAG_JOB_ID=train-run-42 sh "$TMP/ranks.sh" > /dev/null
done
PATH="$TMP/bin:$PATH" sh "$TMP/merge.sh" > "$TMP/merge.txt"
"$GPUDIAG" analyze --json "$TMP/data/traces" > "$TMP/single.json"
cmp "$TMP/data/job.json" "$TMP/single.json"
grep -q "Rank 2 is the straggler" "$TMP/merge.txt"
echo "kubernetes ranks recipe ok"
echo "2 passed, 0 failed"
