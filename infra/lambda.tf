# The functions: the custom-runtime `bootstrap` from `make package`, x86_64, on provided.al2023 (default)
# or provided.al2. The zip carries its own glibc and libraries, so both images run the same bytes.
#
# One function per pool (local.functions): one per API (local.apis in api.tf), `guest` always and
# `signed_in` when jwt_issuer is set, and `stream` when a route streams (infra/streaming.tf: only the
# Function URL invokes it). Same zip, same role, same environment; each has its own reserved concurrency,
# so a saturated guest pool cannot throttle signed-in users, and streams held open by slow readers fill the
# stream function, never the guest function that answers challenges, key registrations and buffered routes.

locals {
  functions = merge(
    { for pool, api in local.apis : pool => { function_name = api.function_name, reserved_concurrency = api.reserved_concurrency } },
    local.streaming_enabled ? {
      stream = { function_name = "${local.name}-stream", reserved_concurrency = var.stream_reserved_concurrency }
    } : {},
  )
}

resource "aws_cloudwatch_log_group" "function" {
  for_each = local.functions
  #checkov:skip=CKV_AWS_338:Retention is the log_retention_days variable (90 days by default): decision lines carry device IDs, so they are not kept for a year unless the operator chooses to.
  name              = "/aws/lambda/${each.value.function_name}"
  retention_in_days = var.log_retention_days
  kms_key_id        = local.kms_key_id
}

resource "aws_lambda_function" "attestgate" {
  for_each = local.functions
  #checkov:skip=CKV_AWS_50:X-Ray needs an SDK/daemon integration the custom runtime does not have; each decision line carries the request id instead.
  #checkov:skip=CKV_AWS_116:Invoked synchronously only (API Gateway, and the streaming Function URL); a dead-letter queue applies to asynchronous invocations.
  #checkov:skip=CKV_AWS_117:No VPC resources are used: DynamoDB, Secrets Manager, Google and the upstream are reached over their public TLS endpoints; a VPC would only add NAT cost and cold-start latency.
  #checkov:skip=CKV_AWS_173:The environment holds settings and secret ARNs, never secret values (those stay in Secrets Manager); Lambda encrypts it at rest with its service key.
  #checkov:skip=CKV_AWS_272:Code signing needs an AWS Signer profile outside this module; the zip is built and hashed by make package and pinned by source_code_hash.
  function_name    = each.value.function_name
  description      = "AttestGate (${replace(each.key, "_", "-")} pool): device-attestation gate, allowances and daily ceiling in front of the AI API."
  role             = aws_iam_role.function.arn
  filename         = var.package_zip
  source_code_hash = filebase64sha256(var.package_zip)
  handler          = "bootstrap"
  runtime          = var.lambda_runtime
  architectures    = ["x86_64"]
  memory_size      = var.lambda_memory_mb
  timeout          = var.lambda_timeout_seconds

  reserved_concurrent_executions = each.value.reserved_concurrency

  environment {
    variables = local.function_environment
  }

  # JSON, so Lambda's log-level filter reads our lines' `level` (docs/operations.md, "Log lines"). The application
  # level stays INFO: the decision lines every metric and alarm is made from are INFO lines, and Lambda drops
  # lines below the level it is given (LOG_LEVEL mutes our diagnostic lines, never those).
  logging_config {
    log_format            = "JSON"
    application_log_level = "INFO"
    system_log_level      = "WARN"
    log_group             = aws_cloudwatch_log_group.function[each.key].name
  }

  depends_on = [aws_iam_role_policy.function]

  lifecycle {
    # The same refusals the function makes at cold start (docs/api.md section 5), at plan time.
    precondition {
      condition     = !(var.environment == "production" && var.app_attest_environment == "development")
      error_message = "Refusing production with app_attest_environment = \"development\": any development-signed build could attest as the App Store build."
    }
    precondition {
      condition     = !(var.environment == "production" && var.app_attest_trust_root != "")
      error_message = "Refusing production with app_attest_trust_root set: production trusts only Apple's pinned root."
    }
    precondition {
      condition     = var.device_marks == "off" || (var.devicecheck_key_id != "" && var.apple_team_id != "" && length(var.apple_bundle_ids) > 0)
      error_message = "device_marks = \"on\" needs the DeviceCheck key (devicecheck_key_id) and App Attest (apple_team_id, apple_bundle_ids): the function refuses to start otherwise."
    }
    precondition {
      condition     = var.play_device_recall == "off" || (var.android_package != "" && length(var.android_cert_sha256) > 0)
      error_message = "play_device_recall = \"on\" needs Play Integrity (android_package, android_cert_sha256): the function refuses to start otherwise."
    }
    # Lambda's quota on a function's environment (AWS Lambda Developer Guide, "Lambda quotas",
    # docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html, table "Function configuration,
    # deployment, and execution", row "Function environment variables"): 4 KB for all of the function's
    # variables in aggregate, a quota that cannot be raised. ROUTES is most of it: a few routes with models
    # and prices reach it, and AWS refuses the apply with nothing local saying so. Same formula as
    # infra/tests/check_tf.py; length() counts characters, so non-ASCII text weighs more on AWS than here.
    precondition {
      condition     = sum([for k, v in local.function_environment : length(k) + length(v)]) <= 4096
      error_message = "The function's environment is ${sum([for k, v in local.function_environment : length(k) + length(v)])} characters (keys plus values); Lambda allows 4096 (4 KB) in all. ROUTES is the large one: leave out route fields that are at their defaults, and shorten models and prices to what the routes serve. A larger route table travels in the zip: set routes_in_package = true (infra/README.md, \"The 4 KB environment\")."
    }
    precondition {
      condition     = var.environment != "production" || var.debug_tokens == "off" || var.debug_tokens_in_production == "allow"
      error_message = "debug_tokens = \"on\" in production needs debug_tokens_in_production = \"allow\": the function refuses to start otherwise (docs/clients.md, \"Debug tokens\")."
    }
    precondition {
      condition = alltrue([
        var.ai_daily_call_budget == null || var.ai_daily_call_ceiling == 5000,
        var.ai_daily_cost_budget_usd == null || var.ai_daily_cost_ceiling_usd == "0",
        var.ai_daily_unproven_call_budget == null || var.ai_daily_unproven_call_ceiling == 0,
        var.ai_daily_unproven_cost_budget_usd == null || var.ai_daily_unproven_cost_ceiling_usd == "0",
      ])
      error_message = "Set a ceiling under one name: the ai_daily_*_budget* variables are the deprecated names of ai_daily_*_ceiling*."
    }
    precondition {
      # The zip carries exactly this route table (make package ROUTES_FILE=..., which writes the hash beside it).
      condition     = !var.routes_in_package || try(trimspace(file("${var.package_zip}.routes.sha256")), "") == sha256(local.routes_json)
      error_message = "routes_in_package = true needs the zip built with this routes table: infra/routes-file.sh build/routes.json, then make package ROUTES_FILE=build/routes.json (infra/README.md, \"The 4 KB environment\")."
    }
    precondition {
      condition     = var.jwt_issuer == "" || length(var.jwt_audience) > 0
      error_message = "jwt_audience must name at least one audience when jwt_issuer is set."
    }
  }
}

# Before the signed-in pool existed, the one function and its log group had no key.
moved {
  from = aws_lambda_function.attestgate
  to   = aws_lambda_function.attestgate["guest"]
}

moved {
  from = aws_cloudwatch_log_group.function
  to   = aws_cloudwatch_log_group.function["guest"]
}
