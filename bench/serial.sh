#!/bin/bash
# bench/serial.sh BIN [TRACE] — issue 24: how long `analyze --jobs 2` spends in the serial part
# between the parallel read and the analysis passes run side by side (sanitize, correlation
# index, steps). perf samples the process at 4 kHz; the main thread's samples after the last
# parse thread's and before the first side thread's are that part's CPU time (robust on a shared
# machine, unlike the wall time printed beside it).
b=${1:?usage: bench/serial.sh BIN [TRACE]}
set -eu
perf record -q -e cpu-clock -F 4000 -o "${TMPDIR:-/tmp}/gd-serial.perf" "$b" analyze --jobs 2 --json "${2:-$(dirname "$0")/out/1g.json}" >/dev/null 2>&1
perf script -i "${TMPDIR:-/tmp}/gd-serial.perf" -F tid,time 2>/dev/null | awk '{t=$2+0; n[$1]++; if(!($1 in f)) f[$1]=t; l[$1]=t; tid[NR]=$1; ts[NR]=t}
END {main=""; for (k in n) if (main=="" || f[k]<f[main]) main=k;
 re=0; for (k in n) if (k!=main && f[k]<f[main]+0.5 && n[k]>500 && l[k]>re) re=l[k];
 ss=1e18; for (k in n) if (k!=main && f[k]>re && f[k]<ss) ss=f[k];
 c=0; for (i=1;i<=NR;i++) if (tid[i]==main && ts[i]>re && ts[i]<ss) c++;
 printf "read %.3f s wall; serial after read %.3f s wall, %.3f s main cpu; total %.3f s\n", re-f[main], ss-re, c/4000, l[main]-f[main]}'
