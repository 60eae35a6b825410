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

# What the loader maps at every cold start (docs/performance.md): glibc's own objects and libgcc_s (glibc
# itself dlopens it for pthread_exit, which the async main's dispatch_main calls: it is loaded in any case, so
# it is linked, not duplicated by a static copy). libcurl, libstdc++, OpenSSL and zlib are linked in
# statically (scripts/build-curl.sh, scripts/link-static.sh): a shared libcrypto, libssl or libz is a
# regression. At most 8 libraries (docs/performance.md); 4 today.
allowed_libs='^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libgcc_s\.so\.1)$'
max_libs=8
loaded=$(ldd "$binary" | awk '$1 != "linux-vdso.so.1" && NF > 1 {print $1}' | xargs -n1 basename)
if grep -Evq "$allowed_libs" <<<"$loaded"; then
    echo "link-check: $binary loads a library outside glibc and libgcc_s (OpenSSL and zlib are static):" >&2
    grep -Ev "$allowed_libs" <<<"$loaded" >&2
    exit 1
fi
count=$(wc -l <<<"$loaded")
if ((count > max_libs)); then
    echo "link-check: $binary loads $count shared libraries (at most $max_libs):" >&2
    echo "$loaded" >&2
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
# libcurl is the static one from scripts/build-curl.sh: HTTP and HTTPS only (Debian's lists LDAP, FTP, ...).
grep -Eq ' [TtDd] curl_easy_perform$' <<<"$symbols" || { echo "link-check: libcurl is not linked in" >&2; exit 1; }
if grep -Eq ' [Tt] (Curl_ldap|Curl_ftp|Curl_ssh|Curl_nghttp2|Curl_gtls)[a-z_]*$' <<<"$symbols"; then
    echo "link-check: $binary carries a libcurl with protocols or backends AttestGate does not use" >&2
    exit 1
fi
# OpenSSL 3 is in the binary, with its default provider (built into libcrypto: nothing to load at run time).
for symbol in OPENSSL_init_crypto OPENSSL_init_ssl ossl_default_provider_init; do
    grep -Eq " [Tt] $symbol\$" <<<"$symbols" || { echo "link-check: OpenSSL's $symbol is not linked in" >&2; exit 1; }
done
# ... and it is scripts/build-openssl.sh's, not Debian's libcrypto.a: none of what that build leaves out (error
# strings, DH and DSA, Camellia, ARIA, BLAKE2) is in the binary. Debian's archive brings all of them (its
# default provider's tables name every algorithm it offers).
left_out='ERR_str_(libraries|reasons)|ossl_(dh|dsa)_keymgmt_functions|ossl_(camellia128cbc|aria128cbc|blake2b512)_functions'
if grep -Eq " [TtDdRr] ($left_out)\$" <<<"$symbols"; then
    echo "link-check: $binary carries OpenSSL code build/openssl leaves out (Debian's libcrypto.a?), e.g.:" >&2
    { grep -E " [TtDdRr] ($left_out)\$" <<<"$symbols" | head -3 >&2; } || true
    exit 1
fi
# No DWARF unwind tables (scripts/discard-eh-frame.ld): 0.74 MiB of the zip that nothing in the binary reads.
if readelf -S -W "$binary" | grep -Eq ' \.eh_frame +'; then
    echo "link-check: $binary carries .eh_frame (the release link discards it: scripts/discard-eh-frame.ld)" >&2
    exit 1
fi
# No RPATH or RUNPATH (make build passes --disable-local-rpath): the static Swift runtime needs none, and
# SwiftPM's default $ORIGIN sent the loader through a dozen missing directories at every start, before
# ld.so.cache. The zip's copy gets /var/task/lib (scripts/package.sh).
if readelf -d "$binary" | grep -Eq '\((RPATH|RUNPATH)\)'; then
    echo "link-check: $binary has a library search path of its own (build with --disable-local-rpath):" >&2
    readelf -d "$binary" | grep -E '\((RPATH|RUNPATH)\)' >&2
    exit 1
fi
# The code and data a cold start reaches come first (scripts/init-order.txt, make init-order): the order is
# applied, and the file still names the binary's code.
python3 "$(dirname "$0")/init-order.py" --check "$binary" "$(dirname "$0")/init-order.txt"
echo "link-check: $binary links neither Foundation nor ICU; loads $count shared libraries ($(tr '\n' ' ' <<<"$loaded"))"
echo "link-check: static libcurl (HTTP/HTTPS over OpenSSL), static OpenSSL (build/openssl) with its default provider; $(wc -c <"$binary") bytes"
