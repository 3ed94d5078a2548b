#!/bin/sh
# test_completion.sh — completion/gpudiag.bash against the binary it completes for:
#  - `gpudiag --list-commands` holds analyze specs mfu watch serve run plan compare (and any
#    command added since), each of which answers --help with exit 0; `gpudiag ana<TAB>` -> analyze;
#  - `gpudiag --list-formats` holds auto, kineto, nsys and the five log formats (dmon smi-csv
#    dcgmi prom smi-q), and every name it lists is one `analyze --format` accepts (no usage
#    error, exit 2), while a made-up name is refused with exit 2; `--format d<TAB>` -> dcgmi
#    dmon; `--format=s<TAB>` -> smi-csv smi-q;
#  - each command's completed options are long options of the parser's getopt tables (every
#    {"name", ..._argument} of src/cli/*.c) or short ones of its getopt_long option string —
#    nothing from prose — and include the ones named below (`merge -` offers -o, -q);
#  - the values of --fail-on (info low medium high), --recompute (none selective full),
#    compare --metric (step_time step_time_median step_time_p90 throughput gpu_utilization)
#    and serve --metric-names (gpudiag dcgm), as each --help lists them, complete, not file
#    names; each one offered is accepted by its parser;
#  - after `run --` the words complete as commands.
# Needs bash; exit 77 without it.
set -u
GD_TMP_TAG=compl
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
: "${GD_SRC:=$HERE/../..}"
command -v bash >/dev/null 2>&1 || { echo "skip: no bash"; exit 77; }
COMPL=$GD_SRC/completion/gpudiag.bash

# complete WORD... : the completions bash offers for the last word
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpudiag; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
        _ "$COMPL" "$GPUDIAG" "$@"
}

CMDS=$("$GPUDIAG" --list-commands | sort | tr '\n' ' ')
for c in analyze compare mfu plan run serve specs watch; do
    case " $CMDS" in *" $c "*) ok ;; *) nok "--list-commands lacks $c: '$CMDS'" ;; esac
done
for c in $CMDS; do
    "$GPUDIAG" "$c" --help >/dev/null 2>&1 && ok || nok "gpudiag $c --help failed"
done
[ "$(complete_words ana)" = "analyze " ] && ok || nok "gpudiag ana: '$(complete_words ana)'"

FMTS=$("$GPUDIAG" --list-formats | tr '\n' ' ')
for f in auto kineto nsys dmon smi-csv dcgmi prom smi-q; do
    case " $FMTS" in *" $f "*) ok ;; *) nok "--list-formats lacks $f: '$FMTS'" ;; esac
done
: > "$TMP/empty"
for f in $FMTS; do
    "$GPUDIAG" analyze --format "$f" "$TMP/empty" >/dev/null 2>&1
    [ $? -ne 2 ] && ok || nok "analyze --format $f is a usage error, yet completion offers it"
done
expect_rc 2 "$GPUDIAG" analyze --format no-such-format "$TMP/empty"
[ "$(complete_words analyze --format d)" = "dcgmi dmon " ] && ok || nok "--format d: '$(complete_words analyze --format d)'"
[ "$(complete_words analyze --format = s)" = "smi-csv smi-q " ] && ok || nok "--format=s: '$(complete_words analyze --format = s)'"

# the long options the parser knows, from its getopt tables
python3 - "$GD_SRC/src/cli" > "$TMP/known" <<'PY'
import glob, re, sys
names = set()
for f in glob.glob(sys.argv[1] + "/*.c"):
    names |= set(re.findall(r'\{"([a-z][a-z0-9-]*)",\s*(?:no_argument|required_argument|optional_argument)', open(f).read()))
    names |= {"-" + ch for ch in "".join(re.findall(r'getopt_long\([^,]*,\s*argv,\s*"([^"]*)"', open(f).read())) if ch.isalpha()}
print("\n".join(("" if n.startswith("-") else "--") + n for n in sorted(names)))
PY
for spec in "analyze --format --steps --json --html --save --model --mem-bw" "watch --interval --count --csv --gpus" \
            "run --output --interval" "compare --threshold --runs" "plan --zero --lora-rank" "mfu --tokens-per-sec --kv-heads" \
            "serve --listen --markers -l -i -w" "specs --dtype" "merge --output --summary -o -q"; do
    # shellcheck disable=SC2086
    set -- $spec
    cmd=$1; shift
    got=$(complete_words "$cmd" -)
    for o in $got; do
        grep -qx -- "$o" "$TMP/known" && ok || nok "$cmd: completion offers $o, which no getopt table holds"
    done
    for o in "$@"; do
        case " $got" in *" $o "*) ok ;; *) nok "$cmd: completion lacks $o ('$got')" ;; esac
    done
done
# option values: every word the parser takes, nothing else (no file names)
want_values() { # WANT CMD OPT PREFIX
    got=$(complete_words "$2" "$3" "$4")
    [ "$got" = "$1" ] && ok || nok "$2 $3 '$4': '$got', want '$1'"
}
want_values "high info low medium " analyze --fail-on ""
want_values "low " analyze --fail-on l
want_values "full none selective " plan --recompute ""
want_values "full none selective " mfu --recompute ""
want_values "gpu_utilization step_time step_time_median step_time_p90 throughput " compare --metric ""
want_values "step_time step_time_median step_time_p90 " compare --metric step
want_values "dcgm gpudiag " serve --metric-names ""
T="$GD_TEST_DATA/ok_two_steps.json"
"$GPUDIAG" analyze --save "$TMP/a.json" -q "$T" >/dev/null 2>&1
for v in $(complete_words analyze --fail-on ""); do
    "$GPUDIAG" analyze -q --fail-on "$v" "$T" >/dev/null 2>&1
    [ $? -ne 2 ] && ok || nok "--fail-on $v is offered, yet a usage error"
done
for v in $(complete_words compare --metric ""); do
    "$GPUDIAG" compare --metric "$v" "$TMP/a.json" "$TMP/a.json" >/dev/null 2>&1
    [ $? -ne 2 ] && ok || nok "compare --metric $v is offered, yet a usage error"
done
for v in $(complete_words plan --recompute ""); do
    "$GPUDIAG" plan --model llama3-8b --gpus 8 --recompute "$v" >/dev/null 2>&1
    [ $? -ne 2 ] && ok || nok "plan --recompute $v is offered, yet a usage error"
done
expect_rc 2 "$GPUDIAG" serve --metric-names no-such-names
expect_rc 2 "$GPUDIAG" --list-values no-such-option

got=$(complete_words run -o x.csv -- pytho)
case " $got" in *" python3 "*) ok ;; *) nok "run -- pytho: '$got'" ;; esac
finish
