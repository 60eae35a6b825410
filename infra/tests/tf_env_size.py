#!/usr/bin/env python3
"""Evaluate infra/'s 4 KB environment precondition with Terraform itself, offline (needs a `terraform` binary,
no provider download, no cloud).

A scratch module gets infra/variables.tf as it is (types, defaults, validations), the locals that build
`local.function_environment` from infra/locals.tf with every AWS resource reference replaced by a string of
a real one's length, and the environment-size precondition of infra/lambda.tf on a `terraform_data` (built
into Terraform). `terraform plan` then runs it twice on a fully configured deployment
(check_tf.EXAMPLE_ENVIRONMENT's identities): with the default routes it must pass, with check_tf's large
example routes it must stop with the precondition's error. Then a route carrying every route field of
docs/api.md section 5 must come out of Terraform's conversion to the `routes` type with all of them in
ROUTES (a field the type lacks is dropped without a word).

  tf_env_size.py            exit 1 unless the default passes, the large table is refused and no field is lost
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_tf  # noqa: E402
import tfload  # noqa: E402

STAND_INS = {
    "aws_dynamodb_table.main.name": check_tf.EXAMPLE_ENVIRONMENT["TABLE_NAME"],
    "aws_secretsmanager_secret.google_service_account.arn":
        check_tf.EXAMPLE_ENVIRONMENT["GOOGLE_SERVICE_ACCOUNT_SECRET_ARN"],
    "aws_secretsmanager_secret.devicecheck_key[0].arn": check_tf.EXAMPLE_ENVIRONMENT["DEVICECHECK_PRIVATE_KEY_SECRET_ARN"],
    "aws_secretsmanager_secret.upstream_api_key.arn": check_tf.EXAMPLE_ENVIRONMENT["UPSTREAM_API_KEY_SECRET_ARN"],
}
LOCALS = (
    "routes_json", "devicecheck_enabled", "ai_daily_call_ceiling", "ai_daily_cost_ceiling_usd",
    "ai_daily_unproven_call_ceiling", "ai_daily_unproven_cost_ceiling_usd", "function_environment",
)

# One value per route field of docs/api.md section 5 (types as the contract gives them); a field of the
# contract without one here is a failure, so a new field is carried through Terraform too.
FIELD_SAMPLES = {
    "method": "POST", "path": "/v1/everything", "feature": "everything", "mode": "enforce", "binding": "challenge",
    "onUnavailable": "deny", "allowance": {"firstDay": 3, "laterDays": 2}, "upstreamPath": "/v1/chat/completions",
    "maxResponseBytes": 65536, "maxRequestBytes": 1048576, "upstreamTimeoutMs": 9000, "release": "unbilled",
    "releaseStatuses": [429, 503], "dialect": "openai-chat", "models": ["gpt-4.1-mini"], "maxOutputTokens": 512,
    "maxInputTokens": 4000, "prices": {"gpt-4.1-mini": {"inputPerMTok": 0.4, "outputPerMTok": 1.6}},
    "deviceCheckFallback": True, "repeatAllowance": {"firstDay": 1, "laterDays": 0}, "onUnknownDevice": "first",
    "unproven": {"allowance": {"firstDay": 1, "laterDays": 1}}, "maxDeviceActivity": "LEVEL_2", "stream": False,
    "maxStreamSeconds": 60, "maxStreamBytes": 1048576, "requireStrongIntegrity": True, "allowFields": ["prediction"],
    "template": {"body": {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "{{topic}}"}]},
                 "variables": {"topic": {"type": "string", "maxLength": 100}}},
}

# A fully configured deployment, as check_tf.EXAMPLE_ENVIRONMENT describes it.
EXAMPLE_VARS = {
    "upstream_url": "https://api.openai.com",
    "apple_team_id": "ABCDE12345",
    "apple_bundle_ids": ["com.example.flashcards", "com.example.flashcards.beta"],
    "android_package": "com.example.flashcards",
    "android_cert_sha256": [":".join(["AB"] * 32)],
    "devicecheck_key_id": "KEY1234567",
    "device_marks": "on",
    "device_mark_months": 6,
    "risk_metric_max": 10,
    "play_device_recall": "on",
    "ai_daily_cost_ceiling_usd": "25",
    "ai_daily_unproven_call_ceiling": 500,
    "ai_daily_unproven_cost_ceiling_usd": "2.5",
    "budget_timezone": "Europe/Berlin",
    "paid_claim": "plan=pro",
}


def local_text(source: str, name: str) -> str:
    """The text of `name = ...` in a locals block: up to the next line at the same indentation."""
    match = re.search(rf"^(  ){name}\s*=.*?(?=^  [a-z_]+\s*=|^  #|^\}})", source, re.M | re.S)
    if not match:
        raise SystemExit(f"tf_env_size: no local {name} in infra/locals.tf")
    return match.group(0).rstrip() + "\n"


def size_precondition(source: str) -> str:
    match = re.search(r"^\s*precondition \{\s*condition\s*=\s*sum\(\[for k, v in local\.function_environment.*?^\s*\}\n",
                      source, re.M | re.S)
    if not match:
        raise SystemExit("tf_env_size: no environment-size precondition in infra/lambda.tf")
    return match.group(0)


def scratch_module(directory: pathlib.Path) -> None:
    infra = tfload.INFRA
    shutil.copy(infra / "variables.tf", directory / "variables.tf")
    locals_source = (infra / "locals.tf").read_text()
    body = "".join(local_text(locals_source, name) for name in LOCALS)
    for reference, value in STAND_INS.items():
        body = body.replace(reference, json.dumps(value))
    leftover = re.findall(r"\baws_[a-z0-9_]+\.[a-z0-9_]+", body)
    if leftover:
        raise SystemExit(f"tf_env_size: no stand-in for {sorted(set(leftover))}")
    precondition = size_precondition((infra / "lambda.tf").read_text())
    (directory / "main.tf").write_text(
        "locals {\n  name = \"stand-in\"\n" + body + "}\n\n"
        "resource \"terraform_data\" \"function\" {\n  input = local.function_environment\n"
        "  lifecycle {\n" + precondition + "  }\n}\n")


def plan(directory: pathlib.Path, variables: dict) -> subprocess.CompletedProcess:
    (directory / "example.tfvars.json").write_text(json.dumps(variables))
    return subprocess.run(["terraform", f"-chdir={directory}", "plan", "-input=false", "-no-color",
                           "-var-file=example.tfvars.json"], capture_output=True, text=True, timeout=300)


def console(directory: pathlib.Path, expression: str):
    """Evaluates `expression` (which must yield a JSON string) with the example variables; None on failure."""
    result = subprocess.run(["terraform", f"-chdir={directory}", "console", "-var-file=example.tfvars.json"],
                            input=expression + "\n", capture_output=True, text=True, timeout=300)
    try:
        return json.loads(json.loads(result.stdout.strip()))
    except (json.JSONDecodeError, TypeError):
        print(result.stdout + result.stderr, file=sys.stderr)
        return None


def main() -> int:
    if not shutil.which("terraform"):
        print("tf_env_size: terraform not installed, skipped (check_tf.py applies the same formula in Python)")
        return 0
    problems = []
    with tempfile.TemporaryDirectory(prefix="attestgate-envsize-") as name:
        directory = pathlib.Path(name)
        scratch_module(directory)
        init = subprocess.run(["terraform", f"-chdir={directory}", "init", "-input=false", "-no-color"],
                              capture_output=True, text=True, timeout=300)
        if init.returncode != 0:
            print(init.stdout + init.stderr, file=sys.stderr)
            return 1
        default = plan(directory, EXAMPLE_VARS)
        if default.returncode != 0:
            problems.append("the default routes were refused:\n" + default.stdout + default.stderr)
        else:
            print("tf_env_size: default routes, fully configured: plan passes")
        large = plan(directory, {**EXAMPLE_VARS, "routes": check_tf.large_routes()})
        error = " ".join(large.stderr.split())  # Terraform wraps the message
        refused = large.returncode != 0 and "Resource precondition failed" in error and "Lambda allows 4096" in error
        if not refused:
            problems.append("the large example routes were not refused by the precondition (plan's end:)\n"
                            + (large.stdout + large.stderr)[-1200:])
        else:
            size = re.search(r"environment is (\d+) characters", error)
            print(f"tf_env_size: {len(check_tf.large_routes())} priced routes: plan refused by the precondition "
                  f"({size.group(1) if size else '?'} characters, limit 4096)")
        # The same table shipped in the zip (routes_in_package): ROUTES_FILE replaces ROUTES, the plan passes.
        packaged = plan(directory, {**EXAMPLE_VARS, "routes": check_tf.large_routes(), "routes_in_package": True})
        if packaged.returncode != 0:
            problems.append("the large routes shipped in the zip (routes_in_package) were refused:\n"
                            + (packaged.stdout + packaged.stderr)[-1200:])
        else:
            print(f"tf_env_size: {len(check_tf.large_routes())} priced routes with routes_in_package: plan passes")
        # Every route field of the contract reaches ROUTES (Terraform drops attributes its type lacks).
        _, _, fields = check_tf.contract(check_tf.API_MD.read_text())
        unsampled = sorted(fields - set(FIELD_SAMPLES))
        if unsampled:
            problems.append(f"tf_env_size.FIELD_SAMPLES: no sample value for {unsampled}")
        everything = plan(directory, {**EXAMPLE_VARS, "routes": [FIELD_SAMPLES]})
        kept = console(directory, "jsonencode(sort(distinct(flatten([for r in jsondecode(local.routes_json) : keys(r)]))))")
        missing = sorted(fields - set(kept or []))
        if everything.returncode != 0 or kept is None or missing:
            problems.append(f"route fields of docs/api.md section 5 lost on the way to ROUTES: {missing} (kept: {kept})"
                            + ("" if everything.returncode == 0 else "\n" + everything.stderr))
        else:
            print(f"tf_env_size: a route with all {len(fields)} fields of docs/api.md section 5 keeps them in ROUTES")
    for problem in problems:
        print(f"  FAIL {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
