#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# man_help.sh: what help2man reads to make a man page (cmake/DevoMan.cmake): runs PROG with
# --help or --version and, for devo, appends every command's --help as a section of its own, with
# "usage:" spelt as help2man expects it ("Usage:", continuation lines "or:").
# usage: man_help.sh PROG --help|--version
set -euo pipefail
prog=$1
if [ "${2:-}" != --help ]; then
  exec "$prog" "${2:---version}"
fi
fix() { sed -e '1s/^usage: /Usage: /' -e '2s/^ \{7\}\([a-z]\)/  or:  \1/'; }
"$prog" --help | fix
if [ "$(basename "$prog")" = devo ]; then
  cmds=$("$prog" --help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p')
  for c in $cmds; do
    echo
    echo "devo $c:"
    "$prog" "$c" --help | sed -e 's/^/  /'
  done
fi
