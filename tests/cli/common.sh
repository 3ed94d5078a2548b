# common.sh — sourced by the CLI test drivers: defaults for the binary and
# data folders, the python3 and binary checks, and a temporary folder $TMP
# removed on exit.  Sets HERE to the tests/cli folder.
HERE=$(cd "$(dirname "$0")" && pwd)
export GD_CLI_DIR="$HERE"   # valcheck.py lives here
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

# check_both_readers FILE PYCODE: run `gpudiag analyze --json FILE` with the
# simdjson and the yajl-only event reader, and run PYCODE on each report
# (python3 argv: report path, reader name; exit non-zero on a failed check).
# Prints "N passed, M failed" over the two readers; returns non-zero on failure.
check_both_readers() {
    _fails=0
    for _mode in default yajl; do
        _nosj=""
        [ "$_mode" = yajl ] && _nosj=1
        if GPUDIAG_NO_SIMDJSON="$_nosj" "$GPUDIAG" analyze --json "$1" > "$TMP/report.$_mode.json"; then
            python3 -c "$2" "$TMP/report.$_mode.json" "$_mode" || _fails=$((_fails + 1))
        else
            echo "FAIL [$_mode] gpudiag exited $?"
            _fails=$((_fails + 1))
        fi
    done
    echo "$((2 - _fails)) passed, $_fails failed"
    [ "$_fails" -eq 0 ]
}
