#!/usr/bin/env python3
"""htmlcheck.py PAGE [EXPECT_TEXT...] | --pages PAGE... — check that a gpudiag HTML page is
static, self-contained and well nested, independently of gpudiag's code:
  - only an allow-list of HTML/SVG elements appears (no script, img, iframe,
    object, link, ...); no on* event attribute; no src/href attribute; no
    url() other than a local #fragment; no http(s) address except the SVG
    namespace;
  - every element that is opened is closed in order (a stray </svg> or
    </title> from an input string would break this);
  - every chart <svg class="chart"> has a <title> and a <desc> and a
    non-empty viewBox;
  - each EXPECT_TEXT occurs verbatim in the page's text (so hostile input
    names are shown, as text).
Prints what failed; exit 1 on any failure."""
import re
import sys
from html.parser import HTMLParser

ALLOWED = set("""html head meta title style body header main footer section h1 h2 h3 p ul ol li
strong em code span div dl dt dd table tr th td details summary figure figcaption br small
svg defs pattern rect path circle line text g desc""".split())
VOID = {"meta", "br"}
SVG_SELF_CLOSING_OK = {"rect", "path", "circle", "line"}


class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text = [], [], []
        self.charts = []  # [viewBox, has_title, has_desc]

    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs, selfclosing=False)

    def handle_startendtag(self, tag, attrs):
        self._open(tag, attrs, selfclosing=True)

    def _open(self, tag, attrs, selfclosing):
        if tag not in ALLOWED:
            self.errors.append("element not allowed: <%s>" % tag)
        for k, v in attrs:
            if k.startswith("on"):
                self.errors.append("event attribute %s on <%s>" % (k, tag))
            if k in ("src", "href", "xlink:href", "srcset", "action"):
                self.errors.append("attribute %s on <%s>" % (k, tag))
            v = v or ""
            for u in re.findall(r"url\(([^)]*)\)", v):
                if not u.startswith("#"):
                    self.errors.append("non-local url(%s)" % u)
            if re.search(r"https?://", v) and not (k == "xmlns" and v == "http://www.w3.org/2000/svg"):
                self.errors.append("address in %s=%r" % (k, v))
        if tag == "svg" and ("class", "chart") in attrs:
            self.charts.append([dict(attrs).get("viewbox", ""), False, False])
        if tag in ("title", "desc") and self.stack and self.stack[-1] == "svg" and self.charts:
            self.charts[-1][1 if tag == "title" else 2] = True
        if tag in VOID or (selfclosing and tag in SVG_SELF_CLOSING_OK | {"stop"}):
            return
        if selfclosing:
            self.errors.append("self-closed <%s/>" % tag)
            return
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def main():
    if sys.argv[1] == "--pages":  # several pages, each checked without expected texts
        rc = 0
        for p in sys.argv[2:]:
            rc |= check(p, ["--no-charts"])
        sys.exit(rc)
    sys.exit(check(sys.argv[1], sys.argv[2:]))


def check(path, wants):
    page = open(path, encoding="utf-8").read()
    c = Check()
    c.feed(page)
    c.close()
    errs = list(c.errors)
    if c.stack:
        errs.append("left open: %s" % c.stack)
    if re.search(r"<\s*script", page, re.I):
        errs.append("a <script appears in the raw page")
    if not c.charts and "--no-charts" not in wants:
        errs.append("no chart")
    for vb, t, d in c.charts:
        nums = vb.split()
        if len(nums) != 4 or float(nums[2]) <= 0 or float(nums[3]) <= 0:
            errs.append("chart with empty viewBox %r" % vb)
        if not (t and d):
            errs.append("chart without <title>/<desc> (viewBox %r)" % vb)
    text = "".join(c.text)
    for want in wants:
        if want.startswith("--"):
            continue
        if want not in text:
            errs.append("text not shown: %r" % want)
    for e in errs[:20]:
        print("FAIL %s: %s" % (path, e))
    return 1 if errs else 0


main()
