# HTTP API (payload format 2.0) in front of the functions.
#
# The guest API carries the attestation endpoints and every metered route, without an authorizer: guests
# prove themselves with attestation headers. HTTP APIs cannot make a JWT optional on a route, so when
# jwt_issuer is set, signed-in clients call a second API whose metered routes all require the JWT; its
# function then sees requestContext.authorizer.jwt.claims.sub, skips the gate and meters the user.
#
# Each API has its own function (the same zip and settings, lambda.tf), its own reserved concurrency and
# its own stage throttle, so guests filling their pool (slow upstream calls, a flood of minted IDs) never
# take an execution or a request slot from signed-in users.

locals {
  apis = merge(
    {
      guest = {
        route_keys           = concat(local.attest_route_keys, local.metered_route_keys)
        jwt                  = false
        function_name        = local.name
        reserved_concurrency = var.lambda_reserved_concurrency
        throttle_burst       = var.api_throttle_burst
        throttle_rate        = var.api_throttle_rate
      }
    },
    var.jwt_issuer == "" ? {} : {
      signed_in = {
        route_keys           = local.metered_route_keys
        jwt                  = true
        function_name        = "${local.name}-signed-in"
        reserved_concurrency = var.signed_in_reserved_concurrency
        throttle_burst       = var.signed_in_api_throttle_burst
        throttle_rate        = var.signed_in_api_throttle_rate
      }
    },
  )
  api_routes = merge([
    for api, spec in local.apis : { for key in spec.route_keys : "${api} ${key}" => { api = api, key = key, jwt = spec.jwt } }
  ]...)
}

resource "aws_apigatewayv2_api" "this" {
  for_each      = local.apis
  name          = "${local.name}-${replace(each.key, "_", "-")}"
  description   = each.key == "guest" ? "AttestGate guest API (attestation headers)" : "AttestGate signed-in API (JWT required)"
  protocol_type = "HTTP"
}

resource "aws_apigatewayv2_integration" "function" {
  for_each               = local.apis
  api_id                 = aws_apigatewayv2_api.this[each.key].id
  integration_type       = "AWS_PROXY"
  integration_uri        = aws_lambda_function.attestgate[each.key].invoke_arn
  payload_format_version = "2.0"
  timeout_milliseconds   = 30000
}

resource "aws_apigatewayv2_authorizer" "jwt" {
  count            = var.jwt_issuer == "" ? 0 : 1
  api_id           = aws_apigatewayv2_api.this["signed_in"].id
  name             = "${local.name}-jwt"
  authorizer_type  = "JWT"
  identity_sources = ["$request.header.Authorization"]

  jwt_configuration {
    issuer   = var.jwt_issuer
    audience = var.jwt_audience
  }
}

resource "aws_apigatewayv2_route" "this" {
  #checkov:skip=CKV_AWS_309:Guest routes are public by design: the function verifies App Attest / Play Integrity proofs on every metered call; signed-in routes use the JWT authorizer.
  for_each           = local.api_routes
  api_id             = aws_apigatewayv2_api.this[each.value.api].id
  route_key          = each.value.key
  target             = "integrations/${aws_apigatewayv2_integration.function[each.value.api].id}"
  authorization_type = each.value.jwt ? "JWT" : "NONE"
  authorizer_id      = each.value.jwt ? aws_apigatewayv2_authorizer.jwt[0].id : null
}

resource "aws_cloudwatch_log_group" "api" {
  #checkov:skip=CKV_AWS_338:Retention is the log_retention_days variable (90 days by default); access logs carry client IPs.
  for_each          = local.apis
  name              = "/aws/apigateway/${local.name}-${replace(each.key, "_", "-")}"
  retention_in_days = var.log_retention_days
  kms_key_id        = local.kms_key_id
}

resource "aws_apigatewayv2_stage" "default" {
  for_each    = local.apis
  api_id      = aws_apigatewayv2_api.this[each.key].id
  name        = "$default"
  auto_deploy = true

  default_route_settings {
    throttling_burst_limit = each.value.throttle_burst
    throttling_rate_limit  = each.value.throttle_rate
  }

  access_log_settings {
    destination_arn = aws_cloudwatch_log_group.api[each.key].arn
    format = jsonencode({
      requestId      = "$context.requestId"
      ip             = "$context.identity.sourceIp"
      requestTime    = "$context.requestTime"
      routeKey       = "$context.routeKey"
      status         = "$context.status"
      responseLength = "$context.responseLength"
      latencyMs      = "$context.responseLatency"
      integrationErr = "$context.integrationErrorMessage"
    })
  }
}

resource "aws_lambda_permission" "api" {
  for_each      = local.apis
  statement_id  = "AllowInvokeFrom-${each.key}"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.attestgate[each.key].function_name
  principal     = "apigateway.amazonaws.com"
  source_arn    = "${aws_apigatewayv2_api.this[each.key].execution_arn}/*/*"
}
