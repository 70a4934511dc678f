#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""serve_test.py: integration and fault tests of `devo serve` (ctest serve.api, serve.admission,
serve.faults, serve.shutdown, serve.strict, serve.slow_clients, serve.parse_deadline,
serve.mixed_deadline, serve.gpus). Each starts the real server on a free port of 127.0.0.1, talks to it with
http.client (or a raw socket where a client must misbehave), and checks the answers: schedules
against `devo schedule` run with the same seed and a fixed step count (identical assignments),
makespans recomputed here from the matrix, every refusal's status and where it points, and the
service still answering afterwards. The deadline cases hold only clean runs to their promise (no
CPU taken from the server, nothing else ready to run on the machine: the rule of tests/tcheck.h)
and exit 77 (skipped, inconclusive) when too few runs were clean; TC_DEADLINE_SHARED=1 (a
SCHED_FIFO rerun) waives the look at the other work on the machine.

usage: serve_test.py CASE DEVO_BINARY SOURCE_DIR
"""
import http.client
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

FAILURES = []
SKIPPED = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)


class Server:
    """The real devo serve, its stderr drained by a thread (it logs one line per request)."""

    def __init__(self, devo, *args):
        self.proc = subprocess.Popen([devo, "serve", "--listen", "127.0.0.1:0", *args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.port = None
        ready = threading.Event()

        def drain():
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
                if m:
                    self.port = int(m.group(1))
                if "devo serve: ready" in line:
                    ready.set()
            ready.set()

        self.thread = threading.Thread(target=drain, daemon=True)
        self.thread.start()
        if not ready.wait(30) or self.port is None:
            raise RuntimeError("devo serve did not start: " + "\n".join(self.lines))

    def request(self, method, path, body=None, ctype="application/json", timeout=30):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Content-Type": ctype} if body is not None else {}
        if isinstance(body, str):
            body = body.encode()
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data, r

    def json(self, method, path, obj=None, **kw):
        st, data, _ = self.request(method, path, None if obj is None else json.dumps(obj), **kw)
        return st, json.loads(data)

    def rss_kib(self, what="VmRSS:"):
        """The server's resident memory now (VmHWM: its peak so far), KiB."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(what):
                    return int(line.split()[1])
        return -1

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = None
        self.thread.join(5)
        # a sanitizer build (-fsanitize=address,undefined,thread) reports on stderr
        for line in self.lines:
            if re.search(r"Sanitizer|runtime error:", line):
                check(False, "sanitizer: " + line)
        return rc


def read_csv(path):
    with open(path) as f:
        return [[float(x) for x in line.split(",")] for line in f if line.strip()]


def makespan(etc, assign, ready=None):
    """The makespan recomputed here: each machine's ready time plus its tasks' times."""
    m = len(etc[0])
    load = list(ready) if ready else [0.0] * m
    for t, j in enumerate(assign):
        load[j] += etc[t][j]
    return max(load)


def check_times(etc, a, ready=None):
    """Every start, finish, load and completion of answer a equals, bit for bit, the sum
    recomputed here (FCFS: each machine's tasks in index order, from its ready time, as
    problems/etc.h adds them): the numbers of the JSON read back exactly."""
    m = len(etc[0])
    done = list(ready) if ready else [0.0] * m
    load = [0.0] * m
    bad = 0
    for t, j in enumerate(a["assignment"]):
        row = a["schedule"][t]
        bad += row["task"] != t or row["machine"] != j or row["start"] != done[j]
        done[j] += etc[t][j]
        load[j] += etc[t][j]
        bad += row["finish"] != done[j]
    for j, pm in enumerate(a["per_machine"]):
        bad += pm["load"] != load[j] or pm["completion"] != done[j]
    check(bad == 0 and len(a["schedule"]) == len(etc) and len(a["per_machine"]) == m,
          "%d times of the answer differ from their sums recomputed here" % bad)


def devo_schedule(devo, path, *args):
    out = subprocess.run([devo, "schedule", path, "--format", "json", *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def case_api(devo, src):
    path = os.path.join(src, "etc_data", "512x16", "u_c_hihi.csv")
    etc = read_csv(path)
    ready = [float(1000 * (j % 5)) for j in range(16)]
    s = Server(devo, "--workers", "2")
    try:
        st, h = s.json("GET", "/v1/health")
        version = subprocess.run([devo, "--version"], capture_output=True, text=True).stdout.split()
        check(st == 200 and h["ready"] is True and h["workers"] == 2, "health: %s %s" % (st, h))
        check(h["version"] == version[1], "health version %s vs %s" % (h["version"], version))
        check(h["gpu"] is None or isinstance(h["gpu"], str), "health gpu")
        # identical assignments to devo schedule for the same seed and steps (IG, makespan)
        for seed, steps, with_ready in ((7, 30, False), (11, 60, True)):
            args = ["--objective", "makespan", "--seed", str(seed), "--steps", str(steps),
                    "--time-limit", "20"]
            body = {"etc": etc, "objective": "makespan", "seed": seed, "steps": steps,
                    "time_limit": 20}
            if with_ready:
                args += ["--ready", ",".join(repr(x) for x in ready)]
                body["ready"] = ready
            ref = devo_schedule(devo, path, *args)
            st, a = s.json("POST", "/v1/schedule", body)
            check(st == 200, "schedule status %d" % st)
            check(a["assignment"] == ref["assignment"], "JSON answer = devo schedule (seed %d)" % seed)
            check(a["stop"] == "DEVO_OK" and ref["stop"] == "DEVO_OK", "steps done: %s" % a["stop"])
            check(a["makespan"] == ref["makespan"], "makespan %r vs %r" % (a["makespan"], ref["makespan"]))
            mk = makespan(etc, a["assignment"], ready if with_ready else None)
            check(math.isclose(mk, a["makespan"], rel_tol=1e-12), "makespan recomputed %r %r" % (mk, a["makespan"]))
            check_times(etc, a, ready if with_ready else None)
            check(a["admission"] == "search" and a["deadline_met"] is True, "admission/deadline")
            check(set(ref) - {"elapsed"} <= set(a), "the fields of devo schedule --format json")
            # the same as CSV with query parameters
            q = "/v1/schedule?objective=makespan&seed=%d&steps=%d&time_limit=20" % (seed, steps)
            if with_ready:
                q += "&ready=" + ",".join(repr(x) for x in ready)
            with open(path, "rb") as f:
                st, data, _ = s.request("POST", q, f.read(), ctype="text/csv")
            c = json.loads(data)
            check(st == 200 and c["assignment"] == ref["assignment"], "CSV answer = devo schedule")
        # a short deadline is kept (generous slack: this machine is shared)
        t0 = time.monotonic()
        st, data, r = s.request("POST", "/v1/schedule", json.dumps({"etc": etc, "time_limit": 0.1}))
        took = time.monotonic() - t0
        a = json.loads(data)
        # the server's own time, for clients that tell it from theirs: within the client's, and
        # its phases add up to it (each phase ends where the next starts)
        el = float(r.getheader("X-Devo-Elapsed-Ms", "nan"))
        ph = dict((k, float(v)) for k, v in re.findall(r"(\w+);dur=([0-9.]+)",
                                                       r.getheader("Server-Timing", "")))
        check(0 < el <= 1e3 * took, "X-Devo-Elapsed-Ms %r within the client's %.3f s" % (el, took))
        check(set(ph) == {"parse", "wait", "search", "budget", "answer"}, "Server-Timing %r" % ph)
        if len(ph) == 5:
            parts = ph["parse"] + ph["wait"] + ph["search"] + ph["answer"]
            check(abs(parts - el) < 0.05, "phases add up: %.3f against %.3f ms" % (parts, el))
            check(0 < ph["budget"] < 100.0, "the search's budget %.3f ms within 0.1 s" % ph["budget"])
        check(st == 200 and a["time_limit"] == 0.1 and len(a["assignment"]) == 512, "0.1 s request")
        check(took < 1.0, "0.1 s request answered after %.3f s" % took)
        check(math.isclose(makespan(etc, a["assignment"]), a["makespan"], rel_tol=1e-12), "valid")
        # metrics: counters match what was sent
        st, data, r = s.request("GET", "/metrics")
        text = data.decode()
        check(st == 200 and r.getheader("Content-Type").startswith("text/plain"), "metrics type")
        m = dict(re.findall(r'^(devo_\S+) (\S+)$', text, re.M))
        check(m.get('devo_requests_total{outcome="search"}') == "5", "search count: %s" %
              m.get('devo_requests_total{outcome="search"}'))
        check(m.get('devo_requests_total{outcome="info"}') == "1", "info count")
        check(m.get("devo_schedule_latency_seconds_count") == "5", "histogram count")
        check(m.get('devo_schedule_latency_seconds_bucket{le="+Inf"}') == "5", "+Inf bucket")
        check(m.get("devo_queue_length") == "0", "queue length")
        check("devo_deadline_overruns_total" in m, "overruns")
        for _ in range(100):  # a line is written when its connection is done: a moment after
            logs = [l for l in s.lines if l.startswith("devo serve: POST /v1/schedule")]
            if len(logs) >= 5:
                break
            time.sleep(0.02)
        check(len(logs) == 5, "one log line per request: %d" % len(logs))
        check(all(re.search(r" 200 [0-9.]+ ms search admission search stop DEVO_", l) for l in logs),
              "log line fields: %s" % logs[:1])
        check_bounds(s, etc, h["gpu"])
    finally:
        rc = s.stop()
    check(rc == 0, "exit code %s after SIGTERM" % rc)


def check_bounds(s, etc, gpu):
    """The lower bound and the gap in the answer, the gap recomputed from its fields; a tiny
    request ends at once as optimal (every assignment evaluated), whatever its limit; search
    gpu-ls answers, and on a machine without a GPU says that IG ran on the CPU."""
    t0 = time.monotonic()
    st, a = s.json("POST", "/v1/schedule", {"etc": [[1, 2], [3, 1]], "time_limit": 1.0})
    took = time.monotonic() - t0
    check(st == 200 and a["stop"] == "DEVO_ENUMERATED", "2 x 2: %s" % a.get("stop"))
    check(a["lower_bound"] == a["objective"] and a["gap"] == 0, "2 x 2 bound %r" % a.get("gap"))
    check(a["elapsed"] < 0.1 and took < 0.5, "2 x 2 answered after %.3f s" % took)
    st, a = s.json("POST", "/v1/schedule", {"etc": etc, "objective": "makespan", "time_limit": 0.3,
                                            "search": "gpu-ls"})
    check(st == 200, "gpu-ls status %d" % st)
    if st != 200:
        return
    lb = a["lower_bound"]
    check(0 < lb <= a["makespan"] and a["makespan"] == a["objective"], "bound %r" % lb)
    check(math.isclose(a["gap"], (a["objective"] - lb) / lb, rel_tol=1e-12, abs_tol=1e-15),
          "gap %r recomputed" % a["gap"])
    check(math.isclose(makespan(etc, a["assignment"]), a["makespan"], rel_tol=1e-12), "gpu-ls valid")
    if gpu is None:
        check(a["search"] == "ig" and a["backend"] == "cpu",
              "gpu-ls without a GPU: search %s backend %s" % (a["search"], a["backend"]))
    else:
        check((a["search"], a["backend"]) in (("gpu-ls", "gpu"), ("ig", "cpu")),
              "gpu-ls: search %s backend %s" % (a["search"], a["backend"]))


def case_admission(devo, src):
    etc = read_csv(os.path.join(src, "etc_data", "small_64x8.csv"))
    s = Server(devo, "--workers", "1", "--queue", "1")
    try:
        res = {}

        def call(name, limit):
            res[name] = s.json("POST", "/v1/schedule", {"etc": etc, "time_limit": limit})

        long_ = threading.Thread(target=call, args=("long", 1.5))
        long_.start()
        time.sleep(0.3)  # the long one holds the only worker until its deadline
        t0 = time.monotonic()
        call("short", 0.2)  # cannot start before its deadline: answered at once
        took = time.monotonic() - t0
        st, a = res["short"]
        check(st == 200 and a["admission"] == "quick" and a["heuristic"] == "mct", "quick: %s" % a.get("admission"))
        # at once: not after the long one's deadline (1.2 s away), whatever the machine's load
        check(took < 0.8, "quick answer after %.3f s" % took)
        check(math.isclose(makespan(etc, a["assignment"]), a["makespan"], rel_tol=1e-12), "quick valid")
        waiter = threading.Thread(target=call, args=("queued", 3.0))
        waiter.start()  # can start when the long one ends: waits in the queue (1 place)
        time.sleep(0.2)
        st, h = s.json("GET", "/v1/health")
        check(h["queue_length"] == 1 and h["running"] == 1, "health queue %s" % h)
        st, e = s.json("POST", "/v1/schedule", {"etc": etc, "time_limit": 3.0})
        check(st == 503 and "queue" in e["error"]["message"], "queue full: %d" % st)
        long_.join()
        waiter.join()
        check(res["long"][0] == 200 and res["long"][1]["admission"] == "search", "long answered")
        st, q = res["queued"]
        check(st == 200 and q["admission"] == "search" and q["queue_wait"] > 0.5, "queued then ran: %s" % q.get("queue_wait"))
        # its search ends at its deadline, counted from its arrival, not a full limit after
        # it left the queue (about 1.2 s later): a margin for this shared machine's load
        check(q["elapsed"] < 3.0 + 0.5, "queued one answered %.3f s after arrival" % q["elapsed"])
    finally:
        rc = s.stop()
    check(rc == 0, "exit code %s" % rc)


def raw(port, data, read=True, timeout=10):
    """Sends bytes on a fresh connection; returns the status (0 when the server closed without
    an answer)."""
    sk = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        try:
            sk.sendall(data)
        except OSError:
            pass  # the server answered early and closed: its answer may still be there
        if not read:
            return None
        got = b""
        while b"\r\n" not in got:
            piece = sk.recv(4096)
            if not piece:
                break
            got += piece
        m = re.match(rb"HTTP/1\.[01] (\d+)", got)
        return int(m.group(1)) if m else 0
    finally:
        sk.close()


def exchange(port, data, limit=5.0):
    """Sends bytes on a fresh connection and reads until the server closes it (or limit
    seconds): what came, and the seconds it took."""
    sk = socket.create_connection(("127.0.0.1", port), timeout=10)
    t0 = time.monotonic()
    got = b""
    try:
        try:
            sk.sendall(data)
        except OSError:
            pass  # answered early and closed: the answer may still be there
        while time.monotonic() - t0 < limit:
            piece = sk.recv(65536)
            if not piece:
                break
            got += piece
    except OSError:
        pass
    finally:
        sk.close()
    return got, time.monotonic() - t0


def trickle(port, limit):
    """A client that sends its body one byte every 0.2 s: its connection is closed once
    --read-timeout is over (libmicrohttpd 0.9.75 sends no answer in the middle of a body).
    Returns the status read (0: closed without one) and the seconds until then."""
    sk = socket.create_connection(("127.0.0.1", port), timeout=10)
    body = b'{"etc": [[1, 2], [3, 4]]}' * 4
    sk.sendall(b"POST /v1/schedule HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body))
    t0 = time.monotonic()
    status = 0
    try:
        for b in body:
            sk.sendall(bytes([b]))
            time.sleep(0.2)
            if time.monotonic() - t0 > limit + 2:
                break
    except OSError:
        pass  # closed
    took = time.monotonic() - t0
    try:
        got = sk.recv(4096)
        m = re.match(rb"HTTP/1\.[01] (\d+)", got)
        status = int(m.group(1)) if m else 0
    except OSError:
        status = 0
    sk.close()
    return status, took


def bad_requests(s):
    """(name, method, path, body, content type, expected status, expected field/row/column)."""
    return [
        ("malformed JSON", "POST", "/v1/schedule", '{"etc": [[1, 2],', None, 400, (None, 1, 17)),
        ("not an object", "POST", "/v1/schedule", "[1, 2]", None, 400, None),
        ("missing etc", "POST", "/v1/schedule", "{}", None, 400, ("etc", 0, 0)),
        ("etc a number", "POST", "/v1/schedule", '{"etc": 5}', None, 400, ("etc", 0, 0)),
        ("ragged rows", "POST", "/v1/schedule", '{"etc": [[1, 2], [1, 2, 3]]}', None, 400, ("etc", 2, 0)),
        ("one machine", "POST", "/v1/schedule", '{"etc": [[1], [2]]}', None, 400, ("etc", 0, 0)),
        ("NaN", "POST", "/v1/schedule", '{"etc": [[NaN, 1], [1, 1]]}', None, 400, (None, 1, 11)),
        ("a string", "POST", "/v1/schedule", '{"etc": [[1, 2], [1, "x"]]}', None, 400, ("etc", 2, 2)),
        ("negative", "POST", "/v1/schedule", '{"etc": [[1, 2], [-3, 1]]}', None, 400, ("etc", 2, 1)),
        ("zero", "POST", "/v1/schedule", '{"etc": [[1, 0], [3, 1]]}', None, 400, ("etc", 1, 2)),
        ("infinite", "POST", "/v1/schedule", '{"etc": [[1, 2], [3, 1e999]]}', None, 400, ("etc", 2, 2)),
        ("unknown member", "POST", "/v1/schedule", '{"etc": [[1, 2]], "speed": 1}', None, 400, None),
        ("zero time limit", "POST", "/v1/schedule", '{"etc": [[1, 2]], "time_limit": 0}', None, 400, ("time_limit", 0, 0)),
        ("time limit too long", "POST", "/v1/schedule", '{"etc": [[1, 2]], "time_limit": 1e6}', None, 400, ("time_limit", 0, 0)),
        ("bad objective", "POST", "/v1/schedule", '{"etc": [[1, 2]], "objective": "fast"}', None, 400, ("objective", 0, 0)),
        ("lambda contradicts", "POST", "/v1/schedule", '{"etc": [[1, 2]], "objective": "makespan", "lambda": 0.5}', None, 400, ("lambda", 0, 0)),
        ("ready too short", "POST", "/v1/schedule", '{"etc": [[1, 2]], "ready": [0]}', None, 400, ("ready", 0, 0)),
        ("ready negative", "POST", "/v1/schedule", '{"etc": [[1, 2]], "ready": [0, -1]}', None, 400, ("ready", 0, 2)),
        ("steps without IG", "POST", "/v1/schedule", '{"etc": [[1, 2]], "steps": 5, "search": "pipeline"}', None, 400, None),
        ("seed not an integer", "POST", "/v1/schedule", '{"etc": [[1, 2]], "seed": 1.5}', None, 400, ("seed", 0, 0)),
        ("empty body", "POST", "/v1/schedule", "", None, 400, None),
        ("CSV ragged", "POST", "/v1/schedule", "1,2\n3,4,5\n", "text/csv", 400, (None, 2, 3)),
        ("CSV text", "POST", "/v1/schedule", "1,2\n3,abc\n", "text/csv", 400, (None, 2, 2)),
        ("CSV negative", "POST", "/v1/schedule", "1,2\n3,-4\n", "text/csv", 400, (None, 2, 2)),
        ("CSV unknown parameter", "POST", "/v1/schedule?speed=3", "1,2\n", "text/csv", 400, None),
        ("CSV bad ready", "POST", "/v1/schedule?ready=1,x", "1,2\n", "text/csv", 400, ("ready", 0, 2)),
        ("wrong content type", "POST", "/v1/schedule", "{}", "text/plain", 415, None),
        ("unknown path", "GET", "/v2/schedule", None, None, 404, None),
        ("GET schedule", "GET", "/v1/schedule", None, None, 405, None),
        ("POST health", "POST", "/v1/health", "{}", None, 405, None),
        ("DELETE metrics", "DELETE", "/metrics", None, None, 405, None),
    ]


def case_faults(devo, src):
    etc = read_csv(os.path.join(src, "etc_data", "small_16x4.csv"))
    good = {"etc": etc, "objective": "makespan", "seed": 3, "steps": 20, "time_limit": 10}
    s = Server(devo, "--workers", "2", "--max-body", "1M", "--read-timeout", "1")
    try:
        st, ref = s.json("POST", "/v1/schedule", good)
        check(st == 200 and ref["stop"] == "DEVO_OK", "first good request")
        check(math.isclose(makespan(etc, ref["assignment"]), ref["makespan"], rel_tol=1e-12), "valid")
        rss0 = s.rss_kib()
        sent = 0
        for rnd in range(4):
            for name, method, path, body, ctype, want, where in bad_requests(s):
                st, data, _ = s.request(method, path, body, ctype=ctype or "application/json")
                sent += 1
                check(st == want, "%s: status %d, expected %d" % (name, st, want))
                try:
                    e = json.loads(data)["error"]
                except (ValueError, KeyError):
                    check(False, "%s: no JSON error object: %r" % (name, data[:100]))
                    continue
                check(e["status"] == want and e["message"], "%s: error object %s" % (name, e))
                if where and rnd == 0:
                    field, row, col = where
                    check(e.get("field") == field and e.get("row", 0) == row and e.get("column", 0) == col,
                          "%s: where: %s" % (name, e))
                st, a = s.json("POST", "/v1/schedule", good)  # a good one after each bad one
                check(st == 200 and a["assignment"] == ref["assignment"], "%s: good one after it" % name)
            # clients that misbehave on the wire
            check(raw(s.port, b"HELLO\r\n\r\n") in (0, 400), "garbage request line")
            check(raw(s.port, b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"
                      b'{"etc": [[1,', read=False) is None, "disconnect mid-body")
            chunk = b"1," * 400000 + b"1\n"
            status = raw(s.port, b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n" + (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 2
                         + b"0\r\n\r\n")
            check(status == 411, "chunked body (bodies need Content-Length): %d" % status)
            status = raw(s.port, b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                         % ((1 << 20) + 1))
            check(status == 413, "oversize body (Content-Length): %d" % status)
            sent += 4
        status, took = trickle(s.port, 1.0)
        check(status == 0, "trickling body: status %d after %.2f s" % (status, took))
        check(took > 0.9, "trickling body cut only after --read-timeout: %.2f s" % took)
        check(took < 3.5, "trickling body cut after %.2f s" % took)
        st, h = s.json("GET", "/v1/health")
        check(st == 200 and h["ready"] is True, "still serving after %d bad requests" % sent)
        st, a = s.json("POST", "/v1/schedule", good)
        check(st == 200 and a["assignment"] == ref["assignment"], "good answer at the end")
        rss1 = s.rss_kib()
        print("RSS %d KiB after the first request, %d KiB after %d bad and %d good requests" %
              (rss0, rss1, sent, sent), flush=True)
        # AddressSanitizer keeps freed memory in its quarantine (256 MB by default), so under
        # scripts/sanitize_check.sh the RSS grows by design; the leak check there covers it
        if "ASAN_OPTIONS" in os.environ:
            print("RSS bound not checked under AddressSanitizer (its quarantine holds freed memory)")
        else:
            check(rss1 - rss0 < 16 * 1024, "RSS grew by %d KiB" % (rss1 - rss0))
        st, data, _ = s.request("GET", "/metrics")
        m = dict(re.findall(r'^(devo_\S+) (\S+)$', data.decode(), re.M))
        check(int(m['devo_requests_total{outcome="bad_request"}']) >= 4 * 26, "bad_request count")
        check(int(m['devo_requests_total{outcome="too_large"}']) == 4, "too_large count")
        check(int(m['devo_requests_total{outcome="http_error"}']) == 8, "http_error count (411, 400)")
        check(int(m['devo_requests_total{outcome="timeout"}']) == 1, "timeout count")
    finally:
        rc = s.stop()
    check(rc == 0, "exit code %s" % rc)


def case_shutdown(devo, src):
    etc = read_csv(os.path.join(src, "etc_data", "small_64x8.csv"))
    s = Server(devo, "--workers", "2")
    res = {}

    def call():
        res["a"] = s.json("POST", "/v1/schedule", {"etc": etc, "time_limit": 1.0})

    th = threading.Thread(target=call)
    th.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    s.proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    refused = False
    try:
        socket.create_connection(("127.0.0.1", s.port), timeout=2).close()
    except OSError:
        refused = True
    check(refused, "no new connections after SIGTERM")
    th.join()
    rc = s.stop()
    took = time.monotonic() - t0
    st, a = res["a"]
    check(st == 200 and a["admission"] == "search" and len(a["assignment"]) == 64, "in-flight answered")
    check(rc == 0, "exit code %s" % rc)
    check(took < 2.5, "stopped %.2f s after SIGTERM" % took)
    check(any("SIGTERM: stopping" in l for l in s.lines), "said it stops")


def case_strict(devo, src):
    """RFC 8259 and HTTP framing held to the letter: what a lax reader accepts is refused with a
    JSON error, and the numbers are read exactly (the answers of devo schedule on the same matrix
    as CSV)."""
    s = Server(devo, "--workers", "2")
    try:
        cases = [  # (name, body, field or None)
            ("duplicate member", '{"etc": [[1, 2]], "time_limit": 0.05, "time_limit": 30}', "time_limit"),
            ("duplicate etc", '{"etc": [[1, 2]], "etc": [[3, 4]]}', "etc"),
            ("bytes after the object", '{"etc": [[1, 2]]} x', None),
            ("second object", '{"etc": [[1, 2]]}{}', None),
            ("number as a string", '{"etc": [[1, 2]], "time_limit": "0.05"}', "time_limit"),
            ("matrix value as a string", '{"etc": [["1", 2]]}', "etc"),
            ("word as a number", '{"etc": [[1, 2]], "objective": 1}', "objective"),
            ("vertical tab as whitespace", '{"etc":\x0b[[1, 2]]}', None),
            ("NUL as whitespace", '{"etc": [[1,\x002]]}', None),
            ("form feed as whitespace", '\x0c{"etc": [[1, 2]]}', None),
            ("control byte in a string", '{"etc": [[1, 2]], "objective": "make\x01span"}', None),
            ("leading zero", '{"etc": [[01, 2]]}', None),
            ("plus sign", '{"etc": [[+1, 2]]}', None),
            ("bare fraction", '{"etc": [[.5, 2]]}', None),
            ("dot without digits", '{"etc": [[1., 2]]}', None),
            ("exponent without digits", '{"etc": [[1e, 2]]}', None),
            ("trailing comma", '{"etc": [[1, 2],]}', None),
            ("single quotes", "{'etc': [[1, 2]]}", None),
            ("bad escape", '{"etc": [[1, 2]], "objective": "\\q"}', None),
            ("unknown member", '{"etc": [[1, 2]], "time limit": 1}', None),
        ]
        for name, body, field in cases:
            st, data, _ = s.request("POST", "/v1/schedule", body)
            try:
                e = json.loads(data)["error"]
            except (ValueError, KeyError):
                check(False, "%s: no JSON error: %r" % (name, data[:120]))
                continue
            check(st == 400 and e["status"] == 400, "%s: status %d %s" % (name, st, e))
            if field:
                check(e.get("field") == field, "%s: field %s" % (name, e))
        # what RFC 8259 allows is taken: whitespace around, exponents, escapes in strings
        ok = ' \r\n\t{"etc" : [ [1e0 , 2E+1] ,[0.5,3.25e-0] ] , "objective" : "make\\u0073pan",' \
             ' "time_limit": 5e-1 , "seed" : 3, "steps": 5}\n '
        st, data, _ = s.request("POST", "/v1/schedule", ok)
        check(st == 200, "valid JSON with whitespace, exponents and escapes: %d %r" % (st, data[:200]))
        # exact numbers: a matrix of awkward numerals (17 digits, exponents, long fractions)
        # gives the very answer devo schedule gives for the same numerals as CSV
        import random
        rng = random.Random(5)
        rows = []
        for t in range(48):
            row = []
            for j in range(6):
                x = rng.uniform(0.5, 2000.0)
                row.append(rng.choice([repr(x), "%.3e" % x, "%.20f" % x, "%d" % max(1, int(x)),
                                       "%.24f" % (x * 1e-7) + "e7"]))
            rows.append(row)
        csv = "".join(",".join(r) + "\n" for r in rows)
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "serve_strict_%d.csv" % os.getpid())
        with open(path, "w") as f:
            f.write(csv)
        try:
            ref = devo_schedule(devo, path, "--objective", "makespan", "--seed", "9", "--steps", "40",
                                "--time-limit", "20")
        finally:
            os.unlink(path)
        body = '{"etc": [%s], "objective": "makespan", "seed": 9, "steps": 40, "time_limit": 20}' % \
            ",".join("[" + ",".join(r) + "]" for r in rows)
        st, data, _ = s.request("POST", "/v1/schedule", body)
        a = json.loads(data)
        check(st == 200 and a["assignment"] == ref["assignment"] and a["makespan"] == ref["makespan"],
              "awkward numerals: the answer of devo schedule (%s vs %s)" % (a.get("makespan"), ref["makespan"]))
        # framing: two Content-Length headers, or one with chunked, refused as JSON, and the
        # connection closed (a second request behind it is never read: no smuggling)
        for name, head in (("two Content-Length", b"Content-Length: 16\r\nContent-Length: 5\r\n"),
                           ("Content-Length and chunked", b"Content-Length: 16\r\nTransfer-Encoding: chunked\r\n")):
            got, _ = exchange(s.port, b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n" +
                              b'{"etc": [[1,2]]}' + b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            m = re.match(rb"HTTP/1\.1 (\d+)", got)
            body = got.split(b"\r\n\r\n", 1)[-1]
            check(m is not None and m.group(1) == b"400" and b'"error"' in body,
                  "%s: refused with a JSON 400: %r" % (name, got[:200]))
            check(got.count(b"HTTP/1.1 ") == 1, "%s: one answer only, connection closed: %r" % (name, got[-200:]))
        # the errors of the HTTP layer (those libmicrohttpd would make itself as HTML) are JSON,
        # counted as http_error, and the connection closed at once
        heads = [  # (name, bytes, status)
            ("garbage request line", b"GARBAGE REQUEST LINE HERE\r\n\r\n", 400),
            ("request line without spaces", b"HELLO\r\n\r\n", 400),
            ("TLS on the plain port", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),
            ("HTTP/2.0 request line", b"GET /v1/health HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("header too large", b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n", 431),
            ("too many header fields", b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"X-A: 1\r\n" * 101 + b"\r\n", 431),
            ("target too long", b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            ("header line without colon", b"GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400),
            ("line folding", b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n", 400),
            ("no Host", b"GET /v1/health HTTP/1.1\r\n\r\n", 400),
            ("bad Content-Length", b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n{}", 400),
            ("negative Content-Length", b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nContent-Length: -2\r\n\r\n{}", 400),
            ("Content-Length of 23 digits", b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nContent-Length: " + b"9" * 23 + b"\r\n\r\n", 413),
            ("chunked body", b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"10\r\n{\"etc\": [[1,2]]}\r\n0\r\n\r\n", 411),
            ("malformed chunk", b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 411),
        ]
        st, data, _ = s.request("GET", "/metrics")
        before = int(re.search(rb'outcome="http_error"\} (\d+)', data).group(1))
        for name, head, want in heads:
            got, took = exchange(s.port, head)
            m = re.match(rb"HTTP/1\.1 (\d+)", got)
            try:
                e = json.loads(got.split(b"\r\n\r\n", 1)[1])["error"]
            except (IndexError, ValueError, KeyError):
                e = None
            check(m is not None and int(m.group(1)) == want and e is not None and e["status"] == want
                  and e["message"], "%s: a JSON %d: %r" % (name, want, got[:300]))
            check(b"application/json" in got.split(b"\r\n\r\n", 1)[0], "%s: JSON content type" % name)
            check(took < 2.0, "%s: connection held %.2f s" % (name, took))
        st, data, _ = s.request("GET", "/metrics")
        after = int(re.search(rb'outcome="http_error"\} (\d+)', data).group(1))
        check(after - before == len(heads), "http_error counted %d of %d" % (after - before, len(heads)))
        # a later request of a keep-alive connection: chunked refused as JSON too (before any
        # chunk is read), and the service still answers on new connections
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
        c.request("GET", "/v1/health")
        r = c.getresponse()
        check(r.status == 200 and json.loads(r.read())["ready"] is True, "keep-alive: first request")
        c.request("POST", "/v1/schedule", body=iter([b'{"etc": [[1, 2]]}']),
                  headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        r = c.getresponse()
        data = r.read()
        check(r.status == 411 and json.loads(data)["error"]["status"] == 411,
              "keep-alive: chunked body refused as JSON: %d %r" % (r.status, data[:200]))
        c.close()
        st, h = s.json("GET", "/v1/health")
        check(st == 200 and h["ready"] is True, "still serving after the bad heads")
        # one request per connection (the default): a bad head pipelined behind a good request is
        # never read by libmicrohttpd (whose own answer would be HTML): the first answer says
        # Connection: close and the connection ends with it
        got, took = exchange(s.port, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
                             b"GET / HTTP/1.1\r\nHost: x\r\nBad header line\r\n\r\n")
        check(got.count(b"HTTP/1.1 ") == 1 and b"<html" not in got.lower()
              and re.search(rb"(?i)\r\nconnection: close\r\n", got) is not None and took < 2.0,
              "one request per connection: %r" % got[:300])
    finally:
        rc = s.stop()
    check(rc == 0, "exit code %s" % rc)
    # --keep-alive: more requests on one connection (their heads are libmicrohttpd's to read)
    s = Server(devo, "--workers", "1", "--keep-alive")
    try:
        got, _ = exchange(s.port, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
                          b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        check(got.count(b"HTTP/1.1 200") == 2, "--keep-alive: two answers on one connection: %r"
              % got[:300])
    finally:
        rc = s.stop()
    check(rc == 0, "--keep-alive: exit code %s" % rc)


def case_slow_clients(devo, src):
    """260 connections that send their head one byte a second cannot lock a normal client out;
    a head that trickles in is cut at --read-timeout, not extended by its bytes."""
    etc = read_csv(os.path.join(src, "etc_data", "small_64x8.csv"))
    for args, label in ((["--max-connections", "256", "--max-per-address", "1000"], "connection limit"),
                        ([], "per-address limit (64)")):
        s = Server(devo, "--workers", "2", "--read-timeout", "3", *args)
        socks = []
        try:
            for _ in range(260):
                try:
                    sk = socket.create_connection(("127.0.0.1", s.port), timeout=5)
                    sk.setblocking(False)
                    sk.send(b"POST /v1/schedule HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    socks.append(sk)
                except OSError:
                    pass
            t_end = time.monotonic() + 2.0
            answer = {}

            def normal():
                t0 = time.monotonic()
                try:
                    answer["r"] = s.json("POST", "/v1/schedule", {"etc": etc, "time_limit": 0.2},
                                         timeout=10)
                except OSError as e:
                    answer["r"] = (0, {"error": str(e)})
                answer["took"] = time.monotonic() - t0

            th = None
            while time.monotonic() < t_end:  # one byte a second on every slow connection
                for sk in socks:
                    try:
                        sk.send(b"a")
                    except OSError:
                        pass
                if th is None:
                    time.sleep(0.5)
                    th = threading.Thread(target=normal)
                    th.start()
                time.sleep(0.5)
            th.join()
            st, a = answer["r"]
            check(st == 200 and a.get("deadline_met") is True,
                  "%s: a normal client beside 260 slow ones: %s %s" % (label, st, a.get("error", "")))
            check(answer["took"] < 2.0, "%s: answered after %.2f s" % (label, answer["took"]))
            st, data, _ = s.request("GET", "/metrics")
            m = dict(re.findall(r'^(devo_\S+) (\S+)$', data.decode(), re.M))
            check(int(m.get('devo_requests_total{outcome="evicted"}', 0)) >= 4,
                  "%s: slow connections closed to make room: %s" % (label, m.get('devo_requests_total{outcome="evicted"}')))
        finally:
            for sk in socks:
                sk.close()
            rc = s.stop()
        check(rc == 0, "exit code %s" % rc)
    # a head that trickles in one byte every 0.2 s: cut at --read-timeout (1 s) all the same
    s = Server(devo, "--read-timeout", "1")
    try:
        sk = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        t0 = time.monotonic()
        try:
            sk.sendall(b"POST /v1/schedule HTTP/1.1\r\n")
            while time.monotonic() - t0 < 4.0:
                sk.sendall(b"X")
                time.sleep(0.2)
        except OSError:
            pass
        took = time.monotonic() - t0
        sk.close()
        check(0.9 < took < 2.5, "trickling head cut after %.2f s (--read-timeout 1)" % took)
    finally:
        rc = s.stop()
    check(rc == 0, "exit code %s" % rc)


def ones_body(n, m, time_limit):
    """The JSON of an n x m matrix of ones, compact ("1,1"), with its time limit."""
    row = b"[" + b"1," * (m - 1) + b"1]"
    return b'{"etc":[' + b",".join([row] * n) + b'],"time_limit":%r}' % time_limit


class Clean:
    """The rule of tests/tcheck.h for a run of the server: clean when the server lost no CPU to
    preemption (its threads' involuntary context switches), the machine stole none, and (unless
    TC_DEADLINE_SHARED=1) at most `busy` threads were ready to run before and after it."""

    def __init__(self, pid, busy):
        self.pid, self.busy = pid, busy
        self.shared = os.environ.get("TC_DEADLINE_SHARED") == "1"

    def snap(self):
        switches = 0
        for task in os.listdir("/proc/%d/task" % self.pid):
            try:
                with open("/proc/%d/task/%s/status" % (self.pid, task)) as f:
                    for line in f:
                        if line.startswith("nonvoluntary_ctxt_switches:"):
                            switches += int(line.split()[1])
            except OSError:
                pass
        steal, running = 0, 99
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu "):
                    steal = int(line.split()[8])
                elif line.startswith("procs_running"):
                    running = int(line.split()[1])
        return switches, steal, running

    def clean(self, a, b):
        return a[0] == b[0] and a[1] == b[1] and (self.shared or max(a[2], b[2]) <= self.busy)


def case_parse_deadline(devo, src):
    """A body that cannot be read before its deadline: refused at once by the estimate (413), or,
    where the estimate was wrong, ended at its deadline while being read (503, with how far the
    reading got); one that can be read is answered on time."""
    body = ones_body(4096, 4096, 0.1)  # 33.6 MB
    s = Server(devo, "--workers", "2", "--backend", "cpu")
    try:
        t0 = time.monotonic()
        st, data, r = s.request("POST", "/v1/schedule", body, timeout=60)
        e = json.loads(data).get("error", {})
        check(st == 413 and e.get("field") == "time_limit" and "read" in e.get("message", ""),
              "33.6 MB with 0.1 s: refused at once: %d %s" % (st, e))
        # at once: after the options were read (the matrix skipped, about 1 GB/s), not after it
        check(float(r.getheader("X-Devo-Elapsed-Ms", "1e9")) < 300, "refused %s ms after the body" %
              r.getheader("X-Devo-Elapsed-Ms"))
        body = ones_body(2048, 4096, 2.0)  # 16.8 MB, 2 s: read and answered on time
        st, data, r = s.request("POST", "/v1/schedule", body, timeout=60)
        a = json.loads(data)
        check(st == 200 and len(a.get("assignment", [])) == 2048, "16.8 MB with 2 s: %d" % st)
        check(a.get("elapsed", 99) < 2.0 + 0.5, "16.8 MB with 2 s answered after %s s" % a.get("elapsed"))
        print("16.8 MB, 2 s: %d after %.3f s, Server-Timing %s" % (st, a.get("elapsed", -1),
                                                                  r.getheader("Server-Timing")))
    finally:
        check(s.stop() == 0, "exit code")
    # a server that assumes it reads 100 GB/s: the estimate lets the body in, its deadline ends
    # the reading
    s = Server(devo, "--workers", "2", "--backend", "cpu", "--parse-rate", "100000")
    probe = Clean(s.proc.pid, 2)
    clean, worst, limit = 0, 0.0, 0.25
    try:
        # 67.1 MB: about 0.25 s to read on a free core, with the options read first (0.04 s) and
        # the quick answer's time for 33.5 M values (0.13 s) left after it: the reading stops at
        # the deadline, or ends too late for any answer (503 too)
        body = ones_body(8189, 4096, limit)
        for k in range(3):
            a0 = probe.snap()
            st, data, r = s.request("POST", "/v1/schedule", body, timeout=60)
            a1 = probe.snap()
            e = json.loads(data).get("error", {})
            el = float(r.getheader("X-Devo-Elapsed-Ms", "1e9"))
            check(st == 503 and "deadline" in e.get("message", ""), "deadline while reading: %d %s" % (st, e))
            if "while the body was parsed" in e.get("message", ""):
                check(e.get("field") == "etc" and e.get("row", 0) >= 1, "how far it got: %s" % e)
            check(el < 1e3 * limit + 1000, "deadline while reading: answered %.1f ms after the body" % el)
            if probe.clean(a0, a1):
                clean += 1
                worst = max(worst, el - 1e3 * limit)
                check(el <= 1e3 * limit + 5, "clean run: answered %.1f ms after the body, limit %g s" % (el, limit))
            print("run %d: %d after %.1f ms (%s): %s" % (k + 1, st, el, "clean" if probe.clean(a0, a1)
                                                          else "not clean", e.get("message")))
        print("%d clean runs, the largest past the limit %.1f ms" % (clean, worst))
        st, data, _ = s.request("GET", "/metrics")
        m = dict(re.findall(r'^(devo_\S+) (\S+)$', data.decode(), re.M))
        check(m.get('devo_requests_total{outcome="deadline"}') == "3", "deadline outcome counted")
    finally:
        check(s.stop() == 0, "exit code")
    if clean < 1:
        SKIPPED.append("inconclusive: no run of the reading to its deadline was clean (a loaded "
                       "machine): the 5 ms promise was not tested")


def case_mixed_deadline(devo, src):
    """Small requests while a large body is read keep their deadline: the reading holds a worker
    slot (admission counts it), so it takes no core from their searches."""
    big = ones_body(8189, 4096, 3.0)  # 67.1 MB, as in the audit (there with 10 s)
    s = Server(devo, "--workers", "2", "--backend", "cpu")
    probe = Clean(s.proc.pid, 3)
    small = {"etc": [[1, 2], [3, 4], [5, 6]], "time_limit": 0.05}
    res, lat = {}, []
    clean = 0
    try:
        def large():
            res["big"] = s.request("POST", "/v1/schedule", big, timeout=120)

        th = threading.Thread(target=large)
        th.start()
        time.sleep(0.3)  # its body sent: being read
        for k in range(10):
            a0 = probe.snap()
            st, data, r = s.request("POST", "/v1/schedule", json.dumps(small))
            a1 = probe.snap()
            el = float(r.getheader("X-Devo-Elapsed-Ms", "1e9"))
            a = json.loads(data)
            check(st == 200 and len(a.get("assignment", [])) == 3, "small request: %d" % st)
            check(el < 50 + 1000, "small request answered %.1f ms after its body" % el)
            if probe.clean(a0, a1):
                clean += 1
                check(el <= 50 + 5, "clean run: small request answered %.1f ms after its body" % el)
            lat.append(el)
        th.join()
        st, data, r = res["big"]
        a = json.loads(data)
        # its search and answer, 8189 x 4096, may end a few ms late on a loaded machine: the
        # load test holds it to the 5 ms (scripts/serve_load.py); here, answered, near its limit
        check(st == 200 and a.get("elapsed", 99) < 3.0 + 0.5 and len(a.get("assignment", [])) == 8189,
              "67.1 MB with 3 s: %d, elapsed %s" % (st, a.get("elapsed")))
        print("small requests (ms after their body): %s; %d clean" % (
            " ".join("%.1f" % x for x in lat), clean))
        peak = s.rss_kib("VmHWM:")
        print("67.1 MB, 3 s: %d after %.3f s, Server-Timing %s, RSS %d KiB, peak %d KiB" % (
            st, a.get("elapsed", -1), r.getheader("Server-Timing"), s.rss_kib(), peak))
        # memory: the body (67.1 MB) and the matrix (268 MB) while it is read, nothing per value;
        # then the matrix and the search's copy of it (the body freed)
        matrix = 8 * 8189 * 4096
        check(peak < max(len(big) + matrix, 2 * matrix) // 1024 + 64 * 1024,
              "peak RSS %d KiB for a body of %d KiB" % (peak, len(big) // 1024))
    finally:
        check(s.stop() == 0, "exit code")
    if clean < 3:
        SKIPPED.append("inconclusive: %d of 10 small requests ran clean (a loaded machine), 3 "
                       "needed: the promise was not tested" % clean)


def serve_exit(devo, *args):
    """devo serve with args that it must refuse: its exit code and stderr lines."""
    p = subprocess.run([devo, "serve", "--listen", "127.0.0.1:0", *args], capture_output=True,
                       text=True, timeout=30)
    return p.returncode, p.stderr.splitlines()


def case_gpus(devo, src):
    """--gpus: a bad list exits 2 with one line naming the option and the bad element; --gpus all
    starts wherever it runs, and on a machine without a GPU it says so and answers gpu-ls requests
    on the CPU (search ig, backend cpu, gpu_fallback absent), counted in /metrics. The placement
    on several GPUs is measured by scripts/serve_load.py --search gpu-ls on a GPU machine."""
    for value, element in (("", "empty list"), ("0,,1", "empty element"), ("x", "'x'"),
                           ("0,gpu1", "'gpu1'"), ("-1", "'-1'"), ("1.5", "'1.5'"),
                           ("0,1,0", "device 0 is listed twice"), ("all,0", "'all'"),
                           ("1,all", "'all'"), ("4096", "device 4096"), ("99999", "'99999'")):
        rc, lines = serve_exit(devo, "--gpus", value)
        check(rc == 2, "--gpus %r: exit %s, expected 2" % (value, rc))
        check(len(lines) == 1 and lines[0].startswith("devo serve: --gpus") and element in lines[0],
              "--gpus %r: one line naming --gpus and %s: %s" % (value, element, lines))
    rc, lines = serve_exit(devo, "--gpus", "all", "--backend", "cpu")
    check(rc == 2 and len(lines) == 1 and "--backend cpu" in lines[0],
          "--gpus with --backend cpu: exit %s, %s" % (rc, lines))
    etc = read_csv(os.path.join(src, "etc_data", "512x16", "u_c_hihi.csv"))
    s = Server(devo, "--workers", "2", "--gpus", "all")
    try:
        st, h = s.json("GET", "/v1/health")
        absent = any("--gpus all: no GPU is visible" in l for l in s.lines)
        check(st == 200 and isinstance(h.get("gpus"), list), "health gpus: %s" % h)
        check(absent == (h.get("gpus") == []), "no GPU said (%s) iff none listed: %s" % (absent, h))
        if absent:
            check(h["gpu"] is None, "health gpu without GPUs: %r" % h["gpu"])
            # with no GPU, an explicit index is bad usage
            rc, lines = serve_exit(devo, "--gpus", "0")
            check(rc == 2 and len(lines) == 1 and "device 0" in lines[0] and "no GPU" in lines[0],
                  "--gpus 0 without a GPU: exit %s, %s" % (rc, lines))
        n_gpu_ls = 3
        for k in range(n_gpu_ls):
            st, a = s.json("POST", "/v1/schedule", {"etc": etc, "objective": "makespan",
                                                    "time_limit": 0.1, "search": "gpu-ls",
                                                    "seed": k + 1})
            check(st == 200 and len(a.get("assignment", [])) == 512, "gpu-ls status %d" % st)
            check(math.isclose(makespan(etc, a["assignment"]), a["makespan"], rel_tol=1e-12),
                  "gpu-ls answer valid")
            if absent:
                check((a["search"], a["backend"], a["gpu"], a["gpu_fallback"]) ==
                      ("ig", "cpu", None, "absent"),
                      "gpu-ls without a GPU: search %s backend %s gpu %s gpu_fallback %s" %
                      (a["search"], a["backend"], a["gpu"], a["gpu_fallback"]))
            elif a["backend"] == "gpu":  # on a GPU (one request at a time: never busy here)
                check(a["gpu"] in [g["device"] for g in h["gpus"]] and a["gpu_fallback"] is None,
                      "gpu-ls on a GPU: gpu %s gpu_fallback %s" % (a["gpu"], a["gpu_fallback"]))
        # a request that does not want a GPU: no fallback said (IG of the makespan on the CPU)
        st, a = s.json("POST", "/v1/schedule", {"etc": etc, "objective": "makespan",
                                                "time_limit": 0.05, "search": "ig"})
        check(st == 200 and a["gpu"] is None and a["gpu_fallback"] is None,
              "ig: gpu %s gpu_fallback %s" % (a.get("gpu"), a.get("gpu_fallback")))
        st, data, _ = s.request("GET", "/metrics")
        text = data.decode()
        m = dict(re.findall(r'^(devo_\S+) (\S+)$', text, re.M))
        for name in ("devo_gpu_requests_total", "devo_gpu_searches_running",
                     "devo_gpu_fallbacks_total"):
            check("# TYPE %s " % name in text, "metrics: %s declared" % name)
        busy = m.get('devo_gpu_fallbacks_total{reason="busy"}')
        gone = m.get('devo_gpu_fallbacks_total{reason="absent"}')
        check(busy == "0", "busy fallbacks (one request at a time): %s" % busy)
        per_gpu = sum(int(v) for k, v in m.items() if k.startswith("devo_gpu_requests_total{"))
        if absent:
            check(gone == str(n_gpu_ls), "absent fallbacks %s, expected %d" % (gone, n_gpu_ls))
            check(per_gpu == 0, "requests on GPUs without one: %d" % per_gpu)
        else:
            check(per_gpu + int(gone) == n_gpu_ls, "requests per GPU %d" % per_gpu)
    finally:
        check(s.stop() == 0, "exit code")


def main():
    case, devo, src = sys.argv[1], sys.argv[2], sys.argv[3]
    {"api": case_api, "admission": case_admission, "faults": case_faults,
     "shutdown": case_shutdown, "strict": case_strict, "slow_clients": case_slow_clients,
     "parse_deadline": case_parse_deadline, "mixed_deadline": case_mixed_deadline,
     "gpus": case_gpus}[case](devo, src)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    if SKIPPED:
        print("skipped: " + "; ".join(SKIPPED))
        return 77
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
