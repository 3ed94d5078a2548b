#!/bin/sh
# The golden reports (tests/golden, scripts/golden.sh): every report on the
# shared real inputs and tests/data is byte-identical to the committed one.
# A deliberate change regenerates them with `scripts/golden.sh --update` and
# says in the commit why they moved.
. "$(dirname "$0")/common.sh"
if GOLDEN_DIFF_LINES=60 "$GD_SRC/scripts/golden.sh" "$GPUDIAG"; then
    echo "1 passed, 0 failed"
else
    echo "FAIL: reports moved (scripts/golden.sh --update after checking why)"
    echo "0 passed, 1 failed"
    exit 1
fi
