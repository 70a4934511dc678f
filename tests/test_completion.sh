#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_completion.sh: tools/completion/devo.bash driven as bash drives it (ctest completion.bash,
# label cpu): COMP_LINE, COMP_POINT, COMP_WORDS and COMP_CWORD set as bash sets them (words split
# at blanks and at the ':' and '=' of COMP_WORDBREAKS), the completion function called, COMPREPLY
# checked. Then its tables against the programs themselves: every option that a --help names and
# the program accepts is in the table, every option of the table is accepted (with or without a
# value as the table says), every value offered is accepted; the commands' man pages exist where
# the build makes them.
# usage: test_completion.sh DEVO_BIN ETC_GEN_BIN SOURCE_DIR
set -uo pipefail
devo=$1
etcgen=$2
src=$3
# shellcheck source=tools/completion/devo.bash
. "$src/tools/completion/devo.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
touch results.csv runs.csv spec.txt
mkdir cecdir
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

# Completes LINE (the cursor at its end) and prints COMPREPLY, one a line, sorted.
complete_line() {
  local line=$1 w fn
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMP_WORDS=()
  for w in $line; do # no glob characters in the lines below
    mapfile -t -O "${#COMP_WORDS[@]}" COMP_WORDS < <(grep -oE '[:=]+|[^:=]+' <<<"$w")
  done
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  fn=$(complete -p "$(basename "${COMP_WORDS[0]}")" | sed 's/.*-F \([^ ]*\) .*/\1/')
  COMPREPLY=()
  "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  ((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect LINE WORD...: the completions of LINE are exactly the words
expect() {
  local line=$1 got want
  shift
  got=$(complete_line "$line" | tr '\n' ' ')
  want=$( (($#)) && printf '%s\n' "$@" | sort | tr '\n' ' ')
  [[ $got == "$want" ]] || fail "'$line': got '$got', want '$want'"
}
# offers LINE WORD...: the completions of LINE include the words
offers() {
  local line=$1 got w
  shift
  got=" $(complete_line "$line" | tr '\n' ' ')"
  for w in "$@"; do
    [[ $got == *" $w "* ]] || fail "'$line': '$w' missing from '$got'"
  done
}

commands=$("$devo" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
for c in solve schedule eval list-problems experiment rank; do
  grep -qx "$c" <<<"$commands" || fail "devo --help does not list $c"
done

# ---- completions as a user gets them
# shellcheck disable=SC2086
expect "$devo " $commands help
expect "$devo --" --help --version
# shellcheck disable=SC2086
expect "$devo help " $commands
# the colon of cec2017:f5: bash replaces what follows it, so the candidates start there
problems=$("$devo" list-problems --csv | cut -d, -f1)
want=$(sed -n 's/^cec2017:\(f.*\)/\1/p' <<<"$problems")
[[ -n $want ]] || fail "devo list-problems names no cec2017:f function"
# shellcheck disable=SC2086
expect "$devo solve --problem cec2017:f" $want
# shellcheck disable=SC2086
expect "$devo eval --problem=cec2017:f" $want
# shellcheck disable=SC2086
expect "$devo solve --problem cec2017:" $want
expect "$devo solve --problem soco:f1" f1 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19
offers "$devo solve --problem " sphere rastrigin F03 cec2017:f5 soco:f19
expect "$devo solve --problem F0" F01 F02 F03 F04 F05 F06 F07 F08 F09
# enums instead of file names
expect "$devo schedule --objective " weighted makespan
expect "$devo schedule --objective=m" makespan
expect "$devo schedule --format " text csv json
expect "$devo schedule --search " auto pipeline ig gpu-ls
expect "$devo schedule --input-format " auto csv braun
expect "$devo rank --format " md csv
expect "$devo schedule --local-search " on off
expect "$devo solve --bounds " reinit clip reflect midpoint
expect "$devo solve --dim " # a number: no file names
# every preset: those that --algorithm's refusal names, and those of solve --help
refusal=$("$devo" solve --algorithm nosuch 2>&1 >/dev/null)
presets=$(sed -n 's/.*(\(.*\))$/\1/p' <<<"$refusal" | sed 's/ or /, /' | tr -d ',')
[[ $presets == *lshade* ]] || fail "no presets in '$refusal'"
# shellcheck disable=SC2086
expect "$devo solve --algorithm " $presets
# shellcheck disable=SC2086
expect "$devo schedule --algorithm " $presets
helped=$("$devo" solve --help | sed -n 's/^ \{20,\}\([a-z]\+\) *= .*/\1/p') # "jde   = ..."
# shellcheck disable=SC2086
offers "$devo solve --algorithm " $helped
strategies=$("$devo" solve --help | grep -oE '[a-z0-9]+bin/exp' | sed 's#bin/exp##')
# shellcheck disable=SC2046
expect "$devo solve --strategy " $(for s in $strategies; do echo "${s}bin ${s}exp"; done)
# options: serve has no --format; solve and schedule have --quiet
if grep -qx serve <<<"$commands"; then
  got=$(complete_line "$devo serve --")
  grep -qx -- --format <<<"$got" && fail "devo serve --<TAB> offers --format"
  grep -qx -- --listen <<<"$got" || fail "devo serve --<TAB> lacks --listen"
  grep -qx -- --gpus <<<"$got" || fail "devo serve --<TAB> lacks --gpus"
  expect "$devo serve --gpus " all
fi
offers "$devo solve --" --problem --algorithm --quiet --version --help
offers "$devo schedule --" --objective --quiet --format --out
# files where a file is expected
expect "$devo schedule --out r" results.csv runs.csv
expect "$devo schedule --out=r" results.csv runs.csv
expect "$devo schedule --out=" cecdir results.csv runs.csv spec.txt
expect "$devo schedule --ready r" results.csv runs.csv
expect "$devo rank r" results.csv runs.csv
expect "$devo experiment s" spec.txt
expect "$devo solve --cec-data c" cecdir
expect "$devo solve r"
expect "$etcgen --class u_c_hi" u_c_hihi u_c_hilo
expect "$etcgen --method " range cvb
expect "$etcgen --out r" results.csv runs.csv
offers "$etcgen --" --tasks --machines --class --out --version

# ---- the tables against the programs
# probe CMD OPT: how devo CMD takes OPT: "value", "flag" or "refused"
probe() {
  local err
  if [[ $1 == etc-gen ]]; then
    err=$("$etcgen" "$2" 1 --zz-probe 1 2>&1 >/dev/null </dev/null)
  else
    err=$("$devo" "$1" "$2=x" --zz-probe 2>&1 >/dev/null </dev/null)
  fi
  if [[ $err == *"unknown option '$2'"* ]]; then
    echo refused
  elif [[ $err == *"option $2 takes no value"* ]]; then
    echo flag
  else
    echo value
  fi
}
for c in $commands etc-gen; do
  table=" $(_devo_options "$c" | tr -s ' \n' '  ') "
  if [[ $c == etc-gen ]]; then help=$("$etcgen" --help); else help=$("$devo" "$c" --help); fi
  for o in $table; do
    name=${o%=}
    [[ $name == --help || $name == --version ]] && continue
    how=$(probe "$c" "$name")
    if [[ $how == refused ]]; then
      fail "the completion offers $name for $c, which refuses it"
    elif [[ $how == flag && $o == *= ]]; then
      fail "$c $name is a flag; the completion's table expects a value"
    elif [[ $how == value && $o != *= && $c != etc-gen ]]; then
      fail "$c $name takes a value; the completion's table has it as a flag"
    fi
  done
  for name in $(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
    [[ $table == *" $name "* || $table == *" $name= "* ]] && continue
    [[ $(probe "$c" "$name") == refused ]] && continue # another command's, named in the text
    fail "devo $c --help names $name, which the completion lacks"
  done
  # every value offered is taken (the option is not what the refusal names)
  for o in $table; do
    [[ $o == *= ]] || continue
    name=${o%=}
    vals=$(_devo_values "$c" "$name")
    [[ -z $vals || $vals == @* ]] && continue
    for v in $vals; do
      if [[ $c == etc-gen ]]; then
        err=$("$etcgen" "$name" "$v" --zz-probe 1 2>&1 >/dev/null)
      else
        err=$("$devo" "$c" "$name=$v" --zz-probe 2>&1 >/dev/null </dev/null)
      fi
      [[ $err == *"'--zz-probe'"* ]] || fail "$c $name $v: $err"
    done
  done
done

# every command has its man page where the build makes them (cmake -DDEVO_MAN=ON)
man_dir=$(dirname "$devo")
if [ -f "$man_dir/devo.1" ]; then
  for c in $commands; do
    [ -f "$man_dir/devo-$c.1" ] || fail "no man page devo-$c.1"
    grep -qF -- "devo\-${c//-/\\-}" "$man_dir/devo.1" || fail "devo.1 does not name devo-$c"
  done
fi

if ((fails)); then
  echo "$fails failures" >&2
  exit 1
fi
echo "completion: all checks passed"
