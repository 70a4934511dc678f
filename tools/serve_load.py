#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""serve_load.py: load test of `devo serve` (BENCHMARKS.md). N concurrent clients (threads, one
keep-alive connection each) send R requests in all, each the same ETC matrix with the same time
limit; every answer is checked (status 200, one machine per task, the makespan recomputed from
the matrix); reports client-side latency p50/p99/max, answers later than the limit + 5 ms,
throughput, the admissions (search or quick), and the server's RSS before and after.
With --bad-every K, every K-th request is a malformed one (20 kinds, in turn) that must get its
4xx status while the good ones keep being answered.

  python3 tools/serve_load.py --devo build/devo --clients 8 --requests 2000 \\
      --matrix etc_data/512x16/u_c_hihi.csv --time-limit 0.05 [--workers N] [--server-args ...]
  python3 tools/serve_load.py --connect 127.0.0.1:8707 --pid PID ...   (a server already running)
"""
import argparse
import http.client
import json
import os
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


def start_server(args):
    cmd = [args.devo, "serve", "--listen", "127.0.0.1:0", "--queue", str(args.queue)]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    cmd += args.server_args
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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

    threading.Thread(target=drain, daemon=True).start()
    return proc, port


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devo", help="devo binary: start a server on a free port")
    ap.add_argument("--connect", help="HOST:PORT of a running server")
    ap.add_argument("--pid", type=int, help="its process id (for the RSS)")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--queue", type=int, default=64)
    ap.add_argument("--server-args", nargs=argparse.REMAINDER, default=[])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--matrix", default="etc_data/512x16/u_c_hihi.csv")
    ap.add_argument("--time-limit", type=float, default=0.05)
    ap.add_argument("--backend", default=None)
    ap.add_argument("--objective", default=None, help="weighted (the default of devo) or makespan")
    ap.add_argument("--bad-every", type=int, default=0)
    ap.add_argument("--log", help="write the server's log lines here")
    ap.add_argument("--json", help="write the figures as JSON here")
    args = ap.parse_args()

    with open(args.matrix) as f:
        etc = [[float(x) for x in line.split(",")] for line in f if line.strip()]
    n, m = len(etc), len(etc[0])
    req = {"etc": etc, "time_limit": args.time_limit}
    if args.backend:
        req["backend"] = args.backend
    if args.objective:
        req["objective"] = args.objective
    body = json.dumps(req).encode()

    proc = None
    if args.devo:
        proc, port = start_server(args)
        host, pid = "127.0.0.1", proc.pid
    else:
        host, port = args.connect.rsplit(":", 1)
        port, pid = int(port), args.pid
    rss0 = rss_kib(pid) if pid else -1

    lock = threading.Lock()
    counter = [0]
    lat, problems, admissions, backends, bad_ok, bad_sent = [], [], {}, {}, [0], [0]
    limit = args.time_limit

    rss_series = []  # (requests sent, RSS KiB) every tenth of the run: flat or growing?
    step = max(1, args.requests // 10)

    def next_index():
        with lock:
            i = counter[0]
            counter[0] += 1
            if pid and i % step == 0 and i < args.requests:
                rss_series.append((i, rss_kib(pid)))
            return i if i < args.requests else None

    def client():
        c = http.client.HTTPConnection(host, port, timeout=60)
        while True:
            i = next_index()
            if i is None:
                break
            if args.bad_every and i % args.bad_every == args.bad_every - 1:
                b, ctype, want = BAD[(i // args.bad_every) % len(BAD)]
                try:
                    c.request("POST", "/v1/schedule", b.encode(), {"Content-Type": ctype})
                    r = c.getresponse()
                    r.read()
                    ok = r.status == want
                except (OSError, http.client.HTTPException) as e:
                    ok = False
                    c.close()
                    c = http.client.HTTPConnection(host, port, timeout=60)
                with lock:
                    bad_sent[0] += 1
                    bad_ok[0] += ok
                    if not ok:
                        problems.append("bad request %r: status %s" % (b[:30], getattr(r, "status", "?")))
                continue
            t0 = time.monotonic()
            try:
                c.request("POST", "/v1/schedule", body, {"Content-Type": "application/json"})
                r = c.getresponse()
                data = r.read()
            except (OSError, http.client.HTTPException) as e:
                with lock:
                    problems.append("request %d: %s" % (i, e))
                c.close()
                c = http.client.HTTPConnection(host, port, timeout=60)
                continue
            dt = time.monotonic() - t0
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
            with lock:
                lat.append(dt)
                if err:
                    problems.append("request %d: %s" % (i, err))
                else:
                    admissions[a["admission"]] = admissions.get(a["admission"], 0) + 1
                    backends[a["backend"]] = backends.get(a["backend"], 0) + 1
        c.close()

    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    rss1 = rss_kib(pid) if pid else -1

    lat.sort()
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")
    over = sum(1 for x in lat if x > limit + 0.005)
    out = {
        "requests": args.requests, "clients": args.clients, "tasks": n, "machines": m,
        "time_limit": limit, "answered": len(lat), "problems": len(problems),
        "admissions": admissions, "backends": backends, "p50_ms": 1e3 * pick(0.50), "p99_ms": 1e3 * pick(0.99),
        "max_ms": 1e3 * (lat[-1] if lat else float("nan")), "overruns_limit_plus_5ms": over,
        "throughput_rps": (len(lat) + bad_sent[0]) / wall, "wall_s": wall,
        "bad_sent": bad_sent[0], "bad_right_status": bad_ok[0],
        "rss_before_kib": rss0, "rss_after_kib": rss1, "rss_series_kib": rss_series,
    }
    print("%d good requests answered of %d (%d clients, %d x %d, limit %.3f s), %d problems" %
          (len(lat), args.requests - bad_sent[0], args.clients, n, m, limit, len(problems)))
    print("admissions %s, backends %s" % (admissions, backends))
    print("latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; over limit + 5 ms: %d" %
          (out["p50_ms"], out["p99_ms"], out["max_ms"], over))
    print("throughput %.1f requests/s over %.1f s" % (out["throughput_rps"], wall))
    if bad_sent[0]:
        print("malformed requests %d, with the right status %d" % (bad_sent[0], bad_ok[0]))
    print("server RSS %d KiB before, %d KiB after" % (rss0, rss1))
    if rss_series:
        print("server RSS (requests sent: KiB) " + ", ".join("%d: %d" % x for x in rss_series))
    for p in problems[:10]:
        print("  " + p)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if proc:
        proc.terminate()
        rc = proc.wait(60)
        print("server exit code %d after SIGTERM" % rc)
    return 1 if problems or len(lat) + bad_sent[0] != args.requests else 0


if __name__ == "__main__":
    sys.exit(main())
