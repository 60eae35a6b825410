#!/usr/bin/env bash
# The release bootstrap carries no test knob (CONTRIBUTING.md): what tests and tools inject lives in Tests/Support
# and Tools/, behind the product's own seams (HTTPTransport, the store protocols, LogSink). Checked on the
# symbol table, as link-check checks Foundation and ICU:
#   - Swift types and members that only tests need, by their mangled or demangled names;
#   - the OpenSSL functions that make keys, certificates and PKCS#7 signatures (the product only verifies
#     and signs with imported keys), as undefined dynamic symbols.
set -euo pipefail
binary="${1:-.build/release/bootstrap}"
[ -x "$binary" ] || { echo "knob-check: $binary not found (run make build)" >&2; exit 1; }

symbols=$(nm "$binary" 2>/dev/null || true)
grep -Eq ' [TtDd] [$]s' <<<"$symbols" || { echo "knob-check: no symbol table in $binary" >&2; exit 1; }
demangled=$(swift demangle --simplified <<<"$symbols" 2>/dev/null || true)
[ -n "$demangled" ] || { echo "knob-check: swift demangle failed" >&2; exit 1; }

# One pattern per knob, over the demangled names (module.Type or a member).
knobs=(
    'ResendHook'                                # resend knob in the AWS JSON client's retry loop
    'resendHook'                                # its configuration field
    'ResendingTransport|TokenlessTransport'     # what tests and the resend harness inject instead
    'GateTable\.WriteSafety|controlWithoutTokens' # the token-less control write of the gate's table
    'CapturingLogSink'                          # in-memory log capture
    'CertificateBuilder'                        # X.509 issuing
    'SignedData\.sign\(|makeSignature'          # PKCS#7 signing
    'generateForTesting|pkcs8PEMForTesting|generateRSA|PrivateKey\.generate|init\(generating:|GeneratedRSAKey' # keys
)
failed=0
for knob in "${knobs[@]}"; do
    if grep -Eq "$knob" <<<"$demangled"; then
        echo "knob-check: $binary carries a test knob ($knob), e.g.:" >&2
        { grep -E "$knob" <<<"$demangled" | head -3 >&2; } || true
        failed=1
    fi
done
forbidden_c='^ +U (X509_sign|PKCS7_sign|EVP_PKEY_keygen|EVP_PKEY_generate|EVP_PKEY_CTX_set_rsa_keygen_bits|X509_new)(@|$)'
if grep -Eq "$forbidden_c" <<<"$symbols"; then
    echo "knob-check: $binary imports OpenSSL functions only tests need:" >&2
    grep -E "$forbidden_c" <<<"$symbols" >&2
    failed=1
fi
# With OpenSSL linked statically (scripts/link-static.sh) those functions are inside the binary whether or
# not we call them (an archive member comes whole): what must not reference them is our own code, the
# object files SwiftPM linked (<binary>.product/Objects.LinkFileList beside the binary).
if grep -Eq ' [Tt] OPENSSL_init_crypto$' <<<"$symbols"; then
    objects="$(dirname "$binary")/$(basename "$binary").product/Objects.LinkFileList"
    [ -f "$objects" ] || { echo "knob-check: static OpenSSL and no $objects to check our objects" >&2; exit 1; }
    count=0
    while IFS= read -r object; do
        [ -f "$object" ] || { echo "knob-check: $object (in $objects) is missing" >&2; exit 1; }
        count=$((count + 1))
        if nm -u "$object" 2>/dev/null | grep -Eq "$forbidden_c"; then
            echo "knob-check: $object calls OpenSSL functions only tests need:" >&2
            nm -u "$object" | grep -E "$forbidden_c" >&2
            failed=1
        fi
    done <"$objects"
    ((count > 0)) || { echo "knob-check: $objects lists no object" >&2; exit 1; }
fi
[ "$failed" = 0 ] || exit 1
echo "knob-check: $binary carries no test knob (${#knobs[@]} names and the OpenSSL key/certificate makers checked)"
