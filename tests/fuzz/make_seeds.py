#!/usr/bin/env python3
"""make_seeds.py KIND OUTDIR SRC_DIR SHARED_DIR — write the seed inputs of one
kind of fuzz target into OUTDIR (created).  Kinds:
  kineto  tests/data/*.json and tests/data/hostile/* as they are; from each
          real trace in SHARED_DIR/data/traces a small valid trace (its
          metadata, then events of every category up to ~48 KB, one per line)
          and its raw first 32 KB (a cut trace, Kineto's own formatting); one
          gzip seed.
  gzip    gzip of a few tests/data files (one with two members), the first
          16 KB of two real .gz files (cut streams), one plain file.
  ncu     tests/data/ncu/*.csv (Nsight Compute CSVs, hand-made), one with CRLF line ends,
          one after a ==PROF== line.
  cli     option values: in range, out of range, signs, blanks, overflow.
  monlog  every log of tests/data/monlog and SHARED_DIR/data/logs, each once
          behind byte 0 (auto-detect) and once behind its own format's byte
          (fuzz_monlog.c: 1 dmon, 2 --query-gpu CSV, 3 dcgmi, 4 prom, 5 -q),
          cut to 24 KB; one gzip seed.
  nsys    byte 1 then SQL (fuzz_nsys.c's SQL mode): the two exports that
          tests/cli/test_nsys.sh builds, and a cut-down dump of the real
          CloverLeaf export (the tables the reader reads, 10 rows each);
          byte 0 then a database file: the same three built with 512-byte
          pages, a file cut inside its header, one cut short of its pages.
  serve   HTTP requests for fuzz_serve.c (flags byte, then method, URL,
          Accept, Content-Length, Transfer-Encoding, one a line): every
          endpoint, OpenMetrics Accept, HEAD, POST, a body, %-escapes, a query.
  saved   the saved reports of tests/fuzz/corpus/saved (analyze --json of
          four tests/data traces, a dmon log and a two-rank directory, cut
          down to the fields the reader reads), a BOM, a cluster without
          reports, a wrong schema, a per-rank summary (compare reads one as a side).
  summary the per-rank summaries of tests/fuzz/corpus/summary (analyze --summary of
          two gen_ranks.py ranks of ok_nccl_overlap and of ok_two_steps, reports
          cut to a few fields), another version, a report, a cut one.
Seeds stay small so that a short run spends its time mutating, not loading."""
import glob, gzip, json, os, sys

kind, out, src, shared = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
data = os.path.join(src, "tests", "data")
traces = sorted(glob.glob(os.path.join(shared, "data", "traces", "*.json.gz")))
n = 0


def put(name, blob):
    global n
    n += 1
    with open(os.path.join(out, "%03d_%s" % (n, name)), "wb") as f:
        f.write(blob)


def small_trace(raw):
    doc = json.loads(raw)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    per_cat, picked, size = {}, [], 0
    for ev in events:                       # events of every category, in file order
        cat = ev.get("cat", "") if isinstance(ev, dict) else ""
        if per_cat.get(cat, 0) >= 40:
            continue
        line = json.dumps(ev, separators=(",", ":"))
        if size + len(line) > 48000:
            break
        per_cat[cat] = per_cat.get(cat, 0) + 1
        picked.append(line)
        size += len(line) + 2
    head = {k: v for k, v in doc.items() if k != "traceEvents"} if isinstance(doc, dict) else {}
    text = json.dumps(head)[:-1] + (", " if head else "") + '"traceEvents": [\n' + ",\n".join(picked) + "\n]}\n"
    return text.encode()


if kind == "kineto":
    for p in sorted(glob.glob(os.path.join(data, "*.json")) + glob.glob(os.path.join(data, "hostile", "*"))):
        if os.path.isfile(p) and os.path.getsize(p) <= 65536:
            put(os.path.basename(p), open(p, "rb").read())
    for p in traces:
        raw = gzip.decompress(open(p, "rb").read())
        base = os.path.basename(p)[:-3]
        put("small_" + base, small_trace(raw))
        put("head_" + base, raw[:32768])
    put("two_steps.json.gz", gzip.compress(open(os.path.join(data, "ok_two_steps.json"), "rb").read(), 9))
elif kind == "gzip":
    for name in ("ok_two_steps.json", "ok_kernel_mix.json"):
        blob = open(os.path.join(data, name), "rb").read()
        put(name + ".gz", gzip.compress(blob, 6))
        put(name, blob)
    a = open(os.path.join(data, "ok_transfers.json"), "rb").read()
    put("two_members.gz", gzip.compress(a[:900], 1) + gzip.compress(a[900:], 9))
    put("empty.gz", gzip.compress(b""))
    for p in traces[:2]:
        put("cut_" + os.path.basename(p), open(p, "rb").read()[:16384])
elif kind == "ncu":
    for p in sorted(glob.glob(os.path.join(data, "ncu", "*.csv"))):
        put(os.path.basename(p), open(p, "rb").read())
    put("crlf.csv", open(os.path.join(data, "ncu", "roofline_h100.csv"), "rb").read().replace(b"\n", b"\r\n"))
    put("prof.csv", b"==PROF== Connected to process 1\n" + open(os.path.join(data, "ncu", "roofline_h100.csv"), "rb").read())
elif kind == "cli":
    for v in (b"\x00100", b"\x0040", b"\x001000", b"\x001001", b"\x01+8", b"\x01-1", b"\x02 5",
              b"\x029223372036854775807", b"\x039223372036854775808", b"\x03-9223372036854775808",
              b"\x040x10", b"\x04", b"\x00medium", b"\x00high", b"\x0012abc",
              b"\x00500ms", b"\x002s", b"\x000.5", b"\x001m", b"\x001min", b"\x017B", b"\x0170k", b"\x011.5T",
              b"\x02inf", b"\x03nan", b"\x031e308", b"\x020x1p4"):
        put("opt", v)
elif kind == "monlog":
    def fmt_of(name):
        n = name.lower()
        if n.startswith("amdsmi"):
            return 6
        if "dcgmi" in n:
            return 3
        if n.endswith(".prom"):
            return 4
        if "nvsmi_q" in n or "nvsmi_a" in n:
            return 5
        if "dmon" in n:
            return 1
        if n.endswith(".csv"):
            return 2
        return 0
    logs = sorted(glob.glob(os.path.join(data, "monlog", "*")) + glob.glob(os.path.join(shared, "data", "logs", "*")))
    for p in logs:
        if not os.path.isfile(p) or p.endswith(".md"):
            continue
        blob = open(p, "rb").read()[:24576]
        base = os.path.basename(p)
        put("auto_" + base, b"\x00" + blob)
        if fmt_of(base):
            put("fmt_" + base, bytes([fmt_of(base)]) + blob)
    put("dmon.log.gz", b"\x00" + gzip.compress(open(os.path.join(data, "monlog", "dmon_columns_change.log"), "rb").read()))
elif kind == "nsys":
    import re, sqlite3
    script = open(os.path.join(src, "tests", "cli", "test_nsys.sh")).read()
    sqls = [b.encode() for b in re.findall(r"<<'SQL'\n(.*?)\nSQL\n", script, re.S)]
    real = os.path.join(shared, "data", "nsys", "cloverleaf_cuda_a100.sqlite")
    if os.path.isfile(real):
        x = sqlite3.connect("file:%s?mode=ro" % real, uri=True)
        keep = ("StringIds", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "META_DATA_EXPORT",
                "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_GPU", "CUPTI_ACTIVITY_KIND_KERNEL",
                "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
                "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "PROFILER_OVERHEAD")
        m = sqlite3.connect(":memory:")
        ids = set()
        for t in keep[1:] + keep[:1]:
            row = x.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (t,)).fetchone()
            if not row:
                continue
            m.execute(row[0])
            cols = [c[1] for c in x.execute("PRAGMA table_info(%s)" % t)]
            if t == "StringIds":
                rows = [r for r in x.execute("SELECT * FROM StringIds") if r[0] in ids]
            else:
                rows = x.execute("SELECT * FROM %s LIMIT 10" % t).fetchall()
                for r in rows:
                    for c, v in zip(cols, r):
                        if c in ("nameId", "shortName", "demangledName", "mangledName", "textId") and isinstance(v, int):
                            ids.add(v)
            if rows:
                m.executemany("INSERT INTO %s VALUES (%s)" % (t, ",".join("?" * len(rows[0]))), rows)
        m.commit()
        sqls.append("\n".join(m.iterdump()).encode())
    for k, q in enumerate(sqls):
        put("sql_%d.sql" % k, b"\x01" + q)
        db = sqlite3.connect(":memory:")
        db.execute("PRAGMA page_size = 512")
        try:
            db.executescript(q.decode())
        except sqlite3.Error:
            continue
        tmp = os.path.join(out, "tmp.sqlite")
        if os.path.exists(tmp):
            os.remove(tmp)
        db.execute("VACUUM INTO ?", (tmp,))
        blob = open(tmp, "rb").read()
        os.remove(tmp)
        if len(blob) <= 65535:
            put("db_%d.sqlite" % k, b"\x00" + blob)
            if k == 0:
                put("db_cut_header.sqlite", b"\x00" + blob[:60])
                put("db_cut_pages.sqlite", b"\x00" + blob[: len(blob) // 2])
elif kind == "serve":
    reqs = [(0, "GET", "/metrics", "", "", ""), (1, "GET", "/metrics", "application/openmetrics-text; version=1.0.0", "", ""),
            (8, "GET", "/report", "", "", ""), (8, "GET", "/healthz", "", "", ""), (0, "GET", "/healthz", "", "", ""),
            (8, "HEAD", "/", "", "", ""), (2, "POST", "/metrics", "", "12", ""), (4, "GET", "/metrics", "", "", "chunked"),
            (2, "GET", "/report", "", "0", ""), (24, "GET", "/%6detrics?x=1&y", "", "", ""),
            (0, "GET", "/metrics?name[]=DCGM_FI_DEV_GPU_UTIL", "", "", ""), (0, "GET", "/nope/<script>", "", "", ""),
            (0, "DELETE", "/", "", "", ""), (0, "GET", "%2e%2e/%00", "", "", "")]
    for f, *rest in reqs:
        put("req", bytes([f]) + "\n".join(rest).encode())
elif kind == "saved":
    for p in sorted(glob.glob(os.path.join(src, "tests", "fuzz", "corpus", "saved", "*"))):
        put(os.path.basename(p), open(p, "rb").read())
    two = open(os.path.join(src, "tests", "fuzz", "corpus", "saved", "report_ok_two_steps.json"), "rb").read()
    put("bom.json", b"\xef\xbb\xbf" + two)
    put("cluster_empty.json", b'{"schema":"gpudiag.cluster/1","reports":[]}')
    put("wrong_schema.json", b'{"schema":"gpudiag.compare/1","steps":[]}')
    put("summary.json", open(os.path.join(src, "tests", "fuzz", "corpus", "summary", "two_ranks.json"), "rb").read())
elif kind == "summary":
    for p in sorted(glob.glob(os.path.join(src, "tests", "fuzz", "corpus", "summary", "*"))):
        put(os.path.basename(p), open(p, "rb").read())
    two = open(os.path.join(src, "tests", "fuzz", "corpus", "summary", "two_ranks.json"), "rb").read()
    put("other_version.json", two.replace(b'"version":"', b'"version":"9', 1))
    put("cut.json", two[: len(two) // 2])
    put("report.json", b'{"schema":"gpudiag.report/1","steps":[]}')
    put("no_rank.json", b'{"schema":"gpudiag.summary/1","ranks":[]}')
else:
    sys.exit("unknown kind " + kind)
print("%d seeds in %s" % (n, out))
