output "api_url" {
  description = "Base URL of the guest API (attestation endpoints and metered routes), e.g. <api_url>/v1/attest/challenge."
  value       = aws_apigatewayv2_stage.default["guest"].invoke_url
}

output "signed_in_api_url" {
  description = "Base URL of the signed-in API (metered routes behind the JWT authorizer); null when jwt_issuer is empty."
  value       = var.jwt_issuer == "" ? null : aws_apigatewayv2_stage.default["signed_in"].invoke_url
}

output "stream_url" {
  description = "Base URL of the streaming Function URL (routes with stream = true, guests only), which invokes the stream function; null without streamed routes."
  value       = local.streaming_enabled ? aws_lambda_function_url.stream[0].function_url : null
}

output "function_name" {
  description = "Name of the guest Lambda function (for `aws lambda update-function-configuration`, logs, rollbacks)."
  value       = aws_lambda_function.attestgate["guest"].function_name
}

output "function_arn" {
  description = "ARN of the guest Lambda function."
  value       = aws_lambda_function.attestgate["guest"].arn
}

output "signed_in_function_name" {
  description = "Name of the signed-in Lambda function (same zip and settings, its own reserved concurrency); null when jwt_issuer is empty."
  value       = var.jwt_issuer == "" ? null : aws_lambda_function.attestgate["signed_in"].function_name
}

output "stream_function_name" {
  description = "Name of the streaming Lambda function behind stream_url (same zip and settings, its own reserved concurrency); null without streamed routes."
  value       = local.streaming_enabled ? aws_lambda_function.attestgate["stream"].function_name : null
}

output "table_name" {
  description = "Name of the DynamoDB table (TABLE_NAME)."
  value       = aws_dynamodb_table.main.name
}

output "table_arn" {
  description = "ARN of the DynamoDB table."
  value       = aws_dynamodb_table.main.arn
}

output "google_service_account_secret_arn" {
  description = "Secret to fill with the Google service-account JSON key (aws secretsmanager put-secret-value)."
  value       = aws_secretsmanager_secret.google_service_account.arn
}

output "upstream_api_key_secret_arn" {
  description = "Secret to fill with the upstream AI API key (aws secretsmanager put-secret-value)."
  value       = aws_secretsmanager_secret.upstream_api_key.arn
}

output "devicecheck_private_key_secret_arn" {
  description = "Secret to fill with the DeviceCheck private key PEM; null when DeviceCheck is off."
  value       = local.devicecheck_enabled ? aws_secretsmanager_secret.devicecheck_key[0].arn : null
}

output "function_log_group" {
  description = "CloudWatch log group of the guest function (decision lines and their EMF metrics)."
  value       = aws_cloudwatch_log_group.function["guest"].name
}

output "signed_in_function_log_group" {
  description = "CloudWatch log group of the signed-in function; null when jwt_issuer is empty."
  value       = var.jwt_issuer == "" ? null : aws_cloudwatch_log_group.function["signed_in"].name
}

output "stream_function_log_group" {
  description = "CloudWatch log group of the streaming function; null without streamed routes."
  value       = local.streaming_enabled ? aws_cloudwatch_log_group.function["stream"].name : null
}

output "alarm_names" {
  description = "Names of the CloudWatch alarms this module created."
  value = concat(
    [
      aws_cloudwatch_metric_alarm.budget_warning.alarm_name,
      aws_cloudwatch_metric_alarm.budget_exhausted.alarm_name,
      aws_cloudwatch_metric_alarm.block_spike.alarm_name,
      aws_cloudwatch_metric_alarm.transaction_conflicts.alarm_name,
      aws_cloudwatch_metric_alarm.write_throttles.alarm_name,
    ],
    [for a in aws_cloudwatch_metric_alarm.function_errors : a.alarm_name],
    [for a in aws_cloudwatch_metric_alarm.function_throttles : a.alarm_name],
    [for a in aws_cloudwatch_metric_alarm.unavailable_spike : a.alarm_name],
  )
}

output "dashboard_name" {
  description = "Name of the CloudWatch dashboard of this environment (infra/dashboard.tf): decisions per route and mode, the daily ceiling, the alarms, table contention, top refusal reasons and device IDs."
  value       = aws_cloudwatch_dashboard.main.dashboard_name
}
