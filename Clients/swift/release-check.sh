#!/usr/bin/env bash
# The release build of the Swift client carries no debug-token code path: builds the library in release
# (`swift build -c release`) and in debug, and checks that none of the strings only the debug-token code
# holds (the header, the environment variable, the launch argument, the token prefix, the type's mangled
# name) is in the release build's object files, while each of them is in the debug build's, so the search
# is shown to find them where the code is. Part of check.sh (make swift-client-check).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SWIFT=${SWIFT:-swift}
markers=("X-Debug-Token" "ATTESTGATE_DEBUG_TOKEN" "-AttestGateDebugToken" "agdt_" "10DebugTokenO")

objects() {
    local bin
    bin=$("$SWIFT" build --package-path "$here" -c "$1" --show-bin-path)
    ls "$bin"/AttestGateClient.build/*.o
}

"$SWIFT" build --package-path "$here" -c release --target AttestGateClient
"$SWIFT" build --package-path "$here" -c debug --target AttestGateClient
mapfile -t release < <(objects release)
mapfile -t debug < <(objects debug)
if [ "${#release[@]}" -eq 0 ] || [ "${#debug[@]}" -eq 0 ]; then
    echo "release-check: no object files found" >&2
    exit 1
fi

failed=0
for marker in "${markers[@]}"; do
    if ! grep -a -q -F -e "$marker" "${debug[@]}"; then
        echo "release-check: '$marker' is not in the debug build either: the check could not see it" >&2
        failed=1
    fi
    found=$(grep -a -l -F -e "$marker" "${release[@]}" || true)
    if [ -n "$found" ]; then
        echo "release-check: '$marker' is in the release build: $found" >&2
        failed=1
    fi
done
if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "release-check: ${#markers[@]} debug-token strings in the debug build (${#debug[@]} objects), none in the release build (${#release[@]} objects)"
