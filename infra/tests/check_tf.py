#!/usr/bin/env python3
"""Structural checks of infra/ that need no cloud: every .tf parses (python-hcl2), and the resources say
what docs/api.md and issue 9 require. Each failure names the rule it breaks."""

from __future__ import annotations

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tfload  # noqa: E402
from tfload import unquote  # noqa: E402

# docs/api.md section 5, exactly. AWS_REGION and the credentials are set by Lambda itself (reserved),
# DYNAMODB_ENDPOINT and the *_FILE variants exist for local runs only.
DESIGN_ENV = {
    "ATTESTGATE_ENV", "TABLE_NAME", "DYNAMODB_ENDPOINT", "AWS_REGION", "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GATE_MODE", "CHALLENGE_TTL_SECONDS", "APPLE_TEAM_ID",
    "APPLE_BUNDLE_IDS", "APP_ATTEST_ENVIRONMENT", "APP_ATTEST_TRUST_ROOT", "ANDROID_PACKAGE",
    "ANDROID_CERT_SHA256", "GOOGLE_SERVICE_ACCOUNT_SECRET_ARN", "GOOGLE_SERVICE_ACCOUNT_FILE",
    "GOOGLE_TOKEN_ENDPOINT", "PLAY_INTEGRITY_ENDPOINT", "PLAY_DECODE_BUDGET_PER_DEVICE",
    "PLAY_DECODE_DAILY_SOFT_CAP", "DEVICECHECK_KEY_ID", "DEVICECHECK_PRIVATE_KEY_SECRET_ARN",
    "DEVICECHECK_PRIVATE_KEY_FILE", "DEVICECHECK_ENDPOINT", "DEVICECHECK_BUDGET_PER_DEVICE", "AI_DAILY_CALL_BUDGET",
    "AI_DAILY_COST_BUDGET_USD", "AI_CEILING_SHARDS", "AI_DAILY_UNPROVEN_CALL_BUDGET",
    "AI_DAILY_UNPROVEN_COST_BUDGET_USD", "ALLOW_SEED_RELEASE", "BUDGET_TIMEZONE",
    "PAID_CLAIM", "UPSTREAM_URL", "UPSTREAM_API_KEY_SECRET_ARN", "UPSTREAM_API_KEY_FILE",
    "UPSTREAM_AUTH_HEADER", "ROUTES", "LOG_LEVEL",
}
LAMBDA_SETS = {"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}
LOCAL_ONLY = {"DYNAMODB_ENDPOINT", "GOOGLE_SERVICE_ACCOUNT_FILE", "DEVICECHECK_PRIVATE_KEY_FILE", "UPSTREAM_API_KEY_FILE"}
TABLE_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"}

problems: list[str] = []


def expect(condition: bool, message: str) -> None:
    if not condition:
        problems.append(message)


def one(mapping: dict, kind: str) -> dict:
    expect(len(mapping) == 1, f"exactly one {kind} expected, found {sorted(mapping)}")
    return next(iter(mapping.values()), {})


def first(value):
    """python-hcl2 gives nested blocks as lists of dicts."""
    return value[0] if isinstance(value, list) and value else (value or {})


def main() -> int:
    parsed = tfload.load()
    print(f"check_tf: parsed {len(parsed)} files: {', '.join(parsed)}")

    table = one(tfload.resources(parsed, "aws_dynamodb_table"), "DynamoDB table")
    expect(unquote(table.get("billing_mode")) == "PAY_PER_REQUEST", "table: on-demand (PAY_PER_REQUEST)")
    expect(unquote(table.get("hash_key")) == "PK" and unquote(table.get("range_key")) == "SK", "table: PK/SK keys")
    attrs = {unquote(a["name"]): unquote(a["type"]) for a in table.get("attribute", [])}
    expect(attrs == {"PK": "S", "SK": "S"}, f"table: PK and SK are the only attributes, both strings ({attrs})")
    ttl = first(table.get("ttl"))
    expect(unquote(ttl.get("attribute_name")) == "TTL" and ttl.get("enabled") is True, "table: TTL on `TTL`")
    expect(first(table.get("point_in_time_recovery")).get("enabled") is True, "table: point-in-time recovery")
    expect(first(table.get("server_side_encryption")).get("enabled") is True, "table: server-side encryption")

    function = one(tfload.resources(parsed, "aws_lambda_function"), "Lambda function")
    expect(unquote(function.get("handler")) == "bootstrap", "function: handler bootstrap")
    expect(function.get("architectures") == ['"x86_64"'] or function.get("architectures") == ["x86_64"],
           f"function: x86_64 only ({function.get('architectures')})")
    variables = tfload.named_blocks(parsed, "variable")
    runtime = variables.get("lambda_runtime", {})
    expect(function.get("runtime") == "${var.lambda_runtime}", "function: runtime from var.lambda_runtime")
    expect(unquote(runtime.get("default")) == "provided.al2023", "lambda_runtime defaults to provided.al2023")
    validation = str(runtime.get("validation"))
    expect("provided.al2023" in validation and "provided.al2" in validation, "lambda_runtime allows al2023 and al2")
    for knob in ("lambda_memory_mb", "lambda_timeout_seconds"):
        expect(knob in str(function), f"function: {knob} variable used")

    # Guests cannot starve signed-in users: one function per API (local.apis), each with its own reserved
    # concurrency and its API stage's own throttle, and each API integrated with its own function.
    expect(function.get("for_each") == "${local.apis}", "function: one per API (for_each = local.apis)")
    expect(function.get("reserved_concurrent_executions") == "${each.value.reserved_concurrency}",
           "function: reserved concurrency per pool")
    apis = str(tfload.locals_(parsed).get("apis", ""))
    for knob in ("var.lambda_reserved_concurrency", "var.signed_in_reserved_concurrency", "var.api_throttle_burst",
                 "var.api_throttle_rate", "var.signed_in_api_throttle_burst", "var.signed_in_api_throttle_rate"):
        expect(knob in apis, f"local.apis: {knob} feeds its own pool")
    stage = one(tfload.resources(parsed, "aws_apigatewayv2_stage"), "API stage")
    throttle = first(stage.get("default_route_settings"))
    expect(throttle.get("throttling_burst_limit") == "${each.value.throttle_burst}"
           and throttle.get("throttling_rate_limit") == "${each.value.throttle_rate}", "API stage: throttle per API")
    signed_in_reserved = variables.get("signed_in_reserved_concurrency", {})
    expect("var.signed_in_reserved_concurrency >= 1" in str(signed_in_reserved.get("validation")),
           "signed_in_reserved_concurrency: at least 1 (unreserved would share the account's pool)")

    env_expr = tfload.locals_(parsed).get("function_environment", "")
    names = tfload.env_names(env_expr)
    expect(len(names) >= 20, f"function_environment: could not read its names ({len(names)})")
    unknown = sorted(set(names) - DESIGN_ENV)
    expect(not unknown, f"function environment has names outside docs/api.md section 5: {unknown}")
    expect(not set(names) & LAMBDA_SETS, "function environment must not set Lambda's reserved AWS_* variables")
    expect(not set(names) & LOCAL_ONLY, "function environment must not set local-only variables")
    missing = sorted(DESIGN_ENV - LAMBDA_SETS - LOCAL_ONLY - set(names))
    expect(not missing, f"design settings with no Terraform input: {missing}")
    expect("environment" in function and "function_environment" in str(function.get("environment")),
           "function: environment from local.function_environment")

    conditions = [p.get("condition", "") for p in first(function.get("lifecycle")).get("precondition", [])]
    expect(any('var.environment == "production"' in c and 'var.app_attest_environment == "development"' in c
               for c in conditions), "function: precondition refusing production with development App Attest")
    expect(any('var.environment == "production"' in c and "var.app_attest_trust_root" in c for c in conditions),
           "function: precondition refusing a trust root in production")

    policy = tfload.data_sources(parsed, "aws_iam_policy_document").get("function", {})
    statements = policy.get("statement", [])
    actions = set()
    for statement in statements:
        acts = {unquote(a) for a in statement.get("actions", [])}
        actions |= acts
        resources = str(statement.get("resources"))
        expect("*" not in resources.replace(":*", ""), f"IAM statement {statement.get('sid')}: no wildcard resource")
        if acts & TABLE_ACTIONS:
            expect(resources == "['${aws_dynamodb_table.main.arn}']", "IAM: table actions on the table ARN only")
        if "secretsmanager:GetSecretValue" in acts:
            expect("local.secret_arns" in resources, "IAM: GetSecretValue on the function's secrets only")
    allowed = TABLE_ACTIONS | {"secretsmanager:GetSecretValue", "logs:CreateLogStream", "logs:PutLogEvents",
                               "kms:Decrypt", "kms:GenerateDataKey"}
    expect(TABLE_ACTIONS <= actions, f"IAM: table item operations missing: {sorted(TABLE_ACTIONS - actions)}")
    expect(actions <= allowed, f"IAM: actions beyond the allowed set: {sorted(actions - allowed)}")
    expect("dynamic" in policy and "kms" in str(policy.get("dynamic")), "IAM: KMS only for a customer key")

    secrets = tfload.resources(parsed, "aws_secretsmanager_secret")
    expect({"google_service_account", "upstream_api_key"} <= set(secrets), "secrets: Google key and upstream key")
    for name, secret in secrets.items():
        expect("secret_string" not in str(secret), f"secret {name}: values are set outside Terraform")
    expect(not tfload.resources(parsed, "aws_secretsmanager_secret_version"), "no secret values in Terraform")

    for name, group in tfload.resources(parsed, "aws_cloudwatch_log_group").items():
        expect(group.get("retention_in_days") == "${var.log_retention_days}", f"log group {name}: retention")

    routes = tfload.locals_(parsed)
    expect('"POST /v1/attest/challenge"' in str(routes.get("attest_route_keys")), "API: POST /v1/attest/challenge")
    expect('"POST /v1/attest/keys"' in str(routes.get("attest_route_keys")), "API: POST /v1/attest/keys")
    integration = one(tfload.resources(parsed, "aws_apigatewayv2_integration"), "integration")
    expect(unquote(integration.get("payload_format_version")) == "2.0", "API: payload format 2.0")
    expect(integration.get("integration_uri") == "${aws_lambda_function.attestgate[each.key].invoke_arn}",
           "API: each API invokes its own function")
    expect(tfload.resources(parsed, "aws_apigatewayv2_authorizer"), "API: optional JWT authorizer")

    # Streamed routes (issue 18): a Function URL in RESPONSE_STREAM mode, only when a route streams, with
    # the streamed routes kept off the buffered HTTP APIs.
    url = one(tfload.resources(parsed, "aws_lambda_function_url"), "Lambda function URL")
    expect(unquote(url.get("invoke_mode")) == "RESPONSE_STREAM", "function URL: invoke_mode RESPONSE_STREAM")
    expect("local.streaming_enabled" in str(url.get("count")), "function URL: only when a route has stream = true")
    url_conditions = [p.get("condition", "") for p in first(url.get("lifecycle")).get("precondition", [])]
    expect(any("var.lambda_timeout_seconds" in c and "local.max_stream_seconds" in c for c in url_conditions),
           "function URL: precondition that the timeout exceeds every maxStreamSeconds")
    expect("coalesce(r.stream, false)" in str(routes.get("metered_route_keys")),
           "API: streamed routes are not on the buffered HTTP APIs")

    alarms = tfload.resources(parsed, "aws_cloudwatch_metric_alarm")
    watched = {(unquote(a.get("namespace")), unquote(a.get("metric_name"))) for a in alarms.values()}
    for metric in [("AttestGate", "budget_warning"), ("AttestGate", "budget_exhausted"), ("AttestGate", "block"),
                   ("AttestGate", "unavailable"), ("AWS/Lambda", "Errors"), ("AWS/DynamoDB", "TransactionConflict"),
                   ("AWS/DynamoDB", "WriteThrottleEvents")]:
        expect(metric in watched, f"alarms: none on {metric[0]} {metric[1]}")
    for name, alarm in alarms.items():
        if unquote(alarm.get("namespace")) == "AWS/DynamoDB":
            expect("aws_dynamodb_table.main.name" in str(alarm.get("dimensions")),
                   f"alarm {name}: watches the table (TableName = aws_dynamodb_table.main.name)")
    for name, alarm in alarms.items():
        expect(alarm.get("alarm_actions") == "${local.alarm_actions}", f"alarm {name}: actions from the SNS variable")

    # Documentation: every variable and output has a description and a row in infra/README.md.
    readme = (tfload.INFRA / "README.md").read_text() if (tfload.INFRA / "README.md").exists() else ""
    outputs = tfload.named_blocks(parsed, "output")
    for kind, items in (("variable", variables), ("output", outputs)):
        for name, body in items.items():
            expect(bool(unquote(body.get("description", ""))), f"{kind} {name}: no description")
            expect(re.search(rf"`{re.escape(name)}`", readme) is not None, f"{kind} {name}: not in infra/README.md")

    for problem in problems:
        print(f"  FAIL {problem}", file=sys.stderr)
    if not problems:
        print(f"check_tf: ok ({len(variables)} variables, {len(outputs)} outputs, {len(alarms)} alarm resources)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
