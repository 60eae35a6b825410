#!/usr/bin/env python3
"""`make run`: the whole system on 127.0.0.1, a scripted session, then serving until Ctrl-C.

Python only orchestrates processes here; everything that speaks the product's protocol is Swift:
`bootstrap` (the Lambda), `attestgate table create` and `attestgate-demo` (the simulated devices and the
scripted session). Steps, in order (each one a function in STEPS that adds its processes and its
settings for the bootstraps):

  state      local-harness/.state/: synthetic Apple CA (`attestgate-demo ca`), Google service-account
             key and DeviceCheck key (openssl), upstream API key. Reused between runs; gitignored.
  moto       local-harness/moto_server.py on a free port, then `attestgate table create`
  google     local-harness/fake_google.py (OAuth token endpoint + Play Integrity decode)
  apple      local-harness/fake_apple.py (DeviceCheck two bits per physical device): DEVICE_MARKS=on
  upstream   local-harness/fake_upstream.py (a flashcard generator that can be told to fail)
  lambda     local-harness/lambda_harness.py: Runtime API + HTTP API 2.0 front, real `bootstrap`s in pools
             as infra/ deploys its functions: guests, signed-in callers (X-Harness-JWT-Claims) and, when a
             route streams, the stream function behind the Function URL (its own bootstraps, at most
             --stream-instances streams at once, the next refused with 429)
  session    `attestgate-demo session` (unless --script 0)

--check: play the session and exit with its status (make run-check, part of make test), on free
ports with a throw-away state folder, so it never collides with an interactive `make run`.
Every child runs in its own process group and is stopped by its recorded pid's group on exit or
Ctrl-C; children also get SIGTERM if this script dies (PR_SET_PDEATHSIG).
"""
import argparse
import base64
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_STATE = os.path.join(HERE, ".state")

TABLE = "attestgate-local"
TEAM_ID = "DEMOTEAM01"
BUNDLE_ID = "com.example.flashcards"
# What Play reports for the release signing key (base64url SHA-256, no padding); any string works locally.
CERT_DIGEST = base64.urlsafe_b64encode(hashlib.sha256(b"demo release signing key").digest()).decode().rstrip("=")
# Small on purpose, so the session reaches both limits in a few calls.
AI_DAILY_CALL_CEILING = 17
GENERATION_ALLOWANCE = 4
# Template routes (docs/dialects.md, "Template routes"): the app sends only {"variables": {...}}, the gate renders
# the provider request, so nothing but the app's own request shapes reaches the provider.
QUESTION = {"question": {"type": "string", "maxLength": 500}}
ROUTES = [
    {"method": "POST", "path": "/v1/generate", "feature": "generation", "mode": "enforce", "binding": "request",
     "allowance": {"firstDay": GENERATION_ALLOWANCE, "laterDays": GENERATION_ALLOWANCE},
     "upstreamPath": "/generate",
     "template": {"body": {"text": "{{text}}", "cards": "{{cards}}"},
                  "variables": {"text": {"type": "string", "maxLength": 4000},
                                "cards": {"type": "integer", "enum": [1, 2, 3, 4, 5]}}}},
    {"method": "POST", "path": "/v1/tutor/{deckId}/{cardId}", "feature": "tutor", "mode": "monitor",
     "binding": "request", "allowance": {"firstDay": 14, "laterDays": 9}, "upstreamPath": "/tutor",
     "template": {"body": {"question": "{{question}}"}, "variables": QUESTION}},
    # Streamed (docs/streaming.md): the tutor's answer as server-sent events, through Lambda response streaming.
    # The fake provider's pacing is part of the template, not the client's to choose.
    {"method": "POST", "path": "/v1/tutor/stream", "feature": "tutor_stream", "mode": "monitor",
     "allowance": {"firstDay": 14, "laterDays": 9}, "upstreamPath": "/tutor", "stream": True, "maxStreamSeconds": 8,
     "template": {"body": {"stream": True, "question": "{{question}}", "events": 10, "intervalMs": 120},
                  "variables": QUESTION}},
]
DEVICECHECK_KEY_ID = "DEMOKEY001"
DEMO_DEVICE = "7d444840-9dc0-41d1-b245-5ffdce74fad2"


def die_with_parent():
    """In the child, before exec: its own process group, and SIGTERM when run.py dies."""
    os.setsid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class Stack:
    def __init__(self, args):
        self.args = args
        self.state = args.state_dir
        self.processes = []  # (name, Popen), stopped in reverse order
        self.env = {  # what every bootstrap gets (docs/api.md section 5)
            "ATTESTGATE_ENV": "development",
            "TABLE_NAME": TABLE,
            "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "GATE_MODE": "monitor",
            "ROUTES": json.dumps(ROUTES, separators=(",", ":")),
            "AI_DAILY_CALL_CEILING": str(AI_DAILY_CALL_CEILING),
            "BUDGET_TIMEZONE": "UTC",
            "PAID_CLAIM": "plan=paid",
            "LOG_LEVEL": os.environ.get("LOG_LEVEL", "info"),
        }
        self.urls = {}

    def spawn(self, name, command, log=None, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=None):
        stderr = open(os.path.join(self.state, log), "ab") if log else None
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=stdin, env=env,
                                   preexec_fn=die_with_parent)
        self.processes.append((name, process))
        return process

    def stop(self):
        for name, process in reversed(self.processes):
            if process.poll() is not None:
                continue
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait()
        self.processes = []


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_in_use(port):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def read_line(process, name, timeout=30):
    """The first stdout line of a helper that announces itself, or exit with what went wrong."""
    result = []
    reader = threading.Thread(target=lambda: result.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if not result or not result[0]:
        sys.exit("%s did not start (see %s)" % (name, os.path.join("local-harness", ".state")))
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # keep draining
    return result[0].decode().strip()


# --- steps ---------------------------------------------------------------------------------------


def step_state(stack, args):
    """Keys and the synthetic CA, made once and reused (they are test material, never real keys)."""
    ca = os.path.join(stack.state, "ca")
    os.makedirs(ca, mode=0o700, exist_ok=True)
    root = subprocess.run([args.demo, "ca", "--dir", ca], check=True, capture_output=True, text=True).stdout.strip()
    service_account = os.path.join(stack.state, "google-service-account.json")
    if not os.path.exists(service_account):
        pem = subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                             check=True, capture_output=True, text=True).stdout
        document = {"type": "service_account", "project_id": "attestgate-local", "private_key_id": "local",
                    "client_email": "gate@attestgate-local.iam.gserviceaccount.com", "private_key": pem}
        with open(os.open(service_account, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
            json.dump(document, handle)
    devicecheck_key = os.path.join(stack.state, "devicecheck.p8")
    if not os.path.exists(devicecheck_key):  # a DeviceCheck key as Apple issues it: PKCS#8 P-256, PEM
        pem = subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                             check=True, capture_output=True, text=True).stdout
        with open(os.open(devicecheck_key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
            handle.write(pem)
    upstream_key = os.path.join(stack.state, "upstream-key")
    if not os.path.exists(upstream_key):
        with open(os.open(upstream_key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
            handle.write(secrets.token_hex(16) + "\n")
    stack.env.update({
        "APPLE_TEAM_ID": TEAM_ID, "APPLE_BUNDLE_IDS": BUNDLE_ID, "APP_ATTEST_ENVIRONMENT": "development",
        "APP_ATTEST_TRUST_ROOT": root,
        "ANDROID_PACKAGE": BUNDLE_ID, "ANDROID_CERT_SHA256": CERT_DIGEST,
        "GOOGLE_SERVICE_ACCOUNT_FILE": service_account, "UPSTREAM_API_KEY_FILE": upstream_key,
    })
    stack.devicecheck_key = devicecheck_key  # the bootstraps get it with the fake Apple (step_apple)
    stack.urls["ca"] = ca
    print("state              %s (synthetic Apple root: %s)" % (os.path.relpath(stack.state, ROOT),
                                                                  os.path.relpath(root, ROOT)))


def step_moto(stack, args):
    port = free_port()
    stack.spawn("moto", [sys.executable, os.path.join(HERE, "moto_server.py"), "-H", "127.0.0.1", "-p", str(port)],
                log="moto.log", stdout=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d" % port
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("moto did not start (see local-harness/.state/moto.log)")
    stack.env["DYNAMODB_ENDPOINT"] = url
    created = subprocess.run([args.attestgate, "table", "create"], env={**os.environ, **stack.env},
                             capture_output=True, text=True)
    if created.returncode != 0:
        sys.exit("attestgate table create failed: %s %s" % (created.stdout, created.stderr))
    print("DynamoDB (moto)    %s  table %s" % (url, TABLE))


def step_google(stack, args):
    process = stack.spawn("fake google", [sys.executable, os.path.join(HERE, "fake_google.py"), "--port", "0",
                                          "--service-account", stack.env["GOOGLE_SERVICE_ACCOUNT_FILE"]],
                          log="fake_google.log")
    line = read_line(process, "fake Google")
    url = "http://127.0.0.1:%s" % line.split()[-1]
    stack.env.update({"GOOGLE_TOKEN_ENDPOINT": url + "/token", "PLAY_INTEGRITY_ENDPOINT": url})
    stack.urls["google"] = url
    print("fake Google        %s  (verdicts: POST /control/verdict)" % url)


def step_apple(stack, args):
    """Apple's DeviceCheck two bits per physical device (device marks on, docs/gate.md "Device tiers")."""
    process = stack.spawn("fake apple", [sys.executable, os.path.join(HERE, "fake_apple.py"), "--port", "0",
                                         "--key", stack.devicecheck_key,
                                         "--key-id", DEVICECHECK_KEY_ID, "--team-id", TEAM_ID,
                                         # the receipt exchange signs RECEIPTs under the demo CA (risk metric)
                                         "--receipt-signer-dir", stack.urls["ca"]],
                          log="fake_apple.log")
    line = read_line(process, "fake Apple")
    url = "http://127.0.0.1:%s" % line.split()[-1]
    stack.env.update({"DEVICECHECK_KEY_ID": DEVICECHECK_KEY_ID, "DEVICECHECK_PRIVATE_KEY_FILE": stack.devicecheck_key,
                      "DEVICECHECK_ENDPOINT": url, "APP_ATTEST_RECEIPT_ENDPOINT": url, "DEVICE_MARKS": "on"})
    stack.urls["apple"] = url
    print("fake Apple         %s  (DeviceCheck two bits per physical device: GET /control/stats)" % url)


def step_upstream(stack, args):
    process = stack.spawn("fake upstream", [sys.executable, os.path.join(HERE, "fake_upstream.py"),
                                            "--key-file", stack.env["UPSTREAM_API_KEY_FILE"]],
                          log="fake_upstream.log")
    url = json.loads(read_line(process, "fake upstream"))["url"]
    stack.env["UPSTREAM_URL"] = url
    stack.urls["upstream"] = url
    print("fake upstream AI   %s  (fail on demand: POST /control/fail)" % url)


def stream_instances(routes_json, wanted):
    """The stream pool's size: `wanted` when a route streams (its own function in infra/, so streams held
    open never take the guests' executions), else 0."""
    routes = json.loads(routes_json or "[]")
    return wanted if any(isinstance(r, dict) and r.get("stream") is True for r in routes) else 0


def step_lambda(stack, args):
    streams = stream_instances(stack.env.get("ROUTES"), args.stream_instances)
    command = [sys.executable, os.path.join(HERE, "lambda_harness.py"), "--bootstrap", args.bootstrap,
               "--instances", str(args.instances), "--signed-in-instances", str(args.signed_in_instances),
               "--stream-instances", str(streams),
               "--http-port", str(args.port), "--deadline-ms", str(args.deadline_ms)]
    for key, value in sorted(stack.env.items()):
        command += ["--env", "%s=%s" % (key, value)]
    # stdin stays a pipe: the harness stops by itself when this script goes away.
    process = stack.spawn("lambda harness", command, log="bootstrap.log", stdin=subprocess.PIPE)
    info = json.loads(read_line(process, "lambda harness") or "{}")
    stack.urls.update({"front": info["http"], "harness": info["control"], "stream": info["functionURL"]})
    # The bootstraps read their configuration at cold start: an init error shows here, not mid-session.
    for _ in range(50):
        instances = json.load(urllib.request.urlopen(info["control"] + "/instances", timeout=2))
        errors = json.load(urllib.request.urlopen(info["control"] + "/init-errors", timeout=2))
        if errors or not all(instance["running"] for instance in instances):
            sys.exit("bootstrap failed to start: %s (see local-harness/.state/bootstrap.log)" % json.dumps(errors))
        time.sleep(0.02)
    print("API (HTTP API 2.0) %s  <- the real bootstrap x%d for guests, x%d for signed-in callers" % (
        info["http"], args.instances, args.signed_in_instances))
    if streams:
        print("Function URL       %s  <- the real bootstrap x%d for streamed routes (more at once: 429)" % (
            info["functionURL"], streams))
    print("harness control    %s  (GET /logs, /instances)" % info["control"])


def step_session(stack, args):
    if args.script == 0:
        return
    command = [args.demo, "session", "--front", stack.urls["front"], "--harness", stack.urls["harness"],
               "--google", stack.urls["google"], "--upstream", stack.urls["upstream"], "--ca", stack.urls["ca"],
               "--apple", stack.urls["apple"],
               "--cert-digest", CERT_DIGEST, "--team-id", TEAM_ID, "--bundle-id", BUNDLE_ID,
               "--budget", str(AI_DAILY_CALL_CEILING), "--allowance", str(GENERATION_ALLOWANCE)]
    if args.check:
        command.append("--check")
    print("\nScripted session (attestgate-demo, Tools/attestgate-demo): each line is who, what, expected, got")
    sys.stdout.flush()
    started = time.time()
    status = subprocess.run(command, env={**os.environ, **stack.env}).returncode
    print("\nsession: %s in %.1f s" % ("every step as expected" if status == 0 else "SOME STEPS NOT AS EXPECTED",
                                      time.time() - started))
    stack.session_status = status


STEPS = [step_state, step_moto, step_google, step_apple, step_upstream, step_lambda, step_session]


def print_serving(stack):
    front = stack.urls["front"]
    print("""
Serving on %(front)s until Ctrl-C. Bootstrap logs: tail -f %(logs)s
%(note)s
  # 1. a challenge for a device ID
  curl -s -X POST %(front)s/v1/attest/challenge -H 'X-Device-ID: %(device)s'

  # 2. generate without proof: the generate route enforces attestation -> 403 attestation_required
  curl -s -X POST %(front)s/v1/generate -H 'X-Device-ID: %(device)s' -d '{"variables":{"text":"ATP is energy.","cards":1}}'

  # 3. a paying signed-in user (the harness turns this header into JWT authorizer claims) -> 200 cards
  curl -s -X POST %(front)s/v1/generate -H 'X-Harness-JWT-Claims: {"sub":"me","plan":"paid"}' \\
       -d '{"variables":{"text":"Mitochondria make ATP. Ribosomes build proteins.","cards":2}}'

  # 4. a streamed tutor answer, event by event, through the Function URL (docs/streaming.md)
  curl -N -X POST %(stream)s/v1/tutor/stream -H 'X-Device-ID: %(device)s' \\
       -d '{"variables":{"question":"Why is the sky blue?"}}'
""" % {"front": front, "stream": stack.urls.get("stream", front), "device": DEMO_DEVICE, "logs": os.path.relpath(os.path.join(stack.state, "bootstrap.log")),
       "note": "(The session spent today's ceiling: unpaid calls now answer 503 daily_budget_exhausted until the\n"
               "next `make run`, whose moto starts empty. These three still answer as described.)\n"
               if stack.args.script else ""})
    sys.stdout.flush()


def take_lock(state):
    """One interactive `make run` at a time: the lock lives as long as the process holding it."""
    path = os.path.join(state, "run.lock")
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        try:
            holder = json.loads(handle.read() or "{}")
        except ValueError:
            holder = {}
        sys.stderr.write("make run is already running (pid %s, serving %s).\n"
                         "Use that one, or stop it with Ctrl-C in its terminal (or `kill %s`) and run again.\n"
                         % (holder.get("pid", "?"), holder.get("front", "?"), holder.get("pid", "<pid>")))
        sys.exit(1)
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps({"pid": os.getpid(), "front": "(starting)"}))
    handle.flush()
    return handle


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    release = os.path.join(ROOT, ".build", "release")
    parser.add_argument("--bootstrap", default=os.path.join(release, "bootstrap"))
    parser.add_argument("--attestgate", default=os.path.join(release, "attestgate"))
    parser.add_argument("--demo", default=os.path.join(release, "attestgate-demo"))
    parser.add_argument("--port", type=int, default=8080, help="HTTP front port (default 8080; 0 = any)")
    parser.add_argument("--instances", type=int, default=2, help="guest bootstrap processes (default 2)")
    parser.add_argument("--signed-in-instances", type=int, default=1,
                        help="bootstrap processes of the signed-in pool (default 1; 0 = one pool for all)")
    parser.add_argument("--stream-instances", type=int, default=2,
                        help="bootstrap processes of the stream pool when a route streams (default 2)")
    parser.add_argument("--deadline-ms", type=int, default=10000, help="per-invocation deadline")
    parser.add_argument("--script", type=int, choices=(0, 1), default=1, help="play the scripted session (1)")
    parser.add_argument("--check", action="store_true", help="exit after the session with its status")
    parser.add_argument("--state-dir", default=None, help="state folder (default local-harness/.state)")
    args = parser.parse_args(argv)
    for path in (args.bootstrap, args.attestgate, args.demo):
        if not os.access(path, os.X_OK):
            sys.exit("missing %s: run `make build` (make run does it)" % path)
    throwaway = None
    if args.check:
        args.script, args.port = 1, 0
        throwaway = args.state_dir = args.state_dir or tempfile.mkdtemp(prefix="attestgate-run-check-")
    args.state_dir = os.path.abspath(args.state_dir or DEFAULT_STATE)
    os.makedirs(args.state_dir, mode=0o700, exist_ok=True)

    lock = None if args.check else take_lock(args.state_dir)
    if args.port and port_in_use(args.port):
        sys.exit("port %d on 127.0.0.1 is already in use by another program; try `make run PORT=8081`" % args.port)

    stack = Stack(args)
    stack.session_status = 0
    # The handlers only set a flag, with no lock: a handler runs on the main thread between two bytecodes,
    # possibly while that thread holds an Event's lock inside `wait`, where `set()` would wait on itself.
    signalled = []
    signal.signal(signal.SIGINT, lambda *_: signalled.append(True))
    signal.signal(signal.SIGTERM, lambda *_: signalled.append(True))
    # If whoever started us (make) is killed without us seeing Ctrl-C, stop as well (SIGTERM above).
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    try:
        for step in STEPS:
            if signalled:
                break
            step(stack, args)
        if lock is not None:
            lock.seek(0)
            lock.truncate()
            lock.write(json.dumps({"pid": os.getpid(), "front": stack.urls.get("front")}))
            lock.flush()
        if args.check:
            return stack.session_status
        print_serving(stack)
        while not signalled:
            time.sleep(0.2)
        print("\nstopping: %s" % ", ".join(name for name, _ in reversed(stack.processes)))
    finally:
        stack.stop()
        if throwaway:
            shutil.rmtree(throwaway, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
