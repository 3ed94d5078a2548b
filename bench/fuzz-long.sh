#!/usr/bin/env bash
# fuzz-long.sh [HOURS] [TARGET...] — run the libFuzzer targets for hours
# (docs/FUZZING.md).  Builds build-fuzz (clang) if needed, then gives each
# target HOURS/number-of-targets (default: 4 hours in all), one after the
# other, with its corpus kept in build-fuzz/fuzz-work/corpus/TARGET between
# runs.  Findings land in build-fuzz/fuzz-work/artifacts/TARGET/; fix them,
# then copy the input to tests/fuzz/regress/TARGET/ so CI replays it.
# Prints one line per target (executions, coverage, corpus) to append to
# docs/FUZZING.md.  JOBS=N runs N fuzzing processes per target (-fork=N).
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:-4}
shift || true
if [ ! -x build-fuzz/tests/fuzz/fuzz_kineto ]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DGPUDIAG_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
fi
cmake --build build-fuzz -j"$(nproc)" >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ctest --test-dir build-fuzz -L fuzz -N | sed -n 's/.*fuzz\/\(fuzz_[a-z_0-9]*\)$/\1/p')
fi
secs=$(python3 -c "print(int($hours * 3600 / ${#targets[@]}))")
echo "fuzzing ${#targets[@]} targets for ${secs}s each: ${targets[*]}"
extra=()
[ -n "${JOBS:-}" ] && extra+=(-fork="$JOBS" -ignore_crashes=0)
status=0
for t in "${targets[@]}"; do
  # the seed kind, largest input, dictionary and extra options as CTest runs it
  # (quoted: an empty dictionary stays an empty argument)
  line=$(ctest --test-dir build-fuzz -R "^fuzz/$t\$" -V -N | sed -n 's/.*Test command: //p' | head -n 1)
  eval "cmd=($line)"
  # cmd: sh fuzz.sh BINARY KIND SECONDS MAXLEN DICT [libFuzzer options...]
  GD_SRC=$(pwd) GD_FUZZ_WORK=$(pwd)/build-fuzz/fuzz-work \
    sh tests/fuzz/fuzz.sh "${cmd[2]}" "${cmd[3]}" "$secs" "${cmd[5]}" "${cmd[6]:-}" "${cmd[@]:7}" "${extra[@]}" || status=1
done
exit $status
