"""Shared value checker for the CLI tests: compare (name, got, want) triples.

Numbers match within a relative tolerance (absolute below 1), anything else
must be equal.  Prints one FAIL line per mismatch and a "N passed, M failed"
line, then exits 0 or 1.
"""
import sys


def run(checks, label, rel=1e-6):
    def bad(got, want):
        if isinstance(want, (int, float)) and not isinstance(want, bool):
            return got is None or isinstance(got, bool) or abs(got - want) > rel * max(1.0, abs(want))
        return got != want

    fails = [(n, g, w) for n, g, w in checks if bad(g, w)]
    for n, g, w in fails:
        print(f"FAIL [{label}] {n}: gpudiag {g!r} != {w!r}")
    print(f"{label}: {len(checks) - len(fails)} passed, {len(fails)} failed")
    sys.exit(1 if fails else 0)
