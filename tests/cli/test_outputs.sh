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
# A failed write (a file-size limit, `ulimit -f 4`: EFBIG, as a full disk
# gives ENOSPC) keeps the old file byte for byte and leaves no temporary, for
# --html, --save and --trace-out, exit 3 with the reason; a new file is not
# created (new-user trial of issue 19: a cut file, a deleted one, a truncated
# JSON).  A write that succeeds replaces the file and keeps its mode (640),
# and through a symlink replaces the file the link points at.  A writable
# file in an unwritable directory is refused up front (exit 3).
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
# failed writes keep the old file
mkdir w
printf '{"old":"precious"}\n' > w/keep.json
cp w/keep.json keep.orig
chmod 640 w/keep.json
for opt in --html --save --trace-out; do
    (ulimit -f 4 && exec "$GPUDIAG" analyze -q $opt w/keep.json in.json) >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 3 ] || bad "$opt w/keep.json under ulimit -f 4: exit $rc, want 3"
    grep -q "w/keep.json: .*File too large" err.txt || bad "$opt: no reason given: $(cat err.txt)"
    cmp -s w/keep.json keep.orig || bad "$opt: the old file changed after a failed write"
    (ulimit -f 4 && exec "$GPUDIAG" analyze -q $opt w/new.json in.json) >out.txt 2>err.txt
    [ -e w/new.json ] && bad "$opt: a partial w/new.json was left"
    [ "$(ls -A w)" = "keep.json" ] || bad "$opt: temporaries left behind: $(ls -A w)"
done
# a complete write replaces the file, keeps its mode, follows a symlink
"$GPUDIAG" analyze -q --save w/keep.json in.json >/dev/null 2>&1 || bad "--save over w/keep.json: exit $?"
head -c 40 w/keep.json | grep -q '"schema"' || bad "--save did not replace w/keep.json"
[ "$(stat -c %a w/keep.json)" = 640 ] || bad "mode of w/keep.json is $(stat -c %a w/keep.json), want 640"
ln -s keep.json w/link.json
"$GPUDIAG" analyze -q --html w/link.json in.json >/dev/null 2>&1 || bad "--html through a link: exit $?"
[ -L w/link.json ] || bad "--html replaced the symlink itself"
grep -q '<html' w/keep.json || bad "--html through a link did not write the file it points at"
[ "$(ls -A w | tr '\n' ' ')" = "keep.json link.json " ] || bad "temporaries left behind: $(ls -A w)"
# a writable file in a directory the user cannot write: refused before the
# analysis (exit 3), as the temporary could not be made there.  Needs another
# user: run as root with setpriv (root writes everywhere), else skipped.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    mkdir rod
    cp in.json rod/in.json
    printf 'old\n' > rod/out.json
    chmod 755 "$TMP" rod && chmod 644 rod/in.json && chmod 666 rod/out.json
    setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUDIAG" analyze -q --save rod/out.json rod/in.json \
        >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 3 ] || bad "--save into an unwritable directory: exit $rc, want 3 ($(cat err.txt))"
    grep -q "rod/out.json: cannot be written: its directory is not writable" err.txt || bad "message: $(cat err.txt)"
    [ "$(cat rod/out.json)" = old ] || bad "rod/out.json changed"
fi
# ordinary use still works
"$GPUDIAG" analyze -q --save saved.json --html page.html in.json >/dev/null 2>&1 || bad "--save/--html elsewhere: exit $?"
[ -s saved.json ] && [ -s page.html ] || bad "outputs missing"
cmp -s in.json orig.json || bad "input changed by an ordinary run"
finish
