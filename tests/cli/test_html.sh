#!/bin/sh
# test_html.sh — `gpudiag analyze --html FILE` and the timeline/gaps data behind it.
#  1. tests/data/ok_hostile_names.json (ok_idle_causes.json with kernel, op and
#     device names holding <script>, quotes, </svg>, </title>, on* handlers),
#     read from a file whose name holds the same characters: the page passes
#     htmlcheck.py (allow-listed elements only, no handlers, no external
#     references, strict nesting) and shows every hostile name as text.
#  2. The checker itself fails on a page with one name left unescaped.
#  3. Every shared trace and test input gives a page that passes the checker.
#  4. Hand-derived numbers (ok_idle_causes.json, see test_idle.sh for the
#     trace): the steps span [1000,2000] us in 500 bins of 2 us; stream 7 is
#     busy k1 [1000,1100] k2 [1300,1400] k3 [1500,1600] k4 [1800,2000] = 500 us;
#     bin 0 [1000,1002] busy 2, bin 50 [1100,1102] idle by sync 2; sync idle
#     fills bins 50..149 (200 us), dataloader 200..249, stream_wait 300..399 (test_idle.sh);
#     busy + idle = 2 us in every bin; the queue holds 1 op from the k2 launch
#     at 1250 to its start at 1300 (bins 125..149) and 0 in bins 150..209
#     (k3 launched at 1420 = bin 210); idle.gaps lists the 3 gaps in time order.
#     The page's idle chart says "200 µs/step (20.0% of step)" for sync.
#  5. Usage: --html with two traces or a directory exits 2; an unwritable
#     output exits 3.
set -u
GD_TMP_TAG=html
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
CHECK="$HERE/htmlcheck.py"

# 1. hostile names
HOSTILE="$TMP/a\"<b onload=x>'&c<svg>.json"
cp "$GD_TEST_DATA/ok_hostile_names.json" "$HOSTILE"
if "$GPUDIAG" analyze -q --html "$TMP/hostile.html" "$HOSTILE" >/dev/null 2>"$TMP/err"; then ok; else nok "hostile: exit $?"; fi
if python3 "$CHECK" "$TMP/hostile.html" '<script>alert(1)</script>' \
    "\"quoted\" 'single' </svg><img src=x onerror=alert(2)>" 'aten::</svg><script>alert(3)</script>&amp;' \
    'A100 <b onmouseover=alert(4)>' "$HOSTILE"; then ok; else nok "hostile page"; fi

# 2. the checker can fail
sed 's/&lt;script&gt;alert(1)/<script>alert(1)/' "$TMP/hostile.html" > "$TMP/unescaped.html"
if python3 "$CHECK" "$TMP/unescaped.html" >/dev/null; then nok "checker accepted an unescaped <script>"; else ok; fi

# 3. every input we have
n=0
for f in "$GD_SHARED"/data/traces/*.json.gz "$GD_TEST_DATA"/ok_*.json "$GD_TEST_DATA"/warn_*.json; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    if "$GPUDIAG" analyze -q --html "$TMP/p$n.html" "$f" >/dev/null 2>&1; then ok; else nok "$f: exit $?"; fi
done
if python3 "$CHECK" --pages "$TMP"/p*.html; then ok; else nok "pages of the inputs"; fi
# a number the trace cannot give (a100_cupti_counters has no short-kernel
# share) is "n/a" on the page, as in the text, never "nan"
if grep -l '>-\{0,1\}nan<\|>-\{0,1\}inf<' "$TMP"/p*.html; then nok "nan or inf printed on a page"; else ok; fi

# 3b. monitoring logs: every shared log gives a page that passes the checker,
# with a chart per GPU (up to 16) unless it is a snapshot.  Hand-derived
# (tests/data/monlog/csv_low_middle.csv: one GPU, samples at 0..5 s with
# gpu_util 90 90 10 10 90 90 %, memory 20480 of 40960 MiB): the plot spans
# x 60..940 (880 units for 5 s) and y 12..162 (150 units for 100 %), so
# compute 90 % is y = 12 + 150 x 0.1 = 27.0 at x = 60, 236, ..., 940, 10 % is
# y = 147.0, memory 50 % is y = 87.0; the low-utilisation band runs halfway
# between samples 1 and 2 (1.5 s, x = 60 + 880 x 1.5 / 5 = 324.0) to halfway
# between 3 and 4 (3.5 s): width 880 x 2 / 5 = 352.00.
m=0
for f in "$GD_SHARED"/data/logs/* "$GD_TEST_DATA"/monlog/*; do
    [ -f "$f" ] || continue # no shared data: only the project's own logs
    case "$f" in *.md) continue ;; esac
    m=$((m + 1))
    if "$GPUDIAG" analyze -q --html "$TMP/m$m.html" "$f" >/dev/null 2>&1; then ok; else nok "$f: exit $?"; fi
done
if python3 "$CHECK" --pages "$TMP"/m*.html; then ok; else nok "pages of the monitoring logs"; fi
"$GPUDIAG" analyze -q --html "$TMP/low.html" "$GD_TEST_DATA/monlog/csv_low_middle.csv" >/dev/null 2>&1
grep -q '<rect class="lowband" x="324.0" y="12" width="352.00" height="150">' "$TMP/low.html" && ok || nok "low band"
grep -q 'class="ind ind-compute" d="M60.0,27.0 L236.0,27.0 L412.0,147.0 L588.0,147.0 L764.0,27.0 L940.0,27.0 "' \
    "$TMP/low.html" && ok || nok "compute line"
grep -q 'class="ind ind-mem" d="M60.0,87.0 L236.0,87.0 L412.0,87.0 L588.0,87.0 L764.0,87.0 L940.0,87.0 "' \
    "$TMP/low.html" && ok || nok "memory line"
grep -q "smi-csv monitoring log, 1 GPU, 6 samples" "$TMP/low.html" && ok || nok "header names the log"
grep -q "Step time breakdown" "$TMP/low.html" && nok "trace sections on a monitoring page" || ok
python3 "$GD_SRC/bench/gen_monlog.py" --lines 4000 --gpus 2 >"$TMP/gen.log" || nok "gen_monlog.py"
"$GPUDIAG" analyze -q --html "$TMP/gen.html" "$TMP/gen.log" >/dev/null 2>&1
[ "$(grep -o '<svg class="chart"' "$TMP/gen.html" | wc -l)" -eq 2 ] && ok || nok "two GPU charts for the generated log"

# 4. hand-derived timeline numbers
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_idle_causes.json" > "$TMP/idle.json" || nok "idle json"
if python3 - "$TMP/idle.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); t = d["timeline"]; bad = []
def eq(name, got, want):
    if got != want: bad.append("%s: got %r, want %r" % (name, got, want))
eq("start", t["start_us"], 1000); eq("end", t["end_us"], 2000); eq("bins", t["bins"], 500); eq("bin_us", t["bin_us"], 2)
s = t["streams"][0]; dv = t["devices"][0]; idle = dv["idle_us"]
eq("lane", (s["device"], s["stream"]), (0, 7))
eq("busy sum", sum(s["busy_us"]), 500); eq("device busy sum", sum(dv["busy_us"]), 500)
eq("bin0 busy", s["busy_us"][0], 2); eq("bin50 busy", s["busy_us"][50], 0)
want = {"sync": range(50, 150), "dataloader": range(200, 250), "stream_wait": range(300, 400)}
for c, v in idle.items():
    eq(c + " bins", [i for i, x in enumerate(v) if x], list(want.get(c, [])))
    eq(c + " per bin", set(x for x in v if x), {2} if c in want else set())
eq("busy+idle", set(dv["busy_us"][i] + sum(v[i] for v in idle.values()) for i in range(500)), {2})
q = s["queue_max"]
eq("queue 125..149", set(q[125:150]), {1}); eq("queue 150..209", set(q[150:210]), {0}); eq("queue 210", q[210], 1)
g = d["idle"]["gaps"]
eq("gaps", [(x["start_us"], x["duration_us"], x["cause"], x["step"]) for x in g],
   [(1100, 200, "sync", 1), (1400, 100, "dataloader", 1), (1600, 200, "stream_wait", 1)])
eq("gaps_listed", d["idle"]["gaps_listed"], 3)
for b in bad: print("FAIL timeline:", b)
sys.exit(1 if bad else 0)
PYEOF
then ok; else nok "timeline values"; fi
"$GPUDIAG" analyze -q --html "$TMP/idle.html" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null
if python3 "$CHECK" "$TMP/idle.html" "200 µs/step (20.0% of step)" "GPU 0 idle, stream wait: 200 µs"; then ok; else nok "idle page values"; fi

# 5. usage and output errors
"$GPUDIAG" analyze --html "$TMP/x.html" "$GD_TEST_DATA/ok_idle_causes.json" "$GD_TEST_DATA/ok_two_steps.json" >/dev/null 2>&1
rc=$?; if [ "$rc" -eq 2 ]; then ok; else nok "two traces: exit $rc, want 2"; fi
"$GPUDIAG" analyze --html "$TMP/x.html" "$GD_TEST_DATA" >/dev/null 2>&1
rc=$?; if [ "$rc" -eq 2 ]; then ok; else nok "directory: exit $rc, want 2"; fi
"$GPUDIAG" analyze --html "$TMP/no/such/dir/x.html" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null 2>"$TMP/err"
rc=$?; if [ "$rc" -eq 3 ] && grep -q "no/such/dir/x.html" "$TMP/err"; then ok; else nok "unwritable: exit $rc, want 3"; fi
# --html FILE.gz is gzip-compressed, as --save / --trace-out FILE.gz (a new user found plain HTML in
# x.html.gz): it starts with gzip's magic 1f 8b and unpacks to the page --html FILE writes
"$GPUDIAG" analyze -q --html "$TMP/z.html.gz" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null 2>&1
"$GPUDIAG" analyze -q --html "$TMP/z.html" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null 2>&1
if [ "$(head -c 2 "$TMP/z.html.gz" | od -An -tx1 | tr -d ' ')" = "1f8b" ] \
    && gzip -dc "$TMP/z.html.gz" | cmp -s - "$TMP/z.html"; then ok; else nok "--html FILE.gz: not gzip of the page"; fi

# AMD's terms on a ROCm trace (mi250_rocm_minitoy_train: deviceProperties numSms 104, warpSize 64):
# "104 CUs" and "CU efficiency" in the page and the text report, never "SMs" / "SM efficiency";
# an NVIDIA trace keeps "SMs" (ok_idle_causes.json: numSms 108).
MI="$GD_SHARED/data/traces/mi250_rocm_minitoy_train.json.gz"
if [ -f "$MI" ]; then
    "$GPUDIAG" analyze --html "$TMP/mi250.html" "$MI" > "$TMP/mi250.txt" 2>&1
    if grep -q ", 104 CUs" "$TMP/mi250.html" && grep -q ">CU efficiency<" "$TMP/mi250.html" \
        && ! grep -q "SMs\|SM efficiency" "$TMP/mi250.html"; then ok; else nok "MI250 page: CUs"; fi
    "$GPUDIAG" analyze --no-color "$MI" > "$TMP/mi250.txt" 2>&1
    if grep -q "AMD Radeon Graphics, 104 CUs" "$TMP/mi250.txt" && grep -q "est. CU efficiency n/a (no blocks per CU)" "$TMP/mi250.txt" \
        && grep -q "(matched by CU count and memory" "$TMP/mi250.txt" && ! grep -q "SMs\|SM eff\|SM count" "$TMP/mi250.txt"
    then ok; else nok "MI250 text: CUs"; fi
    # ROCm's words in the advice too: HIP initialisation and HIP graphs, not CUDA's
    sed 's/^ *> *//' "$TMP/mi250.txt" | tr '\n' ' ' | tr -s ' ' > "$TMP/mi250.flat"
    # (its host finding is host_overhead since the 10th session, whose advice names no graphs:
    # test_launch_gaps checks "adds HIP graphs" on a launch-bound ROCm trace)
    if grep -q "HIP (ROCm) initialisation" "$TMP/mi250.flat" \
        && ! grep -q "CUDA initialisation\|adds CUDA Graphs\|CUDA Graphs" "$TMP/mi250.flat"
    then ok; else nok "MI250 text: HIP advice"; fi
fi
# a rank without a world size (cuda_event_sync: distributedInfo {"rank": 0}) reads "rank 0",
# as in the text report, never "rank 0 of -1"
CE="$GD_SHARED/data/traces/cuda_event_sync.json.gz"
if [ -f "$CE" ]; then
    "$GPUDIAG" analyze -q --html "$TMP/ce.html" "$CE" > /dev/null 2>&1
    grep -q ", rank 0) " "$TMP/ce.html" && ! grep -q "of -1" "$TMP/ce.html" && ok || nok "rank without world size"
fi
"$GPUDIAG" analyze --html "$TMP/nv.html" "$GD_TEST_DATA/ok_idle_causes.json" > /dev/null 2>&1
grep -q "SMs" "$TMP/nv.html" && grep -q ">SM efficiency<" "$TMP/nv.html" && ok || nok "NVIDIA page: SMs"

finish
