#!/bin/bash
# epilog.sh — the per-rank step as a Slurm Epilog (slurm.conf: Epilog=/etc/slurm/gpudiag-epilog.sh):
# after every job, on every node it ran on, summarise the traces the job left
# in GPUDIAG_TRACE_ROOT/$SLURM_JOB_ID (PyTorch's tensorboard_trace_handler
# pointed there) into GPUDIAG_SUMMARY_ROOT/$SLURM_JOB_ID on shared storage.
# Then, from anywhere: gpudiag merge GPUDIAG_SUMMARY_ROOT/JOBID.
# An epilog must not fail the node: errors are logged and it exits 0.
# It runs as root (SlurmdUser); the summaries are handed to the job's user.
: "${GPUDIAG:=/usr/bin/gpudiag}"
: "${GPUDIAG_TRACE_ROOT:=/scratch/gpudiag}"
: "${GPUDIAG_SUMMARY_ROOT:=/shared/gpudiag}"
src="$GPUDIAG_TRACE_ROOT/${SLURM_JOB_ID:-none}"
[ -n "${SLURM_JOB_ID:-}" ] && [ -d "$src" ] || exit 0
dst="$GPUDIAG_SUMMARY_ROOT/$SLURM_JOB_ID"
mkdir -p "$dst" || exit 0
for f in "$src"/*.json "$src"/*.json.gz; do
    [ -f "$f" ] || continue
    out="$dst/$(hostname -s)-$(basename "$f").summary.json"
    GPUDIAG_JOB_ID="slurm:$SLURM_JOB_ID" timeout 600 "$GPUDIAG" analyze --quiet --summary "$out" "$f" \
        > /dev/null 2>> "$dst/errors.log" || echo "$(date -u +%FT%TZ) $f: exit $?" >> "$dst/errors.log"
    [ -n "${SLURM_JOB_USER:-}" ] && chown "$SLURM_JOB_USER" "$out" 2>/dev/null
done
exit 0
