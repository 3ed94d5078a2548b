#!/bin/sh
# A real Slurm: a one-node slurmctld + slurmd (config deploy/slurm/slurm.conf.in,
# munge on a private socket, everything under $TMP) runs the recipe of
# deploy/slurm/: an array job of N tasks, each summarising one rank trace
# (gpudiag-ranks.sbatch), then a job depending on it that merges the summaries
# (gpudiag-merge.sbatch).  The merged JSON must equal `gpudiag analyze --json`
# of the trace directory on this host, byte for byte, and name the straggler
# gen_ranks.py built in (rank 2 of 4, the others waiting 60 us per step: the
# hand-derived values of test_merge.sh).
#
# Skipped (77, saying why) unless run as root with slurmctld, slurmd, sbatch and
# munged installed (Debian: apt-get install slurm-wlm munge; .ci/run does).
# Every wait has a deadline and the daemons it started are stopped on exit.
set -u
GD_TMP_TAG=slurm
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
SRC=${GD_SRC:-$HERE/../..}
N=4

if [ "$(id -u)" != 0 ]; then echo "skip: not root (a one-node Slurm needs root here)"; exit 77; fi
for b in slurmctld slurmd sbatch squeue sinfo munged; do
    command -v "$b" > /dev/null 2>&1 || { echo "skip: $b not installed (apt-get install slurm-wlm munge)"; exit 77; }
done

D=$TMP/slurm
mkdir -p "$D/state" "$D/spool" "$D/out"
chmod 755 "$TMP" "$D" "$D/out"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2> /dev/null; done
    sleep 1
    for p in $pids; do kill -9 "$p" 2> /dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
# wait_for SECONDS CMD...: poll CMD every second until it succeeds; 1 at the deadline
wait_for() {
    _t=$1; shift
    while [ "$_t" -gt 0 ]; do
        "$@" > /dev/null 2>&1 && return 0
        sleep 1; _t=$((_t - 1))
    done
    return 1
}

# munge with its own key, socket and files
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$D/munge.key"
munged --force --foreground --key-file="$D/munge.key" --socket="$D/munge.socket" --pid-file="$D/munged.pid" \
    --log-file="$D/munged.log" --seed-file="$D/munged.seed" > "$D/munged.out" 2>&1 &
pids="$pids $!"
wait_for 20 test -S "$D/munge.socket" || { nok "munged did not start: $(tail -3 "$D/munged.log" "$D/munged.out" 2>&1)"; finish; exit; }

host=$(hostname -s)
node=$(slurmd -C 2> /dev/null | head -1)
case "$node" in NodeName=*) ;; *) nok "slurmd -C gave no NodeName line"; finish; exit ;; esac
port=$((20000 + $$ % 20000))
sed -e "s|@DIR@|$D|g" -e "s|@HOST@|$host|g" -e "s|@NODE@|$node|" -e "s|@CTLDPORT@|$port|" \
    -e "s|@DPORT@|$((port + 1))|" "$SRC/deploy/slurm/slurm.conf.in" > "$D/slurm.conf"
SLURM_CONF=$D/slurm.conf
export SLURM_CONF
slurmctld -D -i -f "$SLURM_CONF" > "$D/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" > "$D/slurmd.out" 2>&1 &
pids="$pids $!"
idle() { sinfo -h -o %t 2> /dev/null | grep -q '^idle'; }
if wait_for 60 idle; then ok; else
    nok "the node did not come up idle: $(sinfo 2>&1 | tail -2) / $(tail -5 "$D/slurmctld.log" "$D/slurmd.log" 2>&1)"
    finish; exit
fi

# N rank traces, rank 2 the straggler by 40 us (test_merge.sh derives the waits)
python3 "$SRC/bench/gen_ranks.py" "$GD_TEST_DATA/ok_nccl_overlap.json" "$D/traces" --ranks $N --straggler 2 \
    --delay-us 40 > /dev/null
"$GPUDIAG" analyze --json "$D/traces" > "$D/single.json"
array=$(GPUDIAG=$GPUDIAG sbatch --parsable --array=0-$((N - 1)) --output="$D/out/rank-%a.out" \
    "$SRC/deploy/slurm/gpudiag-ranks.sbatch" "$D/traces" "$D/summaries")
merge=$(GPUDIAG=$GPUDIAG sbatch --parsable --dependency=afterok:"$array" --output="$D/out/merge.out" \
    "$SRC/deploy/slurm/gpudiag-merge.sbatch" "$D/summaries" "$D/job.json")
[ -n "$array" ] && [ -n "$merge" ] && ok || nok "sbatch: array '$array', merge '$merge'"
gone() { [ -z "$(squeue -h -j "$array,$merge" 2> /dev/null)" ]; }
if wait_for 180 gone; then ok; else nok "jobs still queued after 180 s: $(squeue 2>&1 | tail -5)"; fi
[ "$(ls "$D/summaries" 2> /dev/null | wc -l)" -eq $N ] && ok ||
    nok "$N summaries wanted, found: $(ls "$D/summaries" 2>&1) $(cat "$D"/out/rank-*.out 2> /dev/null | head -5)"
if [ -s "$D/job.json" ] && cmp -s "$D/job.json" "$D/single.json"; then ok; else
    nok "the merged job view differs from analyze --json DIR: $(head -5 "$D/out/merge.out" 2>&1)"
fi
python3 - "$D/job.json" "$array" "$D/summaries" <<'PY' && ok || nok "merged job view contents"
import glob, json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert s["straggler"] == 2 and abs(s["wait_us_per_step"] - 60) < 1e-9, s
jobs = {json.load(open(p))["job"]["id"] for p in glob.glob(sys.argv[3] + "/*.json")}
assert jobs == {"slurm:" + sys.argv[2]}, jobs   # every task names the array's job
# each task's collectives keep their exposed wait (test_merge.sh derives it: the all-reduce 40 us
# outside compute on every rank, the all-gather alone, 60 us on rank 2 and 80 on the others) and
# their bytes (unknown: ok_nccl_overlap has no record_param_comms)
for p in glob.glob(sys.argv[3] + "/*.json"):
    r = json.load(open(p))["ranks"][0]
    want = [40, 60] if r["rank"] == 2 else [40, 80]
    assert r["collectives"]["exposed_us"] == want and r["collectives"]["bytes"] == [None, None], (p, r["collectives"])
PY
grep -q "Rank 2 is the straggler" "$D/out/merge.out" && ok || nok "the merge job's text: $(head -3 "$D/out/merge.out" 2>&1)"
finish
