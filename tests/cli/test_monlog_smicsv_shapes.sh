#!/bin/sh
# test_monlog_smicsv_shapes.sh — nvidia-smi --query-gpu CSV shapes a held-out review found refused or
# misnamed (DEFINITIONS "Monitoring logs", Reading and Time): a one-field query's header (no comma),
# repeated by an appended loop; Unix epoch seconds in the timestamp column; a headerless CSV
# (--format=csv,noheader) and amd-smi metric --csv, each named without --format; a log whose every
# row is malformed names the first line and why. Logs written by hand here; values derived by hand.
GD_TMP_TAG=smicsvshapes
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

# 1. `--query-gpu=utilization.gpu --format=csv` appended 4 times: header "utilization.gpu [%]" before
#    each value 80, 90, 100, 70 % -> 4 samples (the repeated header is no row and no header change),
#    mean (80+90+100+70)/4 = 85 %, median (80+90)/2 = 85 %, max 100 %.
for v in 80 90 100 70; do printf 'utilization.gpu [%%]\n%s %%\n' "$v"; done > "$TMP/one_field.csv"
if "$GPUDIAG" analyze --json "$TMP/one_field.csv" > "$TMP/one.json" 2> "$TMP/err" && python3 -c "
import json, sys; s = json.load(open(sys.argv[1]))['series']
assert s['format'] == 'smi-csv' and s['rows'] == 4 and s['skipped_rows'] == 0 and s['header_changes'] == 0, s
g = s['gpus'][0]['metrics']['gpu_util']
assert g['n'] == 4 and abs(g['mean'] - 0.85) < 1e-9 and abs(g['median'] - 0.85) < 1e-9 and g['max'] == 1, g
" "$TMP/one.json"; then ok; else nok "one-field header read without --format: $(cat "$TMP/err")"; fi
# a one-field memory.used query, no units (nounits keeps the header's unit): 1000, 3000 MiB -> 2 samples
printf 'memory.used [MiB]\n1000\n3000\n' > "$TMP/one_mem.csv"
"$GPUDIAG" analyze --json "$TMP/one_mem.csv" > "$TMP/mem.json" 2> "$TMP/err" && python3 -c "
import json, sys; s = json.load(open(sys.argv[1]))['series']; assert s['format'] == 'smi-csv' and s['rows'] == 2, s
" "$TMP/mem.json" && ok || nok "one-field memory.used header: $(cat "$TMP/err")"

# 2. Epoch seconds in the timestamp column (whole and with a fraction): rows at 1764189075,
#    1764189135.5, 1764189195 s -> 3 samples over 120 s (120000000 us), time absolute; util 10, 30,
#    50 % -> mean 30 %; the 5th line has 3 cells for 4 columns -> 1 row left out at line 5.
cat > "$TMP/epoch.csv" <<'EOF'
timestamp, utilization.gpu [%], memory.total [MiB], memory.used [MiB]
1764189075, 10 %, 24576 MiB, 100 MiB
1764189135.5, 30 %, 24576 MiB, 200 MiB
1764189195, 50 %, 24576 MiB, 300 MiB
1764189255, 10586, 24576
EOF
if "$GPUDIAG" analyze --json "$TMP/epoch.csv" > "$TMP/epoch.json" 2> "$TMP/err" && python3 -c "
import json, sys; s = json.load(open(sys.argv[1]))['series']
assert s['format'] == 'smi-csv' and s['time_source'] == 'absolute' and s['rows'] == 3, s
assert s['skipped_rows'] == 1 and s['first_skipped_line'] == 5, s
g = s['gpus'][0]
assert g['samples'] == 3 and g['duration_us'] == 120000000, g
assert abs(g['metrics']['gpu_util']['mean'] - 0.30) < 1e-9, g['metrics']['gpu_util']
" "$TMP/epoch.json"; then ok; else nok "epoch-second timestamps: $(cat "$TMP/err")"; fi
grep -q "line 5: 1 data row could not be read .*3 cells where the header has 4 columns" "$TMP/err" \
    && ok || nok "skipped row's warning says why: $(cat "$TMP/err")"

# 3. Every data row malformed: the error names the first bad line (2) and why (its time stamp).
printf 'timestamp, utilization.gpu [%%]\nyesterday, 5 %%\ntoday, 6 %%\n' > "$TMP/allbad.csv"
"$GPUDIAG" analyze "$TMP/allbad.csv" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc -eq 3 ] && grep -q "every data row was malformed; first: line 2: \"yesterday\" (cell 1)" "$TMP/err" \
    && ok || nok "all rows malformed: exit $rc, $(cat "$TMP/err")"

# 4. --format=csv,noheader: named as a --query-gpu CSV without its header (exit 3, line 1), not
#    "not a trace".
printf '2026/04/25 16:06:06.780, 0 %%, 5 %%, 1234 MiB\n2026/04/25 16:06:11.788, 3 %%, 5 %%, 1234 MiB\n' > "$TMP/noheader.csv"
"$GPUDIAG" analyze "$TMP/noheader.csv" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc -eq 3 ] && grep -q "line 1: nvidia-smi CSV without its header line (--format=csv,noheader)" "$TMP/err" \
    && ok || nok "headerless CSV: exit $rc, $(cat "$TMP/err")"
# ... but a Python logging line ("2026-04-25 16:06:06,780 - root - INFO ...", dashes) is no such row
printf '2026-04-25 16:06:06,780 - root - INFO - step 5, loss 2.3\n' > "$TMP/pylog.txt"
"$GPUDIAG" analyze "$TMP/pylog.txt" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc -eq 3 ] && ! grep -q "nvidia-smi CSV" "$TMP/err" && ok || nok "python log called a CSV: exit $rc, $(cat "$TMP/err")"

# 5. amd-smi metric --csv (columns after amd-smi's metric command): named as such, with the command
#    gpudiag reads, with and without --format amdsmi; never called nvidia-smi's.
cat > "$TMP/metric.csv" <<'EOF'
timestamp,gpu,gfx_activity,umc_activity,mm_activity,vcn_activity,socket_power,edge,hotspot,mem
1786553852,0,0,0,N/A,"['N/A', 'N/A']",238,40,45,38
EOF
for fmt in "" "--format amdsmi"; do
    # shellcheck disable=SC2086
    "$GPUDIAG" analyze $fmt "$TMP/metric.csv" > /dev/null 2> "$TMP/err"
    rc=$?
    [ $rc -eq 3 ] && grep -q "line 1: amd-smi metric --csv output" "$TMP/err" && grep -q "amd-smi monitor --csv" "$TMP/err" &&
        ! grep -q "nvidia-smi" "$TMP/err" && ok || nok "amd-smi metric ($fmt): exit $rc, $(cat "$TMP/err")"
done

# 6. A clock-reason bitmask beyond 64 bits (0x + 18 significant hex digits; 10^23 > 2^64 = 1.8e19)
#    is no bitmask: read as missing and counted invalid (2 values, first at line 2); the row is kept
#    (util 50 % and 70 %). It was a value, and its conversion to 64 bits undefined (fuzz_monlog,
#    regress/fuzz_monlog/reason_mask_beyond_64_bits.csv).
printf 'index, clocks_event_reasons.active, utilization.gpu [%%]\n0, 0x1FFFFFFFFFFFFFFFFF, 50 %%\n0, 100000000000000000000000, 70 %%\n0, 0x0000000000000000004, 60 %%\n' > "$TMP/mask.csv"
if "$GPUDIAG" analyze --json "$TMP/mask.csv" > "$TMP/mask.json" 2> "$TMP/err" && python3 -c "
import json, sys; s = json.load(open(sys.argv[1]))['series']
assert s['rows'] == 3 and s['invalid_values'] == 2 and s['first_invalid_line'] == 2, s
assert s['gpus'][0]['metrics']['gpu_util']['n'] == 3, s['gpus'][0]['metrics']
" "$TMP/mask.json"; then ok; else nok "reason mask beyond 64 bits: $(cat "$TMP/err")"; fi

finish
