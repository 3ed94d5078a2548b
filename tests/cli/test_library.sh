#!/bin/sh
# test_library.sh — the library as another program sees it: `cmake --install` into a
# temporary prefix, then a small C program built with pkg-config against the installed
# headers and libgpudiag.so (and once statically, with `pkg-config --static`) analyses the
# example trace.  Expected (README's example, the TensorBoard plugin's own numbers for this
# trace, tests/oracle): 6 steps, verdict dataloader_stall (bottleneck data_pipeline).
# Also: the SONAME is libgpudiag.so.<major>, and the shared library exports nothing but
# gpudiag_* (cmake/libgpudiag.map).
# Needs GD_BUILD (the build folder: CTest sets it), cc and pkg-config; exit 77 without them.
set -u
GD_TMP_TAG=lib
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
: "${GD_SRC:=$HERE/../..}"
: "${GD_BUILD:=$(dirname "$GPUDIAG")}"
for tool in cc pkg-config readelf nm; do
    command -v $tool >/dev/null 2>&1 || { echo "skip: $tool not found"; exit 77; }
done
[ -e "$GD_BUILD/libgpudiag.so" ] || { echo "skip: no libgpudiag.so in $GD_BUILD (-DGPUDIAG_SHARED=OFF?)"; exit 77; }

PREFIX=$TMP/prefix
if cmake --install "$GD_BUILD" --prefix "$PREFIX" >"$TMP/install.log" 2>&1; then ok; else nok "cmake --install failed: $(tail -3 "$TMP/install.log")"; fi
PC=$(find "$PREFIX" -name gpudiag.pc | head -1)
[ -n "$PC" ] && ok || nok "gpudiag.pc not installed"
export PKG_CONFIG_PATH="$(dirname "$PC")"
LIBDIR=$(pkg-config --variable=libdir gpudiag)
INC=$(pkg-config --variable=includedir gpudiag)
[ -f "$INC/gpudiag/gpudiag.h" ] && [ -f "$INC/gpudiag/roles.def" ] && ok || nok "headers not under $INC"
[ -f "$LIBDIR/libgpudiag.a" ] && ok || nok "libgpudiag.a not in $LIBDIR"
[ "$(pkg-config --modversion gpudiag)" = "$("$GPUDIAG" --version | awk '{print $2}')" ] && ok \
    || nok "pkg-config version $(pkg-config --modversion gpudiag) differs from gpudiag --version"

SONAME=$(readelf -d "$LIBDIR/libgpudiag.so" | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
case "$SONAME" in
    libgpudiag.so.[0-9]*) ok ;;
    *) nok "SONAME is '$SONAME', wanted libgpudiag.so.<major>" ;;
esac
[ -e "$LIBDIR/$SONAME" ] && ok || nok "$SONAME not installed"
OTHER=$(nm -D --defined-only "$LIBDIR/libgpudiag.so" | awk '$3 != "" && $3 !~ /^gpudiag_/ && $3 != "GPUDIAG_0" {print $3}' | head -5)
[ -z "$OTHER" ] && ok || nok "the shared library exports non-API symbols: $OTHER"

cat > "$TMP/prog.c" <<'PROG'
#include <gpudiag/gpudiag.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    gpudiag_trace *t = NULL;
    gpudiag_report *r = NULL;
    gpudiag_error err;
    if (argc != 2)
        return 2;
    if (gpudiag_trace_read(argv[1], &t, &err) != GPUDIAG_OK) {
        printf("error %s at %lld: %s\n", gpudiag_errname(err.code), (long long)err.offset, err.message);
        return 3;
    }
    if (gpudiag_analyze(t, NULL, &r, &err) != GPUDIAG_OK)
        return 5;
    gpudiag_trace_free(&t);
    printf("steps %zu verdict %s %s\n", r->step_count, r->verdict_finding ? r->verdict_finding : "none",
           gpudiag_bottleneck_name(r->bottleneck));
    gpudiag_report_free(&r);
    return 0;
}
PROG
EX=$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz
# a sanitizer build (scripts/check.sh's ASan + UBSan): the program links the same runtimes
SAN=""
readelf -d "$LIBDIR/libgpudiag.so" | grep -q "libasan" && SAN="$SAN -fsanitize=address"
readelf -d "$LIBDIR/libgpudiag.so" | grep -q "libubsan" && SAN="$SAN -fsanitize=undefined"
# shellcheck disable=SC2046,SC2086
if cc -std=c11 -Wall -Wextra -Wpedantic -Werror $SAN -o "$TMP/prog_shared" "$TMP/prog.c" $(pkg-config --cflags --libs gpudiag) 2>"$TMP/err"; then ok; else nok "shared build: $(head -c 400 "$TMP/err")"; fi
NEEDED=$(readelf -d "$TMP/prog_shared" 2>/dev/null | grep -c "\[$SONAME\]")
[ "$NEEDED" = 1 ] && ok || nok "the program does not record $SONAME as NEEDED"
OUT=$(LD_LIBRARY_PATH=$LIBDIR "$TMP/prog_shared" "$EX")
[ "$OUT" = "steps 6 verdict dataloader_stall data_pipeline" ] && ok || nok "shared: got '$OUT'"
# shellcheck disable=SC2046,SC2086
if cc -std=c11 $SAN -o "$TMP/prog_static" "$TMP/prog.c" "$LIBDIR/libgpudiag.a" $(pkg-config --cflags --libs-only-other --static gpudiag | sed 's/-lgpudiag//') $(pkg-config --static --libs-only-l gpudiag | sed 's/-lgpudiag//') 2>"$TMP/err"; then ok; else nok "static build: $(head -c 400 "$TMP/err")"; fi
OUT=$("$TMP/prog_static" "$EX")
[ "$OUT" = "steps 6 verdict dataloader_stall data_pipeline" ] && ok || nok "static: got '$OUT'"
# bad input through the library: an error, not a crash
printf '{"traceEvents": [' > "$TMP/cut.json"
OUT=$(LD_LIBRARY_PATH=$LIBDIR "$TMP/prog_shared" "$TMP/cut.json"); RC=$?
case "$RC:$OUT" in 3:"error format"*) ok ;; *) nok "cut trace: exit $RC, '$OUT'" ;; esac
finish
