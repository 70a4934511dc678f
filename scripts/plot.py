#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot.py: figures from devo's outputs (docs/experiment.md), headless (matplotlib's Agg).

  plot.py convergence TRACE.csv -o conv.png     median and interquartile band of the best error
                                                against evaluations and against wall time (log)
  plot.py box RESULTS.csv -o box.png            final error per algorithm, one panel per function
  plot.py times RESULTS.csv -o times.png        median wall time per algorithm and implementation
                                                model (backend) and function, speedup against cpu
  plot.py gantt SCHEDULE.csv -o gantt.png       a `devo schedule --format csv --out` schedule:
                                                machines as rows, tasks as bars, makespan marked

TRACE.csv is the spec's `trace = FILE`, RESULTS.csv its `output = FILE` (or bench-cec --csv for
times); the kind of file is told by its header, and the wrong kind is refused. Every PNG is
exactly --width x --height pixels (default 1200 x 800). Lines starting with '#' (the experiment's
hash line) are skipped. Errors below 1e-16 are drawn at 1e-16 (log scale). Exit 2 with one line
on a bad input, or when neither this python3 nor Debian's /usr/bin/python3 has matplotlib.
"""
import argparse
import csv
import math
import os
import sys
import warnings

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as e:
    # Debian's python3-matplotlib serves /usr/bin/python3 only; `/usr/bin/env python3` may be
    # another interpreter (pyenv, conda, a venv), so name the one that ran and both ways out.
    exe = sys.executable or "python3"
    # another python3 first on the PATH (pyenv, conda, a venv) without matplotlib: Debian's
    # interpreter, which the README's python3-matplotlib serves, runs the script instead, once
    if (os.path.realpath(exe) != os.path.realpath("/usr/bin/python3")
            and os.access("/usr/bin/python3", os.X_OK) and not os.environ.get("DEVO_PLOT_REEXEC")):
        os.environ["DEVO_PLOT_REEXEC"] = "1"
        try:
            os.execv("/usr/bin/python3",
                     ["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
        except OSError:
            pass
    what = ("matplotlib is missing" if e.name == "matplotlib"
            else f"matplotlib does not import ({e})")
    if os.path.realpath(exe) == os.path.realpath("/usr/bin/python3"):
        how = "apt-get install python3-matplotlib (or pip install matplotlib)"
    else:
        how = (f"{exe} -m pip install matplotlib, or apt-get install python3-matplotlib and run "
               f"/usr/bin/python3 {sys.argv[0]}")
    print(f"plot.py: {what} in {exe}: {how}", file=sys.stderr)
    sys.exit(2)

FLOOR = 1e-16
DPI = 100
_MPL = tuple(int(x) for x in matplotlib.__version__.split(".")[:2] if x.isdigit())
BOXPLOT_LABELS = "tick_labels" if _MPL >= (3, 9) else "labels"

# The files devo writes that plot.py reads, told apart by their header (file_kind).
TRACE_COLUMNS = ["algorithm", "problem", "dim", "np", "seed", "backend", "evaluations", "time",
                 "error"]
FILES = {
    "trace": "a trace CSV (the spec's trace = FILE)",
    "results": "a results CSV (the spec's output = FILE)",
    "schedule": "a schedule CSV (devo schedule --format csv)",
}


class InputError(Exception):
    pass


def file_kind(header):
    """Which of FILES a header is: a schedule by its columns, a results file by its stop reason
    (a trace has none), a trace by exactly its columns; None for anything else."""
    cols = set(header)
    if {"task", "machine", "start", "finish"} <= cols:
        return "schedule"
    if "stop" in cols:
        return "results"
    if cols == set(TRACE_COLUMNS):
        return "trace"
    return None


def read_rows(args, expect, needed):
    """The rows of args.input (comment lines skipped) as dicts; refuses another kind of file
    than expect, a missing column or a row of the wrong length with path:line."""
    path = args.input
    with open(path, newline="") as f:
        lines = [(n, line) for n, line in enumerate(f, 1) if not line.startswith("#")]
    if not lines:
        raise InputError(f"{path}: no header")
    reader = csv.reader([line for _, line in lines])
    header = next(reader)
    kind = file_kind(header)
    if kind is not None and kind != expect:
        raise InputError(f"{path} is {FILES[kind]}; {args.kind} reads {FILES[expect]}")
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
    """Competitor and function labels as devo rank makes them (_alg; _comp is the same without
    the backend); with only (a list of function labels), the rows of those functions in that
    order (refused when one has none)."""
    many_np = len({r["np"] for r in rows}) > 1
    many_bk = len({r["backend"] for r in rows}) > 1
    many_d = len({r["dim"] for r in rows}) > 1
    for r in rows:
        r["_comp"] = r["algorithm"] + (f"/NP={r['np']}" if many_np else "")
        r["_alg"] = r["_comp"] + (f"/{r['backend']}" if many_bk else "")
        r["_fn"] = r["problem"] + (f"/D={r['dim']}" if many_d else "")
    if not only:
        return rows
    for fn in only:
        if not any(r["_fn"] == fn for r in rows):
            raise InputError(f"--functions: no rows of '{fn}'")
    return sorted((r for r in rows if r["_fn"] in only), key=lambda r: only.index(r["_fn"]))


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


def legend_on_top(fig, handles, texts, title=None):
    """One legend for the whole figure, across its top and outside every panel (a legend inside
    a panel hides curves or bars), then the panels laid out in the room left below it."""
    widest = max(len(t) for t in texts)
    most = max(1, int(fig.get_figwidth() * DPI // (7 * widest + 50)))  # entries a row can hold
    ncol = math.ceil(len(texts) / math.ceil(len(texts) / most))  # rows filled evenly
    leg = fig.legend(handles, texts, loc="upper center", ncol=ncol, title=title,
                     frameon=False, borderaxespad=0.3)
    height = leg.get_window_extent(fig.canvas.get_renderer()).height / (fig.get_figheight() * DPI)
    fig.tight_layout(rect=(0, 0, 1, 1 - height))


def level_labels_fit(ax):
    """Whether ax's category labels fit side by side, written level (about 7 pixels a
    character)."""
    texts = [t.get_text() for t in ax.get_xticklabels()]
    room = ax.get_window_extent().width / max(len(texts), 1)
    return max((len(t) for t in texts), default=0) * 7 + 10 <= room


def slant(ax):
    """Category labels level where they fit side by side, else at 45 degrees ending under their
    tick (long ones then do not run into each other)."""
    if not level_labels_fit(ax):
        plt.setp(ax.get_xticklabels(), rotation=45, ha="right", rotation_mode="anchor")


def competitor_colors(n):
    """One colour for each of n competitors or bars, in the same order in every figure
    (matplotlib's cycle, tab20 past it)."""
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    if n > len(cycle):
        cycle = [plt.get_cmap("tab20")(k % 20) for k in range(n)]
    return [cycle[k % len(cycle)] for k in range(n)]


def log_y(ax):
    """A log y axis with at least two labels: across less than a decade matplotlib labels every
    linear minor tick (too many for a small panel, and over the decade's own label), and across
    fewer than two powers of ten it labels one. There, round values (a few linear ones, or 1, 2
    and 5 times the powers of ten), labelled whatever their first digit."""
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    powers = math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) + 1
    if powers >= 2:
        return
    ticker = matplotlib.ticker
    if hi < 10 * lo:
        ax.yaxis.set_major_locator(ticker.MaxNLocator(nbins=4))
    else:
        ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.yaxis.set_major_formatter(ticker.LogFormatterSciNotation(
        labelOnlyBase=False, minor_thresholds=(math.inf, math.inf)))


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


def pair_columns(n, width, height):
    """How many (evaluations, time) panel pairs side by side for n functions: the panels
    closest to 1.3 : 1 (several rows of wide flat panels leave no room for the curves)."""
    def off(c):
        return abs(math.log(width / (2 * c) / (height / math.ceil(n / c)) / 1.3))
    return min(range(1, n + 1), key=off)


def band(ax, tr, xi):
    """The median line and interquartile band of the trials tr (arrays of evaluations, time,
    error) against column xi on a log grid; the line, or None when nothing is drawn."""
    firsts = [v[v[:, xi] > 0, xi][0] for v in tr if (v[:, xi] > 0).any()]
    hi = max(v[-1, xi] for v in tr)
    lo = min(firsts) if firsts else hi
    if not hi > 0:
        return None
    grid = np.logspace(math.log10(lo), math.log10(max(hi, lo * 1.0001)), 60)
    ys = np.array([step_at(v[:, xi], v[:, 2], grid) for v in tr])
    with warnings.catch_warnings():  # all-NaN columns before the first points
        warnings.simplefilter("ignore", RuntimeWarning)
        med = np.nanmedian(ys, axis=0)
        q1 = np.nanpercentile(ys, 25, axis=0)
        q3 = np.nanpercentile(ys, 75, axis=0)
    line, = ax.plot(grid, med)
    ax.fill_between(grid, q1, q3, color=line.get_color(), alpha=0.25, linewidth=0)
    return line


def trial_count(counts):
    """The trials of an algorithm, a range where the functions have different numbers."""
    lo, hi = min(counts, default=0), max(counts, default=0)
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def convergence(args):
    rows = read_rows(args, "trace", TRACE_COLUMNS)
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
    pairs = pair_columns(len(fns), args.width, args.height)
    fig, axes = figure(args, math.ceil(len(fns) / pairs), 2 * pairs)
    colors = competitor_colors(len(algs))
    counts = {a: set() for a in algs}
    for k, fn in enumerate(fns):
        for col, xlabel in enumerate(("evaluations", "wall time (s)")):
            ax = axes[k // pairs][2 * (k % pairs) + col]
            for j, alg in enumerate(algs):
                tr = [np.array(v) for (f, a, _), v in trials.items() if f == fn and a == alg]
                if tr:
                    ax.set_prop_cycle(color=[colors[j]])
                    band(ax, tr, col)
                    counts[alg].add(len(tr))
            ax.set_xscale("log")
            log_y(ax)
            ax.set_xlabel(xlabel)
            if k % pairs == 0 and col == 0:  # every panel's y is the best error
                ax.set_ylabel("best error")
            ax.set_title(fn)
            ax.grid(True, which="major", alpha=0.3)
    for k in range(len(fns), axes.shape[0] * pairs):
        for col in range(2):
            axes[k // pairs][2 * (k % pairs) + col].set_visible(False)
    handles = [plt.Line2D([], [], color=c, linewidth=3) for c in colors]
    texts = [f"{a} ({trial_count(counts[a])} trials)" for a in algs]
    legend_on_top(fig, handles, texts,
                  "best error over the trials: median (line) and interquartile range (band)")
    save(fig, args)


def box(args):
    rows = read_rows(args, "results", ["algorithm", "problem", "dim", "np", "backend", "error"])
    rows = labels(rows, args.functions)
    fns = ordered(r["_fn"] for r in rows)
    algs = ordered(r["_alg"] for r in rows)
    ncols = math.ceil(math.sqrt(len(fns)))
    nrows = math.ceil(len(fns) / ncols)
    fig, axes = figure(args, nrows, ncols)
    colors = competitor_colors(len(algs))
    for k, fn in enumerate(fns):
        ax = axes[k // ncols][k % ncols]
        data = [[max(number(r, "error", args.input), FLOOR) for r in rows
                 if r["_fn"] == fn and r["_alg"] == a] for a in algs]
        # Matplotlib 3.9 renamed boxplot's labels to tick_labels (and 3.11 removed labels)
        boxes = ax.boxplot(data, patch_artist=True, medianprops={"color": "black"},
                           **{BOXPLOT_LABELS: algs})["boxes"]
        for b, c in zip(boxes, colors):
            b.set_facecolor(c)
        log_y(ax)
        ax.set_title(fn)
        ax.set_ylabel("final error")
        if not level_labels_fit(ax):  # the legend names the boxes
            ax.set_xticks([])
    for k in range(len(fns), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    legend_on_top(fig, boxes, algs, "final error of every trial (box: quartiles and median)")
    save(fig, args)


def speedup_text(s):
    return f"x{s:.1f}" if s < 9.95 else f"x{s:.0f}"


def times(args):
    rows = read_rows(args, "results", ["algorithm", "problem", "dim", "np", "backend", "time"])
    rows = labels(rows, args.functions)
    fns = ordered(r["_fn"] for r in rows)
    # a bar per competitor and model: the times of two algorithms are never pooled into one bar
    series = ordered((r["_comp"], r["backend"]) for r in rows)
    med = {}
    for r in rows:
        med.setdefault((r["_fn"], r["_comp"], r["backend"]), []).append(
            number(r, "time", args.input))
    med = {k: float(np.median(v)) for k, v in med.items()}
    fig, axes = figure(args)
    ax = axes[0][0]
    width = 0.8 / len(series)
    x = np.arange(len(fns))
    # vertical speedups fit above bars at least as wide as a line of small text
    annotate = width * args.width * 0.85 / len(fns) >= 12
    colors = competitor_colors(len(series))
    annotated = 0.0  # the tallest bar with a speedup above it
    handles = []
    for j, (comp, m) in enumerate(series):
        hs = [med.get((f, comp, m), np.nan) for f in fns]
        bars = ax.bar(x + (j - (len(series) - 1) / 2) * width, hs, width, color=colors[j])
        handles.append(bars)
        for f, b, h in zip(fns, bars, hs):
            base = med.get((f, comp, "cpu"))
            if annotate and base and h > 0 and m != "cpu":
                ax.annotate(speedup_text(base / h), (b.get_x() + b.get_width() / 2, h),
                            xytext=(0, 2), textcoords="offset points", rotation=90,
                            ha="center", va="bottom", fontsize="small")
                annotated = max(annotated, h)
    ax.set_xticks(x)
    ax.set_xticklabels(fns)
    slant(ax)
    log_y(ax)
    if annotated:  # room above the tallest bar with a speedup for it (about 60 pixels)
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, max(hi, annotated * (hi / lo) ** (60 / (0.8 * args.height))))
        ax.set_title("above a bar: its speedup against cpu (same algorithm and function)")
    ax.set_ylabel(args.ylabel or "median wall time per trial (s)")
    one = len({c for c, _ in series}) == 1
    legend_on_top(fig, handles, [m if one else f"{c} on {m}" for c, m in series])
    save(fig, args)


def gantt_ticks(ax, machines):
    """Every machine's name where they fit, else every k-th (names about 16 pixels apart)."""
    rows_px = ax.get_window_extent().height
    step = max(1, math.ceil(len(machines) * 16 / max(rows_px, 1)))
    ax.set_yticks(range(0, len(machines), step))
    ax.set_yticklabels(machines[::step])


def gantt(args):
    rows = read_rows(args, "schedule", ["task", "machine", "start", "finish"])
    machines = ordered(r["machine"] for r in rows)
    if all(m.isdigit() for m in machines):
        machines.sort(key=int)
    row_of = {m: i for i, m in enumerate(machines)}
    fig, axes = figure(args)
    ax = axes[0][0]
    cmap = plt.get_cmap("tab20")
    makespan = 0.0
    names = []
    for k, r in enumerate(rows):
        s = number(r, "start", args.input)
        f = number(r, "finish", args.input)
        if f < s:
            raise InputError(f"{args.input}:{r['_line']}: finish before start")
        makespan = max(makespan, f)
        bar = ax.barh(row_of[r["machine"]], f - s, left=s, height=0.8, color=cmap(k % 20),
                      edgecolor="black", linewidth=0.3)[0]
        names.append((bar, r["task"]))
    ax.axvline(makespan, color="red", linestyle="--")
    ax.set_ylim(len(machines) - 0.4, -0.6)  # the first machine on top
    ax.set_xlabel("time")
    ax.set_ylabel("machine")
    ax.set_title(f"{len(rows)} tasks on {len(machines)} machines, makespan {makespan:.6g} "
                 f"(red line)")
    ax.set_yticks(range(len(machines)))
    ax.set_yticklabels(machines)
    fig.tight_layout()
    gantt_ticks(ax, machines)
    # a task's name only inside its bar, where it fits (in the axis labels' size or smaller)
    renderer = fig.canvas.get_renderer()
    for bar, name in names:
        box_px = bar.get_window_extent(renderer)
        t = ax.text(bar.get_x() + bar.get_width() / 2, bar.get_y() + bar.get_height() / 2, name,
                    ha="center", va="center")
        for size in ("medium", "small"):
            t.set_fontsize(size)
            ext = t.get_window_extent(renderer)
            if ext.width <= box_px.width - 4 and ext.height <= box_px.height:
                break
        else:
            t.remove()
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
