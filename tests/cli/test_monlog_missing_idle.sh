#!/bin/sh
# test_monlog_missing_idle.sh — missing is not idle (DEFINITIONS "Monitoring series", Warm-up and
# tear-down): samples whose compute value is missing (NaN) are neither warm-up nor tear-down; only
# present idle samples are counted and timed. Logs written below; values derived by hand.
GD_TMP_TAG=monmiss
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
command -v python3 >/dev/null 2>&1 || exit 77

# dmon, one sample a second (no time column: t = 0, 1, 2 ... s); sm is the compute indicator.
dmon() { # dmon SM... : one row per value
    printf '# gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk\n# Idx     W     C     %%     %%     %%     %%   MHz   MHz\n'
    for v in "$@"; do printf '    0   250    60 %5s    40     0     0  1215  1410\n' "$v"; done
}
n95() { i=0; while [ $i -lt "$1" ]; do printf '95 '; i=$((i + 1)); done; }

# A: 5 rows with sm NaN, then 40 rows of 95: nothing idle, nothing left out (old binary: "5 idle
# warm-up and 0 tear-down samples left out", warmup_samples 5, excluded_us 5 s).
# shellcheck disable=SC2046
dmon NaN NaN NaN NaN NaN $(n95 40) > "$TMP/a.log"
# B: NaN NaN 0 0 NaN | 95 x 40 (t 5..44) | 0 NaN NaN: warm-up 2 (t 2, 3), tear-down 1 (t 45);
# excluded_us = (5 - 2) + (45 - 44) = 4 s (old binary: 5 + 3 samples, 5 + 3 = 8 s).
# shellcheck disable=SC2046
dmon NaN NaN 0 0 NaN $(n95 40) 0 NaN NaN > "$TMP/b.log"
for c in a b; do
    "$GPUDIAG" analyze --json "$TMP/$c.log" > "$TMP/$c.json" 2> "$TMP/err" || nok "$c: exit $? $(cat "$TMP/err")"
    "$GPUDIAG" analyze "$TMP/$c.log" > "$TMP/$c.txt" 2> "$TMP/err" || nok "$c text: exit $?"
done
if python3 - "$TMP/a.json" "$TMP/b.json" <<'PY'; then ok; else nok "missing samples counted as idle"; fi
import json, sys
g = json.load(open(sys.argv[1]))["series"]["gpus"][0]
assert (g["warmup_samples"], g["teardown_samples"], g["excluded_us"]) == (0, 0, 0), g
assert g["bottleneck"] == "compute", g["bottleneck"]
g = json.load(open(sys.argv[2]))["series"]["gpus"][0]
assert (g["warmup_samples"], g["teardown_samples"], g["excluded_us"]) == (2, 1, 4000000), \
    (g["warmup_samples"], g["teardown_samples"], g["excluded_us"])
PY
if grep -q "left out of the statistics" "$TMP/a.txt"; then nok "A: text says samples were left out"; else ok; fi
grep -q "2 idle warm-up and 1 tear-down samples (.*) left out of the statistics" "$TMP/b.txt" && ok ||
    nok "B: text: $(grep 'left out of' "$TMP/b.txt")"
finish
