#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""python_vs_scipy.py: devo.minimize against scipy.optimize.differential_evolution on the same
Python objective (one function object: Rastrigin in numpy, vectorised, x of shape (D, S) as
SciPy's vectorized=True passes it), at the same NP, strategy (rand1bin), F, CR and budget.

SciPy runs with vectorized=True, updating="deferred", polish=False, tol=atol=0 (so that it
spends the whole budget) and an initial population of exactly NP random vectors (init=array).
Each side first runs once as a warm-up, then --repeat times; the median wall time is reported,
with the evaluations (both must equal the budget), the objective's calls and the best value.

Needs the devo package (pip install .) and SciPy:
    python3 bench/python_vs_scipy.py [--dim 30] [--np 150] [--evals 300000] [--repeat 3]
"""
import argparse
import statistics
import sys
import time

import numpy

import devo
from scipy.optimize import differential_evolution

CALLS = [0]


def rastrigin(x):
    """Rastrigin on the columns of x (D, S): 10 D + sum(x^2 - 10 cos(2 pi x))."""
    CALLS[0] += 1
    return 10.0 * x.shape[0] + (x * x - 10.0 * numpy.cos(2.0 * numpy.pi * x)).sum(axis=0)


def run_devo(a, bounds, seed):
    r = devo.minimize(rastrigin, bounds, np=a.np, strategy="rand1bin", f=0.5, cr=0.9,
                      maxfev=a.evals, seed=seed)
    return r.fun, r.nfev


def run_scipy(a, bounds, seed):
    rng = numpy.random.default_rng(seed)
    init = rng.uniform(-5.12, 5.12, size=(a.np, a.dim))
    # generations after the initial population: NP (1 + maxiter) evaluations in all
    r = differential_evolution(rastrigin, bounds, strategy="rand1bin", maxiter=a.evals // a.np - 1,
                               init=init, mutation=0.5, recombination=0.9, tol=0, atol=0,
                               polish=False, vectorized=True, updating="deferred", rng=seed)
    # with vectorized=True SciPy counts calls in nfev: one per generation of NP vectors
    return r.fun, a.np * (r.nit + 1)


def measure(name, fn, a, bounds):
    fn(a, bounds, 0)  # warm-up
    times, calls = [], 0
    for k in range(a.repeat):
        CALLS[0] = 0
        t = time.perf_counter()
        best, nfev = fn(a, bounds, k + 1)
        times.append(time.perf_counter() - t)
        calls = CALLS[0]
        if nfev != a.evals:
            sys.exit(f"{name}: {nfev} evaluations instead of {a.evals}")
    med = statistics.median(times)
    print(f"{name:8s} median {med:8.4f} s  (runs {', '.join(f'{t:.4f}' for t in times)})  "
          f"evaluations {nfev}  calls {calls}  best {best:.6g}")
    return med


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dim", type=int, default=30)
    p.add_argument("--np", type=int, default=150)
    p.add_argument("--evals", type=int, default=300000)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    if a.evals % a.np:
        sys.exit("--evals must be a multiple of --np (both sides then spend the same budget)")
    bounds = [(-5.12, 5.12)] * a.dim
    print(f"Rastrigin D = {a.dim}, NP = {a.np}, {a.evals} evaluations, rand1bin F = 0.5 "
          f"CR = 0.9; devo {devo.__version__}, numpy {numpy.__version__}, "
          f"scipy {__import__('scipy').__version__}")
    t_devo = measure("devo", run_devo, a, bounds)
    t_scipy = measure("scipy", run_scipy, a, bounds)
    print(f"devo.minimize is {t_scipy / t_devo:.2f}x faster than scipy's differential_evolution")


if __name__ == "__main__":
    main()
