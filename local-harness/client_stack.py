#!/usr/bin/env python3
"""Runs a command against the local stack a client library is tested on, then stops the stack.

    local-harness/client_stack.py --bootstrap BIN --routes ROUTES.json [--ceiling-budget N] [--debug-tokens] \
        [--app-attest DEMO] -- COMMAND ...

The stack is run.py's, piece by piece (its helpers: processes in their own groups, stopped on exit, on a
signal, or when this script dies): moto with the table, fake_google.py (OAuth + Play Integrity decode),
fake_upstream.py, and lambda_harness.py with the real `bootstrap`, on free loopback ports and a throw-away
state folder. Without --app-attest it has no App Attest and no DeviceCheck (no synthetic Apple CA, so no
attestgate-demo is needed): Play Integrity is the only provider, as for an Android app. With
--app-attest DEMO (the attestgate-demo executable) it makes a synthetic Apple CA with `DEMO ca` and the
bootstraps trust it (APP_ATTEST_TRUST_ROOT, development keys of run.py's team and bundle id), so that a
client whose Secure Enclave is `DEMO enclave --ca $ATTESTGATE_CA` registers keys and proves calls; device
marks stay off (a registration's DeviceCheck token is checked for shape only).

Two fronts, each with its own table in the same moto, so that the daily ceiling (environment-wide) can be
spent without touching the other tests:
  main     ROUTES from --routes, no daily ceiling (AI_DAILY_CALL_CEILING=0)
  ceiling  the same routes with AI_DAILY_CALL_CEILING=--ceiling-budget (only with that option)
With --debug-tokens both have DEBUG_TOKENS=on: X-Debug-Token is layer-1 proof (docs/clients.md, "Debug
tokens"), and ATTESTGATE_CLI makes the tokens.

COMMAND runs with these variables (and exits with its status):
  ATTESTGATE_FRONT, ATTESTGATE_CEILING_FRONT   the HTTP API fronts (the second one only with a ceiling)
  ATTESTGATE_HARNESS                           the main harness's control URL (GET /logs, /invocations)
  ATTESTGATE_GOOGLE                            fake Google (POST /control/verdict registers a verdict)
  ATTESTGATE_UPSTREAM                          fake upstream (POST /control/fail)
  ATTESTGATE_DYNAMODB, ATTESTGATE_TABLE        moto and the main front's table
  ATTESTGATE_PACKAGE, ATTESTGATE_CERT_DIGEST   what the verdicts must name (ANDROID_PACKAGE, ANDROID_CERT_SHA256)
  ATTESTGATE_CLI                               the operator CLI (`attestgate`, the bootstrap under that name)
                                               with the main front's environment: `$ATTESTGATE_CLI debug-token
                                               create --name ci --expires 1d` acts on the main front's table
  ATTESTGATE_DEBUG_TOKENS                      `on` with --debug-tokens
and, with --app-attest:
  ATTESTGATE_DEMO, ATTESTGATE_CA               the demo executable and the synthetic CA's folder (`DEMO enclave --ca`)
  ATTESTGATE_TEAM_ID, ATTESTGATE_BUNDLE_ID     the App ID the bootstraps accept (APPLE_TEAM_ID, APPLE_BUNDLE_IDS)
"""
import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (run.py's Stack, steps and helpers)

PACKAGE = "com.example.flashcards"
CEILING_TABLE = "attestgate-local-ceiling"


def make_state(stack):
    """The Google service-account key and the upstream key (test material, made per run)."""
    service_account = os.path.join(stack.state, "google-service-account.json")
    pem = subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                         check=True, capture_output=True, text=True).stdout
    document = {"type": "service_account", "project_id": "attestgate-local", "private_key_id": "local",
                "client_email": "gate@attestgate-local.iam.gserviceaccount.com", "private_key": pem}
    with open(os.open(service_account, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
        json.dump(document, handle)
    upstream_key = os.path.join(stack.state, "upstream-key")
    with open(os.open(upstream_key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
        handle.write(os.urandom(16).hex() + "\n")
    stack.env.update({"ANDROID_PACKAGE": PACKAGE, "ANDROID_CERT_SHA256": run.CERT_DIGEST,
                      "GOOGLE_SERVICE_ACCOUNT_FILE": service_account, "UPSTREAM_API_KEY_FILE": upstream_key})


def write_cli(state, attestgate, env):
    """A script that runs `attestgate` with the front's environment `env` (the settings the CLI reads, as
    `attestgate config check` does); returns its path."""
    path = os.path.join(state, "attestgate-main")
    lines = ["#!/bin/sh", "# attestgate with the main front's environment (client_stack.py)"]
    lines += ["export %s=%s" % (key, shlex.quote(value)) for key, value in sorted(env.items())]
    lines.append('exec %s "$@"' % shlex.quote(attestgate))
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o700), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def trust_simulated_ca(stack, demo):
    """A synthetic Apple CA (`attestgate-demo ca`), trusted by the bootstraps for development keys."""
    ca = os.path.join(stack.state, "ca")
    os.makedirs(ca, mode=0o700)
    root = subprocess.run([demo, "ca", "--dir", ca], check=True, capture_output=True, text=True).stdout.strip()
    stack.env.update({"APPLE_TEAM_ID": run.TEAM_ID, "APPLE_BUNDLE_IDS": run.BUNDLE_ID,
                      "APP_ATTEST_ENVIRONMENT": "development", "APP_ATTEST_TRUST_ROOT": root})
    return ca


def start_front(stack, args, env):
    """One lambda_harness.py with the given bootstrap environment; returns (front, control)."""
    saved = stack.env
    stack.env = env
    try:
        run.step_lambda(stack, args)
    finally:
        stack.env = saved
    return stack.urls["front"], stack.urls["harness"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True, help="the bootstrap executable (release build)")
    parser.add_argument("--routes", required=True, help="JSON file: the ROUTES list of the fronts")
    parser.add_argument("--ceiling-budget", type=int, default=0,
                        help="start a second front with this AI_DAILY_CALL_CEILING (0: none)")
    parser.add_argument("--instances", type=int, default=2, help="bootstraps of the main front (default 2)")
    parser.add_argument("--deadline-ms", type=int, default=10000, help="per-invocation deadline")
    parser.add_argument("--app-attest", metavar="DEMO", default=None,
                        help="the attestgate-demo executable: App Attest against its synthetic CA")
    parser.add_argument("--debug-tokens", action="store_true",
                        help="DEBUG_TOKENS=on: the fronts take X-Debug-Token (made with $ATTESTGATE_CLI)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (after --)")
    if not os.access(args.bootstrap, os.X_OK):
        sys.exit("missing %s: run `make build`" % args.bootstrap)
    with open(args.routes) as handle:
        routes = json.load(handle)

    state = tempfile.mkdtemp(prefix="attestgate-client-stack-")
    # `attestgate` is the bootstrap under another name (the operator CLI: `attestgate table create`).
    attestgate = os.path.join(state, "attestgate")
    os.symlink(os.path.abspath(args.bootstrap), attestgate)
    # run.py's steps read these: one pool per front, any free port; streamed routes stay in the guest pool
    # (no Function URL pool: the clients' streams go through the HTTP front, as on a route without one).
    args.attestgate, args.port, args.signed_in_instances, args.state_dir = attestgate, 0, 0, state
    args.stream_instances = 0
    stack = run.Stack(args)
    stack.env["ROUTES"] = json.dumps(routes, separators=(",", ":"))
    stack.env["AI_DAILY_CALL_CEILING"] = "0"
    stack.env.pop("PAID_CLAIM", None)
    if args.debug_tokens:
        stack.env["DEBUG_TOKENS"] = "on"
    # SIGTERM unwinds through `finally` (subprocess.run kills the command on the way).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    status = 1
    try:
        make_state(stack)
        ca = trust_simulated_ca(stack, args.app_attest) if args.app_attest else None
        run.step_moto(stack, args)
        run.step_google(stack, args)
        run.step_upstream(stack, args)
        front, control = start_front(stack, args, dict(stack.env))
        variables = {
            "ATTESTGATE_FRONT": front, "ATTESTGATE_HARNESS": control,
            "ATTESTGATE_GOOGLE": stack.urls["google"], "ATTESTGATE_UPSTREAM": stack.urls["upstream"],
            "ATTESTGATE_DYNAMODB": stack.env["DYNAMODB_ENDPOINT"], "ATTESTGATE_TABLE": stack.env["TABLE_NAME"],
            "ATTESTGATE_PACKAGE": PACKAGE, "ATTESTGATE_CERT_DIGEST": run.CERT_DIGEST,
            "ATTESTGATE_CLI": write_cli(state, attestgate, stack.env),
        }
        if args.debug_tokens:
            variables["ATTESTGATE_DEBUG_TOKENS"] = "on"
        if ca:
            variables.update({"ATTESTGATE_DEMO": os.path.abspath(args.app_attest), "ATTESTGATE_CA": ca,
                              "ATTESTGATE_TEAM_ID": run.TEAM_ID, "ATTESTGATE_BUNDLE_ID": run.BUNDLE_ID})
        if args.ceiling_budget > 0:
            ceiling = dict(stack.env, TABLE_NAME=CEILING_TABLE, AI_DAILY_CALL_CEILING=str(args.ceiling_budget))
            created = subprocess.run([attestgate, "table", "create"], env={**os.environ, **ceiling},
                                     capture_output=True, text=True)
            if created.returncode != 0:
                sys.exit("attestgate table create failed: %s %s" % (created.stdout, created.stderr))
            args.instances = 1
            variables["ATTESTGATE_CEILING_FRONT"], _ = start_front(stack, args, ceiling)
        sys.stdout.flush()
        status = subprocess.run(command, env={**os.environ, **variables}).returncode
    finally:
        stack.stop()
        shutil.rmtree(state, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
