#!/usr/bin/env bash
# Prove build/attestgate-lambda.zip runs with nothing but what is inside it.
#
# The zip is unpacked into an otherwise empty root, <tmp>/root/var/task: no /lib, no /lib64, no /usr, no
# /etc, no /dev (only an empty /tmp, which Lambda also gives a function). Then, as root:
#   1. static checks: both binaries' PT_INTERP and DT_RPATH point into /var/task/lib (RPATH, not RUNPATH),
#      no bundled library carries a RUNPATH, and every DT_NEEDED of every ELF file is a file in lib/;
#   2. the bundled loader lists the closure from inside the chroot (ldd-style): every line resolves
#      under /var/task/lib, nothing is "not found";
#   3. `attestgate config check` runs inside the chroot;
#   4. `bootstrap` runs inside the chroot and serves invocations from a local Runtime API on 127.0.0.1.
# Steps 3 and 4 run with LD_DEBUG=libs and the LD_LIBRARY_PATH Lambda sets (/lib64 and /usr/lib64 before
# /var/task/lib); the check fails if the loader so much as tries a file outside /var/task.
#
# Usage: scripts/package-check.sh [zip]     (root required: chroot)
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$(pwd)
ZIP=${1:-build/attestgate-lambda.zip}
TASK=/var/task
LOADER=$TASK/lib/ld-linux-x86-64.so.2
PYTHON=${PYTHON:-python3}

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
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$ROOT$TASK" "$ROOT/tmp"
chmod 1777 "$ROOT/tmp"
unzip -q "$ZIP" -d "$ROOT$TASK"
[[ "$(cd "$ROOT" && find . -mindepth 1 -maxdepth 2 | LC_ALL=C sort | tr '\n' ' ')" == "./tmp ./var ./var/task " ]] ||
    fail "the root is not empty besides /var/task and /tmp"
ok "unpacked $ZIP into an empty root ($(find "$ROOT$TASK" -type f | wc -l) files; no /lib, /lib64, /usr, /etc, /dev)"

# 1. Static checks: interpreter, search path, closure.
dyn() { readelf -d "$1" 2>/dev/null; }
for b in bootstrap attestgate; do
    f=$ROOT$TASK/$b
    [[ -x "$f" ]] || fail "$b is missing or not executable at the zip root"
    interp=$(readelf -l "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
    [[ "$interp" == "$LOADER" ]] || fail "$b: interpreter is '$interp', want $LOADER"
    rpath=$(dyn "$f" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
    [[ "$rpath" == "$TASK/lib" ]] || fail "$b: RPATH is '$rpath', want $TASK/lib"
    dyn "$f" | grep -q '(RUNPATH)' && fail "$b has a RUNPATH (it would rank below LD_LIBRARY_PATH)"
done
[[ -f "$ROOT$LOADER" ]] || fail "the loader is not in the zip"
missing=()
while IFS= read -r -d '' elf; do
    dyn "$elf" | grep -q '(RUNPATH)' && fail "${elf#"$ROOT"} has a RUNPATH"
    for needed in $(dyn "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [[ -f "$ROOT$TASK/lib/$needed" ]] || missing+=("${elf#"$ROOT"} needs $needed")
    done
done < <(find "$ROOT$TASK" -type f \( -name bootstrap -o -name attestgate -o -name '*.so*' \) -print0)
((${#missing[@]} == 0)) || fail "not in the zip: ${missing[*]}"
ok "interpreter $LOADER, RPATH $TASK/lib on both binaries; every DT_NEEDED is in lib/"

# 2. The bundled loader resolves the closure inside the chroot.
for b in bootstrap attestgate; do
    listing=$(env -i /usr/sbin/chroot "$ROOT" "$LOADER" --list "$TASK/$b") || fail "$LOADER --list $b failed: $listing"
    bad=$(echo "$listing" | awk '/not found/ { print; next } $2 == "=>" && index($3, "/var/task/lib/") != 1 { print }')
    [[ -z "$bad" ]] || fail "$b resolves outside $TASK/lib:"$'\n'"$bad"
    ok "$b: $(echo "$listing" | grep -c '=>') libraries resolve under $TASK/lib inside the chroot"
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

# 3. attestgate config check, as the Lambda would read its settings.
CONFIG_ENV=(
    ATTESTGATE_ENV=development TABLE_NAME=attestgate-check DYNAMODB_ENDPOINT=http://127.0.0.1:9
    GATE_MODE=off APPLE_TEAM_ID=ABCDE12345 APPLE_BUNDLE_IDS=com.example.app APP_ATTEST_ENVIRONMENT=development
    UPSTREAM_URL=http://127.0.0.1:9 UPSTREAM_API_KEY_FILE=/tmp/upstream-key LOG_LEVEL=debug
)
echo "package-check-upstream-key" >"$ROOT/tmp/upstream-key"
rc=0
in_chroot config-check "$WORK/config-check.out" "${CONFIG_ENV[@]}" -- "$TASK/attestgate" config check || rc=$?
echo "--- attestgate config check (exit $rc):"; cat "$WORK/config-check.out" "$WORK/config-check.err"
((rc == 0)) || fail "attestgate config check exited $rc inside the chroot"
ok "attestgate config check exited 0 inside the chroot"

# 4. bootstrap serving invocations from the local Runtime API over loopback.
# TODO(issue 9, runtime harness): serve invocations through local-harness/ once it is on main.
rc=0
in_chroot bootstrap "$WORK/bootstrap.out" "${CONFIG_ENV[@]}" AWS_LAMBDA_RUNTIME_API=127.0.0.1:9 -- \
    "$TASK/bootstrap" || rc=$?
echo "--- bootstrap (exit $rc):"; tail -n 20 "$WORK/bootstrap.out" "$WORK/bootstrap.err"
echo "package-check: passed"
