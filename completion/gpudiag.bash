# bash completion for gpudiag (installed as share/bash-completion/completions/gpudiag).
#
# Completes the commands, each command's options and the values of --format, --fail-on,
# --recompute, --metric and --metric-names. Nothing is listed here by hand: the commands and
# the values come from the binary's own tables (the hidden `gpudiag --list-commands`,
# `gpudiag --list-formats` and `gpudiag --list-values OPTION`: the dispatch table of
# src/cli/cli.c, the reader table of src/ingest/formats.c, the parsers' word tables), the
# options from `gpudiag COMMAND --help` (the long options and the short ones, such as -o, at
# the start of its option lines, text in parentheses left out).  Anything else completes as a file name; after `run ... --` the
# words are the command's to run.
_gpudiag()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" prog=${COMP_WORDS[0]} i
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    # --format=NAME: bash splits at '=' (COMP_WORDBREAKS)
    if [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    [ "$cur" = "=" ] && cur=""
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$("$prog" --list-commands 2>/dev/null) --help --version" -- "$cur"))
        return 0
    fi
    local cmd=${COMP_WORDS[1]}
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = "--" ]; then
            if [ "$i" -eq $((COMP_CWORD - 1)) ]; then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return 0
        fi
    done
    case "$prev" in
        --format)
            COMPREPLY=($(compgen -W "$("$prog" --list-formats 2>/dev/null)" -- "$cur"))
            return 0
            ;;
        --fail-on | --recompute | --metric | --metric-names)
            COMPREPLY=($(compgen -W "$("$prog" --list-values "${prev#--}" 2>/dev/null)" -- "$cur"))
            return 0
            ;;
    esac
    if [[ "$cur" == -* ]]; then
        local opts
        opts=$("$prog" "$cmd" --help 2>/dev/null | sed -e 's/([^)]*)//g' | grep -E '^ +-' |
            grep -oE -- '(^|[][ |,;])(--[a-z][a-z0-9-]*|-[a-zA-Z]([ ,]|$))' | sed -e 's/^[^-]*//' -e 's/[ ,]$//' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return 0
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
}
complete -o filenames -o bashdefault -F _gpudiag gpudiag
