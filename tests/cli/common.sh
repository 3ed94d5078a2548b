# common.sh — sourced by the CLI test drivers: defaults for the binary and
# data folders, the python3 and binary checks, and a temporary folder $TMP
# removed on exit.  Sets HERE to the tests/cli folder.
HERE=$(cd "$(dirname "$0")" && pwd)
: "${GPUDIAG:=$HERE/../../build/gpudiag}"
: "${GD_TEST_DATA:=$HERE/../data}"
: "${GD_SHARED:=$HERE/../../../shared}"

if ! command -v python3 >/dev/null 2>&1; then
    echo "skip: python3 not found"
    exit 77
fi
if [ ! -x "$GPUDIAG" ]; then
    echo "FAIL: gpudiag binary not found or not executable: $GPUDIAG (set GPUDIAG)"
    echo "0 passed, 1 failed"
    exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gd_${GD_TMP_TAG:-test}.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
