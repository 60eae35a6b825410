#!/usr/bin/env bash
# make test's stages, one after another, each timed: `scripts/test-stages.sh make stage...`. Prints a line
# per stage as it ends, a table of wall times at the end, then the single closing line
# `checks: N passed, 0 failed`. Stops at the first stage that fails (its output says why).
set -uo pipefail
make_command="$1"
shift
stages=("$@")
started=$(date +%s.%N)
declare -a times=()
for stage in "${stages[@]}"; do
    begin=$(date +%s.%N)
    if ! $make_command --no-print-directory "$stage" SETUP_DONE=1; then
        elapsed=$(awk -v a="$begin" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        echo "stage $stage: FAILED after $elapsed s" >&2
        exit 1
    fi
    elapsed=$(awk -v a="$begin" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    times+=("$elapsed")
    echo "stage $stage: $elapsed s"
done
total=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "make test: wall time per stage"
for index in "${!stages[@]}"; do printf '  %-18s %7s s\n' "${stages[$index]}" "${times[$index]}"; done
printf '  %-18s %7s s\n' "total" "$total"
echo "make test: every check passed"
echo "checks: ${#stages[@]} passed, 0 failed"
