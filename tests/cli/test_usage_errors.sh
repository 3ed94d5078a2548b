#!/bin/sh
# test_usage_errors.sh — every command words an option it cannot take the
# same way (one helper, gd_bad_option / gd_usage_error in src/cli/cmd_util.c):
# exit 2 and exactly one line "gpudiag: error: WHAT (try 'gpudiag CMD --help')"
# on stderr, nothing on stdout.  The expected lines are written out by hand
# from that wording, one per kind: unknown short, unknown long, missing value
# (long, and short with its long name), a value given to a flag, a stray
# argument.
. "$(dirname "$0")/common.sh"

# line EXPECTED CMD ARGS...: exit 2, stdout empty, stderr exactly EXPECTED
line() {
    _lw=$1
    shift
    expect_rc 2 "$GPUDIAG" "$@"
    [ ! -s "$TMP/out" ] && ok || nok "$*: wrote to stdout"
    printf '%s\n' "$_lw" > "$TMP/want"
    cmp -s "$TMP/want" "$TMP/err" && ok || nok "$*: stderr '$(cat "$TMP/err")', wanted '$_lw'"
}

line "gpudiag: error: unknown option '-z' (try 'gpudiag analyze --help')" analyze -z x.json
line "gpudiag: error: unknown option '-z' (try 'gpudiag analyze --help')" analyze -qz x.json
line "gpudiag: error: unknown or ambiguous option '--bogus' (try 'gpudiag analyze --help')" analyze --bogus x.json
line "gpudiag: error: --width needs a value (try 'gpudiag analyze --help')" analyze x.json --width
line "gpudiag: error: --json takes no value, got '--json=1' (try 'gpudiag analyze --help')" analyze --json=1 x.json
line "gpudiag: error: --threshold needs a value (try 'gpudiag compare --help')" compare a.json b.json --threshold
line "gpudiag: error: unknown or ambiguous option '--bogus' (try 'gpudiag compare --help')" compare --bogus a b
line "gpudiag: error: unknown or ambiguous option '--bogus' (try 'gpudiag mfu --help')" mfu --bogus
line "gpudiag: error: mfu takes no arguments, got 'x' (try 'gpudiag mfu --help')" mfu x
line "gpudiag: error: --gpus needs a value (try 'gpudiag plan --help')" plan --gpus
line "gpudiag: error: plan takes no arguments, got 'x' (try 'gpudiag plan --help')" plan x
line "gpudiag: error: -i (--interval) needs a value (try 'gpudiag watch --help')" watch -i
line "gpudiag: error: watch takes no arguments, got 'x' (try 'gpudiag watch --help')" watch x
line "gpudiag: error: unknown option '-x' (try 'gpudiag run --help')" run -x -- true
line "gpudiag: error: --backend needs a value (try 'gpudiag run --help')" run --backend
line "gpudiag: error: unknown or ambiguous option '--bogus' (try 'gpudiag serve --help')" serve --bogus
line "gpudiag: error: serve takes no arguments, got 'x' (try 'gpudiag serve --help')" serve x
line "gpudiag: error: --listen needs a value (try 'gpudiag serve --help')" serve --listen
line "gpudiag: error: unknown or ambiguous option '--bogus' (try 'gpudiag specs --help')" specs --bogus
finish
