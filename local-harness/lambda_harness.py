#!/usr/bin/env python3
"""A local stand-in for AWS Lambda + API Gateway (HTTP API, payload 2.0), on 127.0.0.1 only.

It runs N real `bootstrap` processes (like N Lambda instances), each talking to its own Lambda Runtime
API server (/2018-06-01/runtime/...), and puts an HTTP front in front of them that turns real HTTP
requests into HTTP API 2.0 events. With --signed-in-instances M, M more bootstraps form a second pool (a
second function from the same zip) that serves only signed-in calls, as infra/ deploys it; with
--stream-instances K, K more form the stream pool (the stream function behind the Function URL), which
takes at most K calls at once and refuses the next with 429, as Lambda throttles a Function URL past the
function's reserved concurrency. A control server accepts raw events (1.0, REST, malformed) and reports
init errors, instances and logs. Standard library only. See README.md for the CLI.
"""
import argparse
import base64
import collections
import heapq
import itertools
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer

API = "/2018-06-01"
CLAIMS_HEADER = "x-harness-jwt-claims"
FUNCTION_ARN_PREFIX = "arn:aws:lambda:us-east-1:000000000000:function:"
MAX_BODY = 6 * 1024 * 1024
# Response streaming (see "Streamed responses" below): Lambda's soft limit on a streamed response.
MAX_STREAM = 20 * 1024 * 1024
STREAM_CONTENT_TYPE = "application/vnd.awslambda.http-integration-response"
ERROR_TYPE_TRAILER = "lambda-runtime-function-error-type"
ERROR_BODY_TRAILER = "lambda-runtime-function-error-body"


class Invocation:
    def __init__(self, event: bytes, deadline_ms: int):
        self.request_id = str(uuid.uuid4())
        self.event = event
        self.deadline_ms = deadline_ms
        self.deadline_epoch_ms = 0
        self.trace_id = "Root=1-%08x-%s;Sampled=0" % (int(time.time()), uuid.uuid4().hex[:24])
        self.done = threading.Event()
        self.outcome = None  # "response" | "error" | "timeout" | "no_instance" | "throttled"
        self.payload = b""
        self.error_type = None
        self.instance = None
        self.pool = None
        self.stream = None  # a StreamedResponse once the runtime posts in streaming mode
        self.front = None  # the front's handler whose client gets a streamed answer (None: no client)
        self.received_at = time.time()  # epoch seconds when the harness had the whole request
        self.delivered_at = None  # epoch seconds when /next handed the event to the runtime

    def finish(self, outcome, payload=b"", error_type=None):
        if self.done.is_set():
            return False
        self.outcome, self.payload, self.error_type = outcome, payload, error_type
        self.done.set()
        return True

    def summary(self):
        text = self.payload.decode("utf-8", "replace")
        summary = {"requestId": self.request_id, "outcome": self.outcome, "payload": text,
                   "errorType": self.error_type, "instance": self.instance, "pool": self.pool,
                   "receivedAt": self.received_at, "deliveredAt": self.delivered_at}
        if self.stream is not None:
            summary["stream"] = self.stream.summary()
        return summary


class Instance:
    """One bootstrap process and its own Runtime API server (AWS_LAMBDA_RUNTIME_API)."""

    def __init__(self, harness, pool, index):
        self.harness, self.pool, self.index = harness, pool, index
        self.generation = 0
        self.process = None
        self.exit_codes = []
        self.restarts = 0
        self.restarting = False  # between discarding a timed-out sandbox and starting its replacement
        # The invocation /next last handed out, until the runtime asks for the next one: whatever the
        # bootstrap logs for an invocation it writes before that request (see `Harness.settle_logs`).
        self.serving = None
        self.output = None  # the running process's `ProcessOutput`
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_runtime_handler(harness, self))
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def endpoint(self):
        return "127.0.0.1:%d" % self.server.server_address[1]

    def start(self):
        self.generation += 1
        env = dict(self.harness.env)
        env["AWS_LAMBDA_RUNTIME_API"] = self.endpoint
        env["AWS_LAMBDA_FUNCTION_NAME"] = self.pool.function_name
        self.process = subprocess.Popen([self.harness.bootstrap], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.serving = None
        self.output = ProcessOutput(process=self.process, log=lambda line: self.harness.log(self.index, line))
        process, output, generation = self.process, self.output, self.generation
        threading.Thread(target=output.pump, daemon=True).start()
        threading.Thread(target=self._reap, args=(process, output, generation), daemon=True).start()

    def drain_logs(self):
        """Takes in every log line the bootstrap has written so far (it writes each with one write(2))."""
        output = self.output
        if output is not None:
            output.read_available()

    def _reap(self, process, output, generation):
        code = process.wait()
        output.read_available()
        self.exit_codes.append(code)
        self.harness.log(self.index, json.dumps({"harness": "exited", "exitCode": code}))
        if generation == self.generation:
            self.generation += 1  # stale /next waiters give their invocation back

    def running(self):
        return self.process is not None and self.process.poll() is None

    def kill_and_restart(self):
        """What Lambda does after a timeout: the sandbox is discarded and a new one starts."""
        self.restarting = True
        try:
            self.generation += 1
            if self.running():
                self.process.kill()
                self.process.wait()
            self.restarts += 1
            self.start()
        finally:
            self.restarting = False

    def describe(self):
        return {"instance": self.index, "pool": self.pool.name, "pid": self.process.pid if self.process else None,
                "running": self.running(), "exitCodes": list(self.exit_codes), "restarts": self.restarts}


class ProcessOutput:
    """A bootstrap's stdout and stderr (one pipe), read as lines. The pump thread reads the pipe every
    `pump_interval`; `read_available` also lets the Runtime API take in, at once, what the bootstrap wrote
    before a request, so a line logged before an answer is in `/logs` when the answer is (the pump alone
    could be a moment behind)."""

    def __init__(self, process, log):
        self.fd = process.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.log = log
        self.lock = threading.Lock()
        self.partial = b""
        self.closed = False

    # How often the pump looks at the pipe. Not on each line: a thread woken by every line the bootstrap
    # writes would take the interpreter lock (and a core) in the middle of the invocation that wrote it,
    # on the path of its first byte; a pipe holds 64 KiB meanwhile.
    pump_interval = 0.02

    def pump(self):
        while not self.closed:
            time.sleep(self.pump_interval)
            self.read_available()

    def read_available(self):
        with self.lock:
            while not self.closed:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if not chunk:
                    self.closed = True
                    if self.partial:
                        self.log(self.partial.decode("utf-8", "replace"))
                    return
                lines = (self.partial + chunk).split(b"\n")
                self.partial = lines.pop()
                for line in lines:
                    self.log(line.decode("utf-8", "replace"))


class Pool:
    """One function: its instances (its reserved concurrency) and its queue of invocations. `throttles`:
    a call arriving while every instance is taken is refused at once (always for the stream pool, for
    the others with --throttle) instead of waiting."""

    def __init__(self, name, function_name, throttles=False):
        self.name, self.function_name, self.throttles = name, function_name, throttles
        self.instances = []
        self.pending = queue.Queue()
        # Invocations between arrival and answer; a streamed one until its last byte (`Harness.invoke`).
        self.in_flight = 0


GUEST, SIGNED_IN, STREAM = "guest", "signed_in", "stream"
# What a throttled call answers: API Gateway's 500 for a throttled integration, and through a Function URL
# Lambda's 429 (AWS Lambda Developer Guide, "Creating and managing Lambda function URLs", "Throttling
# function URLs"). AWS documents the status only; the bodies are the harness's, not AttestGate's shape.
THROTTLED_API = (500, b'{"message":"Internal Server Error"}')
THROTTLED_URL = (429, b'{"message":"Too Many Requests"}')


def streamed_routes(env):
    """(method, path pattern) of every `ROUTES` entry with `"stream": true` in the bootstraps' environment
    (`{param}` segments match any one segment); none when ROUTES is unset or unreadable (the bootstrap
    refuses to start on the latter anyway)."""
    try:
        routes = json.loads(env.get("ROUTES") or "[]")
    except ValueError:
        return []
    found = []
    for route in routes if isinstance(routes, list) else []:
        if isinstance(route, dict) and route.get("stream") is True and isinstance(route.get("path"), str):
            segments = [("[^/]+" if part.startswith("{") and part.endswith("}") else re.escape(part))
                        for part in route["path"].split("/")]
            found.append((str(route.get("method", "")).upper(), re.compile("^" + "/".join(segments) + "$")))
    return found


class Harness:
    def __init__(self, bootstrap, instances, deadline_ms, env, signed_in_instances=0, throttle=False,
                 stream_instances=0):
        self.bootstrap = bootstrap
        self.deadline_ms = deadline_ms
        self.env = env
        self.throttle = throttle
        self.invocations = {}
        self.history = []
        self.init_errors = []
        self.logs = collections.deque(maxlen=5000)
        self.lock = threading.Lock()
        self.watcher = DeadlineWatcher(self)
        self.pools = {GUEST: Pool(GUEST, "attestgate-local", throttle)}
        if signed_in_instances > 0:
            self.pools[SIGNED_IN] = Pool(SIGNED_IN, "attestgate-local-signed-in", throttle)
        if stream_instances > 0:
            # The stream function's reserved concurrency is the Function URL's only throttle: always on.
            self.pools[STREAM] = Pool(STREAM, "attestgate-local-stream", throttles=True)
        self.streamed = streamed_routes(env)
        self.instances = []
        for pool, count in ((self.pools[GUEST], instances), (self.pools.get(SIGNED_IN), signed_in_instances),
                            (self.pools.get(STREAM), stream_instances)):
            for _ in range(count if pool else 0):
                instance = Instance(self, pool, len(self.instances))
                pool.instances.append(instance)
                self.instances.append(instance)

    def pool_for(self, signed_in, function_url=False, method="", target=""):
        """Signed-in calls go to their own pool when there is one, as to their own API and function. With a
        stream pool, the Function URL's calls go there (on AWS the URL invokes only the stream function),
        and so does a guest's call to a streamed route through the HTTP front (on AWS the HTTP APIs do not
        have those routes: the front serves them for `make run`'s examples and the session)."""
        if signed_in:
            return self.pools.get(SIGNED_IN, self.pools[GUEST])
        stream = self.pools.get(STREAM)
        if stream is not None and (function_url or self.is_streamed(method, target)):
            return stream
        return self.pools[GUEST]

    def is_streamed(self, method, target):
        path = target.split("?", 1)[0]
        return any(method.upper() == wanted and pattern.match(path) for wanted, pattern in self.streamed)

    def release(self, pool):
        with self.lock:
            pool.in_flight -= 1

    def start(self):
        for instance in self.instances:
            instance.start()

    def stop(self):
        for instance in self.instances:
            instance.generation += 1
            if instance.running():
                instance.process.terminate()
                try:
                    instance.process.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    instance.process.kill()

    def log(self, index, line):
        with self.lock:
            self.logs.append({"instance": index, "line": line})
        if self.echo_logs:
            sys.stderr.write("[bootstrap %d] %s\n" % (index, line))
            sys.stderr.flush()

    echo_logs = True

    def settle_logs(self, bound=3.0):
        """Before `/logs` answers: an instance whose invocation has ended but which has not yet asked for
        the next one may still be logging that invocation (a settle after a stream's last byte, say). Wait
        for it to ask (a bounded wait: a bootstrap stuck after an abandoned call must not hold `/logs`),
        then take in what every bootstrap has written."""
        until = time.monotonic() + bound
        for instance in self.instances:
            serving = instance.serving
            while serving is not None and serving.done.is_set() and time.monotonic() < until:
                if serving.stream is not None and not serving.stream.ended.is_set():
                    break
                if instance.serving is not serving or not instance.running():
                    break
                time.sleep(0.002)
        for instance in self.instances:
            instance.drain_logs()

    def invoke(self, event: bytes, deadline_ms=None, pool=None, front=None) -> Invocation:
        """Queues the event and waits for its outcome. `front`: the front's handler, whose client connection
        a streamed answer is written to (lent at once, so the POST's reader needs no wake-up of the front's
        thread before its first chunk)."""
        pool = pool or self.pools[GUEST]
        invocation = Invocation(event, deadline_ms or self.deadline_ms)
        invocation.front = front
        invocation.pool = pool.name
        with self.lock:
            self.invocations[invocation.request_id] = invocation
            self.history.append(invocation)
            # The pool's instances are its reserved concurrency (--throttle; always for the stream pool):
            # Lambda refuses the call at once when all are busy rather than queueing it (API Gateway
            # answers 500, a Function URL 429).
            throttled = pool.throttles and pool.in_flight >= len(pool.instances)
            if not throttled:
                pool.in_flight += 1
        if throttled:
            invocation.finish("throttled")
            self.log(-1, json.dumps({"harness": "throttled", "pool": pool.name, "requestId": invocation.request_id}))
            return invocation
        try:
            # An instance being replaced after a timeout comes back in a moment, as Lambda's would: wait
            # for it rather than report that nothing can serve.
            waited = 0.0
            while any(instance.restarting for instance in pool.instances) and waited < 10.0:
                time.sleep(0.02)
                waited += 0.02
            if not any(instance.running() for instance in pool.instances):
                invocation.finish("no_instance")
                return invocation
            pool.pending.put(invocation)
            # The deadline counts from delivery; this bound covers queueing plus the deadline.
            invocation.done.wait(timeout=invocation.deadline_ms / 1000.0 + 30)
            invocation.finish("timeout")
            return invocation
        finally:
            stream = invocation.stream
            if stream is not None:
                # A streamed answer holds its execution until its last byte, as on Lambda: a slow reader
                # keeps its slot of the pool taken until the stream ends.
                stream.when_ended(lambda: self.release(pool))
            else:
                self.release(pool)

    def deadline_passed(self, invocation, instance, generation):
        """`DeadlineWatcher`: the invocation's deadline (plus its grace) has passed."""
        if invocation.done.is_set():
            # A streamed response counts against the deadline until its last byte, as on Lambda.
            stream = invocation.stream
            if stream is not None and not stream.ended.is_set() and instance.generation == generation:
                self.log(instance.index, json.dumps({"harness": "deadline exceeded while streaming, instance "
                                                     "restarted", "requestId": invocation.request_id}))
                stream.end("Sandbox.Timedout")
                instance.kill_and_restart()
            return
        if invocation.finish("timeout") and instance.generation == generation:
            self.log(instance.index, json.dumps({"harness": "deadline exceeded, instance restarted",
                                                 "requestId": invocation.request_id}))
            instance.kill_and_restart()


class DeadlineWatcher:
    """One thread watches every delivered invocation's deadline (a thread started per invocation put a
    thread start on each event's path, next to the bootstrap reading it). At the deadline plus `GRACE`, an
    invocation that has not answered, or whose stream has not ended, is timed out and its instance
    restarted, as Lambda does; that work runs on a thread of its own, so a slow restart delays no other
    deadline."""
    GRACE = 0.2

    def __init__(self, harness):
        self.harness = harness
        self.due = []  # heap of (when, sequence, invocation, instance, generation)
        self.sequence = itertools.count()
        self.condition = threading.Condition()
        threading.Thread(target=self._run, daemon=True).start()

    def watch(self, invocation, instance, generation):
        when = invocation.deadline_epoch_ms / 1000.0 + self.GRACE
        with self.condition:
            heapq.heappush(self.due, (when, next(self.sequence), invocation, instance, generation))
            if self.due[0][2] is invocation:
                self.condition.notify()

    def _run(self):
        while True:
            with self.condition:
                while not self.due or self.due[0][0] > time.time():
                    self.condition.wait(timeout=self.due[0][0] - time.time() if self.due else None)
                _, _, invocation, instance, generation = heapq.heappop(self.due)
            stream = invocation.stream
            if not invocation.done.is_set() or (stream is not None and not stream.ended.is_set()):
                threading.Thread(target=self.harness.deadline_passed, args=(invocation, instance, generation),
                                 daemon=True).start()


def make_runtime_handler(harness, instance):
    class RuntimeHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # A streamed POST's chunks are up to 256 KiB (the runtime's upload buffer): the framing is read through
        # this buffer, a chunk larger than it straight into its bytes (a larger one made no difference).
        rbufsize = 1 << 16
        # Headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK
        # (~40 ms per answer on Linux).
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def _reply(self, status, body=b"", headers=None):
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            # Head and body in one write (end_headers would send the head on its own first).
            self._headers_buffer.append(b"\r\n" + body)
            self.flush_headers()

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def do_GET(self):
            if self.path != API + "/runtime/invocation/next":
                return self._reply(404, b'{"errorType":"NotFound"}')
            instance.drain_logs()
            instance.serving = None
            generation = instance.generation
            while True:
                try:
                    invocation = instance.pool.pending.get(timeout=0.2)
                except queue.Empty:
                    if generation != instance.generation:
                        return self._reply(500, b'{"errorType":"InstanceDiscarded"}')
                    continue
                if generation != instance.generation or invocation.done.is_set():
                    if not invocation.done.is_set():
                        instance.pool.pending.put(invocation)
                    if generation != instance.generation:
                        return self._reply(500, b'{"errorType":"InstanceDiscarded"}')
                    continue
                break
            invocation.instance = instance.index
            instance.serving = invocation
            invocation.deadline_epoch_ms = int(time.time() * 1000) + invocation.deadline_ms
            invocation.delivered_at = time.time()
            self._reply(200, invocation.event, {
                "Content-Type": "application/json",
                "Lambda-Runtime-Aws-Request-Id": invocation.request_id,
                "Lambda-Runtime-Deadline-Ms": str(invocation.deadline_epoch_ms),
                "Lambda-Runtime-Invoked-Function-Arn": FUNCTION_ARN_PREFIX + instance.pool.function_name,
                "Lambda-Runtime-Trace-Id": invocation.trace_id,
            })
            harness.watcher.watch(invocation, instance, generation)

        def do_POST(self):
            if (self.headers.get("Lambda-Runtime-Function-Response-Mode") or "").lower() == "streaming":
                return receive_stream(self, harness, instance)
            body = self._body()
            instance.drain_logs()
            if self.path == API + "/runtime/init/error":
                harness.init_errors.append({
                    "instance": instance.index,
                    "errorType": self.headers.get("Lambda-Runtime-Function-Error-Type"),
                    "body": body.decode("utf-8", "replace"),
                })
                return self._reply(202, b'{"status":"OK"}')
            parts = self.path[len(API):].split("/")  # ['', 'runtime', 'invocation', id, kind]
            if len(parts) != 5 or parts[1:3] != ["runtime", "invocation"] or parts[4] not in ("response", "error"):
                return self._reply(404, b'{"errorType":"NotFound"}')
            invocation = harness.invocations.get(parts[3])
            if invocation is None:
                return self._reply(400, b'{"errorType":"InvalidRequestID"}')
            if parts[4] == "response":
                if len(body) > MAX_BODY:
                    invocation.finish("error", b'{"errorType":"Function.ResponseSizeTooLarge"}',
                                      "Function.ResponseSizeTooLarge")
                    return self._reply(413, b'{"errorType":"RequestEntityTooLarge"}')
                accepted = invocation.finish("response", body)
            else:
                accepted = invocation.finish("error", body, self.headers.get("Lambda-Runtime-Function-Error-Type"))
            if not accepted:
                return self._reply(400, b'{"errorType":"InvalidStateTransition"}')
            return self._reply(202, b'{"status":"OK"}')

    return RuntimeHandler


FUNCTION_URL_ID = "localurl0000000000000000000000"
FUNCTION_URL_DOMAIN = FUNCTION_URL_ID + ".lambda-url.us-east-1.on.aws"


def http_v2_event(method, target, headers, body, source_ip, function_url=False):
    """An HTTP API payload 2.0 event, as API Gateway builds it; with `function_url`, the same payload as a
    Lambda Function URL builds it (its domain, no authorizer: the claims header is an ordinary header)."""
    path, _, query = target.partition("?")
    lowered = collections.OrderedDict()
    cookies = []
    claims = None
    for name, value in headers:
        key = name.lower()
        if key == CLAIMS_HEADER and not function_url:
            claims = json.loads(value)
            continue
        if key == "cookie":
            cookies.extend(part.strip() for part in value.split(";") if part.strip())
            continue
        lowered[key] = value if key not in lowered else lowered[key] + "," + value
    try:
        text = body.decode("utf-8")
        encoded = False
    except UnicodeDecodeError:
        text = base64.b64encode(body).decode("ascii")
        encoded = True
    request_id = str(uuid.uuid4())
    event = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": lowered,
        "requestContext": {
            "accountId": "000000000000", "apiId": "local", "domainName": "127.0.0.1", "domainPrefix": "local",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": source_ip,
                     "userAgent": lowered.get("user-agent", "")},
            "requestId": request_id, "routeKey": "$default", "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
            "timeEpoch": int(time.time() * 1000),
        },
        "isBase64Encoded": encoded,
    }
    if cookies:
        event["cookies"] = cookies
    if query:
        params = collections.OrderedDict()
        for pair in query.split("&"):
            key, _, value = pair.partition("=")
            params[key] = value if key not in params else params[key] + "," + value
        event["queryStringParameters"] = params
    if body:
        event["body"] = text
    if claims is not None:
        event["requestContext"]["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
    if function_url:
        event["requestContext"].update({"accountId": "anonymous", "apiId": FUNCTION_URL_ID,
                                        "domainName": FUNCTION_URL_DOMAIN, "domainPrefix": FUNCTION_URL_ID})
    return json.dumps(event).encode()


def make_front_handler(harness, function_url=False):
    """The HTTP API front, or with `function_url` the Function URL front (streamed routes; guests only)."""

    class FrontHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK
        # (~40 ms per answer on Linux).
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def _handle(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                event = http_v2_event(self.command, self.path, self.headers.items(), body, self.client_address[0],
                                      function_url)
            except ValueError:
                return self._send(400, {"Content-Type": "application/json"}, [],
                                  b'{"message":"bad X-Harness-JWT-Claims"}')
            # API Gateway routes a signed-in call to the signed-in API (its JWT authorizer sets the claims)
            # and so to that API's function; the claims header stands for both here.
            signed_in = not function_url and any(name.lower() == CLAIMS_HEADER for name in self.headers.keys())
            pool = harness.pool_for(signed_in, function_url, self.command, self.path)
            invocation = harness.invoke(event, pool=pool, front=self)
            if invocation.outcome == "throttled":
                # The stream function is reached only through its Function URL on AWS.
                status, body = THROTTLED_URL if function_url or pool.name == STREAM else THROTTLED_API
                return self._send(status, {"Content-Type": "application/json"}, [], body)
            if invocation.stream is not None:
                return forward_stream(self, invocation.stream)
            if invocation.outcome == "response":
                try:
                    document = json.loads(invocation.payload)
                    status = int(document.get("statusCode", 200))
                    payload = document.get("body") or ""
                    data = base64.b64decode(payload) if document.get("isBase64Encoded") else payload.encode()
                    return self._send(status, document.get("headers") or {}, document.get("cookies") or [], data)
                except (ValueError, AttributeError, TypeError):
                    return self._send(502, {"Content-Type": "application/json"}, [],
                                      b'{"message":"Internal Server Error"}')
            if invocation.outcome == "timeout":
                return self._send(504, {"Content-Type": "application/json"}, [], b'{"message":"Gateway Timeout"}')
            if invocation.outcome == "no_instance":
                return self._send(503, {"Content-Type": "application/json"}, [],
                                  b'{"message":"Service Unavailable"}')
            return self._send(500, {"Content-Type": "application/json"}, [], b'{"message":"Internal Server Error"}')

        def _send(self, status, headers, cookies, data):
            self.send_response(status)
            for name, value in headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, str(value))
            for cookie in cookies:
                self.send_header("Set-Cookie", cookie)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

        def __getattr__(self, name):
            # Any other method (TRACE, QUERY, ...) becomes an event too, as behind an ANY route: the router
            # answers 405 with Allow, where http.server would answer 501 by itself.
            if name.startswith("do_"):
                return self._handle
            raise AttributeError(name)

    return FrontHandler


# --- Streamed responses ---------------------------------------------------------------------------
# The runtime posts /response with `Lambda-Runtime-Function-Response-Mode: streaming`, chunked, and may
# end it with the `Lambda-Runtime-Function-Error-Type` / `-Error-Body` trailers. For HTTP integrations
# (`application/vnd.awslambda.http-integration-response`) the body starts with a JSON prelude
# ({statusCode, headers, cookies}) and eight NUL bytes. The front forwards every chunk to its client
# as it arrives (chunked): the thread that reads the POST writes each chunk to the client connection
# itself, which the front's thread lends it (no hand-over between threads on a chunk's path; a slow
# client slows the POST, so memory stays bounded). A client that hangs up does not stop the function:
# the rest is read and dropped, as Lambda does. The error trailers, when present, end the client's
# chunked answer too (Function URLs just end the body; the harness shows them so tests can see them),
# and the control port's /invocations reports the stream's bytes, chunks and error, when the request
# arrived (receivedAt), the event was delivered (deliveredAt), the POST arrived (postedAt), its first
# chunk (firstChunkAt, the prelude's) and its first chunk with body bytes (firstBodyChunkAt), in epoch
# seconds, and the POST's connection (`connection`: the runtime's local
# port, so a test can tell a kept connection from a new one).

NULS = b"\0" * 8
MAX_PRELUDE = 65536


class StreamedResponse:
    """One streamed POST on its way to the front's client."""

    def __init__(self, content_type, connection=None):
        self.content_type = content_type
        self.connection = connection
        self.ended = threading.Event()
        self.bytes = 0
        self.count = 0
        self.error_type = None
        self.error_body = None
        self.client_gone = False
        self.started = time.time()
        self.first_chunk_at = None
        self.first_body_chunk_at = None  # the first chunk with body bytes (after the prelude) arrived
        self.finished = None
        self.end_lock = threading.Lock()
        self.on_end = []  # `when_ended` callbacks
        # The client side: the front's handler once it lends its connection (`attach`); `forwarded` once
        # the client's answer is complete (or given up).
        self.lock = threading.Lock()
        self.attached = threading.Event()
        self.forwarded = threading.Event()
        self.front = None
        integration = content_type.split(";")[0].strip().lower() == STREAM_CONTENT_TYPE
        self.prelude = bytearray() if integration else None
        self.head_sent = False
        # Once the head and the first body bytes are out: the reading loop writes each chunk itself.
        self.fast = False

    def attach(self, front):
        """The front's thread lends its client connection (None: nobody reads this stream; it is drained)."""
        self.front = front
        self.attached.set()

    def end(self, error_type=None, error_body=None):
        """Records how the stream ended (the first end wins); the reading thread then closes the client's
        answer (`close_client`)."""
        with self.end_lock:
            if self.ended.is_set():
                return
            self.fast = False
            self.error_type, self.error_body = error_type, error_body
            self.finished = time.time()
            self.ended.set()
            callbacks, self.on_end = self.on_end, []
        for callback in callbacks:
            callback()

    def when_ended(self, callback):
        """Calls `callback` once the stream has ended (now, if it has)."""
        with self.end_lock:
            if not self.ended.is_set():
                self.on_end.append(callback)
                return
        callback()

    def deliver(self, chunk):
        """The Runtime API's thread: one chunk of the POST, written to the client now."""
        arrived = time.time()
        if not self.attached.is_set():
            self.attached.wait(30)
        with self.lock:
            if self.forwarded.is_set() or self.ended.is_set():
                return
            if self.head_sent:
                self.first_body_chunk_at = self.first_body_chunk_at or arrived
                self._send([chunk])
                self.fast = self.front is not None and not self.client_gone and not self.ended.is_set()
                return
            rest = chunk
            if self.prelude is not None:
                self.prelude += chunk
                if NULS not in self.prelude:
                    if len(self.prelude) > MAX_PRELUDE:
                        self._fail_head()
                    return
                prelude, _, rest = bytes(self.prelude).partition(NULS)
                head = self._head(prelude)
                if head is None:
                    return self._fail_head()
            else:
                head = self._head(None)
            self.head_sent = True
            self._send([chunk for chunk in (rest,) if chunk], head)
            if rest:
                self.first_body_chunk_at = arrived
                self.fast = self.front is not None and not self.client_gone and not self.ended.is_set()

    def close_client(self):
        """The Runtime API's thread, once the POST is over: the last chunk and the trailers, or a 502 when
        the prelude never came."""
        if not self.attached.is_set():
            self.attached.wait(30)
        with self.lock:
            if self.forwarded.is_set():
                return
            if not self.head_sent:
                if self.prelude is not None:
                    return self._fail_head()
                self.head_sent = True
                self._send([], self._head(None))
            trailer = b"Lambda-Runtime-Function-Error-Type: %s\r\n" % self.error_type.encode() if self.error_type else b""
            self._write([b"0\r\n" + trailer + b"\r\n"])
            self.forwarded.set()

    def _head(self, prelude):
        """The status line and headers for the client, from the prelude (None: a plain stream); None when
        the prelude is not a JSON object with a valid status."""
        status, headers, cookies = 200, {"Content-Type": "application/octet-stream"}, []
        if prelude is not None:
            try:
                document = json.loads(prelude)
                status = int(document.get("statusCode", 200))
                headers = document.get("headers") or {}
                cookies = document.get("cookies") or []
                if not 100 <= status <= 999:
                    return None
            except (ValueError, AttributeError, TypeError):
                return None
        front = self.front
        reason = front.responses[status][0] if front is not None and status in front.responses else ""
        lines = ["HTTP/1.1 %d %s" % (status, reason)]
        if front is not None:
            lines += ["Server: " + front.version_string(), "Date: " + front.date_time_string()]
        try:
            for name, value in headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    lines.append("%s: %s" % (name, value))
            lines += ["Set-Cookie: %s" % cookie for cookie in cookies]
        except AttributeError:
            return None
        lines += ["Transfer-Encoding: chunked", "Trailer: Lambda-Runtime-Function-Error-Type"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")

    def _fail_head(self):
        """No usable prelude: the client gets a 502, and the rest of the POST is drained."""
        self.head_sent = True
        self._write([b'HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: 35\r\n\r\n'
                     b'{"message":"Internal Server Error"}'])
        self.forwarded.set()

    def _send(self, pieces, head=b""):
        """One chunk to the client for `pieces` (after `head`, in the same write)."""
        size = sum(len(piece) for piece in pieces)
        parts = [head] + ([b"%x\r\n" % size] + pieces + [b"\r\n"] if size else [])
        self._write(parts)

    def _write(self, parts):
        front = self.front
        if front is None or self.client_gone:
            return
        try:
            send_parts(front.connection, parts)
        except OSError:
            self.client_gone = True
            self.fast = False

    def summary(self):
        return {"bytes": self.bytes, "chunks": self.count, "errorType": self.error_type,
                "errorBody": self.error_body, "clientGone": self.client_gone,
                "seconds": round((self.finished or time.time()) - self.started, 3),
                "postedAt": self.started, "firstChunkAt": self.first_chunk_at,
                "firstBodyChunkAt": self.first_body_chunk_at, "connection": self.connection}


def relay_chunks(rfile, stream, trailers):
    """Reads a chunked body and hands each chunk on as it arrives, then fills `trailers` (lower-cased
    names); returns an error type when the body is over Lambda's limit. Once the head is out, each chunk
    goes to the client straight from here, one `sendmsg` per chunk (the long-stream path)."""
    readline, read = rfile.readline, rfile.read
    while True:
        line = readline(1024)
        if not line:
            raise ValueError("truncated chunked body")
        size = int(line.split(b";", 1)[0], 16)
        if size == 0:
            while True:
                trailer = readline(65537)
                if trailer in (b"\r\n", b"\n", b""):
                    return None
                name, _, value = trailer.decode("latin-1").partition(":")
                trailers[name.strip().lower()] = value.strip()
        data = read(size)
        if len(data) < size:
            raise ValueError("truncated chunk")
        readline()
        stream.bytes += size
        stream.count += 1
        if stream.bytes > MAX_STREAM:
            return "Function.ResponseSizeTooLarge"
        if stream.fast:
            parts = [b"%x\r\n" % size, data, b"\r\n"]
            try:
                sent = stream.front.connection.sendmsg(parts)
                if sent < size + len(parts[0]) + 2:
                    send_parts(stream.front.connection, [b"".join(parts)[sent:]])
            except OSError:
                stream.client_gone = True
                stream.fast = False
        else:
            stream.first_chunk_at = stream.first_chunk_at or time.time()
            stream.deliver(data)


def receive_stream(handler, harness, instance):
    """The Runtime API side: /runtime/invocation/{id}/response in streaming mode."""
    parts = handler.path[len(API):].split("/")
    if len(parts) != 5 or parts[1:3] != ["runtime", "invocation"] or parts[4] != "response":
        return handler._reply(404, b'{"errorType":"NotFound"}')
    invocation = harness.invocations.get(parts[3])
    if invocation is None:
        return handler._reply(400, b'{"errorType":"InvalidRequestID"}')
    if (handler.headers.get("Transfer-Encoding") or "").lower() != "chunked":
        return handler._reply(400, b'{"errorType":"InvalidStreamingRequest"}')
    stream = StreamedResponse(handler.headers.get("Content-Type") or "application/octet-stream",
                              handler.client_address[1])
    if invocation.front is not None:
        stream.attach(invocation.front)
    invocation.stream = stream
    if not invocation.finish("stream"):
        invocation.stream = None
        return handler._reply(400, b'{"errorType":"InvalidStateTransition"}')
    trailers = {}
    error_type = None
    try:
        try:
            error_type = relay_chunks(handler.rfile, stream, trailers)
        except (ValueError, OSError):
            error_type = "Runtime.TruncatedResponse"
        error_type = error_type or trailers.get(ERROR_TYPE_TRAILER)
        error_body = trailers.get(ERROR_BODY_TRAILER)
        if error_body:
            try:
                error_body = base64.b64decode(error_body).decode("utf-8", "replace")
            except ValueError:
                pass
        invocation.outcome = "stream_error" if error_type else "stream"
        invocation.error_type = error_type
        instance.drain_logs()
        stream.end(error_type, error_body)
    finally:
        stream.end("Runtime.TruncatedResponse")  # only if nothing above ended it
        stream.close_client()
    if error_type in ("Function.ResponseSizeTooLarge", "Runtime.TruncatedResponse"):
        handler.close_connection = True
        return handler._reply(413 if error_type == "Function.ResponseSizeTooLarge" else 400,
                              json.dumps({"errorType": error_type}).encode())
    return handler._reply(202, b'{"status":"OK"}')


def send_parts(connection, parts):
    """sendmsg() the parts in order (gathered, not joined), however much each call takes."""
    parts = [memoryview(part) for part in parts if part]
    while parts:
        sent = connection.sendmsg(parts)
        while parts and sent >= len(parts[0]):
            sent -= len(parts[0])
            parts.pop(0)
        if parts and sent:
            parts[0] = parts[0][sent:]


def forward_stream(handler, stream):
    """The front side: waits until the stream was forwarded on the client connection it lent when it queued
    the event (`Harness.invoke(front=)`; the POST's reader attached it)."""
    handler.wfile.flush()
    stream.forwarded.wait()
    if stream.client_gone:
        handler.close_connection = True


def make_control_handler(harness):
    class ControlHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _json(self, status, value):
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/init-errors":
                return self._json(200, harness.init_errors)
            if self.path == "/instances":
                return self._json(200, [instance.describe() for instance in harness.instances])
            if self.path == "/invocations":
                return self._json(200, [invocation.summary() for invocation in list(harness.history)])
            if self.path == "/logs":
                harness.settle_logs()
                with harness.lock:
                    return self._json(200, list(harness.logs))
            return self._json(404, {"message": "unknown control path"})

        def do_POST(self):
            if self.path.split("?")[0] != "/invoke":
                return self._json(404, {"message": "unknown control path"})
            length = int(self.headers.get("Content-Length") or 0)
            event = self.rfile.read(length) if length else b""
            deadline = self.headers.get("X-Harness-Deadline-Ms")
            wanted = harness.pools.get(self.headers.get("X-Harness-Pool") or GUEST)
            pool = wanted or harness.pool_for(self.headers.get("X-Harness-Pool") == SIGNED_IN)
            invocation = harness.invoke(event, int(deadline) if deadline else None, pool)
            if invocation.stream is not None:
                invocation.stream.attach(None)  # no client here: the stream is drained
            return self._json(200, invocation.summary())

    return ControlHandler


class PooledHTTPServer(HTTPServer):
    """ThreadingHTTPServer with its threads started before the connections come: each waits in `accept`,
    serves the connection it took to its end, then waits again. When none is left waiting, `spare` more
    are started, off any request's path. ThreadingHTTPServer starts a thread per connection once its
    accept loop has woken: ~0.1-0.2 ms of Python on each request's path (the bench's streamed first byte
    comes on a new connection per call, as a Function URL client's does)."""

    spare = 4
    # HTTPServer's listen backlog is 5: a burst of clients connecting at once (64 calls in flight) overflows
    # it, the kernel drops their SYNs and they connect only after a retransmission, a second or three later.
    request_queue_size = 256

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self.waiting = 0
        self.wanted = threading.Condition()

    def serve_forever(self, poll_interval=0.5):
        while True:
            with self.wanted:
                while self.waiting > 0:
                    self.wanted.wait()
                self.waiting += self.spare
            for _ in range(self.spare):
                threading.Thread(target=self._accept_loop, daemon=True).start()

    def _accept_loop(self):
        while True:
            try:
                request, address = self.get_request()
            except OSError:
                return
            with self.wanted:
                self.waiting -= 1
                if self.waiting == 0:
                    self.wanted.notify()
            try:
                self.finish_request(request, address)
            except Exception:
                self.handle_error(request, address)
            finally:
                self.shutdown_request(request)
            with self.wanted:
                self.waiting += 1


def serve(handler, port):
    server = PooledHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def parse_env(pairs, files):
    env = dict(os.environ)
    for path in files or []:
        with open(path) as handle:
            for line in handle:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    key, _, value = line.partition("=")
                    env[key] = value
    for pair in pairs or []:
        key, _, value = pair.partition("=")
        env[key] = value
    return env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True, help="path of the bootstrap executable")
    parser.add_argument("--instances", type=int, default=1, help="bootstrap processes to run (default 1)")
    parser.add_argument("--http-port", type=int, default=0, help="HTTP front port (default: any free port)")
    parser.add_argument("--control-port", type=int, default=0, help="control port (default: any free port)")
    parser.add_argument("--function-url-port", type=int, default=0,
                        help="Function URL front port, for streamed routes (default: any free port)")
    parser.add_argument("--deadline-ms", type=int, default=3000, help="per-invocation deadline (default 3000)")
    parser.add_argument("--env", action="append", metavar="KEY=VALUE", help="environment for bootstrap")
    parser.add_argument("--env-file", action="append", metavar="FILE", help="KEY=VALUE lines for bootstrap")
    parser.add_argument("--quiet", action="store_true", help="do not echo bootstrap logs to stderr")
    parser.add_argument("--signed-in-instances", type=int, default=0,
                        help="bootstraps of a second pool serving only signed-in calls (default 0: one pool)")
    parser.add_argument("--throttle", action="store_true",
                        help="a pool's instances are its reserved concurrency: refuse a call when all are busy")
    parser.add_argument("--stream-instances", type=int, default=0,
                        help="bootstraps of the stream pool: the Function URL's calls (and streamed routes "
                             "through the HTTP front), at most this many at once, the next refused with 429 "
                             "(default 0: the Function URL uses the guest pool)")
    args = parser.parse_args(argv)

    harness = Harness(os.path.abspath(args.bootstrap), args.instances, args.deadline_ms,
                      parse_env(args.env, args.env_file), args.signed_in_instances, args.throttle,
                      args.stream_instances)
    harness.echo_logs = not args.quiet
    front = serve(make_front_handler(harness), args.http_port)
    control = serve(make_control_handler(harness), args.control_port)
    function_url = serve(make_front_handler(harness, function_url=True), args.function_url_port)
    harness.start()
    ready = {"ready": True, "http": "http://127.0.0.1:%d" % front.server_address[1],
             "control": "http://127.0.0.1:%d" % control.server_address[1],
             "functionURL": "http://127.0.0.1:%d" % function_url.server_address[1],
             "runtimeAPIs": [instance.endpoint for instance in harness.instances],
             "pools": {name: len(pool.instances) for name, pool in harness.pools.items()}}
    print(json.dumps(ready), flush=True)

    stop = threading.Event()
    # The handlers only set a flag: a handler runs on the main thread between two bytecodes, possibly while
    # that thread holds `stop`'s lock inside `stop.wait`, so `stop.set()` there could wait on itself forever
    # (a harness that then outlived its test run, every later signal queueing behind the first).
    signalled = []
    signal.signal(signal.SIGTERM, lambda *_: signalled.append(True))
    signal.signal(signal.SIGINT, lambda *_: signalled.append(True))
    # Also stop when our parent goes away (stdin closed), so test runs never leave processes behind.
    if not sys.stdin.isatty():
        def watch_stdin():
            try:
                # os.read, not sys.stdin's buffered reader: a daemon thread blocked in that reader holds its
                # lock, and the interpreter aborts at shutdown when it cannot take it (after a SIGTERM).
                while os.read(0, 4096):
                    pass
            except (OSError, ValueError):
                pass
            stop.set()
        threading.Thread(target=watch_stdin, daemon=True).start()
    while not signalled and not stop.wait(timeout=0.2):
        pass
    harness.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
