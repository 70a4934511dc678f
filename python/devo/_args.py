# SPDX-License-Identifier: MIT
"""Checks of the option values shared by devo.minimize, devo.schedule and devo.etc_generate:
one clear ValueError or TypeError naming the option, as the devo command's one-line errors."""

import operator


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
