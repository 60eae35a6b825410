# One CloudWatch dashboard for the environment: the decisions per route and mode, the daily ceiling, the
# alarms' state, each function's executions, throttles and errors, the table's contention, and the decision
# lines' top refusal reasons and busiest device IDs.
#
# Every metric it draws is named in local.dashboard_metrics, and the widgets are built only from there:
# infra/tests/check_metrics.py replays decision lines against each AttestGate metric and dimension set of
# that map (as it does for the alarms) and accepts an AWS/* metric only from its allow-list.

locals {
  dashboard_metrics = {
    # The decision line's EMF metrics (Sources/5-Layers/Gate/Call/DecisionRecord.swift), one line per route
    # with the route's effective mode, as the unavailable alarms use them.
    by_route = {
      namespace  = "AttestGate"
      dimensions = ["environment", "route", "mode"]
      metrics    = ["attestation_check", "would_block", "block", "unavailable", "unproven", "quota_exhausted", "device_blocked"]
    }
    # The same line's metrics for the whole environment: the daily ceiling's use and refusals.
    by_environment = {
      namespace  = "AttestGate"
      dimensions = ["environment"]
      metrics    = ["budget_used", "budget_warning", "budget_exhausted", "quota_exhausted", "unproven"]
    }
    # The day's ceiling as each reservation saw it: each limit's use as a fraction of the limit in force, and
    # the micro-dollars reserved but not settled (docs/operations.md, "The decision line").
    ceiling = {
      namespace  = "AttestGate"
      dimensions = ["environment"]
      metrics    = ["ceilingCallUse", "ceilingCostUse", "ceilingDriftMicros"]
    }
    # Money and tokens per route and model (a model outside the route's `models` is "other").
    spend = {
      namespace  = "AttestGate"
      dimensions = ["environment", "route", "model"]
      metrics    = ["costMicros", "costReservedMicros", "inputTokens", "outputTokens"]
    }
    # The table's contention (AWS publishes these; docs/operations.md, "DynamoDB contention").
    table = {
      namespace  = "AWS/DynamoDB"
      dimensions = ["TableName"]
      metrics    = ["TransactionConflict", "WriteThrottleEvents"]
    }
    # Each function's pool (guest, signed-in, stream; local.functions): executions in use against its
    # reserved concurrency, the invocations it refused past it, and its errors (AWS publishes these).
    functions = {
      namespace  = "AWS/Lambda"
      dimensions = ["FunctionName"]
      metrics    = ["ConcurrentExecutions", "Throttles", "Errors"]
    }
  }

  # The decisions the refusal widget counts (the decision line's `decision` field).
  dashboard_refusal_decisions = ["block", "quota_exhausted", "budget_exhausted", "device_blocked"]

  # Every function's log group, as a Logs Insights SOURCE list.
  dashboard_log_sources = join(" | ", [for g in aws_cloudwatch_log_group.function : "SOURCE '${g.name}'"])

  dashboard_route_widgets = [
    for metric in local.dashboard_metrics.by_route.metrics : {
      type   = "metric"
      width  = 12
      height = 6
      properties = {
        title  = "${metric} per route and mode"
        region = var.aws_region
        view   = "timeSeries"
        stat   = "Sum"
        period = 300
        metrics = [
          for route, mode in local.route_modes : concat(
            [local.dashboard_metrics.by_route.namespace, metric],
            flatten([for d in local.dashboard_metrics.by_route.dimensions : [d, { environment = var.environment, route = route, mode = mode }[d]]]),
          )
        ]
      }
    }
  ]

  dashboard_environment_widget = {
    type   = "metric"
    width  = 12
    height = 6
    properties = {
      title  = "Daily ceiling and refusals (${var.environment})"
      region = var.aws_region
      view   = "timeSeries"
      stat   = "Sum"
      period = 300
      metrics = [
        for metric in local.dashboard_metrics.by_environment.metrics : concat(
          [local.dashboard_metrics.by_environment.namespace, metric],
          flatten([for d in local.dashboard_metrics.by_environment.dimensions : [d, { environment = var.environment }[d]]]),
        )
      ]
    }
  }

  # Every (route, model) pair the spend metrics can carry: the route's models and "other".
  dashboard_route_models = flatten([
    for r in var.routes : [for m in concat(coalesce(r.models, []), ["other"]) : { route = r.feature, model = m }]
  ])

  dashboard_ceiling_widget = {
    type   = "metric"
    width  = 12
    height = 6
    properties = {
      title  = "Ceiling use, fraction of the limit in force, and unsettled micro-dollars (${var.environment})"
      region = var.aws_region
      view   = "timeSeries"
      stat   = "Maximum"
      period = 300
      metrics = [
        for metric in local.dashboard_metrics.ceiling.metrics : concat(
          [local.dashboard_metrics.ceiling.namespace, metric],
          flatten([for d in local.dashboard_metrics.ceiling.dimensions : [d, { environment = var.environment }[d]]]),
          metric == "ceilingDriftMicros" ? [{ yAxis = "right" }] : [],
        )
      ]
    }
  }

  # Settled spend per route and model per day, against the day's money budget (micro-dollars).
  dashboard_spend_widgets = [
    for metric in ["costMicros", "inputTokens"] : {
      type   = "metric"
      width  = 12
      height = 6
      properties = {
        title  = metric == "costMicros" ? "Settled spend per route and model (micro-dollars per day)" : "Input tokens per route and model (per day)"
        region = var.aws_region
        view   = "timeSeries"
        stat   = "Sum"
        period = 86400
        metrics = [
          for pair in local.dashboard_route_models : concat(
            [local.dashboard_metrics.spend.namespace, metric],
            flatten([for d in local.dashboard_metrics.spend.dimensions : [d, { environment = var.environment, route = pair.route, model = pair.model }[d]]]),
          )
        ]
        annotations = metric == "costMicros" && local.ai_daily_cost_ceiling_usd != "0" ? {
          horizontal = [{ label = "AI_DAILY_COST_CEILING_USD", value = tonumber(local.ai_daily_cost_ceiling_usd) * 1000000 }]
        } : {}
      }
    }
  ]

  dashboard_table_widget = {
    type   = "metric"
    width  = 12
    height = 6
    properties = {
      title  = "Table contention (${aws_dynamodb_table.main.name})"
      region = var.aws_region
      view   = "timeSeries"
      stat   = "Sum"
      period = 300
      metrics = [
        for metric in local.dashboard_metrics.table.metrics : concat(
          [local.dashboard_metrics.table.namespace, metric],
          flatten([for d in local.dashboard_metrics.table.dimensions : [d, { TableName = aws_dynamodb_table.main.name }[d]]]),
        )
      ]
    }
  }

  # One widget per metric, one line per function: the stream pool full (ConcurrentExecutions at
  # stream_reserved_concurrency, Throttles above 0) beside a guest pool that is not.
  dashboard_function_widgets = [
    for metric in local.dashboard_metrics.functions.metrics : {
      type   = "metric"
      width  = 8
      height = 6
      properties = {
        title  = "${metric} per function"
        region = var.aws_region
        view   = "timeSeries"
        stat   = metric == "ConcurrentExecutions" ? "Maximum" : "Sum"
        period = 60
        metrics = [
          for pool, spec in local.functions : concat(
            [local.dashboard_metrics.functions.namespace, metric],
            flatten([for d in local.dashboard_metrics.functions.dimensions : [d, { FunctionName = aws_lambda_function.attestgate[pool].function_name }[d]]]),
          )
        ]
      }
    }
  ]

  dashboard_alarm_widget = {
    type   = "alarm"
    width  = 12
    height = 6
    properties = {
      title  = "Alarms"
      alarms = local.alarm_arns
    }
  }

  dashboard_log_widgets = [
    {
      type   = "log"
      width  = 12
      height = 8
      properties = {
        title  = "Top refusal reasons (${join(", ", local.dashboard_refusal_decisions)})"
        region = var.aws_region
        view   = "table"
        query  = "${local.dashboard_log_sources} | fields decision, reason, route | filter logger = \"attestgate.decision\" and decision in ${jsonencode(local.dashboard_refusal_decisions)} | stats count(*) as refusals by decision, reason, route | sort refusals desc | limit 25"
      }
    },
    {
      type   = "log"
      width  = 12
      height = 8
      properties = {
        title  = "Top device IDs by metered calls"
        region = var.aws_region
        view   = "table"
        query  = "${local.dashboard_log_sources} | fields device, route, decision | filter logger = \"attestgate.decision\" and ispresent(device) | stats count(*) as calls by device | sort calls desc | limit 25"
      }
    },
  ]
}

resource "aws_cloudwatch_dashboard" "main" {
  dashboard_name = local.name
  dashboard_body = jsonencode({
    widgets = concat(
      [local.dashboard_alarm_widget, local.dashboard_environment_widget, local.dashboard_ceiling_widget],
      local.dashboard_spend_widgets,
      local.dashboard_route_widgets,
      local.dashboard_function_widgets,
      [local.dashboard_table_widget],
      local.dashboard_log_widgets,
    )
  })
}
