#!/usr/bin/env bash
# make swift-client-check: builds the Swift client package (Clients/swift) on Linux and checks it:
#   1. the wire vectors: `DEMO wire-vectors` writes the known answers again from the server's WireContract,
#      and they must equal the committed fixture the client's tests compare with;
#   2. debug tokens cannot ship: a release build (`swift build -c release`) has none of the debug-token
#      strings in its object files, which a debug build of the same sources has (so the search can find them);
#   3. the unit tests, then the stack tests: the real bootstrap through local-harness/client_stack.py (moto,
#      fake Google, fake upstream, App Attest against the demo's synthetic CA, DEBUG_TOKENS=on, a second
#      front with a daily ceiling of 3), with `DEMO enclave` as the Secure Enclave. Nothing is downloaded.
# The Apple glue (Sources/AttestGateClient/Apple) is not compiled here (README.md).
#
#   Clients/swift/check.sh BOOTSTRAP DEMO     everything (make passes the release bootstrap and demo)
#   Clients/swift/check.sh --unit             the release check and the unit tests, without the stack
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PYTHON=${PYTHON:-python3}
SWIFT=${SWIFT:-swift}
fixtures="$here/Tests/AttestGateClientTests/Fixtures"

if [ "$#" -eq 1 ] && [ "$1" = "--unit" ]; then
    unit_only=1
elif [ "$#" -eq 2 ]; then
    unit_only=0
    bootstrap=$1
    demo=$2
else
    echo "usage: $0 BOOTSTRAP DEMO | --unit" >&2
    exit 2
fi

if [ "$unit_only" = 0 ]; then
    echo "swift-client: the wire vectors, written again by the server's WireContract ($demo wire-vectors)"
    if ! "$demo" wire-vectors | cmp -s - "$fixtures/wire-vectors.json"; then
        echo "swift-client: $fixtures/wire-vectors.json differs from what the server's code writes now;" >&2
        echo "  if the contract changed on purpose: $demo wire-vectors > $fixtures/wire-vectors.json" >&2
        exit 1
    fi
fi

echo "swift-client: release build, then the debug-token strings in its objects"
"$here/release-check.sh"

echo "swift-client: building the tests ($("$SWIFT" --version 2>/dev/null | head -1))"
"$SWIFT" build --package-path "$here" --build-tests
if [ "$unit_only" = 1 ]; then
    exec "$SWIFT" test --package-path "$here" --skip-build
fi
echo "swift-client: the unit tests and the stack tests against $bootstrap"
"$PYTHON" "$root/local-harness/client_stack.py" --bootstrap "$bootstrap" --routes "$fixtures/routes.json" \
    --ceiling-budget 3 --app-attest "$demo" --debug-tokens -- "$SWIFT" test --package-path "$here" --skip-build
