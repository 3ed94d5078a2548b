#!/usr/bin/env python3
"""Independent oracle for the PyTorch TensorBoard profiler plugin (TBP, torch_tb_profiler).

Reads one Kineto trace (.json or .json.gz) and prints a JSON object whose numbers are
computed the way TBP computes them (last plugin version before it was removed from
pytorch/kineto).  Standard library only.  See README.md next to this file for the
definitions, the TBP file/function each one follows, and TBP's surprising behaviours.

This is a reimplementation from reading the plugin, not a copy of it.  Every place where
the plugin's behaviour is odd is reproduced on purpose and marked "TBP quirk".

Usage:  tbp_oracle.py TRACE [--indent N] [--clip-overruns]

--clip-overruns: before anything else, cut every kernel/memcpy/memset whose end lies after the
start of the next op on its (device, stream) at that start, as Perfetto draws it and gpudiag does
(docs/DEFINITIONS.md "Sanitising the timeline"; TBP itself does not).  Ops that start together are
not ordered and not clipped.  The output then has "overruns": {"ops", "removed_us"}.
"""

import gzip
import json
import re
import sys

# Sentinels with the same values TBP uses (sys.maxsize) so comparisons behave the same.
BIG = sys.maxsize
SMALL = -sys.maxsize - 1

# ---------------------------------------------------------------------------------------
# Event typing (TBP profiler/trace.py: EventTypeMap, create_trace_event)
# ---------------------------------------------------------------------------------------
T_TRACE = "Trace"
T_OPERATOR = "Operator"
T_STEP = "ProfilerStep"
T_RUNTIME = "Runtime"
T_KERNEL = "Kernel"
T_MEMCPY = "Memcpy"
T_MEMSET = "Memset"
T_PYTHON = "Python"
T_PYFUNC = "python_function"
T_MODULE = "Module"
T_USER_ANN = "user_annotation"

# Lower-cased trace `cat` -> TBP type.  Categories not listed (cuda_sync, cuda_driver,
# cuda_profiler_range, ac2g, fwdbwd, ...) are ignored entirely by TBP.
CAT_MAP = {
    "trace": T_TRACE,
    "cpu_op": T_OPERATOR,
    "operator": T_OPERATOR,
    "runtime": T_RUNTIME,
    "cuda_runtime": T_RUNTIME,
    "mtia_runtime": T_RUNTIME,
    "glow_runtime": T_RUNTIME,
    "xpu_runtime": T_RUNTIME,
    "privateuse1_runtime": T_RUNTIME,
    "kernel": T_KERNEL,
    "memcpy": T_MEMCPY,
    "gpu_memcpy": T_MEMCPY,
    "memset": T_MEMSET,
    "gpu_memset": T_MEMSET,
    "python": T_PYTHON,
    "python_function": T_PYFUNC,
    "user_annotation": T_USER_ANN,
    "gpu_user_annotation": T_USER_ANN,
}

NCCL_OPS = ("nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter")
GLOO_OPS = ("gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter")
COMM_OPS = frozenset(NCCL_OPS + GLOO_OPS)

# Kernel-name substrings that mean "uses Tensor Cores" (TBP profiler/tensor_core.py, from NVIDIA PyProf).
TC_KERNEL_PATTERNS = (
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
    "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
    "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm", "xmma_sparse_gemm", "c1688",
)

# Operator names that are "Tensor Cores eligible" (exact match; TBP tensor_core.py TC_OP_Allowlist).
TC_ELIGIBLE_OPS = frozenset((
    "aten::_convolution", "aten::_convolution_nogroup",
    "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
    "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
    "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr",
    "aten::matmul", "aten::mm", "aten::mv",
    "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
    "aten::chain_matmul", "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell",
    "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
    "CudnnConvolutionBackward", "BmmBackward0",
    "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
    "MmBackward", "aten::cudnn_convolution_backward_weight", "aten::addmm_",
    "AddmvBackward", "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight",
    "aten::cudnn_convolution_transpose_backward_input",
    "AddmmBackward", "aten::cudnn_convolution_backward_input",
    "AddbmmBackward", "aten::cudnn_convolution_backward",
))


def uses_tensor_cores(name):
    return any(p in name for p in TC_KERNEL_PATTERNS)


def is_dataloader_name(name):
    return (name.startswith("enumerate(DataLoader)#") and name.endswith(".__next__")) \
        or name.startswith("enumerate(DataPipe)#")


class Ev:
    """One X event as TBP sees it."""
    __slots__ = ("type", "name", "ts", "dur", "end", "pid", "tid", "args", "ext", "corr", "step")

    def __init__(self, etype, raw):
        self.type = etype
        self.name = raw.get("name")
        self.ts = raw.get("ts")
        self.dur = raw.get("dur")
        self.end = self.ts + self.dur
        self.pid = raw.get("pid")
        self.tid = raw.get("tid")
        args = raw.get("args")
        self.args = args if isinstance(args, dict) else {}
        ext = self.args.get("external id")
        if ext is None:
            ext = self.args.get("External id")
        self.ext = ext
        self.corr = self.args.get("correlation")
        self.step = None


# ---------------------------------------------------------------------------------------
# Loading (TBP profiler/data.py: _preprocess_file, RunProfileData.__init__)
# ---------------------------------------------------------------------------------------
def load_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    try:
        doc = json.loads(data)
    except ValueError:
        try:
            doc = json.loads(data, strict=False)
        except ValueError:
            text = data.decode("utf-8")
            doc = json.loads(re.sub(r'(?<!")N/A(?!")', '"N/A"', text))
    if isinstance(doc, list):  # bare event array; TBP itself would reject this
        doc = {"traceEvents": doc}
    return doc


def build_events(doc, notes):
    is_lightning = doc.get("Framework") == "pytorch-lightning"
    if is_lightning:
        notes.append("trace says Framework=pytorch-lightning; TBP's lightning-specific node types are not modelled")
    events = []
    fwdbwd = 0
    skipped_no_dur = 0
    skipped_no_cat = 0
    for raw in doc.get("traceEvents", []):
        if not isinstance(raw, dict):
            continue
        if raw.get("cat") == "fwdbwd":
            fwdbwd += 1
            continue
        if raw.get("ph") != "X":
            continue  # '[memory]' instants are only used by TBP's memory view
        cat = raw.get("cat")
        if not isinstance(cat, str):
            skipped_no_cat += 1  # TBP would crash on cat.lower()
            continue
        etype = CAT_MAP.get(cat.lower())
        if etype is None:
            continue
        name = raw.get("name")
        if etype == T_PYFUNC:
            if is_lightning:
                continue
            a = raw.get("args")
            if a and a.get("Python module id") is not None:
                etype = T_MODULE
        if etype in (T_USER_ANN, T_OPERATOR) and name and name.startswith("ProfilerStep#"):
            etype = T_STEP
        if not isinstance(raw.get("ts"), (int, float)) or not isinstance(raw.get("dur"), (int, float)):
            skipped_no_dur += 1  # TBP would crash on ts + None
            continue
        ev = Ev(etype, raw)
        if etype == T_STEP:
            try:
                ev.step = int(name.split("#")[1])
            except ValueError:  # TBP would raise; keep the raw suffix as the label
                ev.step = name.split("#", 1)[1]
        events.append(ev)
    # TBP: events.sort(key=ts) -- a stable sort, so ties keep file order.
    events.sort(key=lambda e: e.ts)
    if skipped_no_dur:
        notes.append("%d X events without numeric ts/dur skipped (TBP would raise)" % skipped_no_dur)
    if skipped_no_cat:
        notes.append("%d X events without cat skipped (TBP would raise)" % skipped_no_cat)
    return events, fwdbwd


# ---------------------------------------------------------------------------------------
# Interval helpers (same semantics as TBP profiler/range_utils.py)
# ---------------------------------------------------------------------------------------
def merge_ranges(ranges):
    """Union of (start, end) pairs; touching pairs are joined.  Sort is by start only
    and stable, as in TBP."""
    if not ranges:
        return []
    rs = sorted(ranges, key=lambda r: r[0])
    out = [rs[0]]
    for s, e in rs[1:]:
        ls, le = out[-1]
        if e > le:
            if s <= le:
                out[-1] = (ls, e)
            else:
                out.append((s, e))
    return out


def intersect(a, b):
    """Intersection of two sorted, disjoint range lists."""
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        s = a[i][0] if a[i][0] > b[j][0] else b[j][0]
        e = a[i][1] if a[i][1] < b[j][1] else b[j][1]
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(a, b):
    """a minus b, both sorted disjoint range lists."""
    out = []
    j = 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                out.append((cur, b[k][0]))
            if b[k][1] > cur:
                cur = b[k][1]
            if cur >= e:
                break
            k += 1
        if cur < e:
            out.append((cur, e))
    return out


def ranges_sum(rs):
    total = 0
    for s, e in rs:
        total += e - s
    return total


def sweep_capped(ranges_with_value):
    """TBP merge_ranges_with_value: sum the values of concurrent ranges over time and
    cap each time slice at 1.0; slices whose running sum is not > 0 are dropped."""
    if not ranges_with_value:
        return []
    pts = []
    for s, e, v in ranges_with_value:
        pts.append((s, 0, v))
        pts.append((e, 1, v))
    pts.sort(key=lambda p: (p[0], p[1]))  # stable; START before END at equal time
    out = []
    last_t = pts[0][0]
    val = pts[0][2]
    for t, kind, v in pts[1:]:
        if t > last_t and val > 0.0:
            out.append((last_t, t, val if val < 1.0 else 1.0))
        last_t = t
        if kind == 0:
            val += v
        else:
            val -= v
    return out


# ---------------------------------------------------------------------------------------
# Nodes (TBP profiler/node.py, event_parser.py NodeParserMixin, op_tree.py)
# ---------------------------------------------------------------------------------------
class DeviceNode:
    __slots__ = ("ev", "start", "end", "type", "name", "device", "tc_used")

    def __init__(self, ev):
        self.ev = ev
        self.start = ev.ts
        self.end = ev.end
        self.type = ev.type
        self.name = ev.name
        self.device = ev.args.get("device") if ev.type == T_KERNEL else None
        self.tc_used = uses_tensor_cores(ev.name or "")


class RuntimeNode:
    __slots__ = ("name", "start", "end", "ext", "devs", "tc_duration")

    def __init__(self, ev, devs):
        self.name = ev.name
        self.start = ev.ts
        self.end = ev.end
        self.ext = ev.ext
        self.devs = sorted(devs, key=lambda d: (d.start, -d.end)) if devs else None
        self.tc_duration = 0

    def kernels(self):
        if self.devs:
            for d in self.devs:
                if d.type == T_KERNEL:
                    yield d


# op-node kinds, mirroring TBP's node classes
K_OP, K_STEP, K_MODULE, K_DATALOADER, K_OPTIMIZER, K_ROOT = range(6)


class OpNode:
    __slots__ = ("kind", "type", "name", "start", "end", "ext", "tid", "children", "runtimes", "tc_eligible")

    def __init__(self, kind, etype, name, start, end, ext, tid):
        self.kind = kind
        self.type = etype
        self.name = name
        self.start = start
        self.end = end
        self.ext = ext
        self.tid = tid
        self.children = []
        self.runtimes = []
        self.tc_eligible = name in TC_ELIGIBLE_OPS


def make_op_node(ev):
    """TBP create_operator_node plus the ProfilerStep/Module cases of _parse_node."""
    if ev.type == T_STEP:
        kind = K_STEP
    elif ev.type == T_MODULE:
        return OpNode(K_MODULE, ev.type, ev.name, ev.ts, ev.end, None, ev.tid)  # module ext id reset to None
    elif is_dataloader_name(ev.name):
        kind = K_DATALOADER
    elif ev.name.startswith("Optimizer.step"):
        kind = K_OPTIMIZER
    elif ev.type == T_USER_ANN:
        if ev.name in COMM_OPS:
            kind = K_OP
        else:
            return None
    else:
        kind = K_OP
    return OpNode(kind, ev.type, ev.name, ev.ts, ev.end, ev.ext, ev.tid)


def is_operator_node(n):
    """TBP is_operator_node: exact OperatorNode class, Operator type, not DP/DDP forward, not Optimizer.*"""
    return (n.kind == K_OP and n.type == T_OPERATOR
            and n.name not in ("DataParallel.forward", "DistributedDataParallel.forward")
            and not n.name.startswith("Optimizer."))


def as_tid_key(tid):
    try:
        return int(tid)
    except (TypeError, ValueError):
        return tid  # TBP would raise on int(tid); keep going


class Parsed:
    pass


def parse_nodes(events, P):
    """Link device ops to runtimes by correlation id and runtimes to ops by external id.
    Events are visited in ts order, so normally the runtime is seen before its kernels."""
    corr_to_devs = {}
    corr_to_rt = {}
    ext_to_rts = {}
    tid2list = {}
    tid2zero = {}
    P.device_nodes = []
    P.runtimes = []
    P.comm_ext_ids = set()
    P.comm_libs = set()
    for ev in events:
        t = ev.type
        if t in (T_KERNEL, T_MEMCPY, T_MEMSET):
            dn = DeviceNode(ev)
            rt = corr_to_rt.get(ev.corr)
            if rt is not None and ev.corr in corr_to_rt:
                if rt.devs is None:
                    rt.devs = []
                rt.devs.append(dn)
            else:
                corr_to_devs.setdefault(ev.corr, []).append(dn)
            P.device_nodes.append(dn)
        elif t == T_RUNTIME:
            devs = corr_to_devs.pop(ev.corr, None)
            rt = RuntimeNode(ev, devs)
            corr_to_rt[ev.corr] = rt
            ext_to_rts.setdefault(rt.ext, []).append(rt)
            if rt.ext == 0:
                tid2zero.setdefault(as_tid_key(ev.tid), []).append(rt)
            P.runtimes.append(rt)
        elif t in (T_PYTHON, T_OPERATOR, T_STEP, T_MODULE, T_USER_ANN):
            node = make_op_node(ev)
            if ev.name in COMM_OPS:
                # TBP keys communication nodes by the op's external id (None if absent).
                P.comm_ext_ids.add(node.ext if node is not None else ev.ext)
                P.comm_libs.add("nccl" if ev.name in NCCL_OPS else "gloo")
            if node is not None:
                tid2list.setdefault(as_tid_key(ev.tid), []).append(node)
    # Attach runtimes to ops by external id: first op (in per-thread insertion order,
    # threads in first-seen order) whose external id matches takes all of them.
    for ops in tid2list.values():
        for op in ops:
            rts = ext_to_rts.pop(op.ext, None)
            if rts:
                op.runtimes.extend(rts)
    P.unlinked_device_nodes = sum(len(v) for v in corr_to_devs.values())
    return tid2list, tid2zero


def build_trees(tid2list, tid2zero):
    """TBP OpTreeBuilder._build_tree (without the backward-module rewrite, which only
    runs when the trace has python module events and fwdbwd flows)."""
    roots = {}
    dropped = 0
    for tid, ops in tid2list.items():
        ops.sort(key=lambda n: (n.start, -n.end))
        root = OpNode(K_ROOT, T_PYTHON, "CallTreeRoot", SMALL, BIG, None, tid)
        root.runtimes = list(tid2zero.get(tid, []))
        stack = [root]
        for n in ops:
            while True:
                top = stack[-1]
                if n.start < top.end:
                    if n.end <= top.end:
                        top.children.append(n)
                        stack.append(n)
                    else:
                        dropped += 1  # TBP logs "ranges on the same thread should not intersect" and drops it
                    break
                stack.pop()
        remove_dup_nodes(root)
        fill_stats(root)
        roots[tid] = root
    return roots, dropped


def remove_dup_nodes(node):
    # TBP quirk: an Operator whose only child is an Operator of the same name is merged
    # with it, and the parent's own runtimes are REPLACED by the child's.
    while True:
        if len(node.children) == 1:
            c = node.children[0]
            if node.name == c.name and node.type == T_OPERATOR and c.type == T_OPERATOR:
                node.children = c.children
                node.runtimes = c.runtimes
                continue
        break
    for c in node.children:
        remove_dup_nodes(c)


def fill_stats(node):
    node.children.sort(key=lambda x: (x.start, -x.end))
    for c in node.children:
        fill_stats(c)
    for rt in node.runtimes:
        if rt.tc_duration == 0 and rt.devs:
            tc = 0
            for d in rt.devs:
                if d.tc_used:
                    tc += d.end - d.start
            rt.tc_duration = tc
    for c in node.children:
        if node.type == T_OPERATOR and not node.tc_eligible and c.tc_eligible:
            node.tc_eligible = True
    for rt in node.runtimes:
        if node.type == T_OPERATOR and not node.tc_eligible and rt.tc_duration > 0:
            node.tc_eligible = True


def collect_ops(root):
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.kind != K_ROOT and is_operator_node(n):
            out.append(n)
        stack.extend(n.children)
    return out


def bottom_tc_eligible(node):
    found = []
    for c in node.children:
        found.extend(bottom_tc_eligible(c))
    if node.tc_eligible and not found:
        found.append(node)
    return found


# ---------------------------------------------------------------------------------------
# Steps and role ranges (TBP event_parser.py StepParser)
# ---------------------------------------------------------------------------------------
ROLES = ["Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec"]
R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DATALOADER, R_CPU = range(7)


def parse_steps(events, P):
    role = [[] for _ in ROLES]
    steps = []
    names = []
    raw_names = []
    cpu_min, cpu_max = BIG, SMALL
    for ev in events:
        t = ev.type
        r = (ev.ts, ev.end)
        if t == T_KERNEL:
            role[R_COMM if ev.ext in P.comm_ext_ids else R_KERNEL].append(r)
        elif t == T_MEMCPY:
            role[R_MEMCPY].append(r)
        elif t == T_MEMSET:
            role[R_MEMSET].append(r)
        elif t == T_RUNTIME:
            role[R_RUNTIME].append(r)
        elif t in (T_OPERATOR, T_USER_ANN) and is_dataloader_name(ev.name):
            role[R_DATALOADER].append(r)
        elif t == T_STEP:
            steps.append(r)
            names.append(str(ev.step))
            raw_names.append(ev.name)
        elif t in (T_PYTHON, T_OPERATOR, T_USER_ANN):
            role[R_COMM if ev.name in COMM_OPS else R_CPU].append(r)
        # python_function / Module / Trace events feed no role.
        if t in (T_PYTHON, T_OPERATOR, T_STEP):
            if ev.ts < cpu_min:
                cpu_min = ev.ts
            if ev.end > cpu_max:
                cpu_max = ev.end
    P.had_profiler_steps = bool(steps)
    if not steps:
        steps.append((cpu_min, cpu_max))
        names.append("0")
        raw_names.append(None)
    P.role_ranges = [merge_ranges(x) for x in role]
    P.host_steps = list(steps)
    P.steps = steps
    P.step_names = names
    P.step_raw_names = raw_names
    P.cpu_span = (cpu_min, cpu_max)


def find_device_steps(P):
    rts = sorted(P.runtimes, key=lambda r: r.start)
    n = len(P.steps)
    dev_span = [(BIG, SMALL)] * n
    counts = [0] * n
    matched = set()
    i = j = 0
    lo, hi = BIG, SMALL
    while i < n and j < len(rts):
        s, e = P.steps[i]
        rt = rts[j]
        if rt.start < s:
            j += 1  # starts before the step: belongs to no step
        elif rt.end <= e:
            if rt.devs is not None:
                for d in rt.devs:
                    if d.start < lo:
                        lo = d.start
                    if d.end > hi:
                        hi = d.end
                    matched.add(id(d))
                    counts[i] += 1
            j += 1
        elif rt.start < e:
            j += 1  # straddles the step end: belongs to no step
        else:
            dev_span[i] = (lo, hi)
            i += 1
            lo, hi = BIG, SMALL
    while i < n:
        dev_span[i] = (lo, hi)
        lo, hi = BIG, SMALL
        i += 1
    prev_end = None
    if matched:
        prev_end = P.steps[0][0]
        if dev_span[0][0] != BIG:
            for d in P.device_nodes:
                if id(d) not in matched and d.end < dev_span[0][0]:
                    if d.end > prev_end:
                        prev_end = d.end
    return prev_end, dev_span, counts


def update_steps(P):
    prev_end, dev_span, counts = find_device_steps(P)
    P.step_device_ops = list(counts)
    P.step_device_span = list(dev_span)
    P.uses_gpu = prev_end is not None
    P.first_step_prev_end = prev_end
    P.tail_steps_removed = 0
    if P.uses_gpu:
        new = []
        for i, (hs, he) in enumerate(P.steps):
            start = max(prev_end, hs)
            end = he
            if dev_span[i][0] == BIG:
                end = max(end, start)
            else:
                end = max(end, dev_span[i][1])
                if end < start:
                    end = start
            new.append((start, end))
            prev_end = end
        P.steps = new
        if len(P.steps) > 1:
            k = len(P.steps) - 1
            while k >= 0 and counts[k] <= 0:
                k -= 1
            if k >= 0:
                keep = k + 1
                if k > 0 and counts[k - 1] * 0.8 > counts[k]:
                    keep = k
                if keep < len(P.steps):
                    P.tail_steps_removed = len(P.steps) - keep
                    P.steps = P.steps[:keep]
                    P.step_names = P.step_names[:keep]
                    P.step_raw_names = P.step_raw_names[:keep]


# ---------------------------------------------------------------------------------------
# Breakdown (TBP overall_parser.py OverallParser.Statistics.create_from_range / aggregate)
# ---------------------------------------------------------------------------------------
def breakdown(P):
    cost_ranges = []
    slots = []
    for rr in P.role_ranges:
        if slots:
            rng = intersect(slots, rr)
        else:
            # TBP quirk: when the free-slot list is empty (always for the first role,
            # Kernel; later only if a previous role covered every step completely) the
            # role takes ALL its ranges and the free slots restart from the full steps.
            rng = rr
            slots = merge_ranges(list(P.steps))
        cost_ranges.append(rng)
        slots = subtract(slots, rng)
    cost_ranges.append(slots)  # Other
    names = ROLES + ["Other"]
    per_step = []
    totals = [0] * (len(names) + 1)
    for (s, e) in P.steps:
        row = []
        for cr in cost_ranges:
            row.append(ranges_sum(intersect([(s, e)], cr)))
        row.append(e - s)
        per_step.append(row)
        for k in range(len(row)):
            totals[k] += row[k]
    avg = [x / len(P.steps) for x in totals]
    return names, per_step, avg


# ---------------------------------------------------------------------------------------
# GPU metrics (TBP gpu_metrics_parser.py)
# ---------------------------------------------------------------------------------------
def gpu_metrics(events, S, E):
    kr = {}
    bps = {}
    occ = {}
    ids = []
    for ev in events:
        if ev.type != T_KERNEL:
            continue
        gid = ev.args.get("device")
        if gid is None:
            continue
        if gid not in kr:
            ids.append(gid)
            kr[gid] = []
            bps[gid] = []
            occ[gid] = []
        kr[gid].append((ev.ts, ev.end))
        b = ev.args.get("blocks per SM")
        if b is not None and b > 0.0:
            bps[gid].append((ev.ts, ev.end, b))
        o = ev.args.get("est. achieved occupancy %")
        if o is not None and o >= 0.0:
            occ[gid].append((ev.ts, ev.end, o))
    span = E - S
    out = {}
    for gid in ids:
        busy = ranges_sum(intersect(merge_ranges(kr[gid]), [(S, E)]))
        util = busy / span if span != 0 else None
        # Est. SM efficiency
        sm = None
        clipped = []
        for s, e, v in sweep_capped(bps[gid]):
            cs = s if s > S else S
            ce = e if e < E else E
            if cs < ce:
                clipped.append((cs, ce, v))
        if clipped and span != 0:
            acc = 0.0
            for s, e, v in clipped:
                acc += v * (e - s)
            sm = acc / span
        # Est. achieved occupancy (duration-weighted over clipped kernel time, no union)
        tot_t = 0
        tot_o = 0.0
        for s, e, v in occ[gid]:
            cs = s if s > S else S
            ce = e if e < E else E
            if cs < ce:
                tot_o += v * (ce - cs)
                tot_t += ce - cs
        oc = tot_o / tot_t if tot_t > 0 else None
        out[gid] = {
            "gpu_utilization": util,
            "kernel_busy_us": busy,
            "est_sm_efficiency": sm,
            "est_achieved_occupancy_pct": oc,
            "kernels_with_blocks_per_sm": len(bps[gid]),
            "kernels_with_occupancy": len(occ[gid]),
        }
    return out


def tbp_round(x, nd=None):
    if x is None:
        return None
    return round(x, nd) if nd is not None else round(x)


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None
    if n % 2:
        return s[n // 2]
    return (s[n // 2 - 1] + s[n // 2]) / 2


def num(x):
    """JSON-safe number (sys.maxsize sentinels become null)."""
    if x is None or x == BIG or x == SMALL:
        return None
    return x


# ---------------------------------------------------------------------------------------
def analyse(path, clip_overruns=False):
    return analyse_doc(load_trace(path), path.rsplit("/", 1)[-1], clip_overruns)


def clip_overruns(events):
    """gpudiag's overrun rule (not TBP's): per (device, stream), ops in start order (ties in file
    order); an op ending after the next strictly later start on its stream ends there instead."""
    lanes = {}
    for e in events:  # already sorted by ts, stably
        if e.type not in (T_KERNEL, T_MEMCPY, T_MEMSET):
            continue
        dev = e.args.get("device", e.pid)
        stream = e.args.get("stream", e.tid)
        lanes.setdefault((dev, stream), []).append(e)
    ops = 0
    removed = 0
    for lane in lanes.values():
        for i, e in enumerate(lane):
            j = i + 1
            while j < len(lane) and lane[j].ts == e.ts:
                j += 1
            if j < len(lane) and e.end > lane[j].ts:
                ops += 1
                removed += e.end - lane[j].ts
                e.dur = lane[j].ts - e.ts
                e.end = lane[j].ts
    return {"ops": ops, "removed_us": removed}


def memory_view(doc):
    """TBP's Memory view (memory_parser.py MemorySnapshot.get_peak_memory, run.py
    get_memory_curve, trace.py MemoryEvent) over the `[memory]` instant events,
    per device name ("CPU", "GPU<id>"); None when the trace has none.

    tbp_peak_bytes: the highest `Total Allocated` over every event of the device
      that carries one (get_peak_memory); absent for a device with none.
    tbp_curve_points: events that are on TBP's curve (with `Addr` and both
      totals); 0 for a trace before PyTorch 1.10, where TBP draws nothing.
    bytes_lower_bound_peak: gpudiag's curve for such traces (DEFINITIONS
      "Memory timeline"): the running sum of `Bytes` in time order from 0,
      max(0, highest) - min(0, lowest); not a TBP number.
    """
    recs = []
    for i, e in enumerate(doc.get("traceEvents") or []):
        if not isinstance(e, dict) or e.get("ph") != "i" or e.get("name") != "[memory]":
            continue
        a = e.get("args") or {}
        dt, did = a.get("Device Type"), a.get("Device Id")
        dev = "CPU" if dt == 0 else ("GPU%s" % did if dt == 1 else None)
        recs.append((e.get("ts"), i, dev, a))
    if not recs:
        return None
    recs.sort(key=lambda r: (r[0], r[1]))
    nan = float("nan")
    out = {}
    for ts, _, dev, a in recs:
        if dev is None:
            continue
        d = out.setdefault(dev, {"events": 0, "tbp_curve_points": 0, "_sum": 0, "_hi": 0, "_lo": 0})
        d["events"] += 1
        ta, tr = a.get("Total Allocated", nan), a.get("Total Reserved", nan)
        if ta == ta:
            d["tbp_peak_bytes"] = max(d.get("tbp_peak_bytes", 0), ta)
        if a.get("Addr") is not None and ta == ta and tr == tr:
            d["tbp_curve_points"] += 1
        d["_sum"] += a.get("Bytes", 0)
        d["_hi"] = max(d["_hi"], d["_sum"])
        d["_lo"] = min(d["_lo"], d["_sum"])
    for d in out.values():
        d["bytes_lower_bound_peak"] = d.pop("_hi") - d.pop("_lo")
        d.pop("_sum")
    return out


def analyse_doc(doc, trace_name, clip=False):
    notes = []
    events, fwdbwd = build_events(doc, notes)
    overruns = clip_overruns(events) if clip else None
    P = Parsed()

    tid2list, tid2zero = parse_nodes(events, P)
    has_modules = any(n.kind == K_MODULE for ops in tid2list.values() for n in ops)
    roots, dropped_nodes = build_trees(tid2list, tid2zero)
    if has_modules and fwdbwd:
        notes.append("trace has python module events and fwdbwd flows: TBP would rebuild backward "
                     "modules in the op tree; tensor-core per-GPU ratio here ignores that rewrite")
    if dropped_nodes:
        notes.append("%d op nodes overlap a sibling on the same thread and are dropped from TBP's op tree" % dropped_nodes)

    parse_steps(events, P)
    update_steps(P)
    if P.tail_steps_removed:
        notes.append("TBP removed the last %d step(s) (no device ops, or < 80%% of the previous step's device ops)"
                     % P.tail_steps_removed)
    dup = {}
    for n in P.step_raw_names:
        dup[n] = dup.get(n, 0) + 1
    if any(v > 1 for k, v in dup.items() if k is not None):
        notes.append("the same ProfilerStep name appears more than once (e.g. a gpu_user_annotation copy); "
                     "TBP counts each occurrence as a separate step")
    if len(P.comm_libs) > 1:
        notes.append("both NCCL and Gloo ops present (TBP disables its distributed view)")

    names, per_step, avg = breakdown(P)

    S, E = P.steps[0][0], P.steps[-1][1]
    gm = gpu_metrics(events, S, E)

    # kernel statistics (TBP kernel_parser.py), whole trace, all Kernel events
    has_kernel = bool(P.role_ranges[R_KERNEL])
    kstats = {}
    for ev in events:
        if ev.type == T_KERNEL:
            k = kstats.get(ev.name)
            if k is None:
                k = kstats[ev.name] = [0, 0, None, None]
            k[0] += 1
            k[1] += ev.dur
            k[2] = ev.dur if k[2] is None or ev.dur > k[2] else k[2]
            k[3] = ev.dur if k[3] is None or ev.dur < k[3] else k[3]
    top = None
    tc_used_ratio = None
    if has_kernel:
        order = sorted(kstats.items(), key=lambda kv: (-kv[1][1], kv[0]))
        top = []
        for name, (cnt, tot, mx, mn) in order[:10]:
            top.append({"name": name, "calls": cnt, "total_us": tot, "mean_us": tot / cnt,
                        "max_us": mx, "min_us": mn, "tensor_cores": uses_tensor_cores(name)})
        all_t = sum(v[1] for v in kstats.values())
        tc_t = sum(v[1] for n, v in kstats.items() if uses_tensor_cores(n))
        tc_used_ratio = tc_t / all_t if all_t > 0 else 0.0

    # per-GPU tensor-core ratio of op-launched kernels (TBP tensor_cores_parser.py)
    ops = []
    for root in roots.values():
        ops.extend(collect_ops(root))
    tc_time, tot_time = {}, {}
    any_k = False
    for op in ops:
        for rt in op.runtimes:
            for k in rt.kernels():
                any_k = True
                d = k.end - k.start
                tot_time[k.device] = tot_time.get(k.device, 0) + d
                if k.tc_used:
                    tc_time[k.device] = tc_time.get(k.device, 0) + d
    tc_ratio = {}
    if any_k:
        for gid in gm:
            tot = tot_time.get(gid, 0)
            tc_ratio[gid] = tc_time.get(gid, 0) / tot if tot > 0 else 0.0

    def self_kernel_time(nodes):
        t = 0
        for op in nodes:
            for rt in op.runtimes:
                for k in rt.kernels():
                    t += k.end - k.start
        return t
    bottoms = []
    for root in roots.values():
        bottoms.extend(bottom_tc_eligible(root))
    denom = self_kernel_time(ops)
    tc_elig_ratio = self_kernel_time(bottoms) / denom if denom > 0 else 0.0

    durs = [row[-1] for row in per_step]
    avg_total = avg[-1]

    steps_out = []
    for i, (s, e) in enumerate(P.steps):
        steps_out.append({
            "name": P.step_raw_names[i] if P.step_raw_names[i] is not None else "(whole CPU span)",
            "tbp_name": P.step_names[i],
            "host_start_us": num(P.host_steps[i][0]),
            "host_end_us": num(P.host_steps[i][1]),
            "start_us": num(s),
            "end_us": num(e),
            "duration_us": num(e - s) if num(s) is not None and num(e) is not None else None,
            "device_ops": P.step_device_ops[i],
            "device_first_start_us": num(P.step_device_span[i][0]),
            "device_last_end_us": num(P.step_device_span[i][1]),
        })

    bd_steps = []
    for i, row in enumerate(per_step):
        d = {"tbp_name": P.step_names[i]}
        for k, n in enumerate(names):
            d[n] = row[k]
        d["Total"] = row[-1]
        bd_steps.append(d)
    bd_avg = {n: avg[k] for k, n in enumerate(names)}
    bd_avg["Total"] = avg_total
    bd_avg_pct = {n: (100.0 * avg[k] / avg_total if avg_total else None) for k, n in enumerate(names)}

    gpus = {}
    for gid in sorted(gm, key=lambda g: (str(type(g)), g)):
        m = gm[gid]
        gpus[str(gid)] = dict(m)
        gpus[str(gid)]["tensor_core_kernel_ratio"] = tc_ratio.get(gid) if any_k else None
        gpus[str(gid)]["display"] = {
            "GPU Utilization %": tbp_round(m["gpu_utilization"] * 100, 2) if m["gpu_utilization"] is not None else None,
            "Est. SM Efficiency %": tbp_round(m["est_sm_efficiency"] * 100, 2) if m["est_sm_efficiency"] is not None else None,
            "Est. Achieved Occupancy %": tbp_round(m["est_achieved_occupancy_pct"], 2),
            "Kernel Time using Tensor Cores %": (tbp_round(tc_ratio[gid] * 100, 2) if gid in tc_ratio else None),
        }

    dl_ratio = avg[R_DATALOADER] / avg_total if avg_total else None
    comm_ratio = avg[R_COMM] / avg_total if avg_total else None
    recs = {
        "dataloader_ratio": dl_ratio,
        "high_dataloader": dl_ratio is not None and dl_ratio > 0.05,
        "communication_ratio": comm_ratio,
        "high_communication": comm_ratio is not None and comm_ratio > 0.1,
        "low_util_gpus": [g for g in sorted(gm, key=str) if gm[g]["gpu_utilization"] is not None
                          and gm[g]["gpu_utilization"] < 0.5],
    }

    out = {
        "oracle": "tbp_oracle.py (TensorBoard profiler plugin definitions)",
        "trace": trace_name,
        "has_profiler_steps": P.had_profiler_steps,
        "uses_gpu_step_adjustment": P.uses_gpu,
        "has_runtime": bool(P.role_ranges[R_RUNTIME]),
        "has_kernel": has_kernel,
        "has_memcpy_or_memset": bool(P.role_ranges[R_MEMCPY] or P.role_ranges[R_MEMSET]),
        "has_communication": bool(P.role_ranges[R_COMM]),
        "tail_steps_removed": P.tail_steps_removed,
        "first_step_lower_bound_us": num(P.first_step_prev_end),
        "steps_span_us": [num(S), num(E)],
        "steps": steps_out,
        "breakdown": {
            "order": names,
            "per_step": bd_steps,
            "average": bd_avg,
            "average_pct": bd_avg_pct,
            "display_average_rounded_us": {n: round(avg[k]) for k, n in enumerate(names)},
            "display_average_step_time_us": round(avg_total) if avg_total == avg_total else None,
        },
        "step_time": {
            "count": len(durs),
            "mean_us": sum(durs) / len(durs) if durs else None,
            "median_us": median(durs),
            "min_us": min(durs) if durs else None,
            "max_us": max(durs) if durs else None,
        },
        "gpus": gpus,
        "kernels_top10": top,
        "kernel_distinct_names": len(kstats),
        "kernel_total_us": sum(v[1] for v in kstats.values()),
        "tensor_cores": {
            "kernel_view_tc_used_ratio": tc_used_ratio,
            "per_gpu_op_kernel_ratio": {str(g): tc_ratio[g] for g in sorted(tc_ratio, key=str)} if any_k else None,
            "tc_eligible_ops_kernel_ratio": tc_elig_ratio,
        },
        "recommendation_triggers": recs,
        "counts": {
            "events_used": len(events),
            "runtimes": len(P.runtimes),
            "device_ops": len(P.device_nodes),
            "device_ops_without_runtime": P.unlinked_device_nodes,
        },
        "notes": notes,
    }
    if overruns is not None:
        out["overruns"] = overruns
    mem = memory_view(doc)
    if mem is not None:
        out["memory"] = mem
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
    indent = 1
    if "--indent" in argv:
        indent = int(argv[argv.index("--indent") + 1])
    res = analyse(argv[1], "--clip-overruns" in argv)
    sys.stdout.write(json.dumps(res, indent=indent, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
