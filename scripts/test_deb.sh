#!/usr/bin/env bash
# The .deb as a user gets it: build it with `cpack -G DEB` from a build folder, check what it
# holds, install it with apt-get (which also installs its Depends), then from the installed
# paths only: `gpudiag --version`, one analysis of the example trace (verdict data_pipeline),
# the man page, pkg-config and a C program against libgpudiag.so.0, the Python package with
# the system's python3 (library through ctypes, no environment; imported as root, which writes
# __pycache__ beside the modules), the bash completion; then purge it (dpkg -P) and check
# nothing of it is left: no file, no gpudiag directory in dist-packages (the prerm removes the
# byte-code), no "rc" entry in dpkg's database.  Root only: CI runs it (.ci/run) after
# scripts/check.sh on its throw-away machine; it changes the system, so never on a shared one.
# Usage: scripts/test_deb.sh [BUILD_DIR]      Exit: 0 passed, 1 failed, 77 not root.
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
BUILD=${1:-build}
if [ "$(id -u)" -ne 0 ]; then
    echo "skip: scripts/test_deb.sh installs a package: run it as root on a machine of its own"
    exit 77
fi
if dpkg-query -W -f='${Status}' gpudiag 2>/dev/null | grep -q "install ok installed"; then
    echo "FAIL: a gpudiag package is installed already; remove it first (dpkg -P gpudiag)"
    exit 1
fi
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); }
nok() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"; dpkg -P gpudiag >/dev/null 2>&1 || true' EXIT

rm -f "$BUILD"/gpudiag_*.deb
(cd "$BUILD" && cpack -G DEB >"$TMP/cpack.log" 2>&1) || { nok "cpack failed: $(tail -3 "$TMP/cpack.log")"; echo "$PASS passed, $FAIL failed"; exit 1; }
DEB=$(ls "$BUILD"/gpudiag_*.deb)
echo "package: $DEB ($(du -k "$DEB" | cut -f1) KiB)"
dpkg-deb -c "$DEB" | awk '{print $6}' >"$TMP/contents"
for f in ./usr/bin/gpudiag ./usr/share/man/man1/gpudiag.1 ./usr/lib/libgpudiag.so.0 ./usr/lib/libgpudiag.a \
         ./usr/include/gpudiag/gpudiag.h ./usr/lib/pkgconfig/gpudiag.pc ./usr/share/doc/gpudiag/LICENSE \
         ./usr/share/bash-completion/completions/gpudiag; do
    grep -qx "$f" "$TMP/contents" && ok || nok "the package lacks $f"
done
grep -q "/dist-packages/gpudiag/torch.py$" "$TMP/contents" && ok || nok "the package lacks the Python package"
# Debian's version-neutral path, read by every python3 3.x of Debian (not one python3.X)
PYPKG=/usr/lib/python3/dist-packages/gpudiag
grep -qx ".$PYPKG/__init__.py" "$TMP/contents" && ok || nok "the Python package is not under $PYPKG: $(grep /gpudiag/__init__.py "$TMP/contents")"
dpkg-deb -I "$DEB" prerm >/dev/null 2>&1 && ok || nok "the package has no prerm"

export DEBIAN_FRONTEND=noninteractive
if apt-get install -y -qq "$(realpath "$DEB")" >"$TMP/install.log" 2>&1; then ok; else nok "apt-get install: $(tail -3 "$TMP/install.log")"; fi
cd "$TMP"   # nothing from the source tree from here on, except the example trace as input
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset GPUDIAG_LIBRARY GPUDIAG_CLI PYTHONPATH
[ "$(command -v gpudiag)" = /usr/bin/gpudiag ] && ok || nok "gpudiag on PATH is $(command -v gpudiag)"
gpudiag --version | grep -q "^gpudiag 0\." && ok || nok "gpudiag --version: $(gpudiag --version 2>&1)"
EX=$SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz
OUT=$(gpudiag analyze -q "$EX" 2>&1)
case "$OUT" in data_pipeline:*) ok ;; *) nok "gpudiag analyze -q: $OUT" ;; esac
man -w gpudiag >/dev/null 2>&1 && ok || echo "note: man -w gpudiag found nothing (no man-db here?)"
[ "$(pkg-config --modversion gpudiag)" = "$(gpudiag --version | awk '{print $2}')" ] && ok || nok "pkg-config gpudiag"
printf '#include <gpudiag/gpudiag.h>\n#include <stdio.h>\nint main(void) { puts(gpudiag_errname(GPUDIAG_ERR_FORMAT)); return 0; }\n' >prog.c
# shellcheck disable=SC2046
if cc -o prog prog.c $(pkg-config --cflags --libs gpudiag) && [ "$(./prog)" = format ]; then ok; else nok "a C program against the installed library"; fi
OUT=$(/usr/bin/python3 -c "
import gpudiag, gpudiag._native as n, sys
r = gpudiag.analyze(sys.argv[1])
print(n.load().path, r['verdict']['finding'])" "$EX" 2>&1)
case "$OUT" in */lib/libgpudiag.so.0\ dataloader_stall) ok ;; *) nok "python3 -c 'import gpudiag': $OUT" ;; esac
[ -d "$PYPKG/__pycache__" ] && ok || echo "note: importing as root wrote no $PYPKG/__pycache__ (PYTHONDONTWRITEBYTECODE?)"
OUT=$(bash -c '. /usr/share/bash-completion/completions/gpudiag; COMP_WORDS=(gpudiag ana); COMP_CWORD=1; _gpudiag; echo "${COMPREPLY[*]}"' 2>&1)
[ "$OUT" = analyze ] && ok || nok "bash completion of 'gpudiag ana': '$OUT'"

if dpkg -P gpudiag >"$TMP/remove.log" 2>&1; then ok; else nok "dpkg -P: $(tail -3 "$TMP/remove.log")"; fi
for f in /usr/bin/gpudiag /usr/lib/libgpudiag.so.0 /usr/include/gpudiag/gpudiag.h "$PYPKG"; do
    [ -e "$f" ] && nok "$f left after dpkg -P ($(ls -A "$f" 2>/dev/null | tr '\n' ' '))" || ok
done
/usr/bin/python3 -c "import gpudiag" 2>/dev/null && nok "the Python package is left after dpkg -P" || ok
dpkg-query -W -f='${Status}' gpudiag 2>/dev/null | grep -q . && nok "dpkg still lists gpudiag: $(dpkg-query -W -f='${Status}' gpudiag)" || ok
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
