#!/bin/sh
# test_completion.sh — completion/gpudiag.bash against the binary it completes for:
#  - `gpudiag --list-commands` holds analyze specs mfu watch serve run plan compare (and any
#    command added since), each of which answers --help with exit 0; `gpudiag ana<TAB>` -> analyze;
#  - `gpudiag --list-formats` holds auto, kineto, nsys and the five log formats (dmon smi-csv
#    dcgmi prom smi-q), and every name it lists is one `analyze --format` accepts (no usage
#    error, exit 2), while a made-up name is refused with exit 2; `--format d<TAB>` -> dcgmi
#    dmon; `--format=s<TAB>` -> smi-csv smi-q;
#  - each command's completed options are long options of the parser's getopt tables (every
#    {"name", ..._argument} of src/cli/*.c) — nothing from prose — and include the ones named
#    below; after `run --` the words complete as commands.
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
print("\n".join("--" + n for n in sorted(names)))
PY
for spec in "analyze --format --steps --json --html --save --model --mem-bw" "watch --interval --count --csv --gpus" \
            "run --output --interval" "compare --threshold --runs" "plan --zero --lora-rank" "mfu --tokens-per-sec --kv-heads" \
            "serve --listen --markers" "specs --dtype"; do
    # shellcheck disable=SC2086
    set -- $spec
    cmd=$1; shift
    got=$(complete_words "$cmd" --)
    for o in $got; do
        grep -qx -- "$o" "$TMP/known" && ok || nok "$cmd: completion offers $o, which no getopt table holds"
    done
    for o in "$@"; do
        case " $got" in *" $o "*) ok ;; *) nok "$cmd: completion lacks $o ('$got')" ;; esac
    done
done
got=$(complete_words run -o x.csv -- pytho)
case " $got" in *" python3 "*) ok ;; *) nok "run -- pytho: '$got'" ;; esac
finish
