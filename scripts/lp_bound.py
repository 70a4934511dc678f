#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lp_bound.py: the optimum of the LP relaxation of R||Cmax for ETC files, solved exactly by an
independent LP solver, to check devo's lower bound against (its makespan bound is this LP's dual
at the machine prices devo computes: it can never be above the value printed here, and the
closer, the better the prices; tests/test_etc.c `bound_lp_reference` holds the values).

  lp_bound.py [--ready W1,W2,...] FILE...
                          one line per file: FILE, tasks x machines, the LP optimum, and how
                          many tasks the optimal vertex splits between machines; --ready: the
                          machines' ready times (as `devo schedule --ready a,b,...`), default 0

    minimise C  subject to  sum_j x_tj = 1 (every task t),
                            W_j + sum_t p_tj x_tj <= C (every machine j),  x_tj >= 0

FILE: devo's CSV (one task per row, one column per machine, as etc-gen writes, no header)
or a Braun et al. file (one number per line, 512 tasks x 16 machines, task-major). Needs NumPy
and SciPy (HiGHS, `scipy.optimize.linprog(method="highs")`) from PyPI; not used by the build
or the tests. 4096 x 64 takes 4 to 8 s and about 1 GB.
"""
import sys


def load(path, np):
    if path.endswith(".csv"):
        return np.loadtxt(path, delimiter=",", ndmin=2)
    return np.loadtxt(path).reshape(512, 16)


def lp_optimum(p, ready, np, sp, linprog):
    n, m = p.shape
    nv = n * m + 1  # x_tj task-major, then C
    cost = np.zeros(nv)
    cost[-1] = 1.0
    cells = np.arange(n * m)
    a_eq = sp.csr_matrix((np.ones(n * m), (np.repeat(np.arange(n), m), cells)), shape=(n, nv))
    a_ub = sp.csr_matrix(
        (np.concatenate([p.ravel(), -np.ones(m)]),
         (np.concatenate([np.tile(np.arange(m), n), np.arange(m)]),
          np.concatenate([cells, np.full(m, n * m)]))),
        shape=(m, nv))
    r = linprog(cost, A_ub=a_ub, b_ub=-ready, A_eq=a_eq, b_eq=np.ones(n),
                bounds=(0, None), method="highs")
    if r.status != 0:
        raise RuntimeError(r.message)
    x = r.x[:-1].reshape(n, m)
    return r.fun, int(np.sum((x > 1e-9).sum(axis=1) > 1))


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 else 2
    try:
        import numpy as np
        import scipy.sparse as sp
        from scipy.optimize import linprog
    except ImportError as exc:
        print(f"lp_bound.py: needs numpy and scipy ({exc})", file=sys.stderr)
        return 2
    args, ready = sys.argv[1:], None
    if args and args[0] == "--ready":
        if len(args) < 2:
            print("lp_bound.py: --ready needs a list a,b,...", file=sys.stderr)
            return 2
        try:
            ready = np.array([float(w) for w in args[1].split(",")])
        except ValueError:
            print(f"lp_bound.py: --ready {args[1]}: not a list of numbers", file=sys.stderr)
            return 2
        args = args[2:]
    for path in args:
        try:
            p = load(path, np)
            w = np.zeros(p.shape[1]) if ready is None else ready
            if w.shape != (p.shape[1],) or not np.all(np.isfinite(w)) or np.any(w < 0):
                raise ValueError(f"--ready: {p.shape[1]} finite values >= 0 needed")
            value, split = lp_optimum(p, w, np, sp, linprog)
        except (OSError, ValueError, RuntimeError) as exc:
            print(f"lp_bound.py: {path}: {exc}", file=sys.stderr)
            return 1
        print(f"{path} {p.shape[0]}x{p.shape[1]} lp_optimum {value:.9f} split_tasks {split}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
