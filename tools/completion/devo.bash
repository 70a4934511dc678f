# SPDX-License-Identifier: MIT
# devo.bash: bash completion for devo and etc-gen (installed as
# share/bash-completion/completions/devo; source it by hand with `. tools/completion/devo.bash`).
# The options are read from the programs' own --help at completion time, so they never go stale;
# problem names come from `devo list-problems --csv`.

_devo_opts() { # the --options that "$@" --help mentions
  "$@" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_devo() {
  local cur prev cmd i
  COMPREPLY=()
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}
  cmd=
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
    -*) ;;
    *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done
  local cmds="solve schedule eval list-problems experiment rank serve help"
  if [[ -z $cmd ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$cmds --help --version" -- "$cur")
    return
  fi
  if [[ $cmd == help ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${cmds% help}" -- "$cur")
    return
  fi
  case $prev in
  --problem)
    mapfile -t COMPREPLY < <(compgen -W "$("${COMP_WORDS[0]}" list-problems --csv 2>/dev/null |
      tail -n +2 | cut -d, -f1,2 | tr ',' '\n' | grep -v '^$')" -- "$cur")
    return ;;
  --backend) mapfile -t COMPREPLY < <(compgen -W "auto cpu gpu" -- "$cur"); return ;;
  --bounds) mapfile -t COMPREPLY < <(compgen -W "reinit clip reflect midpoint" -- "$cur"); return ;;
  --heuristic)
    mapfile -t COMPREPLY < <(compgen -W "olb met mct min-min max-min sufferage" -- "$cur")
    return ;;
  --local-search) mapfile -t COMPREPLY < <(compgen -W "on off" -- "$cur"); return ;;
  --order) mapfile -t COMPREPLY < <(compgen -W "fcfs spt" -- "$cur"); return ;;
  --algorithm) mapfile -t COMPREPLY < <(compgen -W "de jde gojde" -- "$cur"); return ;;
  --strategy) # the strategies that devo solve --help lists as NAMEbin/exp
    mapfile -t COMPREPLY < <(compgen -W "$("${COMP_WORDS[0]}" solve --help 2>/dev/null |
      grep -oE '[a-z0-9]+bin/exp' | sed 's#bin/exp##' | awk '{ print $1 "bin"; print $1 "exp" }')" \
      -- "$cur")
    return ;;
  --protocol) mapfile -t COMPREPLY < <(compgen -W "janssen2024" -- "$cur"); return ;;
  --tiebreak) mapfile -t COMPREPLY < <(compgen -W "time evals" -- "$cur"); return ;;
  --cec-data) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
  --out | --ready) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_devo_opts "${COMP_WORDS[0]}" "$cmd")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}

_etc_gen() {
  local cur prev
  COMPREPLY=()
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}
  case $prev in
  --class)
    mapfile -t COMPREPLY < <(compgen -W "u_c_hihi u_c_hilo u_c_lohi u_c_lolo u_i_hihi u_i_hilo
      u_i_lohi u_i_lolo u_s_hihi u_s_hilo u_s_lohi u_s_lolo" -- "$cur")
    return ;;
  --method) mapfile -t COMPREPLY < <(compgen -W "range cvb" -- "$cur"); return ;;
  --consistency) mapfile -t COMPREPLY < <(compgen -W "c s i" -- "$cur"); return ;;
  --task-het | --mach-het) mapfile -t COMPREPLY < <(compgen -W "hi lo" -- "$cur"); return ;;
  --out) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
  esac
  mapfile -t COMPREPLY < <(compgen -W "$(_devo_opts "${COMP_WORDS[0]}") --version" -- "$cur")
}

complete -o filenames -F _devo devo
complete -o filenames -F _etc_gen etc-gen
