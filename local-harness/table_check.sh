#!/usr/bin/env bash
# Checks `attestgate table create|describe` against the DynamoDB at DYNAMODB_ENDPOINT (run it through
# with_moto.sh): docs/api.md section 6's table (PK/SK strings, on-demand, TTL on TTL), JSON out, exit codes.
set -euo pipefail
bin=${1:-.build/debug/attestgate}
table="table-check-$$"

check() { # check JSON EXPRESSION: a Python expression over the parsed document `d`
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert eval(sys.argv[2]), sys.argv[1]' "$1" "$2"
}

out=$("$bin" table create --table "$table")
check "$out" 'd["created"] is True and d["table"] == "'"$table"'" and d["status"] == "ACTIVE"'
check "$out" 'd["keySchema"] == [{"attribute": "PK", "keyType": "HASH"}, {"attribute": "SK", "keyType": "RANGE"}]'
check "$out" 'sorted(x["type"] for x in d["attributeDefinitions"]) == ["S", "S"]'
check "$out" 'd["billingMode"] == "PAY_PER_REQUEST" and d["ttl"] == {"attribute": "TTL", "status": "ENABLED"}'

out=$("$bin" table create --table "$table")
check "$out" 'd["created"] is False and d["ttl"]["status"] == "ENABLED"'

out=$(TABLE_NAME="$table" "$bin" table describe)
check "$out" 'd["table"] == "'"$table"'" and "created" not in d'

status=0; out=$("$bin" table describe --table "missing-$table" 2>/dev/null) || status=$?
[ "$status" -eq 1 ] && check "$out" 'd == {"error": "dynamodb.resource_not_found"}'

status=0; "$bin" table frobnicate >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ]

echo "table_check: ok"
