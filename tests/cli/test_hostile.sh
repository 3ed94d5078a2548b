#!/bin/sh
# test_hostile.sh — the hostile-input corpus (tests/data/hostile/expect.tsv:
# exact exit status, exact first stderr line, the numbers of a damaged trace
# equal those of the same trace without the damaged event), with both event
# readers; then the large cases made here: a 1 MB kernel name, 100 000 nested
# arrays inside args and at the root, 10 000 streams, 20 000 kernels sharing
# one correlation id.  Every report must be valid JSON; no run may take more
# than 60 s (a hang is a failure).
# Environment: GPUDIAG, GD_TEST_DATA (see common.sh).
# Exit: 0 all passed, 1 any failure, 77 no python3.

GD_TMP_TAG=hostile
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

python3 - "$GPUDIAG" "$GD_TEST_DATA" "$TMP" <<'PYEOF'
import json, os, subprocess, sys

gpudiag, data, tmp = sys.argv[1:4]
hostile = os.path.join(data, "hostile")
orig_path = os.path.join(data, "ok_two_steps.json")
orig_lines = open(orig_path, "rb").read().split(b"\n")
passed = failed = 0
READERS = {"simdjson": {}, "yajl": {"GPUDIAG_NO_SIMDJSON": "1", "GPUDIAG_NO_ISAL": "1"}}


def run(path, reader):
    env = dict(os.environ)
    env.pop("GPUDIAG_NO_SIMDJSON", None)
    env.pop("GPUDIAG_NO_ISAL", None)
    env.update(READERS[reader])
    try:
        p = subprocess.run([gpudiag, "analyze", "--json", path], capture_output=True, env=env, timeout=60)
    except subprocess.TimeoutExpired:
        return None, None, "timed out after 60 s"
    rep = None
    if p.returncode in (0, 1):
        try:
            rep = json.loads(p.stdout.decode("utf-8"))   # strict: the report is valid UTF-8 JSON
        except ValueError as e:
            rep = e
    return p.returncode, rep, p.stderr.decode("utf-8", "replace")


def check(label, what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL [%s] %s %s" % (label, what, detail))


def numbers(rep):
    return {"steps": rep["steps"], "breakdown": rep["breakdown"]}


ref_cache = {}
def reference(same_as, reader):
    key = (same_as, reader)
    if key not in ref_cache:
        if same_as == "orig":
            path = orig_path
        else:
            path = os.path.join(tmp, "ref%d.json" % len(ref_cache))
            kept = [l for l in orig_lines if same_as.encode() not in l]
            assert len(kept) == len(orig_lines) - 1, same_as
            open(path, "wb").write(b"\n".join(kept))
        rc, rep, err = run(path, reader)
        assert rc == 0 and isinstance(rep, dict), (same_as, rc, err)
        ref_cache[key] = rep
    return ref_cache[key]


rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(hostile, "expect.tsv"), encoding="utf-8")
        if l.strip() and not l.startswith("#")][1:]
listed = set()
for name, outcome, code, first, same_as, expr in rows:
    readers = list(READERS)
    if "@" in name:
        name, only = name.split("@")
        readers = [only]
    listed.add(name)
    path = os.path.join(hostile, name)
    for reader in readers:
        label = "%s, %s" % (name, reader)
        rc, rep, err = run(path, reader)
        check(label, "exit status %s" % code, rc == int(code), "(got %s: %s)" % (rc, err[:300]))
        line = err.split("\n")[0] if err else ""
        want = "" if first == "-" else first.replace("{}", path)
        check(label, "first stderr line", line == want, "\n       expected %r\n       got      %r" % (want, line))
        if outcome == "reject":
            continue
        if not isinstance(rep, dict):
            check(label, "a valid JSON report", False, str(rep))
            continue
        ids = [f["id"] for f in rep["findings"]]
        inp = rep["inputs"][0]
        inputs = [i for i in ids if i.startswith("input_")]
        if outcome == "ok":
            check(label, "no input_* finding", not inputs, str(inputs))
        else:
            check(label, "an input_* finding", bool(inputs), str(ids))
        if same_as != "-":
            check(label, "numbers as without the damaged event (%s)" % same_as,
                  numbers(rep) == numbers(reference(same_as, reader)))
        if expr != "-":
            try:
                ok = bool(eval(expr, {"r": rep, "inp": inp, "ids": ids}))
            except Exception as e:
                ok = False
                expr += "  (%s: %s)" % (type(e).__name__, e)
            check(label, expr, ok)
for f in sorted(os.listdir(hostile)):
    if f not in ("expect.tsv", "make.py"):
        check(f, "has a row in expect.tsv", f in listed)

# ---- large cases, made here ------------------------------------------------
kern = [i for i, l in enumerate(orig_lines) if b'"cat": "kernel"' in l]
def variant(name, i, old, new):
    assert old in orig_lines[i]
    lines = list(orig_lines)
    lines[i] = lines[i].replace(old, new, 1)
    path = os.path.join(tmp, name)
    open(path, "wb").write(b"\n".join(lines))
    return path

big = variant("name_1mb.json", kern[0], b'"name": "void', b'"name": "' + b"x" * (1 << 20) + b"void")
deep = variant("deep_args.json", kern[0], b'"queued": 0', b'"queued": ' + b"[" * 100000 + b"]" * 100000)
for reader in READERS:
    for label, path in (("1 MB kernel name", big), ("100 000 nested arrays in args", deep)):
        label += ", " + reader
        rc, rep, err = run(path, reader)
        check(label, "exit 0", rc == 0, "(got %s: %s)" % (rc, err[:300]))
        if isinstance(rep, dict):
            check(label, "numbers unchanged", numbers(rep) == numbers(reference("orig", reader)))
            if "1 MB" in label:
                longest = max(len(k["name"].encode()) for k in rep["kernels"]["top"])
                check(label, "the name is kept, cut to at most 8 KiB", 4096 < longest <= 8192, str(longest))
        else:
            check(label, "a valid JSON report", False, str(rep))

root = os.path.join(tmp, "deep_root.json")
open(root, "wb").write(b"[" * 100000 + b"]" * 100000)
for reader in READERS:
    rc, rep, err = run(root, reader)
    check("100 000 nested arrays as the document, " + reader, "exit 3", rc == 3, "(got %s: %s)" % (rc, err[:300]))

# 10 000 streams: one kernel on each, 1 us apart, 2 us long, inside one step
ev = ['{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0.5, "dur": 30000}']
for s in range(10000):
    ev.append('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": %d, "ts": %d, "dur": 2, '
              '"args": {"device": 0, "stream": %d, "correlation": %d}}' % (s + 1, 10 + 3 * s, s + 1, s + 1))
streams = os.path.join(tmp, "streams.json")
open(streams, "w").write('{"traceEvents": [\n' + ",\n".join(ev) + "\n]}\n")
# 20 000 kernels all claiming correlation id 7, with one launch
ev = ['{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, '
      '"args": {"correlation": 7}}']
for s in range(20000):
    ev.append('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 1, '
              '"args": {"device": 0, "stream": 7, "correlation": 7}}' % (10 + 2 * s))
dup = os.path.join(tmp, "dup_corr.json")
open(dup, "w").write('{"traceEvents": [\n' + ",\n".join(ev) + "\n]}\n")
for reader in READERS:
    label = "10 000 streams, " + reader
    rc, rep, err = run(streams, reader)
    check(label, "exit 0", rc == 0, "(got %s: %s)" % (rc, err[:300]))
    if isinstance(rep, dict):
        check(label, "10 000 kernels of 2 us", (rep["kernels"]["count"], rep["kernels"]["total_us"]) == (10000, 20000),
              str((rep["kernels"]["count"], rep["kernels"]["total_us"])))
    label = "20 000 kernels with one correlation id, " + reader
    rc, rep, err = run(dup, reader)
    check(label, "exit 0", rc == 0, "(got %s: %s)" % (rc, err[:300]))
    if isinstance(rep, dict):
        check(label, "20 000 kernels of 1 us", (rep["kernels"]["count"], rep["kernels"]["total_us"]) == (20000, 20000),
              str((rep["kernels"]["count"], rep["kernels"]["total_us"])))

open(os.path.join(tmp, "counts"), "w").write("%d %d\n" % (passed, failed))
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
