# SPDX-License-Identifier: MIT
"""The result type of devo.minimize and devo.schedule: a dict whose keys are also attributes,
as SciPy's OptimizeResult (without needing SciPy)."""


def _short(v):
    """A value for the repr: an array of more than a few numbers by its shape only."""
    shape = getattr(v, "shape", None)
    if shape is not None and getattr(v, "size", 0) > 12:
        return f"<array {'x'.join(map(str, shape))} {v.dtype}>"
    return repr(v)


class OptimizeResult(dict):
    """A dict with attribute access: ``res.x`` is ``res["x"]``."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__

    def __repr__(self):
        if not self:
            return self.__class__.__name__ + "()"
        width = max(len(k) for k in self) + 1
        return "\n".join(f"{k.rjust(width)}: {_short(v)}" for k, v in self.items())

    def __dir__(self):
        return list(self.keys())


class ScheduleResult(OptimizeResult):
    """The answer of devo.schedule (same access as OptimizeResult)."""
