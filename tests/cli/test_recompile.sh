#!/bin/sh
# Recurring torch.compile compilation and recurring warm-up names are steady state, not start-up
# (docs/DEFINITIONS.md "Idle gaps and their causes", rule 0: recompilation and warm-up names;
# docs/FINDINGS.md torch_recompilation).  Inputs written by tests/data/SOURCES.md's few lines of
# Python; every value below derived by hand from the event times.
#
# ok_recompile_*.json: step k (k = 0..5) starts at T; kernel A [T+20, T+100] (launched at T+10),
#   "compile_inner (dynamo_timed)" [T+150, T+150+C] while the GPU idles, kernel B [T+200+C,
#   T+L-100] (launched at T+150+C), L = C + 10000 (10 ms of GPU work and host work per step).
#   Gaps: [T, T+20] (only step 0's: the window's lead-in, 20 us < 100 ms: not start-up; the
#   launch call at T+10 -> host_launch), [T+100, T+200+C] = C + 100 us (compile covers C >= half
#   -> compilation), [T+L-100, next T+20] = 120 us (the next launch -> host_launch), and the
#   last step's tail [T+L-100, T+L] = 100 us (no host activity -> other).
# every_step: C = 40000 in all 6 steps, L = 50000, window 300000 us.
#   compilation 6 x 40100 = 240600, host_launch 20 + 5 x 120 = 620, other 100.
#   6 steps hold compilation; step 0's 40100 <= 2 x median 40100: no initial compile;
#   6 >= 3 and 6 >= 6/2: it recurs, all 240600 us are steady state. Start-up 0, steady step
#   50000, torch_recompilation share = 240600 / 300000 = 0.802 (high), steps_with_compilation 6,
#   compile_us_per_step 40100; host_overhead must not count the same time again (CPU Exec
#   0.8 - recompile 0.802 < 0.15: silent). Verdict host_launch, naming the recompilation.
#   (Before the rule: 80 % start-up, verdict "unknown", "too little steady-state work".)
# initial: C = 200000 in step 0 (L = 210000), 40000 in steps 1..5; window 460000 us.
#   compilation 200100 + 5 x 40100 = 400600. Step 0: 200100 > 2 x 40100 -> the initial compile,
#   start-up; steps 1..5 recur (5 >= 3, 5 >= 3). Start-up share 200100 / 460000 = 0.435,
#   steady step 460000 / 6 x (1 - 0.435) = 43316.667, steps[0].startup_idle_us 200100, the rest 0;
#   share = (200500 / 460000) / 0.565 = 200500 / 259900 = 0.771451.
# once: C = 40000 in steps 0 and 1 only (L = 50000), 10000 us steps 2..5; window 140000 us.
#   2 steps < 3: a one-off, start-up as before: startup_in_window compilation_us 80200,
#   share_of_steps 80200 / 140000 = 0.572857, steps[].startup_idle_us 40100, 40100, 0 x 4; no
#   torch_recompilation.
#
# ok_warmup_*.json: 6 steps of 10000 us from T = 1000 + 10000 k: kernel A [T+20, T+1000]
#   (launched at T+10), aten::copy_ [T+1000, T+6000] while the GPU idles, kernel B
#   [T+6050, T+9900] (launched at T+6000). Gaps: [T, T+20] (step 0 only), [T+1000, T+6050] = 5050,
#   [T+9900, next T+20] = 120, the last step's tail [T+9900, T+10000] = 100.
# every_step: a user annotation "step_warmup_sched" over each step (6 of 6 steps: recurs, not
#   warm-up) and "## warmup ##" over step 0 only [1000, 11000] (1 of 6 steps: warm-up).
#   startup = step 0's 20 + 5050 + 120 (the warm-up covers 100 of it >= 60) = 5190;
#   host_launch = 5 x 5050 + 4 x 120 + 100 (the tail lies under step_warmup_sched, host
#   activity) = 25830. (Before the rule: all 31020 us start-up, verdict "unknown".)
# loop: one annotation "training_loop (after lr warmup)" [1000, 61000] over all 6 steps: recurs.
#   startup 0; host_launch 20 + 6 x 5050 + 5 x 120 + 100 = 31020; verdict host_launch.
#
# Initial compiles anywhere, compilation that stops, background compile threads, leading warm-up
# (the rules' second version; main's binary got each of these wrong as noted):
# ok_recompile_step2.json: 8 steps; step k starts at T, kernel [T+20, T+100] (launched T+10),
#   compile_inner [T+150, T+150+C], kernel [T+200+C, ...] launched at T+150+C. Step 1
#   (T = 1000, 50 ms) eager: no compile. Step 2 (T = 51000): C = 3000000, gap [51100, 3051200]
#   = 3000100. Steps 3..8 (55 ms each, T = 3101000 + 55000 j): C = 5000, gap 5100 each.
#   Median of the 7 compiling steps = 5100; step 2: 3000100 > 2 x 5100 -> initial compile,
#   start-up; steps 3..8: 6 >= 3, 6 >= 8/2, step 8 in the last quarter (4 x 8 > 24) -> recur.
#   Window [1000, 3431000] = 3430000; start-up 3000100; steady window 429900, steady step
#   429900 / 8 = 53737.5; share = 6 x 5100 / 429900 = 0.0711793; compile_us_per_step 5100,
#   steps_with_compilation 6, steps[].startup_idle_us [0, 3000100, 0 x 6].
#   (main: 7 steps, 432957 us per step, share 0.883586.)
# ok_recompile_cascade.json: 6 steps; step 1 C = 5000000 (gap 5000100), steps 2..4 C = 1000000
#   (gap 1000100 each), steps 5, 6 clean. Median of 4 = 1000100; step 1 > 2000200 -> initial;
#   steps 2..4 are 3 >= 3 and >= 3 but none in the last quarter (steps 5, 6: 4k > 18) -> no
#   recurrence: all 8000400 us start-up, share_of_steps 8000400 / 8300000 = 0.963904, no
#   torch_recompilation. (main: recompiles in 3 of 6 steps, share 0.909209.)
# ok_recompile_bg_thread.json: 6 steps of 50 ms (T = 1000 + 50000 k); thread 1: enumerate(DataLoader)
#   [T+10, T+30010], launch at T+30100 of kernel [T+30150, T+49150]; thread 2 (no launches):
#   torch/_inductor/codecache.py [T+5, T+49995]. Thread 2's compile spans do not count. Gaps:
#   [1000, 31150] = 30150 and 5 x [T-850, T+30150] = 31000: the DataLoader covers 30000 of each
#   -> dataloader 30150 + 155000 = 185150; the last tail [300150, 301000] = 850 lies under thread
#   2's span (host activity, not compilation) -> host_launch 850. No compilation, no
#   torch_recompilation; verdict data_pipeline. (main: compilation 186000, share 0.62.)
# ok_warmup_leading_span.json: 10 steps; steps 1..5 of 80 ms (T = 1000 + 80000 k): kernel
#   [T+20, T+100], aten::cudnn_convolution [T+150, T+30150], kernel [T+30200, T+79200]; steps
#   6..10 of 50 ms: kernels [T+20, T+100], [T+200, T+49200]. One "warmup" [1000, 401000] over
#   steps 1..5 (touches 5 >= 3 and >= 5, but none of steps 8..10: 4k > 30) -> warm-up.
#   startup = lead-in 20 + 5 x 30100 + 5 x 820 (the gaps to the next step's first kernel; the
#   fifth [400200, 401020] has 800 >= 410 under the span) = 154620; steps[].startup_idle_us
#   [30940, 30920 x 4, 0 x 5]; host_launch 5 x 100 + 4 x 820 = 3780 (steps 6..10), other 800
#   (last tail). (main: a schedule, startup 0.)
# ok_warmup_leading_steps.json: 6 steps; steps 1..3 as above, each under its own "warmup"
#   [T+1, T+79999] (3 of 6, none of steps 5, 6) -> warm-up: startup = 20 + 3 x 30100 + 3 x 820
#   (each gap [T+79200, T+80020]: 799 + 19 >= 410 under the spans) = 92780, steps[].startup_idle_us
#   [30940, 30920, 30920, 0, 0, 0]; host_launch 3 x 100 + 2 x 820 = 1940, other 800.
#   (main: a schedule, startup 0.)
set -eu
GD_TMP_TAG=recompile
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

check() { # FILE PYCODE
    "$GPUDIAG" analyze --json "$GD_TEST_DATA/$1" > "$TMP/r.json" || true
    python3 - "$TMP/r.json" <<PY && ok || bad "$1"
import json, sys
d = json.load(open(sys.argv[1])); c = d["idle"]["by_cause_us"]; f = {x["id"]: x for x in d["findings"]}
ev = lambda i, k: f.get(i, {}).get("evidence", {}).get(k)
su = [s["startup_idle_us"] for s in d["steps"]]
$2
bad = [(n, g, w) for n, g, w in checks if not (g == w or (isinstance(w, float) and isinstance(g, (int, float)) and abs(g - w) <= 1e-6 * max(1, abs(w))))]
for b in bad: print("  %s: got %r, want %r" % b)
sys.exit(1 if bad else 0)
PY
}

check ok_recompile_every_step.json '
checks = [("compilation", c["compilation"], 240600), ("host_launch", c["host_launch"], 620), ("other", c["other"], 100),
    ("startup", c["startup"], 0), ("steady", d["summary"]["steady_step_us"], 50000), ("step startup", su, [0] * 6),
    ("gain", f.get("torch_recompilation", {}).get("est_gain"), 0.802), ("sev", f.get("torch_recompilation", {}).get("severity"), "high"),
    ("steps ev", ev("torch_recompilation", "steps_with_compilation"), 6), ("per step", ev("torch_recompilation", "compile_us_per_step"), 40100),
    ("share ev", ev("torch_recompilation", "share"), 0.802), ("kind", f.get("torch_recompilation", {}).get("bottleneck"), "host_launch"),
    ("no host_overhead", "host_overhead" in f or "host_launch_bound" in f, False), ("no startup note", "startup_in_window" in f, False),
    ("verdict", d["verdict"]["bottleneck"], "host_launch"), ("says", "recompiles in 6 of 6 steps" in d["verdict"]["summary"], True),
    ("advice", "TORCH_LOGS=recompiles" in f.get("torch_recompilation", {}).get("recommendation", ""), True)]'

check ok_recompile_initial.json '
checks = [("compilation", c["compilation"], 400600), ("steady", d["summary"]["steady_step_us"], 43316.667),
    ("step startup", su, [200100, 0, 0, 0, 0, 0]), ("gain", f.get("torch_recompilation", {}).get("est_gain"), 0.771451),
    ("steps ev", ev("torch_recompilation", "steps_with_compilation"), 5), ("per step", ev("torch_recompilation", "compile_us_per_step"), 40100),
    ("note comp", ev("startup_in_window", "compilation_us"), 200100), ("note share", ev("startup_in_window", "share_of_steps"), 0.435)]'

check ok_recompile_once.json '
checks = [("compilation", c["compilation"], 80200), ("step startup", su, [40100, 40100, 0, 0, 0, 0]),
    ("note comp", ev("startup_in_window", "compilation_us"), 80200), ("note share", ev("startup_in_window", "share_of_steps"), 0.572857),
    ("no finding", "torch_recompilation" in f, False)]'

check ok_warmup_every_step.json '
checks = [("startup", c["startup"], 5190), ("host_launch", c["host_launch"], 25830), ("step startup", su, [5190, 0, 0, 0, 0, 0]),
    ("note share", ev("startup_in_window", "share_of_steps"), 0.0865), ("verdict", d["verdict"]["bottleneck"], "host_launch")]'

check ok_warmup_loop.json '
checks = [("startup", c["startup"], 0), ("host_launch", c["host_launch"], 31020), ("step startup", su, [0] * 6),
    ("no startup note", "startup_in_window" in f, False), ("verdict", d["verdict"]["bottleneck"], "host_launch")]'

check ok_recompile_step2.json '
checks = [("compilation", c["compilation"], 3030700), ("steady", d["summary"]["steady_step_us"], 53737.5),
    ("step startup", su, [0, 3000100, 0, 0, 0, 0, 0, 0]), ("gain", f.get("torch_recompilation", {}).get("est_gain"), 0.0711793),
    ("steps ev", ev("torch_recompilation", "steps_with_compilation"), 6), ("per step", ev("torch_recompilation", "compile_us_per_step"), 5100),
    ("note comp", ev("startup_in_window", "compilation_us"), 3000100), ("note share", ev("startup_in_window", "share_of_steps"), 0.874665)]'

check ok_recompile_cascade.json '
checks = [("compilation", c["compilation"], 8000400), ("step startup", su, [5000100, 1000100, 1000100, 1000100, 0, 0]),
    ("note comp", ev("startup_in_window", "compilation_us"), 8000400), ("note share", ev("startup_in_window", "share_of_steps"), 0.963904),
    ("no finding", "torch_recompilation" in f, False)]'

check ok_recompile_bg_thread.json '
checks = [("compilation", c.get("compilation", 0), 0), ("dataloader", c["dataloader"], 185150), ("host_launch", c["host_launch"], 850),
    ("no finding", "torch_recompilation" in f, False), ("verdict", d["verdict"]["bottleneck"], "data_pipeline")]'

check ok_warmup_leading_span.json '
checks = [("startup", c["startup"], 154620), ("host_launch", c["host_launch"], 3780), ("other", c["other"], 800),
    ("step startup", su, [30940, 30920, 30920, 30920, 30920, 0, 0, 0, 0, 0])]'

check ok_warmup_leading_steps.json '
checks = [("startup", c["startup"], 92780), ("host_launch", c["host_launch"], 1940), ("other", c["other"], 800),
    ("step startup", su, [30940, 30920, 30920, 0, 0, 0])]'

# the old rule is still there: with fewer than 3 steps nothing recurs (ok_compile.json, no step
# markers: compilation 800, startup 300, as tests/cli/test_idle.sh derives)
check ok_compile.json '
checks = [("compilation", c["compilation"], 800), ("startup", c["startup"], 300), ("no finding", "torch_recompilation" in f, False)]'
finish
