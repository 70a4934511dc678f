# SPDX-License-Identifier: MIT
"""devo: differential evolution on the CPU and NVIDIA GPUs, and time-bounded scheduling of
independent tasks, from Python (docs/python.md). The engine is libdevo, linked into devo._devo.

    devo.minimize(fun, bounds, ...)     DE on a built-in function or a Python objective
    devo.schedule(etc, time_limit=...)  tasks to machines within a deadline
    devo.etc_generate(tasks, machines)  ETC matrices (Braun range-based and CVB classes)
    devo.problems()                     the built-in functions
"""

from collections import namedtuple

from . import _devo
from ._optimize import minimize
from ._result import OptimizeResult, ScheduleResult
from ._schedule import etc_generate, schedule

__version__ = _devo.version()
__all__ = ["minimize", "schedule", "etc_generate", "problems", "gpu_available",
           "OptimizeResult", "ScheduleResult", "BuiltinProblem", "__version__"]

BuiltinProblem = namedtuple(
    "BuiltinProblem", "name alias source fstar min_dim official lower upper")
BuiltinProblem.__doc__ = """A built-in function: canonical name, short alias ("" if none),
description, optimum value f*, smallest dimension, dimensions with official CEC data (a tuple),
and the default box [lower, upper]^D."""


def problems():
    """The built-in problems (devo list-problems), as BuiltinProblem tuples."""
    out = []
    for b in _devo.builtins():
        official = tuple(int(d) for d in b["official"].split(",") if d)
        out.append(BuiltinProblem(b["name"], b["alias"], b["source"], b["fstar"], b["min_dim"],
                                  official, b["lower"], b["upper"]))
    return out


def gpu_available():
    """(True, device name) when libdevo was built with CUDA and a GPU answers, else (False,
    the reason). The first call starts the GPU driver (about a second)."""
    return _devo.gpu_available()
