# Inputs. Every variable that ends up in the function's environment is named after the setting it feeds
# (docs/api.md section 5); see infra/README.md for the full table.

# --- Deployment -----------------------------------------------------------------------------------------

variable "aws_region" {
  description = "AWS region to deploy into (the function sees it as AWS_REGION, which Lambda sets)."
  type        = string
  default     = "us-east-1"
}

variable "name_prefix" {
  description = "Prefix of every resource name (table, function, API, secrets, alarms)."
  type        = string
  default     = "attestgate"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,30}$", var.name_prefix))
    error_message = "name_prefix must be 2-31 characters of lower-case letters, digits and '-', starting with a letter."
  }
}

variable "environment" {
  description = "ATTESTGATE_ENV: `production` or `development`. Also the `environment` dimension of every AttestGate metric the alarms watch."
  type        = string
  default     = "production"

  validation {
    condition     = contains(["production", "development"], var.environment)
    error_message = "environment must be \"production\" or \"development\"."
  }
}

variable "tags" {
  description = "Extra tags for every resource."
  type        = map(string)
  default     = {}
}

variable "package_zip" {
  description = "Path of the deployment zip built by `make package` (bootstrap at its root, every shared library in lib/)."
  type        = string
  default     = "../build/attestgate-lambda.zip"
}

variable "lambda_runtime" {
  description = "Lambda runtime: `provided.al2023` (default, for new deployments) or `provided.al2` (past its deprecation date; existing functions only). The same zip runs on both."
  type        = string
  default     = "provided.al2023"

  validation {
    condition     = contains(["provided.al2023", "provided.al2"], var.lambda_runtime)
    error_message = "lambda_runtime must be \"provided.al2023\" or \"provided.al2\"."
  }
}

variable "lambda_memory_mb" {
  description = "Function memory in MB (CPU scales with it)."
  type        = number
  default     = 512

  validation {
    condition     = var.lambda_memory_mb >= 128 && var.lambda_memory_mb <= 10240
    error_message = "lambda_memory_mb must be between 128 and 10240."
  }
}

variable "lambda_timeout_seconds" {
  description = "Function timeout in seconds. API Gateway HTTP APIs stop waiting after 30 s, so more than 29 only wastes money."
  type        = number
  default     = 29

  validation {
    condition     = var.lambda_timeout_seconds >= 3 && var.lambda_timeout_seconds <= 900
    error_message = "lambda_timeout_seconds must be between 3 and 900."
  }
}

variable "lambda_reserved_concurrency" {
  description = "Reserved concurrency of the guest function: a hard cap on parallel guest executions (and so on spend under a flood). -1 leaves it unreserved, which lets a guest flood take the account's shared pool."
  type        = number
  default     = 50
}

variable "signed_in_reserved_concurrency" {
  description = "Reserved concurrency of the signed-in function (created when jwt_issuer is set): executions guests can never take. At least 1."
  type        = number
  default     = 20

  validation {
    condition     = var.signed_in_reserved_concurrency >= 1
    error_message = "signed_in_reserved_concurrency must be at least 1: unreserved, signed-in users would share the account's pool."
  }
}

variable "stream_reserved_concurrency" {
  description = "Reserved concurrency of the streaming function (created when a route has stream = true; only its Function URL invokes it): the most streams in flight at once, and the Function URL's only throttle (a Function URL has no stage throttle). Past it, and past 10 requests a second per reserved execution, Lambda answers 429. Streams never take the guest function's executions. 0 refuses every stream (switches the URL off)."
  type        = number
  default     = 20

  validation {
    condition     = var.stream_reserved_concurrency >= 0 && floor(var.stream_reserved_concurrency) == var.stream_reserved_concurrency
    error_message = "stream_reserved_concurrency must be a whole number, at least 0: unreserved (-1), streams would draw on the account's shared pool with no cap on how many run at once."
  }
}

variable "log_retention_days" {
  description = "Retention of the function's and the API's CloudWatch log groups, in days (one of CloudWatch's allowed values)."
  type        = number
  default     = 90

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days must be a retention CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...)."
  }
}

variable "kms_key_arn" {
  description = "Optional customer-managed KMS key for the table, the secrets and the log groups. Empty: AWS-managed keys."
  type        = string
  default     = ""
}

variable "table_deletion_protection" {
  description = "Deletion protection on the DynamoDB table."
  type        = bool
  default     = true
}

# --- Gate and verification (ATTESTGATE_*, GATE_MODE, App Attest, Play Integrity, DeviceCheck) ------------

variable "gate_mode" {
  description = "GATE_MODE: `off`, `monitor` or `enforce` for routes that do not set their own mode."
  type        = string
  default     = "monitor"

  validation {
    condition     = contains(["off", "monitor", "enforce"], var.gate_mode)
    error_message = "gate_mode must be off, monitor or enforce."
  }
}

variable "challenge_ttl_seconds" {
  description = "CHALLENGE_TTL_SECONDS: lifetime of an issued challenge."
  type        = number
  default     = 300
}

variable "apple_team_id" {
  description = "APPLE_TEAM_ID: the 10-character Apple Developer Team ID (empty: App Attest and DeviceCheck cannot verify)."
  type        = string
  default     = ""
}

variable "apple_bundle_ids" {
  description = "APPLE_BUNDLE_IDS: the iOS app's bundle ids."
  type        = list(string)
  default     = []
}

variable "app_attest_environment" {
  description = "APP_ATTEST_ENVIRONMENT: `production` or `development`. Production deployments refuse `development` (a development-signed build could attest as the App Store build)."
  type        = string
  default     = "production"

  validation {
    condition     = contains(["production", "development"], var.app_attest_environment)
    error_message = "app_attest_environment must be \"production\" or \"development\"."
  }
}

variable "app_attest_trust_root" {
  description = "APP_ATTEST_TRUST_ROOT: path inside the package of a PEM replacing Apple's root (tests only). Refused when environment = production."
  type        = string
  default     = ""
}

variable "android_package" {
  description = "ANDROID_PACKAGE: the Android app's package name (empty: Play Integrity off)."
  type        = string
  default     = ""
}

variable "android_cert_sha256" {
  description = "ANDROID_CERT_SHA256: release signing-certificate SHA-256 digests, as Play Console shows them (colon-separated hex) or as Play Integrity reports them (base64url); compared after normalising."
  type        = list(string)
  default     = []
}

variable "google_token_endpoint" {
  description = "GOOGLE_TOKEN_ENDPOINT: Google's OAuth2 token endpoint."
  type        = string
  default     = "https://oauth2.googleapis.com/token"
}

variable "play_integrity_endpoint" {
  description = "PLAY_INTEGRITY_ENDPOINT: base URL of the Play Integrity API."
  type        = string
  default     = "https://playintegrity.googleapis.com"
}

variable "play_decode_budget_per_device" {
  description = "PLAY_DECODE_BUDGET_PER_DEVICE: Play Integrity decodes one device ID may cost per day."
  type        = number
  default     = 30
}

variable "play_decode_daily_soft_cap" {
  description = "PLAY_DECODE_DAILY_SOFT_CAP: decodes per day across the environment before the soft cap applies (Google's default quota is 10,000)."
  type        = number
  default     = 9000
}

variable "devicecheck_key_id" {
  description = "DEVICECHECK_KEY_ID: the DeviceCheck key id. Empty (default): DeviceCheck is off and no third secret is created."
  type        = string
  default     = ""
}

variable "devicecheck_budget_per_device" {
  description = "DEVICECHECK_BUDGET_PER_DEVICE: DeviceCheck queries one device ID may cost per UTC day (only routes with deviceCheckFallback ask)."
  type        = number
  default     = 30
}

variable "devicecheck_endpoint" {
  description = "DEVICECHECK_ENDPOINT: DeviceCheck API base URL (empty: the product default)."
  type        = string
  default     = ""
}

# --- Device tiers (docs/gate.md, "Device tiers"; docs/appattest.md, "Device marks") ----------------------

variable "device_marks" {
  description = "DEVICE_MARKS: `on` tiers a key registration's device ID by DeviceCheck's two bits (docs/appattest.md, \"Device marks\"); needs devicecheck_key_id and App Attest (apple_team_id, apple_bundle_ids). `off` (default): no marks."
  type        = string
  default     = "off"

  validation {
    condition     = contains(["on", "off"], var.device_marks)
    error_message = "device_marks must be \"on\" or \"off\"."
  }
}

variable "device_mark_months" {
  description = "DEVICE_MARK_MONTHS: a device mark older than this many whole months counts as cleared, 1-120."
  type        = number
  default     = 3

  validation {
    condition     = var.device_mark_months >= 1 && var.device_mark_months <= 120 && floor(var.device_mark_months) == var.device_mark_months
    error_message = "device_mark_months must be a whole number from 1 to 120."
  }
}

variable "risk_metric_max" {
  description = "RISK_METRIC_MAX: App Attest's fraud-risk metric (0-1000) above which a device ID is `repeat` (read with device marks on and the DeviceCheck key set)."
  type        = number
  default     = 5

  validation {
    condition     = var.risk_metric_max >= 0 && var.risk_metric_max <= 1000 && floor(var.risk_metric_max) == var.risk_metric_max
    error_message = "risk_metric_max must be a whole number from 0 to 1000."
  }
}

variable "app_attest_receipt_endpoint" {
  description = "APP_ATTEST_RECEIPT_ENDPOINT: Apple's App Attest receipt exchange host. Empty (default): the product default for app_attest_environment."
  type        = string
  default     = ""
}

variable "play_device_recall" {
  description = "PLAY_DEVICE_RECALL: `on` tiers an Android device ID by Play Integrity's device recall bit (early access; docs/playintegrity.md, \"Device recall\"); needs Play Integrity. `off` (default): no recall."
  type        = string
  default     = "off"

  validation {
    condition     = contains(["on", "off"], var.play_device_recall)
    error_message = "play_device_recall must be \"on\" or \"off\"."
  }
}

# --- Allowances, ceiling, upstream ----------------------------------------------------------------------

variable "ai_daily_call_ceiling" {
  description = "AI_DAILY_CALL_CEILING: ceiling on unpaid upstream calls per day across the environment; 0 = no ceiling."
  type        = number
  default     = 5000
}

variable "ai_daily_cost_ceiling_usd" {
  description = "AI_DAILY_COST_CEILING_USD: ceiling in US dollars on the worst cases of unpaid calls per day (every route needs a known dialect, models and prices); \"0\" = none."
  type        = string
  default     = "0"
}

variable "ai_ceiling_shards" {
  description = "AI_CEILING_SHARDS: table rows each day's ceiling is split over (1-256; docs/dynamodb.md, \"Capacity\": one per 30 unpaid calls per second at peak). Change it between days."
  type        = number
  default     = 8
  validation {
    condition     = var.ai_ceiling_shards >= 1 && var.ai_ceiling_shards <= 256 && floor(var.ai_ceiling_shards) == var.ai_ceiling_shards
    error_message = "ai_ceiling_shards must be a whole number from 1 to 256."
  }
}

variable "ai_daily_unproven_call_ceiling" {
  description = "AI_DAILY_UNPROVEN_CALL_CEILING: the unproven pool's sub-ceiling on calls per day, for routes with `unproven` (counted in ai_daily_call_ceiling too); 0 = none."
  type        = number
  default     = 0
}

variable "ai_daily_unproven_cost_ceiling_usd" {
  description = "AI_DAILY_UNPROVEN_COST_CEILING_USD: the unproven pool's sub-ceiling in US dollars per day (needs ai_daily_cost_ceiling_usd); \"0\" = none."
  type        = string
  default     = "0"
}

# The ceilings' variables were once named ai_daily_*_budget*: the old names are still accepted (docs/architecture.md,
# "Glossary"); setting both names of one is refused at plan time (lambda.tf).
variable "ai_daily_call_budget" {
  description = "Deprecated name of ai_daily_call_ceiling (null: unset)."
  type        = number
  default     = null
}

variable "ai_daily_cost_budget_usd" {
  description = "Deprecated name of ai_daily_cost_ceiling_usd (null: unset)."
  type        = string
  default     = null
}

variable "ai_daily_unproven_call_budget" {
  description = "Deprecated name of ai_daily_unproven_call_ceiling (null: unset)."
  type        = number
  default     = null
}

variable "ai_daily_unproven_cost_budget_usd" {
  description = "Deprecated name of ai_daily_unproven_cost_ceiling_usd (null: unset)."
  type        = string
  default     = null
}

variable "allow_seed_release" {
  description = "ALLOW_SEED_RELEASE: let a route use `release = \"seed\"` (timed-out calls given back) in production."
  type        = bool
  default     = false
}

variable "budget_timezone" {
  description = "BUDGET_TIMEZONE: IANA zone in which budget days and a guest's first day start."
  type        = string
  default     = "UTC"
}

variable "paid_claim" {
  description = "PAID_CLAIM: `claim=value` that marks a paying signed-in user (not metered by the ceiling). Empty: none."
  type        = string
  default     = ""
}

variable "upstream_url" {
  description = "UPSTREAM_URL: base URL of the upstream AI HTTP API."
  type        = string
}

variable "upstream_auth_header" {
  description = "UPSTREAM_AUTH_HEADER: the header that carries the upstream key (`Authorization` is sent as `Bearer <key>`)."
  type        = string
  default     = "Authorization"
}

variable "routes" {
  description = "ROUTES: the metered routes (method, path, feature; optional allowance, mode, binding, onUnavailable, upstreamPath, maxResponseBytes, release, releaseStatuses, maxRequestBytes, upstreamTimeoutMs, dialect, models, maxOutputTokens, maxInputTokens, prices, stream, maxStreamSeconds, maxStreamBytes, allowFields, template, deviceCheckFallback, maxDeviceActivity, unproven, repeatAllowance, onUnknownDevice, requireStrongIntegrity: every field of docs/api.md section 5). Each buffered route becomes an API Gateway route (a streamed one is served by the streaming Function URL, infra/streaming.tf) and, through `feature`, the `route` dimension of its metrics."
  type = list(object({
    method           = string
    path             = string
    feature          = string
    allowance        = optional(object({ firstDay = number, laterDays = number }))
    mode             = optional(string)
    binding          = optional(string)
    onUnavailable    = optional(string)
    upstreamPath     = optional(string)
    maxResponseBytes = optional(number)
    # What is released, the request's bounds, the dialect and the money ceiling's prices (docs/gate.md).
    release           = optional(string)
    releaseStatuses   = optional(list(number))
    maxRequestBytes   = optional(number)
    upstreamTimeoutMs = optional(number)
    dialect           = optional(string)
    models            = optional(list(string))
    maxOutputTokens   = optional(number)
    maxInputTokens    = optional(number)
    prices = optional(map(object({
      inputPerMTok        = number
      outputPerMTok       = number
      cachedInputPerMTok  = optional(number)
      cacheWritePerMTok   = optional(number)
      cacheWrite1hPerMTok = optional(number)
      audioInputPerMTok   = optional(number)
      audioOutputPerMTok  = optional(number)
      imageOutputPerMTok  = optional(number)
    })))
    allowFields = optional(list(string))
    template    = optional(object({ body = any, variables = map(any) }))
    # Streamed routes (docs/streaming.md), served by the Function URL of infra/streaming.tf.
    stream           = optional(bool)
    maxStreamSeconds = optional(number)
    maxStreamBytes   = optional(number)
    # DeviceCheck on this route, and the highest Play device activity accepted (docs/playintegrity.md).
    deviceCheckFallback = optional(bool)
    maxDeviceActivity   = optional(string)
    # The unproven pool: an enforce route's allowance for calls with no proof (docs/gate.md, "The unproven pool").
    unproven = optional(object({ allowance = object({ firstDay = number, laterDays = number }) }))
    # Device tiers (docs/gate.md, "Device tiers"): the `repeat` tier's allowance and how `unknown` is metered.
    repeatAllowance = optional(object({ firstDay = number, laterDays = number }))
    onUnknownDevice = optional(string)
    # Android: strong integrity required, not only device integrity.
    requireStrongIntegrity = optional(bool)
  }))
  default = [
    { method = "POST", path = "/v1/generate", feature = "generation", upstreamPath = "/generate" },
    { method = "POST", path = "/v1/tutor/{deckId}/{cardId}", feature = "tutor", upstreamPath = "/tutor" },
  ]

  validation {
    condition     = alltrue([for r in var.routes : r.mode == null || contains(["off", "monitor", "enforce"], coalesce(r.mode, "off"))])
    error_message = "A route's mode must be off, monitor or enforce."
  }
  validation {
    condition     = alltrue([for r in var.routes : !strcontains(r.path, "{") || r.upstreamPath != null])
    error_message = "A route whose path has {parameters} needs an upstreamPath (the function refuses to start otherwise)."
  }
  validation {
    condition     = alltrue([for r in var.routes : r.onUnknownDevice == null || contains(["repeat", "first"], coalesce(r.onUnknownDevice, "repeat"))])
    error_message = "A route's onUnknownDevice must be repeat or first."
  }
  validation {
    condition     = length(distinct([for r in var.routes : r.feature])) == length(var.routes)
    error_message = "Every route needs its own feature name (it is the route dimension of its metrics)."
  }
}

variable "log_level" {
  description = "LOG_LEVEL: debug, info, warn (or warning) or error; the function's lines say DEBUG, INFO, WARN, ERROR."
  type        = string
  default     = "info"

  validation {
    condition     = contains(["debug", "info", "warn", "warning", "error"], var.log_level)
    error_message = "log_level must be debug, info, warning or error."
  }
}

# --- API -----------------------------------------------------------------------------------------------

variable "jwt_issuer" {
  description = "Issuer URL of the JWT authorizer for signed-in users. Empty (default): no authorizer and no signed-in API. HTTP APIs cannot make a JWT optional on a route, so signed-in clients call a second API whose metered routes require the JWT."
  type        = string
  default     = ""
}

variable "jwt_audience" {
  description = "Audiences the JWT authorizer accepts (required when jwt_issuer is set)."
  type        = list(string)
  default     = []
}

variable "api_throttle_burst" {
  description = "API Gateway default-route burst limit (the guest API's stage)."
  type        = number
  default     = 200
}

variable "api_throttle_rate" {
  description = "API Gateway default-route steady rate limit (requests per second; the guest API's stage)."
  type        = number
  default     = 100
}

variable "signed_in_api_throttle_burst" {
  description = "Burst limit of the signed-in API's stage (its own bucket, apart from the guest API's)."
  type        = number
  default     = 100
}

variable "signed_in_api_throttle_rate" {
  description = "Steady rate limit of the signed-in API's stage, in requests per second."
  type        = number
  default     = 50
}

# --- Alarms --------------------------------------------------------------------------------------------

variable "alarm_sns_topic_arn" {
  description = "SNS topic notified when an alarm fires or recovers. Empty: alarms without actions."
  type        = string
  default     = ""
}

variable "block_spike_threshold" {
  description = "Alarm when more than this many calls are blocked (enforce mode) in 5 minutes."
  type        = number
  default     = 50
}

variable "unavailable_spike_threshold" {
  description = "Alarm when a route records more than this many UNAVAILABLE verifications in 5 minutes."
  type        = number
  default     = 10
}

variable "function_errors_threshold" {
  description = "Alarm when the function reports more than this many errors (AWS/Lambda Errors) in 5 minutes."
  type        = number
  default     = 0
}

variable "function_throttles_threshold" {
  description = "Alarm when a function (guest, signed-in, stream) refuses more than this many invocations past its reserved concurrency (AWS/Lambda Throttles) in 5 minutes."
  type        = number
  default     = 0
}

variable "routes_in_package" {
  description = "Ship the routes in the zip (ROUTES_FILE=routes.json) instead of the ROUTES variable, for a table too large for Lambda's 4 KB environment. The zip must be built with the same table: infra/routes-file.sh build/routes.json && make package ROUTES_FILE=build/routes.json (a plan-time precondition compares their SHA-256)."
  type        = bool
  default     = false
}

variable "debug_tokens" {
  description = "DEBUG_TOKENS: `on` accepts X-Debug-Token (attestgate debug-token) as layer-1 proof for simulators and CI (docs/clients.md, \"Debug tokens\"); refused in production unless debug_tokens_in_production = \"allow\". `off` (default)."
  type        = string
  default     = "off"

  validation {
    condition     = contains(["on", "off"], var.debug_tokens)
    error_message = "debug_tokens must be \"on\" or \"off\"."
  }
}

variable "debug_tokens_in_production" {
  description = "DEBUG_TOKENS_IN_PRODUCTION: `allow` is the explicit second setting that lets debug_tokens = \"on\" start with environment = \"production\"; `refuse` (default)."
  type        = string
  default     = "refuse"

  validation {
    condition     = contains(["allow", "refuse"], var.debug_tokens_in_production)
    error_message = "debug_tokens_in_production must be \"allow\" or \"refuse\"."
  }
}
