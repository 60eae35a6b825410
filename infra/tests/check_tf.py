#!/usr/bin/env python3
"""Structural checks of infra/ that need no cloud: every .tf parses (python-hcl2), and the resources say
what docs/api.md and the rules below require. Each failure names the rule it breaks."""

from __future__ import annotations

import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tfload  # noqa: E402
from tfload import unquote  # noqa: E402

API_MD = tfload.INFRA.parent / "docs" / "api.md"
# Of the contract's settings, Lambda sets these itself (reserved: a function may not set them; `_HANDLER`
# comes from the function's `handler`, AWS_LAMBDA_LOG_LEVEL from its logging_config), and these exist only for
# local runs.
LAMBDA_SETS = {"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "_HANDLER",
               "AWS_LAMBDA_LOG_LEVEL", "AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "LAMBDA_TASK_ROOT"}
LOCAL_ONLY_NAMES = {"DYNAMODB_ENDPOINT"}
# Deprecated names the function still reads (docs/api.md section 5); infra/ deploys the current ones only.
DEPRECATED_NAMES = {"AI_DAILY_CALL_BUDGET", "AI_DAILY_COST_BUDGET_USD", "AI_DAILY_UNPROVEN_CALL_BUDGET",
                    "AI_DAILY_UNPROVEN_COST_BUDGET_USD"}  # plus every *_FILE variant, read from the contract
# Lambda's quota on a function's environment: 4 KB for all its variables together (keys and values).
ENV_LIMIT_BYTES = 4096
TABLE_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"}

problems: list[str] = []


# A fully configured production deployment as the function would see it (every identity and key set, the
# ARNs and names at realistic lengths). Each name of local.function_environment needs a value here, so a
# new setting is weighed too.
EXAMPLE_ENVIRONMENT = {
    "ATTESTGATE_ENV": "production",
    "TABLE_NAME": "attestgate-production",
    "GATE_MODE": "monitor",
    "CHALLENGE_TTL_SECONDS": "300",
    "APPLE_TEAM_ID": "ABCDE12345",
    "APPLE_BUNDLE_IDS": "com.example.flashcards,com.example.flashcards.beta",
    "APP_ATTEST_ENVIRONMENT": "production",
    "APP_ATTEST_TRUST_ROOT": "",
    "ANDROID_PACKAGE": "com.example.flashcards",
    "ANDROID_CERT_SHA256": ":".join(["AB"] * 32),
    "GOOGLE_SERVICE_ACCOUNT_SECRET_ARN": "arn:aws:secretsmanager:eu-central-1:123456789012:secret:"
                                         "attestgate-production/google-service-account-AbCdEf",
    "GOOGLE_TOKEN_ENDPOINT": "https://oauth2.googleapis.com/token",
    "PLAY_INTEGRITY_ENDPOINT": "https://playintegrity.googleapis.com",
    "PLAY_DECODE_BUDGET_PER_DEVICE": "30",
    "PLAY_DECODE_DAILY_SOFT_CAP": "9000",
    "DEVICECHECK_KEY_ID": "KEY1234567",
    "DEVICECHECK_PRIVATE_KEY_SECRET_ARN": "arn:aws:secretsmanager:eu-central-1:123456789012:secret:"
                                          "attestgate-production/devicecheck-private-key-AbCdEf",
    "DEVICECHECK_ENDPOINT": "",
    "DEVICECHECK_BUDGET_PER_DEVICE": "30",
    "DEVICE_MARKS": "on",
    "DEBUG_TOKENS": "on",
    "DEBUG_TOKENS_IN_PRODUCTION": "allow",
    "DEVICE_MARK_MONTHS": "6",
    "RISK_METRIC_MAX": "10",
    "APP_ATTEST_RECEIPT_ENDPOINT": "",
    "PLAY_DEVICE_RECALL": "on",
    "AI_DAILY_CALL_CEILING": "5000",
    "AI_DAILY_COST_CEILING_USD": "25",
    "AI_CEILING_SHARDS": "8",
    "AI_DAILY_UNPROVEN_CALL_CEILING": "500",
    "AI_DAILY_UNPROVEN_COST_CEILING_USD": "2.5",
    "ALLOW_SEED_RELEASE": "",
    "BUDGET_TIMEZONE": "Europe/Berlin",
    "PAID_CLAIM": "plan=pro",
    "UPSTREAM_URL": "https://api.openai.com",
    "UPSTREAM_API_KEY_SECRET_ARN": "arn:aws:secretsmanager:eu-central-1:123456789012:secret:"
                                   "attestgate-production/upstream-api-key-AbCdEf",
    "UPSTREAM_AUTH_HEADER": "Authorization",
    "ROUTES": None,  # the routes under test
    "LOG_LEVEL": "info",
    "POWERTOOLS_SERVICE_NAME": "attestgate-production",
    "ROUTES_FILE": "",
}


def large_routes() -> list[dict]:
    """A realistic table that goes past Lambda's limit: five priced chat routes, three models each."""
    models = ["gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o-mini-2024-07-18"]
    prices = {m: {"inputPerMTok": 0.4, "outputPerMTok": 1.6} for m in models}
    return [{"method": "POST", "path": f"/v1/{name}", "feature": name, "mode": "enforce", "binding": "request",
             "upstreamPath": "/v1/chat/completions", "dialect": "openai-chat", "models": models,
             "maxOutputTokens": 1024, "maxInputTokens": 8000, "prices": prices,
             "allowance": {"firstDay": 14, "laterDays": 9}, "repeatAllowance": {"firstDay": 2, "laterDays": 1},
             "onUnknownDevice": "repeat", "requireStrongIntegrity": True}
            for name in ("generation", "tutor", "explain", "quiz", "translate")]


def environment_size(environment: dict[str, str]) -> int:
    """The lambda.tf precondition's formula: sum(length(k) + length(v)) over the non-empty settings."""
    return sum(len(k) + len(v) for k, v in environment.items() if v != "")


def rendered_routes(routes: list[dict]) -> str:
    """ROUTES as locals.tf renders it: jsonencode of the routes with null fields left out (compact JSON)."""
    return json.dumps([{k: v for k, v in r.items() if v is not None} for r in routes], separators=(",", ":"))


def section(text: str, number: int) -> str:
    """The text of `## <number>. ...` up to the next `## ` heading."""
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", text, re.M | re.S)
    if not match:
        raise SystemExit(f"check_tf: docs/api.md has no section {number}")
    return match.group(0)


def table_first_column(text: str, header: str) -> list[str]:
    """First cells of the Markdown table whose header row starts with `| <header> |`."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"\|\s*{header}\s*\|", line)), None)
    if start is None:
        raise SystemExit(f"check_tf: docs/api.md section 5 has no table headed `{header}`")
    cells = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells.append(line.split("|")[1])
    return cells


def contract(text: str) -> tuple[set[str], set[str], set[str]]:
    """(settings, their *_FILE variants, route fields) as docs/api.md section 5 names them: the backticked
    UPPER_CASE names of the settings table's first column (a `/ `_FILE`` cell names the file variant of
    the `*_SECRET_ARN` before it), and the backticked camelCase names of the route-field table's."""
    body = section(text, 5)
    settings, files = set(), set()
    for cell in table_first_column(body, "variable"):
        names = re.findall(r"`([A-Z_][A-Z0-9_]*)`", cell)
        for i, name in enumerate(names):
            if name == "_FILE" and i > 0 and names[i - 1].endswith("_SECRET_ARN"):
                files.add(names[i - 1].removesuffix("_SECRET_ARN") + "_FILE")
            else:
                settings.add(name)
    fields = set()
    for cell in table_first_column(body, "field"):
        fields.update(re.findall(r"`([a-z][a-zA-Z0-9]*)`", cell))
    return settings, files, fields


def object_attributes(type_expression: str) -> set[str]:
    """Top-level attribute names of the first `object({...})` in a Terraform type expression (nested
    objects' attributes are not the route's own)."""
    start = type_expression.find("object({")
    if start < 0:
        return set()
    top, depth = [], 0
    for char in type_expression[start + len("object({"):]:
        if char in "({[":
            depth += 1
        elif char in ")}]":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            top.append(char)
    return set(re.findall(r"(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*=", "".join(top)))


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

    # Guests cannot starve signed-in users: one function per API (local.apis, carried into local.functions
    # below), each with its own reserved concurrency and its API stage's own throttle, and each API
    # integrated with its own function.
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

    # Every setting and route field of docs/api.md section 5, read from the contract itself.
    settings, file_variants, route_fields = contract(API_MD.read_text())
    expect(len(settings) >= 30 and len(route_fields) >= 20,
           f"docs/api.md section 5: could not read the contract ({len(settings)} settings, {len(route_fields)} fields)")
    local_only = LOCAL_ONLY_NAMES | file_variants | DEPRECATED_NAMES
    env_expr = tfload.locals_(parsed).get("function_environment", "")
    names = tfload.env_names(env_expr)
    expect(len(names) >= 20, f"function_environment: could not read its names ({len(names)})")
    unknown = sorted(set(names) - settings - file_variants)
    expect(not unknown, f"function environment has names outside docs/api.md section 5: {unknown}")
    expect(not set(names) & LAMBDA_SETS, "function environment must not set Lambda's reserved variables "
           f"({sorted(set(names) & LAMBDA_SETS)})")
    expect(not set(names) & local_only, f"function environment must not set local-only variables "
           f"({sorted(set(names) & local_only)})")
    missing = sorted(settings - LAMBDA_SETS - local_only - set(names))
    expect(not missing, f"settings of docs/api.md section 5 missing from local.function_environment: {missing}")
    # Terraform converts `routes` to its declared type and drops any attribute the type lacks, silently.
    declared = object_attributes(str(variables.get("routes", {}).get("type", "")))
    dropped = sorted(route_fields - declared)
    expect(not dropped, f"route fields of docs/api.md section 5 missing from the `routes` variable's type "
           f"(Terraform would drop them): {dropped}")
    extra = sorted(declared - route_fields)
    expect(not extra, f"`routes` type has fields outside docs/api.md section 5 (the function refuses them): {extra}")
    expect("environment" in function and "function_environment" in str(function.get("environment")),
           "function: environment from local.function_environment")

    conditions = [p.get("condition", "") for p in first(function.get("lifecycle")).get("precondition", [])]
    expect(any('var.environment == "production"' in c and 'var.app_attest_environment == "development"' in c
               for c in conditions), "function: precondition refusing production with development App Attest")
    expect(any('var.environment == "production"' in c and "var.app_attest_trust_root" in c for c in conditions),
           "function: precondition refusing a trust root in production")

    # Lambda's 4 KB environment: the precondition's formula and limit, evaluated here on the default routes
    # (must pass) and on a large example table (must be refused). Terraform itself evaluates it only at plan.
    size_rule = [c for c in conditions if "local.function_environment" in c and "length(k) + length(v)" in c]
    expect(len(size_rule) == 1, "function: one precondition on the environment's size "
           "(sum([for k, v in local.function_environment : length(k) + length(v)]) <= 4096)")
    limit = re.search(r"\)\s*<=\s*(\d+)\s*$", size_rule[0].strip("${}")) if size_rule else None
    expect(bool(limit) and int(limit.group(1)) == ENV_LIMIT_BYTES,
           f"function: the environment-size precondition must compare with {ENV_LIMIT_BYTES} ({size_rule})")
    unweighed = sorted(set(names) - set(EXAMPLE_ENVIRONMENT))
    expect(not unweighed, f"check_tf.EXAMPLE_ENVIRONMENT: no example value for {unweighed}")
    if limit:
        default_routes = [{k: unquote(v) for k, v in r.items()} for r in variables["routes"]["default"]]
        default_size = environment_size({**EXAMPLE_ENVIRONMENT, "ROUTES": rendered_routes(default_routes)})
        large_size = environment_size({**EXAMPLE_ENVIRONMENT, "ROUTES": rendered_routes(large_routes())})
        expect(default_size <= int(limit.group(1)), f"4 KB rule: the default routes would be refused ({default_size})")
        expect(large_size > int(limit.group(1)), f"4 KB rule: the large example routes would pass ({large_size})")
        print(f"check_tf: environment size by the precondition's formula: {default_size} with the default routes, "
              f"{large_size} with {len(large_routes())} priced routes (refused above {limit.group(1)})")

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

    # Streamed routes (docs/streaming.md): a Function URL in RESPONSE_STREAM mode, only when a route streams, with
    # the streamed routes kept off the buffered HTTP APIs.
    url = one(tfload.resources(parsed, "aws_lambda_function_url"), "Lambda function URL")
    expect(unquote(url.get("invoke_mode")) == "RESPONSE_STREAM", "function URL: invoke_mode RESPONSE_STREAM")
    expect("local.streaming_enabled" in str(url.get("count")), "function URL: only when a route has stream = true")
    url_conditions = [p.get("condition", "") for p in first(url.get("lifecycle")).get("precondition", [])]
    expect(any("var.lambda_timeout_seconds" in c and "local.max_stream_seconds" in c for c in url_conditions),
           "function URL: precondition that the timeout exceeds every maxStreamSeconds")
    expect("coalesce(r.stream, false)" in str(routes.get("metered_route_keys")),
           "API: streamed routes are not on the buffered HTTP APIs")

    # Streams cannot starve guests: the Function URL invokes a function of its own (the same zip, role and
    # environment: a key of local.functions), whose reserved concurrency is the URL's only throttle. Slow
    # readers holding streams for maxStreamSeconds then fill that function, never the guest function that
    # serves challenges, key registrations and the buffered routes.
    stream_function = '${aws_lambda_function.attestgate["stream"].function_name}'
    permission = tfload.resources(parsed, "aws_lambda_permission").get("stream_url", {})
    for what, body in (("function URL", url), ("function URL permission (stream_url)", permission)):
        target = str(body.get("function_name"))
        expect('attestgate["guest"]' not in target and "each.key" not in target,
               f"{what}: must not target the guest function (streams would take the guest API's executions): {target}")
        expect(target == stream_function, f"{what}: targets the stream function ({stream_function}), not {target}")
    functions = str(tfload.locals_(parsed).get("functions", ""))
    expect(function.get("for_each") == "${local.functions}",
           "function: one per pool (for_each = local.functions: each API's function and the stream function)")
    expect("local.apis" in functions, "local.functions: every API's function (local.apis)")
    stream_pool = re.search(r"\bstream = \{function_name = [^,]+, reserved_concurrency = ([\w.]+)\}", functions)
    expect(bool(stream_pool) and stream_pool.group(1) == "var.stream_reserved_concurrency"
           and "local.streaming_enabled ? {stream = " in functions,
           "local.functions: a `stream` function when a route streams, with reserved_concurrency = "
           "var.stream_reserved_concurrency (its own, not the guest's)")
    expect(re.search(r"\bstream = \{", apis) is None, "local.apis: no API for the stream function (only the URL invokes it)")
    stream_reserved = variables.get("stream_reserved_concurrency", {})
    validation = str(stream_reserved.get("validation"))
    expect("var.stream_reserved_concurrency >= 0" in validation and "floor(var.stream_reserved_concurrency)" in validation,
           "stream_reserved_concurrency: a whole number, at least 0 (unreserved, -1, would let streams take the "
           "account's shared pool and lift the cap on streamed spend)")

    alarms = tfload.resources(parsed, "aws_cloudwatch_metric_alarm")
    watched = {(unquote(a.get("namespace")), unquote(a.get("metric_name"))) for a in alarms.values()}
    for metric in [("AttestGate", "budget_warning"), ("AttestGate", "budget_exhausted"), ("AttestGate", "block"),
                   ("AttestGate", "unavailable"), ("AWS/Lambda", "Errors"), ("AWS/Lambda", "Throttles"),
                   ("AWS/DynamoDB", "TransactionConflict"),
                   ("AWS/DynamoDB", "WriteThrottleEvents")]:
        expect(metric in watched, f"alarms: none on {metric[0]} {metric[1]}")
    for name, alarm in alarms.items():
        if unquote(alarm.get("namespace")) == "AWS/DynamoDB":
            expect("aws_dynamodb_table.main.name" in str(alarm.get("dimensions")),
                   f"alarm {name}: watches the table (TableName = aws_dynamodb_table.main.name)")
    for name, alarm in alarms.items():
        expect(alarm.get("alarm_actions") == "${local.alarm_actions}", f"alarm {name}: actions from the SNS variable")
    # The stream function is watched wherever the guest function is: its errors and its throttles (a full
    # stream pool answering 429) have an alarm per function, as the guest's do.
    for name, alarm in alarms.items():
        if unquote(alarm.get("namespace")) == "AWS/Lambda":
            expect(alarm.get("for_each") == "${local.functions}",
                   f"alarm {name}: one per function, the stream function's included (for_each = local.functions)")

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
