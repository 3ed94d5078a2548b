#!/bin/sh
# fuzz.sh BINARY SEED_KIND SECONDS MAX_LEN [DICT] [libFuzzer options...]
# Runs one libFuzzer target: first every input in tests/fuzz/regress/NAME/
# once (the inputs that crashed it before: they must pass now), then fuzzes
# for SECONDS from the seeds (make_seeds.py SEED_KIND) and the corpus kept in
# $GD_FUZZ_WORK/corpus/NAME (it grows from run to run).  A crash, leak, hang
# (-timeout 10 s) or memory blow-up (2 GB) fails the run and leaves the input
# in $GD_FUZZ_WORK/artifacts/NAME/; copy it to tests/fuzz/regress/NAME/ once
# fixed.  Prints the executions and the corpus size.
# Environment: GD_SRC (repository root; default: two folders up),
# GD_FUZZ_WORK (default: $GD_SRC/build-fuzz/fuzz-work).
# Exit: 0 clean, 1 a finding, 77 skipped (no python3).
set -u
bin=$1 kind=$2 secs=$3 maxlen=$4
dict=${5:-}
[ $# -ge 5 ] && shift 5 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
: "${GD_SRC:=$(cd "$here/../.." && pwd)}"
: "${GD_FUZZ_WORK:=$GD_SRC/build-fuzz/fuzz-work}"
name=$(basename "$bin")
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not found"; exit 77; }

seeds="$GD_FUZZ_WORK/seeds/$kind"
corpus="$GD_FUZZ_WORK/corpus/$name"
arts="$GD_FUZZ_WORK/artifacts/$name"
mkdir -p "$corpus" "$arts"
if [ ! -d "$seeds" ]; then
    python3 "$here/make_seeds.py" "$kind" "$seeds.tmp" "$GD_SRC" "$GD_SRC/../shared" >/dev/null &&
        mv "$seeds.tmp" "$seeds" || { echo "FAIL: make_seeds.py $kind"; exit 1; }
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

reg="$here/regress/$name"
if [ -d "$reg" ] && [ -n "$(ls -A "$reg" 2>/dev/null)" ]; then
    if ! "$bin" -runs=1 "$reg"/* >"$arts/regress.log" 2>&1; then
        echo "FAIL: $name: a regression input crashes again:"
        tail -n 40 "$arts/regress.log"
        exit 1
    fi
    echo "$name: $(ls "$reg" | wc -l) regression inputs pass"
fi

# GD_FUZZ_SEED: a fixed libFuzzer seed (CI sets 1 so a run is repeatable; unset = random)
set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" \
    -artifact_prefix="$arts/" -print_final_stats=1 ${dict:+-dict="$dict"} ${GD_FUZZ_SEED:+-seed="$GD_FUZZ_SEED"} "$@"
"$bin" "$@" "$corpus" "$seeds" >"$arts/last.log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$arts/last.log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$arts/last.log" | tail -n 1)
echo "$name: ${execs:-?} executions in ${secs}s, $cov, corpus $(ls "$corpus" | wc -l) files"
if [ "$rc" -ne 0 ]; then
    echo "FAIL: $name exited $rc; the input is in $arts/:"
    grep -v '^#' "$arts/last.log" | tail -n 60
    exit 1
fi
exit 0
