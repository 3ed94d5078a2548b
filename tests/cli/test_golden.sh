#!/bin/sh
# The golden reports (tests/golden, scripts/golden.sh): every report on the
# shared real inputs and tests/data is byte-identical to the committed one.
# A deliberate change regenerates them with `scripts/golden.sh --update` and
# says in the commit why they moved.
#
# Then the evidence cap: a finding holds at most GPUDIAG_MAX_EVIDENCE numbers
# (include/gpudiag/gpudiag.h) and gd_fb_ev drops what does not fit (an assert in
# debug builds only), so every finding of every golden JSON report must hold fewer
# than the cap: one at the cap may have lost numbers without a word (before
# 2026-12-03, night: communication_bound at 12 of 12 had dropped its last kinds' shares).
. "$(dirname "$0")/common.sh"
PASS=0
FAIL=0
if GOLDEN_DIFF_LINES=60 "$GD_SRC/scripts/golden.sh" "$GPUDIAG"; then
    ok
else
    nok "reports moved (scripts/golden.sh --update after checking why)"
fi

if python3 - "$GD_SRC/include/gpudiag/gpudiag.h" "$GD_SRC"/tests/golden/*.json <<'EOF2'
import json, re, sys
cap = int(re.search(r"#define GPUDIAG_MAX_EVIDENCE (\d+)", open(sys.argv[1]).read()).group(1))
over, seen, most = [], 0, 0
for path in sys.argv[2:]:
    try:
        findings = json.load(open(path)).get("findings") or []
    except ValueError:
        continue  # a report the input made fail (its golden file is the error)
    for f in findings:
        n = len(f.get("evidence") or {})
        seen += 1
        most = max(most, n)
        if n >= cap:
            over.append(f"{path.rsplit('/', 1)[-1]}: {f['id']} holds {n} of {cap}")
for line in over:
    print("FAIL evidence at the cap:", line)
print(f"evidence: {seen} findings, at most {most} numbers, cap {cap}")
sys.exit(1 if over or not seen else 0)
EOF2
then
    ok
else
    nok "a finding's evidence reached GPUDIAG_MAX_EVIDENCE"
fi
finish
