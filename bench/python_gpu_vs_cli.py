#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""python_gpu_vs_cli.py: on a GPU machine, the generation loop of
devo.minimize("rastrigin", dim=100, np=250, maxfev=10**7, backend="gpu") against `devo solve`
with the same options: both report elapsed (devo_solve, start to return) and init_seconds (of
which: allocation, device set-up, initial population); the loop is their difference. The
package adds only its call around devo_solve, so the two loops should match.

Each side runs once as a warm-up (the GPU's start-up is outside both figures), then --repeat
times with seeds 1, 2, ...; medians are reported, with the best values of both sides per seed.
Needs a CUDA build of both: `pip install .` (nvcc found) and `cmake -S . -B build`:
    python3 bench/python_gpu_vs_cli.py [--devo build/devo] [--repeat 3]
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

import devo

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run_python(a, seed):
    t = time.perf_counter()
    r = devo.minimize("rastrigin", dim=a.dim, np=a.np, maxfev=a.evals, backend="gpu", seed=seed)
    wall = time.perf_counter() - t
    if r.backend != "gpu":
        sys.exit(f"devo.minimize ran on {r.backend}: {r.backend_info}")
    return r.elapsed - r.init_seconds, r.elapsed, wall, r.fun, r.nfev


def run_cli(a, seed):
    cmd = [a.devo, "solve", "--problem", "rastrigin", "--dim", str(a.dim), "--np", str(a.np),
           "--max-evals", str(a.evals), "--backend", "gpu", "--seed", str(seed), "--json"]
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    j = json.loads(p.stdout)
    if j["backend"] != "gpu":
        sys.exit(f"devo solve ran on {j['backend']}: {p.stderr.strip()}")
    return j["elapsed"] - j["init_seconds"], j["elapsed"], wall, j["best"], j["evaluations"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--devo", default=str(ROOT / "build" / "devo"), help="the devo program")
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--np", type=int, default=250)
    p.add_argument("--evals", type=int, default=10**7)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    ok, msg = devo.gpu_available()
    if not ok:
        sys.exit(f"no usable GPU for the package: {msg}")
    print(f"rastrigin D = {a.dim}, NP = {a.np}, {a.evals} evaluations, GPU {msg}; "
          f"devo {devo.__version__}")
    rows = {}
    for name, fn in (("python", run_python), ("cli", run_cli)):
        fn(a, 0)  # warm-up
        rows[name] = [fn(a, k + 1) for k in range(a.repeat)]
    for name, runs in rows.items():
        loop = statistics.median(r[0] for r in runs)
        el = statistics.median(r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        print(f"{name:6s} loop {loop:.4f} s  elapsed {el:.4f} s  wall {wall:.4f} s  "
              f"(loops {', '.join(f'{r[0]:.4f}' for r in runs)}; evaluations {runs[0][4]})")
    for k in range(a.repeat):
        print(f"seed {k + 1}: best python {rows['python'][k][3]!r} cli {rows['cli'][k][3]!r}")
    ratio = statistics.median(r[0] for r in rows["python"]) / statistics.median(
        r[0] for r in rows["cli"])
    print(f"python loop / cli loop = {ratio:.3f}")


if __name__ == "__main__":
    main()
