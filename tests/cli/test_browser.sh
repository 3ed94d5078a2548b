#!/bin/sh
# test_browser.sh — the HTML report in a real browser (headless Chromium).
# For the real ResNet-50 trace, an 8-GPU-stream NCCL trace and the hostile-name
# trace (tests/data/ok_hostile_names.json):
#  1. the page as written, screenshot: pngcheck.py decodes the PNG and wants
#     >= 20 colours and >= 2% of pixels off the background (a blank or error
#     page fails);
#  2. a copy with a probe script added first in <head> (its CSP widened only to
#     run that inline script; every other source stays forbidden), --dump-dom:
#     the probe records load errors and CSP violations (any attempt to fetch
#     anything) and writes the size of each chart <svg> into the DOM. Checked:
#     no error, no violation, >= 4 charts each wider than 300 px and taller
#     than 20 px, one <script> (the probe) and no <img> in the DOM (the hostile
#     names stayed text).
# Skipped (exit 77) when no Chromium is installed (Debian: apt-get install chromium).
set -u
GD_TMP_TAG=browser
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
BROWSER=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then BROWSER=$b; break; fi
done
if [ -z "$BROWSER" ]; then
    echo "skip: no chromium found (Debian: apt-get install chromium; scripts/bootstrap.sh installs it)"
    exit 77
fi
# headless, no sandbox (CI runs as root), no GPU, a private profile; stderr noise (dbus) discarded
chrome() {
    timeout 180 "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$TMP/profile" --window-size=1100,2400 "$@" 2>"$TMP/chrome.err"
}

PROBE='<script>var gdErr=[];window.addEventListener("error",function(e){gdErr.push("error "+(e.message||(e.target&&(e.target.src||e.target.href))||"?"))},true);document.addEventListener("securitypolicyviolation",function(e){gdErr.push("csp "+e.violatedDirective+" "+e.blockedURI)});window.addEventListener("load",function(){var c=[];document.querySelectorAll("svg.chart").forEach(function(s){var r=s.getBoundingClientRect();c.push([Math.round(r.width),Math.round(r.height)])});var p=document.createElement("pre");p.id="gdprobe";p.textContent="GDPROBE"+JSON.stringify({charts:c,errors:gdErr,scripts:document.scripts.length,imgs:document.images.length})+"GDPROBE";document.body.appendChild(p)});</script>'

run_page() { # NAME INPUT [MIN_CHARTS, default 4]
    name=$1
    min_charts=${3:-4}
    if ! "$GPUDIAG" analyze -q --html "$TMP/$name.html" "$2" >/dev/null 2>&1; then nok "$name: gpudiag exit $?"; return; fi
    (cd "$TMP" && chrome --screenshot="$TMP/$name.png" "file://$TMP/$name.html" >/dev/null)
    if [ -s "$TMP/$name.png" ] && python3 "$HERE/pngcheck.py" "$TMP/$name.png" 20; then ok
    else nok "$name: screenshot blank or missing ($(tail -c 300 "$TMP/chrome.err"))"; fi
    python3 - "$TMP/$name.html" "$TMP/${name}_probe.html" "$PROBE" <<'PYEOF'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
csp = "default-src 'none'; style-src 'unsafe-inline'"
assert page.count(csp) == 1, "CSP meta not found"
page = page.replace(csp, csp + "; script-src 'unsafe-inline'", 1)
page = page.replace("<head>", "<head>" + sys.argv[3], 1)
open(sys.argv[2], "w", encoding="utf-8").write(page)
PYEOF
    chrome --virtual-time-budget=5000 --dump-dom "file://$TMP/${name}_probe.html" > "$TMP/$name.dom"
    if python3 - "$TMP/$name.dom" "$min_charts" <<'PYEOF'
import json, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
parts = dom.split("GDPROBE")
if len(parts) < 3:
    print("probe result missing from the DOM (%d bytes dumped)" % len(dom)); sys.exit(1)
r = json.loads(parts[-2].replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
bad = []
if r["errors"]: bad.append("errors: %r" % r["errors"])
if len(r["charts"]) < int(sys.argv[2]): bad.append("charts: %r" % r["charts"])
if any(w <= 300 or h <= 20 for w, h in r["charts"]): bad.append("chart sizes %r" % r["charts"])
if r["scripts"] != 1 or r["imgs"] != 0: bad.append("scripts %d, imgs %d" % (r["scripts"], r["imgs"]))
print("charts %r" % r["charts"])
for b in bad: print("FAIL", b)
sys.exit(1 if bad else 0)
PYEOF
    then ok; else nok "$name: DOM probe"; fi
}

run_page hostile "$GD_TEST_DATA/ok_hostile_names.json"
for f in resnet50_v100_num_workers_0.pt.trace.json.gz; do
    [ -f "$GD_SHARED/data/traces/$f" ] && run_page "${f%%.*}" "$GD_SHARED/data/traces/$f"
done
# a monitoring log (generated: 2 GPUs, one with periodic dips): one chart per GPU
python3 "$GD_SRC/bench/gen_monlog.py" --lines 4000 --gpus 2 >"$TMP/gen_monlog.log" && run_page monlog "$TMP/gen_monlog.log" 2
finish
