# SPDX-License-Identifier: MIT
"""devo.schedule and devo.etc_generate: the same answers as devo schedule --steps and etc-gen,
the timeline's invariants, ready times, Ctrl-C, and the refusals with devo's messages."""

import json
import os
import signal
import threading

import numpy
import pytest

import devo


def write_csv(path, etc):
    """The matrix as CSV with round-trip doubles (the command reads the same values)."""
    with open(path, "w") as f:
        for row in etc:
            f.write(",".join(format(v, ".17g") for v in row) + "\n")


def check_timeline(etc, r, ready=None):
    n, m = etc.shape
    a = r.assignment
    assert a.shape == (n,) and a.min() >= 0 and a.max() < m
    assert numpy.array_equal(r.finish, r.start + etc[numpy.arange(n), a])  # as the C sums
    w = numpy.zeros(m) if ready is None else numpy.asarray(ready, float)
    for j in range(m):  # FCFS: each machine runs its tasks in index order from its ready time
        mine = numpy.flatnonzero(a == j)
        if mine.size:
            assert r.start[mine[0]] == w[j]
            assert numpy.array_equal(r.start[mine[1:]], r.finish[mine[:-1]])
            assert r.completion[j] == r.finish[mine[-1]]
        else:
            assert r.completion[j] == w[j]
    assert r.makespan == r.completion.max()
    assert r.flowtime == pytest.approx(r.finish.sum(), rel=1e-12)


@pytest.mark.parametrize("threads", [1, 2])
def test_same_answer_as_devo_schedule_steps(tmp_path, run_cli, devo_bin, threads):
    etc = devo.etc_generate(96, 8, "u_i_hihi", seed=5)
    path = tmp_path / "etc.csv"
    write_csv(path, etc)
    cli = json.loads(run_cli(devo_bin, "schedule", path, "--objective", "makespan", "--steps",
                             "300", "--seed", "11", "--time-limit", "30", "--json"))
    r = devo.schedule(etc, time_limit=30, objective="makespan", steps=300, seed=11,
                      backend="cpu", threads=threads)
    assert cli["stop"] == r.stop == "DEVO_OK"
    assert r.assignment.tolist() == [t["machine"] for t in cli["schedule"]]
    assert (r.makespan, r.flowtime) == (cli["makespan"], cli["flowtime"])
    assert r.finish.tolist() == [t["finish"] for t in cli["schedule"]]
    assert r.completion.tolist() == [p["completion"] for p in cli["per_machine"]]
    assert r.source == cli["best_from"]
    check_timeline(etc, r)


def test_weighted_pipeline_with_ready_times():
    etc = devo.etc_generate(64, 8, "u_c_lohi", seed=2)
    ready = numpy.arange(8) * 100.0
    r = devo.schedule(etc, time_limit=0.2, ready=ready, lam=0.5, seed=3)
    check_timeline(etc, r, ready)
    assert r.stop == "DEVO_TIME_LIMIT" and r.lam == 0.5 and r.order == "fcfs"
    m = etc.shape[1]
    assert r.objective == pytest.approx(0.5 * r.makespan + 0.5 * r.flowtime / m, rel=1e-12)
    assert r.elapsed < 0.2 + 0.05 and r.backend == "cpu"


def test_spt_order_and_heuristic_source():
    etc = devo.etc_generate(32, 4, seed=1)
    r = devo.schedule(etc, time_limit=0.05, order="spt", search="pipeline", backend="cpu")
    assert r.order == "spt" and set(r.assignment.tolist()) <= set(range(4))
    assert r.source in ("heuristic", "heuristic+ls", "de", "de+ls", "ils")


@pytest.mark.skipif(devo.gpu_available()[0], reason="a GPU is usable here")
def test_schedule_gpu_without_a_gpu_searches_on_the_cpu():
    with pytest.warns(RuntimeWarning, match="searching on the CPU"):
        r = devo.schedule(devo.etc_generate(16, 4), time_limit=0.05, backend="gpu")
    assert r.backend == "cpu"


@pytest.mark.parametrize("kwargs, text", [
    ({"etc": [[1.0, 0.0], [2.0, 3.0]]}, "> 0|positive"),
    ({"etc": [1.0, 2.0]}, "2-D"),
    ({"etc": [[1.0], [2.0]]}, "2 machines"),
    ({"objective": "makespan", "lam": 0.5}, "contradicts"),
    ({"objective": "fast"}, "objective"),
    ({"order": "lifo"}, "order"),
    ({"search": "magic"}, "search"),
    ({"ready": [1.0]}, "one time per machine"),
    ({"ready": [-1.0, 0.0]}, "ready"),
    ({"time_limit": 0}, "time_limit"),
    ({"steps": 0}, "steps"),
    ({"lam": 2}, "lam"),
])
def test_schedule_bad_arguments(kwargs, text):
    args = {"etc": [[1.0, 2.0], [3.0, 4.0]], "time_limit": 0.05}
    args.update(kwargs)
    with pytest.raises(ValueError, match=text):
        devo.schedule(args.pop("etc"), **args)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals are delivered to the main thread")
def test_ctrl_c_ends_a_schedule_with_its_best():
    etc = devo.etc_generate(512, 16, "u_i_hihi", seed=1)
    timer = threading.Timer(0.4, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        devo.schedule(etc, time_limit=60, backend="cpu")
    timer.join()
    r = e.value.result
    assert r.stop == "DEVO_INTERRUPTED" and r.elapsed < 10
    check_timeline(etc, r)


@pytest.mark.parametrize("args, kwargs", [
    (["--class", "u_c_hihi"], {"cls": "u_c_hihi"}),
    (["--class", "u_s_lolo", "--seed", "9"], {"cls": "u_s_lolo", "seed": 9}),
    (["--consistency", "i", "--task-het", "lo"], {"consistency": "i", "task_het": "lo"}),
    (["--method", "cvb", "--consistency", "s", "--mean", "50", "--v-task", "0.3",
      "--v-mach", "0.6"],
     {"method": "cvb", "consistency": "s", "mean": 50, "v_task": 0.3, "v_mach": 0.6}),
])
def test_etc_generate_equals_etc_gen(run_cli, etc_gen_bin, args, kwargs):
    out = run_cli(etc_gen_bin, "--tasks", "40", "--machines", "6", *args)
    want = [[float(v) for v in line.split(",")] for line in out.splitlines()]
    got = devo.etc_generate(40, 6, **kwargs)
    assert got.dtype == numpy.float64 and got.tolist() == want


def test_etc_generate_classes():
    c = devo.etc_generate(50, 8, "u_c_hihi")
    assert numpy.all(numpy.diff(c, axis=1) >= 0)  # consistent: every row ascending
    s = devo.etc_generate(50, 8, "u_s_hihi")
    assert numpy.all(numpy.diff(s[:, ::2], axis=1) >= 0)
    i = devo.etc_generate(50, 8, "u_i_lolo")
    assert numpy.all((i >= 1) & (i < 100 * 10))  # q_t in [1, 100), times U[1, 10)
    assert numpy.array_equal(devo.etc_generate(50, 8, seed=3), devo.etc_generate(50, 8, seed=3))
    assert not numpy.array_equal(devo.etc_generate(50, 8, seed=3), devo.etc_generate(50, 8))
    assert numpy.array_equal(devo.etc_generate(5, 3)[:5], devo.etc_generate(9, 3)[:5])


@pytest.mark.parametrize("args, kwargs, text", [
    ((10, 1), {}, "machines"),
    ((0, 4), {}, "tasks"),
    ((10, 4, "u_x_hihi"), {}, "u_c_hihi"),
    ((10, 4, "u_c_hihi"), {"consistency": "c"}, "do not combine"),
    ((10, 4), {"method": "cvb", "v_task": 10}, "v_task|V_task|coefficient"),
    ((10, 4), {"consistency": "q"}, "consistency"),
])
def test_etc_generate_bad_arguments(args, kwargs, text):
    with pytest.raises(ValueError, match=text):
        devo.etc_generate(*args, **kwargs)


def test_lower_bound_gap_and_small_instances_end_at_once():
    etc = numpy.array([[3.0, 5.0], [4.0, 2.0], [6.0, 6.0]])
    r = devo.schedule(etc, time_limit=10, objective="makespan")
    assert r.stop in ("DEVO_ENUMERATED", "DEVO_OPTIMAL")
    assert r.elapsed < 1.0
    # every assignment of 3 tasks to 2 machines, by hand: the optimum is the bound here
    best = min(max(sum(etc[t, m] for t in range(3) if (a >> t) & 1 == m) for m in (0, 1))
               for a in range(8))
    assert r.makespan == best and r.lower_bound <= best
    big = devo.etc_generate(512, 16, "u_c_hihi", seed=1)
    r = devo.schedule(big, time_limit=5, objective="makespan", gap=0.01, seed=1)
    assert 0 < r.lower_bound <= r.makespan
    assert abs(r.gap - (r.makespan - r.lower_bound) / r.lower_bound) <= 1e-12 * r.gap + 1e-15
    assert r.stop == "DEVO_GAP_REACHED" and r.gap <= 0.01 and r.elapsed < 5
    with pytest.raises(ValueError, match="gap is a fraction"):
        devo.schedule(etc, time_limit=1, gap=5)
