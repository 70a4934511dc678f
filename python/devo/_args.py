# SPDX-License-Identifier: MIT
"""What devo.minimize, devo.schedule and devo.etc_generate share: checks of option values (one
clear ValueError or TypeError naming the option, as the devo command's one-line errors) and the
choice of the backend."""

import operator
import warnings

from . import _devo

BACKENDS = {"cpu": 0, "gpu": 1, "auto": 2}  # DEVO_BACKEND_*


def pick(what, value, table):
    """table[value] for a name among table's keys."""
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"{what}: unknown value {value!r} ({', '.join(table)})") from None


def integer(what, value, low=1, high=None):
    """An integer in [low, high] (bools are refused: True is not a population size)."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None
    if n < low or (high is not None and n > high):
        raise ValueError(f"{what} must be in [{low}, {high}], got {n}" if high is not None
                         else f"{what} must be >= {low}, got {n}")
    return n


def usable_backend(code, doing):
    """The backend to run on, as the devo command picks it: the GPU (gpu or auto) only when one
    answers, started here so that its start-up is outside any time limit; else the CPU, said in
    a RuntimeWarning when the GPU was asked for."""
    if code == BACKENDS["cpu"]:
        return code
    ok, msg = _devo.gpu_available()
    if ok:
        return code
    if code == BACKENDS["gpu"]:
        warnings.warn(f"devo: the GPU cannot be used ({msg}); {doing} on the CPU", RuntimeWarning,
                      stacklevel=4)
    return BACKENDS["cpu"]
