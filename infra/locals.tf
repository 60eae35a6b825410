locals {
  name       = "${var.name_prefix}-${var.environment}"
  kms_key_id = var.kms_key_arn == "" ? null : var.kms_key_arn

  # ROUTES as the function reads it: optional fields left out rather than sent as null.
  # A price's unset classes are left out too (the type writes them as null).
  routes_json = jsonencode([
    for r in var.routes : merge(
      { for k, v in r : k => v if v != null && k != "prices" },
      r.prices == null ? {} : { prices = { for m, p in r.prices : m => { for pk, pv in p : pk => pv if pv != null } } },
    )
  ])

  # The mode each route's metrics carry (the `mode` dimension): its own, else GATE_MODE.
  route_modes = { for r in var.routes : r.feature => coalesce(r.mode, var.gate_mode) }

  devicecheck_enabled = var.devicecheck_key_id != ""

  # The ceilings under their current or their deprecated variable names.
  ai_daily_call_ceiling              = coalesce(var.ai_daily_call_budget, var.ai_daily_call_ceiling)
  ai_daily_cost_ceiling_usd          = coalesce(var.ai_daily_cost_budget_usd, var.ai_daily_cost_ceiling_usd)
  ai_daily_unproven_call_ceiling     = coalesce(var.ai_daily_unproven_call_budget, var.ai_daily_unproven_call_ceiling)
  ai_daily_unproven_cost_ceiling_usd = coalesce(var.ai_daily_unproven_cost_budget_usd, var.ai_daily_unproven_cost_ceiling_usd)

  # The function's environment: exactly the names of docs/api.md section 5. AWS_REGION and the
  # credentials are set by Lambda; DYNAMODB_ENDPOINT and the *_FILE variants are for local runs only.
  # Empty optional settings are left out so the product applies its own defaults.
  function_environment = {
    for k, v in {
      ATTESTGATE_ENV                     = var.environment
      TABLE_NAME                         = aws_dynamodb_table.main.name
      GATE_MODE                          = var.gate_mode
      CHALLENGE_TTL_SECONDS              = tostring(var.challenge_ttl_seconds)
      APPLE_TEAM_ID                      = var.apple_team_id
      APPLE_BUNDLE_IDS                   = join(",", var.apple_bundle_ids)
      APP_ATTEST_ENVIRONMENT             = var.app_attest_environment
      APP_ATTEST_TRUST_ROOT              = var.app_attest_trust_root
      ANDROID_PACKAGE                    = var.android_package
      ANDROID_CERT_SHA256                = join(",", var.android_cert_sha256)
      GOOGLE_SERVICE_ACCOUNT_SECRET_ARN  = aws_secretsmanager_secret.google_service_account.arn
      GOOGLE_TOKEN_ENDPOINT              = var.google_token_endpoint
      PLAY_INTEGRITY_ENDPOINT            = var.play_integrity_endpoint
      PLAY_DECODE_BUDGET_PER_DEVICE      = tostring(var.play_decode_budget_per_device)
      PLAY_DECODE_DAILY_SOFT_CAP         = tostring(var.play_decode_daily_soft_cap)
      DEVICECHECK_KEY_ID                 = var.devicecheck_key_id
      DEVICECHECK_PRIVATE_KEY_SECRET_ARN = local.devicecheck_enabled ? aws_secretsmanager_secret.devicecheck_key[0].arn : ""
      DEVICECHECK_ENDPOINT               = var.devicecheck_endpoint
      DEVICECHECK_BUDGET_PER_DEVICE      = tostring(var.devicecheck_budget_per_device)
      DEVICE_MARKS                       = var.device_marks == "off" ? "" : var.device_marks
      DEBUG_TOKENS                       = var.debug_tokens == "off" ? "" : var.debug_tokens
      DEBUG_TOKENS_IN_PRODUCTION         = var.debug_tokens_in_production == "refuse" ? "" : var.debug_tokens_in_production
      DEVICE_MARK_MONTHS                 = var.device_mark_months == 3 ? "" : tostring(var.device_mark_months)
      RISK_METRIC_MAX                    = var.risk_metric_max == 5 ? "" : tostring(var.risk_metric_max)
      APP_ATTEST_RECEIPT_ENDPOINT        = var.app_attest_receipt_endpoint
      PLAY_DEVICE_RECALL                 = var.play_device_recall == "off" ? "" : var.play_device_recall
      AI_DAILY_CALL_CEILING              = tostring(local.ai_daily_call_ceiling)
      AI_DAILY_COST_CEILING_USD          = local.ai_daily_cost_ceiling_usd == "0" ? "" : local.ai_daily_cost_ceiling_usd
      AI_CEILING_SHARDS                  = tostring(var.ai_ceiling_shards)
      AI_DAILY_UNPROVEN_CALL_CEILING     = local.ai_daily_unproven_call_ceiling == 0 ? "" : tostring(local.ai_daily_unproven_call_ceiling)
      AI_DAILY_UNPROVEN_COST_CEILING_USD = local.ai_daily_unproven_cost_ceiling_usd == "0" ? "" : local.ai_daily_unproven_cost_ceiling_usd
      ALLOW_SEED_RELEASE                 = var.allow_seed_release ? "true" : ""
      BUDGET_TIMEZONE                    = var.budget_timezone
      PAID_CLAIM                         = var.paid_claim
      UPSTREAM_URL                       = var.upstream_url
      UPSTREAM_API_KEY_SECRET_ARN        = aws_secretsmanager_secret.upstream_api_key.arn
      UPSTREAM_AUTH_HEADER               = var.upstream_auth_header
      # A table too large for the 4 KB environment travels in the zip instead (routes_in_package).
      ROUTES                  = var.routes_in_package ? "" : local.routes_json
      ROUTES_FILE             = var.routes_in_package ? "routes.json" : ""
      LOG_LEVEL               = var.log_level
      POWERTOOLS_SERVICE_NAME = local.name
    } : k => v if v != ""
  }

  # Secrets the function may read: the two always, DeviceCheck's only when it is configured.
  secret_arns = concat(
    [aws_secretsmanager_secret.google_service_account.arn, aws_secretsmanager_secret.upstream_api_key.arn],
    local.devicecheck_enabled ? [aws_secretsmanager_secret.devicecheck_key[0].arn] : [],
  )

  # API Gateway route keys: the two attestation endpoints plus every metered route.
  attest_route_keys = ["POST /v1/attest/challenge", "POST /v1/attest/keys"]
  # Streamed routes are served by the Function URL instead (infra/streaming.tf).
  metered_route_keys = [for r in var.routes : "${upper(r.method)} ${r.path}" if !coalesce(r.stream, false)]
}
