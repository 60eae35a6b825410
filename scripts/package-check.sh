#!/usr/bin/env bash
# Prove build/attestgate-lambda.zip runs with nothing but what is inside it.
#
# The zip is unpacked into an otherwise empty root, <tmp>/root/var/task: no /lib, no /lib64, no /usr, no
# /etc, no /dev; only an empty /tmp and a mounted /proc, which Lambda also gives every function (the Swift
# runtime reads argv from /proc/self/cmdline). Then, as root:
#   1. static checks: one binary, `bootstrap`, with `attestgate` a symbolic link to it (the operator CLI is
#      the same binary started under that name); its PT_INTERP and DT_RPATH point into /var/task/lib (RPATH,
#      not RUNPATH), no bundled library carries a RUNPATH, and every DT_NEEDED of every ELF file is in lib/;
#   2. the bundled loader lists the closure from inside the chroot (ldd-style): every line resolves
#      under /var/task/lib, nothing is "not found";
#   3. `attestgate config check` and `attestgate table create` (against moto's DynamoDB on loopback; the
#      script starts moto through local-harness/with_moto.sh unless DYNAMODB_ENDPOINT is set) run inside
#      the chroot;
#   4. `bootstrap` runs inside the chroot under local-harness/lambda_harness.py (the Runtime API on
#      127.0.0.1 and an HTTP API 2.0 front) and serves invocations: an unknown route (404), the tutor route
#      in mode off (200 from local-harness/fake_upstream.py), POST /v1/attest/challenge, the generation
#      route in mode monitor without proof (200: monitor never refuses) and with the issued challenge
#      against moto's table (X-Quota-Remaining, X-Attest-Next-Challenge), an enforce route without proof
#      (403 attestation_required) and calls until a 5-call daily ceiling refuses (503
#      daily_budget_exhausted); the real decision lines must then feed the block, budget_warning and
#      budget_exhausted alarms (infra/tests/check_metrics.py --require). While bootstrap does not serve
#      the challenge endpoint yet (404), that part prints a TODO and only checks that the gated route
#      fails closed (503); once it does, it is strict. Decision lines are saved to build/decision-lines.captured.log and replayed through
#      infra/tests/check_metrics.py.
# Steps 3 and 4 run with LD_DEBUG=libs and the LD_LIBRARY_PATH Lambda sets (/lib64 and /usr/lib64 before
# /var/task/lib); the check fails if the loader so much as tries a file outside /var/task.
#
# Usage: scripts/package-check.sh [zip]     (root required: chroot)
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$(pwd)
# moto's DynamoDB on a loopback port for the calls the packaged binaries make (with_moto.sh stops it after).
if [[ -z "${DYNAMODB_ENDPOINT:-}" ]]; then exec local-harness/with_moto.sh "$0" "$@"; fi
ZIP=${1:-build/attestgate-lambda.zip}
TASK=/var/task
LOADER=$TASK/lib/ld-linux-x86-64.so.2
PYTHON=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build}

fail() { echo "package-check: FAIL: $*" >&2; exit 1; }
ok() { echo "package-check: ok: $*"; }
[[ $(id -u) == 0 ]] || fail "must run as root (chroot)"
[[ -f "$ZIP" ]] || fail "$ZIP missing: run make package"
for tool in unzip readelf chroot; do command -v "$tool" >/dev/null || fail "$tool not found (make setup)"; done

WORK=$(mktemp -d /tmp/attestgate-package-check.XXXXXX)
ROOT=$WORK/root
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    if mountpoint -q "$ROOT/proc" 2>/dev/null; then umount -l "$ROOT/proc" || true; fi
    rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

mkdir -p "$ROOT$TASK" "$ROOT/tmp" "$ROOT/proc"
chmod 1777 "$ROOT/tmp"
unzip -q "$ZIP" -d "$ROOT$TASK"
[[ "$(cd "$ROOT" && find . -mindepth 1 -maxdepth 2 | LC_ALL=C sort | tr '\n' ' ')" == "./proc ./tmp ./var ./var/task " ]] ||
    fail "the root is not empty besides /var/task, /tmp and /proc"
ok "unpacked $ZIP into an empty root ($(find "$ROOT$TASK" -type f | wc -l) files; no /lib, /lib64, /usr, /etc, /dev)"
# Lambda gives every function /proc (a kernel interface, not part of the image): the Swift runtime reads
# argv from /proc/self/cmdline, so without it `attestgate config check` would see no arguments.
mount -t proc proc "$ROOT/proc" || fail "cannot mount /proc in the chroot"

# 1. Static checks: interpreter, search path, closure.
dyn() { readelf -d "$1" 2>/dev/null; }
[[ -f "$ROOT$TASK/bootstrap" && ! -L "$ROOT$TASK/bootstrap" ]] || fail "bootstrap is not a regular file at the zip root"
[[ -L "$ROOT$TASK/attestgate" && "$(readlink "$ROOT$TASK/attestgate")" == bootstrap ]] ||
    fail "attestgate is not a symbolic link to bootstrap (zip -y)"
executables=$(find "$ROOT$TASK" -type f ! -name '*.so*' -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print | wc -l)
((executables == 1)) || fail "the zip holds $executables ELF executables; one ships (bootstrap)"
ok "one binary: bootstrap, with attestgate a link to it"
for b in bootstrap; do
    f=$ROOT$TASK/$b
    [[ -x "$f" ]] || fail "$b is missing or not executable at the zip root"
    interp=$(readelf -l "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
    [[ "$interp" == "$LOADER" ]] || fail "$b: interpreter is '$interp', want $LOADER"
    rpath=$(dyn "$f" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
    [[ "$rpath" == "$TASK/lib" ]] || fail "$b: RPATH is '$rpath', want $TASK/lib"
    dyn "$f" | grep -q '(RUNPATH)' && fail "$b has a RUNPATH (it would rank below LD_LIBRARY_PATH)"
    # Its libraries by full path into lib/ (no search), the loader by its soname (it is the interpreter).
    for needed in $(dyn "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [[ "$needed" == "$(basename "$LOADER")" || "$needed" == "$TASK/lib/"* ]] \
            || fail "$b needs '$needed', want a full path into $TASK/lib"
    done
done
[[ -f "$ROOT$LOADER" ]] || fail "the loader is not in the zip"
missing=()
while IFS= read -r -d '' elf; do
    dyn "$elf" | grep -q '(RUNPATH)' && fail "${elf#"$ROOT"} has a RUNPATH"
    for needed in $(dyn "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        case "$needed" in
            "$TASK/lib/"*) [[ -f "$ROOT$needed" ]] || missing+=("${elf#"$ROOT"} needs $needed") ;;
            */*) missing+=("${elf#"$ROOT"} needs $needed, outside $TASK/lib") ;;
            *) [[ -f "$ROOT$TASK/lib/$needed" ]] || missing+=("${elf#"$ROOT"} needs $needed") ;;
        esac
    done
done < <(find "$ROOT$TASK" -type f \( -name bootstrap -o -name attestgate -o -name '*.so*' \) -print0)
((${#missing[@]} == 0)) || fail "not in the zip: ${missing[*]}"
ok "interpreter $LOADER, RPATH $TASK/lib, its libraries by full path on bootstrap; every DT_NEEDED is in lib/"

# 2. The bundled loader resolves the closure inside the chroot.
for b in bootstrap attestgate; do
    listing=$(env -i /usr/sbin/chroot "$ROOT" "$LOADER" --list "$TASK/$b") || fail "$LOADER --list $b failed: $listing"
    # A line is "name => path (address)" for a library found by search, "path (address)" for one named by
    # its full path (bootstrap's own); every path must be under /var/task/lib.
    bad=$(echo "$listing" | awk '/not found/ { print; next } $1 == "linux-vdso.so.1" { next }
        $2 == "=>" { if (index($3, "/var/task/lib/") != 1) print; next } index($1, "/var/task/lib/") != 1 { print }')
    [[ -z "$bad" ]] || fail "$b resolves outside $TASK/lib:"$'\n'"$bad"
    count=$(echo "$listing" | awk '$2 == "=>" || index($1, "/var/task/lib/") == 1' | wc -l)
    ((count >= 4)) || fail "$b: $count libraries listed, want glibc's three and libgcc_s:"$'\n'"$listing"
    ok "$b: $count libraries resolve under $TASK/lib inside the chroot"
done

# Lambda's environment for a provided.* function, minus anything that would point at the host.
LAMBDA_ENV=(
    LD_LIBRARY_PATH=/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:/opt/lib
    PATH=/usr/local/bin:/usr/bin/:/bin:/opt/bin
    LAMBDA_TASK_ROOT=$TASK LAMBDA_RUNTIME_DIR=/var/runtime _HANDLER=bootstrap TZ=:UTC LANG=en_US.UTF-8
    AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 AWS_LAMBDA_FUNCTION_NAME=attestgate
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512 'AWS_LAMBDA_FUNCTION_VERSION=$LATEST'
    AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_SESSION_TOKEN=testing
)

# Run a command inside the chroot with LD_DEBUG=libs; fail if the loader touched anything outside /var/task.
# Usage: in_chroot <label> <stdout-file> <env...> -- <command...>; returns the command's exit status.
in_chroot() {
    local label=$1 out=$2; shift 2
    local envs=()
    while [[ $1 != -- ]]; do envs+=("$1"); shift; done
    shift
    local rc=0
    # LD_DEBUG_OUTPUT is a path as seen by each process: the host's timeout/env/chroot write their traces
    # to the host's /tmp, the chrooted program to <root>/tmp, which is the only trace read here.
    rm -f "$ROOT"/tmp/attestgate-lddebug-*
    timeout "${CHROOT_TIMEOUT:-60}" env -i "${LAMBDA_ENV[@]}" "${envs[@]}" LD_DEBUG=libs \
        LD_DEBUG_OUTPUT=/tmp/attestgate-lddebug-$$ /usr/sbin/chroot "$ROOT" "$@" >"$out" 2>"$WORK/$label.err" || rc=$?
    rm -f /tmp/attestgate-lddebug-$$.*  # the host-side helpers' traces
    cat "$ROOT"/tmp/attestgate-lddebug-* >"$WORK/$label.lddebug" 2>/dev/null || true
    check_lddebug "$label" "$WORK/$label.lddebug"
    return $rc
}
check_lddebug() {
    local label=$1 dbg=$2
    local inits outside
    inits=$(grep -c 'calling init: ' "$dbg" || true)
    ((inits > 0)) || fail "$label: no loader trace (LD_DEBUG ignored?)"$'\n'"$(head -20 "$dbg")"
    outside=$(grep -oE '(trying file|calling init:|calling fini:) ?=? ?/[^ ]+' "$dbg" | grep -v "$TASK/" || true)
    [[ -z "$outside" ]] || fail "$label: the loader touched files outside $TASK:"$'\n'"$outside"
    ok "$label: $inits libraries initialised, every one from $TASK/lib (LD_DEBUG=libs)"
}

# 3. attestgate config check, as the Lambda would read its settings. ROUTES and GATE_MODE are what infra/
# deploys by default (infra/tests/tf_routes.py renders the `routes` variable as locals.tf does), so a
# Terraform default the function would refuse fails here.
TF_ROUTES=$("$PYTHON" infra/tests/tf_routes.py) || fail "cannot render ROUTES from infra/variables.tf"
CONFIG_ENV=(
    ATTESTGATE_ENV=development TABLE_NAME=attestgate-check-$$ DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT
    GATE_MODE=monitor "ROUTES=$TF_ROUTES" APPLE_TEAM_ID=ABCDE12345 APPLE_BUNDLE_IDS=com.example.app
    APP_ATTEST_ENVIRONMENT=development UPSTREAM_URL=http://127.0.0.1:9 UPSTREAM_API_KEY_FILE=/tmp/upstream-key
    LOG_LEVEL=debug
)
echo "package-check-upstream-key" >"$ROOT/tmp/upstream-key"
rc=0
in_chroot config-check "$WORK/config-check.out" "${CONFIG_ENV[@]}" -- "$TASK/attestgate" config check || rc=$?
echo "--- attestgate config check (exit $rc):"; cat "$WORK/config-check.out" "$WORK/config-check.err"
((rc == 0)) || fail "attestgate config check exited $rc inside the chroot"
ok "attestgate config check exited 0 inside the chroot"

# The packaged CLI's own DynamoDB calls (SigV4 over libcurl) from the empty root: create the table in moto.
rc=0
in_chroot table-create "$WORK/table.out" "${CONFIG_ENV[@]}" -- "$TASK/attestgate" table create || rc=$?
echo "--- attestgate table create against moto (exit $rc):"; cat "$WORK/table.out" "$WORK/table-create.err"
((rc == 0)) && grep -q '"status":"ACTIVE"' "$WORK/table.out" || fail "attestgate table create failed in the chroot"
ok "attestgate table create reached moto's DynamoDB from inside the chroot"

# 4. bootstrap serving invocations from the local Runtime API over loopback.
# local-harness/lambda_harness.py (a Runtime API per instance plus an HTTP API 2.0 front) starts the
# "bootstrap" it is given; here that is a host-side wrapper that clears the environment down to Lambda's plus
# the function's settings and execs `chroot <root> /var/task/bootstrap`. The fake upstream stands in for the
# AI API. Both helpers read stdin and stop at its end: they get a FIFO whose writer is this script, so they
# stop with it even if it dies.
HARNESS=$REPO/local-harness/lambda_harness.py
UPSTREAM=$REPO/local-harness/fake_upstream.py
[[ -f "$HARNESS" && -f "$UPSTREAM" ]] || fail "local-harness/lambda_harness.py or fake_upstream.py missing"
mkfifo "$WORK/hold"
exec 3<>"$WORK/hold"

wait_ready() {  # <file> <label>: the helper's {"ready":true,...} line
    local i line
    for i in $(seq 1 100); do
        line=$(head -n 1 "$1" 2>/dev/null || true)
        [[ -n "$line" ]] && { echo "$line"; return 0; }
        sleep 0.1
    done
    fail "$2 did not start: $(cat "$1")"
}
json_field() { "$PYTHON" -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

"$PYTHON" "$UPSTREAM" --key-file "$ROOT/tmp/upstream-key" <&3 >"$WORK/upstream.out" 2>&1 &
PIDS+=($!)
upstream_url=$(json_field "$(wait_ready "$WORK/upstream.out" "fake upstream")" url)

# Serving: generation in monitor (verifies, never refuses), tutor in off, a third route in enforce; a daily
# ceiling of 5 calls so the budget warning and exhaustion happen here too.
SERVE_ROUTES='[{"method":"POST","path":"/v1/generate","feature":"generation","mode":"monitor","upstreamPath":"/generate"},'
SERVE_ROUTES+='{"method":"POST","path":"/v1/tutor/{deckId}/{cardId}","feature":"tutor","mode":"off","upstreamPath":"/tutor"},'
SERVE_ROUTES+='{"method":"POST","path":"/v1/enforced","feature":"enforced","mode":"enforce","upstreamPath":"/enforced"}]'
SERVE_ENV=("${CONFIG_ENV[@]/#UPSTREAM_URL=*/UPSTREAM_URL=$upstream_url}" AI_DAILY_CALL_CEILING=5)
SERVE_ENV=("${SERVE_ENV[@]/#ROUTES=*/ROUTES=$SERVE_ROUTES}")
SERVE_ENV=("${SERVE_ENV[@]/#GATE_MODE=*/GATE_MODE=off}")
wrapper=$WORK/chroot-bootstrap
{
    echo '#!/bin/bash'
    printf 'exec env -i AWS_LAMBDA_RUNTIME_API="$AWS_LAMBDA_RUNTIME_API"'
    for kv in "${LAMBDA_ENV[@]}" "${SERVE_ENV[@]}" LD_DEBUG=libs "LD_DEBUG_OUTPUT=/tmp/attestgate-lddebug-$$"; do
        printf ' %q' "$kv"
    done
    printf ' /usr/sbin/chroot %q %q\n' "$ROOT" "$TASK/bootstrap"
} >"$wrapper"
chmod +x "$wrapper"
rm -f "$ROOT"/tmp/attestgate-lddebug-*

"$PYTHON" "$HARNESS" --bootstrap "$wrapper" --quiet --deadline-ms 10000 <&3 >"$WORK/harness.out" 2>&1 &
PIDS+=($!)
ready=$(wait_ready "$WORK/harness.out" "lambda harness")
front=$(json_field "$ready" http)
control=$(json_field "$ready" control)
echo "package-check: local Runtime API ${ready}"

served=0
invoke() {  # <label> <expected status> <curl args...>: one request through the HTTP API 2.0 front
    local label=$1 want=$2; shift 2
    local got
    got=$(curl -sS -D "$WORK/headers" -o "$WORK/body" -w '%{http_code}' --max-time 30 "$@") || fail "$label: curl failed"
    echo "  invocation: $label -> $got $(head -c 300 "$WORK/body")"
    [[ "$got" == "$want" || "$want" == any ]] || fail "$label: status $got, want $want"
    served=$((served + 1))
    STATUS=$got
}
header() { grep -i "^$1:" "$WORK/headers" | head -n 1 | cut -d: -f2- | tr -d ' \r'; }
device=$(cat /proc/sys/kernel/random/uuid)
invoke "POST /v1/unknown (no such route)" 404 -X POST "$front/v1/unknown" -H "X-Device-ID: $device"
invoke "POST /v1/tutor/deck-1/card-2 (mode off, fake upstream)" 200 -X POST "$front/v1/tutor/deck-1/card-2" \
    -H "X-Device-ID: $device" --data '{"question":"?"}'
grep -q '"upstream": *"fake"' "$WORK/body" || fail "the metered call did not reach the fake upstream"
# The challenge endpoint and the metered pipeline's stores (moto): strict as soon as bootstrap serves them.
gate_wired=0
invoke "POST /v1/attest/challenge" any -X POST "$front/v1/attest/challenge" -H "X-Device-ID: $device"
if [[ "$STATUS" == 404 ]]; then
    # TODO: remove this branch once bootstrap serves POST /v1/attest/challenge (gate wiring).
    echo "  TODO: this bootstrap does not serve POST /v1/attest/challenge yet (404); challenge checks skipped"
    # Until then the upstream-only pipeline fails gated routes closed (Sources/6-App/App/MeteredPipeline.swift).
    invoke "POST /v1/generate (mode monitor, gate not wired yet: fails closed)" 503 -X POST "$front/v1/generate" \
        -H "X-Device-ID: $device" --data '{"prompt":"package-check"}'
else
    [[ "$STATUS" == 200 ]] || fail "POST /v1/attest/challenge answered $STATUS"
    challenge=$("$PYTHON" -c '
import base64, json, sys, time
d = json.load(open(sys.argv[1]))
assert len(base64.b64decode(d["challenge"], validate=True)) == 32, d
assert isinstance(d["expiresAt"], int) and d["expiresAt"] > time.time(), d
print(d["challenge"])' "$WORK/body") || fail "challenge response is not {challenge: 32 bytes b64, expiresAt}"
    [[ "$(header cache-control)" == no-store ]] || fail "challenge response lacks Cache-Control: no-store"
    invoke "POST /v1/generate (mode monitor, no proof: never refused)" 200 -X POST "$front/v1/generate" \
        -H "X-Device-ID: $device" -H 'Content-Type: application/json' --data '{"prompt":"package-check"}'
    grep -q '"upstream": *"fake"' "$WORK/body" || fail "the monitored call did not reach the fake upstream"
    invoke "POST /v1/generate with X-Attest-Challenge (monitor, moto stores)" 200 -X POST "$front/v1/generate" \
        -H "X-Device-ID: $device" -H "X-Attest-Challenge: $challenge" --data '{"prompt":"package-check 2"}'
    [[ -n "$(header x-quota-remaining)" ]] || fail "metered call without X-Quota-Remaining (allowance not in moto?)"
    [[ -n "$(header x-attest-next-challenge)" ]] || fail "metered call without X-Attest-Next-Challenge"
    invoke "POST /v1/enforced (mode enforce, no proof)" 403 -X POST "$front/v1/enforced" \
        -H "X-Device-ID: $device" --data '{}'
    grep -q '"attestation_required"' "$WORK/body" || fail "enforce refusal is not attestation_required"
    # Spend the rest of the 5-call ceiling (moto's AI_BUDGET row): the last call must be refused.
    for i in 1 2 3 4 5; do
        invoke "POST /v1/tutor/deck-1/card-$i (spending the daily ceiling)" any -X POST \
            "$front/v1/tutor/deck-1/card-$i" -H "X-Device-ID: $device" --data '{}'
        [[ "$STATUS" == 200 ]] && continue
        [[ "$STATUS" == 503 ]] && grep -q '"daily_budget_exhausted"' "$WORK/body" && [[ -n "$(header retry-after)" ]] ||
            fail "unexpected answer while spending the ceiling"
        break
    done
    [[ "$STATUS" == 503 ]] || fail "the 5-call daily ceiling was never reached"
    gate_wired=1
fi

"$PYTHON" - "$control" <<'PY' || fail "the harness reports init errors or a dead instance"
import json, sys, urllib.request
control = sys.argv[1]
get = lambda path: json.load(urllib.request.urlopen(control + path, timeout=10))
errors, instances = get("/init-errors"), get("/instances")
print("  instances:", json.dumps(instances), "init errors:", len(errors))
sys.exit(1 if errors or not all(i["running"] for i in instances) else 0)
PY
"$PYTHON" - "$control" >"$BUILD_DIR/decision-lines.captured.log" <<'PY'
import json, sys, urllib.request
for entry in json.load(urllib.request.urlopen(sys.argv[1] + "/logs", timeout=10)):
    print(entry["line"])
PY
echo "  bootstrap wrote $(wc -l <"$BUILD_DIR/decision-lines.captured.log") log lines ($BUILD_DIR/decision-lines.captured.log)"
if grep -q '"logger":"attestgate.decision"' "$BUILD_DIR/decision-lines.captured.log"; then
    require=""
    ((gate_wired)) && require=block,budget_warning,budget_exhausted
    "$PYTHON" infra/tests/check_metrics.py --lines "$BUILD_DIR/decision-lines.captured.log" --coverage \
        --require "$require" || fail "decision lines from the packaged bootstrap do not feed the alarms"
    grep -q '"attestation_check":' "$BUILD_DIR/decision-lines.captured.log" ||
        fail "the monitored calls wrote no attestation_check metric"
elif ((gate_wired)); then
    fail "the gate serves challenges but the monitored calls wrote no decision line"
else
    echo "  TODO: no decision lines yet (the upstream-only pipeline writes none until the gate is wired)"
fi

# Stop the harness (it terminates bootstrap), then read the loader trace the chrooted bootstrap wrote.
for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
PIDS=()
rm -f "/tmp/attestgate-lddebug-$$".*
cat "$ROOT"/tmp/attestgate-lddebug-* >"$WORK/serve.lddebug" 2>/dev/null || true
check_lddebug "bootstrap serving" "$WORK/serve.lddebug"
ok "bootstrap served $served invocations from the empty root over the local Runtime API"
echo "package-check: passed"
