#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""serve_load.py: load test of `devo serve` (BENCHMARKS.md). N concurrent clients (processes by
default, so that no interpreter lock sits between an answer and its reader; --mode threads for
the old client), one keep-alive connection each, send R requests in all, each the same ETC matrix
with the same time limit; every answer is checked (status 200, one machine per task, the makespan
recomputed from the matrix). It reports, side by side, the latency seen by the client (from
sending the request to the answer's last byte) and the server's own (its X-Devo-Elapsed-Ms
header: from the complete body to the answer queued), each with p50/p99/max and the answers later
than the limit + 5 ms, their difference (the client's and the network's share), the phases of the
server's time by backend (Server-Timing: parse, wait, search against its budget, answer);
throughput, the admissions (search or quick), and the server's RSS before and after.
With --bad-every K, every K-th request is a malformed one (20 kinds, in turn) that must get its
4xx status while the good ones keep being answered.
Every answer later than the limit + 5 ms on the client's side gets a line of its own (client and
server time, the server's phases, backend, admission), and the overruns are counted by the part
that exceeded its median the most: a server phase (parse, wait, search, answer) or "outside"
(the client's time less the server's: the network, the kernel, the client itself).
--client-cpus and --server-cpus pin the clients and the server it starts to disjoint cores
(e.g. 0-3 and 4-15), as clients on other hosts would be; by default both may run anywhere.
With --large 4096x256,8192x1024 one more client sends large bodies (matrices of those shapes, in
turn, values integers of up to 4 digits, limit --large-limit) for as long as the others run: each
answer must come by its limit + 5 ms, a schedule (checked like the others) or a refusal (413,
503) alike, never late; their latencies, statuses and phases are reported apart.
--search asks for a search (gpu-ls and ig imply --objective makespan); --gpus LIST is passed to
the server it starts (devo serve --gpus): the answers are counted by the GPU they ran on and by
why a request that wanted a GPU searched on the CPU (gpu_fallback: busy, absent), and the worst
lateness (answer time less the limit, client and server side) is reported with the throughput,
so that --gpus 0 and --gpus all can be compared on a machine with several GPUs.

  python3 scripts/serve_load.py --devo build/devo --clients 8 --requests 2000 \\
      --matrix etc_data/512x16/u_c_hihi.csv --time-limit 0.05 [--workers N] [--server-args ...]
  python3 scripts/serve_load.py --connect 127.0.0.1:8707 --pid PID ...   (a server already running)
  python3 scripts/serve_load.py --devo build/devo --client-cpus 0-3 --server-cpus 4-15 ...
  python3 scripts/serve_load.py --devo build/devo --clients 8 --requests 10000 --time-limit 0.1 \
      --matrix etc_data/512x16/u_c_hihi.csv --large 4096x256,8192x1024 --large-limit 2
  python3 scripts/serve_load.py --devo build/devo --clients 16 --requests 4000 --time-limit 0.1 \
      --matrix etc_data/512x16/u_c_hihi.csv --search gpu-ls --gpus all   (then --gpus 0)
"""
import argparse
import http.client
import json
import multiprocessing
import os
import queue
import re
import subprocess
import sys
import threading
import time

BAD = [  # (body, content type, expected status)
    ('{"etc": [[1, 2],', "application/json", 400),
    ("[1, 2]", "application/json", 400),
    ("{}", "application/json", 400),
    ('{"etc": 5}', "application/json", 400),
    ('{"etc": [[1, 2], [1, 2, 3]]}', "application/json", 400),
    ('{"etc": [[1], [2]]}', "application/json", 400),
    ('{"etc": [[NaN, 1], [1, 1]]}', "application/json", 400),
    ('{"etc": [[1, 2], [1, "x"]]}', "application/json", 400),
    ('{"etc": [[1, 2], [-3, 1]]}', "application/json", 400),
    ('{"etc": [[1, 0], [3, 1]]}', "application/json", 400),
    ('{"etc": [[1, 2], [3, 1e999]]}', "application/json", 400),
    ('{"etc": [[1, 2]], "speed": 1}', "application/json", 400),
    ('{"etc": [[1, 2]], "time_limit": -1}', "application/json", 400),
    ('{"etc": [[1, 2]], "objective": "fast"}', "application/json", 400),
    ('{"etc": [[1, 2]], "ready": [0]}', "application/json", 400),
    ('{"etc": [[1, 2]], "seed": 1.5}', "application/json", 400),
    ("", "application/json", 400),
    ("1,2\n3,4,5\n", "text/csv", 400),
    ("1,2\n3,abc\n", "text/csv", 400),
    ("{}", "text/plain", 415),
]


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def cpu_list(text):
    """The CPUs of a list such as 0-3,8,10-11 (taskset -c's format), as a set."""
    cpus = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            lo, hi = int(lo), int(hi) if hi else int(lo)
            if lo < 0 or hi < lo:
                raise ValueError
            cpus.update(range(lo, hi + 1))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a CPU list such as 0-3,8" % text)
    return cpus


def start_server(args):
    """Starts devo serve on a free port (on --server-cpus, if given); a thread copies its log to
    --log."""
    cmd = [args.devo, "serve", "--listen", "127.0.0.1:0", "--queue", str(args.queue)]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    if args.gpus:
        cmd += ["--gpus", args.gpus]
    cmd += args.server_args
    pin = None
    if args.server_cpus:
        pin = lambda: os.sched_setaffinity(0, args.server_cpus)  # inherited by all its threads
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=pin)
    port = None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("devo serve did not start")
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
        if "devo serve: ready" in line:
            break
    log = open(args.log, "w") if args.log else None

    def drain():  # the server logs one line per request: keep its pipe from filling
        for line in proc.stderr:
            if log:
                log.write(line)
        if log:
            log.close()

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    return proc, port, t


PHASES = ("parse", "wait", "search", "budget", "answer")


def server_timing(h):
    """The durations (seconds) of a Server-Timing header, by name."""
    out = {}
    for part in (h or "").split(","):
        m = re.match(r"\s*(\w+);dur=([0-9.]+)", part)
        if m:
            out[m.group(1)] = float(m.group(2)) / 1e3
    return out


def client(args, body, etc, host, port, counter, results):
    """One client: takes request numbers from the shared counter until all are sent, and puts
    its figures in results (one dict, at the end)."""
    n, m = len(etc), len(etc[0])
    out = {"lat": [], "lat_sent": [], "srv": [], "phases": [], "backend": [], "admission": [], "makespan": [], "problems": [], "admissions": {}, "backends": {},
           "gpus": {}, "fallbacks": {}, "bad_sent": 0, "bad_ok": 0}
    c = http.client.HTTPConnection(host, port, timeout=60)
    while True:
        with counter.get_lock():
            i = counter.value
            counter.value += 1
        if i >= args.requests:
            break
        if args.bad_every and i % args.bad_every == args.bad_every - 1:
            b, ctype, want = BAD[(i // args.bad_every) % len(BAD)]
            status = "?"
            try:
                c.request("POST", "/v1/schedule", b.encode(), {"Content-Type": ctype})
                r = c.getresponse()
                r.read()
                status = r.status
            except (OSError, http.client.HTTPException):
                c.close()
                c = http.client.HTTPConnection(host, port, timeout=60)
            out["bad_sent"] += 1
            out["bad_ok"] += status == want
            if status != want:
                out["problems"].append("bad request %r: status %s" % (b[:30], status))
            continue
        t0 = time.monotonic()
        try:
            c.request("POST", "/v1/schedule", body, {"Content-Type": "application/json"})
            t_sent = time.monotonic()  # the body handed to the socket: the deadline's clock
            r = c.getresponse()
            data = r.read()  # returns with the answer's last byte (its Content-Length)
            t_end = time.monotonic()  # before any decoding or checking
        except (OSError, http.client.HTTPException) as e:
            out["problems"].append("request %d: %s" % (i, e))
            c.close()
            c = http.client.HTTPConnection(host, port, timeout=60)
            continue
        dt = t_end - t0
        out["lat"].append(dt)
        out["lat_sent"].append(t_end - t_sent)
        el = r.getheader("X-Devo-Elapsed-Ms")
        out["srv"].append(float(el) / 1e3 if el else float("nan"))
        out["phases"].append(server_timing(r.getheader("Server-Timing")))
        out["backend"].append(None)
        out["admission"].append(None)
        out["makespan"].append(None)
        err = None
        if r.status != 200:
            err = "status %d: %s" % (r.status, data[:200])
        else:
            a = json.loads(data)
            asg = a["assignment"]
            if len(asg) != n or any(not (0 <= j < m) for j in asg):
                err = "bad assignment"
            else:
                load = [0.0] * m
                for t, j in enumerate(asg):
                    load[j] += etc[t][j]
                if abs(max(load) - a["makespan"]) > 1e-9 * a["makespan"]:
                    err = "makespan %r, recomputed %r" % (a["makespan"], max(load))
        if err:
            out["problems"].append("request %d: %s" % (i, err))
        else:
            out["admissions"][a["admission"]] = out["admissions"].get(a["admission"], 0) + 1
            out["backends"][a["backend"]] = out["backends"].get(a["backend"], 0) + 1
            where = "cpu" if a.get("gpu") is None else "gpu %d" % a["gpu"]
            out["gpus"][where] = out["gpus"].get(where, 0) + 1
            if a.get("gpu_fallback"):
                out["fallbacks"][a["gpu_fallback"]] = out["fallbacks"].get(a["gpu_fallback"], 0) + 1
            out["backend"][-1] = a["backend"]
            out["admission"][-1] = a["admission"]
            out["makespan"][-1] = a["makespan"]
    c.close()
    results.put(out)


def large_matrix(shape, seed):
    """The matrix of shape "NxM" (random integers 1 .. 9999, 256 distinct rows in turn: a body of
    about 5 bytes a value) and its JSON text without the object around it."""
    import random
    n, m = (int(x) for x in shape.split("x"))
    rng = random.Random(seed)
    pool = [[rng.randint(1, 9999) for _ in range(m)] for _ in range(min(n, 256))]
    text = [("[" + ",".join(map(str, r)) + "]").encode() for r in pool]
    return [pool[t % len(pool)] for t in range(n)], b"[" + b",".join(text[t % len(text)] for t in range(n)) + b"]"


def large_client(args, host, port, stop, results):
    """Sends large bodies (--large shapes in turn, --large-limit) until stop is set; every answer
    must come by its limit + 5 ms, a valid schedule or a refusal."""
    mats = [large_matrix(sh, k) for k, sh in enumerate(args.large.split(","))]
    out = {"lat": [], "srv": [], "status": {}, "problems": [], "phases": [], "shape": []}
    c = http.client.HTTPConnection(host, port, timeout=120)
    k = 0
    while not stop.is_set():
        etc, text = mats[k % len(mats)]
        body = b'{"etc":' + text + b',"time_limit":%r}' % args.large_limit
        k += 1
        try:
            c.request("POST", "/v1/schedule", body, {"Content-Type": "application/json"})
            t_sent = time.monotonic()
            r = c.getresponse()
            data = r.read()
            t_end = time.monotonic()
        except (OSError, http.client.HTTPException) as e:
            out["problems"].append("large request %d: %s" % (k, e))
            c.close()
            c = http.client.HTTPConnection(host, port, timeout=120)
            continue
        out["lat"].append(t_end - t_sent)
        el = r.getheader("X-Devo-Elapsed-Ms")
        out["srv"].append(float(el) / 1e3 if el else float("nan"))
        out["phases"].append(server_timing(r.getheader("Server-Timing")))
        out["shape"].append("%dx%d" % (len(etc), len(etc[0])))
        out["status"][r.status] = out["status"].get(r.status, 0) + 1
        if r.status == 200:
            a = json.loads(data)
            load = [0.0] * len(etc[0])
            for t, j in enumerate(a["assignment"]):
                load[j] += etc[t][j]
            if len(a["assignment"]) != len(etc) or abs(max(load) - a["makespan"]) > 1e-9 * a["makespan"]:
                out["problems"].append("large request %d: a wrong schedule" % k)
        elif r.status not in (413, 503):
            out["problems"].append("large request %d: status %d %s" % (k, r.status, data[:200]))
    c.close()
    results.put(out)


def dist(xs, limit):
    """p50, p99, max (ms) and the count above limit + 5 ms of a list of seconds."""
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return {"n": 0, "p50_ms": float("nan"), "p99_ms": float("nan"), "max_ms": float("nan"),
                "over": 0}
    pick = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]
    return {"n": len(xs), "p50_ms": 1e3 * pick(0.50), "p99_ms": 1e3 * pick(0.99),
            "max_ms": 1e3 * xs[-1], "over": sum(1 for x in xs if x > limit + 0.005)}


def fmt_cpus(cpus):
    return ",".join(str(c) for c in sorted(cpus)) if cpus else "any"


PARTS = ("parse", "wait", "search", "answer", "outside")


def overrun_report(lat, srv, phases, bk, adm, limit):
    """The client-side overruns, one dict each, with the part (a server phase, or "outside": the
    client's time less the server's) that exceeded its median by the most; medians over all the
    answers of the same backend. Returns (list, count by part)."""
    def parts(a, b, p):
        d = {k: p.get(k, 0.0) for k in PARTS[:-1]}
        d["outside"] = a - b if b == b else float("nan")
        return d
    def median(xs):
        xs = sorted(x for x in xs if x == x)
        return xs[len(xs) // 2] if xs else 0.0
    med = {}
    for b in set(bk):
        rows = [parts(a, s, p) for a, s, p, x in zip(lat, srv, phases, bk) if x == b]
        med[b] = {k: median(r[k] for r in rows) for k in PARTS}
    overruns, by_part = [], {}
    for a, s, p, x, y in zip(lat, srv, phases, bk, adm):
        if a <= limit + 0.005:
            continue
        d = parts(a, s, p)
        over = {k: d[k] - med[x][k] for k in PARTS if d[k] == d[k]}
        part = max(over, key=over.get) if over else "?"
        by_part[part] = by_part.get(part, 0) + 1
        overruns.append({"client_ms": 1e3 * a, "server_ms": 1e3 * s, "backend": x, "admission": y,
                         "phases_ms": {k: 1e3 * v for k, v in p.items()},
                         "outside_ms": 1e3 * d["outside"], "part": part,
                         "over_median_ms": {k: 1e3 * v for k, v in over.items()}})
    return overruns, by_part


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devo", help="devo binary: start a server on a free port")
    ap.add_argument("--connect", help="HOST:PORT of a running server")
    ap.add_argument("--pid", type=int, help="its process id (for the RSS)")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--queue", type=int, default=64)
    ap.add_argument("--server-args", nargs=argparse.REMAINDER, default=[])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--mode", choices=("processes", "threads"), default="processes",
                    help="clients as processes (default) or as threads of one interpreter")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--matrix", default="etc_data/512x16/u_c_hihi.csv")
    ap.add_argument("--time-limit", type=float, default=0.05)
    ap.add_argument("--backend", default=None)
    ap.add_argument("--objective", default=None, help="weighted (the default of devo) or makespan")
    ap.add_argument("--search", choices=("auto", "pipeline", "ig", "gpu-ls"), default=None,
                    help="the requests' search (ig and gpu-ls: objective makespan)")
    ap.add_argument("--gpus", default=None, metavar="LIST",
                    help="devo serve --gpus of the server it starts (all, or 0,1,...)")
    ap.add_argument("--bad-every", type=int, default=0)
    ap.add_argument("--client-cpus", type=cpu_list, default=None, metavar="LIST",
                    help="run the clients on these CPUs only (e.g. 0-3); default: any")
    ap.add_argument("--server-cpus", type=cpu_list, default=None, metavar="LIST",
                    help="run the server it starts on these CPUs only (e.g. 4-15); default: any")
    ap.add_argument("--large", default=None, metavar="NxM,...",
                    help="one more client sending large bodies of these shapes in turn")
    ap.add_argument("--large-limit", type=float, default=2.0, help="their time limit (s)")
    ap.add_argument("--log", help="write the server's log lines here")
    ap.add_argument("--json", help="write the figures as JSON here")
    args = ap.parse_args()

    with open(args.matrix) as f:
        etc = [[float(x) for x in line.split(",")] for line in f if line.strip()]
    n, m = len(etc), len(etc[0])
    req = {"etc": etc, "time_limit": args.time_limit}
    if args.backend:
        req["backend"] = args.backend
    if args.search:
        req["search"] = args.search
        if args.search in ("ig", "gpu-ls") and not args.objective:
            args.objective = "makespan"  # the only objective of these searches
    if args.objective:
        req["objective"] = args.objective
    body = json.dumps(req).encode()

    proc, drainer = None, None
    if args.devo:
        proc, port, drainer = start_server(args)
        host, pid = "127.0.0.1", proc.pid
    else:
        host, port = args.connect.rsplit(":", 1)
        port, pid = int(port), args.pid
    rss0 = rss_kib(pid) if pid else -1
    if args.client_cpus:  # after the server's start: the clients (forked or threads) inherit it
        os.sched_setaffinity(0, args.client_cpus)

    # fork: the clients inherit the matrix and the body; they never touch the server's pipe
    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("l", 0)
    if args.mode == "processes":
        results = ctx.Queue()
        workers = [ctx.Process(target=client, args=(args, body, etc, host, port, counter, results))
                   for _ in range(args.clients)]
    else:
        results = queue.Queue()
        workers = [threading.Thread(target=client, args=(args, body, etc, host, port, counter, results))
                   for _ in range(args.clients)]
    rss_series = []  # (requests sent, RSS KiB) every tenth of the run: flat or growing?
    step = max(1, args.requests // 10)
    large_stop, large_out, large_proc = ctx.Event(), ctx.Queue(), None
    if args.large:
        large_proc = ctx.Process(target=large_client, args=(args, host, port, large_stop, large_out))
        large_proc.start()
    t0 = time.monotonic()
    for w in workers:
        w.start()
    outs = []
    while len(outs) < len(workers):  # the RSS while the clients run, then their figures
        sent_now = min(counter.value, args.requests)
        if pid and len(rss_series) * step <= sent_now and len(rss_series) < 10:
            rss_series.append((sent_now, rss_kib(pid)))
        try:
            outs.append(results.get(timeout=0.01))
        except queue.Empty:
            pass
    wall = time.monotonic() - t0
    for w in workers:
        w.join()
    large = None
    if large_proc:
        large_stop.set()
        large = large_out.get()
        large_proc.join()
    rss1 = rss_kib(pid) if pid else -1

    lat_sent = []
    lat, srv, phases, bk, adm, mk, problems, admissions, backends = [], [], [], [], [], [], [], {}, {}
    on_gpu, fallbacks = {}, {}
    bad_sent = bad_ok = 0
    for o in outs:
        lat += o["lat"]
        lat_sent += o["lat_sent"]
        srv += o["srv"]
        phases += o["phases"]
        bk += o["backend"]
        adm += o["admission"]
        mk += o["makespan"]
        problems += o["problems"]
        bad_sent += o["bad_sent"]
        bad_ok += o["bad_ok"]
        for k, v in o["admissions"].items():
            admissions[k] = admissions.get(k, 0) + v
        for k, v in o["backends"].items():
            backends[k] = backends.get(k, 0) + v
        for k, v in o["gpus"].items():
            on_gpu[k] = on_gpu.get(k, 0) + v
        for k, v in o["fallbacks"].items():
            fallbacks[k] = fallbacks.get(k, 0) + v
    if proc:
        proc.terminate()
        rc = proc.wait(60)
        drainer.join(5)  # the whole log written
    limit = args.time_limit
    cl, sv, cs = dist(lat, limit), dist(srv, limit), dist(lat_sent, limit)
    gap = dist([a - b for a, b in zip(lat, srv) if b == b], 1e9)
    by_backend = {}  # the server's phases, per backend: the GPU search stops differently
    for b in sorted(set(x for x in bk if x)):
        sel = [p for p, x in zip(phases, bk) if x == b]
        d = {k: dist([p[k] for p in sel if k in p], 1e9) for k in PHASES}
        d["search_minus_budget"] = dist([p["search"] - p["budget"] for p in sel if "budget" in p], 1e9)
        d["server_queued"] = dist([t for t, x in zip(srv, bk) if x == b], limit)
        by_backend[b] = d
    searched = [x for x, a in zip(mk, adm) if a == "search"]  # the price of a shorter search
    mean_mk = sum(searched) / len(searched) if searched else float("nan")
    over_by_adm = {}  # the server's overruns by admission: a search, or the quick answer
    for t, a in zip(srv, adm):
        if a and t > limit + 0.005:
            over_by_adm[a] = over_by_adm.get(a, 0) + 1
    overruns, over_by_part = overrun_report(lat, srv, phases, bk, adm, limit)
    # the worst lateness: answer time less the limit (client: from the body sent; server: from
    # the complete body to the answer queued), negative when every answer came before its limit
    late_client = max(lat_sent) - limit if lat_sent else float("nan")
    late_server = max((t for t in srv if t == t), default=float("nan")) - limit
    out = {
        "requests": args.requests, "clients": args.clients, "mode": args.mode, "tasks": n,
        "machines": m, "time_limit": limit, "answered": len(lat), "problems": len(problems),
        "admissions": admissions, "backends": backends, "search": args.search,
        "gpus": args.gpus, "answers_by_gpu": on_gpu, "gpu_fallbacks": fallbacks,
        "worst_lateness_client_ms": 1e3 * late_client, "worst_lateness_server_ms": 1e3 * late_server,
        "p50_ms": cl["p50_ms"], "p99_ms": cl["p99_ms"], "max_ms": cl["max_ms"],
        "overruns_limit_plus_5ms": cl["over"], "client": cl, "client_from_body_sent": cs, "server_queued": sv,
        "client_minus_server": gap, "server_by_backend": by_backend,
        "server_over_by_admission": over_by_adm, "mean_makespan_searched": mean_mk,
        "client_cpus": sorted(args.client_cpus) if args.client_cpus else None,
        "server_cpus": sorted(args.server_cpus) if args.server_cpus else None,
        "overruns": overruns, "overruns_by_part": over_by_part,
        "throughput_rps": (len(lat) + bad_sent) / wall, "wall_s": wall,
        "bad_sent": bad_sent, "bad_right_status": bad_ok,
        "rss_before_kib": rss0, "rss_after_kib": rss1, "rss_series_kib": rss_series,
        "samples": [{"client_ms": 1e3 * a, "server_ms": 1e3 * b, "backend": x, "admission": y,
                     "makespan": z, "phases_ms": {k: 1e3 * v for k, v in p.items()}}
                    for a, b, x, y, z, p in zip(lat, srv, bk, adm, mk, phases)],
    }
    print("%d good requests answered of %d (%d clients as %s, %d x %d, limit %.3f s), %d problems" %
          (len(lat), args.requests - bad_sent, args.clients, args.mode, n, m, limit, len(problems)))
    print("admissions %s, backends %s" % (admissions, backends))
    if args.search or args.gpus or fallbacks or len(on_gpu) > 1:
        print("search %s, server --gpus %s: answers by GPU %s, GPU fallbacks %s" % (
            args.search or "(default)", args.gpus or "(default)",
            dict(sorted(on_gpu.items())), fallbacks))
    row = "%-28s p50 %6.1f ms, p99 %6.1f ms, max %6.1f ms; over limit + 5 ms: %d"
    print(row % ("latency, client:", cl["p50_ms"], cl["p99_ms"], cl["max_ms"], cl["over"]))
    print(row % ("latency, client (body sent):", cs["p50_ms"], cs["p99_ms"], cs["max_ms"], cs["over"]))
    print(row % ("latency, server (queued):", sv["p50_ms"], sv["p99_ms"], sv["max_ms"], sv["over"]) +
          (" %s" % over_by_adm if over_by_adm else ""))
    print("client minus server: p50 %.2f ms, p99 %.2f ms, max %.2f ms" %
          (gap["p50_ms"], gap["p99_ms"], gap["max_ms"]))
    for b, d in by_backend.items():
        print("server phases, %s (p50/p99/max ms): " % b + ", ".join(
            "%s %.2f/%.2f/%.2f" % (k, d[k]["p50_ms"], d[k]["p99_ms"], d[k]["max_ms"])
            for k in PHASES + ("search_minus_budget",) if d[k]["n"]) +
            "; over: %d" % d["server_queued"]["over"])
    for o in overruns:
        print("overrun: client %.2f ms, server %.2f ms (%s, %s): %s; outside %.2f ms; largest "
              "over its median: %s" % (o["client_ms"], o["server_ms"], o["backend"], o["admission"],
                                       ", ".join("%s %.2f" % (k, v) for k, v in o["phases_ms"].items()),
                                       o["outside_ms"], o["part"]))
    if overruns:
        print("overruns by the part most over its median: %s" %
              ", ".join("%s %d" % kv for kv in sorted(over_by_part.items(), key=lambda kv: -kv[1])))
    if args.client_cpus or args.server_cpus:
        print("clients on CPUs %s, server on CPUs %s" % (
            fmt_cpus(args.client_cpus), fmt_cpus(args.server_cpus)))
    print("mean makespan of the searched answers %.6g" % mean_mk)
    print("throughput %.1f requests/s over %.1f s" % (out["throughput_rps"], wall))
    print("worst lateness (answer time - limit): client %.2f ms, server %.2f ms" % (
        1e3 * late_client, 1e3 * late_server))
    if bad_sent:
        print("malformed requests %d, with the right status %d" % (bad_sent, bad_ok))
    print("server RSS %d KiB before, %d KiB after" % (rss0, rss1))
    if rss_series:
        print("server RSS (requests sent: KiB) " + ", ".join("%d: %d" % x for x in rss_series))
    for p in problems[:10]:
        print("  " + p)
    if large:
        lim = args.large_limit
        lc, ls = dist(large["lat"], lim), dist(large["srv"], lim)
        print("large requests (%s, limit %g s): %d answered, statuses %s, %d problems" % (
            args.large, lim, len(large["lat"]), large["status"], len(large["problems"])))
        print(row % ("  latency, client (body sent):", lc["p50_ms"], lc["p99_ms"], lc["max_ms"], lc["over"]))
        print(row % ("  latency, server (queued):", ls["p50_ms"], ls["p99_ms"], ls["max_ms"], ls["over"]))
        for sh in sorted(set(large["shape"])):
            sel = [p for p, x in zip(large["phases"], large["shape"]) if x == sh]
            print("  %s phases (p50/max ms): " % sh + ", ".join(
                "%s %.1f/%.1f" % (k, dist([p[k] for p in sel if k in p], 1e9)["p50_ms"],
                                  dist([p[k] for p in sel if k in p], 1e9)["max_ms"])
                for k in PHASES if any(k in p for p in sel)))
        for p in large["problems"][:10]:
            print("  " + p)
        out["large"] = {"answered": len(large["lat"]), "status": large["status"], "client": lc,
                        "server_queued": ls, "problems": large["problems"]}
        problems += large["problems"]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if proc:
        print("server exit code %d after SIGTERM" % rc)
    return 1 if problems or len(lat) + bad_sent != args.requests else 0


if __name__ == "__main__":
    sys.exit(main())
