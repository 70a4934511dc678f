# SPDX-License-Identifier: MIT
"""devo.minimize: the same bits as devo solve, SciPy's result fields, Python objectives (layout,
errors, exceptions), callbacks, Ctrl-C, the GIL, and the refusals with devo's messages."""

import json
import math
import os
import signal
import threading
import time

import numpy
import pytest

import devo


def sphere_cols(x):
    """Unshifted sphere on the columns of x (D, S)."""
    return (x * x).sum(axis=0)


def cli_solve(run_cli, devo_bin, *args):
    return json.loads(run_cli(devo_bin, "solve", "--json", *args))


@pytest.mark.parametrize("extra, kwargs", [
    ([], {}),
    (["--strategy", "best1exp", "--np", "40", "--f", "0.7", "--cr", "0.3"],
     {"strategy": "best1exp", "np": 40, "f": 0.7, "cr": 0.3}),
    (["--algorithm", "jde", "--jde-tau1", "0.2"], {"algorithm": "jde", "jde_tau1": 0.2}),
    (["--algorithm", "lshade"], {"algorithm": "lshade"}),
    (["--bounds", "reflect", "--gobl", "0.1"], {"boundary": "reflect", "gobl": 0.1}),
])
def test_same_bits_as_devo_solve(run_cli, devo_bin, cec_data, extra, kwargs):
    cli = cli_solve(run_cli, devo_bin, "--problem", "F03", "--dim", "10", "--seed", "7",
                    "--max-evals", "20000", "--cec-data", cec_data, *extra)
    r = devo.minimize("F03", dim=10, seed=7, maxfev=20000, cec_data=cec_data, **kwargs)
    assert r.fun == cli["best"]  # bit for bit: the JSON prints round-trip doubles
    assert r.x.tolist() == cli["x"]
    assert (r.nfev, r.nit, r.stop) == (cli["evaluations"], cli["generations"], cli["stop"])
    assert r.fstar == cli["fstar"]


def test_same_bits_with_target_and_generated_data(run_cli, devo_bin):
    cli = cli_solve(run_cli, devo_bin, "--problem", "rastrigin", "--dim", "5", "--seed", "3",
                    "--data-seed", "9", "--target", "1e-3", "--ranges", "cec2005")
    r = devo.minimize("rastrigin", dim=5, seed=3, data_seed=9, target=1e-3, ranges="cec2005")
    assert (r.fun, r.nfev, r.stop) == (cli["best"], cli["evaluations"], "DEVO_TARGET_REACHED")
    assert r.fun - r.fstar <= 1e-3


def test_result_fields():
    r = devo.minimize("sphere", dim=4, np=20, maxfev=2000, seed=1)
    for key in ("x", "fun", "nfev", "nit", "success", "status", "message", "population",
                "population_energies", "stop", "elapsed", "backend"):
        assert key in r and getattr(r, key) is r[key]
    assert r.x.shape == (4,) and r.population.shape == (20, 4)
    assert r.population_energies.shape == (20,)
    assert r.fun == r.population_energies.min()
    assert (r.nfev, r.nit, r.status, r.stop) == (2000, 99, 2, "DEVO_EVAL_LIMIT")
    assert r.success and r.message == "evaluation limit reached" and r.backend == "cpu"
    assert "population" in repr(r)


def test_default_budget_is_devo_solves():
    r = devo.minimize("sphere", dim=2, np=10)
    assert r.nfev == 20000 and r.stop == "DEVO_EVAL_LIMIT"


def test_python_objective_layout_and_answer():
    shapes = []

    def fun(x):
        shapes.append(x.shape)
        return sphere_cols(x - 1.5)

    r = devo.minimize(fun, [(-5, 5)] * 3, np=16, maxiter=300, seed=2)
    assert shapes[0][0] == 3 and all(s[0] == 3 for s in shapes)
    assert sum(s[1] for s in shapes) >= r.nfev  # every evaluation went through fun
    assert r.fun < 1e-8 and numpy.allclose(r.x, 1.5, atol=1e-4)
    assert r.fun == fun(r.x[:, None])[0]
    assert numpy.all((r.population >= -5) & (r.population <= 5))


def test_python_objective_is_reproducible_and_seeded():
    a = devo.minimize(sphere_cols, [(-1, 1)] * 5, np=12, maxfev=1200, seed=4)
    b = devo.minimize(sphere_cols, [(-1, 1)] * 5, np=12, maxfev=1200, seed=4)
    c = devo.minimize(sphere_cols, [(-1, 1)] * 5, np=12, maxfev=1200, seed=5)
    assert a.fun == b.fun and numpy.array_equal(a.population, b.population)
    assert not numpy.array_equal(a.population, c.population)


def test_python_objective_gets_a_fresh_array():
    kept = []

    def fun(x):
        kept.append(x)
        x[:] = 0.0  # the caller's copy: must not change the population
        return numpy.ones(x.shape[1])

    r = devo.minimize(fun, [(2, 3)] * 2, np=8, maxfev=24)
    assert numpy.all(r.population >= 2)
    assert len(kept) >= 3 and all(numpy.all(k == 0.0) for k in kept)


def test_python_objective_threads_give_the_same_bits():
    one = devo.minimize(sphere_cols, [(-1, 1)] * 6, np=32, maxfev=3200, seed=8)
    two = devo.minimize(sphere_cols, [(-1, 1)] * 6, np=32, maxfev=3200, seed=8, threads=2)
    assert one.fun == two.fun and numpy.array_equal(one.population, two.population)


def test_python_objective_errors_are_raised():
    def boom(x):
        raise ZeroDivisionError("from the objective")

    with pytest.raises(ZeroDivisionError, match="from the objective"):
        devo.minimize(boom, [(0, 1)] * 2)
    with pytest.raises(ValueError, match=r"one value per column of x \(10,\)"):
        devo.minimize(lambda x: x.sum(axis=1), [(0, 1)] * 2, np=10)


def test_nan_counts_as_infinity():
    def fun(x):
        f = sphere_cols(x)
        f[x[0] > 0] = numpy.nan
        return f

    r = devo.minimize(fun, [(-1, 1)] * 2, np=10, maxfev=2000, seed=1)
    assert r.x[0] <= 0 and math.isfinite(r.fun)


def test_uniform_and_per_coordinate_bounds():
    r = devo.minimize(sphere_cols, [(-2, 3)] * 3, np=10, maxfev=100)
    assert numpy.all((r.population >= -2) & (r.population <= 3))
    box = numpy.array([(0.5, 1.0), (-5.0, -4.0), (3.0, 4.0)])
    r = devo.minimize(sphere_cols, box, np=12, maxfev=3000, seed=2)
    lo, hi = box[:, 0], box[:, 1]
    assert numpy.all((r.population >= lo) & (r.population <= hi))
    assert numpy.all((r.x >= lo) & (r.x <= hi))
    # the best corner of this box for sum(x^2) is (0.5, -4, 3)
    assert abs(r.fun - (0.25 + 16 + 9)) < 1e-3
    with pytest.raises(ValueError, match="bounds has 2 pairs but dim is 3"):
        devo.minimize(sphere_cols, [(0, 1)] * 2, dim=3)
    with pytest.raises(ValueError, match=r"\(low, high\) pairs"):
        devo.minimize(sphere_cols, [0, 1])


def test_objective_called_once_per_generation():
    shapes = []

    def fun(x):
        shapes.append(x.shape)
        return sphere_cols(x)

    devo.minimize(fun, [(-1, 1)] * 4, np=300, maxiter=20, seed=1)
    # the initial population, then one call per generation, each with every vector
    assert len(shapes) == 21 and set(shapes) == {(4, 300)}


def test_builtin_box():
    r = devo.minimize("rastrigin", [(-90, 90)] * 4, np=10, maxfev=100)
    assert numpy.all(numpy.abs(r.population) <= 90)
    with pytest.raises(ValueError, match="excludes the optimum"):
        devo.minimize("sphere", [(-1, 1)] * 5)


@pytest.mark.parametrize("call, exc, text", [
    (lambda: devo.minimize("sphere", dim=5, np=3), ValueError, "population size 3"),
    (lambda: devo.minimize("sphere", dim=5, f=3), ValueError, r"F = 3 is out of range"),
    (lambda: devo.minimize("nosuch", dim=5), ValueError, "unknown problem 'nosuch'"),
    (lambda: devo.minimize("sphere", dim=5, strategy="rand9bin"), ValueError, "rand9bin"),
    (lambda: devo.minimize("sphere", dim=5, algorithm="foo"), ValueError, "unknown algorithm"),
    (lambda: devo.minimize("sphere", dim=5, maxfev=50), ValueError, "below the population"),
    (lambda: devo.minimize("sphere", dim=5, backend="tpu"), ValueError, "backend"),
    (lambda: devo.minimize("sphere", dim=5, jde_tau1=0.2), ValueError, "needs jde=True"),
    (lambda: devo.minimize("sphere", dim=5, pbest=0.2), ValueError, "needs algorithm"),
    (lambda: devo.minimize("sphere", dim=5, algorithm="jade", strategy="best1bin"), ValueError,
     "do not apply to jade"),
    (lambda: devo.minimize("sphere", dim=5, algorithm="jde", jde_fl=1.5, jde_fu=1),
     ValueError, "exceeds 2"),
    (lambda: devo.minimize("sphere", dim=5, target=-1), ValueError, "must be >= 0"),
    (lambda: devo.minimize("F03", dim=10, cec_data="/nonexistent"), OSError, "cannot open"),
    (lambda: devo.minimize(sphere_cols, [(0, 1)] * 2, backend="gpu"), ValueError,
     "CPU backend only"),
    (lambda: devo.minimize(sphere_cols, [(1, 0)] * 2), ValueError, "lower < upper"),
    (lambda: devo.minimize(sphere_cols), TypeError, "needs bounds"),
    (lambda: devo.minimize("sphere"), TypeError, "needs dim"),
    (lambda: devo.minimize(42, dim=2), TypeError, "name or a callable"),
    (lambda: devo.minimize("sphere", dim=2, np=True), TypeError, "integer"),
    (lambda: devo.minimize("sphere", dim=2, popsize=15), TypeError, "popsize"),
])
def test_bad_arguments(call, exc, text):
    with pytest.raises(exc, match=text):
        call()


def test_variants_run():
    r = devo.minimize("sphere", dim=5, algorithm="lshade", maxfev=5000, seed=1)
    assert r.population.shape[0] < 90 and r.population.shape[1] == 5  # NP from 18 D down
    r = devo.minimize("sphere", dim=5, algorithm="jade", np=30, pbest=0.1, maxfev=3000)
    assert r.population.shape == (30, 5) and r.nfev == 3000


def test_callback_sees_progress_and_stops():
    seen = []

    def cb(res):
        seen.append((res.nit, res.nfev, res.fun))
        return len(seen) == 3

    r = devo.minimize("rastrigin", dim=10, maxfev=10**9, callback=cb)
    assert len(seen) == 3 and r.stop == "DEVO_STOPPED_BY_CALLBACK" and not r.success
    assert [s[1] for s in seen] == sorted(s[1] for s in seen)
    assert seen[-1][2] >= r.fun

    def stop_iter(res):
        raise StopIteration

    assert devo.minimize("sphere", dim=3, callback=stop_iter).status == 6

    def bad(res):
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        devo.minimize("sphere", dim=3, callback=bad)


def test_keyboard_interrupt_from_the_objective_keeps_the_best():
    calls = [0]

    def fun(x):
        calls[0] += 1
        if calls[0] == 20:
            raise KeyboardInterrupt
        return sphere_cols(x)

    with pytest.raises(KeyboardInterrupt) as e:
        devo.minimize(fun, [(-1, 1)] * 3, np=10, maxfev=10**6)
    r = e.value.result
    assert r.stop == "DEVO_INTERRUPTED" and not r.success
    assert r.fun == r.population_energies.min() and math.isfinite(r.fun)
    assert calls[0] == 20  # no call after the interrupt


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals are delivered to the main thread")
def test_ctrl_c_ends_a_builtin_run_with_its_best():
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    t = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        devo.minimize("rastrigin", dim=30, time_limit=60)
    timer.join()
    assert time.monotonic() - t < 10
    r = e.value.result
    assert r.stop == "DEVO_INTERRUPTED" and r.elapsed < 10 and math.isfinite(r.fun)


def test_the_gil_is_released_while_devo_works():
    done = threading.Event()
    out = {}

    def work():
        out["r"] = devo.minimize("rastrigin", dim=30, time_limit=0.6)
        done.set()

    th = threading.Thread(target=work)
    th.start()
    ticks = 0
    while not done.is_set():  # Python code runs beside the solve
        ticks += 1
        time.sleep(0.001)
    th.join()
    assert out["r"].stop == "DEVO_TIME_LIMIT" and ticks >= 50


def test_time_limit():
    r = devo.minimize("rastrigin", dim=10, time_limit=0.2)
    assert r.stop == "DEVO_TIME_LIMIT" and 0.15 < r.elapsed < 1.0


def test_problems_list():
    ps = devo.problems()
    names = [p.name for p in ps]
    assert len(names) == len(set(names)) and "rastrigin" in names
    f03 = next(p for p in ps if p.alias == "F03")
    assert f03.fstar == devo.minimize("F03", dim=10, maxfev=100).fstar
    assert all(p.lower < p.upper and p.min_dim >= 1 for p in ps)
    assert 10 in f03.official


def test_problems_match_devo_list(run_cli, devo_bin):
    out = run_cli(devo_bin, "list-problems")
    for p in devo.problems():
        assert p.name in out


def test_gpu_available_answers():
    ok, msg = devo.gpu_available()
    assert isinstance(ok, bool) and isinstance(msg, str) and msg


@pytest.mark.skipif(devo.gpu_available()[0], reason="a GPU is usable here")
def test_gpu_without_a_gpu_runs_on_the_cpu_with_a_warning():
    with pytest.warns(RuntimeWarning, match="the GPU cannot be used .*; running on the CPU"):
        r = devo.minimize("sphere", dim=3, backend="gpu", maxfev=200, seed=2)
    assert r.backend == "cpu"
    assert r.fun == devo.minimize("sphere", dim=3, maxfev=200, seed=2).fun
