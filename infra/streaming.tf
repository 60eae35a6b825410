# Streamed routes (ROUTES entries with stream = true): answered through Lambda response streaming.
#
# API Gateway HTTP APIs invoke the function buffered, so streamed routes are not on them: they are served
# by a Lambda Function URL in RESPONSE_STREAM mode, next to the HTTP APIs that keep every buffered
# route. The function streams each answer with the HTTP integration prelude (status, headers, cookies,
# then eight NUL bytes), refusals included, so a client sees the same statuses and JSON errors either way.
#
# A Function URL has no JWT authorizer (its auth types are NONE and AWS_IAM), so requests through it
# never carry requestContext.authorizer.jwt claims: streamed routes serve guests only (X-Device-ID and
# attestation headers, the guest allowance, the daily ceiling). Signed-in and paying users call a
# buffered route on the signed-in API instead (docs/deploy.md, docs/streaming.md).
#
# The URL invokes a function of its own, `<name>-stream` (local.functions in lambda.tf: the same zip, role
# and environment as the guest function), never the guest function. A stream holds its execution until its
# last byte, up to maxStreamSeconds (and a slow reader holds it that long too), so streams sharing the
# guest function's reserved concurrency would let a flood of cheap stream requests, or a few slow readers,
# take every execution that challenges, key registrations and the buffered routes need. Apart, a full
# stream pool only refuses further streams.
#
# A Function URL has no throttle of its own (no stage, no rate or burst setting): the function's reserved
# concurrency is its limit. Past it Lambda refuses the request with HTTP 429 (TooManyRequestsException),
# and also past 10 requests a second per reserved execution (AWS Lambda Developer Guide, "Creating and
# managing Lambda function URLs", "Throttling function URLs"). stream_reserved_concurrency sets it; 0
# refuses every stream with 429, the documented way to switch the URL off.

locals {
  streamed_routes     = [for r in var.routes : r if coalesce(r.stream, false)]
  streaming_enabled   = length(local.streamed_routes) > 0
  max_stream_seconds  = max(concat([0], [for r in local.streamed_routes : coalesce(r.maxStreamSeconds, 60)])...)
  streamed_route_keys = [for r in local.streamed_routes : "${upper(r.method)} ${r.path}"]
}

resource "aws_lambda_function_url" "stream" {
  #checkov:skip=CKV_AWS_258:Streamed guest routes are public by design, like the guest HTTP API: the function verifies App Attest / Play Integrity proofs and meters every call itself.
  count              = local.streaming_enabled ? 1 : 0
  function_name      = aws_lambda_function.attestgate["stream"].function_name
  authorization_type = "NONE"
  invoke_mode        = "RESPONSE_STREAM"

  lifecycle {
    precondition {
      condition     = var.lambda_timeout_seconds > local.max_stream_seconds
      error_message = "lambda_timeout_seconds must exceed every streamed route's maxStreamSeconds (60 by default): Lambda stops a streamed response at the function's timeout."
    }
  }
}

resource "aws_lambda_permission" "stream_url" {
  #checkov:skip=CKV_AWS_301:The permission is scoped to InvokeFunctionUrl with auth type NONE: the public streaming URL of guest routes, which the function gates and meters itself.
  count                  = local.streaming_enabled ? 1 : 0
  statement_id           = "AllowStreamingFunctionURL"
  action                 = "lambda:InvokeFunctionUrl"
  function_name          = aws_lambda_function.attestgate["stream"].function_name
  principal              = "*"
  function_url_auth_type = "NONE"
}
