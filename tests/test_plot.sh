#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_plot.sh: scripts/plot.py on a small real run (ctest plot.pngs, label cpu): a devo experiment
# with traces, a copy of its rows as a second implementation model, and a devo schedule CSV;
# every kind of figure must exist, decode as a PNG, and have the pixel size asked for (read from
# the PNG's IHDR chunk, independently of matplotlib). A malformed input exits 2 with one line.
# usage: test_plot.sh DEVO_BIN SOURCE_DIR
set -euo pipefail
devo=$1
src=$2
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$cand" ] && "$cand" -c 'import matplotlib, PIL' 2>/dev/null; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "no python3 with matplotlib and PIL (apt-get install python3-matplotlib)" >&2
  exit 1
fi
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
# one interpreter for every figure (matplotlib's import is most of the cost)
"$py" - "$src/scripts" <<'PY'
import contextlib, io, os, struct, sys
sys.path.insert(0, sys.argv[1])
from PIL import Image
import plot

def check(path, w, h):
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

for argv, w, h in [
        (["convergence", "t.csv", "-o", "conv.png"], 1200, 800),
        (["box", "r.csv", "-o", "box.png", "--width", "640", "--height", "480"], 640, 480),
        (["times", "models.csv", "-o", "times.png"], 1200, 800),
        (["gantt", "sched.csv", "-o", "gantt.png", "--width", "900", "--height", "300"], 900, 300)]:
    assert plot.main(argv) == 0, argv
    check(argv[3], w, h)

# a bad row: exit 2, one line naming file:line, no PNG
err = io.StringIO()
with contextlib.redirect_stderr(err):
    rc = plot.main(["box", "bad.csv", "-o", "bad.png"])
lines = err.getvalue().splitlines()
assert rc == 2 and len(lines) == 1 and "bad.csv:4: error 'oops'" in lines[0], (rc, lines)
assert not os.path.exists("bad.png")
print("ok plot.py refuses bad.csv:4")
PY
# the command line itself: a refused size exits 2 with one line
set +e
err=$("$py" "$src/scripts/plot.py" box r.csv -o x.png --width 5 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [ ! -e x.png ] ||
  { echo "plot.py --width 5: exit $rc, '$err'" >&2; exit 1; }
echo "ok plot.py --width 5 refused"
