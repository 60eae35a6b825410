#!/usr/bin/env bash
# Runs a command with moto's server (DynamoDB, Secrets Manager) on a free 127.0.0.1 port, and stops the
# server afterwards whatever happens (success, failure, Ctrl-C).
#
#   local-harness/with_moto.sh swift test --skip-build
#
# The command sees DYNAMODB_ENDPOINT=http://127.0.0.1:<port> and dummy AWS credentials and region, so
# nothing it does can reach a real AWS account. MOTO_ENDPOINT carries the same URL for other services.
# DynamoDB there is moto behind the stand-in's rules (transaction holds, per-item throughput), on by default;
# DDB_STANDIN_* variables tune them, DDB_STANDIN_RULES=none turns them off (local-harness/README.md).
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

PYTHON=${PYTHON:-python3}
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
log=$(mktemp -t moto.XXXXXX)

# moto_server.py is moto's own server application with each request handled atomically (plain moto_server
# evaluates conditional writes without a lock, so race tests would measure moto, not our conditions).
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/moto_server.py" ]; then
    "$PYTHON" "$here/moto_server.py" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
elif command -v moto_server >/dev/null 2>&1; then
    moto_server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
else
    "$PYTHON" -m moto.server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
fi
moto_pid=$!

cleanup() {
    kill "$moto_pid" 2>/dev/null || true
    wait "$moto_pid" 2>/dev/null || true
    rm -f "$log"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Wait (up to 30 s) until the server answers HTTP.
for _ in $(seq 1 300); do
    if "$PYTHON" -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/moto-api/', timeout=1)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$moto_pid" 2>/dev/null; then
        echo "with_moto: moto_server exited early:" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 0.1
done

export DYNAMODB_ENDPOINT="http://127.0.0.1:$port"
export MOTO_ENDPOINT="$DYNAMODB_ENDPOINT"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_SESSION_TOKEN=testing
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
echo "with_moto: moto on $DYNAMODB_ENDPOINT (pid $moto_pid)" >&2

status=0
"$@" || status=$?
exit "$status"
