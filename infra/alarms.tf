# Alarms on the EMF metrics of the decision log line (namespace AttestGate; dimension sets [environment]
# and [environment, route, mode]; `route` is the route's feature name), on the function's errors and on
# the table's contention (AWS/Lambda and AWS/DynamoDB, which AWS emits, not the decision line).
# infra/tests/check_metrics.py replays real decision lines against every AttestGate metric and dimension
# used here, and refuses any other namespace than those two AWS ones.

locals {
  alarm_actions = var.alarm_sns_topic_arn == "" ? [] : [var.alarm_sns_topic_arn]

  # Every alarm of this file (the dashboard's alarm widget shows their state).
  alarm_arns = concat(
    [
      aws_cloudwatch_metric_alarm.budget_warning.arn,
      aws_cloudwatch_metric_alarm.budget_exhausted.arn,
      aws_cloudwatch_metric_alarm.block_spike.arn,
      aws_cloudwatch_metric_alarm.transaction_conflicts.arn,
      aws_cloudwatch_metric_alarm.write_throttles.arn,
    ],
    [for a in aws_cloudwatch_metric_alarm.function_errors : a.arn],
    [for a in aws_cloudwatch_metric_alarm.function_throttles : a.arn],
    [for a in aws_cloudwatch_metric_alarm.unavailable_spike : a.arn],
  )
}

# The daily ceiling passed its warning mark (80 %): the day's single warning. A decision is needed
# (raise AI_DAILY_CALL_CEILING, or accept that guests will be refused later today).
resource "aws_cloudwatch_metric_alarm" "budget_warning" {
  alarm_name          = "${local.name}-ceiling-warning"
  alarm_description   = "AttestGate ${var.environment}: the daily AI call ceiling reached its warning mark (budget_warning). See docs/deploy.md."
  namespace           = "AttestGate"
  metric_name         = "budget_warning"
  dimensions          = { environment = var.environment }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# The ceiling is exhausted: unpaid AI calls are refused with 503 daily_budget_exhausted. An incident.
resource "aws_cloudwatch_metric_alarm" "budget_exhausted" {
  alarm_name          = "${local.name}-ceiling-exhausted"
  alarm_description   = "AttestGate ${var.environment}: the daily AI call ceiling is exhausted; guests get 503 daily_budget_exhausted (budget_exhausted)."
  namespace           = "AttestGate"
  metric_name         = "budget_exhausted"
  dimensions          = { environment = var.environment }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# Enforce mode refusing more than usual, across routes: an attack, or a client/server mismatch locking
# genuine users out (check the reason slugs in the decision lines).
resource "aws_cloudwatch_metric_alarm" "block_spike" {
  alarm_name          = "${local.name}-block-spike"
  alarm_description   = "AttestGate ${var.environment}: more than ${var.block_spike_threshold} calls blocked in 5 minutes (block)."
  namespace           = "AttestGate"
  metric_name         = "block"
  dimensions          = { environment = var.environment }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = var.block_spike_threshold
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# Verification could not answer (store or Google down) on a route: the route's onUnavailable policy is
# deciding instead of the proof. One alarm per route, on the [environment, route, mode] dimension set.
resource "aws_cloudwatch_metric_alarm" "unavailable_spike" {
  for_each            = local.route_modes
  alarm_name          = "${local.name}-unavailable-spike-${each.key}"
  alarm_description   = "AttestGate ${var.environment}: more than ${var.unavailable_spike_threshold} UNAVAILABLE verifications in 5 minutes on route ${each.key} (${each.value})."
  namespace           = "AttestGate"
  metric_name         = "unavailable"
  dimensions          = { environment = var.environment, route = each.key, mode = each.value }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = var.unavailable_spike_threshold
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# A function itself failing (init errors, crashes, timeouts): AWS/Lambda Errors, one alarm per function
# (the guest, signed-in and stream functions: local.functions).
resource "aws_cloudwatch_metric_alarm" "function_errors" {
  for_each            = local.functions
  alarm_name          = "${each.value.function_name}-function-errors"
  alarm_description   = "AttestGate ${var.environment}: the ${replace(each.key, "_", "-")} function reported errors (AWS/Lambda Errors)."
  namespace           = "AWS/Lambda"
  metric_name         = "Errors"
  dimensions          = { FunctionName = aws_lambda_function.attestgate[each.key].function_name }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = var.function_errors_threshold
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# A function refusing invocations past its reserved concurrency (AWS/Lambda Throttles), one alarm per
# function. On the guest function: guests get API Gateway's 5xx while its pool is full (a slow provider, a
# flood of minted IDs). On the stream function: streams get 429 from the Function URL while every stream
# execution is held (a flood of stream requests, slow readers), which no longer touches the guest pool;
# sustained, stream_reserved_concurrency is too small for the day's streams (docs/operations.md).
resource "aws_cloudwatch_metric_alarm" "function_throttles" {
  for_each            = local.functions
  alarm_name          = "${each.value.function_name}-function-throttles"
  alarm_description   = "AttestGate ${var.environment}: the ${replace(each.key, "_", "-")} function refused invocations past its reserved concurrency (AWS/Lambda Throttles). See docs/operations.md."
  namespace           = "AWS/Lambda"
  metric_name         = "Throttles"
  dimensions          = { FunctionName = aws_lambda_function.attestgate[each.key].function_name }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  threshold           = var.function_throttles_threshold
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# The table's item-level requests refused for a transaction conflict (AWS/DynamoDB TransactionConflict):
# a write on an item a TransactWriteItems holds, or two transactions on one item. The gate sends each again
# until the deadline (docs/dynamodb.md, "Contention"), so conflicts are expected at peaks. The threshold is
# a starting point, an estimate: 20 a second per ceiling shard, about what shards carrying their planned
# peak produce (20-50 calls/s each at half-time held: docs/dynamodb.md, "Capacity"). 15 minutes above it
# means the peak outgrew AI_CEILING_SHARDS: size it again, between days (docs/operations.md).
resource "aws_cloudwatch_metric_alarm" "transaction_conflicts" {
  alarm_name          = "${local.name}-transaction-conflicts"
  alarm_description   = "AttestGate ${var.environment}: more than ${var.ai_ceiling_shards * 6000} transaction conflicts per 5 minutes for 15 minutes on the table (AWS/DynamoDB TransactionConflict). See docs/operations.md, DynamoDB contention."
  namespace           = "AWS/DynamoDB"
  metric_name         = "TransactionConflict"
  dimensions          = { TableName = aws_dynamodb_table.main.name }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 3
  datapoints_to_alarm = 3
  threshold           = var.ai_ceiling_shards * 6000
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

# Writes throttled on the table for 15 minutes (AWS/DynamoDB WriteThrottleEvents): an item or partition
# written past 1,000 write units a second (too few ceiling shards, one hot row), or the table past its
# quota or warm throughput. Throttled writes are tried again until the deadline; sustained, calls fail.
resource "aws_cloudwatch_metric_alarm" "write_throttles" {
  alarm_name          = "${local.name}-write-throttles"
  alarm_description   = "AttestGate ${var.environment}: the table throttled writes in each of 3 consecutive 5-minute periods (AWS/DynamoDB WriteThrottleEvents). See docs/operations.md, DynamoDB contention."
  namespace           = "AWS/DynamoDB"
  metric_name         = "WriteThrottleEvents"
  dimensions          = { TableName = aws_dynamodb_table.main.name }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 3
  datapoints_to_alarm = 3
  threshold           = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
}

moved {
  from = aws_cloudwatch_metric_alarm.function_errors
  to   = aws_cloudwatch_metric_alarm.function_errors["guest"]
}
