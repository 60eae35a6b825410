#!/usr/bin/env python3
"""`make bench`, last part: the money ceiling under contention (docs/gate.md, "The ceiling under contention").

The scenario of Tests/BootstrapTests/ContentionBootstrapTests.swift, measured instead of asserted: the
DynamoDB stand-in (moto_server.py with DynamoDB's contention rules, a 25 ms transaction hold and in-region
latencies), its own table per run (`attestgate table create`), a fake provider in this process (any POST
answered after 150 ms with an OpenAI chat completion of 10 input and 20 output tokens), lambda_harness.py
with as many bootstrap instances as calls in flight, and a priced openai-chat route in GATE_MODE=monitor
whose budgets have room. A call costs 10 × 1 + 20 × 2 = 50 micro-USD; every call should be answered 200 and
the ceiling rows should hold exactly answered × 50.

Prints, per run (8, 32 and 64 calls in flight, a closed loop of 5 × in flight calls, none started after
RUN_START_S; AI_CEILING_SHARDS 1 and 8): 503s; reservations left behind and lost settles, from the ceiling
rows; latency p50/p99 and the same minus the provider's 150 ms; DynamoDB requests, write units and refusals
the gate tried again per call (the stand-in's /standin/stats); the stand-in's requests a second and CPU (one
Python process: on a small host it saturates first). Then one run of an older bootstrap (--before, when the
file exists) and a simulation of the issue's 5,000 unpaid calls a second scaled down by K (item write units
and offered load / K, open loop). Figures, never assertions: exits non-zero only when the stack cannot start.
Also writes build/bench-contention.json. Everything on 127.0.0.1; every process started is stopped.

usage: contention_bench.py --bootstrap .build/release/bootstrap --attestgate .build/release/attestgate
                           [--before /tmp/bootstrap-old] [--scale-k 100] [--json OUT]
"""
import argparse
import collections
import datetime
import http.client
import json
import math
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PROVIDER_MS = 150
INPUT_TOKENS, OUTPUT_TOKENS = 10, 20
PRICE_IN, PRICE_OUT = 1, 2  # micro-USD per token (inputPerMTok 1, outputPerMTok 2 USD)
CALL_COST = INPUT_TOKENS * PRICE_IN + OUTPUT_TOKENS * PRICE_OUT  # 50 micro-USD
ROUTES = [{"method": "POST", "path": "/v1/chat", "feature": "chat", "mode": "monitor",
           "upstreamPath": "/v1/chat/completions", "dialect": "openai-chat", "models": ["fake"],
           "maxOutputTokens": 100, "prices": {"fake": {"inputPerMTok": 1, "outputPerMTok": 2}},
           "allowance": {"firstDay": 1000, "laterDays": 1000}}]
BODY = json.dumps({"model": "fake", "messages": [{"role": "user", "content": "Why is the sky blue?"}]},
                  separators=(",", ":")).encode()
HOLD_MS = 25
STANDIN_FLAGS = ["--txn-hold-ms", str(HOLD_MS), "--latency-ms", "UpdateItem=4", "--latency-ms", "GetItem=3",
                 "--latency-ms", "PutItem=4"]
IN_FLIGHT = (8, 32, 64)
SHARDS = (1, 8)
ROUNDS = 5  # closed loop: total calls = ROUNDS × in flight

# The scaled simulation of the target.
TARGET_RATE = 5000  # unpaid calls per second per environment
K = 100
PARTITION_WCU = 1000  # one DynamoDB partition's write units per second
WCU_PER_CALL = 3  # on the ceiling row: the reservation's UpdateItem (1) + the settle's transactional update (2)
HEADROOM = 0.7
SIM_SECONDS = 10
SIM_INSTANCES = 16
# The ceiling's own writes alone (`ddb-harness ceiling-sim`): the stand-in's CPU then goes to the items under
# test, so a larger share of the target fits this host.
CEILING_K = 200
CEILING_HEADROOM = 0.5

# Bounds. On a small host the stand-in (moto, one Python process) is what saturates first; a closed-loop
# run starts no call after RUN_START_S (the calls it made are printed against the calls planned).
RUN_START_S = 20
CALL_TIMEOUT_S = 40  # the harness's deadline (30 s) plus queueing
HARNESS_DEADLINE_MS = 30000


class StackFailed(Exception):
    pass


# --------------------------------------------------------------------------------------------- processes

# The process helpers of make bench's first part (local-harness/bench.py), shared.
from bench import free_port, stop  # noqa: E402


class Stack(bench.Stack):
    """bench's stack of processes, stopped in reverse order, plus stopping one of them before the others."""

    def stop(self, process):
        stop(process)
        if process in self.processes:
            self.processes.remove(process)


def http_request(method, url, body=None, timeout=10):
    """(status, body bytes) of one request on a connection of its own."""
    rest = url.split("//", 1)[1]
    address, _, path = rest.partition("/")
    host, port = address.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request(method, "/" + path, body=body)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def http_json(method, url, body=None, timeout=10):
    status, data = http_request(method, url, body, timeout)
    return status, (json.loads(data) if data else None)


class StandIn:
    """moto_server.py with the stand-in's rules; its own tables, made with `attestgate table create`."""

    def __init__(self, stack, flags, attestgate, base_env):
        self.stack, self.attestgate, self.base_env = stack, attestgate, base_env
        port = free_port()
        self.url = "http://127.0.0.1:%d" % port
        self.flags = list(flags)
        self.process = stack.spawn([sys.executable, os.path.join(HERE, "moto_server.py"), "-H", "127.0.0.1", "-p",
                                    str(port)] + self.flags, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        for _ in range(300):  # 30 s at most
            if self.process.poll() is not None:
                raise StackFailed("moto_server.py exited with %s" % self.process.returncode)
            try:
                status, _ = http_request("GET", self.url + "/moto-api/", timeout=1)
                if status == 200:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        else:
            raise StackFailed("moto_server.py did not start")
        import boto3
        from botocore.config import Config
        self.client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=self.url,
                                   aws_access_key_id="testing", aws_secret_access_key="testing",
                                   config=Config(retries={"max_attempts": 10, "mode": "standard"}))

    def new_table(self):
        table = "contention-%s" % uuid.uuid4().hex[:8]
        env = dict(self.base_env, TABLE_NAME=table, DYNAMODB_ENDPOINT=self.url)
        try:
            out = subprocess.run([self.attestgate, "table", "create", "--table", table], env=env,
                                 capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise StackFailed("attestgate table create: %s" % error)
        if out.returncode != 0:
            raise StackFailed("attestgate table create failed: %s %s" % (out.stdout.decode(), out.stderr.decode()))
        return table

    def stats(self):
        return http_json("GET", self.url + "/standin/stats")[1]

    def reset(self):
        http_json("POST", self.url + "/standin/reset-stats")

    def ceiling(self, table, shards, days):
        """Today's ceiling rows, summed over the shards (and the days the run touched): calls and cost."""
        calls = cost = rows = 0
        for day in days:
            for shard in range(shards):
                pk = "AI_BUDGET#%s" % day if shard == 0 else "AI_BUDGET#%s#%d" % (day, shard)
                item = self.client.get_item(TableName=table, Key={"PK": {"S": pk}, "SK": {"S": "TOTAL"}},
                                            ConsistentRead=True).get("Item")
                if item:
                    rows += 1
                    calls += int(item.get("calls", {}).get("N", "0"))
                    cost += int(item.get("cost", {}).get("N", "0"))
        return {"calls": calls, "cost": cost, "rows": rows}


class Provider:
    """The fake provider: any POST answered after 150 ms with a chat completion of known usage."""

    ANSWER = json.dumps({"id": "c", "object": "chat.completion", "model": "fake",
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": "fine"},
                                      "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": INPUT_TOKENS, "completion_tokens": OUTPUT_TOKENS,
                                   "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS}}).encode()

    def __init__(self):
        answer = self.ANSWER
        lock = threading.Lock()
        self.calls = 0

        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                with lock:
                    provider.calls += 1
                time.sleep(PROVIDER_MS / 1000.0)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 256

            def handle_error(self, request, client_address):
                pass  # a bootstrap that went away mid-answer (its harness stopped): nothing to report

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Harness:
    """lambda_harness.py with `instances` bootstraps; a pool of keep-alive connections to its front."""

    def __init__(self, stack, bootstrap, instances, env, throttle=False):
        self.stack = stack
        command = [sys.executable, os.path.join(HERE, "lambda_harness.py"), "--bootstrap", bootstrap, "--quiet",
                   "--instances", str(instances), "--deadline-ms", str(HARNESS_DEADLINE_MS)]
        command += ["--throttle"] if throttle else []
        for key, value in sorted(env.items()):
            command += ["--env", "%s=%s" % (key, value)]
        self.process = stack.spawn(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
        ready = [None]

        def read_ready():
            try:
                ready[0] = json.loads(self.process.stdout.readline() or b"{}")
            except ValueError:
                ready[0] = {}
        reader = threading.Thread(target=read_ready, daemon=True)
        reader.start()
        reader.join(30)
        info = ready[0] or {}
        if not info.get("ready"):
            raise StackFailed("lambda_harness.py did not start")
        self.front = info["http"]
        self.control = info["control"]
        self.host, port = self.front.split("//")[1].split(":")
        self.port = int(port)
        self.connections = queue.LifoQueue()

    def open_connections(self, count):
        """`count` keep-alive connections, opened one after another, each proven by a call to an unknown
        route (a 404 from a bootstrap, no store): the front's listen backlog is small, and 64 connects at
        once would lose some SYNs (a 1 s retransmit inside a measured call). Also waits for the bootstraps."""
        until = time.monotonic() + 30
        opened = 0
        while opened < count and time.monotonic() < until:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=CALL_TIMEOUT_S)
            try:
                connection.request("GET", "/warm/not-a-route", headers={"X-Device-ID": str(uuid.uuid4())})
                connection.getresponse().read()
            except (OSError, http.client.HTTPException):
                connection.close()
                time.sleep(0.1)
                continue
            self.connections.put(connection)
            opened += 1
        if opened == 0:
            raise StackFailed("the harness front answered nothing")

    def call(self):
        """One metered call from a fresh device: (status, milliseconds, error code of a non-200 answer)."""
        try:
            connection = self.connections.get_nowait()
        except queue.Empty:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=CALL_TIMEOUT_S)
        headers = {"Content-Type": "application/json", "X-Device-ID": str(uuid.uuid4()).lower()}
        started = time.perf_counter()
        try:
            connection.request("POST", "/v1/chat", body=BODY, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
            elapsed = (time.perf_counter() - started) * 1000
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            return 0, (time.perf_counter() - started) * 1000, type(error).__name__
        code = None
        if answer.status != 200:
            try:
                code = json.loads(data).get("error")
            except (ValueError, AttributeError):
                code = data[:60].decode("utf-8", "replace")
        self.connections.put(connection)
        return answer.status, elapsed, code

    def logs(self):
        """The bootstraps' decision lines; their error lines as "message: reason"; the harness's own lines
        (throttled invocations, deadline restarts)."""
        try:
            _, logs = http_json("GET", self.control + "/logs", timeout=20)
        except (OSError, ValueError):
            return [], [], []
        decisions, errors, harness = [], [], []
        for entry in logs or []:
            try:
                line = json.loads(entry["line"])
            except (ValueError, KeyError, TypeError):
                continue
            if not isinstance(line, dict):
                continue
            if line.get("logger") == "attestgate.decision":
                decisions.append(line)
            elif "harness" in line:
                harness.append(str(line.get("harness")))
            elif str(line.get("level", "")).lower() in ("error", "critical"):
                reason = line.get("reason")
                errors.append("%s%s" % (line.get("message", "?"), ": %s" % reason if reason else ""))
        return decisions, errors, harness

    def restarts(self):
        try:
            _, instances = http_json("GET", self.control + "/instances", timeout=20)
            return sum(instance.get("restarts", 0) for instance in instances or [])
        except (OSError, ValueError, AttributeError):
            return None

    def close(self):
        while True:
            try:
                self.connections.get_nowait().close()
            except queue.Empty:
                break
        self.stack.stop(self.process)


# ------------------------------------------------------------------------------------------------ figures

def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100.0 * (len(ordered) - 1))))]


def utc_day(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%d")


def cpu_seconds(pid):
    """User + system CPU seconds of `pid` so far (/proc/<pid>/stat), or None."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / float(os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def gate_env(base, table, standin, provider, shards):
    return dict(base, TABLE_NAME=table, DYNAMODB_ENDPOINT=standin.url, UPSTREAM_URL=provider.url,
                AI_CEILING_SHARDS=str(shards))


def summarize(label, results, elapsed, standin, table, shards, days, harness, planned, standin_cpu):
    """The figures of one run from its calls, the stand-in's counters, the ceiling rows and the logs."""
    stand = standin.stats()  # before the row reads: those are DynamoDB requests too
    row = standin.ceiling(table, shards, days)
    decisions, errors, harness_lines = harness.logs()
    statuses = collections.Counter(status for status, _, _ in results)
    codes = collections.Counter("%s %s" % (status, code) for status, _, code in results if status != 200)
    answered = statuses.get(200, 0)
    latencies = [ms for status, ms, _ in results if status == 200]
    reserved = collections.Counter(line.get("costReservedMicros") for line in decisions
                                   if isinstance(line.get("costReservedMicros"), int))
    worst = reserved.most_common(1)[0][0] if reserved else None
    # The row's excess over answered × 50 is of two kinds: a unit counted for no answered call (a
    # reservation left behind: `calls` and its whole worst case W), and a settle that never landed (an
    # answered call still holding W instead of 50).
    orphans = row["calls"] - answered
    excess = row["cost"] - answered * CALL_COST
    lost = None
    if worst and worst > CALL_COST:
        lost = (excess - max(0, orphans) * worst) / float(worst - CALL_COST)
    lambda_throttled = harness_lines.count("throttled")
    calls = max(1, len(results) - lambda_throttled)  # the calls that reached a bootstrap
    operations = sum((stand.get("operations") or {}).values())
    refused = stand.get("conflicts", 0) + stand.get("cancelledConflict", 0) + stand.get("throttled", 0)
    ceiling_items = {item: units for item, units in (stand.get("wcuByItem") or {}).items() if "AI_BUDGET#" in item}
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    return {
        "label": label, "shards": shards, "callsMade": len(results), "callsPlanned": planned,
        "seconds": elapsed, "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "non200": dict(codes), "refused503": statuses.get(503, 0), "answered": answered,
        "rowCalls": row["calls"], "rowCost": row["cost"], "rowsFound": row["rows"],
        "expectedCost": answered * CALL_COST, "worstCaseMicros": worst, "orphanReservations": orphans,
        "lostSettles": lost, "p50Ms": p50, "p99Ms": p99, "addedP50Ms": p50 - PROVIDER_MS,
        "addedP99Ms": p99 - PROVIDER_MS,
        "ddbRequestsPerCall": operations / float(calls), "wcuPerCall": stand.get("wcuTotal", 0) / float(calls),
        "ceilingWcuPerCall": sum(ceiling_items.values()) / float(calls),
        "ceilingRowsInTop": len(ceiling_items),
        "refusalsRetriedPerCall": refused / float(calls),
        "standInRequestsPerSecond": operations / elapsed if elapsed > 0 else None,
        "standInCpuShare": standin_cpu / elapsed if standin_cpu is not None and elapsed > 0 else None,
        "standIn": {key: stand.get(key) for key in ("operations", "writes", "transactions", "conflicts",
                                                    "cancelledConflict", "throttled", "cancelledThrottled",
                                                    "wcuTotal", "wcuByItem")},
        "errorLines": dict(collections.Counter(errors)),
        "lambdaThrottled": lambda_throttled,
        "instanceRestarts": harness.restarts(),
    }


def closed_loop(harness, in_flight, total):
    """`in_flight` workers, each making calls one after another until `total` were started or RUN_START_S
    passed; returns when every started call has its answer (each bounded by CALL_TIMEOUT_S)."""
    results, lock = [], threading.Lock()
    started = [0]
    stop_starting = time.monotonic() + RUN_START_S

    def worker():
        while time.monotonic() < stop_starting:
            with lock:
                if started[0] >= total:
                    return
                started[0] += 1
            outcome = harness.call()
            with lock:
                results.append(outcome)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(in_flight)]
    begin = time.perf_counter()
    for thread in threads:
        thread.start()
    until = time.monotonic() + RUN_START_S + CALL_TIMEOUT_S + 5
    for thread in threads:
        thread.join(max(0.0, until - time.monotonic()))
    with lock:
        return list(results), time.perf_counter() - begin


def closed_run(stack, standin, provider, bootstrap, base, in_flight, shards, label):
    table = standin.new_table()
    harness = Harness(stack, bootstrap, in_flight, gate_env(base, table, standin, provider, shards))
    try:
        harness.open_connections(in_flight)
        standin.reset()
        cpu_before = cpu_seconds(standin.process.pid)
        first_day = utc_day(time.time())
        results, elapsed = closed_loop(harness, in_flight, ROUNDS * in_flight)
        cpu_after = cpu_seconds(standin.process.pid)
        days = sorted({first_day, utc_day(time.time())})
        cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
        figures = summarize(label, results, elapsed, standin, table, shards, days, harness, ROUNDS * in_flight, cpu)
    finally:
        harness.close()
    figures["inFlight"] = in_flight
    return figures


def open_loop(harness, rate, seconds):
    """A call started every 1/rate s for `seconds`, each in its own thread (open loop); then waits for
    every answer (each bounded by CALL_TIMEOUT_S). Returns the outcomes, the seconds from the first start
    to the last answer, and the rate at which calls were actually started."""
    count = int(rate * seconds)
    interval = 1.0 / rate
    results, lock = [], threading.Lock()
    threads, ends = [], []

    def one():
        outcome = harness.call()
        with lock:
            results.append(outcome)
            ends.append(time.perf_counter())

    begin = time.perf_counter()
    last_start = begin
    for index in range(count):
        wait = begin + index * interval - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        thread = threading.Thread(target=one, daemon=True)
        last_start = time.perf_counter()
        thread.start()
        threads.append(thread)
    until = time.monotonic() + CALL_TIMEOUT_S + 5
    for thread in threads:
        thread.join(max(0.0, until - time.monotonic()))
    with lock:
        span = (max(ends) - begin) if ends else float("nan")
        started_rate = (count - 1) / (last_start - begin) if last_start > begin else float("nan")
        return list(results), span, started_rate


def scaled_run(stack, standin, provider, bootstrap, base, shards, k):
    """The issue's target scaled down by K: DynamoDB's per-item write units / K, the offered load / K. The
    harness runs with --throttle (the 16 instances are the function's reserved concurrency: a call that
    finds all busy is refused at once, as Lambda does), so a stack slower than the offered load shows as
    refused calls instead of a queue that outlasts the run."""
    table = standin.new_table()
    rate = TARGET_RATE / float(k)
    harness = Harness(stack, bootstrap, SIM_INSTANCES, gate_env(base, table, standin, provider, shards),
                      throttle=True)
    try:
        harness.open_connections(SIM_INSTANCES * 2)
        standin.reset()
        cpu_before = cpu_seconds(standin.process.pid)
        first_day = utc_day(time.time())
        results, span, started_rate = open_loop(harness, rate, SIM_SECONDS)
        cpu_after = cpu_seconds(standin.process.pid)
        days = sorted({first_day, utc_day(time.time())})
        cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
        figures = summarize("scaled", results, span, standin, table, shards, days, harness,
                            int(rate * SIM_SECONDS), cpu)
    finally:
        harness.close()
    answered_rate = figures["answered"] / span if span > 0 else float("nan")
    figures.update({"K": k, "offeredRate": rate, "startedRate": started_rate, "achievedRate": answered_rate,
                    "scaledAchievedRate": answered_rate * k, "itemWcu": PARTITION_WCU / float(k),
                    "inFlight": SIM_INSTANCES,
                    # `throttled` counts every throughput refusal, the cancelled transactions included.
                    "throttlingRefusals": figures["standIn"]["throttled"],
                    "throttledTransactions": figures["standIn"]["cancelledThrottled"]})
    return figures


def ceiling_sim(stack, attestgate, base, harness_binary):
    """`ddb-harness ceiling-sim` against a stand-in with the item write units / CEILING_K, offered
    TARGET_RATE / CEILING_K calls a second; its JSON line plus the stand-in's counters."""
    k = CEILING_K
    item_wcu = PARTITION_WCU / float(k)
    shards = math.ceil(TARGET_RATE * WCU_PER_CALL / float(PARTITION_WCU) / CEILING_HEADROOM)
    standin = StandIn(stack, STANDIN_FLAGS + ["--item-wcu", "%g" % item_wcu], attestgate, base)
    try:
        standin.reset()
        env = dict(base, DYNAMODB_ENDPOINT=standin.url)
        out = subprocess.run([harness_binary, "ceiling-sim", "--shards", str(shards), "--rate",
                              "%g" % (TARGET_RATE / float(k)), "--seconds", str(SIM_SECONDS), "--provider-ms",
                              str(PROVIDER_MS), "--cost", str(CALL_COST)],
                             env=env, capture_output=True, text=True, timeout=SIM_SECONDS * 6)
        line = (out.stdout.strip().splitlines() or ["{}"])[-1]
        figures = json.loads(line)
        figures.update({"K": k, "itemWcu": item_wcu, "standIn": standin.stats()})
        return figures
    finally:
        stack.stop(standin.process)


# ------------------------------------------------------------------------------------------------- output

def fmt(value, spec="%.2f"):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return spec % value


def exactness(f):
    return "row %d calls / %d µ$ for %d answered (%d µ$ expected): %d reservations left behind, lost settles %s" % (
        f["rowCalls"], f["rowCost"], f["answered"], f["expectedCost"], f["orphanReservations"],
        fmt(f["lostSettles"]))


def details(f):
    parts = []
    if f["non200"]:
        parts.append("answers %s" % f["non200"])
    if f["errorLines"]:
        parts.append("error lines %s" % f["errorLines"])
    if f["instanceRestarts"]:
        parts.append("instance restarts %d" % f["instanceRestarts"])
    return ("; " + "; ".join(parts)) if parts else ""


def print_runs(runs):
    head = ("%-6s %3s %4s %7s %4s %5s %6s %8s %8s %8s %8s %6s %5s %6s %6s %5s" %
            ("bin", "shd", "infl", "calls", "503", "left", "lost", "p50 ms", "p99 ms", "+p50", "+p99", "req/c",
             "wcu/c", "retr/c", "ddb/s", "cpu"))
    print(head)
    print("-" * len(head))
    for f in runs:
        print("%-6s %3d %4d %7s %4d %5d %6s %8s %8s %8s %8s %6s %5s %6s %6s %5s" % (
            f["label"], f["shards"], f["inFlight"], "%d/%d" % (f["callsMade"], f["callsPlanned"]),
            f["refused503"], f["orphanReservations"], fmt(f["lostSettles"]), fmt(f["p50Ms"], "%.0f"),
            fmt(f["p99Ms"], "%.0f"), fmt(f["addedP50Ms"], "%.0f"), fmt(f["addedP99Ms"], "%.0f"),
            fmt(f["ddbRequestsPerCall"], "%.1f"), fmt(f["wcuPerCall"], "%.1f"),
            fmt(f["refusalsRetriedPerCall"], "%.1f"), fmt(f["standInRequestsPerSecond"], "%.0f"),
            fmt(None if f["standInCpuShare"] is None else f["standInCpuShare"] * 100, "%.0f%%")))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True, help="the release bootstrap")
    parser.add_argument("--attestgate", required=True, help="the attestgate CLI (for `table create`)")
    parser.add_argument("--before", default="/tmp/bootstrap-old",
                        help="a bootstrap to compare at 8 in flight, when the file exists (default %(default)s)")
    parser.add_argument("--scale-k", type=int, default=K,
                        help="the scaled simulation's K: item write units 1000/K, offered load 5000/K calls/s "
                             "(default %(default)s)")
    parser.add_argument("--ddb-harness", default=None,
                        help="the ddb-harness binary, for the ceiling-writes simulation (`ceiling-sim`)")
    parser.add_argument("--json", default=os.path.join(ROOT, "build", "bench-contention.json"))
    args = parser.parse_args(argv)
    bootstrap = os.path.abspath(args.bootstrap)
    attestgate = os.path.abspath(args.attestgate)
    before = os.path.abspath(args.before) if args.before and os.path.isfile(args.before) else None
    k = max(1, args.scale_k)
    for path in (bootstrap, attestgate):
        if not os.access(path, os.X_OK):
            print("contention_bench: %s is not an executable (make build)" % path, file=sys.stderr)
            return 1

    work = tempfile.mkdtemp(prefix="attestgate-contention-")
    key_file = os.path.join(work, "upstream-key")
    with open(key_file, "w") as handle:
        handle.write(uuid.uuid4().hex + "\n")
    base = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "DYNAMODB", "_HANDLER"))}
    base.update({"ATTESTGATE_ENV": "development", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing",
                 "AWS_SECRET_ACCESS_KEY": "testing", "GATE_MODE": "monitor", "UPSTREAM_API_KEY_FILE": key_file,
                 "LOG_LEVEL": "warning", "AI_DAILY_COST_CEILING_USD": "1000", "AI_DAILY_CALL_CEILING": "1000000",
                 "ROUTES": json.dumps(ROUTES, separators=(",", ":"))})
    shards_sim = math.ceil(TARGET_RATE * WCU_PER_CALL / float(PARTITION_WCU) / HEADROOM)
    formula = "ceil(%d calls/s × %d WCU per call / %d WCU per shard / %.1f)" % (TARGET_RATE, WCU_PER_CALL,
                                                                                PARTITION_WCU, HEADROOM)
    item_wcu = PARTITION_WCU / float(k)

    stack = Stack()
    provider = Provider()
    figures = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "callCostMicros": CALL_COST, "providerMs": PROVIDER_MS, "standInFlags": STANDIN_FLAGS,
               "bootstrap": bootstrap, "before": before, "runs": [], "beforeRun": None, "scaled": None,
               "runStartSeconds": RUN_START_S, "harnessDeadlineMs": HARNESS_DEADLINE_MS}
    started = time.monotonic()
    print("Ceiling under contention, %s: moto_server.py %s; provider %d ms; %d µ$ a call; closed loop of %d × "
          "in flight calls (none started after %d s)" % (figures["date"], " ".join(STANDIN_FLAGS), PROVIDER_MS,
                                                         CALL_COST, ROUNDS, RUN_START_S), flush=True)
    try:
        standin = StandIn(stack, STANDIN_FLAGS, attestgate, base)
        for shards in SHARDS:
            for in_flight in IN_FLIGHT:
                figures["runs"].append(closed_run(stack, standin, provider, bootstrap, base, in_flight, shards, "now"))
        if before:
            figures["beforeRun"] = closed_run(stack, standin, provider, before, base, 8, 1, "before")
        stack.stop(standin.process)
        sim_standin = StandIn(stack, STANDIN_FLAGS + ["--item-wcu", "%g" % item_wcu], attestgate, base)
        figures["scaled"] = scaled_run(stack, sim_standin, provider, bootstrap, base, shards_sim, k)
        figures["scaled"]["shardsFormula"] = formula
        stack.stop(sim_standin.process)
        if args.ddb_harness:
            figures["ceilingSim"] = ceiling_sim(stack, attestgate, base, os.path.abspath(args.ddb_harness))
    except StackFailed as error:
        print("contention_bench: the stack did not start: %s" % error, file=sys.stderr)
        return 1
    finally:
        stack.close()
        provider.close()
        shutil.rmtree(work, ignore_errors=True)
    figures["seconds"] = time.monotonic() - started

    print("503: calls refused (target 0: our own writes never refuse a call). left: reservations counted for no "
          "answered call. lost: settles that never landed = (row cost − answered × %d − left × W) / (W − %d), W the "
          "worst case reserved (decision lines); target 0. +p50/+p99: latency minus the provider's %d ms. req/c, "
          "wcu/c: DynamoDB requests and write units per call that reached the gate; retr/c: refusals the gate tried again per call "
          "(conflicts + cancelledConflict + throttled). ddb/s, cpu: requests the stand-in served a second and its "
          "CPU (one Python process: near 100 %% it, not the gate, sets the latency)." % (CALL_COST, CALL_COST,
                                                                                       PROVIDER_MS))
    print()
    runs = figures["runs"] + ([figures["beforeRun"]] if figures["beforeRun"] else [])
    print_runs(runs)
    for f in runs:
        print("  %-6s %d shard(s), %2d in flight: %s; W %s µ$%s" % (
            f["label"], f["shards"], f["inFlight"], exactness(f), fmt(f["worstCaseMicros"], "%d"), details(f)))
    if figures["beforeRun"]:
        f = figures["beforeRun"]
        print("before: %s at 8 in flight, 1 shard: %d × 503 of %d calls, lost settles %s, p50/p99 %s/%s ms, "
              "%s requests and %s refusals retried per call" % (
                  before, f["refused503"], f["callsMade"], fmt(f["lostSettles"]), fmt(f["p50Ms"], "%.0f"),
                  fmt(f["p99Ms"], "%.0f"), fmt(f["ddbRequestsPerCall"], "%.1f"),
                  fmt(f["refusalsRetriedPerCall"], "%.1f")))
    s = figures["scaled"]
    print()
    print("Scaled simulation of %d unpaid calls/s per environment, K = %d: --item-wcu %g (%d / K), %g calls/s "
          "offered (%d / K) open loop, one every %g ms for %d s, %d instances (--throttle: reserved concurrency), "
          "AI_CEILING_SHARDS = %s = %d" % (TARGET_RATE, k, item_wcu, PARTITION_WCU, s["offeredRate"], TARGET_RATE,
                                           1000.0 / s["offeredRate"], SIM_SECONDS, SIM_INSTANCES, formula,
                                           shards_sim))
    print("  achieved %s calls/s answered 200 against %g offered (started at %s/s): %s calls/s at scale "
          "(target ≥ %d)" % (fmt(s["achievedRate"], "%.1f"), s["offeredRate"], fmt(s["startedRate"], "%.1f"),
                             fmt(s["scaledAchievedRate"], "%.0f"), TARGET_RATE))
    print("  %d × 503; %d refused by Lambda's concurrency (all %d instances busy); p50/p99 %s/%s ms; stand-in "
          "%s requests/s at %s CPU" % (s["refused503"], s["lambdaThrottled"], SIM_INSTANCES, fmt(s["p50Ms"], "%.0f"),
                                       fmt(s["p99Ms"], "%.0f"), fmt(s["standInRequestsPerSecond"], "%.0f"),
                                       fmt(None if s["standInCpuShare"] is None else s["standInCpuShare"] * 100,
                                           "%.0f%%")))
    print("  throttling refusals by the stand-in: %d (%d of them cancelled transactions); conflicts %d, "
          "cancelledConflict %d; write units per call %s, on the ceiling rows %s%s (the formula assumes %d)" % (
              s["throttlingRefusals"], s["throttledTransactions"], s["standIn"]["conflicts"],
              s["standIn"]["cancelledConflict"], fmt(s["wcuPerCall"], "%.1f"), "≥ " if s["ceilingRowsInTop"] >= 20
              else "", fmt(s["ceilingWcuPerCall"], "%.1f"), WCU_PER_CALL))
    print("  %s%s" % (exactness(s), details(s)))
    rho_sim = s["offeredRate"] / shards_sim * HOLD_MS / 1000.0
    rho_full = TARGET_RATE / float(shards_sim) * HOLD_MS / 1000.0
    print("  not scaled by K: the transaction hold (%d ms) and the latencies. Each shard is held ρ = settles/s × "
          "hold = %.3f of the time here, %.1f at full scale with %d shards; the hold bound of docs/dynamodb.md "
          "(\"Capacity\", ρ ≤ 0.5) asks for %d × 2 × %.3f = %d shards. The simulation tests write units per item, "
          "not holds" % (HOLD_MS, rho_sim, rho_full, shards_sim, TARGET_RATE, HOLD_MS / 1000.0,
                         math.ceil(TARGET_RATE * 2 * HOLD_MS / 1000.0)))
    c = figures.get("ceilingSim")
    if c:
        print()
        print("Scaled simulation of the ceiling's own writes (ddb-harness ceiling-sim: reserve, the provider's %d ms, "
              "settle; nothing else of the gate), K = %d: --item-wcu %g, %g calls/s offered open loop for %d s, "
              "AI_CEILING_SHARDS = ceil(%d × %d / %d / %.1f) = %d" % (
                  PROVIDER_MS, c["K"], c["itemWcu"], c["offeredRate"], SIM_SECONDS, TARGET_RATE, WCU_PER_CALL,
                  PARTITION_WCU, CEILING_HEADROOM, c["shards"]))
        print("  %d of %d calls admitted and settled (%s calls/s over the whole run, the last calls' completion "
              "included: %s at scale; offered %d at scale, target ≥ %d); refused %d; reserve errors %s; settle "
              "errors %s" % (c["admitted"], c["offered"], fmt(c["achievedRate"], "%.1f"),
                             fmt(c["achievedRate"] * c["K"], "%.0f"), c["offeredRate"] * c["K"], TARGET_RATE,
                             c["refused"], c["reserveErrors"] or 0, c["settleErrors"] or 0))
        print("  rows: %d calls, %d µ$ for %d expected (%s); the two writes p50/p99 %s/%s ms" % (
            c["rowCalls"], c["rowCost"], c["expectedCost"],
            "exact" if c["rowCost"] == c["expectedCost"] and c["rowCalls"] == c["admitted"] else "NOT exact",
            fmt(c["storeMsP50"], "%.0f"), fmt(c["storeMsP99"], "%.0f")))
        print("  the stand-in throttled %d writes and refused %d for a hold (every one tried again by the gate: "
              "no call refused for it)" % (c["standIn"]["throttled"],
                                           c["standIn"]["conflicts"] + c["standIn"]["cancelledConflict"]))
    figures["scaled"]["holdShare"] = rho_sim
    figures["scaled"]["holdShareAtFullScale"] = rho_full
    print("total %.0f s" % figures["seconds"])
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
