#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# islands_table.sh: final errors on the CEC functions F01..F10 of one population against K
# islands spread over R MPI ranks (default 16 islands on 4 ranks) at the same total evaluations,
# on the CPU backend with the official CEC data: a markdown table of the median error of each
# function over the seeds, and the median share of the islands' run spent migrating (the JSON's
# migration_seconds over elapsed: the exchanges), and apart the share spent waiting for the
# slowest rank before each exchange (migration_wait_seconds: the stretches' imbalance).
# usage: scripts/islands_table.sh [DEVO]   (default: build/devo; a devo built with MPI)
#   settings from the environment (defaults): EVALS (1000000) DIM (100) SEEDS (5) NP (100)
#   ISLANDS (16) RANKS (4) INTERVAL (50, the migration interval) TOPOLOGY (ring) THREADS (1, each
#   rank's) FUNCS ("F01 .. F10") CEC_DATA (data/cec) MPIRUN ("mpirun --oversubscribe")
#   e.g. EVALS=100000 SEEDS=2 scripts/islands_table.sh build/devo
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
devo=${1:-$root/build/devo}
evals=${EVALS:-1000000} dim=${DIM:-100} seeds=${SEEDS:-5} np=${NP:-100}
islands=${ISLANDS:-16} ranks=${RANKS:-4} interval=${INTERVAL:-50} topology=${TOPOLOGY:-ring}
threads=${THREADS:-1} cec=${CEC_DATA:-$root/data/cec} mpirun=${MPIRUN:-mpirun --oversubscribe}
funcs=${FUNCS:-F01 F02 F03 F04 F05 F06 F07 F08 F09 F10}
[ -x "$devo" ] || { echo "islands_table.sh: $devo is not an executable" >&2; exit 2; }
for v in "$evals" "$dim" "$seeds" "$np" "$islands" "$ranks" "$interval" "$threads"; do
  case $v in '' | *[!0-9]*) echo "islands_table.sh: '$v' is not a positive integer" >&2; exit 2 ;; esac
done
read -r -a mpi <<<"$mpirun"
command -v "${mpi[0]}" >/dev/null || { echo "islands_table.sh: no ${mpi[0]}" >&2; exit 2; }
# as root Open MPI asks for these (containers, CI)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# a member of devo's one-line JSON
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
solve() { # the JSON of one run, or a message and exit 1
  local out
  out=$("$@" --json) || { echo "islands_table.sh: failed: $*" >&2; exit 1; }
  echo "$out"
}

common=(--dim "$dim" --np "$np" --max-evals "$evals" --cec-data "$cec" --backend cpu)
echo "CEC F01..F10 at D = $dim, $evals evaluations per run (all islands together), NP $np per"
echo "population, median of $seeds seeds; islands: $islands on $ranks MPI ranks, $topology"
echo "migration every $interval generations, $threads thread(s) per rank; $(date -u +%Y-%m-%d)"
echo
echo "| function | 1 population: error | $islands islands on $ranks ranks: error | migration share | waiting for the slowest rank |"
echo "|---|---|---|---|---|"
for f in $funcs; do
  one=() isl=() share=() wait=()
  for ((s = 1; s <= seeds; s++)); do
    j=$(solve "$devo" solve --problem "$f" --seed "$s" "${common[@]}")
    one+=("$(echo "$j" | field error)")
    j=$(solve "${mpi[@]}" -np "$ranks" "$devo" solve --problem "$f" --seed "$s" "${common[@]}" \
      --islands "$islands" --migration-interval "$interval" --topology "$topology" \
      --threads "$threads")
    echo "$j" | grep -q "\"ranks\":$ranks" ||
      { echo "islands_table.sh: not $ranks MPI ranks (a devo without MPI?): $j" >&2; exit 1; }
    isl+=("$(echo "$j" | field error)")
    share+=("$(awk -v m="$(echo "$j" | field migration_seconds)" -v e="$(echo "$j" | field elapsed)" \
      'BEGIN { printf "%.6f\n", (e > 0 ? m / e : 0) }')")
    wait+=("$(awk -v m="$(echo "$j" | field migration_wait_seconds)" -v e="$(echo "$j" | field elapsed)" \
      'BEGIN { printf "%.6f\n", (e > 0 ? m / e : 0) }')")
  done
  printf '| %s | %.6e | %.6e | %.3g%% | %.3g%% |\n' "$f" "$(printf '%s\n' "${one[@]}" | median)" \
    "$(printf '%s\n' "${isl[@]}" | median)" \
    "$(printf '%s\n' "${share[@]}" | median | awk '{ print 100 * $1 }')" \
    "$(printf '%s\n' "${wait[@]}" | median | awk '{ print 100 * $1 }')"
done
