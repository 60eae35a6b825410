#!/usr/bin/env python3
"""`make stream-isolation-check`: streamed routes cannot starve the guest API, through the real bootstrap.

infra/ serves streamed routes from a function of their own (the stream function behind the Function URL,
with its own reserved concurrency), so streams held open never take the executions that challenges and
buffered routes need. This plays that on the local stack: moto and the table (local-harness/moto_server.py,
`attestgate table create`), the fake upstream (its `forever` streams), and lambda_harness.py with the real
`bootstrap`, every pool throttled at its size as Lambda throttles at reserved concurrency (`--throttle`).

  isolated  (`--stream-instances K`, as run.py starts it when a route streams): K slow readers (streams
            held open: the client reads the head and nothing more, the upstream sends an event every
            250 ms until maxStreamSeconds) fill the stream pool. Then the next stream through the Function
            URL must get 429, and guests must still get challenges (POST /v1/attest/challenge, 200 with a
            challenge) and buffered answers (POST /v1/generate, 200 from the provider), in the guest pool,
            while all K streams are still open.
  control   (one shared pool, the layout before: the Function URL on the guest function): the same K slow
            readers fill it; the same guests must be refused (500: API Gateway's answer to a throttled
            invocation). A control that serves them means the check no longer tells the layouts apart.

Pass/fail is on statuses and pools only; the times printed are for reading, never judged (every request
has a generous timeout). One line per check, then `checks: N passed, M failed`; exit 1 on any failure.

Usage: stream_isolation_check.py [--bootstrap PATH] [--instances N] [--streams K]
       (default bootstrap: $BOOTSTRAP_PATH, else .build/release/bootstrap)
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run  # noqa: E402  (the stack's steps: moto and the table, the fake upstream)

STREAM_PATH = "/v1/ask/stream"
ROUTES = [
    {"method": "POST", "path": "/v1/generate", "feature": "generation", "mode": "monitor", "upstreamPath": "/generate"},
    # Long enough that the probes always run while the streams are held; the stack is stopped long before.
    {"method": "POST", "path": STREAM_PATH, "feature": "ask_stream", "mode": "monitor", "upstreamPath": "/ask",
     "stream": True, "maxStreamSeconds": 120},
]
DEADLINE_MS = 150000  # above maxStreamSeconds: the harness never cuts a held stream during the check
TIMEOUT = 30  # seconds any one request may take before it counts as unanswered
SLOW_STREAM = {"stream": True, "question": "Why is the sky blue?", "forever": True, "intervalMs": 250}
CHALLENGES, BUFFERED = 5, 3


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def expect(self, ok, what, detail):
        self.passed += ok
        self.failed += not ok
        print("  %s %s: %s" % ("ok  " if ok else "FAIL", what, detail))
        sys.stdout.flush()


def request(base, method, path, headers=None, body=b""):
    """(status or None when unanswered in TIMEOUT, body bytes, seconds)."""
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
    started = time.monotonic()
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        answer = connection.getresponse()
        return answer.status, answer.read(), time.monotonic() - started
    except OSError:
        return None, b"", time.monotonic() - started
    finally:
        connection.close()


def open_slow_stream(base):
    """A streamed call whose client reads the status line and headers, then nothing: the stream stays
    open (the upstream never ends it) and its execution taken. Returns (status, socket)."""
    url = urllib.parse.urlsplit(base)
    body = json.dumps(SLOW_STREAM).encode()
    sock = socket.create_connection((url.hostname, url.port), timeout=TIMEOUT)
    sock.sendall(b"POST %s HTTP/1.1\r\nHost: %s\r\nX-Device-ID: %s\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (STREAM_PATH.encode(), url.netloc.encode(),
                                                    str(uuid.uuid4()).encode(), len(body), body))
    head = b""
    try:
        while b"\r\n\r\n" not in head and len(head) < 65536:
            byte = sock.recv(1)
            if not byte:
                break
            head += byte
    except OSError:
        pass
    status = head.split(b" ", 2)[1] if head.startswith(b"HTTP/1.1 ") else b"0"
    return int(status) if status.isdigit() else None, sock


def get_json(url):
    with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
        return json.load(answer)


def open_upstream_streams(stack, since):
    return sum(1 for s in get_json(stack.urls["upstream"] + "/control/streams")
               if s.get("arrived", 0) >= since and s.get("closedAt") is None)


def start_harness(stack, args, streams, label):
    """lambda_harness.py with `instances` guest bootstraps, `streams` in the stream pool (0: none, the
    Function URL's calls go to the guest pool), every pool throttled at its size. Returns (process, ready)."""
    command = [sys.executable, os.path.join(HERE, "lambda_harness.py"), "--bootstrap", args.bootstrap,
               "--instances", str(args.instances), "--stream-instances", str(streams), "--throttle",
               "--deadline-ms", str(DEADLINE_MS)]
    for key, value in sorted(stack.env.items()):
        command += ["--env", "%s=%s" % (key, value)]
    process = stack.spawn("lambda harness (%s)" % label, command, log="harness-%s.log" % label,
                          stdin=subprocess.PIPE)
    ready = json.loads(run.read_line(process, "lambda harness") or "{}")
    for _ in range(100):  # every bootstrap up and asking for work, none refusing its configuration
        instances = get_json(ready["control"] + "/instances")
        if get_json(ready["control"] + "/init-errors") or any(i["exitCodes"] for i in instances):
            sys.exit("bootstrap failed to start (see %s)" % os.path.join(stack.state, "harness-%s.log" % label))
        if all(i["running"] for i in instances):
            break
        time.sleep(0.05)
    return process, ready


def stop(process):
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass


def saturate_and_probe(stack, args, streams, label):
    """Starts the harness, fills the pool the Function URL uses with slow readers, then probes. Returns the
    figures of the run."""
    process, ready = start_harness(stack, args, streams, label)
    since = time.time()
    held = []
    try:
        opened = [open_slow_stream(ready["functionURL"]) for _ in range(args.streams)]
        held = [sock for _, sock in opened]
        figures = {"streams": [status for status, _ in opened]}
        figures["openUpstream"] = open_upstream_streams(stack, since)
        status, body, _ = request(ready["functionURL"], "POST", STREAM_PATH, {"X-Device-ID": str(uuid.uuid4())},
                                  json.dumps(SLOW_STREAM).encode())
        figures["nextStream"] = (status, body.decode("utf-8", "replace")[:80])
        figures["challenges"] = []
        for _ in range(CHALLENGES):
            status, body, seconds = request(ready["http"], "POST", "/v1/attest/challenge",
                                            {"X-Device-ID": str(uuid.uuid4())})
            challenge = status == 200 and "challenge" in json.loads(body or b"{}")
            figures["challenges"].append((status, challenge, seconds))
        figures["buffered"] = []
        for _ in range(BUFFERED):
            status, body, seconds = request(ready["http"], "POST", "/v1/generate", {"X-Device-ID": str(uuid.uuid4())},
                                            b'{"text":"Mitochondria make ATP. Ribosomes build proteins.","cards":2}')
            cards = status == 200 and len(json.loads(body or b"{}").get("cards", [])) == 2
            figures["buffered"].append((status, cards, seconds))
        # Still held after the probes: the pool was full for all of them.
        figures["stillOpen"] = open_upstream_streams(stack, since)
        figures["outcomes"] = {}
        for invocation in get_json(ready["control"] + "/invocations"):
            key = "%s %s" % (invocation.get("pool"), invocation.get("outcome"))
            figures["outcomes"][key] = figures["outcomes"].get(key, 0) + 1
        return figures
    finally:
        for sock in held:
            sock.close()
        stop(process)
        stack.processes = [(name, p) for name, p in stack.processes if p is not process]


def summary(probes):
    answered = [p for p in probes if p[1]]
    statuses = sorted({str(p[0]) for p in probes})
    slowest = max((p[2] for p in probes), default=0.0)
    return len(answered), "%d/%d answered 200 (statuses %s, slowest %.0f ms)" % (
        len(answered), len(probes), ", ".join(statuses), slowest * 1000)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default=os.environ.get("BOOTSTRAP_PATH")
                        or os.path.join(ROOT, ".build", "release", "bootstrap"))
    parser.add_argument("--instances", type=int, default=2, help="guest bootstraps (default 2)")
    parser.add_argument("--streams", type=int, default=2,
                        help="stream pool size, and slow readers opened (default 2)")
    args = parser.parse_args(argv)
    args.bootstrap = os.path.abspath(args.bootstrap)
    if not os.access(args.bootstrap, os.X_OK):
        sys.exit("missing %s: run `make build`, or set BOOTSTRAP_PATH" % args.bootstrap)
    started = time.time()
    state = tempfile.mkdtemp(prefix="attestgate-stream-isolation-")
    # `attestgate` is the bootstrap under that name (the operator CLI): it creates the table.
    os.symlink(args.bootstrap, os.path.join(state, "attestgate"))
    stack_args = argparse.Namespace(state_dir=state, attestgate=os.path.join(state, "attestgate"))
    stack = run.Stack(stack_args)
    key_file = os.path.join(state, "upstream-key")
    with open(os.open(key_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
        handle.write(uuid.uuid4().hex + "\n")
    stack.env.update({"ROUTES": json.dumps(ROUTES, separators=(",", ":")), "AI_DAILY_CALL_CEILING": "0",
                      "UPSTREAM_API_KEY_FILE": key_file, "LOG_LEVEL": "info"})
    checks = Checks()
    ok = False
    try:
        run.step_moto(stack, stack_args)
        run.step_upstream(stack, stack_args)

        pools = run.stream_instances(stack.env["ROUTES"], args.streams)
        checks.expect(pools == args.streams and run.stream_instances(json.dumps(ROUTES[:1]), args.streams) == 0,
                      "run.py", "a streamed route gets a stream pool of %d (none without one)" % pools)

        print("isolated: %d guest bootstraps, a stream pool of %d (--stream-instances), %d slow readers"
              % (args.instances, args.streams, args.streams))
        isolated = saturate_and_probe(stack, args, args.streams, "isolated")
        checks.expect(isolated["streams"] == [200] * args.streams and isolated["openUpstream"] == args.streams,
                      "stream pool full", "%d streams answered %s, %d open at the upstream"
                      % (args.streams, isolated["streams"], isolated["openUpstream"]))
        checks.expect(isolated["nextStream"][0] == 429, "next stream throttled",
                      "expected 429, got %s %s" % isolated["nextStream"])
        served, text = summary(isolated["challenges"])
        checks.expect(served == CHALLENGES, "guests get challenges", text)
        served, text = summary(isolated["buffered"])
        checks.expect(served == BUFFERED, "guests get buffered answers", text)
        expected = {"stream stream": args.streams, "stream throttled": 1, "guest response": CHALLENGES + BUFFERED}
        checks.expect(isolated["outcomes"] == expected and isolated["stillOpen"] == args.streams,
                      "pools apart", "invocations by pool and outcome %s (expected %s), %d streams still open "
                      "after the probes" % (json.dumps(isolated["outcomes"], sort_keys=True),
                                            json.dumps(expected, sort_keys=True), isolated["stillOpen"]))

        print("control: one shared pool of %d (the Function URL on the guest function), %d slow readers"
              % (args.instances, args.streams))
        shared = saturate_and_probe(stack, argparse.Namespace(**{**vars(args), "streams": args.instances}), 0,
                                    "shared")
        served_challenges, challenges = summary(shared["challenges"])
        served_buffered, buffered = summary(shared["buffered"])
        starved = (shared["streams"] == [200] * args.instances and served_challenges == 0 and served_buffered == 0
                   and {p[0] for p in shared["challenges"] + shared["buffered"]} == {500}
                   and shared["outcomes"].get("guest throttled") == CHALLENGES + BUFFERED + 1)
        checks.expect(starved, "control starves guests",
                      "streams %s; challenges %s; buffered %s; next stream %s; outcomes %s"
                      % (shared["streams"], challenges, buffered, shared["nextStream"][0],
                         json.dumps(shared["outcomes"], sort_keys=True)))
        ok = checks.failed == 0
    finally:
        stack.stop()
        if ok:
            shutil.rmtree(state, ignore_errors=True)
        else:
            print("logs kept in %s" % state)
    print("checks: %d passed, %d failed (%.0f s)" % (checks.passed, checks.failed, time.time() - started))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
