#!/usr/bin/env python3
"""`make run`: the local stack on 127.0.0.1 until Ctrl-C.

Today: moto (DynamoDB, with the table created by `attestgate table create`), a fake upstream AI API,
then the Lambda harness (Runtime API + HTTP front) running the release `bootstrap`. Each component is a step in `STEPS`, so later issues add theirs (moto for DynamoDB, fake
Google/Apple endpoints, a scripted session) without reshaping this file.
"""
import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import socket
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STATE = os.path.join(HERE, ".state")


def start(command, name):
    """Starts a helper that prints one JSON line {"ready": true, ...} and returns (process, that line)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.PIPE)
    line = process.stdout.readline()
    if not line:
        sys.exit("%s did not start" % name)
    info = json.loads(line)

    def drain():
        for _ in process.stdout:
            pass
    threading.Thread(target=drain, daemon=True).start()
    return process, info


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def step_moto(stack, args):
    """DynamoDB on loopback (moto, each request atomic) and the table of design.md section 6."""
    port = free_port()
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "moto_server.py"), "-H", "127.0.0.1",
                                "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stack["processes"].append(process)
    endpoint = "http://127.0.0.1:%d" % port
    for _ in range(300):
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
            break
        except OSError:
            if process.poll() is not None:
                sys.exit("moto did not start (make setup installs it)")
            time.sleep(0.1)
    stack["env"].update({
        "DYNAMODB_ENDPOINT": endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
    })
    env = dict(os.environ)
    env.update(stack["env"])
    created = subprocess.run([args.attestgate, "table", "create", "--table", stack["env"]["TABLE_NAME"]],
                             env=env, capture_output=True, text=True)
    if created.returncode != 0:
        sys.exit("table create failed: %s %s" % (created.stdout, created.stderr))
    print("DynamoDB (moto)    %s  table %s" % (endpoint, stack["env"]["TABLE_NAME"]))


def step_upstream(stack, args):
    key_file = os.path.join(STATE, "upstream-key")
    if not os.path.exists(key_file):
        with open(key_file, "w") as handle:
            handle.write(secrets.token_hex(16) + "\n")
    process, info = start([sys.executable, os.path.join(HERE, "fake_upstream.py"), "--key-file", key_file],
                          "fake upstream")
    stack["processes"].append(process)
    stack["env"].update({"UPSTREAM_URL": info["url"], "UPSTREAM_API_KEY_FILE": key_file})
    print("fake upstream      %s" % info["url"])


def step_lambda(stack, args):
    command = [sys.executable, os.path.join(HERE, "lambda_harness.py"), "--bootstrap", args.bootstrap,
               "--instances", str(args.instances), "--http-port", str(args.port),
               "--deadline-ms", str(args.deadline_ms)]
    for key, value in sorted(stack["env"].items()):
        command += ["--env", "%s=%s" % (key, value)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.PIPE)
    info = json.loads(process.stdout.readline() or b"{}")
    if not info.get("ready"):
        sys.exit("lambda harness did not start")
    stack["processes"].append(process)
    print("API (HTTP API 2.0) %s" % info["http"])
    print("harness control    %s" % info["control"])
    print("\ntry:  curl -s -X POST %s/v1/generate -H 'X-Device-ID: %s' -d '{\"prompt\":\"hi\"}'"
          % (info["http"], "7d444840-9dc0-11d1-b245-5ffdce74fad2"))


# Later issues append steps here (moto, fake Google/Apple, table creation, scripted session).
STEPS = [step_moto, step_upstream, step_lambda]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default=os.path.join(ROOT, ".build", "release", "bootstrap"))
    parser.add_argument("--attestgate", default=os.path.join(ROOT, ".build", "release", "attestgate"))
    parser.add_argument("--port", type=int, default=8080, help="HTTP front port (default 8080)")
    parser.add_argument("--instances", type=int, default=2, help="bootstrap processes (default 2)")
    parser.add_argument("--deadline-ms", type=int, default=10000, help="per-invocation deadline")
    args = parser.parse_args(argv)
    os.makedirs(STATE, exist_ok=True)
    stack = {
        "processes": [],
        "env": {
            "ATTESTGATE_ENV": "development",
            "TABLE_NAME": "attestgate-local",
            "AWS_REGION": "us-east-1",
            "GATE_MODE": "off",
            "LOG_LEVEL": os.environ.get("LOG_LEVEL", "info"),
        },
    }
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        for step in STEPS:
            step(stack, args)
        print("\nserving on 127.0.0.1 until Ctrl-C")
        stop.wait()
    finally:
        for process in reversed(stack["processes"]):
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
