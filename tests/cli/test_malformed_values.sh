#!/bin/sh
# test_malformed_values.sh — an event whose JSON is broken INSIDE a value
# (garbage in a number, a control character, a bare N/A) is a malformed event:
# it is skipped and counted (inputs[0].skipped.malformed, finding
# input_malformed), exactly as if its line were absent, and never read as a
# prefix of the broken token ("ts": 11<0x0e>00 must not become ts = 11 us).
# Both event readers must agree: the default (simdjson for the events array)
# and GPUDIAG_NO_SIMDJSON=1 (yajl only).
#
# Each case corrupts one line of tests/data/ok_two_steps.json; the expected
# report is gpudiag's own report for the same file with that line removed.
#
# Environment: GPUDIAG (default <repo>/build/gpudiag), GD_TEST_DATA (default
# the script's ../data).  Exit: 0 all passed, 1 any failure, 77 no python3.

GD_TMP_TAG=mal
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

python3 - "$GPUDIAG" "$GD_TEST_DATA/ok_two_steps.json" "$TMP" <<'PYEOF'
import json, os, subprocess, sys

gpudiag, src_path, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(src_path, "rb").read().split(b"\n")

def line_of(*needles):
    hits = [i for i, l in enumerate(lines) if all(n in l for n in needles)]
    assert len(hits) == 1, needles
    return hits[0]

# (label, line selector, old bytes, new bytes).  Each line is an event whose
# misreading would change the numbers (step bounds, kernel time, CPU Exec).
CASES = [
    ("control char inside ProfilerStep#2 ts", (b'"ProfilerStep#2"', b'"user_annotation"'), b'"ts": 1100', b'"ts": 11\x0e00'),
    ("NUL inside kernel dur", (b'"ampere_s16816gemm', b'"ts": 1050'), b'"dur": 40', b'"dur": 4\x000'),
    ("minus inside runtime ts", (b'"cudaLaunchKernel"', b'"ts": 1040'), b'"ts": 1040', b'"ts": 10-40'),
    ("letter inside cpu_op tid", (b'"aten::add"',), b'"tid": 100', b'"tid": 1Y0'),
    ("letters after cpu_op dur", (b'"aten::mul"',), b'"dur": 40', b'"dur": 40x'),
    ("two dots in blocks per SM", (b'CUDAFunctor_add', b'"ts": 1070'), b'"blocks per SM": 0.75', b'"blocks per SM": 0.7.5'),
    ("exponent without digits in ts", (b'"Memcpy HtoD',), b'"ts": 1036', b'"ts": 1036e'),
    ("bare N/A in an unused arg", (b'"aten::add"',), b'"Ev Idx": 2', b'"Ev Idx": N/A'),
    ("control char as an unused arg value", (b'"aten::add"',), b'"Ev Idx": 2', b'"Ev Idx": \x02'),
]

def run(path, simd):
    env = dict(os.environ)
    env.pop("GPUDIAG_NO_SIMDJSON", None)
    if not simd:
        env["GPUDIAG_NO_SIMDJSON"] = "1"
    p = subprocess.run([gpudiag, "analyze", "--json", path], capture_output=True, env=env)
    rep = None
    if p.returncode == 0:
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            pass
    return p.returncode, rep, p.stderr.decode("utf-8", "replace")

def numbers(rep):
    """What the numbers are: steps, averages, device metrics, kernels."""
    return {"steps": rep["steps"], "avg": rep["breakdown"]["avg_us"],
            "devices": rep["devices"], "kernels": rep["kernels"]["top"]}

passed = failed = 0
def check(label, what, want, got):
    global passed, failed
    if want == got:
        passed += 1
    else:
        failed += 1
        print("FAIL [%s] %s" % (label, what))
        print("       expected %s" % json.dumps(want, sort_keys=True)[:600])
        print("       got      %s" % json.dumps(got, sort_keys=True)[:600])

for n, (label, sel, old, new) in enumerate(CASES):
    i = line_of(*sel)
    assert old in lines[i], label
    bad = lines[:i] + [lines[i].replace(old, new, 1)] + lines[i + 1:]
    gone = lines[:i] + lines[i + 1:]
    bad_path = os.path.join(tmp, "bad%d.json" % n)
    gone_path = os.path.join(tmp, "gone%d.json" % n)
    open(bad_path, "wb").write(b"\n".join(bad))
    open(gone_path, "wb").write(b"\n".join(gone))
    rc_ref, ref, err_ref = run(gone_path, simd=False)
    if rc_ref != 0 or ref is None:
        failed += 1
        print("FAIL [%s] reference (line removed) did not analyse: exit %d %s" % (label, rc_ref, err_ref[:300]))
        continue
    n_events = ref["inputs"][0]["events"]
    for simd in (True, False):
        tag = "%s, %s" % (label, "default reader" if simd else "GPUDIAG_NO_SIMDJSON=1")
        rc, rep, err = run(bad_path, simd)
        check(tag, "exit status", 0, rc)
        if rc >= 128:
            print("       crashed: %s" % err[:300])
        if rep is None:
            failed += 1
            print("FAIL [%s] no JSON report; stderr: %s" % (tag, err[:300]))
            continue
        inp = rep["inputs"][0]
        check(tag, "skipped.malformed", 1, inp["skipped"]["malformed"])
        check(tag, "events (the broken one not counted)", n_events, inp["events"])
        check(tag, "input_malformed finding", True,
              "input_malformed" in [f["id"] for f in rep["findings"]])
        check(tag, "numbers equal those without the broken line", numbers(ref), numbers(rep))

with open(os.path.join(tmp, "counts"), "w") as fh:
    fh.write("%d %d\n" % (passed, failed))
PYEOF
if [ -s "$TMP/counts" ]; then
    read -r P FL <"$TMP/counts"
else
    P=0
    FL=1
    echo "FAIL: the checker did not finish"
fi
echo "$P passed, $FL failed"
[ "$FL" -eq 0 ]
