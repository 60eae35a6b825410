#!/usr/bin/env bash
# Writes the routes of this Terraform configuration (var.routes, as the function reads them: local.routes_json) to
# a file, for a table too large for Lambda's 4 KB environment: build the zip with it, then apply with
# routes_in_package = true (infra/README.md, "The 4 KB environment"):
#
#   infra/routes-file.sh build/routes.json [-var-file=prod.tfvars ...]
#   make package ROUTES_FILE=build/routes.json
#   terraform -chdir=infra apply -var routes_in_package=true ...
#
# Needs an initialised infra/ (terraform init). The plan's precondition compares the zip's copy with
# local.routes_json, so the two cannot drift.
set -euo pipefail
out=${1:?usage: infra/routes-file.sh OUT.json [terraform console options]}
shift
cd "$(dirname "$0")"
echo 'local.routes_json' | terraform console "$@" | python3 -c '
import json, sys
text = sys.stdin.read().strip()
# terraform console prints an HCL string: JSON escapes, with ${ and %{ doubled.
value = json.loads(text).replace("$${", "${").replace("%%{", "%{")
json.loads(value)  # a JSON list, or fail here rather than in the Lambda
sys.stdout.write(value)
' > "$OLDPWD/$out"
echo "routes: $(wc -c < "$OLDPWD/$out") bytes in $out" >&2
