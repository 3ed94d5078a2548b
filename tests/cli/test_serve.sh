#!/bin/sh
# gpudiag serve against the fake NVML library (tests/fake_nvml), scraped by
# gpudiag's own checks and by a real Prometheus server (Debian's prometheus)
# started on loopback.  Expected values come from the fake's script:
#   GPU 0 "NVIDIA H100 80GB HBM3": util 20 %, memutil 35 %, 30 GiB used of 80 GiB, 8 GiB
#     reserved, SM clock 1980 MHz, power 350.5 W, temp 61 C, PCIe rx 2048 KB/s,
#     reasons 0x4 (sw_power_cap), GPM sm_active 40 % (NaN on the first read), NVML encoder 88 %,
#     decoder NOT_SUPPORTED (absent, never 0)
#   GPU 1 "NVIDIA H100 80GB HBM3": util 90 %, GPU lost after 3 utilisation reads
# so: DCGM_FI_DEV_GPU_UTIL{gpu="0"} 20; FB_USED = 30*1024 = 30720 MiB;
# FB_FREE = (80 - 8 - 30) GiB = 43008 MiB; POWER_USAGE 350.500000;
# DCGM_FI_DEV_PCIE_RX_THROUGHPUT 2048 (KB/s, x1024 then /1024);
# DCGM_FI_DEV_ENC_UTIL 88 (%), gpudiag_encoder_utilization_ratio 0.88, no decoder series;
# compute indicator of GPU 0 = SM active (0.40 from the 2nd sample on): low share 0; not high
# (< 0.70), bandwidth = memutil 0.35 low (< 0.50), no dips, median >= 0.30 with low share < 0.10
# -> class host_launch (DEFINITIONS "Classification of a GPU in use", rule 7; the busy encoder
# makes it video_busy, but with compute median 0.40 >= 0.10 it is no video GPU: the class stays);
# gpudiag_clock_event_active{gpu="0",reason="sw_power_cap"} 1, others 0;
# after GPU 1 is lost: gpudiag_gpu_up{gpu="1"} 0 and GPU 0 still served.
set -eu
GD_TMP_TAG=serve
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if [ -z "${FAKE_NVML_FULL:-}" ] || [ ! -f "$FAKE_NVML_FULL" ]; then
    echo "skip: fake NVML library not built (FAKE_NVML_FULL unset)"; exit 77
fi

cat > "$TMP/script" <<'S'
count 2
driver 550.54.15
name 0 NVIDIA H100 80GB HBM3
name 1 NVIDIA H100 80GB HBM3
gpm 0 1
set 0 util 20
set 0 memutil 35
set 0 mem_total 85899345920
set 0 mem_used 32212254720
set 0 mem_reserved 8589934592
set 0 sm_clock 1980
set 0 power 350.5
set 0 temp 61
set 0 pcie_rx 2048
set 0 reasons 4
set 0 sm_active 40
set 0 enc_util 88
set 0 dec_util NOT_SUPPORTED
set 1 util 90
set 1 mem_total 85899345920
set 1 mem_used 1073741824
lost_after 1 3
S
export GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/script"
: > "$TMP/markers"

"$GPUDIAG" serve --listen 127.0.0.1:0 --interval 250ms --window 1m --hostname node-a \
    --markers "$TMP/markers" --flops-per-token 1e9 --peak-tflops 1000 2> "$TMP/serve.err" &
SERVE_PID=$!
PROM_PID=""
cleanup() {
    [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null || true
    kill "$SERVE_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

python3 - "$TMP" "$SERVE_PID" <<'PY'
import json, os, re, socket, subprocess, sys, time, urllib.request, urllib.error
tmp, serve_pid = sys.argv[1], int(sys.argv[2])
fails = []
def check(name, got, want):
    if got != want:
        fails.append("%s: got %r, want %r" % (name, got, want))

port = None
for _ in range(100):
    m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/metrics", open(tmp + "/serve.err").read())
    if m:
        port = int(m.group(1)); break
    time.sleep(0.05)
if not port:
    print("FAIL: no 'listening on' line:", open(tmp + "/serve.err").read()); sys.exit(1)
base = "http://127.0.0.1:%d" % port

def get(path, headers=None, method="GET", data=None):
    req = urllib.request.Request(base + path, headers=headers or {}, method=method, data=data)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()

def series(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = re.match(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})? (\S+)$', line)
        if not m:
            fails.append("bad exposition line: %r" % line); continue
        labels = dict(re.findall(r'([A-Za-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return out
def val(s, fam, **want):
    for labels, v in s.get(fam, []):
        if all(labels.get(k) == w for k, w in want.items()):
            return v
    return None

# step markers with the job's own end-of-step times (written after the start: only new lines
# count): 3 steps 1 s apart, 4096 tokens each: 8192 tokens after the first in 2 s = 4096
# tokens/s; MFU = 4096 x 1e9 / (2 GPUs x 1000e12) = 0.002048
t0 = time.time() - 3
with open(tmp + "/markers", "a") as f:
    for k in (1, 2, 3):
        f.write("step %d tokens 4096 time %.3f\n" % (k, t0 + k - 1))
    f.write("step 4 tokens 4096 time %.3f\n" % (t0 - 3600))   # older than the window: dropped
time.sleep(1.2)   # a few rounds: GPM needs two reads at least 100 ms apart

st, ctype, body = get("/metrics")
check("metrics status", st, 200)
check("metrics type", ctype, "text/plain; version=0.0.4; charset=utf-8")
s = series(body)
# gpudiag's names, the default (units in the names, ratios 0..1): util 20 % -> 0.2, memutil 35 %
# -> 0.35, used 30 GiB = 32212254720 B, free (80 - 8 - 30) GiB = 45097156608 B, SM clock 1980 MHz
# = 1.98e9 Hz, PCIe rx 2048 KB/s = 2097152 B/s; no DCGM_FI_* series at all
check("gpu util 0", val(s, "gpudiag_gpu_utilization_ratio", gpu="0"), 0.2)
check("mem ctrl util 0", val(s, "gpudiag_memory_controller_utilization_ratio", gpu="0"), 0.35)
check("mem used", val(s, "gpudiag_memory_used_bytes", gpu="0"), 32212254720.0)
check("mem free", val(s, "gpudiag_memory_free_bytes", gpu="0"), 45097156608.0)
check("sm clock", val(s, "gpudiag_sm_clock_hertz", gpu="0"), 1980e6)
check("power", val(s, "gpudiag_power_watts", gpu="0"), 350.5)
check("temp", val(s, "gpudiag_temperature_celsius", gpu="0"), 61.0)
check("pcie rx", val(s, "gpudiag_pcie_rx_bytes_per_second", gpu="0"), 2097152.0)
check("sm active", val(s, "gpudiag_sm_active_ratio", gpu="0"), 0.4)
check("tensor absent (never set)", val(s, "gpudiag_tensor_active_ratio", gpu="0"), None)
check("encoder", val(s, "gpudiag_encoder_utilization_ratio", gpu="0"), 0.88)
check("decoder absent (NOT_SUPPORTED)", val(s, "gpudiag_decoder_utilization_ratio", gpu="0"), None)
check("encoder absent on GPU 1 (never set)", val(s, "gpudiag_encoder_utilization_ratio", gpu="1"), None)
check("no DCGM_FI_ names by default", [k for k in s if k.startswith("DCGM_FI_")], [])
version = subprocess.run([os.environ["GPUDIAG"], "--version"], capture_output=True, text=True).stdout.split()[-1]
check("build info", val(s, "gpudiag_build_info", version=version), 1.0)
check("low util share 0", val(s, "gpudiag_low_utilization_share", gpu="0"), 0.0)
check("bottleneck 0", val(s, "gpudiag_bottleneck", gpu="0", bottleneck="host_launch"), 1.0)
check("bottleneck 0 others", sum(v for l, v in s.get("gpudiag_bottleneck", []) if l.get("gpu") == "0"), 1.0)
check("sw_power_cap", val(s, "gpudiag_clock_event_active", gpu="0", reason="sw_power_cap"), 1.0)
check("hw_slowdown", val(s, "gpudiag_clock_event_active", gpu="0", reason="hw_slowdown"), 0.0)
labels = s["gpudiag_gpu_utilization_ratio"][0][0]
check("labels", sorted(labels), sorted(["gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"]))
check("modelName", labels.get("modelName"), "NVIDIA H100 80GB HBM3")
check("Hostname", labels.get("Hostname"), "node-a")
check("device", labels.get("device"), "nvidia0")
# GPU 1 was lost after 3 reads: only gpudiag_gpu_up 0 remains for it
check("gpu 1 up", val(s, "gpudiag_gpu_up", gpu="1"), 0.0)
check("gpu 0 up", val(s, "gpudiag_gpu_up", gpu="0"), 1.0)
check("gpu 1 util gone", val(s, "gpudiag_gpu_utilization_ratio", gpu="1"), None)
check("mfu", val(s, "gpudiag_mfu", gpu="0"), 0.002048)

st, ctype, body = get("/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
check("openmetrics type", ctype, "application/openmetrics-text; version=1.0.0; charset=utf-8")
check("openmetrics EOF", body.endswith("# EOF\n"), True)
check("openmetrics counter family", "# TYPE gpudiag_samples counter" in body, True)

st, _, body = get("/healthz"); check("healthz", (st, body.strip()), (200, "ok"))
st, _, body = get("/report"); check("report status", st, 200)
rep = json.loads(body)
check("report schema", rep["schema"], "gpudiag.report/1")
check("report gpus", len(rep["series"]["gpus"]), 2)
check("report gpu 0 class", rep["series"]["gpus"][0]["bottleneck"], "host_launch")
check("report gpu 0 video_busy", rep["series"]["gpus"][0]["video_busy"], True)
check("report gpu 1 samples (lost after 3 reads)", rep["series"]["gpus"][1]["samples"], 3)
st, _, _ = get("/nope"); check("404", st, 404)
st, _, _ = get("/metrics", method="POST", data=b"x" * 10); check("POST", st, 405)
# oversized request header: rejected, server survives
try:
    s2 = socket.create_connection(("127.0.0.1", port), timeout=5)
    s2.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
    resp = s2.recv(100).decode(errors="replace"); s2.close()
    if not re.match(r"HTTP/1\.[01] 4\d\d", resp):
        fails.append("oversized header: got %r" % resp[:40])
except OSError:
    pass  # connection closed on us: also a refusal
# a client that connects and says nothing must not stall the others
idle = socket.create_connection(("127.0.0.1", port), timeout=5)
t0 = time.time(); st, _, _ = get("/healthz"); check("scrape beside an idle client", st, 200)
if time.time() - t0 > 1: fails.append("scrape stalled by an idle client")
idle.close()

# Prometheus on loopback scrapes the exporter; check series arrive with labels and values.
prom = subprocess.run(["sh", "-c", "command -v prometheus"], capture_output=True, text=True).stdout.strip()
if not prom:
    print("note: prometheus not installed, the Prometheus scrape part is skipped")
else:
    sk = socket.socket(); sk.bind(("127.0.0.1", 0)); pport = sk.getsockname()[1]; sk.close()
    open(tmp + "/prom.yml", "w").write(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: gpudiag\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % port)
    p = subprocess.Popen([prom, "--config.file=" + tmp + "/prom.yml", "--storage.tsdb.path=" + tmp + "/tsdb",
                          "--web.listen-address=127.0.0.1:%d" % pport], stdout=subprocess.DEVNULL,
                         stderr=open(tmp + "/prom.err", "w"))
    open(tmp + "/prom.pid", "w").write(str(p.pid))
    got = None
    q = urllib.parse.quote('gpudiag_gpu_utilization_ratio{job="gpudiag"}')
    for _ in range(60):
        time.sleep(0.5)
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/api/v1/query?query=%s" % (pport, q), timeout=5) as r:
                res = json.load(r)["data"]["result"]
            if res:
                got = res; break
        except (OSError, ValueError, KeyError):
            pass
    if not got:
        fails.append("Prometheus never stored gpudiag_gpu_utilization_ratio: " + open(tmp + "/prom.err").read()[-500:])
    else:
        m = got[0]["metric"]
        check("prom gpu label", m.get("gpu"), "0")
        check("prom modelName", m.get("modelName"), "NVIDIA H100 80GB HBM3")
        check("prom Hostname", m.get("Hostname"), "node-a")
        check("prom value", float(got[0]["value"][1]), 0.2)
        q2 = urllib.parse.quote('gpudiag_bottleneck{gpu="0",bottleneck="host_launch"}')
        with urllib.request.urlopen("http://127.0.0.1:%d/api/v1/query?query=%s" % (pport, q2), timeout=5) as r:
            res = json.load(r)["data"]["result"]
        check("prom bottleneck", [float(x["value"][1]) for x in res], [1.0])
        q3 = urllib.parse.quote('up{job="gpudiag"}')
        with urllib.request.urlopen("http://127.0.0.1:%d/api/v1/query?query=%s" % (pport, q3), timeout=5) as r:
            res = json.load(r)["data"]["result"]
        check("prom target up", [float(x["value"][1]) for x in res], [1.0])
    p.terminate(); p.wait(10)

# SIGTERM: clean exit 0 within 2 s
os.kill(serve_pid, 15)
for _ in range(60):
    if "SIGTERM, shutting down" in open(tmp + "/serve.err").read():
        break
    time.sleep(0.05)
if "SIGTERM, shutting down" not in open(tmp + "/serve.err").read():
    fails.append("no shutdown message after SIGTERM")
for f in fails:
    print("FAIL:", f)
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
PY
wait "$SERVE_PID" && rc=0 || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: serve exited $rc after SIGTERM"; exit 1; }

# --metric-names dcgm: dcgm-exporter's names and units for the same readings (util 20 %, used
# 30 GiB = 30720 MiB, free 42 GiB = 43008 MiB, SM clock 1980 MHz, PCIe rx 2048 KB/s, encoder 88 %), the
# gpudiag_* verdict series kept, no gpudiag_* copy of a reading
"$GPUDIAG" serve --listen 127.0.0.1:0 --interval 250ms --metric-names dcgm --run-for 3s 2> "$TMP/dcgm.err" &
DCGM_PID=$!
python3 - "$TMP" <<'PY' || { kill "$DCGM_PID" 2>/dev/null; exit 1; }
import re, sys, time, urllib.request
tmp = sys.argv[1]
port = None
for _ in range(100):
    m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/metrics", open(tmp + "/dcgm.err").read())
    if m:
        port = int(m.group(1)); break
    time.sleep(0.05)
if not port:
    print("FAIL: dcgm names: no 'listening on' line"); sys.exit(1)
time.sleep(0.8)
body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5).read().decode()
def val(name):
    m = re.search(r'^%s\{gpu="0",[^}]*\} (\S+)$' % name, body, re.M)
    return float(m.group(1)) if m else None
want = {"DCGM_FI_DEV_GPU_UTIL": 20.0, "DCGM_FI_DEV_FB_USED": 30720.0, "DCGM_FI_DEV_FB_FREE": 43008.0,
        "DCGM_FI_DEV_SM_CLOCK": 1980.0, "DCGM_FI_DEV_POWER_USAGE": 350.5,
        "DCGM_FI_DEV_PCIE_RX_THROUGHPUT": 2048.0, "gpudiag_gpu_up": 1.0, "gpudiag_gpu_utilization_ratio": None,
        "DCGM_FI_DEV_ENC_UTIL": 88.0, "DCGM_FI_DEV_DEC_UTIL": None, "gpudiag_encoder_utilization_ratio": None}
fails = ["%s: got %r, want %r" % (k, val(k), w) for k, w in want.items() if val(k) != w]
for f in fails:
    print("FAIL: dcgm names:", f)
sys.exit(1 if fails else 0)
PY
wait "$DCGM_PID" || { echo "FAIL: serve --metric-names dcgm did not stop cleanly"; exit 1; }

# no NVML library: exit 4 naming what was looked for
rc=0; GPUDIAG_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$GPUDIAG" serve --listen 127.0.0.1:0 2> "$TMP/nolib.err" || rc=$?
[ "$rc" -eq 4 ] || { echo "FAIL: no library: exit $rc, want 4"; cat "$TMP/nolib.err"; exit 1; }
grep -q "libnvidia-ml" "$TMP/nolib.err" || { echo "FAIL: message does not name the library"; cat "$TMP/nolib.err"; exit 1; }
# bad --listen: usage error
rc=0; "$GPUDIAG" serve --listen nonsense 2> "$TMP/bad.err" || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: bad --listen: exit $rc, want 2"; exit 1; }
echo "serve: all checks passed"
