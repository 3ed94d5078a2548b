#!/usr/bin/env bash
# The test command: build with warnings as errors and run every test, then
# build again with AddressSanitizer + UndefinedBehaviorSanitizer and run the
# whole suite once more.  Exits non-zero on the first failure.
# Usage: scripts/check.sh   (after scripts/bootstrap.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"

echo "== build (warnings are errors)"
cmake -S . -B build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUDIAG_WERROR=ON >/dev/null
cmake --build build-check -j"$jobs"
echo "== tests"
ctest --test-dir build-check --output-on-failure -j"$jobs"

echo "== build with AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUDIAG_WERROR=ON \
  -DGPUDIAG_SANITIZER=address+undefined >/dev/null
cmake --build build-asan -j"$jobs"
echo "== tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
