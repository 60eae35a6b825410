# Secrets the function reads at cold start (the *_SECRET_ARN settings). Terraform creates the containers
# only: values are set outside Terraform (docs/deploy.md), so they never enter the state file.

resource "aws_secretsmanager_secret" "google_service_account" {
  #checkov:skip=CKV2_AWS_57:The value is a Google service-account key, rotated in Google Cloud and put here by hand (docs/deploy.md); a Lambda rotator cannot mint Google keys.
  name        = "${local.name}/google-service-account"
  description = "Google service-account JSON key for Play Integrity decodeIntegrityToken (GOOGLE_SERVICE_ACCOUNT_SECRET_ARN)."
  kms_key_id  = local.kms_key_id
}

resource "aws_secretsmanager_secret" "upstream_api_key" {
  #checkov:skip=CKV2_AWS_57:The upstream AI provider issues and rotates this key in its own console; the new value is put here by hand (docs/deploy.md).
  name        = "${local.name}/upstream-api-key"
  description = "Key of the upstream AI HTTP API (UPSTREAM_API_KEY_SECRET_ARN)."
  kms_key_id  = local.kms_key_id
}

resource "aws_secretsmanager_secret" "devicecheck_key" {
  #checkov:skip=CKV2_AWS_57:Apple issues DeviceCheck keys in the developer portal; rotation is a manual put (docs/deploy.md).
  count       = local.devicecheck_enabled ? 1 : 0
  name        = "${local.name}/devicecheck-private-key"
  description = "Apple DeviceCheck private key, PEM (DEVICECHECK_PRIVATE_KEY_SECRET_ARN)."
  kms_key_id  = local.kms_key_id
}
