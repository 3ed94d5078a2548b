#!/bin/sh
# test_exit_codes.sh — the one exit-code list (src/util/exit_codes.h) agrees
# with what users read: `gpudiag --help` (`gpudiag run --help` for the run-only
# codes 125-127), README.md's "Exit status:" paragraph and docs/gpudiag.1's
# EXIT STATUS section.  Each code of the list must be named in each document
# with its phrase (case-insensitive, within 100 characters after the number),
# and no document may list a code the list lacks; every subcommand's --help
# "Exit status:" paragraph may list only codes of the list.
. "$(dirname "$0")/common.sh"
fails=0
"$GPUDIAG" --help > "$TMP/help" 2>&1 || { echo "FAIL: gpudiag --help exited $?"; fails=$((fails + 1)); }
for c in analyze compare specs mfu plan watch serve run; do
    "$GPUDIAG" "$c" --help > "$TMP/help_$c" 2>&1 || { echo "FAIL: gpudiag $c --help exited $?"; fails=$((fails + 1)); }
done
python3 - "$GD_SRC/src/util/exit_codes.h" "$GD_SRC/README.md" "$GD_SRC/docs/gpudiag.1" "$TMP" <<'PY' || fails=$((fails + 1))
import os, re, sys
hdr, readme, man, tmp = sys.argv[1:5]
rows = re.findall(r'^\s*X\((\w+),\s*(\d+),\s*"([^"]*)"\)', open(hdr).read(), re.M)
codes = {int(v): (n, p) for n, v, p in rows}
bad = []
if len(rows) < 10 or len(codes) != len(rows):
    bad.append("exit_codes.h: %d rows, %d distinct values (want >= 10, all distinct)" % (len(rows), len(codes)))
if len({n for n, _, _ in rows}) != len(rows):
    bad.append("exit_codes.h: a name is used twice")

def norm(s):  # roff and markdown markup out, one line, lower case
    s = re.sub(r'\\f[BIRP]', '', s).replace('\\-', '-').replace('\\', '').replace('`', '')
    return re.sub(r'\s+', ' ', s).lower()

def paragraph(text, start):  # from "Exit status:" to the next blank line
    i = text.find(start)
    if i < 0:
        return None
    j = text.find('\n\n', i)
    return norm(text[i:j if j >= 0 else len(text)])

def listed(par):  # codes a paragraph lists: "Exit status: N ..." and "; N ..."
    return {int(m) for m in re.findall(r'(?:exit status: |; )(\d+) ', par)}

def named(doc, par, code, phrase):
    for m in re.finditer(r'(?<![\d.])%d(?![\d.])' % code, par):
        if phrase.lower() in par[m.end():m.end() + 100]:
            return True
    bad.append("%s: exit %d is not named '%s'" % (doc, code, phrase))
    return False

docs = {}
help_main = paragraph(open(os.path.join(tmp, 'help')).read(), 'Exit status:')
readme_par = paragraph(open(readme).read(), 'Exit status:')
mantext = open(man).read()
m = re.search(r'^\.SH EXIT STATUS\n(.*?)^\.SH ', mantext, re.M | re.S)
man_par = norm(m.group(1)) if m else None
man_listed = set()
if m:
    for line in re.findall(r'^\.B (.*)$', m.group(1), re.M):
        man_listed |= {int(x) for x in re.findall(r'\d+', line)}
run_par = paragraph(open(os.path.join(tmp, 'help_run')).read(), 'Exit status:')
for doc, par in [("gpudiag --help", help_main), ("README.md", readme_par), ("gpudiag.1", man_par),
                 ("gpudiag run --help", run_par)]:
    if par is None:
        bad.append("%s: no exit status paragraph found" % doc)
if not bad:
    for code, (name, phrase) in sorted(codes.items()):
        run_only = name.startswith("RUN_")
        for doc, par in [("gpudiag --help", help_main), ("README.md", readme_par), ("gpudiag.1", man_par)]:
            if run_only and doc == "gpudiag --help":
                doc, par = "gpudiag run --help", run_par
            named(doc, par, code, phrase)
    for doc, got in [("gpudiag --help", listed(help_main)), ("README.md", listed(readme_par)),
                     ("gpudiag.1", man_listed)]:
        extra = got - set(codes)
        if extra:
            bad.append("%s lists exit codes %s that exit_codes.h lacks" % (doc, sorted(extra)))
    if man_listed != set(codes):
        bad.append("gpudiag.1 EXIT STATUS lists %s, exit_codes.h has %s" % (sorted(man_listed), sorted(codes)))
    for c in "analyze compare specs mfu plan watch serve run".split():
        par = paragraph(open(os.path.join(tmp, 'help_' + c)).read(), 'Exit status:')
        if par is None:
            bad.append("gpudiag %s --help: no 'Exit status:' paragraph" % c)
            continue
        extra = listed(par) - set(codes)
        if extra:
            bad.append("gpudiag %s --help lists exit codes %s that exit_codes.h lacks" % (c, sorted(extra)))
for b in bad:
    print("FAIL:", b)
print("%d codes checked in %d documents" % (len(codes), 4))
sys.exit(1 if bad else 0)
PY
if [ "$fails" -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, $fails failed"; fi
[ "$fails" -eq 0 ]
