#!/bin/sh
# test_finding_ids.sh — the finding ids the code can emit equal the ids
# docs/FINDINGS.md documents (first cell of its tables), both ways.
# The ids are read from src/ (every C file):
#   the rule catalogues, one row per id: src/diagnose/findings.def (trace
#     rules, GD_FINDING rows, emitted as GD_F_<id>),
#     src/diagnose/series_findings.def (monitoring rules, GD_SFINDING rows,
#     GD_S_<id>) and src/diagnose/cluster_findings.def (the ranks of one job,
#     GD_CFINDING rows, GD_C_<id>); their wrappers call gd_fb_add(B, c->id,
#     ...) with c a row, or gd_fb_add(B, catalogue[ID].id, ...).  Every row's
#     GD_F_/GD_S_/GD_C_<id> must be used in some C file (a row no rule emits
#     fails), and its kind and bottleneck must agree with the FINDINGS.md rows
#     of that id (CAUSE <=> "cause ..."; NOTE => "input ..."; "-> `bn`" or a
#     bare "`bn`" => that bottleneck); a row's rule column (the 4th) must name
#     the function in src/**/*.c whose body emits its GD_F_/GD_S_/GD_C_<id>;
#   gd_fb_add(B, "id", ...); f->id = "id";
#   gd_fb_add(B, ID, ...) where ID is a parameter of a wrapper function W:
#     every call W(B, "id", ...) in that file;
#   gd_fb_add(B, ID, ...) where ID is assigned in the enclosing function: every
#     string literal of those assignments.
# A gd_fb_add or wrapper call whose id is none of these fails the test (the
# reader would miss it).  As a check of the reader itself, every id in the
# golden JSON reports (tests/golden) must be among the ids read.
. "$(dirname "$0")/common.sh"
python3 - "$GD_SRC" <<'PY'
import glob, json, os, re, sys
src = sys.argv[1]
bad = []
code = {}   # id -> first "file:line"
def note(i, path, text, pos):
    code.setdefault(i, "%s:%d" % (os.path.relpath(path, src), text.count("\n", 0, pos) + 1))
FN = re.compile(r'^[A-Za-z_][\w \t\*]*?\b(\w+)\(([^;{}]*?)\)\s*\{', re.M | re.S)
LIT = r'"([a-z][a-z0-9_]*)"'
nadd = 0
# catalogue rows: (prefix of the row's C name, id) -> (kind, bottleneck); the
# trace rules' GD_FINDING rows are GD_F_<id>, the series rules' GD_SFINDING rows GD_S_<id>
catalogue = {}
for path in sorted(glob.glob(os.path.join(src, "src", "**", "*findings.def"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r'^GD_([SC]?)FINDING\(\s*([a-z][a-z0-9_]*)\s*,\s*(\w+)\s*,\s*(\w+)', text, re.M):
        key = ("GD_%s_" % (m.group(1) or "F"), m.group(2))
        if key in catalogue:
            bad.append("%s: catalogue id %s twice" % (path, m.group(2)))
        catalogue[key] = (m.group(3), m.group(4).lower())
        note(m.group(2), path, text, m.start())
if len(catalogue) < 45:
    bad.append("only %d catalogue rows found in src/**/*findings.def: the reader is broken" % len(catalogue))
used = set()
for path in sorted(glob.glob(os.path.join(src, "src", "**", "*.c"), recursive=True)):
    used.update(re.findall(r'\b(GD_[FSC]_)([a-z][a-z0-9_]*)\b', open(path, encoding="utf-8").read()))
for p, i in sorted(set(catalogue) - used):
    bad.append("catalogue row %s: no C file emits %s%s" % (i, p, i))
# a catalogue row's rule column names the function (in src/**/*.c: rules.c and
# its groups rules_*.c, series_rules.c, cluster.c) that emits it
rules_c = "\n".join(open(p, encoding="utf-8").read()
                    for p in sorted(glob.glob(os.path.join(src, "src", "**", "*.c"), recursive=True)))
ndef = 0
for def_name, prefix in (("findings.def", "GD_F_"), ("series_findings.def", "GD_S_"),
                         ("cluster_findings.def", "GD_C_")):
    for m in re.finditer(r'^GD_[SC]?FINDING\(\s*([a-z][a-z0-9_]*)\s*,\s*\w+\s*,\s*\w+\s*,\s*(\w+)',
                         open(os.path.join(src, "src", "diagnose", def_name), encoding="utf-8").read(), re.M):
        ndef += 1
        fn = re.search(r'^(?:static )?\w+ \*?' + m.group(2) + r'\([^)]*\)\n\{\n(.*?)^\}', rules_c, re.M | re.S)
        if not fn:
            bad.append("catalogue row %s: rule %s is not a function in src/diagnose" % (m.group(1), m.group(2)))
        elif not re.search(r'\b' + prefix + m.group(1) + r'\b', fn.group(1)):
            bad.append("catalogue row %s: rule %s does not emit %s%s" % (m.group(1), m.group(2), prefix, m.group(1)))
if ndef < 47:
    bad.append("only %d GD_FINDING/GD_SFINDING/GD_CFINDING rows with a rule column: the reader is broken" % ndef)
for path in sorted(glob.glob(os.path.join(src, "src", "**", "*.c"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    if path.endswith(os.path.join("diagnose", "fbuild.c")):
        continue   # gd_fb_add's own definition
    for m in re.finditer(r'->id\s*=\s*' + LIT, text):
        note(m.group(1), path, text, m.start())
    for m in re.finditer(r'\bgd_fb_add\(\s*\w+\s*,\s*(?:' + LIT + r'|(\w+))', text):
        nadd += 1
        if m.group(1):
            note(m.group(1), path, text, m.start())
            continue
        var = m.group(2)
        if (var == "catalogue" and re.match(r'\s*\[\s*\w+\s*\]\s*\.\s*id\b', text[m.end():])) or \
                (re.match(r'\s*->\s*id\b', text[m.end():]) and
                 re.search(r'\b' + var + r'\s*=\s*&?\s*catalogue\b', text[max(0, m.start() - 400):m.start()])):
            continue   # a catalogue wrapper: its ids are the catalogue's rows
        fns = [f for f in FN.finditer(text, 0, m.start())]
        if not fns:
            bad.append("%s: gd_fb_add(.., %s) outside a function" % (path, var)); continue
        fn = fns[-1]
        params = re.findall(r'(\w+)\s*(?:,|$)', fn.group(2).strip())
        if var in params:   # a wrapper: its callers name the id
            w = fn.group(1)
            calls = list(re.finditer(r'(?<![\w.>])' + w + r'\(\s*\w+\s*,\s*(?:' + LIT + r'|([^,]+))', text[fn.end():]))
            if not calls:
                bad.append("%s: wrapper %s() is never called" % (path, w))
            for c in calls:
                if c.group(1):
                    note(c.group(1), path, text, fn.end() + c.start())
                else:
                    bad.append("%s: %s(.., %s) - an id this test cannot read" % (path, w, c.group(2).strip()))
            continue
        body = text[fn.end():m.start()]
        lits = [l for a in re.findall(r'\b' + var + r'\s*=\s*([^;]*);', body) for l in re.findall(LIT, a)]
        if not lits:
            bad.append("%s: gd_fb_add(.., %s) - an id this test cannot read" % (path, var))
        for l in lits:
            note(l, path, text, m.start())
if nadd + len(catalogue) < 30:
    bad.append("only %d gd_fb_add calls and %d catalogue rows found in src/: the reader is broken" % (nadd, len(catalogue)))

findings_md = open(os.path.join(src, "docs", "FINDINGS.md"), encoding="utf-8").read()
doc = set(re.findall(r'^\|\s*`([a-z][a-z0-9_]*)`', findings_md, re.M))
rows = re.findall(r'^\|\s*`([a-z][a-z0-9_]*)`[^|]*\|([^|]*)\|', findings_md, re.M)
for (_, i), (ck, cbn) in sorted(catalogue.items()):
    for kind in (k.strip() for j, k in rows if j == i):
        if (ck == "CAUSE") != kind.startswith("cause"):
            bad.append("catalogue kind of %s is %s, FINDINGS.md says %r" % (i, ck, kind))
        if (ck == "NOTE") != kind.startswith("input"):
            bad.append("catalogue kind of %s is %s, FINDINGS.md says %r (NOTE is the word input)" % (i, ck, kind))
        m = re.match(r'(?:\w+\s*→\s*)?`(\w+)`', kind)
        if m and m.group(1) != cbn:
            bad.append("catalogue bottleneck of %s is %s, FINDINGS.md says %s" % (i, cbn, m.group(1)))
for i in sorted(set(code) - doc):
    bad.append("id %s (%s) is not in docs/FINDINGS.md" % (i, code[i]))
for i in sorted(doc - set(code)):
    bad.append("docs/FINDINGS.md documents %s, which no code in src/ emits" % i)

golden = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "findings" and isinstance(v, list):
                golden.update(f["id"] for f in v if isinstance(f, dict) and isinstance(f.get("id"), str))
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
gfiles = glob.glob(os.path.join(src, "tests", "golden", "*.json"))
for p in gfiles:
    try:
        walk(json.load(open(p, encoding="utf-8")))
    except ValueError:
        pass   # a golden file that holds an error message, not a report
if not golden:
    bad.append("no finding ids in %d golden JSON reports: the golden reader is broken" % len(gfiles))
for i in sorted(golden - set(code)):
    bad.append("golden reports hold id %s, which this test did not read from src/ (fix the reader)" % i)
for b in bad:
    print("FAIL:", b)
print("%d ids in code, %d in FINDINGS.md, %d in %d golden reports" % (len(code), len(doc), len(golden), len(gfiles)))
print("1 passed, 0 failed" if not bad else "0 passed, 1 failed")
sys.exit(1 if bad else 0)
PY
