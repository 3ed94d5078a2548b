#!/bin/sh
# test_repeat_opts.sh — an option that takes one value, given twice, was
# silently the last one (`--save A --save B` wrote only B).  Every command
# now refuses it before doing anything: exit 2 and one line naming the option
# and both values (gd_once_check in src/cli/cmd_util.c).  Flags may repeat,
# and each option given once still works.
set -u
GD_TMP_TAG=repeat
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cd "$TMP" || exit 1
T="$GD_TEST_DATA/ok_two_steps.json"
check() { # WANT_LINE ARGS...: exit 2, stderr exactly WANT_LINE, nothing written to stdout
    want=$1
    shift
    "$GPUDIAG" "$@" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(cat err.txt)" = "gpudiag: error: $want" ] && [ ! -s out.txt ]; then
        ok
    else
        bad "$*: exit $rc, stderr: $(head -c 300 err.txt), stdout $(wc -c <out.txt) bytes"
    fi
}
check "--save given twice ('a.json', then 'b.json'): it takes one value" analyze --save a.json --save b.json "$T"
[ -e a.json ] || [ -e b.json ] && bad "--save twice wrote a report"
check "--html given twice ('a.html', then 'a.html'): it takes one value" analyze --html a.html --html a.html "$T"
[ -e a.html ] && bad "--html twice wrote a page"
check "--trace-out given twice ('a.json', then 'b.json'): it takes one value" analyze --trace-out a.json --trace-out=b.json "$T"
check "--format given twice ('kineto', then 'nsys'): it takes one value" analyze --format kineto --format nsys "$T"
check "--steps given twice ('1', then '2'): it takes one value" analyze --steps 1 --steps 2 "$T"
check "--model given twice ('gpt2', then 'llama3-8b'): it takes one value" analyze --model gpt2 --model llama3-8b "$T"
check "--metric given twice ('throughput', then 'step_time'): it takes one value" compare --metric throughput --metric step_time "$T" "$T"
check "--threshold given twice ('5%', then '3%'): it takes one value" compare --threshold 5% --threshold 3% "$T" "$T"
check "--json given twice ('a.json', then 'b.json'): it takes one value" run --json a.json --json b.json -- true
check "--output (-o) given twice ('a.csv', then 'b.csv'): it takes one value" run -o a.csv --output b.csv -- true
check "--interval (-i) given twice ('1s', then '2s'): it takes one value" watch -i 1s --interval 2s
check "--listen (-l) given twice ('127.0.0.1:1', then '127.0.0.1:2'): it takes one value" serve -l 127.0.0.1:1 -l 127.0.0.1:2
check "--dtype given twice ('fp16', then 'bf16'): it takes one value" specs --dtype fp16 --dtype bf16 H100
check "--gpu given twice ('H100', then 'A100'): it takes one value" mfu --model gpt2 --tokens-per-sec 1000 --gpu H100 --gpu A100
check "--zero given twice ('1', then '3'): it takes one value" plan --model llama2-7b --zero 1 --zero 3 --gpu A100-SXM4-80GB
# an abbreviation is the same option
check "--save given twice ('a.json', then 'b.json'): it takes one value" analyze --sav a.json --save b.json "$T"
# flags repeat freely; single values once still work
"$GPUDIAG" analyze --json --json --no-progress "$T" >rep.json 2>err.txt && [ ! -s err.txt ] &&
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["schema"] == "gpudiag.report/1"' rep.json && ok ||
    bad "analyze --json --json: $(cat err.txt)"
"$GPUDIAG" analyze --save one.json -q "$T" >/dev/null 2>err.txt && [ -s one.json ] && ok || bad "--save once: $(cat err.txt)"
finish
