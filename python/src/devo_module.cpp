// SPDX-License-Identifier: MIT
// devo_module.cpp: devo._devo, the extension module under the Python package (python/devo):
// thin nanobind bindings of the public C API (devo.h) plus the ETC generator. Handles mirror the
// C handles (Problem, Solver); the package's Python code composes them into devo.minimize,
// devo.schedule and the rest, and allocates the output arrays that these functions fill.
// devo works with the GIL released. The Python objective, the progress callback and the signal
// check (Ctrl-C: PyErr_CheckSignals, then devo_interrupt) take it back while they run.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "devo.h"
extern "C" {
#include "problems/etc_gen.h"
}

namespace nb = nanobind;
using namespace nb::literals;

namespace
{

using in1d = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using in2d = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using out1d = nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using out2d = nb::ndarray<double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using out_int = nb::ndarray<int, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A failed devo call as the Python exception of its kind, with devo's one-line message.
[[noreturn]] void raise_status(int st, const char *msg)
{
  const std::string text = msg && *msg ? msg : devo_status_message(st);
  PyObject *type = PyExc_RuntimeError;
  switch (st) {
  case DEVO_E_INVALID:
  case DEVO_E_PARSE:
    type = PyExc_ValueError;
    break;
  case DEVO_E_IO:
    type = PyExc_OSError;
    break;
  case DEVO_E_NOMEM:
    type = PyExc_MemoryError;
    break;
  default:
    break;
  }
  PyErr_SetString(type, text.c_str());
  throw nb::python_error();
}

// What a run hands to the callbacks that devo calls with the GIL released: the solver to
// interrupt, the Python objects to call, and what happened in Python meanwhile.
struct run_ctx {
  devo_solver *solver = nullptr;
  nb::object fun;                           // the objective wrapper (python/devo/_optimize.py)
  nb::object callback;                      // the progress callback, or None
  bool keyboard = false;                    // Ctrl-C seen: devo_interrupt was called
  std::optional<nb::python_error> error;    // another Python error, raised after the run
  volatile std::sig_atomic_t stop_flag = 0; // devo_schedule_opts.interrupt
};

// Ctrl-C between chunks: Python's SIGINT handler only sets a flag while devo runs; running the
// handler here (GIL held) turns it into KeyboardInterrupt, which ends the run with its best.
// Returns false when a signal handler raised another exception (kept in c->error).
bool check_signals(run_ctx *c)
{
  if (PyErr_CheckSignals() == 0)
    return true;
  if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
    PyErr_Clear();
    c->keyboard = true;
    c->stop_flag = 1;
    if (c->solver)
      devo_interrupt(c->solver);
    return true;
  }
  c->error.emplace();
  return false;
}

// devo_objective_fn for a Python objective: x (n rows of dim) is copied into a new array
// handed over as SciPy's vectorized layout, shape (dim, n); the wrapper returns n float64.
int user_objective(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  auto *c = static_cast<run_ctx *>(ud);
  nb::gil_scoped_acquire gil;
  if (c->keyboard || c->error) { // already stopping: no more Python calls
    for (size_t k = 0; k < n; ++k)
      f[k] = std::numeric_limits<double>::infinity();
    return c->error ? 1 : 0;
  }
  try {
    double *buf = new double[n * dim];
    std::memcpy(buf, x, n * dim * sizeof(double));
    nb::capsule owner(buf, [](void *p) noexcept { delete[] static_cast<double *>(p); });
    const size_t shape[2] = {dim, n};
    const int64_t strides[2] = {1, static_cast<int64_t>(dim)};
    nb::ndarray<nb::numpy, double> arr(buf, 2, shape, owner, strides);
    nb::object r = c->fun(arr);
    in1d out = nb::cast<in1d>(r);
    if (out.shape(0) != n) {
      PyErr_Format(PyExc_ValueError, "the objective returned %zu values for %zu vectors",
                   static_cast<size_t>(out.shape(0)), n);
      throw nb::python_error();
    }
    std::memcpy(f, out.data(), n * sizeof(double));
    return 0;
  } catch (nb::python_error &e) {
    if (e.matches(PyExc_KeyboardInterrupt)) {
      c->keyboard = true;
      if (c->solver)
        devo_interrupt(c->solver); // the partial generation is dropped (devo.h)
      for (size_t k = 0; k < n; ++k)
        f[k] = std::numeric_limits<double>::infinity();
      return 0;
    }
    c->error.emplace(std::move(e));
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    c->error.emplace();
  }
  return 1;
}

// devo_progress_fn of devo_solve: the signal check, then the Python callback (True or
// StopIteration stops the run; another exception stops it and is raised after it).
int solve_progress(void *ud, const devo_progress *p)
{
  auto *c = static_cast<run_ctx *>(ud);
  nb::gil_scoped_acquire gil;
  if (!check_signals(c))
    return 1;
  if (c->callback.is_none())
    return 0;
  try {
    nb::object r = c->callback(p->generation, p->evaluations, p->elapsed, p->best);
    return nb::cast<bool>(r) ? 1 : 0;
  } catch (nb::python_error &e) {
    if (e.matches(PyExc_StopIteration))
      return 1;
    if (e.matches(PyExc_KeyboardInterrupt)) { // raised by the callback itself: Ctrl-C too
      c->keyboard = true;
      devo_interrupt(c->solver);
      return 0;
    }
    c->error.emplace(std::move(e));
    return 1;
  }
}

// devo_progress_fn of devo_schedule_run: the signal check only (it sets the interrupt flag).
int schedule_progress(void *ud, const devo_progress *)
{
  auto *c = static_cast<run_ctx *>(ud);
  nb::gil_scoped_acquire gil;
  return check_signals(c) ? 0 : 1;
}

class Problem
{
public:
  Problem()
  {
    if (devo_problem_create(&p_, nullptr) != DEVO_OK)
      throw std::bad_alloc();
  }
  ~Problem()
  {
    devo_problem_destroy(p_);
  }
  Problem(const Problem &) = delete;
  Problem &operator=(const Problem &) = delete;

  void set_builtin(const std::string &name, int dim, uint64_t data_seed,
                   std::optional<std::string> data_dir)
  {
    int st;
    {
      nb::gil_scoped_release nogil; // CEC data at a large D takes seconds
      st = devo_problem_set_builtin(p_, name.c_str(), dim, data_seed,
                                    data_dir ? data_dir->c_str() : nullptr);
    }
    check(st);
  }
  void set_user(int dim, double lower, double upper, nb::object fun)
  {
    check(devo_problem_set_user(p_, dim, lower, upper, user_objective, &ctx));
    ctx.fun = std::move(fun);
  }
  void set_box(double lower, double upper)
  {
    check(devo_problem_set_box(p_, lower, upper));
  }
  // a box per coordinate (dim values each, copied by libdevo)
  void set_bounds(in1d lower, in1d upper)
  {
    const size_t d = (size_t)devo_problem_dim(p_);
    if (lower.shape(0) != d || upper.shape(0) != d)
      throw nb::value_error("bounds: one (low, high) pair per coordinate is needed");
    check(devo_problem_set_bounds(p_, lower.data(), upper.data()));
  }
  // vectors per call of a user objective at most (0: devo's choice)
  void set_user_batch(int n)
  {
    check(devo_problem_set_user_batch(p_, n));
  }
  void set_ranges(const std::string &r)
  {
    check(devo_problem_set_ranges(p_, r.c_str()));
  }
  int dim() const
  {
    return devo_problem_dim(p_);
  }
  std::pair<double, double> bounds() const
  {
    double lo = 0, hi = 0;
    devo_problem_bounds(p_, &lo, &hi);
    return {lo, hi};
  }
  double fstar() const
  {
    return devo_problem_fstar(p_);
  }

  devo_problem *p_ = nullptr;
  run_ctx ctx; // the objective's context, shared with the solver during a run

private:
  void check(int st)
  {
    if (st != DEVO_OK)
      raise_status(st, devo_problem_errmsg(p_));
  }
};

// devo_variant's fields by name: an int or a double member.
struct variant_field {
  const char *name;
  int devo_variant::*i;
  double devo_variant::*d;
};
const variant_field variant_fields[] = {{"strategy", &devo_variant::strategy, nullptr},
                                        {"crossover", &devo_variant::crossover, nullptr},
                                        {"jde", &devo_variant::jde, nullptr},
                                        {"tau1", nullptr, &devo_variant::tau1},
                                        {"tau2", nullptr, &devo_variant::tau2},
                                        {"fl", nullptr, &devo_variant::fl},
                                        {"fu", nullptr, &devo_variant::fu},
                                        {"crl", nullptr, &devo_variant::crl},
                                        {"cru", nullptr, &devo_variant::cru},
                                        {"gobl", nullptr, &devo_variant::gobl},
                                        {"adapt", &devo_variant::adapt, nullptr},
                                        {"p", nullptr, &devo_variant::p},
                                        {"arc_rate", nullptr, &devo_variant::arc_rate},
                                        {"hist", &devo_variant::hist, nullptr},
                                        {"c", nullptr, &devo_variant::c},
                                        {"lpsr", &devo_variant::lpsr, nullptr},
                                        {"np_min", &devo_variant::np_min, nullptr}};

class Solver
{
public:
  explicit Solver(Problem &prob) : prob_(prob)
  {
    const int st = devo_solver_create(&s_, prob.p_, nullptr);
    if (st != DEVO_OK)
      raise_status(st, "cannot create a solver");
  }
  ~Solver()
  {
    devo_solver_destroy(s_);
  }
  Solver(const Solver &) = delete;
  Solver &operator=(const Solver &) = delete;

  void check(int st)
  {
    if (st != DEVO_OK)
      raise_status(st, devo_solver_errmsg(s_));
  }

  // Runs devo_solve without the GIL. Returns the status and whether Ctrl-C ended it; a Python
  // error of the objective or the callback is raised here, after the run.
  std::pair<int, bool> solve(nb::object callback)
  {
    run_ctx &c = prob_.ctx;
    c.solver = s_;
    c.callback = std::move(callback);
    c.keyboard = false;
    c.error.reset();
    check(devo_solver_set_progress(s_, solve_progress, &c));
    int st;
    {
      nb::gil_scoped_release nogil;
      st = devo_solve(s_);
    }
    devo_solver_set_progress(s_, nullptr, nullptr);
    c.solver = nullptr;
    c.callback = nb::none();
    if (c.error) {
      nb::python_error e = std::move(*c.error);
      c.error.reset();
      throw e;
    }
    if (st < 0)
      raise_status(st, devo_solver_errmsg(s_));
    return {st, c.keyboard};
  }

  double best(out1d x)
  {
    double v = 0;
    check(devo_solver_best(s_, &v, x.data()));
    return v;
  }
  nb::dict stats()
  {
    devo_stats s;
    check(devo_solver_stats(s_, &s));
    nb::dict d;
    d["generations"] = s.generations;
    d["evaluations"] = s.evaluations;
    d["elapsed"] = s.elapsed;
    d["init_seconds"] = s.init_seconds;
    d["status"] = s.status;
    d["backend"] = s.backend == DEVO_BACKEND_GPU ? "gpu" : "cpu";
    d["backend_info"] = devo_solver_backend_info(s_);
    return d;
  }
  void population(out2d pop, out1d fit)
  {
    check(devo_solver_population(s_, pop.data(), fit.data()));
  }
  // The current population size of a JADE/SHADE run (L-SHADE shrinks it), else -1.
  int shade_np()
  {
    devo_shade_state st;
    if (devo_solver_shade_state(s_, &st, nullptr, nullptr, nullptr, nullptr, nullptr) != DEVO_OK)
      return -1;
    return st.np;
  }
  // The variant as a dict of devo_variant's fields (the package changes some and sets it back).
  nb::dict get_variant()
  {
    devo_variant v;
    devo_solver_get_variant(s_, &v);
    nb::dict d;
    for (const variant_field &f : variant_fields)
      d[f.name] = f.i ? nb::cast(v.*f.i) : nb::cast(v.*f.d);
    return d;
  }
  void set_variant(nb::dict d)
  {
    devo_variant v;
    devo_solver_get_variant(s_, &v);
    for (const variant_field &f : variant_fields) {
      if (f.i)
        v.*f.i = nb::cast<int>(d[f.name]);
      else
        v.*f.d = nb::cast<double>(d[f.name]);
    }
    check(devo_solver_set_variant(s_, &v));
  }

  devo_solver *s_ = nullptr;

private:
  Problem &prob_;
};

// devo_schedule_run on a matrix in memory; fills assign, start and finish (timeline).
nb::dict schedule(in2d etc, in1d ready, nb::dict o, out_int assign, out1d start, out1d finish)
{
  char err[512] = "";
  devo_etc *e = nullptr;
  const int n = static_cast<int>(etc.shape(0)), m = static_cast<int>(etc.shape(1));
  if (etc.shape(0) > static_cast<size_t>(DEVO_ETC_MAX_TASKS) ||
      etc.shape(1) > static_cast<size_t>(DEVO_ETC_MAX_MACHINES))
    raise_status(DEVO_E_INVALID, "etc: too many tasks or machines (at most 1000000 x 4096)");
  int st = devo_etc_create(&e, n, m, etc.data(), nullptr, err, sizeof err);
  if (st == DEVO_OK && ready.shape(0) != static_cast<size_t>(m)) {
    devo_etc_destroy(e);
    raise_status(DEVO_E_INVALID, "ready: one ready time per machine is needed");
  }
  if (st == DEVO_OK)
    st = devo_etc_set_ready(e, ready.data(), err, sizeof err);
  if (st != DEVO_OK) {
    devo_etc_destroy(e);
    raise_status(st, err);
  }
  devo_schedule_opts so;
  devo_schedule_opts_init(&so);
  so.time_limit = nb::cast<double>(o["time_limit"]);
  so.lambda = nb::cast<double>(o["lambda"]);
  so.order = nb::cast<int>(o["order"]);
  so.search = nb::cast<int>(o["search"]);
  so.gap = nb::cast<double>(o["gap"]);
  so.seed = nb::cast<uint64_t>(o["seed"]);
  so.backend = nb::cast<int>(o["backend"]);
  so.steps = nb::cast<int64_t>(o["steps"]);
  so.threads = nb::cast<int>(o["threads"]);
  so.chains = nb::cast<int>(o["chains"]);
  if (o.contains("np"))
    so.np = nb::cast<int>(o["np"]);
  run_ctx c;
  so.interrupt = &c.stop_flag;
  so.progress = schedule_progress;
  so.progress_ud = &c;
  devo_schedule_result r;
  {
    nb::gil_scoped_release nogil;
    st = devo_schedule_run(e, &so, assign.data(), &r);
    if (st == DEVO_OK)
      st = devo_etc_timeline(e, assign.data(), so.order, start.data(), finish.data());
  }
  devo_etc_destroy(e);
  if (c.error)
    throw *c.error;
  if (st != DEVO_OK)
    raise_status(st, r.message);
  nb::dict d;
  d["makespan"] = r.makespan;
  d["flowtime"] = r.flowtime;
  d["objective"] = r.objective;
  d["evaluations"] = r.evaluations;
  d["generations"] = r.generations;
  d["ls_moves"] = r.ls_moves;
  d["ils_rounds"] = r.ils_rounds;
  d["status"] = r.status;
  d["source"] = devo_schedule_source_name(r.source);
  d["heuristic"] = r.heuristic >= 0 ? nb::object(nb::cast(devo_heuristic_name(r.heuristic)))
                                    : nb::object(nb::none());
  d["backend"] = r.backend == DEVO_BACKEND_GPU ? "gpu" : "cpu";
  d["lower_bound"] = r.lower_bound;
  d["gap"] = r.gap;
  d["search"] = r.search >= 0 ? nb::object(nb::cast(devo_schedule_search_name(r.search)))
                              : nb::object(nb::none());
  d["elapsed"] = r.elapsed;
  d["keyboard"] = c.keyboard;
  return d;
}

// devo__etcgen_run: ETC matrices of the range-based (Braun) and CVB methods into out.
void etc_generate(out2d out, nb::dict o)
{
  devo__etcgen g;
  char err[256] = "";
  devo__etcgen_defaults(&g);
  g.ntasks = static_cast<int>(out.shape(0));
  g.nmach = static_cast<int>(out.shape(1));
  g.method = nb::cast<int>(o["method"]);
  g.consistency = nb::cast<int>(o["consistency"]);
  g.r_task = nb::cast<double>(o["r_task"]);
  g.r_mach = nb::cast<double>(o["r_mach"]);
  g.mean = nb::cast<double>(o["mean"]);
  g.v_task = nb::cast<double>(o["v_task"]);
  g.v_mach = nb::cast<double>(o["v_mach"]);
  g.seed = nb::cast<uint64_t>(o["seed"]);
  int rc;
  {
    nb::gil_scoped_release nogil;
    rc = devo__etcgen_run(&g, out.data(), err, sizeof err);
  }
  if (rc != 0)
    raise_status(DEVO_E_INVALID, err);
}

nb::list builtins()
{
  nb::list out;
  const int n = devo_builtin_count();
  for (int k = 0; k < n; ++k) {
    devo_builtin_info b;
    if (devo_builtin_get(k, &b) != DEVO_OK)
      continue;
    nb::dict d;
    d["name"] = b.name;
    d["alias"] = b.alias;
    d["source"] = b.source;
    d["fstar"] = b.fstar;
    d["min_dim"] = b.min_dim;
    d["official"] = b.official;
    d["lower"] = b.lower;
    d["upper"] = b.upper;
    out.append(d);
  }
  return out;
}

std::pair<bool, std::string> gpu_available()
{
  char msg[256] = "";
  int ok;
  {
    nb::gil_scoped_release nogil; // the first call starts the driver (about 1 s)
    ok = devo_gpu_available(msg, sizeof msg);
  }
  return {ok != 0, msg};
}

// A strategy name ("rand1bin", ...) as (DEVO_STRATEGY_*, DEVO_CROSSOVER_*).
std::pair<int, int> parse_strategy(const std::string &name)
{
  int s = 0, c = 0;
  if (devo_strategy_parse(name.c_str(), &s, &c) != DEVO_OK)
    raise_status(DEVO_E_INVALID, ("strategy: unknown strategy '" + name + "'").c_str());
  return {s, c};
}

} // namespace

NB_MODULE(_devo, m)
{
  m.doc() = "devo's C library (libdevo) for the devo package; use devo.minimize and friends";
  m.def("version", &devo_version);
  m.def("status_name", &devo_status_name);
  m.def("status_message", &devo_status_message);
  m.def("builtins", &builtins);
  m.def("gpu_available", &gpu_available);
  m.def("parse_strategy", &parse_strategy);
  m.def("schedule", &schedule);
  m.def("etc_generate", &etc_generate);

  nb::class_<Problem>(m, "Problem")
      .def(nb::init<>())
      .def("set_builtin", &Problem::set_builtin, "name"_a, "dim"_a, "data_seed"_a,
           "data_dir"_a.none())
      .def("set_user", &Problem::set_user)
      .def("set_box", &Problem::set_box)
      .def("set_bounds", &Problem::set_bounds)
      .def("set_user_batch", &Problem::set_user_batch)
      .def("set_ranges", &Problem::set_ranges)
      .def("dim", &Problem::dim)
      .def("bounds", &Problem::bounds)
      .def("fstar", &Problem::fstar);

  nb::class_<Solver> s(m, "Solver");
  s.def(nb::init<Problem &>(), nb::keep_alive<1, 2>());
#define DEVO_SETTER(name, type)                                                                    \
  s.def("set_" #name, [](Solver &v, type x) { v.check(devo_solver_set_##name(v.s_, x)); })
  DEVO_SETTER(np, int);
  DEVO_SETTER(f, double);
  DEVO_SETTER(cr, double);
  DEVO_SETTER(seed, uint64_t);
  DEVO_SETTER(bounds, int);
  DEVO_SETTER(threads, int);
  DEVO_SETTER(backend, int);
  DEVO_SETTER(gpu_design, int);
  DEVO_SETTER(max_evals, int64_t);
  DEVO_SETTER(max_generations, int64_t);
  DEVO_SETTER(target, double);
  DEVO_SETTER(time_limit, double);
#undef DEVO_SETTER
  s.def("set_algorithm", [](Solver &v, const std::string &a) {
    v.check(devo_solver_set_algorithm(v.s_, a.c_str()));
  });
  s.def("get_variant", &Solver::get_variant);
  s.def("set_variant", &Solver::set_variant);
  s.def("solve", &Solver::solve, "callback"_a.none());
  s.def("best", &Solver::best);
  s.def("stats", &Solver::stats);
  s.def("population", &Solver::population);
  s.def("shade_np", &Solver::shade_np);
}
