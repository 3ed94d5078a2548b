#!/bin/sh
# test_progress.sh — the progress bar of `gpudiag analyze` on standard error.
# With stderr on a pseudo-terminal (tests/cli/ptyrun.py) and
# GPUDIAG_PROGRESS_AFTER=0 the bar must appear ("reading [", the total in
# decimal units as the bar writes it, a rate and an ETA) and be cleared at the
# end ("\r\033[K" last), while standard output — the --json report — is
# byte-for-byte the one of a run without a terminal.  No bar: with stderr not
# a terminal, with --no-progress, or when reading is quicker than
# GPUDIAG_PROGRESS_AFTER (100 s here).  A directory of ranks shows one bar whose
# total is the sum of the files' sizes.
set -eu
GD_TMP_TAG=progress
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PTY="python3 $HERE/ptyrun.py"
S="$GD_TEST_DATA/ok_two_steps.json"

# human(bytes) as progress.c writes it: decimal units, 1 decimal above 1000 B
human() { python3 -c '
import sys
b = float(sys.argv[1]); u = 0
while b >= 1000 and u < 4: b /= 1000; u += 1
print(("%.1f %s" if u else "%.0f %s") % (b, ["B", "kB", "MB", "GB", "TB"][u]))' "$1"; }

"$GPUDIAG" analyze --json "$S" > "$TMP/plain.json" 2> "$TMP/plain.err"
SIZE=$(wc -c < "$S" | tr -d ' ')
TOTAL=$(human "$SIZE")
GPUDIAG_PROGRESS_AFTER=0 $PTY "$TMP/tty.json" "$TMP/tty.err" "$GPUDIAG" analyze --json "$S"
if cmp -s "$TMP/plain.json" "$TMP/tty.json"; then ok; else bad "stdout differs with a bar on stderr"; fi
if python3 - "$TMP/tty.err" "$TOTAL" <<'PY'
import sys
e = open(sys.argv[1], "rb").read(); total = sys.argv[2].encode()
assert b"reading [" in e, e
assert b" / " + total + b" " in e, (e, total)
assert b"/s  ETA " in e, e
assert e.endswith(b"\r\x1b[K"), e[-20:]
PY
then ok; else bad "bar on a terminal"; fi
[ ! -s "$TMP/plain.err" ] && ok || bad "bar written to a stderr that is not a terminal"
# --no-progress, and a delay longer than the read: nothing on the terminal
GPUDIAG_PROGRESS_AFTER=0 $PTY "$TMP/np.json" "$TMP/np.err" "$GPUDIAG" analyze --json --no-progress "$S"
if [ ! -s "$TMP/np.err" ] && cmp -s "$TMP/plain.json" "$TMP/np.json"; then ok; else bad "--no-progress: $(od -c "$TMP/np.err" | head -3)"; fi
GPUDIAG_PROGRESS_AFTER=100 $PTY "$TMP/late.json" "$TMP/late.err" "$GPUDIAG" analyze --json "$S"
if [ ! -s "$TMP/late.err" ]; then ok; else bad "bar before GPUDIAG_PROGRESS_AFTER"; fi
# gzip: the total is the compressed size
Z="$S"
gzip -c "$Z" > "$TMP/two.json.gz"
ZTOTAL=$(human "$(wc -c < "$TMP/two.json.gz" | tr -d ' ')")
GPUDIAG_PROGRESS_AFTER=0 $PTY "$TMP/gz.json" "$TMP/gz.err" "$GPUDIAG" analyze --json "$TMP/two.json.gz"
if grep -q " / $ZTOTAL " "$TMP/gz.err"; then ok; else bad "gzip total: $(cat "$TMP/gz.err")"; fi
# a directory of ranks: one bar over the sum of the files
python3 "$HERE/../../bench/gen_ranks.py" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/ranks" --ranks 3 --straggler 1 --delay-us 10 >/dev/null
SUM=$(cat "$TMP"/ranks/*.json | wc -c | tr -d ' ')
"$GPUDIAG" analyze --json "$TMP/ranks" > "$TMP/dplain.json"
GPUDIAG_PROGRESS_AFTER=0 $PTY "$TMP/dtty.json" "$TMP/dtty.err" "$GPUDIAG" analyze --json --jobs 2 "$TMP/ranks"
if cmp -s "$TMP/dplain.json" "$TMP/dtty.json" && grep -q " / $(human "$SUM") " "$TMP/dtty.err"; then ok; else
  bad "directory bar: $(cat "$TMP/dtty.err")"; fi
finish
