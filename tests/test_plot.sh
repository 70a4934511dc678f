#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_plot.sh: scripts/plot.py on a small real run (ctest plot.pngs, label cpu), run the way the
# README runs it: `scripts/plot.py ...` from the repository root, through its own
# `#!/usr/bin/env python3` (plot.py itself falls back to Debian's /usr/bin/python3 once where the
# python3 on PATH has no matplotlib; where neither has it the test fails with plot.py's one line
# saying how to get it). A devo experiment with
# traces, a copy of its rows as a second implementation model and a devo schedule CSV give every
# kind of figure; each must have the pixel size asked for (read from the PNG's IHDR chunk,
# independently of matplotlib), decode and not be blank. Refused with exit 2, one line and no PNG:
# a python3 where matplotlib (or PIL under it) does not import, a results file where a trace is
# expected and the reverse, a malformed row, a bad size.
# usage: test_plot.sh DEVO_BIN SOURCE_DIR
set -euo pipefail
devo=$1
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > s.spec <<SPEC
output = r.csv
trace = t.csv
problems = sphere rastrigin
dims = 5
np = 20
trials = 4
budget = 2000*D
target = 1e-8
[algorithm de]
f = 0.5
cr = 0.9
[algorithm low-cr]
f = 0.8
cr = 0.1
SPEC
"$devo" experiment s.spec 2>/dev/null
# a second model: the same rows as backend "gpu" at a tenth of the time (only the layout is tested)
awk -F, 'BEGIN { OFS = "," } /^#/ || /^algorithm,/ { print; next } { print } { $7 = "gpu"; $12 = $12 / 10; print }' r.csv > models.csv
"$devo" schedule "$src/docs/schedule-example.csv" --time-limit 0.05 --format csv --out sched.csv >/dev/null 2>&1
head -3 r.csv > bad.csv
echo "de,x,sphere,5,20,9,cpu,1,oops,1,1,1,DEVO_EVAL_LIMIT,," >> bad.csv
# python3 packages that raise on import, as if not installed (PYTHONPATH comes before site-packages)
for m in matplotlib PIL; do
  mkdir -p "no$m/$m"
  echo "raise ModuleNotFoundError(\"No module named '$m'\", name=\"$m\")" > "no$m/$m/__init__.py"
done

# draw ARGS...: scripts/plot.py ARGS from the repository root must succeed
draw() {
  local err
  if ! err=$(cd "$src" && scripts/plot.py "$@" 2>&1); then
    echo "FAIL: scripts/plot.py $*: ${err:-no message}" >&2
    echo "(python3 on PATH: $(command -v python3 || echo none))" >&2
    exit 1
  fi
}

# refuse WHAT PATTERN COMMAND...: COMMAND (run from the repository root, writing $tmp/x.png) exits 2
# with one line on standard error matching the extended regex PATTERN, and writes no PNG
refuse() {
  local what=$1 pattern=$2 err rc
  shift 2
  set +e
  err=$(cd "$src" && "$@" 2>&1 >/dev/null)
  rc=$?
  set -e
  if [ "$rc" != 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] ||
    ! printf '%s\n' "$err" | grep -Eq -- "$pattern" || [ -e "$tmp/x.png" ]; then
    echo "FAIL: $what: exit $rc, '$err'" >&2
    exit 1
  fi
  echo "ok $what refused: $err"
}

draw convergence "$tmp/t.csv" -o "$tmp/conv.png"
draw box "$tmp/r.csv" -o "$tmp/box.png" --width 640 --height 480
draw times "$tmp/models.csv" -o "$tmp/times.png"
draw gantt "$tmp/sched.csv" -o "$tmp/gantt.png" --width 900 --height 300
# the PNGs are checked by PIL from the interpreter that drew them (plot.py's own fallback rule)
check=python3
python3 -c 'import PIL' 2>/dev/null || check=/usr/bin/python3
"$check" - conv.png 1200 800 box.png 640 480 times.png 1200 800 gantt.png 900 300 <<'PY'
import struct, sys
from PIL import Image

args = sys.argv[1:]
for path, w, h in zip(args[0::3], map(int, args[1::3]), map(int, args[2::3])):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path}: not a PNG"
    size = struct.unpack(">II", head[16:24])
    assert size == (w, h), f"{path}: {size}, expected {(w, h)}"
    im = Image.open(path)
    im.load()  # decodes every pixel
    assert im.size == (w, h)
    assert len(im.getcolors(1 << 24) or []) > 2, f"{path}: blank"
    print(f"ok {path} {w}x{h}")
PY

plot=scripts/plot.py
refuse "no matplotlib" \
  '^plot\.py: matplotlib is missing in .*apt-get install python3-matplotlib' \
  env PYTHONPATH="$tmp/nomatplotlib" $plot box "$tmp/r.csv" -o "$tmp/x.png"
refuse "no PIL" \
  "^plot\.py: matplotlib does not import \(No module named 'PIL'\) in .*python3-matplotlib" \
  env PYTHONPATH="$tmp/noPIL" $plot box "$tmp/r.csv" -o "$tmp/x.png"
refuse "convergence of a results file" \
  '^plot\.py: [^ ]*/r\.csv is a results CSV.*; convergence reads a trace CSV' \
  $plot convergence "$tmp/r.csv" -o "$tmp/x.png"
refuse "box of a trace" '^plot\.py: [^ ]*/t\.csv is a trace CSV.*; box reads a results CSV' \
  $plot box "$tmp/t.csv" -o "$tmp/x.png"
refuse "times of a trace" '^plot\.py: [^ ]*/t\.csv is a trace CSV.*; times reads a results CSV' \
  $plot times "$tmp/t.csv" -o "$tmp/x.png"
refuse "gantt of a results file" \
  '^plot\.py: [^ ]*/r\.csv is a results CSV.*; gantt reads a schedule CSV' \
  $plot gantt "$tmp/r.csv" -o "$tmp/x.png"
refuse "a bad row" "^plot\.py: [^ ]*/bad\.csv:4: error 'oops' is not a finite number" \
  $plot box "$tmp/bad.csv" -o "$tmp/x.png"
refuse "--width 5" '^plot\.py: --width and --height must be' \
  $plot box "$tmp/r.csv" -o "$tmp/x.png" --width 5
