#!/bin/sh
# test_schema.sh — every JSON report of the inputs the suite uses (every shared
# trace, every tests/data trace, every monitoring log, a directory of two rank traces as a cluster
# report, several PATHs as JSON Lines) validates against docs/report.schema.json
# (Draft 2020-12, python3-jsonschema); and the schema rejects five broken
# variants of a real report (missing verdict, text for a share, unknown idle
# cause, a share above 1, a negative duration). Skipped (77) without jsonschema.
set -u
GD_TMP_TAG=schema
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
SCHEMA="$GD_SRC/docs/report.schema.json"
[ -n "${GD_SRC:-}" ] || SCHEMA="$HERE/../../docs/report.schema.json"
CHECK="$HERE/schemacheck.py"
python3 -c "import jsonschema" 2>/dev/null || { echo "skip: python3 jsonschema not installed (Debian: apt-get install python3-jsonschema)"; exit 77; }

n=0
for f in "$GD_SHARED"/data/traces/*.json.gz "$GD_TEST_DATA"/*.json; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    "$GPUDIAG" analyze --json "$f" > "$TMP/r$n.json" 2>/dev/null
    rc=$?
    [ "$rc" -le 1 ] || { nok "$f: exit $rc"; continue; }
done
if python3 "$CHECK" "$SCHEMA" "$TMP"/r*.json; then ok; else nok "reports"; fi
# monitoring logs (shared and hand-made): the trace sections are empty and the counts a log
# cannot give are null
for f in "$GD_SHARED"/data/logs/*.log "$GD_SHARED"/data/logs/*.csv "$GD_SHARED"/data/logs/*.prom \
         "$GD_SHARED"/data/logs/*.txt "$GD_TEST_DATA"/monlog/*; do
    [ -f "$f" ] || continue
    case "$f" in *.md) continue ;; esac  # provenance notes, not inputs
    n=$((n + 1))
    "$GPUDIAG" analyze --json "$f" > "$TMP/m$n.json" 2>/dev/null
    rc=$?
    [ "$rc" -le 1 ] || { nok "$f: exit $rc"; continue; }
done
if python3 "$CHECK" "$SCHEMA" "$TMP"/m*.json; then ok; else nok "monitoring reports"; fi
mkdir "$TMP/ranks"
cp "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/ranks/rank0.json"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/ranks/rank1.json"
"$GPUDIAG" analyze --json "$TMP/ranks" > "$TMP/cluster.json" 2>/dev/null
if python3 "$CHECK" "$SCHEMA" "$TMP/cluster.json"; then ok; else nok "cluster report"; fi
# per-rank summaries (analyze --summary, merge --summary) and the merged job view
"$GPUDIAG" analyze --summary "$TMP/s0.json" "$TMP/ranks/rank0.json" > /dev/null 2>&1
"$GPUDIAG" analyze --summary "$TMP/s1.json" "$TMP/ranks/rank1.json" > /dev/null 2>&1
"$GPUDIAG" merge --summary "$TMP/s01.json" --json "$TMP/s0.json" "$TMP/s1.json" > "$TMP/merged.json" 2>/dev/null
if python3 "$CHECK" "$SCHEMA" "$TMP/s0.json" "$TMP/s01.json" "$TMP/merged.json"; then ok; else nok "summaries"; fi
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_idle_causes.json" "$GD_TEST_DATA/ok_two_steps.json" > "$TMP/lines.json" 2>/dev/null
if [ "$(wc -l < "$TMP/lines.json")" -eq 2 ] && python3 "$CHECK" "$SCHEMA" "$TMP/lines.json"; then ok; else nok "JSON Lines"; fi
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_idle_causes.json" > "$TMP/good.json"
if python3 "$CHECK" --selftest "$SCHEMA" "$TMP/good.json"; then ok; else nok "schema selftest"; fi
echo "$n reports"
finish
