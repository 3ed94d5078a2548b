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

# The check counters and helpers every driver shares (one copy, here):
#   ok                 count a passed check
#   nok MSG / bad MSG  count a failed check and print "FAIL: MSG" ("FAIL [$CASE]: MSG"
#                      when CASE is set; then also the head of $TMP/err when
#                      GD_SHOW_STDERR is set); returns 0 so `cond && ok || nok MSG` works
#   expect_rc WANT CMD...  run CMD with stdout in $TMP/out and stderr in $TMP/err,
#                      its status in RC; ok when RC is WANT, else nok naming both
#                      and the head of the error output
#   run_case F L W     analyze --json F, then python $CHECK (REPORT L W): ok or nok
#   finish             print "PASS passed, FAIL failed"; status 0 only when none failed
# A driver ends with `finish` as its last command (its status is the test's).
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); }
nok() {
    FAIL=$((FAIL + 1))
    echo "FAIL${CASE:+ [$CASE]}: $*"
    if [ -n "${GD_SHOW_STDERR:-}" ] && [ -s "$TMP/err" ]; then
        printf '   stderr: %s\n' "$(head -c 800 "$TMP/err")"
    fi
    return 0
}
bad() { nok "$@"; }
expect_rc() {
    _want=$1
    shift
    "$@" > "$TMP/out" 2> "$TMP/err"
    RC=$?
    if [ "$RC" -eq "$_want" ]; then
        ok
    else
        nok "exit $RC, wanted $_want: $* ($(head -c 300 "$TMP/err"))"
    fi
}
# run_case FILE LABEL WANT: `gpudiag analyze --json FILE` into $TMP/LABEL.out.json, then the
# driver's python check $CHECK with argv REPORT LABEL WANT: ok, or nok naming LABEL (and the
# head of the error output when gpudiag failed).
run_case() {
    if "$GPUDIAG" analyze --json "$1" > "$TMP/$2.out.json" 2> "$TMP/err"; then
        python3 -c "$CHECK" "$TMP/$2.out.json" "$2" "$3" && ok || nok "$2"
    else
        nok "$2: gpudiag exited $?: $(head -3 "$TMP/err")"
    fi
}

finish() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
}
