#!/usr/bin/env bash
# The release bootstrap carries no test knob (issue 19): what tests and tools inject lives in Tests/Support
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
[ "$failed" = 0 ] || exit 1
echo "knob-check: $binary carries no test knob (${#knobs[@]} names and the OpenSSL key/certificate makers checked)"
