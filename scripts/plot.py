#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot.py: figures from devo's outputs (docs/experiment.md), headless (matplotlib's Agg).

  plot.py convergence TRACE.csv -o conv.png     median and interquartile band of the best error
                                                against evaluations and against wall time (log)
  plot.py box RESULTS.csv -o box.png            final error per algorithm, one panel per function
  plot.py times RESULTS.csv -o times.png        median wall time per implementation model
                                                (backend) and function, speedup against cpu
  plot.py gantt SCHEDULE.csv -o gantt.png       a `devo schedule --format csv --out` schedule:
                                                machines as rows, tasks as bars, makespan marked

Every PNG is exactly --width x --height pixels (default 1200 x 800). Lines starting with '#'
(the experiment's hash line) are skipped. Errors below 1e-16 are drawn at 1e-16 (log scale).
Exit 2 with one line on a bad input.
"""
import argparse
import csv
import math
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

FLOOR = 1e-16
DPI = 100
_MPL = tuple(int(x) for x in matplotlib.__version__.split(".")[:2] if x.isdigit())
BOXPLOT_LABELS = "tick_labels" if _MPL >= (3, 9) else "labels"


class InputError(Exception):
    pass


def read_rows(path, needed):
    """The rows of a CSV (comment lines skipped) as dicts; refuses a missing column or a row of
    the wrong length with path:line."""
    with open(path, newline="") as f:
        lines = [(n, line) for n, line in enumerate(f, 1) if not line.startswith("#")]
    if not lines:
        raise InputError(f"{path}: no header")
    reader = csv.reader([line for _, line in lines])
    header = next(reader)
    for col in needed:
        if col not in header:
            raise InputError(f"{path}:{lines[0][0]}: no column '{col}'")
    rows = []
    for (n, _), fields in zip(lines[1:], reader):
        if len(fields) != len(header):
            raise InputError(f"{path}:{n}: {len(fields)} fields, the header has {len(header)}")
        row = dict(zip(header, fields))
        row["_line"] = n
        rows.append(row)
    if not rows:
        raise InputError(f"{path}: no rows")
    return rows


def number(row, col, path):
    try:
        v = float(row[col])
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise InputError(f"{path}:{row['_line']}: {col} '{row[col]}' is not a finite number")
    return v


def labels(rows, only=None):
    """Competitor and function labels as devo rank makes them; with only (a list of function
    labels), the rows of those functions (refused when one has none)."""
    many_np = len({r["np"] for r in rows}) > 1
    many_bk = len({r["backend"] for r in rows}) > 1
    many_d = len({r["dim"] for r in rows}) > 1
    for r in rows:
        r["_alg"] = r["algorithm"] + (f"/NP={r['np']}" if many_np else "") + (
            f"/{r['backend']}" if many_bk else "")
        r["_fn"] = r["problem"] + (f"/D={r['dim']}" if many_d else "")
    if not only:
        return rows
    for fn in only:
        if not any(r["_fn"] == fn for r in rows):
            raise InputError(f"--functions: no rows of '{fn}'")
    return [r for r in rows if r["_fn"] in only]


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def figure(args, nrows=1, ncols=1):
    fig, axes = plt.subplots(nrows, ncols, figsize=(args.width / DPI, args.height / DPI),
                             dpi=DPI, squeeze=False)
    return fig, axes


def save(fig, args):
    # no bbox_inches='tight': the PNG keeps the size asked for
    fig.savefig(args.output, dpi=DPI)
    plt.close(fig)


def step_at(xs, ys, grid):
    """The best error at each grid point: the value of the last trace point at or before it
    (NaN before the first point; the last value after the trial ended)."""
    idx = np.searchsorted(xs, grid, side="right") - 1
    out = np.where(idx >= 0, ys[np.clip(idx, 0, None)], np.nan)
    return out


def convergence(args):
    rows = read_rows(args.input, ["algorithm", "problem", "dim", "np", "seed", "backend",
                                  "evaluations", "time", "error"])
    rows = labels(rows, args.functions)
    trials = {}
    for r in rows:
        key = (r["_fn"], r["_alg"], r["seed"])
        e = number(r, "evaluations", args.input)
        t = number(r, "time", args.input)
        err = max(number(r, "error", args.input), FLOOR)
        trials.setdefault(key, []).append((e, t, err))
    fns = ordered(r["_fn"] for r in rows)
    algs = ordered(r["_alg"] for r in rows)
    fig, axes = figure(args, len(fns), 2)
    for i, fn in enumerate(fns):
        for col, (xi, xlabel) in enumerate(((0, "evaluations"), (1, "wall time (s)"))):
            ax = axes[i][col]
            for alg in algs:
                tr = [np.array(v) for (f, a, _), v in trials.items() if f == fn and a == alg]
                if not tr:
                    continue
                firsts = [v[v[:, xi] > 0, xi][0] for v in tr if (v[:, xi] > 0).any()]
                hi = max(v[-1, xi] for v in tr)
                lo = min(firsts) if firsts else hi
                if not hi > 0:
                    continue
                grid = np.logspace(math.log10(lo), math.log10(max(hi, lo * 1.0001)), 60)
                ys = np.array([step_at(v[:, xi], v[:, 2], grid) for v in tr])
                with warnings.catch_warnings():  # all-NaN columns before the first points
                    warnings.simplefilter("ignore", RuntimeWarning)
                    med = np.nanmedian(ys, axis=0)
                    q1 = np.nanpercentile(ys, 25, axis=0)
                    q3 = np.nanpercentile(ys, 75, axis=0)
                line, = ax.plot(grid, med, label=f"{alg} ({len(tr)} trials)")
                ax.fill_between(grid, q1, q3, color=line.get_color(), alpha=0.25, linewidth=0)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("best error")
            ax.set_title(f"{fn}: median and interquartile range")
            ax.grid(True, which="major", alpha=0.3)
            if i == 0 and col == 0:
                ax.legend(fontsize="small")
    fig.tight_layout()
    save(fig, args)


def box(args):
    rows = read_rows(args.input, ["algorithm", "problem", "dim", "np", "backend", "error"])
    rows = labels(rows, args.functions)
    fns = ordered(r["_fn"] for r in rows)
    algs = ordered(r["_alg"] for r in rows)
    ncols = math.ceil(math.sqrt(len(fns)))
    nrows = math.ceil(len(fns) / ncols)
    fig, axes = figure(args, nrows, ncols)
    for k, fn in enumerate(fns):
        ax = axes[k // ncols][k % ncols]
        data = [[max(number(r, "error", args.input), FLOOR) for r in rows
                 if r["_fn"] == fn and r["_alg"] == a] for a in algs]
        # Matplotlib 3.9 renamed boxplot's labels to tick_labels (and 3.11 removed labels)
        ax.boxplot(data, **{BOXPLOT_LABELS: algs})
        ax.set_yscale("log")
        ax.set_title(fn)
        ax.set_ylabel("final error")
        ax.tick_params(axis="x", labelrotation=30, labelsize="small")
    for k in range(len(fns), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    fig.tight_layout()
    save(fig, args)


def times(args):
    rows = read_rows(args.input, ["algorithm", "problem", "dim", "np", "backend", "time"])
    rows = labels(rows, args.functions)
    fns = ordered(r["_fn"] for r in rows)
    models = ordered(r["backend"] for r in rows)
    med = {(f, m): float(np.median([number(r, "time", args.input) for r in rows
                                    if r["_fn"] == f and r["backend"] == m]))
           for f in fns for m in models
           if any(r["_fn"] == f and r["backend"] == m for r in rows)}
    fig, axes = figure(args)
    ax = axes[0][0]
    width = 0.8 / len(models)
    x = np.arange(len(fns))
    for j, m in enumerate(models):
        hs = [med.get((f, m), np.nan) for f in fns]
        bars = ax.bar(x + (j - (len(models) - 1) / 2) * width, hs, width, label=m)
        for f, b, h in zip(fns, bars, hs):
            base = med.get((f, "cpu"))
            if base and h > 0 and m != "cpu":
                ax.annotate(f"x{base / h:.3g}", (b.get_x() + b.get_width() / 2, h),
                            ha="center", va="bottom", fontsize="x-small")
    ax.set_xticks(x)
    ax.set_xticklabels(fns, rotation=30, fontsize="small")
    ax.set_yscale("log")
    ax.set_ylabel(args.ylabel or "median wall time per trial (s)")
    ax.set_title("implementation models (speedup against cpu above the bars)")
    ax.legend()
    fig.tight_layout()
    save(fig, args)


def gantt(args):
    rows = read_rows(args.input, ["task", "machine", "start", "finish"])
    machines = ordered(r["machine"] for r in rows)
    if all(m.isdigit() for m in machines):
        machines.sort(key=int)
    row_of = {m: i for i, m in enumerate(machines)}
    fig, axes = figure(args)
    ax = axes[0][0]
    cmap = plt.get_cmap("tab20")
    makespan = 0.0
    for k, r in enumerate(rows):
        s = number(r, "start", args.input)
        f = number(r, "finish", args.input)
        if f < s:
            raise InputError(f"{args.input}:{r['_line']}: finish before start")
        makespan = max(makespan, f)
        ax.barh(row_of[r["machine"]], f - s, left=s, height=0.8, color=cmap(k % 20),
                edgecolor="black", linewidth=0.3)
        if len(rows) <= 64:
            ax.text(s + (f - s) / 2, row_of[r["machine"]], r["task"], ha="center",
                    va="center", fontsize="x-small", clip_on=True)
    ax.axvline(makespan, color="red", linestyle="--")
    ax.set_ylim(len(machines) - 0.4, -0.9)  # the first machine on top, room for the label
    ax.text(makespan, -0.65, f" makespan {makespan:.6g} ", color="red", ha="right",
            va="center", fontsize="small")
    ax.set_yticks(range(len(machines)))
    ax.set_yticklabels(machines)
    ax.set_xlabel("time")
    ax.set_ylabel("machine")
    ax.set_title(f"{len(rows)} tasks on {len(machines)} machines")
    fig.tight_layout()
    save(fig, args)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("kind", choices=["convergence", "box", "times", "gantt"])
    p.add_argument("input")
    p.add_argument("-o", "--output", required=True, help="PNG file")
    p.add_argument("--width", type=int, default=1200, help="pixels (default 1200)")
    p.add_argument("--height", type=int, default=800, help="pixels (default 800)")
    p.add_argument("--functions", type=lambda v: v.split(","), default=None,
                   help="comma-separated function labels (F01 or F01/D=10 as devo rank names "
                        "them) to draw, in this order (default: all)")
    p.add_argument("--ylabel", default=None,
                   help="times: the y axis label (default: median wall time per trial (s))")
    args = p.parse_args(argv)
    if not (100 <= args.width <= 20000 and 100 <= args.height <= 20000):
        print("plot.py: --width and --height must be 100 .. 20000 pixels", file=sys.stderr)
        return 2
    try:
        {"convergence": convergence, "box": box, "times": times, "gantt": gantt}[args.kind](args)
    except (InputError, OSError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
