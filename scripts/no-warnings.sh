#!/usr/bin/env bash
# Fails when a Swift build's log holds a compiler warning in the project's own sources.
#
# Why: the build is warnings-free, so a new warning is visible and is fixed where it appears; once a few are
# tolerated, the next one hides among them. make test builds the tests (unit-test) and the release bootstrap
# (link-check, through make build) through this. A build only reports what it recompiles: a fresh clone (CI)
# compiles everything, a local run checks what the change touched. Linker notes from the toolchain's own
# static libraries (FoundationEssentials' mktemp) are not compiler warnings and are not counted.
#
#   scripts/no-warnings.sh LOG
set -euo pipefail
log=${1:?usage: no-warnings.sh LOG}
warnings=$(grep -E '^/[^ ]+\.swift:[0-9]+:[0-9]+: warning:' "$log" | sort -u || true)
if [[ -n "$warnings" ]]; then
    echo "no-warnings: the build warned; fix each (a tolerated warning hides the next one):" >&2
    echo "$warnings" >&2
    exit 1
fi
