# Alarms on the EMF metrics of the decision log line (namespace AttestGate; dimension sets [environment]
# and [environment, route, mode]; `route` is the route's feature name) and on the function's errors.
# infra/tests/check_metrics.py replays real decision lines against every metric and dimension used here.

locals {
  alarm_actions = var.alarm_sns_topic_arn == "" ? [] : [var.alarm_sns_topic_arn]
}

# The daily ceiling passed its warning mark (80 %): the day's single warning. A decision is needed
# (raise AI_DAILY_CALL_BUDGET, or accept that guests will be refused later today).
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

# A function itself failing (init errors, crashes, timeouts): AWS/Lambda Errors, one alarm per function.
resource "aws_cloudwatch_metric_alarm" "function_errors" {
  for_each            = local.apis
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

moved {
  from = aws_cloudwatch_metric_alarm.function_errors
  to   = aws_cloudwatch_metric_alarm.function_errors["guest"]
}
