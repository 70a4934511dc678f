# SPDX-License-Identifier: MIT
# devo.bash: bash completion for devo and etc-gen (installed as completions/devo and
# completions/etc-gen of share/bash-completion; or by hand: `. tools/completion/devo.bash`).
# It needs no helper of the bash-completion package. The options of each command and the values
# of each option are tables below, which tests/test_completion.sh holds to the programs: an
# option that a --help names and the table lacks, or one the table has and the program refuses,
# fails it. The commands and problem names are asked of the devo being completed.

# The options of a command: NAME= takes a value, NAME is a flag.
_devo_options() {
  local variant="--strategy= --algorithm= --jde --jde-tau1= --jde-tau2= --jde-fl= --jde-fu=
    --jde-crl= --jde-cru= --gobl= --pbest= --archive-rate= --memory-size= --jade-c= --np-min="
  case $1 in
  solve)
    echo "--problem= --dim= --data-seed= --cec-data= --lower= --upper= --ranges= --np= --f= --cr=
      --seed= --bounds= --max-evals= --max-gens= --target= --time-limit= --backend=
      --gpu-design= --threads= --islands= --migration-interval= --topology= --json --print-x
      --verbose --quiet $variant" ;;
  schedule)
    echo "--input-format= --task-names --machines= --ready= --max-input-bytes= --objective=
      --lambda= --order= --time-limit= --heuristic= --no-seed-heuristics --local-search=
      --search= --steps= --chains= --gpus= --gap= --ils-share= --np= --f= --cr= --seed= --threads=
      --backend= --format= --out= --json --quiet $variant" ;;
  eval)
    echo "--problem= --dim= --cec-data= --data-seed= --seed= --backend= --lower= --upper=
      --ranges= --max-input-bytes=" ;;
  list-problems) echo "--csv" ;;
  experiment) echo "--out= --protocol= --trials= --jobs= --shard= --gpu= --dry-run" ;;
  rank) echo "--format= --alpha= --tiebreak= --models --pairs" ;;
  serve)
    echo "--listen= --workers= --queue= --max-connections= --max-per-address= --max-body=
      --max-memory= --read-timeout= --parse-rate= --time-limit= --max-time-limit= --backend=
      --gpus= --keep-alive" ;;
  etc-gen)
    echo "--tasks= --machines= --class= --method= --consistency= --task-het= --mach-het= --mean=
      --v-task= --v-mach= --seed= --out=" ;;
  *) return ;;
  esac
  echo "--help --version"
}

# The values of option $2 of command $1: words, or @file, @dir, @problem; nothing for a number.
_devo_values() {
  case $1:$2 in
  *:--problem) echo @problem ;;
  *:--cec-data) echo @dir ;;
  *:--out | *:--ready) echo @file ;; # --ready also takes a,b,..
  eval:--backend) echo "cpu gpu" ;;
  *:--backend) echo "cpu gpu auto" ;;
  *:--bounds) echo "reinit clip reflect midpoint" ;;
  *:--gpu-design) echo "fused multikernel naive" ;;
  *:--ranges) echo "cec2005" ;;
  *:--topology) echo "ring full" ;;
  *:--algorithm) echo "de jde gojde jade shade lshade" ;;
  *:--strategy)
    echo "rand1bin rand1exp rand2bin rand2exp best1bin best1exp best2bin best2exp
      currenttobest1bin currenttobest1exp randtobest1bin randtobest1exp" ;;
  *:--input-format) echo "auto csv braun" ;;
  *:--objective) echo "weighted makespan" ;;
  *:--order) echo "fcfs spt" ;;
  *:--heuristic) echo "olb met mct min-min max-min sufferage" ;;
  *:--local-search) echo "on off" ;;
  *:--search) echo "auto pipeline ig gpu-ls" ;;
  serve:--gpus) echo "all" ;; # or device indices: 0,1
  schedule:--format) echo "text csv json" ;;
  rank:--format) echo "md csv" ;;
  *:--protocol) echo "janssen2024" ;;
  *:--tiebreak) echo "time evals" ;;
  *:--class)
    echo "u_c_hihi u_c_hilo u_c_lohi u_c_lolo u_i_hihi u_i_hilo u_i_lohi u_i_lolo u_s_hihi
      u_s_hilo u_s_lohi u_s_lolo" ;;
  *:--method) echo "range cvb" ;;
  *:--consistency) echo "c s i" ;;
  *:--task-het | *:--mach-het) echo "hi lo" ;;
  esac
}

# Whether option $2 of command $1 takes a value.
_devo_takes_value() {
  local o
  for o in $(_devo_options "$1"); do
    [[ $o == "$2=" ]] && return 0
  done
  return 1
}

# What a command takes besides options: @file (its input) or nothing.
_devo_operand() {
  case $1 in
  schedule | eval | experiment | rank) echo @file ;;
  esac
}

# Runs the devo being completed ($1 as typed, a leading ~/ too) with the arguments that follow.
_devo_run() {
  local prog=$1
  shift
  [[ $prog == \~/* ]] && prog=$HOME/${prog#\~/}
  "$prog" "$@" 2>/dev/null
}

# The commands of this devo (serve only where it was built), from its --help.
_devo_commands() {
  _devo_run "$1" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# The problem names and aliases (cec2017:f5, F03, ...) from `devo list-problems --csv`.
_devo_problems() {
  _devo_run "$1" list-problems --csv | tail -n +2 | cut -d, -f1,2 | tr ',' '\n' | grep .
}

# Sets COMPREPLY to the candidates of kind $2 (words, @file, @dir, @problem) that start with $1.
_devo_candidates() {
  local cur=$1 kind=$2 prog=$3
  case $kind in
  @file)
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
  @dir)
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
  @problem) mapfile -t COMPREPLY < <(compgen -W "$(_devo_problems "$prog")" -- "$cur") ;;
  *) mapfile -t COMPREPLY < <(compgen -W "$kind" -- "$cur") ;;
  esac
}

# The words up to the cursor, split at blanks only: COMP_WORDS also splits at the ':' of
# cec2017:f5 and the '=' of --opt=value (COMP_WORDBREAKS). Sets words, cur (the word being
# completed, possibly empty) and head, its part before the last ':' or '=' that bash breaks at:
# bash replaces only what follows, so the candidates lose that part at the end. With quotes or
# backslashes in the line, bash's own words are taken as they are.
_devo_words() {
  local line=${COMP_LINE:0:COMP_POINT} breaks=
  head=
  if [[ $line == *[\\\'\"]* ]]; then
    words=("${COMP_WORDS[@]:0:COMP_CWORD}")
    cur=${COMP_WORDS[COMP_CWORD]}
    if [[ $cur == = ]]; then # --opt= : the value is next
      cur=
    elif [[ ${words[${#words[@]} - 1]} == = ]]; then
      unset "words[${#words[@]} - 1]"
    fi
    words+=("$cur")
    return
  fi
  read -r -a words <<<"$line"
  [[ -z $line || $line == *[[:blank:]] ]] && words+=("")
  cur=${words[${#words[@]} - 1]}
  [[ $COMP_WORDBREAKS == *:* ]] && breaks+=:
  [[ $COMP_WORDBREAKS == *=* ]] && breaks+='='
  [[ -n $breaks && $cur == *[$breaks]* ]] && head=${cur%"${cur##*["$breaks"]}"}
}

# Completes for devo ($1 = the program as typed), or for the program $2 whose options
# _devo_options knows (etc-gen).
_devo_complete() {
  local prog=$1 cmd=$2 words cur head prev i kind pre=
  COMPREPLY=()
  _devo_words
  ((${#words[@]} > 1)) && prev=${words[${#words[@]} - 2]}
  if [[ $cur == --*=* ]]; then # --opt=value: the value is completed, shown with its --opt=
    prev=${cur%%=*}
    pre=$prev=
    cur=${cur#*=}
  fi
  for ((i = 1; !${#cmd} && i < ${#words[@]} - 1; i++)); do
    [[ ${words[i]} != -* ]] && cmd=${words[i]}
  done
  if [[ -z $cmd ]]; then
    kind="$(_devo_commands "$prog") help"
    [[ $cur == -* ]] && kind="--help --version"
  elif [[ $cmd == help ]]; then
    ((i == ${#words[@]} - 1)) && kind=$(_devo_commands "$prog")
  elif [[ -n $pre ]] || _devo_takes_value "$cmd" "$prev"; then
    kind=$(_devo_values "$cmd" "$prev")
  elif [[ $cur == -* ]]; then
    kind=$(_devo_options "$cmd")
    kind=${kind//=/}
  else
    kind=$(_devo_operand "$cmd")
  fi
  [[ -n $kind ]] && _devo_candidates "$cur" "$kind" "$prog"
  [[ -n $pre ]] && COMPREPLY=("${COMPREPLY[@]/#/$pre}")
  [[ -n $head ]] && COMPREPLY=("${COMPREPLY[@]#"$head"}")
  return 0
}

_devo() { _devo_complete "$1" ""; }
_etc_gen() { _devo_complete "$1" etc-gen; }

complete -F _devo devo
complete -F _etc_gen etc-gen
