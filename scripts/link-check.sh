#!/usr/bin/env bash
# The release bootstrap must not carry full Foundation, FoundationInternationalization or ICU: only
# FoundationEssentials (house-style rule 20, after swift-aws-lambda-runtime's check-link-foundation.sh).
# Checked twice: the dynamic dependencies (readelf/ldd), and the symbol table, because with
# --static-swift-stdlib a statically linked Foundation would not show up as a library at all.
set -euo pipefail
binary="${1:-.build/release/bootstrap}"
[ -x "$binary" ] || { echo "link-check: $binary not found (run make build)" >&2; exit 1; }

forbidden_libs='libFoundation\.so|libFoundationInternationalization|libFoundationNetworking|lib_FoundationICU|libicu'
needed=$(readelf -d "$binary" | awk '/NEEDED/ {print $NF}' | tr -d '[]')
if grep -Eq "$forbidden_libs" <<<"$needed"; then
    echo "link-check: $binary needs a forbidden library:" >&2
    grep -E "$forbidden_libs" <<<"$needed" >&2
    exit 1
fi
if ldd "$binary" 2>/dev/null | grep -Eq "$forbidden_libs"; then
    echo "link-check: ldd shows a forbidden library:" >&2
    ldd "$binary" | grep -E "$forbidden_libs" >&2
    exit 1
fi

symbols=$(nm "$binary" 2>/dev/null || true)
# Without a symbol table nothing below could be proven; release builds keep it (we never strip).
grep -Eq ' [TtDd] [$]s' <<<"$symbols" || { echo "link-check: no symbol table in $binary" >&2; exit 1; }
# Swift mangles a module name with its length: $s10Foundation... (full Foundation),
# 30FoundationInternationalization, 14_FoundationICU; ICU's own C API would bring ucal_/ubrk_ symbols.
forbidden_symbols='[$]s10Foundation[0-9A-Z_]|30FoundationInternationalization|14_FoundationICU|(^| )_?(ucal|ubrk|ucol|unum)_[a-zA-Z]'
if grep -Eq "$forbidden_symbols" <<<"$symbols"; then
    echo "link-check: $binary contains Foundation/ICU symbols, e.g.:" >&2
    { grep -E "$forbidden_symbols" <<<"$symbols" | head -5 >&2; } || true
    exit 1
fi
echo "link-check: $binary links neither Foundation nor ICU ($(wc -c <"$binary") bytes)"
