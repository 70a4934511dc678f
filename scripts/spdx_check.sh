#!/usr/bin/env bash
# spdx_check.sh: lists the project's source files (C, CUDA, headers, shell, CMake, bash
# completion) tracked by git that lack an "SPDX-License-Identifier: MIT" line in their first 5
# lines. Exit 0 when every file has one, 1 when some lack it (they are listed), 2 outside git.
# The bundled third-party data (data/) and documentation are not source files.
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || { echo "spdx_check: not a git checkout" >&2; exit 2; }
missing=0
while IFS= read -r -d '' f; do
  if ! head -n 5 -- "$f" | grep -q 'SPDX-License-Identifier: MIT'; then
    echo "$f"
    missing=$((missing + 1))
  fi
done < <(git ls-files -z -- '*.c' '*.h' '*.cu' '*.cuh' '*.sh' '*.bash' '*.cmake' '*.cmake.in' \
  '*.pc.in' 'CMakeLists.txt' '*/CMakeLists.txt' '.ci/run' ':!data/')
if [ "$missing" -gt 0 ]; then
  echo "spdx_check: $missing files without SPDX-License-Identifier: MIT" >&2
  exit 1
fi
echo "spdx_check: every source file has SPDX-License-Identifier: MIT"
