#!/usr/bin/env python3
"""schemacheck.py SCHEMA REPORT... — validate gpudiag --json outputs (one
document, or JSON Lines) against docs/report.schema.json with the jsonschema
package (Debian python3-jsonschema); exit 77 when it is not installed.
With --selftest SCHEMA REPORT: check instead that five broken variants of
REPORT are each rejected (the schema can fail)."""
import copy
import json
import sys

try:
    import jsonschema
except ImportError:
    print("skip: python3 jsonschema not installed (Debian: apt-get install python3-jsonschema)")
    sys.exit(77)


def docs(path):
    text = open(path, encoding="utf-8").read()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def main():
    args = sys.argv[1:]
    selftest = args and args[0] == "--selftest"
    if selftest:
        args = args[1:]
    schema = json.load(open(args[0]))
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    bad = 0
    if selftest:
        good = docs(args[1])[0]
        breaks = [
            ("no verdict", lambda d: d.pop("verdict")),
            ("utilization as text", lambda d: d["summary"].__setitem__("gpu_utilization", "55%")),
            ("unknown cause", lambda d: d["idle"]["top_gaps"][0].__setitem__("cause", "cosmic_rays")),
            ("share above 1", lambda d: d["summary"].__setitem__("idle_share", 1.5)),
            ("negative time", lambda d: d["steps"][0].__setitem__("duration_us", -1)),
        ]
        for name, f in breaks:
            d = copy.deepcopy(good)
            f(d)
            if v.is_valid(d):
                print("FAIL selftest: schema accepted a report with %s" % name)
                bad += 1
        sys.exit(1 if bad else 0)
    for path in args[1:]:
        for i, d in enumerate(docs(path)):
            for e in list(v.iter_errors(d))[:5]:
                print("FAIL %s [%d] at %s: %s" % (path, i, "/".join(map(str, e.absolute_path)), e.message[:200]))
                bad += 1
    sys.exit(1 if bad else 0)


main()
