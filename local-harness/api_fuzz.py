#!/usr/bin/env python3
"""`make api-fuzz`: the API fuzzed from its own description (docs/openapi.yaml) with schemathesis.

Starts the local stack of `make run` without the scripted session, on free ports with a throw-away state
folder (run.py's steps: moto and the table, the fake Google, the fake upstream, lambda_harness.py with the
real `bootstrap`), then runs schemathesis against its HTTP front with a bounded number of examples per
operation and these checks (docs/api.md section 2):

  - schemathesis's conformance checks: every status code, content type, header and body is the one
    docs/openapi.yaml documents for the operation; unknown methods answer 405 with `Allow`; a request
    that breaks the document (a missing required header, a body of the wrong shape) is refused with a 4xx;
  - the stateful phase follows the document's links: a challenge from /v1/attest/challenge goes into the
    same device's metered call or key registration, a metered answer's next challenge into the next call;
  - only_documented_server_errors: a 5xx is one of AttestGate's own documented answers, exactly;
  - never_admitted_on_enforce: no generated request gets past layer 1 of the enforce route
    (`/v1/generate` here; the tutor route is in monitor mode, so it reaches the allowance, the ceiling and
    the fake provider).

After the pass, from the stack itself: no invocation crashed or missed its deadline, no bootstrap
restarted, and no decision line of the enforce route's feature admitted a call.

Usage: api_fuzz.py --schemathesis PATH [--examples N] [--bootstrap B --attestgate A --demo D]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run  # noqa: E402  (the stack's steps)

ENFORCE_PATH = "/v1/generate"
ENFORCE_FEATURE = "generation"
# --control: the same checks aimed at the monitor route, which does admit calls; the pass must fail.
CONTROL_PATH_PREFIX = "/v1/tutor/"
CONTROL_FEATURE = "tutor"
# Decisions that mean a call got past layer 1 (MeteredCall's decision labels).
ADMITTED = {"pass", "would_block", "skipped", "quota_exhausted", "budget_exhausted", "upstream_unavailable"}
CHECKS = ["negative_data_rejection", "missing_required_header", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
          "response_schema_conformance", "unsupported_method", "allow_header_conformance",
          "only_documented_server_errors", "never_admitted_on_enforce"]


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


def stack_findings(control, enforce_feature):
    """What the stack saw during the pass: crashes, timeouts, restarts, admissions on the enforce route."""
    findings = []
    outcomes = {}
    for invocation in get_json(control + "/invocations"):
        outcomes[invocation.get("outcome")] = outcomes.get(invocation.get("outcome"), 0) + 1
    for outcome in ("error", "timeout", "no_instance"):
        if outcomes.get(outcome):
            findings.append("%d invocations ended in %s" % (outcomes[outcome], outcome))
    for instance in get_json(control + "/instances"):
        if instance.get("restarts") or not instance.get("running"):
            findings.append("a bootstrap restarted or stopped: %s" % json.dumps(instance))
    decisions = 0
    statuses = {}
    for line in get_json(control + "/logs"):
        text = line.get("line", line) if isinstance(line, dict) else line
        start = text.find("{")
        if start < 0:
            continue
        try:
            record = json.loads(text[start:])
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("logger") != "attestgate.decision":
            continue
        decisions += 1
        key = "%s %s" % (record.get("route"), record.get("status"))
        statuses[key] = statuses.get(key, 0) + 1
        if record.get("route") == enforce_feature and (record.get("decision") in ADMITTED
                                                       or "quotaRemaining" in record):
            findings.append("the enforce route admitted a generated request: %s" % text[start:][:300])
    if decisions == 0:
        findings.append("no decision line was logged: the pass reached no metered route")
    return findings, outcomes, statuses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    release = os.path.join(ROOT, ".build", "release")
    parser.add_argument("--schemathesis", required=True, help="the schemathesis executable (its own venv)")
    parser.add_argument("--bootstrap", default=os.path.join(release, "bootstrap"))
    parser.add_argument("--attestgate", default=os.path.join(release, "attestgate"))
    parser.add_argument("--demo", default=os.path.join(release, "attestgate-demo"))
    parser.add_argument("--examples", type=int, default=40, help="examples per operation and phase (40)")
    parser.add_argument("--seed", type=int, default=None, help="schemathesis seed (random by default)")
    parser.add_argument("--report-dir", default=os.path.join(ROOT, "build", "api-fuzz"))
    parser.add_argument("--control", action="store_true",
                        help="aim the enforce checks at the monitor route: the pass must fail (self-test)")
    args = parser.parse_args(argv)
    for path in (args.bootstrap, args.attestgate, args.demo, args.schemathesis):
        if not os.access(path, os.X_OK):
            sys.exit("missing %s (make api-fuzz builds the binaries and the venv)" % path)

    state = tempfile.mkdtemp(prefix="attestgate-api-fuzz-")
    stack_args = argparse.Namespace(bootstrap=args.bootstrap, attestgate=args.attestgate, demo=args.demo,
                                    port=0, instances=2, signed_in_instances=1, stream_instances=2,
                                    deadline_ms=10000, script=0,
                                    check=True,
                                    state_dir=state)
    stack = run.Stack(stack_args)
    # Enough ceiling for the monitor route to reach the provider for a while, then 503 daily_budget_exhausted.
    stack.env["AI_DAILY_CALL_CEILING"] = "20"
    status = 1
    try:
        for step in (run.step_state, run.step_moto, run.step_google, run.step_upstream, run.step_lambda):
            step(stack, stack_args)
        front, control = stack.urls["front"], stack.urls["harness"]
        # The provider's first answers fail, so the documented 502 upstream_unavailable is met too.
        urllib.request.urlopen(urllib.request.Request(stack.urls["upstream"] + "/control/fail",
                                                      data=b'{"status":503,"count":3}', method="POST"), timeout=5)
        os.makedirs(args.report_dir, exist_ok=True)
        command = [args.schemathesis, "run", os.path.join(ROOT, "docs", "openapi.yaml"), "--url", front,
                   "--checks", ",".join(CHECKS), "--max-examples", str(args.examples),
                   "--phases", "examples,coverage,fuzzing,stateful", "--workers", "1", "--request-timeout", "15",
                   "--suppress-health-check", "all", "--no-color", "--report", "junit",
                   "--report-dir", args.report_dir]
        if args.seed is not None:
            command += ["--seed", str(args.seed)]
        enforce_path, enforce_feature = ENFORCE_PATH, ENFORCE_FEATURE
        if args.control:
            enforce_path, enforce_feature = CONTROL_PATH_PREFIX, CONTROL_FEATURE
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "api_fuzz_checks", "API_FUZZ_ENFORCE_PATH": enforce_path,
               "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
        print("api-fuzz: schemathesis against %s (docs/openapi.yaml, %d examples per operation)"
              % (front, args.examples))
        sys.stdout.flush()
        started = time.time()
        # Its cache (.schemathesis/) goes with the reports, out of the work tree.
        status = subprocess.run(command, env=env, cwd=args.report_dir).returncode
        findings, outcomes, statuses = stack_findings(control, enforce_feature)
        print("api-fuzz: %d invocations %s in %.0f s; metered answers by route and status: %s"
              % (sum(outcomes.values()), json.dumps(outcomes, sort_keys=True), time.time() - started,
                 json.dumps(statuses, sort_keys=True)))
        for finding in findings:
            print("api-fuzz: FAILED: " + finding)
        if findings:
            status = status or 1
        if status != 0:
            print("api-fuzz: bootstrap logs kept in %s/bootstrap.log" % state)
    finally:
        stack.stop()
        if status == 0:
            shutil.rmtree(state, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
