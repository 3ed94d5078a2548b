#!/bin/sh
# test_library_quiet.sh — "the library never prints, never exits, and leaves
# signals to its caller" (include/gpudiag/gpudiag.h, conventions; issue 20),
# checked on the built library rather than by reading the source: no object
# of libgpudiag.a may refer to exit/_Exit/abort, printf/puts/perror, stdout,
# stderr or signal handling, except the two stated exceptions:
#   util.c.o     _Exit and stderr: gd_oom_exit, out of memory inside yajl or
#                simdjson (the conventions block says why);
#   outfile.c.o  stdout: a caller's output path "-" is standard output.
# (fprintf(stderr, ...) refers to the symbol stderr; printf("...\n") may be
# compiled into puts: both are caught.)
. "$(dirname "$0")/common.sh"

LIB=$(dirname "$GPUDIAG")/libgpudiag.a
if ! command -v nm >/dev/null 2>&1 || [ ! -f "$LIB" ]; then
    echo "skip: nm or $LIB not found"
    exit 77
fi
nm -A "$LIB" 2>/dev/null | sed 's/^.*libgpudiag\.a[:(]//; s/)\{0,1\}:/ /' |
    awk '$2 == "U" { print $1, $3 }' |
    grep -E ' (exit|_Exit|_exit|abort|printf|vprintf|puts|putchar|perror|stdout|stderr|signal|sigaction|sigprocmask|pthread_sigmask|raise)$' |
    sort > "$TMP/refs"
printf '%s\n' "outfile.c.o stdout" "util.c.o _Exit" "util.c.o stderr" > "$TMP/allowed"
sort -o "$TMP/allowed" "$TMP/allowed"
# every allowed line is there (the scan works), and nothing else is
[ -s "$TMP/refs" ] && ok || nok "no symbol references found in $LIB: is nm's output format new?"
extra=$(comm -23 "$TMP/refs" "$TMP/allowed")
[ -z "$extra" ] && ok || nok "library objects that print, exit or handle signals: $extra"
finish
