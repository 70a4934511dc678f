# SPDX-License-Identifier: MIT
"""devo.schedule (devo_schedule_run: the time-bounded scheduler of ``devo schedule``) and
devo.etc_generate (the ETC generator of ``etc-gen``)."""

import numpy

from . import _devo
from ._args import BACKENDS, integer, pick, usable_backend
from ._result import ScheduleResult

_ORDERS = {"fcfs": 0, "spt": 1}
_SEARCHES = {"auto": 0, "pipeline": 1, "ig": 2, "gpu-ls": 3}
_OBJECTIVES = ("weighted", "makespan")
# The library's AUTO takes the GPU only with 2 s or more left for DE (devo.h), and the GPU's
# start-up (devo_gpu_available) is only worth paying for then
_GPU_MIN_LIMIT = 2.0


def _lambda(objective, lam):
    if objective not in _OBJECTIVES:
        raise ValueError(f"objective: unknown value {objective!r} (weighted, makespan)")
    if lam is not None:
        lam = float(lam)
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {lam!r}")
    if objective == "makespan":
        if lam is not None and lam != 1.0:
            raise ValueError("lam contradicts objective='makespan' (lambda 1)")
        return 1.0
    return 0.75 if lam is None else lam


def _schedule_backend(name, time_limit):
    """auto looks for the GPU only with a limit that leaves it time (libdevo's AUTO rule)."""
    code = pick("backend", name, BACKENDS)
    if code == BACKENDS["auto"] and time_limit < _GPU_MIN_LIMIT:
        return BACKENDS["cpu"]
    return usable_backend(code, "searching")


def schedule(etc, *, time_limit, objective="weighted", ready=None, lam=None, order=None,
             search=None, seed=None, backend="auto", steps=None, threads=None, chains=None,
             np=None, gap=None):
    """Assign tasks to machines within time_limit seconds (counted from the call); docs/python.md.

    etc: (tasks, machines) array of expected times (> 0). Returns a ScheduleResult: assignment
    (machine of each task), makespan, flowtime, objective, start and finish of each task,
    completion of each machine, stop (why the search ended), source, backend, ... Ctrl-C ends
    the search and raises KeyboardInterrupt with the best schedule so far in ``result``."""
    e = numpy.ascontiguousarray(etc, dtype=numpy.float64)
    if e.ndim != 2:
        raise ValueError(f"etc must be a 2-D array (tasks, machines), got shape {e.shape}")
    n, m = e.shape
    if n < 1 or m < 2:
        raise ValueError(f"etc: {n} x {m}: at least 1 task and 2 machines are needed")
    w = numpy.zeros(m) if ready is None else numpy.ascontiguousarray(ready, dtype=numpy.float64)
    if w.shape != (m,):
        raise ValueError(f"ready must hold one time per machine ({m}), got shape {w.shape}")
    time_limit = float(time_limit)
    if not 0.0 < time_limit <= 1e9:
        raise ValueError(f"time_limit must be in (0, 1e9] seconds, got {time_limit!r}")
    opts = {
        "time_limit": time_limit,
        "lambda": _lambda(objective, lam),
        "order": pick("order", order or "fcfs", _ORDERS),
        "search": pick("search", (search or "auto").replace("_", "-"), _SEARCHES),
        "gap": 0.0 if gap is None else _gap(gap),
        "seed": 1 if seed is None else integer("seed", seed, 0),
        "steps": 0 if steps is None else integer("steps", steps, 1),
        "threads": 1 if threads is None else integer("threads", threads, 1, 1024),
        "chains": 0 if chains is None else integer("chains", chains, 1, 4096),
        "backend": _schedule_backend(backend, time_limit),
    }
    if np is not None:
        opts["np"] = integer("np", np, 4)
    assign = numpy.empty(n, dtype=numpy.intc)
    start = numpy.empty(n)
    finish = numpy.empty(n)
    r = _devo.schedule(e, w, opts, assign, start, finish)
    assignment = assign.astype(numpy.intp)
    completion = w.copy()  # a machine without tasks completes at its ready time
    numpy.maximum.at(completion, assignment, finish)
    status = r["status"]
    res = ScheduleResult(
        assignment=assignment, makespan=r["makespan"], flowtime=r["flowtime"],
        objective=r["objective"], start=start, finish=finish, completion=completion,
        stop=_devo.status_name(status), status=status, message=_devo.status_message(status),
        source=r["source"], heuristic=r["heuristic"], backend=r["backend"],
        evaluations=r["evaluations"], generations=r["generations"], ls_moves=r["ls_moves"],
        ils_rounds=r["ils_rounds"], elapsed=r["elapsed"], lam=opts["lambda"],
        lower_bound=r["lower_bound"], gap=r["gap"], search=r["search"],
        order="spt" if opts["order"] else "fcfs")
    if r["keyboard"]:
        ex = KeyboardInterrupt("devo.schedule was interrupted; its best schedule is in .result")
        ex.result = res
        raise ex
    return res


def _gap(g):
    """devo schedule --gap's range: a fraction in [0, 1]."""
    g = float(g)
    if not 0.0 <= g <= 1.0:
        raise ValueError(f"gap is a fraction in [0, 1] (0.01 = 1%), got {g!r}")
    return g


_CONSISTENCY = {"c": 0, "consistent": 0, "s": 1, "semi": 1, "semi-consistent": 1,
                "i": 2, "inconsistent": 2}
_TASK_HET = {"hi": 3000.0, "lo": 100.0}  # Braun et al.'s R_task
_MACH_HET = {"hi": 1000.0, "lo": 10.0}  # and R_mach


def _het(what, value, table):
    if isinstance(value, str):
        return pick(what, value, table)
    return float(value)


def etc_generate(tasks, machines, cls=None, *, method=None, consistency=None, task_het=None,
                 mach_het=None, mean=1000.0, v_task=0.1, v_mach=0.1, seed=1):
    """An ETC matrix (tasks x machines, float64) as etc-gen writes it, bit for bit.

    cls: a Braun class "u_c_hihi" ... "u_s_lolo" (range method, consistency c/s/i, task and
    machine heterogeneity hi/lo), or: method "range" (default) or "cvb"; consistency "c", "s"
    or "i" (default); task_het, mach_het "hi" (default), "lo" or a range R > 1 (range method);
    mean, v_task, v_mach (CVB method); seed (default 1)."""
    n = integer("tasks", tasks, 1, 1000000)
    m = integer("machines", machines, 2, 4096)
    if n * m > 67108864:
        raise ValueError(f"{n} x {m}: at most 67108864 values")
    if cls is not None:
        if any(v is not None for v in (method, consistency, task_het, mach_het)):
            raise ValueError("cls sets the method, consistency and heterogeneities: do not "
                             "combine it with method, consistency, task_het or mach_het")
        parts = cls.split("_") if isinstance(cls, str) else []
        if (len(parts) != 3 or parts[0] != "u" or parts[1] not in "csi" or len(parts[1]) != 1
                or len(parts[2]) != 4 or parts[2][:2] not in _TASK_HET
                or parts[2][2:] not in _MACH_HET):
            raise ValueError(f"cls: expected u_c_hihi ... u_s_lolo (c/s/i, hi/lo, hi/lo), "
                             f"got {cls!r}")
        method, consistency, task_het, mach_het = "range", parts[1], parts[2][:2], parts[2][2:]
    opts = {
        "method": pick("method", method or "range", {"range": 0, "cvb": 1}),
        "consistency": pick("consistency", consistency or "i", _CONSISTENCY),
        "r_task": _het("task_het", task_het or "hi", _TASK_HET),
        "r_mach": _het("mach_het", mach_het or "hi", _MACH_HET),
        "mean": float(mean), "v_task": float(v_task), "v_mach": float(v_mach),
        "seed": integer("seed", seed, 0),
    }
    out = numpy.empty((n, m))
    _devo.etc_generate(out, opts)
    return out
