#!/usr/bin/env bash
# make ci-ddb-local / make ci-ddb-selftest: moto (local-harness/moto_server.py, one lock around each request)
# and the loss proxy on free 127.0.0.1 ports, the resend harness against them, and both stopped afterwards
# whatever happens (success, failure, Ctrl-C). docs/resend-harness.md explains the checks.
#
#   local-harness/ci_ddb_local.sh HARNESS_BINARY [harness arguments...]    run the harness; its exit status
#   local-harness/ci_ddb_local.sh --selftest HARNESS_BINARY                 the harness's own test (below)
#
# --selftest runs the counter-advance check twice for real: as shipped (must pass), then with the product
# write's own-write token removed (--break counter_advance: the product side runs the token-less write),
# which must make exactly that check fail, with a non-zero exit and the closing count saying so.
set -euo pipefail

selftest=0
if [ "${1:-}" = "--selftest" ]; then
    selftest=1
    shift
fi
if [ "$#" -lt 1 ]; then
    echo "usage: $0 [--selftest] HARNESS_BINARY [ARGS...]" >&2
    exit 2
fi
harness=$1
shift

PYTHON=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
moto_port=$(free_port)
proxy_port=$(free_port)
control_port=$(free_port)
logdir=$(mktemp -d -t ddb-harness.XXXXXX)
pids=()

cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$logdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$PYTHON" "$here/moto_server.py" -H 127.0.0.1 -p "$moto_port" >"$logdir/moto.log" 2>&1 &
pids+=($!)
"$PYTHON" "$here/loss_proxy.py" --listen "$proxy_port" --control "$control_port" \
    --upstream "http://127.0.0.1:$moto_port" >"$logdir/proxy.log" 2>&1 &
pids+=($!)

wait_for() {  # URL NAME LOG
    for _ in $(seq 1 300); do
        if "$PYTHON" -c "import urllib.request; urllib.request.urlopen('$1', timeout=1)" 2>/dev/null; then return 0; fi
        for pid in "${pids[@]}"; do
            if ! kill -0 "$pid" 2>/dev/null; then
                echo "ci_ddb_local: $2 exited early:" >&2
                cat "$3" >&2
                exit 1
            fi
        done
        sleep 0.1
    done
    echo "ci_ddb_local: $2 did not answer on $1" >&2
    exit 1
}
wait_for "http://127.0.0.1:$moto_port/moto-api/" moto "$logdir/moto.log"
wait_for "http://127.0.0.1:$control_port/stats" "loss proxy" "$logdir/proxy.log"

export DYNAMODB_ENDPOINT="http://127.0.0.1:$moto_port"
export LOSS_PROXY_ENDPOINT="http://127.0.0.1:$proxy_port"
export LOSS_PROXY_CONTROL="http://127.0.0.1:$control_port"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
echo "ci_ddb_local: moto $DYNAMODB_ENDPOINT, loss proxy $LOSS_PROXY_ENDPOINT (control $LOSS_PROXY_CONTROL)" >&2

if [ "$selftest" -eq 0 ]; then
    status=0
    "$harness" "$@" || status=$?
    exit "$status"
fi

# The harness's own test.
echo "== self-test 1/2: counter advance as shipped (must pass)"
status=0
"$harness" --only counter_advance | tee "$logdir/good.out" || status=$?
if [ "$status" -ne 0 ] || ! grep -qx '3 passed, 0 failed' "$logdir/good.out"; then
    echo "ci_ddb_local: SELF-TEST FAILED: the intact counter-advance check did not pass (exit $status)" >&2
    exit 1
fi
echo "== self-test 2/2: counter advance with its own-write token removed (must fail)"
status=0
# The broken run's own summary is shown indented, so that no "N passed, N failed" line of a run that is
# meant to fail can be read as this target's result.
"$harness" --only counter_advance --break counter_advance >"$logdir/broken.out" || status=$?
sed 's/^/    broken run | /' "$logdir/broken.out"
if [ "$status" -eq 0 ]; then
    echo "ci_ddb_local: SELF-TEST FAILED: the harness passed a counter advance without its token" >&2
    exit 1
fi
for method in resend-hook loss-proxy; do
    if ! grep -q "^FAIL | counter advance | $method | product WITH ITS TOKEN REMOVED" "$logdir/broken.out"; then
        echo "ci_ddb_local: SELF-TEST FAILED: no failing $method line for the broken counter advance" >&2
        exit 1
    fi
done
if ! grep -qx '1 passed, 2 failed' "$logdir/broken.out"; then
    echo "ci_ddb_local: SELF-TEST FAILED: expected exactly the two resend lines to fail" >&2
    exit 1
fi
echo "ci_ddb_local: self-test passed: removing the counter advance's token fails its check (exit $status)"
