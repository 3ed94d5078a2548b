#!/usr/bin/env bash
# bench/run.sh — end-to-end throughput and peak memory of `gpudiag analyze --json`.
#
#   bench/run.sh            build, generate the synthetic traces if missing, measure, summarise
#
# Inputs measured (RUNS times each, round-robin, then the >4 GiB trace once):
#   real      the largest shared trace (a100_8rank_rank3_control, 34.8 MB of JSON)
#   1g.json   SRC replicated to >= 1.1e9 bytes by bench/gen_trace.py
#   1g.gz     the same, gzip -6
#   4g.gz     SRC replicated to >= 4.4e9 bytes (> 2^32: checks 32-bit overflow), gzip -6,
#             never stored uncompressed; skipped if generating it takes > GEN_LIMIT s
#
# Each run is `/usr/bin/time -v gpudiag analyze --json FILE`: wall time (bash
# EPOCHREALTIME around the command), user/sys and max RSS from time -v.  MB/s is
# 10^6 bytes of *uncompressed* JSON (the report's inputs[0].bytes) per wall second;
# RSS % is peak RSS / uncompressed size.  Results: bench/out/results.tsv and
# bench/out/results.md; the reports and time -v outputs stay in bench/out/runs/.
#
# Variants: "default" is build-bench as configured by default (CMake picks the
# simdjson events parser when GPUDIAG_SIMDJSON is ON and simdjson is found);
# "yajl" is build-bench-yajl with -DGPUDIAG_SIMDJSON=OFF, the pure-C yajl path
# (only when CMakeLists.txt has that option).
#
# Environment: RUNS (3), SRC (trace to replicate), REAL, BIG4=0 to skip the 4 GB
# run, GEN_LIMIT (180 s), VARIANTS ("default yajl"), NOBUILD=1 to use the build
# dirs as they are, STAGES=0 to skip the per-stage timing (bench/stages.c),
# CLEAN=1 to delete the big files at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
BUILD=$ROOT/build-bench
RUNS=${RUNS:-3}
SRC=${SRC:-/work/shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz}
REAL=${REAL:-/work/shared/data/traces/a100_8rank_rank3_control.json.gz}
BIG4=${BIG4:-1}
GEN_LIMIT=${GEN_LIMIT:-180}
STAGES=${STAGES:-1}
CLEAN=${CLEAN:-0}
PY=${PYTHON:-python3}

mkdir -p "$OUT/runs"
log() { printf '[run.sh] %s\n' "$*" >&2; }

# ---- build ------------------------------------------------------------------
if grep -q 'GPUDIAG_SIMDJSON' "$ROOT/CMakeLists.txt"; then
    VARIANTS=${VARIANTS:-default yajl}
else
    VARIANTS=${VARIANTS:-default}
fi
bdir() { [[ $1 == default ]] && echo "$BUILD" || echo "$BUILD-$1"; }
for v in $VARIANTS; do
    b=$(bdir "$v")
    if [[ ${NOBUILD:-0} != 1 ]]; then
        extra=()
        [[ $v == yajl ]] && extra=(-DGPUDIAG_SIMDJSON=OFF)
        log "building $b (Release${extra:+, ${extra[*]}})"
        cmake -S "$ROOT" -B "$b" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >/dev/null
        cmake --build "$b" -j2 >/dev/null
    fi
    [[ -x $b/gpudiag ]] || { log "no binary at $b/gpudiag"; exit 1; }
    if [[ $STAGES == 1 ]]; then
        libs=(-lyajl -lz -lm)
        if nm -C "$b/libgpudiag.a" 2>/dev/null | grep ' T gd_sj_new' >/dev/null; then
            libs+=(-lsimdjson -lstdc++)
        fi
        if nm "$b/libgpudiag.a" 2>/dev/null | grep ' U isal_inflate' >/dev/null; then
            libs+=(-lisal)
        fi
        cc -O2 -std=c11 -I"$ROOT/include" -I"$ROOT/src" "$ROOT/bench/stages.c" "$b/libgpudiag.a" \
            "${libs[@]}" -o "$OUT/stages.$v"
    fi
done

# ---- machine ------------------------------------------------------------------
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
    echo "cpu family/model: $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')/$(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
    echo "mem: $(free -g | awk '/Mem:/{print $2}') GiB"
    echo "kernel: $(uname -r)"
    echo "compiler: $(cc --version | head -1)"
    echo "yajl: $(dpkg-query -W -f='${Version}' libyajl2 2>/dev/null || echo '?')  zlib: $(dpkg-query -W -f='${Version}' zlib1g 2>/dev/null || echo '?')"
    echo "gpudiag: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet -- src include CMakeLists.txt 2>/dev/null || echo ' + uncommitted changes')"
    for v in $VARIANTS; do
        sj=$(grep -s '^GPUDIAG_SIMDJSON:' "$(bdir "$v")/CMakeCache.txt" | cut -d= -f2)
        have=$(nm "$(bdir "$v")/libgpudiag.a" 2>/dev/null | grep ' T gd_sj_new' >/dev/null && echo yes || echo no)
        echo "variant $v: $(bdir "$v"), GPUDIAG_SIMDJSON=${sj:-n/a}, simdjson events parser linked: $have"
    done
} > "$OUT/machine.txt"
cat "$OUT/machine.txt" >&2

# ---- data -------------------------------------------------------------------
G1=$OUT/synth_1g.json
G4=$OUT/synth_4g.json.gz
if [[ ! -s $G1 || ! -s $OUT/synth_1g.log ]]; then
    log "generating $G1"
    "$PY" "$ROOT/bench/gen_trace.py" "$SRC" "$G1.tmp" --target-bytes 1.1e9 2> "$OUT/synth_1g.log"
    mv "$G1.tmp" "$G1"
    rm -f "$G1.gz"
fi
if [[ ! -s $G1.gz ]]; then
    log "compressing $G1.gz (gzip -6)"
    gzip -6 -c "$G1" > "$G1.gz.tmp" && mv "$G1.gz.tmp" "$G1.gz"
fi
big4_note=""
if [[ $BIG4 == 1 && ! -s $G4 ]]; then
    free_kb=$(df -Pk "$OUT" | awk 'NR==2{print $4}')
    if (( free_kb < 2 * 1024 * 1024 )); then
        big4_note="skipped: less than 2 GiB free on $(df -P "$OUT" | awk 'NR==2{print $6}')"
    else
        log "generating $G4 (gen_trace.py | gzip -6, limit ${GEN_LIMIT}s)"
        t0=$EPOCHREALTIME
        if timeout "$GEN_LIMIT" bash -c 'set -o pipefail; "$1" "$2" "$3" - --target-bytes 4.4e9 2> "$4" | gzip -6 > "$5"' \
            _ "$PY" "$ROOT/bench/gen_trace.py" "$SRC" "$OUT/synth_4g.log" "$G4.tmp"; then
            mv "$G4.tmp" "$G4"
            awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f\n", b-a}' > "$OUT/synth_4g.gentime"
            log "generated in $(cat "$OUT/synth_4g.gentime") s"
        else
            rm -f "$G4.tmp"
            big4_note="skipped: generating it took more than ${GEN_LIMIT} s"
        fi
    fi
elif [[ $BIG4 != 1 ]]; then
    big4_note="skipped (BIG4=0)"
fi
[[ -n $big4_note ]] && log "4 GB run $big4_note"

# expected step counts: replicas x steps of SRC
src_steps=$("$BUILD/gpudiag" analyze --json "$SRC" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["summary"]["steps"])')
reps() { sed -n 's/.*wrote \([0-9]*\) replicas.*/\1/p' "$1" 2>/dev/null | tail -1; }

# ---- measure ------------------------------------------------------------------
rm -f "$OUT"/runs/*
TSV=$OUT/results.tsv
printf 'variant\tname\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\tbytes\tevents\tsteps\texpected_steps\texit\tload1\n' > "$TSV"

one() {  # variant name file run expected_steps
    local v=$1 name=$2 f=$3 i=$4 exp=$5 t0 t1 rc=0
    local rep=$OUT/runs/$v.$name.$i.json tv=$OUT/runs/$v.$name.$i.time load
    load=$(cut -d' ' -f1 /proc/loadavg)   # other work on the machine (shared VM)
    t0=$EPOCHREALTIME
    /usr/bin/time -v -o "$tv" "$(bdir "$v")/gpudiag" analyze --json "$f" > "$rep" || rc=$?
    t1=$EPOCHREALTIME
    "$PY" - "$v" "$name" "$i" "$t0" "$t1" "$tv" "$rep" "$exp" "$rc" "$load" >> "$TSV" <<'EOF'
import json, re, sys
v, name, i, t0, t1, tv, rep, exp, rc, load = sys.argv[1:]
t = open(tv).read()
g = lambda pat: re.search(pat, t).group(1)
try:
    r = json.load(open(rep)); inp = r["inputs"][0]
    b, ev, st = inp["bytes"], inp["events"], r["summary"]["steps"]
except Exception:
    b = ev = st = -1
print("\t".join(map(str, [v, name, i, "%.3f" % (float(t1) - float(t0)), g(r"User time \(seconds\): ([\d.]+)"),
      g(r"System time \(seconds\): ([\d.]+)"), g(r"Maximum resident set size \(kbytes\): (\d+)"), b, ev, st, exp, rc, load])))
EOF
    tail -1 "$TSV" | awk -F'\t' '{printf "[run.sh] %-7s %-8s run %s: %6.2f s  %7.1f MB/s  %7.1f MiB RSS  steps %s\n", $1, $2, $3, $4, $8/1e6/$4, $7/1024, $10}' >&2
}

exp1=$(( $(reps "$OUT/synth_1g.log") * src_steps ))
for f in "$REAL" "$G1" "$G1.gz"; do cat "$f" > /dev/null; done   # page cache
for i in $(seq 1 "$RUNS"); do
    for v in $VARIANTS; do
        one "$v" real "$REAL" "$i" -
        one "$v" 1g.json "$G1" "$i" "$exp1"
        one "$v" 1g.gz "$G1.gz" "$i" "$exp1"
    done
done
if [[ $BIG4 == 1 && -s $G4 ]]; then
    cat "$G4" > /dev/null
    for v in $VARIANTS; do
        one "$v" 4g.gz "$G4" 1 $(( $(reps "$OUT/synth_4g.log") * src_steps ))
    done
fi

# ---- per-stage timing (one pass each; bench/stages.c) -----------------------------------
if [[ $STAGES == 1 ]]; then
    : > "$OUT/stages.txt"
    for f in "$REAL" "$G1" "$G1.gz"; do
        echo "## $(basename "$f")" >> "$OUT/stages.txt"
        first=1
        for v in $VARIANTS; do
            if [[ $first == 1 ]]; then   # the parser-independent floors, once
                "$OUT/stages.$v" "$f" inflate lex lexcb | sed 's/^/         /' >> "$OUT/stages.txt"
                first=0
            fi
            "$OUT/stages.$v" "$f" read analyze | sed "s/^/$(printf '%-8s ' "$v")/" >> "$OUT/stages.txt"
        done
    done
fi

# ---- summary ------------------------------------------------------------------
"$PY" "$ROOT/bench/summarize.py" "$TSV" --note4g "$big4_note" --stages "$OUT/stages.txt" \
    --gentime "$(cat "$OUT/synth_4g.gentime" 2>/dev/null || true)" | tee "$OUT/results.md"

if [[ $CLEAN == 1 ]]; then
    log "removing the generated traces"
    rm -f "$G1" "$G1.gz" "$G4"
fi
