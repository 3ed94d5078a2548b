#!/usr/bin/env bash
# The golden reports: `gpudiag analyze` (text and --json) on every real input in
# ../shared/data, the example trace and every small input in tests/data, kept in
# tests/golden/.  A change that moves a report shows up here as a diff; say in
# the commit why it moved.
# Usage: scripts/golden.sh [--update] [GPUDIAG]
#   (default)  compare with tests/golden; exit 1 and print the diff stat on a difference
#   --update   rewrite tests/golden from the current binary
# Paths are given relative to the repository root (the reports name them), so
# this runs from the root; shared inputs that are missing are skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
bin=${1:-${GPUDIAG:-build/gpudiag}}
golden=tests/golden
out=$(mktemp -d "${TMPDIR:-/tmp}/gd_golden.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

inputs=()
for f in ../shared/data/traces/*.json.gz ../shared/data/nsys/*.sqlite ../shared/data/logs/*.log \
         ../shared/data/logs/*.txt ../shared/data/logs/*.csv ../shared/data/logs/*.prom \
         examples/*.json.gz tests/data/ok_*.json tests/data/ok_*.json.gz tests/data/warn_*.json tests/data/monlog/*; do
  case "$f" in *.md) continue ;; esac  # a folder's SOURCES.md is not an input
  [ -f "$f" ] && inputs+=("$f")
done
# key: the input path with / and leading dots turned into a flat file name
key() { printf '%s' "$1" | sed -e 's#^\.\./shared/data/#shared_#' -e 's#^tests/data/#td_#' -e 's#/#_#g'; }

missing_shared=0
[ -d ../shared/data ] || missing_shared=1
for f in "${inputs[@]}"; do
  k=$(key "$f")
  NO_COLOR=1 GPUDIAG_PROGRESS_AFTER=1000000 "$bin" analyze --no-progress "$f" > "$out/$k.txt" 2>&1
  echo "exit $?" >> "$out/$k.txt"
  GPUDIAG_PROGRESS_AFTER=1000000 "$bin" analyze --no-progress --json "$f" > "$out/$k.json" 2>/dev/null
done
# one multi-rank view: the two copies of the V100 job (a directory is the ranks of one job)
if [ -f ../shared/data/traces/a100_8rank_rank3_control.json.gz ]; then
  NO_COLOR=1 "$bin" analyze --no-progress ../shared/data/traces/a100_8rank_rank3_control.json.gz \
    ../shared/data/traces/a100_8rank_rank3_test.json.gz > "$out/multi_a100_pair.txt" 2>&1
  echo "exit $?" >> "$out/multi_a100_pair.txt"
fi

if [ $update = 1 ]; then
  rm -f "$golden"/*.txt "$golden"/*.json
  cp "$out"/* "$golden"/
  echo "golden: $(ls "$golden" | wc -l) reports written to $golden"
  exit 0
fi
rc=0
for g in "$out"/*; do
  b=$(basename "$g")
  if [ ! -f "$golden/$b" ]; then echo "new (not in $golden): $b"; rc=1; continue; fi
  if ! cmp -s "$g" "$golden/$b"; then
    echo "moved: $b"; diff -u "$golden/$b" "$g" | head -${GOLDEN_DIFF_LINES:-40}; rc=1
  fi
done
if [ $missing_shared = 0 ]; then
  for g in "$golden"/*; do
    b=$(basename "$g"); [ -f "$out/$b" ] || { echo "gone (no such input now): $b"; rc=1; }
  done
fi
[ $rc = 0 ] && echo "golden: ${#inputs[@]} inputs, every report identical"
exit $rc
