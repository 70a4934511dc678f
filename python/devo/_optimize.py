# SPDX-License-Identifier: MIT
"""devo.minimize: differential evolution on a built-in function (any backend) or a Python
objective (CPU backend), with the options of ``devo solve`` and SciPy's result fields."""

import math
import os

import numpy

from . import _devo
from ._args import BACKENDS, integer, pick, usable_backend
from ._result import OptimizeResult

_BOUNDARY = {"reinit": 0, "clip": 1, "reflect": 2, "midpoint": 3}
_DESIGNS = {"fused": 0, "multikernel": 1, "naive": 2}
# the variant options (devo solve's --jde-tau1 ... --np-min) and their devo_variant fields
_JDE_KEYS = {"jde_tau1": "tau1", "jde_tau2": "tau2", "jde_fl": "fl", "jde_fu": "fu",
             "jde_crl": "crl", "jde_cru": "cru"}
_SHADE_KEYS = {"pbest": "p", "archive_rate": "arc_rate", "memory_size": "hist", "jade_c": "c",
               "np_min": "np_min"}
_OTHER_KEYS = ("jde", "gobl", "cec_data", "data_seed", "ranges", "boundary", "gpu_design")
_ADAPT_NONE, _ADAPT_JADE, _ADAPT_SHADE = 0, 2, 3
# the statuses of a run ended by one of its own stopping rules (devo.h DEVO_STATUS_LIST)
_RULE_STOPS = (1, 2, 3, 4)


def _box(bounds, dim):
    """(lower, upper) arrays of D values from a sequence of (low, high) pairs or an object with
    lb and ub (scipy.optimize.Bounds)."""
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):
        lo = numpy.asarray(bounds.lb, dtype=float)
        hi = numpy.asarray(bounds.ub, dtype=float)
        if dim is not None:
            lo = numpy.broadcast_to(lo, (dim,))
            hi = numpy.broadcast_to(hi, (dim,))
    else:
        b = numpy.asarray(bounds, dtype=float)
        if b.ndim != 2 or b.shape[1] != 2 or b.shape[0] < 1:
            raise ValueError("bounds must be a sequence of (low, high) pairs, one per coordinate, "
                             f"got an array of shape {b.shape}")
        lo, hi = b[:, 0], b[:, 1]
    if lo.ndim != 1 or lo.shape != hi.shape:
        raise ValueError("bounds: lb and ub must give one value per coordinate")
    if dim is not None and lo.shape[0] != dim:
        raise ValueError(f"bounds has {lo.shape[0]} pairs but dim is {dim}")
    return lo, hi


def _uniform(lo, hi):
    """The one box [low, high]^D that libdevo takes, or ValueError for per-coordinate bounds.
    Per-coordinate boxes go through Problem.set_bounds where the library has it."""
    if numpy.all(lo == lo[0]) and numpy.all(hi == hi[0]):
        return float(lo[0]), float(hi[0])
    if hasattr(_devo.Problem, "set_bounds"):
        return None
    k = int(numpy.flatnonzero((lo != lo[0]) | (hi != hi[0]))[0])
    raise ValueError(
        "bounds: this libdevo searches one box [low, high]^D, the same pair for every "
        f"coordinate; coordinate {k} has ({lo[k]:g}, {hi[k]:g}) but coordinate 0 has "
        f"({lo[0]:g}, {hi[0]:g}) (rescale the variables to one box inside fun)")


def _vectorized(fun):
    """The objective as libdevo's batch callback calls it: x of shape (D, S) as in SciPy's
    vectorized=True, a fresh array each call; fun returns S values, taken as float64."""

    def call(x):
        f = numpy.asarray(fun(x), dtype=numpy.float64)
        if f.shape != (x.shape[1],):
            if f.size != x.shape[1]:
                raise ValueError(
                    f"the objective returned shape {f.shape} for x of shape {x.shape}: it must "
                    f"return one value per column of x ({x.shape[1]},) (x is (D, S) as in "
                    "SciPy's vectorized=True)")
            f = f.reshape(-1)
        return numpy.ascontiguousarray(f)

    return call


def _problem(fun, bounds, dim, opts):
    """The devo problem of fun (a built-in name or a callable) and its dimension."""
    p = _devo.Problem()
    lo = hi = None
    if bounds is not None:
        lo, hi = _box(bounds, dim)
        dim = lo.shape[0]
    if isinstance(fun, str):
        if dim is None:
            raise TypeError("minimize() needs dim= (or bounds) for a built-in problem")
        cec = opts.get("cec_data")
        p.set_builtin(fun, integer("dim", dim), integer("data_seed", opts.get("data_seed", 1), 0),
                      None if cec is None else os.fspath(cec))
        if opts.get("ranges") is not None:
            p.set_ranges(opts["ranges"])
        if lo is not None:
            box = _uniform(lo, hi)
            if box is None:
                p.set_bounds(numpy.ascontiguousarray(lo, dtype=numpy.float64),
                             numpy.ascontiguousarray(hi, dtype=numpy.float64))
            else:
                p.set_box(*box)
        return p, dim
    if not callable(fun):
        raise TypeError(f"fun must be a built-in problem name or a callable, got {type(fun)!r}")
    for k in ("cec_data", "ranges", "data_seed"):
        if opts.get(k) is not None:
            raise ValueError(f"{k} applies to built-in problems, not to a Python objective")
    if lo is None:
        raise TypeError("minimize() needs bounds for a Python objective")
    box = _uniform(lo, hi)
    p.set_user(dim, *(box or (float(lo[0]), float(hi[0]))), _vectorized(fun))
    if box is None:
        p.set_bounds(numpy.ascontiguousarray(lo, dtype=numpy.float64),
                     numpy.ascontiguousarray(hi, dtype=numpy.float64))
    # each call takes every vector of its worker's share: with one thread the whole
    # generation, as SciPy's vectorized=True does (a time limit is then seen between calls)
    p.set_user_batch(10_000_000)
    return p, dim


def _variant(s, strategy, algorithm, opts):
    """devo solve's order: the preset first, the explicit options over it; the library checks
    the whole variant (set_variant)."""
    if algorithm is not None:
        s.set_algorithm(algorithm)
    v = s.get_variant()
    adapt = v["adapt"] != _ADAPT_NONE
    if adapt and (strategy is not None or opts.get("jde") or "gobl" in opts):
        raise ValueError("strategy, jde and gobl do not apply to jade, shade and lshade "
                         "(current-to-pbest/1/bin, self-adapting)")
    if strategy is not None:
        v["strategy"], v["crossover"] = _devo.parse_strategy(strategy)
    if opts.get("jde"):
        v["jde"] = 1
    jde_given = [k for k in opts if k in _JDE_KEYS]
    if jde_given and not v["jde"]:
        raise ValueError(f"{jde_given[0]} needs jde=True (or algorithm='jde' or 'gojde')")
    shade_given = [k for k in opts if k in _SHADE_KEYS]
    if shade_given and not adapt:
        raise ValueError(f"{shade_given[0]} needs algorithm='jade', 'shade' or 'lshade'")
    if "memory_size" in opts and v["adapt"] != _ADAPT_SHADE:
        raise ValueError("memory_size needs algorithm='shade' or 'lshade'")
    if "jade_c" in opts and v["adapt"] != _ADAPT_JADE:
        raise ValueError("jade_c needs algorithm='jade'")
    if "np_min" in opts and not v["lpsr"]:
        raise ValueError("np_min needs algorithm='lshade'")
    for k, field in list(_JDE_KEYS.items()) + list(_SHADE_KEYS.items()) + [("gobl", "gobl")]:
        if k in opts:
            v[field] = opts[k]
    s.set_variant(v)


def _target_value(target, fstar):
    """The largest value whose error best - f* is <= target (devo solve --target's rule: f* +
    target rounded up would let a run stop above it). f* = 0 when unknown."""
    f0 = 0.0 if math.isnan(fstar) else fstar
    t = f0 + target
    while t - f0 > target:
        t = math.nextafter(t, -math.inf)
    return t


def _backend(name, builtin):
    """The backend to ask libdevo for; a Python objective runs on the CPU (auto), and libdevo
    refuses the GPU for it with its own message."""
    code = pick("backend", name, BACKENDS)
    if not builtin:
        return 0 if code == BACKENDS["auto"] else code
    return usable_backend(code, "running")


def _progress(callback):
    if callback is None:
        return None

    def call(generation, evaluations, elapsed, best):
        r = callback(OptimizeResult(nit=generation, nfev=evaluations, fun=best, elapsed=elapsed))
        return bool(r)

    return call


def minimize(fun, bounds=None, *, dim=None, strategy=None, algorithm=None, np=None, f=None,
             cr=None, maxfev=None, maxiter=None, target=None, time_limit=None, seed=None,
             backend="cpu", threads=None, callback=None, **variant_options):
    """Minimise fun with differential evolution; docs/python.md has every option.

    fun: a built-in problem name ("F03", "soco:f4", "rastrigin", ...; devo.problems()) with
    dim=, or a callable taking x of shape (D, S) and returning S values (SciPy's
    vectorized=True; CPU backend only). Returns an OptimizeResult (x, fun, nfev, nit, success,
    status, message, population, population_energies, stop, elapsed, backend, ...). Ctrl-C ends
    the run and raises KeyboardInterrupt with the best so far in its ``result`` attribute."""
    opts = dict(variant_options)
    unknown = [k for k in opts if k not in _JDE_KEYS and k not in _SHADE_KEYS
               and k not in _OTHER_KEYS]
    if unknown:
        raise TypeError(f"minimize() got an unexpected keyword argument {unknown[0]!r}")
    builtin = isinstance(fun, str)
    prob, dim = _problem(fun, bounds, dim, opts)
    s = _devo.Solver(prob)
    if np is not None:
        s.set_np(integer("np", np))
    if f is not None:
        s.set_f(float(f))
    if cr is not None:
        s.set_cr(float(cr))
    if seed is not None:
        s.set_seed(integer("seed", seed, 0))
    s.set_bounds(pick("boundary", opts.get("boundary", "reinit"), _BOUNDARY))
    if threads is not None:
        s.set_threads(integer("threads", threads))
    s.set_backend(_backend(backend, builtin))
    if opts.get("gpu_design") is not None:
        s.set_gpu_design(pick("gpu_design", opts["gpu_design"], _DESIGNS))
    if maxfev is None and maxiter is None and target is None and time_limit is None:
        maxfev = 10000 * dim  # devo solve's default
    if maxfev is not None:
        s.set_max_evals(integer("maxfev", maxfev))
    if maxiter is not None:
        s.set_max_generations(integer("maxiter", maxiter))
    if time_limit is not None:
        if not time_limit > 0:
            raise ValueError(f"time_limit must be > 0 seconds, got {time_limit!r}")
        s.set_time_limit(float(time_limit))
    if target is not None:
        if not float(target) >= 0:
            raise ValueError(f"target is an error (fun - f*) and must be >= 0, got {target!r}")
        s.set_target(_target_value(float(target), prob.fstar()))
    _variant(s, strategy, algorithm, opts)

    status, keyboard = s.solve(_progress(callback))
    res = _result(s, prob, dim, status, np)
    if keyboard:
        e = KeyboardInterrupt("devo.minimize was interrupted; its best so far is in .result")
        e.result = res
        raise e
    return res


def _result(s, prob, dim, status, np_set):
    x = numpy.empty(dim)
    best = s.best(x)
    st = s.stats()
    rows = s.shade_np()  # JADE/SHADE: the current size (L-SHADE shrinks it)
    if rows < 0:
        rows = np_set if np_set is not None else 100
    pop = numpy.empty((rows, dim))
    fit = numpy.empty(rows)
    s.population(pop, fit)
    fstar = prob.fstar()
    return OptimizeResult(
        x=x, fun=best, nfev=st["evaluations"], nit=st["generations"],
        success=status in _RULE_STOPS, status=status, message=_devo.status_message(status),
        population=pop, population_energies=fit, stop=_devo.status_name(status),
        elapsed=st["elapsed"], backend=st["backend"], backend_info=st["backend_info"],
        init_seconds=st["init_seconds"], fstar=None if math.isnan(fstar) else fstar)
