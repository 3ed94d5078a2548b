#!/bin/sh
# test_outputs.sh — an output file never destroys an input or another output
# (newcomer finding: --trace-out/--html/--save naming the input replaced the
# trace).  Each case must exit 2 with a message naming both, before anything
# is written, and leave the input byte for byte as it was:
#   --trace-out IN IN, --html LINK IN (LINK a symlink to IN), --save ./IN IN,
#   --html A --save A, --save DIR/out.json DIR (inside the input directory),
#   run -o X --json X,
#   --ncu N with --html N, --save N, --trace-out N and --html LINK (LINK -> N):
#   the Nsight Compute CSV is an input too (new-user trial of issue 19).
# And the ordinary cases still work: --save elsewhere, --html to a new file.
set -u
GD_TMP_TAG=outputs
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cd "$TMP" || exit 1
cp "$GD_TEST_DATA/ok_two_steps.json" in.json
cp in.json orig.json
ln -s in.json link.json
mkdir dir && cp in.json dir/rank0.json
check() { # WANT_MESSAGE ARGS...
    want=$1
    shift
    "$GPUDIAG" "$@" >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] || bad "$*: exit $rc, want 2"
    grep -q -- "$want" err.txt || bad "$*: message: $(cat err.txt)"
    cmp -s in.json orig.json || bad "$*: the input changed"
    cmp -s dir/rank0.json orig.json || bad "$*: the directory's trace changed"
}
check "--trace-out in.json is the input in.json: refusing to overwrite it" analyze --trace-out in.json in.json
check "--html link.json is the input in.json" analyze --html link.json in.json
check "--save ./in.json is the input in.json" analyze --save ./in.json in.json
check "--html and --save name the same file a.html" analyze --html a.html --save a.html in.json
[ -e a.html ] && bad "a.html written although refused"
check "--save dir/out.json would be written into the input directory dir" analyze --save dir/out.json dir
[ -e dir/out.json ] && bad "dir/out.json written although refused"
check "--output and --json name the same file x.csv" run -o x.csv --json x.csv -- true
[ -e x.csv ] && bad "x.csv written although refused"
cp "$GD_TEST_DATA/ncu/roofline_h100.csv" n.csv
cp n.csv n.orig
ln -s n.csv nlink.csv
for opt in --html --save --trace-out; do
    check "$opt n.csv is the input n.csv: refusing to overwrite it" analyze -q --ncu n.csv $opt n.csv in.json
    cmp -s n.csv n.orig || bad "--ncu n.csv $opt n.csv: the --ncu input changed"
done
check "--html nlink.csv is the input n.csv" analyze -q --ncu n.csv --html nlink.csv in.json
cmp -s n.csv n.orig || bad "--html through a link: the --ncu input changed"
# ordinary use still works
"$GPUDIAG" analyze -q --save saved.json --html page.html in.json >/dev/null 2>&1 || bad "--save/--html elsewhere: exit $?"
[ -s saved.json ] && [ -s page.html ] || bad "outputs missing"
cmp -s in.json orig.json || bad "input changed by an ordinary run"
finish
