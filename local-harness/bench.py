#!/usr/bin/env python3
"""`make bench`: how fast and how small AttestGate is, next to what a user would pick instead.

Prints one table; every timed figure is the median of several runs with their min and max. Everything
runs on 127.0.0.1: a timestamping Lambda Runtime API stub (raw sockets, this process), moto for DynamoDB,
local-harness/fake_upstream.py for the AI API, local-harness/lambda_harness.py for the HTTP front, and
.build/release/GateBench (a simulated genuine iOS device) for the gate figures. See docs/performance.md.

usage: bench.py --bin .build/release [--app-attest-line LINE ...] [--quick] [--json OUT]
"""
import argparse
import glob
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
API = b"/2018-06-01/runtime/invocation/"
NEXT = b"/2018-06-01/runtime/invocation/next"
MIB = 1024.0 * 1024.0


# ---------------------------------------------------------------------------------------------- helpers

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listener():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    return s


def serve_connections(sock, serve, nodelay=False):
    """Accepts on `sock` in a daemon thread until it is closed; each connection gets a daemon thread
    running `serve(conn)`."""
    def accept():
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            if nodelay:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()


def read_request(conn, buf):
    """One HTTP/1.1 request from `conn` (keep-alive): (method, path, headers, body, rest) or None at EOF."""
    while b"\r\n\r\n" not in buf:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buf += chunk
    head, buf = buf.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    method, path, _ = lines[0].split(b" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get(b"content-length", b"0"))
    if length > len(buf) and headers.get(b"expect", b"").lower() == b"100-continue":
        conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    while len(buf) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buf += chunk
    return method, path, headers, buf[:length], buf[length:]


def reply(status, body=b"", headers=()):
    head = ["HTTP/1.1 %d X" % status, "Content-Length: %d" % len(body)] + ["%s: %s" % h for h in headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def stats(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100.0 * (len(ordered) - 1))))]


def memory(pid):
    """VmHWM, VmRSS and its split (RssAnon: heap and stacks; RssFile: mapped binary and libraries) in bytes."""
    out = {}
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith(("VmHWM:", "VmRSS:", "RssAnon:", "RssFile:")):
                name, value = line.split(":", 1)
                out[name] = int(value.split()[0]) * 1024
    return out


class Counter:
    """A socket that only counts connections (the DynamoDB endpoint during cold start: must stay 0)."""

    def __init__(self):
        self.sock = listener()
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


# ------------------------------------------------------------------------------------------- cold start

def first_next(sock, process, timeout=30):
    """Accepts connections on `sock` until one sends a GET /next; returns perf_counter_ns at that moment and
    that connection, left open: the process waits in the long poll, as with Lambda's Runtime API, instead
    of handling a closed connection (and perhaps exiting) before it is killed."""
    sock.settimeout(timeout)
    while True:
        conn, _ = sock.accept()
        request = read_request(conn, b"")
        stamp = time.perf_counter_ns()
        if request and request[0] == b"GET" and request[1] == NEXT:
            return stamp, conn
        conn.close()
        if process.poll() is not None:
            raise RuntimeError("process exited with %s before GET /next" % process.returncode)


def cpu_at_next(pid):
    """The on-CPU time of every thread of `pid` so far, in milliseconds (/proc/<pid>/task/*/schedstat, ns):
    the CPU time to /next when read at that moment, before the kill. wait4's rusage, read after the kill,
    also counts the kernel's teardown of the killed process (~1 ms for the bootstrap, ~10 ms for Python)."""
    total = 0
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as handle:
                total += int(handle.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total / 1e6


def cold_start(command, env, runs):
    """Exec of `command` to its first GET /next on a fresh Runtime API stub, per run, in milliseconds; the
    process's CPU time by then (every thread's, from schedstat at /next: the part machine load does not
    inflate); and its CPU time from wait4 after the kill (the same plus the teardown)."""
    times, cpu, rusage = [], [], []
    for _ in range(runs):
        sock = listener()
        run_env = dict(env, AWS_LAMBDA_RUNTIME_API="127.0.0.1:%d" % sock.getsockname()[1])
        start = time.perf_counter_ns()
        process = subprocess.Popen(command, env=run_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        try:
            stamp, conn = first_next(sock, process)
        except (RuntimeError, socket.timeout) as error:
            process.kill()
            sys.exit("cold start of %s failed: %s\n%s" % (command[0], error, process.stderr.read().decode()))
        times.append((stamp - start) / 1e6)
        cpu.append(cpu_at_next(process.pid))
        # os.kill, not Popen.kill: that polls first and would reap a process that already exited, leaving
        # wait4 no child (and no rusage) to read.
        os.kill(process.pid, 9)
        process.stderr.close()
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = -9
        conn.close()
        rusage.append((usage.ru_utime + usage.ru_stime) * 1000)
        sock.close()
    return times, cpu, rusage


# ------------------------------------------------------------------------------------- runtime API stub

class RuntimeStub:
    """A fast Runtime API: every /next gets `event` until `limit` invocations were served; /next after that
    is held until stop. `on_response(n)` runs after the n-th response arrived and before it is
    acknowledged (the bootstrap is idle, waiting on that acknowledgement)."""

    def __init__(self, event, limit, on_response=None, deadline_ms=30000):
        self.event = event
        self.deadline_ms = deadline_ms
        self.limit = limit
        self.on_response = on_response
        self.served = 0
        self.responses = 0
        self.statuses = {}
        self.stamps = []  # perf_counter_ns at each response
        self.stop = threading.Event()
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.sock = listener()
        self.endpoint = "127.0.0.1:%d" % self.sock.getsockname()[1]
        serve_connections(self.sock, self._serve, nodelay=True)

    def _serve(self, conn):
        buf = b""
        try:
            while True:
                request = read_request(conn, buf)
                if request is None:
                    return
                method, path, headers, body, buf = request
                conn.sendall(self._route(method, path, body))
        except OSError:
            return
        finally:
            conn.close()

    def _route(self, method, path, body):
        if method == b"GET" and path == NEXT:
            with self.lock:
                number = self.served
                self.served += 1
            if number >= self.limit:
                self.stop.wait()
                return reply(500, b'{"errorType":"Stopped"}')
            deadline = int(time.time() * 1000) + self.deadline_ms
            return reply(200, self.event, [
                ("Content-Type", "application/json"),
                ("Lambda-Runtime-Aws-Request-Id", "bench-%d" % number),
                ("Lambda-Runtime-Deadline-Ms", str(deadline)),
                ("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:000000000000:function:bench"),
                ("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000;Sampled=0"),
            ])
        if method == b"POST" and path.startswith(API) and path.endswith(b"/response"):
            try:
                status = json.loads(body).get("statusCode")
            except ValueError:
                status = "unparsable"
            with self.lock:
                self.responses += 1
                number = self.responses
                self.statuses[status] = self.statuses.get(status, 0) + 1
                self.stamps.append(time.perf_counter_ns())
            if self.on_response:
                self.on_response(number)
            if number >= self.limit:
                self.done.set()
            return reply(202, b'{"status":"OK"}')
        if method == b"POST" and path.startswith(API) and path.endswith(b"/error"):
            with self.lock:
                self.responses += 1
                self.statuses["error"] = self.statuses.get("error", 0) + 1
                if self.responses >= self.limit:
                    self.done.set()
            return reply(202, b'{"status":"OK"}')
        return reply(404, b'{"errorType":"NotFound"}')

    def close(self):
        self.stop.set()
        self.sock.close()


def api_event(method, path, headers, body):
    now = int(time.time() * 1000)
    return json.dumps({
        "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
        "headers": headers, "isBase64Encoded": False, "body": body,
        "requestContext": {
            "accountId": "000000000000", "apiId": "bench", "domainName": "127.0.0.1", "domainPrefix": "bench",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1",
                     "userAgent": "bench"},
            "requestId": str(uuid.uuid4()), "routeKey": "$default", "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()), "timeEpoch": now,
        },
    }).encode()


def start_bootstrap(binary, env, stub):
    run_env = dict(env, AWS_LAMBDA_RUNTIME_API=stub.endpoint)
    return subprocess.Popen([binary], env=run_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def throughput(binary, env, warmup, window, windows):
    """Invocations per second of an unknown route (404, no store) in `windows` consecutive windows."""
    event = api_event("GET", "/bench/not-a-route", {"x-device-id": str(uuid.uuid4())}, "")
    stub = RuntimeStub(event, warmup + window * windows)
    process = start_bootstrap(binary, env, stub)
    finished = stub.done.wait(timeout=120)
    stop(process)
    stub.close()
    if not finished:
        sys.exit("throughput: only %d of %d invocations answered" % (stub.responses, stub.limit))
    rates = []
    for index in range(windows):
        first = stub.stamps[warmup + index * window - 1]
        last = stub.stamps[warmup + (index + 1) * window - 1]
        rates.append(window / ((last - first) / 1e9))
    return rates, stub.statuses


# --------------------------------------------------------------------------------------- moto, upstream
class FakeDynamo:
    """DynamoDB's JSON API reduced to what a metered call in GATE_MODE=off with no ceiling sends: every
    UpdateItem succeeds and returns (ALL_NEW) the row's keys, `first_seen` = today and `count` = 1. It
    answers at once (moto needs ~10-70 ms a request on a loaded machine, which would make 10,000 calls
    take far more than the few minutes `make bench` may use). Requests are counted by operation."""

    def __init__(self):
        self.operations = {}
        self.lock = threading.Lock()
        self.sock = listener()
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        serve_connections(self.sock, self._serve)

    def _serve(self, conn):
        buf = b""
        try:
            while True:
                request = read_request(conn, buf)
                if request is None:
                    return
                _method, _path, headers, body, buf = request
                operation = headers.get(b"x-amz-target", b"").decode().rsplit(".", 1)[-1]
                with self.lock:
                    self.operations[operation] = self.operations.get(operation, 0) + 1
                if operation != "UpdateItem":
                    conn.sendall(reply(400, b'{"__type":"com.amazon.coral.validate#ValidationException",'
                                            b'"message":"bench fake: UpdateItem only"}',
                                       [("Content-Type", "application/x-amz-json-1.0")]))
                    continue
                key = json.loads(body).get("Key", {})
                row = dict(key, first_seen={"S": time.strftime("%Y-%m-%d", time.gmtime())}, count={"N": "1"})
                conn.sendall(reply(200, json.dumps({"Attributes": row}).encode(),
                                   [("Content-Type", "application/x-amz-json-1.0")]))
        except OSError:
            return
        finally:
            conn.close()

    def close(self):
        self.sock.close()



class Stack:
    """Processes this run started, stopped in reverse order."""

    def __init__(self):
        self.processes = []

    def spawn(self, command, **kwargs):
        process = subprocess.Popen(command, **kwargs)
        self.processes.append(process)
        return process

    def close(self):
        for process in reversed(self.processes):
            stop(process)


def start_moto(stack, keep_alive=False):
    port = free_port()
    stack.spawn([sys.executable, os.path.join(HERE, "moto_server.py"), "-H", "127.0.0.1", "-p", str(port)]
                + (["--keep-alive"] if keep_alive else []), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d" % port
    for _ in range(300):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/moto-api/")
            connection.getresponse().read()
            return url
        except OSError:
            time.sleep(0.1)
    sys.exit("moto did not start")


def start_upstream(stack, key_file):
    process = stack.spawn([sys.executable, os.path.join(HERE, "fake_upstream.py"), "--key-file", key_file],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return json.loads(process.stdout.readline())["url"]


def create_table(attestgate, env, table):
    out = subprocess.run([attestgate, "table", "create", "--table", table], env=env, capture_output=True)
    if out.returncode != 0:
        sys.exit("table create failed: %s %s" % (out.stdout.decode(), out.stderr.decode()))


class CountingProxy:
    """Loopback proxy in front of moto that records every DynamoDB request: (operation, start, end) on
    CLOCK_MONOTONIC, the clock GateBench stamps its calls with."""

    def __init__(self, upstream_port):
        self.records = []
        records, lock = self.records, threading.Lock()
        local = threading.local()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK
            # (~40 ms per answer on Linux).
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                start = time.monotonic_ns()
                operation = self.headers.get("X-Amz-Target", "").rsplit(".", 1)[-1]
                connection = getattr(local, "connection", None)
                if connection is None:
                    connection = local.connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
                connection.request("POST", self.path, body=body, headers=headers)
                answer = connection.getresponse()
                payload = answer.read()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("content-length", "connection", "transfer-encoding", "server", "date"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
                with lock:
                    records.append((operation, start, time.monotonic_ns()))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def longest_chain(spans):
    """The most requests among `spans` that ran strictly one after another (each starting after the
    previous ended): the requests in sequence on the call's critical path."""
    spans = sorted(spans, key=lambda span: span[1])
    best = []
    for index, (start, _end) in enumerate(spans):
        before = [best[j] for j in range(index) if spans[j][1] <= start]
        best.append(1 + (max(before) if before else 0))
    return max(best) if best else 0


def start_harness(stack, bootstrap, env):
    command = [sys.executable, os.path.join(HERE, "lambda_harness.py"), "--bootstrap", bootstrap, "--quiet",
               "--deadline-ms", "10000"]
    for key, value in sorted(env.items()):
        command += ["--env", "%s=%s" % (key, value)]
    process = stack.spawn(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    info = json.loads(process.stdout.readline() or b"{}")
    if not info.get("ready"):
        sys.exit("lambda harness did not start")
    return process, info


# ------------------------------------------------------------------------------------------- streaming

def first_byte_ms(host, port, path, body, headers=None):
    """POST `body`; milliseconds from sending it to the arrival of the first body byte on the socket, then
    the rest is drained. The head is read off the socket as it comes, not parsed by http.client: a head
    that arrives with the first body bytes (as a streamed answer's does, made from the prelude) would
    otherwise put the client's own header parsing (~0.2 ms of Python) into one leg of a pair and not the
    other, whose head came while the upstream was still working."""
    data = body.encode() if isinstance(body, str) else body
    lines = ["POST %s HTTP/1.1" % path, "Host: %s:%d" % (host, port), "Content-Type: application/json",
             "Content-Length: %d" % len(data), "Connection: close"]
    lines += ["%s: %s" % item for item in (headers or {}).items()]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data
    connection = socket.create_connection((host, port), timeout=30)
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    started = time.perf_counter()
    connection.sendall(request)
    received, elapsed, first_byte_at, status = b"", None, None, 0
    while elapsed is None:
        piece = connection.recv(65536)
        if not piece:
            break
        received += piece
        head_end = received.find(b"\r\n\r\n")
        if head_end < 0:
            continue
        head = received[:head_end].decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        rest = received[head_end + 4:]
        chunked = any(line.lower().replace(" ", "") == "transfer-encoding:chunked" for line in head[1:])
        if chunked:
            # The first chunk's size line is framing: its data is the first body byte.
            size_end = rest.find(b"\r\n")
            if size_end < 0 or int(rest[:size_end].split(b";")[0], 16) == 0 or len(rest) <= size_end + 2:
                continue
        elif not rest:
            continue
        elapsed = (time.perf_counter() - started) * 1000
        first_byte_at = time.time()
    while connection.recv(65536):
        pass
    connection.close()
    first_byte_ms.last_wall = first_byte_at
    return (elapsed if elapsed is not None else float("nan")), status


def stream_rate(host, port, path, body, headers=None):
    """POST `body` and read the whole streamed answer: (MB/s, bytes)."""
    connection = http.client.HTTPConnection(host, port, timeout=120)
    connection.request("POST", path, body=body, headers=dict(headers or {}, **{"Content-Type": "application/json"}))
    response = connection.getresponse()
    started, total = time.perf_counter(), 0
    while True:
        piece = response.read1(1 << 16)
        if not piece:
            break
        total += len(piece)
    elapsed = time.perf_counter() - started
    connection.close()
    return total / elapsed / 1e6, total


def decision_lines(control, feature):
    """The harness's decision lines for `feature`, oldest first."""
    host, port = control.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", "/logs")
    logs = json.loads(connection.getresponse().read())
    connection.close()
    lines = []
    for entry in logs:
        try:
            line = json.loads(entry["line"])
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("logger") == "attestgate.decision" and line.get("route") == feature:
            lines.append(line)
    return lines


def streaming_bench(stack, binary, attestgate, env, upstream, quick):
    """Streamed routes: time to first byte through the gate minus the upstream's own (pairs, same moment), and a
    long stream's rate through the gate next to the fake upstream's direct rate. moto runs with
    keep-alive connections here (moto_server.py --keep-alive), as DynamoDB's endpoints keep them."""
    env = dict(env, DYNAMODB_ENDPOINT=start_moto(stack, keep_alive=True), LOG_LEVEL="info")
    create_table(attestgate, env, env["TABLE_NAME"])
    routes = [{"method": "POST", "path": "/v1/stream", "feature": "stream", "mode": "off", "upstreamPath": "/tutor",
               "allowance": {"firstDay": 100000, "laterDays": 100000}, "stream": True, "maxStreamSeconds": 25},
              # The same stream through a known dialect: every piece also feeds the usage reader.
              {"method": "POST", "path": "/v1/stream-chat", "feature": "stream_chat", "mode": "off",
               "upstreamPath": "/v1/chat/completions", "dialect": "openai-chat", "models": ["fake"], "maxOutputTokens": 100000,
               "allowance": {"firstDay": 100000, "laterDays": 100000}, "stream": True, "maxStreamSeconds": 25,
               # The fake provider's knobs pass the closed world as an operator's priced fields would.
               "allowFields": ["events", "eventBytes", "intervalMs"]}]
    harness, info = start_harness(stack, binary, dict(env, ROUTES=json.dumps(routes), AI_DAILY_CALL_CEILING="0"))
    # Streamed routes are served through the Function URL (infra/streaming.tf); so is the bench's.
    front = info["functionURL"].rsplit(":", 1)
    direct = upstream.rsplit(":", 1)
    front_host, front_port = front[0].split("//")[1], int(front[1])
    up_host, up_port = direct[0].split("//")[1], int(direct[1])
    with open(env["UPSTREAM_API_KEY_FILE"]) as handle:
        key = {"Authorization": "Bearer " + handle.read().strip()}
    device = {"X-Device-ID": str(uuid.uuid4())}
    short = json.dumps({"stream": True, "events": 3, "intervalMs": 0, "question": "ttfb"})
    rows, figures = [], {}
    for _ in range(5):  # warm connections, handles and the fake upstream
        first_byte_ms(front_host, front_port, "/v1/stream", short, device)
    gate, own, added, relay, statuses = [], [], [], [], set()

    served = []

    def upstream_first_event():
        connection = http.client.HTTPConnection(up_host, up_port, timeout=10)
        connection.request("GET", "/control/streams")
        streams = json.loads(connection.getresponse().read())
        connection.close()
        served.append(streams[-1])
        return streams[-1]["firstEventAt"]

    pairs = 30 if quick else 200
    for _ in range(pairs):
        through, status = first_byte_ms(front_host, front_port, "/v1/stream", short, device)
        relay.append((first_byte_ms.last_wall - upstream_first_event()) * 1000)
        alone, _ = first_byte_ms(up_host, up_port, "/tutor", short, key)
        statuses.add(status)
        gate.append(through)
        own.append(alone)
        added.append(through - alone)
    figures["ttfb"] = {"gate": stats(gate), "upstream": stats(own), "addedMedian": statistics.median(added),
                       "addedP99": percentile(added, 99), "statuses": sorted(statuses)}
    rows.append(("streamed route: time to first byte via front", stats(gate), "ms", "", None))
    rows.append(("  the fake upstream's own time to first byte", stats(own), "ms", "", None))
    rows.append(("  the gate's added TTFB (pairs), median", {"median": statistics.median(added), "min": min(added),
                 "max": max(added)}, "ms", "≤ 2 ms", statistics.median(added) <= 2))
    rows.append(("  the gate's added TTFB (pairs), p99", {"median": percentile(added, 99)}, "ms", "", None))
    # The same pairs without the store: each call's decision line says how long a DynamoDB request was in
    # flight (ddbWaitMicros: moto's allowance writes, in sequence before the upstream call).
    waits = [line.get("ddbWaitMicros") for line in decision_lines(info["control"], "stream")[-pairs:]]
    if len(waits) == pairs and all(isinstance(wait, int) for wait in waits):
        own_part = [a - w / 1000.0 for a, w in zip(added, waits)]
        requests = [line.get("ddbSequential") for line in decision_lines(info["control"], "stream")[-pairs:]]
        figures["ttfb"].update({"ddbWaitMedian": statistics.median(waits) / 1000.0, "ddbSequential": stats(requests),
                                "ownMedian": statistics.median(own_part), "ownP99": percentile(own_part, 99)})
        rows.append(("  of which store round trips (ddbWaitMicros), median", stats([w / 1000.0 for w in waits]), "ms",
                     "", None))
        rows.append(("  DynamoDB requests in sequence before the upstream", stats(requests), "", "", None))
        rows.append(("  the gate's own added TTFB (pairs − store), median", {"median": statistics.median(own_part),
                     "min": min(own_part), "max": max(own_part)}, "ms", "≤ 2 ms", statistics.median(own_part) <= 2))
        rows.append(("  the gate's own added TTFB (pairs − store), p99", {"median": percentile(own_part, 99)}, "ms", "",
                     None))
        # The bootstrap alone, from the harness's and the fake upstream's wall clocks (one machine): event
        # delivered by /next → the upstream request arrived, minus the store's round trips; plus the
        # upstream's first event → the streamed POST's first chunk with body bytes at the Runtime API. What is left of the gate's own
        # part is the harness: its HTTP front and Runtime API (Python).
        host, port = info["control"].split("//")[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/invocations")
        invocations = json.loads(connection.getresponse().read())[-pairs:]
        connection.close()
        bootstrap_part, parts, reading = [], ([], []), []
        for invocation, upstream_record, wait in zip(invocations, served, waits):
            stream = invocation.get("stream") or {}
            # The first chunk with body bytes (the prelude goes ahead of it, at the POST's start).
            first_body = stream.get("firstBodyChunkAt") or stream.get("firstChunkAt")
            if invocation.get("deliveredAt") and first_body:
                # Up to the moment the fake upstream read the request line: its parse of the headers and
                # body (`arrived` → `started`) is its own work, in its direct time to first byte too.
                arrived = upstream_record.get("arrived") or upstream_record["started"]
                reading.append((upstream_record["started"] - arrived) * 1000)
                before = (arrived - invocation["deliveredAt"]) * 1000 - wait / 1000.0
                after = (first_body - upstream_record["firstEventAt"]) * 1000
                bootstrap_part.append(before + after)
                parts[0].append(before)
                parts[1].append(after)
        if len(bootstrap_part) == pairs:
            figures["ttfb"]["bootstrapMedian"] = statistics.median(bootstrap_part)
            figures["ttfb"]["bootstrapP99"] = percentile(bootstrap_part, 99)
            figures["ttfb"]["bootstrapBeforeUpstream"] = stats(parts[0])
            figures["ttfb"]["bootstrapAfterFirstEvent"] = stats(parts[1])
            rows.append(("  of the gate's own: the bootstrap (harness clocks), median", stats(bootstrap_part), "ms", "",
                         None))
            rows.append(("  of the gate's own: the bootstrap, p99", {"median": percentile(bootstrap_part, 99)}, "ms",
                         "", None))
            figures["ttfb"]["upstreamReadsRequest"] = stats(reading)
            rows.append(("  not in it: the fake upstream reading the gate's request", stats(reading), "ms", "", None))
    else:
        rows.append(("  !! decision lines without ddbWaitMicros", {"median": pairs - len(waits)}, "", "0", False))
    # The streaming path alone (no layers): the provider's first event leaving it → the client's first byte,
    # through the bootstrap's relay, the Runtime API POST and the harness front (wall clocks, one machine).
    figures["relayFirstByte"] = {"median": statistics.median(relay), "p99": percentile(relay, 99)}
    rows.append(("  relay: upstream's first event → client's first byte", stats(relay), "ms", "", None))
    rows.append(("  relay, p99", {"median": percentile(relay, 99)}, "ms", "", None))
    long_body = json.dumps({"stream": True, "events": 640, "eventBytes": 16000, "intervalMs": 0})
    through_rates, direct_rates = [], []
    # Pairs (through the gate, then direct, same body and client): a swing in the host's load hits both
    # halves of a pair alike, so the ratio of each pair is steadier than the ratio of the medians.
    for _ in range(3 if quick else 15):
        rate, total = stream_rate(front_host, front_port, "/v1/stream", long_body, device)
        through_rates.append(rate)
        direct_rates.append(stream_rate(up_host, up_port, "/tutor", long_body, key)[0])
    ratio = statistics.median(through_rates) / statistics.median(direct_rates)
    paired = [g / d for g, d in zip(through_rates, direct_rates)]
    # How many chunks the streamed POST carried (the upstream sent 640 events): pieces that arrive while
    # the POST is busy go on together.
    host, port = info["control"].split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", "/invocations")
    posts = [entry.get("stream") or {} for entry in json.loads(connection.getresponse().read())]
    connection.close()
    chunks = [post["chunks"] for post in posts if post.get("bytes", 0) >= total][-len(through_rates):]
    figures["longStream"] = {"bytes": total, "gateMBps": stats(through_rates), "directMBps": stats(direct_rates),
                             "ratio": ratio, "pairedRatio": stats(paired), "postChunks": stats(chunks or [0])}
    rows.append(("long stream (%.1f MB) through the gate" % (total / 1e6), stats(through_rates), "MB/s", "", None))
    rows.append(("  the fake upstream's direct rate", stats(direct_rates), "MB/s", "", None))
    rows.append(("  ratio gate / direct (medians)", {"median": ratio}, "×", "", None))
    rows.append(("  chunks of the streamed POST (for 640 upstream events)", stats(chunks or [0]), "", "", None))
    rows.append(("  ratio gate / direct (pairs)", stats(paired), "×", "≥ 0.9×", statistics.median(paired) >= 0.9))
    # The gate forwards the chat body rewritten (output cap, include_usage); the direct call sends the same.
    chat = {"stream": True, "events": 640, "eventBytes": 16000, "intervalMs": 0, "model": "fake",
            "messages": [{"role": "user", "content": "bench"}]}
    chat_direct = dict(chat, max_completion_tokens=100000, stream_options={"include_usage": True})
    chat_pairs = []
    for _ in range(1 if quick else 3):
        rate, chat_total = stream_rate(front_host, front_port, "/v1/stream-chat", json.dumps(chat), device)
        chat_pairs.append(rate / stream_rate(up_host, up_port, "/tutor", json.dumps(chat_direct), key)[0])
    figures["longStreamKnownDialect"] = {"bytes": chat_total, "pairedRatio": stats(chat_pairs)}
    rows.append(("  same through an openai-chat route (usage read), pairs", stats(chat_pairs), "×", "", None))
    if statuses != {200}:
        rows.append(("  !! non-200 answers on the streamed route", {"median": len(statuses - {200})}, "", "0", False))
    harness.stdin.close()
    return rows, figures


# ------------------------------------------------------------------------------------------------- main

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with release bootstrap, attestgate, GateBench")
    parser.add_argument("--app-attest", help="file with AppAttestBench's output (rates next to openssl speed)")
    parser.add_argument("--zip", default="build/attestgate-lambda.zip")
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke pass)")
    parser.add_argument("--json", help="also write the figures as JSON here")
    parser.add_argument("--only", choices=["streaming"],
                        help="run one part alone: streaming (the streamed-route figures, on moto)")
    args = parser.parse_args(argv)
    quick = args.quick
    binary = os.path.abspath(os.path.join(args.bin, "bootstrap"))
    attestgate = os.path.abspath(os.path.join(args.bin, "attestgate"))
    gatebench = os.path.abspath(os.path.join(args.bin, "GateBench"))
    work = tempfile.mkdtemp(prefix="attestgate-bench-")
    key_file = os.path.join(work, "upstream-key")
    with open(key_file, "w") as handle:
        handle.write(uuid.uuid4().hex + "\n")

    rows = []  # (figure, median, min, max, unit, target, met)
    figures = {}
    stack = Stack()
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DYNAMODB", "_HANDLER"))}
    base.update({"ATTESTGATE_ENV": "development", "TABLE_NAME": "attestgate-bench", "AWS_REGION": "us-east-1",
                 "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "LOG_LEVEL": "error",
                 "UPSTREAM_API_KEY_FILE": key_file, "GATE_MODE": "off", "AI_DAILY_CALL_CEILING": "0"})
    if args.only == "streaming":
        try:
            upstream = start_upstream(stack, key_file)
            rows, figures["streaming"] = streaming_bench(stack, binary, attestgate, dict(base, UPSTREAM_URL=upstream),
                                                         upstream, quick)
        finally:
            stack.close()
            shutil.rmtree(work, ignore_errors=True)
        print_table(rows)
        if args.json:
            figures["machine"] = machine()
            with open(args.json, "w") as handle:
                json.dump(figures, handle, indent=2, sort_keys=True)
        return 0
    try:
        # 1. Cold start: the DynamoDB endpoint and the upstream are sockets that only count connections.
        dynamo_counter, upstream_counter = Counter(), Counter()
        cold_env = dict(base, DYNAMODB_ENDPOINT="http://127.0.0.1:%d" % dynamo_counter.port,
                        UPSTREAM_URL="http://127.0.0.1:%d" % upstream_counter.port)
        cold_start([binary], cold_env, 2)  # page cache warm, as for every later run
        swift, swift_cpu, swift_rusage = cold_start([binary], cold_env, 5 if quick else 51)
        before_next = dynamo_counter.accepted + upstream_counter.accepted
        reference = ("import boto3, cbor2, http.client, os\n"
                     "from cryptography import x509\n"
                     "from cryptography.hazmat.primitives.asymmetric import ec\n"
                     "boto3.client('dynamodb', region_name='us-east-1', endpoint_url=os.environ['DYNAMODB_ENDPOINT'])\n"
                     "host, port = os.environ['AWS_LAMBDA_RUNTIME_API'].split(':')\n"
                     "c = http.client.HTTPConnection(host, int(port)); c.request('GET', '/2018-06-01/runtime/invocation/next')\n")
        cold_start([sys.executable, "-c", reference], cold_env, 1)
        python, python_cpu, python_rusage = cold_start([sys.executable, "-c", reference], cold_env, 3 if quick else 5)
        figures["coldStartMs"], figures["pythonColdStartMs"] = stats(swift), stats(python)
        figures["connectionsBeforeNext"] = before_next
        ratio = statistics.median(python) / statistics.median(swift)
        figures["coldStartRatio"] = ratio
        rows.append(("cold start: exec → first GET /next", stats(swift), "ms", "≤ 5 ms",
                     statistics.median(swift) <= 5))
        rows.append(("  Python reference (boto3+cryptography+cbor2)", stats(python), "ms", "", None))
        rows.append(("  ratio Python / bootstrap (medians)", {"median": ratio}, "×", "≥ 50×", ratio >= 50))
        cpu_ratio = statistics.median(python_cpu) / statistics.median(swift_cpu)
        figures["coldStartCpuMs"], figures["pythonColdStartCpuMs"] = stats(swift_cpu), stats(python_cpu)
        figures["coldStartRusageMs"] = stats(swift_rusage)
        figures["pythonColdStartRusageMs"] = stats(python_rusage)
        rows.append(("  CPU time to /next (every thread, schedstat), bootstrap", stats(swift_cpu), "ms", "", None))
        rows.append(("  CPU time to /next (every thread, schedstat), Python", stats(python_cpu), "ms", "", None))
        rows.append(("  CPU time with the exit after the kill (wait4), bootstrap", stats(swift_rusage), "ms", "", None))
        rows.append(("  CPU time with the exit after the kill (wait4), Python", stats(python_rusage), "ms", "", None))
        rows.append(("  ratio of CPU times (medians)", {"median": cpu_ratio}, "×", "≥ 50×", cpu_ratio >= 50))
        rows.append(("  DynamoDB/upstream connections before /next", {"median": before_next}, "", "0",
                     before_next == 0))

        # 2. Invocations per second through the runtime loop, unknown route (404), no store.
        rates, statuses = throughput(binary, cold_env, 300, 1000 if quick else 3000, 3 if quick else 5)
        figures["invocationsPerSecond"], figures["throughputStatuses"] = stats(rates), statuses
        rows.append(("invocations/s, unknown route → 404 (no store)", stats(rates), "/s", "", None))

        # 3. Peak RSS over metered calls: POST /v1/generate in GATE_MODE=off (no ceiling): allowance and
        #    profile writes signed and sent to a fake DynamoDB, then the fake upstream, then the decision line.
        #    Run twice: with the deployed function timeout as each invocation's deadline (29 s,
        #    infra/variables.tf) and with 2 s, which separates memory held until a deadline from a leak.
        upstream = start_upstream(stack, key_file)
        routes = [{"method": "POST", "path": "/v1/generate", "feature": "generation", "mode": "off",
                   "allowance": {"firstDay": 100000, "laterDays": 100000}}]
        device = str(uuid.uuid4())
        event = api_event("POST", "/v1/generate", {"x-device-id": device, "content-type": "application/json"},
                          '{"prompt":"benchmark"}')
        checkpoints = {1000, 10000} if not quick else {1000, 2000}
        low, high = min(checkpoints), max(checkpoints)

        def rss_run(deadline_ms):
            fake_dynamo = FakeDynamo()
            rss_env = dict(base, DYNAMODB_ENDPOINT=fake_dynamo.url, UPSTREAM_URL=upstream,
                           ROUTES=json.dumps(routes), LOG_LEVEL="info")
            samples, process_box = {}, []

            def sample(number):
                if number in checkpoints or number % 1000 == 0:
                    samples[number] = memory(process_box[0].pid)

            stub = RuntimeStub(event, high, on_response=sample, deadline_ms=deadline_ms)
            process = start_bootstrap(binary, rss_env, stub)
            process_box.append(process)
            started = time.monotonic()
            finished = stub.done.wait(timeout=600)
            elapsed = time.monotonic() - started
            stop(process)
            stub.close()
            fake_dynamo.close()
            if not finished:
                sys.exit("RSS run: only %d of %d invocations answered" % (stub.responses, high))
            figures["rss%ds" % (deadline_ms // 1000)] = {
                "samples": {str(k): v for k, v in sorted(samples.items())}, "statuses": stub.statuses,
                "seconds": elapsed, "dynamoRequests": fake_dynamo.operations}
            return samples, stub.statuses, high / elapsed

        for deadline_ms in (29000, 2000):
            samples, statuses, rate = rss_run(deadline_ms)
            label = "deadline %d s" % (deadline_ms // 1000)
            hwm_low, hwm_high = samples[low]["VmHWM"] / MIB, samples[high]["VmHWM"] / MIB
            growth = hwm_high - hwm_low
            rows.append(("peak RSS (VmHWM) after %d metered calls, %s" % (low, label), {"median": hwm_low}, "MiB",
                         "≤ 16 MiB", hwm_low <= 16))
            rows.append(("peak RSS (VmHWM) after %d metered calls, %s" % (high, label), {"median": hwm_high},
                         "MiB", "≤ 16 MiB", hwm_high <= 16))
            rows.append(("  growth of VmHWM %d → %d" % (low, high), {"median": growth}, "MiB",
                         "none (< 0.5 MiB)", growth < 0.5))
            rows.append(("  of VmRSS at %d: anonymous (heap, stacks)" % high,
                         {"median": samples[high]["RssAnon"] / MIB}, "MiB", "", None))
            rows.append(("  of VmRSS at %d: file-backed (binary, libraries)" % high,
                         {"median": samples[high]["RssFile"] / MIB}, "MiB", "", None))
            rows.append(("  metered calls/s in this run (fake DynamoDB)", {"median": rate}, "/s", "", None))
            if statuses != {200: high}:
                rows.append(("  !! non-200 answers in the RSS run", {"median": high - statuses.get(200, 0)}, "",
                             "0", False))

        # 4. Gate: a genuine iOS device (GateBench) through the HTTP front; enforce vs off, same call.
        moto = start_moto(stack)
        aws = dict(base, DYNAMODB_ENDPOINT=moto, UPSTREAM_URL=upstream)
        create_table(attestgate, aws, "attestgate-bench")
        root = os.path.join(work, "root.pem")
        ca_dir = os.path.join(work, "ca")
        os.makedirs(ca_dir, mode=0o700, exist_ok=True)
        bench = stack.spawn([gatebench, "--root-out", root, "--ca-out", ca_dir], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
        if bench.stdout.readline().strip() != b"READY":
            sys.exit("GateBench did not start")
        gate_routes = [
            {"method": "POST", "path": "/v1/generate", "feature": "generation", "mode": "enforce",
             "allowance": {"firstDay": 100000, "laterDays": 100000}},
            {"method": "POST", "path": "/v1/generate-off", "feature": "generation_off", "mode": "off",
             "upstreamPath": "/v1/generate", "allowance": {"firstDay": 100000, "laterDays": 100000}},
        ]
        gate_env = dict(aws, ROUTES=json.dumps(gate_routes), APPLE_TEAM_ID="ABCDE12345",
                        APPLE_BUNDLE_IDS="com.example.gate", APP_ATTEST_ENVIRONMENT="development",
                        APP_ATTEST_TRUST_ROOT=root, AI_DAILY_CALL_CEILING="1000000", LOG_LEVEL="info")

        def gate_run(endpoint, calls, env=None, chat=False):
            harness, info = start_harness(stack, binary, dict(env or gate_env, DYNAMODB_ENDPOINT=endpoint))
            bench.stdin.write(("RUN %s /v1/generate /v1/generate-off %d%s\n"
                               % (info["http"], calls, " chat" if chat else "")).encode())
            bench.stdin.flush()
            result = json.loads(bench.stdout.readline())
            # The decision lines' own count of DynamoDB requests (ddbRequests / ddbSequential), by route.
            control = info["control"].rsplit(":", 1)
            connection = http.client.HTTPConnection("127.0.0.1", int(control[1]), timeout=10)
            connection.request("GET", "/logs")
            result["decisions"] = {}
            for entry in json.loads(connection.getresponse().read()):
                try:
                    line = json.loads(entry["line"])
                except ValueError:
                    continue
                if isinstance(line, dict) and line.get("logger") == "attestgate.decision" and "ddbRequests" in line:
                    result["decisions"].setdefault(line.get("route"), []).append(
                        (line["ddbRequests"], line.get("ddbSequential")))
            stop(harness)
            return result

        # 4a. DynamoDB requests per call, counted at a proxy in front of moto.
        proxy = CountingProxy(int(moto.rsplit(":", 1)[1]))
        counted = gate_run(proxy.url, 10 if quick else 30)
        proxy.close()

        def per_call(calls):
            counts, chains, operations = [], [], {}
            for start, end, _status in calls:
                spans = [(s, e) for op, s, e in proxy.records if s >= start and e <= end]
                for op, s, e in proxy.records:
                    if s >= start and e <= end:
                        operations[op] = operations.get(op, 0) + 1
                counts.append(len(spans))
                chains.append(longest_chain(spans))
            return counts, chains, {op: n / float(len(calls)) for op, n in operations.items()}

        def span_operations(span):
            # The DynamoDB requests inside one [start, end] (a key registration), by operation.
            operations = {}
            for op, s, e in proxy.records:
                if s >= span[0] and e <= span[1]:
                    operations[op] = operations.get(op, 0) + 1
            return operations

        register_off = span_operations(counted.get("registerSpan", [0, 0]))
        enforce_counts, enforce_chains, enforce_ops = per_call(counted["enforce"])
        off_counts, off_chains, _ = per_call(counted["off"])
        statuses_enforce = sorted({status for _s, _e, status in counted["enforce"]})
        figures["ddb"] = {"enforce": stats(enforce_counts), "enforceSequential": stats(enforce_chains),
                          "off": stats(off_counts), "offSequential": stats(off_chains),
                          "enforceOperations": enforce_ops, "enforceStatuses": statuses_enforce,
                          "register": counted["register"]}
        rows.append(("DynamoDB requests per iOS metered call (enforce)", stats(enforce_counts), "", "≤ 6",
                     max(enforce_counts) <= 6))
        rows.append(("  of which in sequence (critical path)", stats(enforce_chains), "", "≤ 4",
                     max(enforce_chains) <= 4))
        rows.append(("  same call, GATE_MODE off", stats(off_counts), "", "", None))
        logged = counted["decisions"].get("generation", [])
        figures["ddb"]["decisionLine"] = counted["decisions"]
        if logged:
            rows.append(("  per the decision line: ddbRequests (enforce)", stats([n for n, _ in logged]), "", "≤ 6",
                         max(n for n, _ in logged) <= 6))
            if all(q is not None for _, q in logged):
                rows.append(("  per the decision line: ddbSequential (enforce)", stats([q for _, q in logged]), "",
                             "≤ 4", max(q for _, q in logged) <= 4))
        else:
            rows.append(("  decision line without ddbRequests (proxy count only)", {"median": float("nan")}, "", "",
                         None))
        request_ms = [(e - s) / 1e6 for _op, s, e in proxy.records]
        figures["motoRequestMs"] = stats(request_ms)
        rows.append(("  one DynamoDB request at moto (via the proxy)", stats(request_ms), "ms", "", None))

        # 4a'. The same call on a route with a known dialect and the money ceiling (docs/gate.md): the worst case
        # is reserved in the ceiling write, and the settle (marker + give-back, one transaction) follows the
        # answer, one more request in sequence.
        money_routes = [dict(gate_routes[0], upstreamPath="/v1/chat/completions", dialect="openai-chat",
                             models=["bench-model"], maxOutputTokens=100,
                             prices={"bench-model": {"inputPerMTok": 2, "outputPerMTok": 8}}),
                        dict(gate_routes[1], upstreamPath="/v1/chat/completions", dialect="openai-chat",
                             models=["bench-model"], maxOutputTokens=100,
                             prices={"bench-model": {"inputPerMTok": 2, "outputPerMTok": 8}})]
        money_env = dict(gate_env, ROUTES=json.dumps(money_routes), AI_DAILY_COST_CEILING_USD="1000000")
        proxy = CountingProxy(int(moto.rsplit(":", 1)[1]))
        money = gate_run(proxy.url, 10 if quick else 30, env=money_env, chat=True)
        proxy.close()
        money_counts, money_chains, money_ops = per_call(money["enforce"])
        figures["ddb"]["moneyCeiling"] = {"enforce": stats(money_counts), "enforceSequential": stats(money_chains),
                                          "enforceOperations": money_ops,
                                          "enforceStatuses": sorted({st for _s, _e, st in money["enforce"]})}
        rows.append(("DynamoDB requests per iOS metered call, money ceiling (+ settle)", stats(money_counts), "",
                     "today 6", None))
        rows.append(("  of which in sequence (critical path)", stats(money_chains), "", "today 4", None))
        money_logged = money["decisions"].get("generation", [])
        if money_logged and all(q is not None for _, q in money_logged):
            rows.append(("  per the decision line: ddbRequests", stats([n for n, _ in money_logged]), "", "", None))
            rows.append(("  per the decision line: ddbSequential", stats([q for _, q in money_logged]), "", "",
                         None))
        if sorted({st for _s, _e, st in money["enforce"]}) != [200]:
            rows.append(("  !! non-200 answers on the money-ceiling route",
                         {"median": sum(1 for _s, _e, st in money["enforce"] if st != 200)}, "", "0", False))

        # 4a''. Device marks on (docs/gate.md "Device tiers"): the registration reads DeviceCheck's two
        # bits at the fake Apple and records the tier; the metered call reads the tier with the key lookup.
        apple_key = os.path.join(work, "devicecheck.p8")
        with open(apple_key, "w") as handle:
            handle.write(subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                                         "ec_paramgen_curve:P-256"], check=True, capture_output=True,
                                        text=True).stdout)
        apple_process = stack.spawn([sys.executable, os.path.join(HERE, "fake_apple.py"), "--key", apple_key,
                                     "--key-id", "BENCHKEY01", "--team-id", "ABCDE12345",
                                     # the receipt exchange at registration signs under GateBench's CA
                                     "--receipt-signer-dir", ca_dir, "--port", "0"], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        apple = "http://127.0.0.1:%s" % apple_process.stdout.readline().decode().split()[-1]
        marks_env = dict(gate_env, DEVICECHECK_KEY_ID="BENCHKEY01", DEVICECHECK_PRIVATE_KEY_FILE=apple_key,
                         DEVICECHECK_ENDPOINT=apple, APP_ATTEST_RECEIPT_ENDPOINT=apple, DEVICE_MARKS="on")
        proxy = CountingProxy(int(moto.rsplit(":", 1)[1]))
        marked = gate_run(proxy.url, 10 if quick else 30, env=marks_env)
        proxy.close()
        register_on = span_operations(marked.get("registerSpan", [0, 0]))
        marks_counts, marks_chains, marks_ops = per_call(marked["enforce"])
        apple_host, apple_port = apple.split("//")[1].split(":")
        connection = http.client.HTTPConnection(apple_host, int(apple_port), timeout=5)
        connection.request("GET", "/control/stats")
        apple_stats = json.loads(connection.getresponse().read())
        connection.close()
        apple_requests = {"query": apple_stats.get("query_requests"), "update": apple_stats.get("update_requests"),
                          "exchange": apple_stats.get("exchange_requests")}
        figures["deviceMarks"] = {"registerOperationsOff": register_off, "registerOperationsOn": register_on,
                                  "enforce": stats(marks_counts), "enforceSequential": stats(marks_chains),
                                  "enforceOperations": marks_ops, "appleRequests": apple_requests,
                                  "calls": len(marked["enforce"]),
                                  "enforceStatuses": sorted({st for _s, _e, st in marked["enforce"]})}
        rows.append(("DynamoDB requests per key registration, marks off", {"median": sum(register_off.values())}, "",
                     "", None))
        rows.append(("  marks on (+ tier read and write)", {"median": sum(register_on.values())}, "", "", None))
        two_bits = (apple_requests["query"] or 0) + (apple_requests["update"] or 0)
        rows.append(("  Apple DeviceCheck requests (query + update), 1 registration + %d calls" % len(marked["enforce"]),
                     {"median": two_bits}, "", "≤ 2 (registration only)", two_bits <= 2))
        rows.append(("  Apple receipt exchanges in the same run", {"median": apple_requests["exchange"] or 0}, "", "",
                     None))
        rows.append(("DynamoDB requests per iOS metered call, marks on", stats(marks_counts), "", "≤ 6",
                     max(marks_counts) <= 6))
        rows.append(("  of which in sequence (critical path)", stats(marks_chains), "", "≤ 4", max(marks_chains) <= 4))
        if sorted({st for _s, _e, st in marked["enforce"]}) != [200]:
            rows.append(("  !! non-200 answers with marks on",
                         {"median": sum(1 for _s, _e, st in marked["enforce"] if st != 200)}, "", "0", False))

        # 4b. Added latency: the same bootstrap straight against moto, enforce minus off.
        timed = gate_run(moto, 40 if quick else 200)
        enforce_ms = [(e - s) / 1e6 for s, e, _ in timed["enforce"]]
        off_ms = [(e - s) / 1e6 for s, e, _ in timed["off"]]
        bad = [status for _s, _e, status in timed["enforce"] + timed["off"] if status != 200]
        figures["latency"] = {"enforce": stats(enforce_ms), "off": stats(off_ms),
                              "enforceP99": percentile(enforce_ms, 99), "offP99": percentile(off_ms, 99),
                              "non200": len(bad)}
        # Each enforce call is paired with the off call right after it (same device, same moment), so
        # machine load hits both halves of a pair alike; the figures are the pairs' differences.
        added = [e - o for e, o in zip(enforce_ms, off_ms)]
        added_median, added_p99 = statistics.median(added), percentile(added, 99)
        figures["latency"]["addedMedian"], figures["latency"]["addedP99"] = added_median, added_p99
        rows.append(("iOS metered call, enforce (end to end via front)", stats(enforce_ms), "ms", "", None))
        rows.append(("  same call, GATE_MODE off", stats(off_ms), "ms", "", None))
        rows.append(("  gate's added latency (enforce − off pairs), median", {"median": added_median, "min": min(added),
                     "max": max(added)}, "ms", "", None))
        rows.append(("  gate's added latency (enforce − off pairs), p99", {"median": added_p99}, "ms", "", None))
        if bad or statuses_enforce != [200]:
            rows.append(("  !! non-200 answers in the gate runs", {"median": len(bad)}, "", "0", False))
        bench.stdin.write(b"QUIT\n")
        bench.stdin.flush()

        # 4b. Streamed routes (docs/streaming.md): TTFB overhead and a long stream's rate vs direct.
        stream_rows, figures["streaming"] = streaming_bench(stack, binary, attestgate, dict(aws), upstream, quick)
        rows.extend(stream_rows)
    finally:
        stack.close()
        shutil.rmtree(work, ignore_errors=True)

    # 5. App Attest rates (AppAttestBench, run by the Makefile pinned to one core).
    if args.app_attest and os.path.exists(args.app_attest):
        with open(args.app_attest) as handle:
            text = handle.read()
        # AppAttestBench prints "<name>: <rate>/s  reference=<r>/s ratio=<q> low=<q> high=<q>
        # [openssl=<r>/s opensslRatio=<q>]": the ratio is the median of windows that alternate with a
        # plain OpenSSL verification on the same thread; `openssl speed`'s figure is printed beside it.
        kinds = {  # name printed → (figure key, row label, reference curve, target ratio)
            "attestations": ("attestations", "attestations (Apple's steps 1-9)", "P-384", 0.9),
            "receipts": ("receipts", "ATTEST receipts", "P-256", 0.6),
            "registrations": ("registrations", "registrations (attestation + receipt)", "P-384", 0.8),
            "assertions": ("assertions", "assertions", "P-256", 0.9),
            "assertions-stored-key": ("assertionsStored", "assertions incl. stored-key parse (gate)", "P-256", 0.9),
        }
        for line in text.splitlines():
            name, _, rest = line.partition(":")
            if name not in kinds or "/s" not in rest:
                continue
            key, label, reference, target = kinds[name]
            fields = dict(item.split("=", 1) for item in rest.split()[1:] if "=" in item)
            number = lambda text: float(text.rstrip("/s"))
            figure = {"perSecond": number(rest.split()[0]), "ratio": number(fields["ratio"]),
                      "ratioLowest": number(fields["low"]), "ratioHighest": number(fields["high"]),
                      "referencePerSecond": number(fields["reference"])}
            if "openssl" in fields:
                figure["opensslSpeedPerSecond"] = number(fields["openssl"])
                figure["opensslSpeedRatio"] = number(fields["opensslRatio"])
            figures[key] = figure
            rows.append(("App Attest %s/s, one core" % label, {"median": figure["perSecond"]}, "/s", "", None))
            rows.append(("  OpenSSL %s verify/s, alternating windows" % reference,
                         {"median": figure["referencePerSecond"]}, "/s", "", None))
            rows.append(("  ratio (median of windows; lowest, highest)",
                         {"median": figure["ratio"], "min": figure["ratioLowest"], "max": figure["ratioHighest"]},
                         "×", "≥ %g×" % target, figure["ratio"] >= target))
            if "opensslSpeedPerSecond" in figure:
                rows.append(("  `openssl speed` %s verify/s (run before, not alongside)" % reference,
                             {"median": figure["opensslSpeedPerSecond"]}, "/s", "", None))
                rows.append(("  ratio to `openssl speed`", {"median": figure["opensslSpeedRatio"]}, "×", "", None))

    # 6. Sizes.
    for name in ("bootstrap", "attestgate"):
        path = os.path.join(args.bin, name)
        if os.path.exists(path) and not os.path.islink(path):  # attestgate: a link to bootstrap
            size = os.path.getsize(path) / MIB
            figures[name + "BinaryMiB"] = size
            rows.append(("%s binary (release, unstripped)" % name, {"median": size}, "MiB", "", None))
    if os.path.exists(args.zip):
        size = os.path.getsize(args.zip) / MIB
        figures["zipMiB"] = size
        rows.append(("Lambda zip (make package)", {"median": size}, "MiB", "≤ 8 MiB (Lambda: 50)", size <= 8))
        with zipfile.ZipFile(args.zip) as archive:
            members = {info.filename: info.file_size for info in archive.infolist()}
        unzipped = sum(members.values()) / MIB
        figures["unzippedMiB"] = unzipped
        rows.append(("  unzipped", {"median": unzipped}, "MiB", "≤ 250 MiB (Lambda)", unzipped <= 250))
        for name in ("bootstrap",):  # the one binary; attestgate is a link to it
            if name in members:
                figures[name + "InZipMiB"] = members[name] / MIB
                rows.append(("  %s in the zip (stripped)" % name, {"median": members[name] / MIB}, "MiB", "", None))
    else:
        rows.append(("Lambda zip: not built (run make package)", {"median": float("nan")}, "", "", None))
    # What the loader maps at every cold start (scripts/link-check.sh checks the same bound).
    listing = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout.splitlines()
    loaded = [line.split()[0] for line in listing if "=>" in line or line.strip().startswith("/")]
    figures["sharedLibraries"] = loaded
    rows.append(("shared libraries bootstrap loads (ldd)", {"median": len(loaded)}, "", "≤ 8", len(loaded) <= 8))

    print_table(rows)
    if args.json:
        figures["machine"] = machine()
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2, sort_keys=True)
    return 0  # figures, not a test: a missed target is reported in the table, not by the exit status


def fmt(value):
    if value is None:
        return ""
    if isinstance(value, float) and value != value:
        return "-"
    if abs(value) >= 1000:
        return "%.0f" % value
    if abs(value) >= 100:
        return "%.1f" % value
    return "%.2f" % value


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as handle:
        total = int(handle.readline().split()[1]) // 1024
    return {"nproc": os.cpu_count(), "cpu": model, "memoryMiB": total, "loadAverage": os.getloadavg()[0]}


def print_table(rows):
    info = machine()
    print("\nAttestGate bench — %d cores, %s, %d MiB, load average %.1f, %s" % (
        info["nproc"], info["cpu"], info["memoryMiB"], info["loadAverage"],
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    header = ("figure", "median", "min", "max", "unit", "target", "")
    widths = [max(len(header[0]), max(len(r[0]) for r in rows)), 10, 10, 10, 4, 18, 6]
    line = "  ".join(h.ljust(w) if i in (0, 4, 5, 6) else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))
    print(line)
    print("-" * len(line))
    for name, values, unit, target, met in rows:
        cells = [name, fmt(values.get("median")), fmt(values.get("min")), fmt(values.get("max")), unit, target,
                 {True: "met", False: "MISSED", None: ""}[met]]
        print("  ".join(c.ljust(w) if i in (0, 4, 5, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))))


if __name__ == "__main__":
    sys.exit(main())
