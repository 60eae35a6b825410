#!/usr/bin/env bash
# Build the OpenSSL that ships in AttestGate: build/openssl/prefix/{include,lib/libcrypto.a,lib/libssl.a,
# lib/pkgconfig/*.pc}; scripts/link-static.sh links these archives into the shipped binary (docs/performance.md,
# "Zip and shared libraries").
#
# Why: Debian's libcrypto.a is built without -ffunction-sections and with every algorithm, so the release
# link's --gc-sections keeps whole archive members and the default provider's tables keep every algorithm
# it offers (2.3 MB of code, the one large part of the zip that is ours to choose; docs/performance.md).
#
# What: Debian's own source package of openssl, at exactly the version of the machine's libssl3 (installed,
# else the candidate), with all of Debian's patches (dpkg-source applies debian/patches/series), fetched
# through a private apt configuration in build/openssl/apt exactly as scripts/build-curl.sh fetches curl.
# Configured with Debian's target and choices (below), static (no-shared), the default provider built in
# (no-module: nothing loaded at run time), with Debian's hardening flags (dpkg-buildflags, without -g) plus
# -fPIC -ffunction-sections -fdata-sections, and only what AttestGate and its libcurl use. Kept, and who
# needs it: X.509 parsing and chain verification, PKCS#7 (App Attest receipts: d2i_PKCS7, PKCS7_verify),
# ECDSA P-256/P-384 and SHA-256/384 (App Attest, DeviceCheck's ES256 JWT, Play Integrity's keys), RSA
# (PKCS#1 v1.5 signatures: Google service-account JWTs, TLS), HMAC-SHA256 (SigV4), PEM/PKCS#8 key
# decoding, the DRBG, and the TLS 1.2/1.3 client (ECDHE X25519/P-256, AES-GCM, ChaCha20-Poly1305) of
# libcurl, whose OpenSSL backend (built against Debian's headers) also references OCSP (stapling),
# PKCS#12, ENGINE_* and UI_* (kept: the link fails on any function left out).
# Left out, none of it called by AttestGate (Sources/3-Wrappers/Crypto: no DH, DSA, CMS, cipher or KDF
# call) or referenced by libcurl.a: legacy provider, DSO/dynamic engines and the AF_ALG and PadLock
# engines, compression, DTLS, SSLv3/TLS 1.0/1.1, SRP, PSK, CT, TS, CMS, CMP, SRTP, binary-field curves,
# SM2/3/4, GOST, DSA, DH (finite-field groups: TLS 1.3 here negotiates ECDHE, and every TLS 1.2 server
# AttestGate calls offers ECDHE suites), and the ciphers and digests nobody here calls (Camellia, ARIA, IDEA,
# SEED, Blowfish, CAST, RC2/4/5, DES, MD4, MDC2, Whirlpool, RIPEMD, BLAKE2, SipHash, scrypt, OCB, AES-SIV,
# CMAC), and TLS 1.2's multi-block writes (stitched AES-CBC-HMAC-SHA over 4 or 8 records at once: 64 KB of
# code for large CBC-suite uploads; AttestGate's requests are small and its servers negotiate AES-GCM).
# no-err drops the error string tables (1,757 pointers the loader relocates at every start): AttestGate
# initialises OpenSSL without them (cshim_openssl_init_without_config) and logs ERR_error_string_n's
# packed codes (error:1E08010C:lib(60)::reason(524556): `openssl errstr 1E08010C` decodes one).
# --openssldir is Debian's (/usr/lib/ssl): libcurl asks OpenSSL to load its configuration, which then
# behaves as Debian's library does (no file there on Lambda: defaults).
#
# Built once: build/openssl/prefix/STAMP holds the Debian version and this script's hash (its code lines); a
# rerun with both unchanged does nothing. A new libssl3 version (a security update: `apt-get upgrade`) or a changed script
# rebuilds; a libssl-dev that is not at libssl3's version is refused (its headers build the C shims' checks).
# `make clean` keeps build/openssl; `make distclean` drops it.
#
# Environment: OPENSSL_JOBS (2: the make -j of the C build), OPENSSL_DIR (build/openssl).
set -euo pipefail

cd "$(dirname "$0")/.."
OPENSSL_DIR=${OPENSSL_DIR:-build/openssl}
OPENSSL_JOBS=${OPENSSL_JOBS:-2}
PREFIX="$PWD/$OPENSSL_DIR/prefix"
STAMP="$PREFIX/STAMP"

die() { echo "build-openssl: $*" >&2; exit 1; }

version=$(dpkg-query -W -f='${Version}' libssl3 2>/dev/null || true)
[[ -n "$version" ]] || version=$(apt-cache policy libssl3 | awk '/Candidate:/ {print $2}')
[[ -n "$version" && "$version" != "(none)" ]] || die "no libssl3 version known to apt"
dev=$(dpkg-query -W -f='${Version}' libssl-dev 2>/dev/null || true)
[[ -z "$dev" || "$dev" == "$version" ]] || die "libssl-dev $dev is not libssl3 $version: apt-get install libssl-dev=$version"
# The script's hash without its comment lines: a change to what it builds rebuilds, a reworded comment does not.
want="debian-openssl $version script $(grep -v '^\s*#' "$0" | sha256sum | cut -c1-16)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -f "$PREFIX/lib/libcrypto.a" && -f "$PREFIX/lib/libssl.a" ]]; then
    exit 0
fi

missing=""
for p in dpkg-dev gcc make perl; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [[ -n "$missing" ]]; then
    echo "build-openssl: apt-get install$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

start=$(date +%s)
echo "build-openssl: libcrypto, libssl from Debian's openssl $version (static, trimmed) into $PREFIX"

# A private apt for Debian's source packages (scripts/debian-source-apt.sh).
APT="$PWD/$OPENSSL_DIR/apt"
source scripts/debian-source-apt.sh  # the working directory is the repository (above)
debian_source_apt "$APT"
SRC="$PWD/$OPENSSL_DIR/src"
pool_fetch() {  # <version>: the .dsc and its files from pool/ of each Debian URI the machine uses
    local v=${1#*:} uri dir f
    for uri in $({ cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -nE 's/^URIs:\s*//p'; \
        sed -nE 's/^deb (\[[^]]*\] )?(\S+).*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null; } \
        | tr ' ' '\n' | grep -E '[./]debian\.org' | sort -u); do
        for dir in pool/updates/main/o/openssl pool/main/o/openssl; do
            curl -sfL -o "$SRC/openssl_$v.dsc" "$uri/$dir/openssl_$v.dsc" || continue
            for f in $(sed -n '/^Files:/,/^$/p' "$SRC/openssl_$v.dsc" | awk 'NF == 3 {print $3}'); do
                curl -sfL -o "$SRC/$f" "$uri/$dir/$f" || return 1
            done
            return 0
        done
    done
    rm -f "$SRC/openssl_$v.dsc"
    return 1
}
dsc=$(ls "$SRC"/openssl_"${version#*:}".dsc 2>/dev/null || true)
if [[ -z "$dsc" ]]; then
    apt-get "${apt_opts[@]}" -qq update
    rm -rf "$SRC"
    mkdir -p "$SRC"
    if ! (cd "$SRC" && apt-get "${apt_opts[@]}" -qq source --download-only "openssl=$version" >/dev/null 2>&1); then
        # The machine's version is no longer in the suites' Sources index (a newer one superseded it) but is
        # still in the pool: fetch the .dsc and its files from there. dpkg-source then checks the files
        # against the .dsc's hashes, and the .dsc's own signature is checked below against debian-keyring
        # (the index that would vouch for it is gone).
        pool_fetch "$version" || die "no source package openssl=$version in apt or in the suites' pools"
        verify_dsc=1
    fi
    dsc=$(ls "$SRC"/openssl_*.dsc)
fi
if [[ "${verify_dsc:-0}" == 1 ]]; then
    dpkg -s debian-keyring >/dev/null 2>&1 || {
        echo "build-openssl: apt-get install debian-keyring (to check the .dsc fetched from the pool)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debian-keyring >/dev/null
    }
    gpgv --keyring /usr/share/keyrings/debian-keyring.gpg "$dsc" 2>/dev/null \
        || { rm -rf "$SRC"; die "$(basename "$dsc"): signature not from a Debian developer key (download removed)"; }
    echo "build-openssl: $(basename "$dsc") fetched from the pool; signature checked against debian-keyring"
fi
rm -rf "$APT"
# Unpack with all of Debian's patches. The files' integrity comes from apt's signed Release files (or, from the
# pool, from the .dsc's signature checked above) and dpkg-source's check of each file against the .dsc; its
# own gpgv notices (none without debian-keyring) are dropped.
tree="$SRC/openssl"
rm -rf "$tree"
dpkg-source -q -x "$dsc" "$tree" 2>&1 | { grep -v '^gpgv:\|^dpkg-source: warning: cannot verify' || true; } >&2
applied=$(grep -cv '^\s*\(#\|$\)' "$tree/debian/patches/series" || true)
echo "build-openssl: $applied Debian patches applied"

export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags=$(dpkg-buildflags --get CFLAGS | sed -E 's/(^| )-g( |$)/ /')
cppflags=$(dpkg-buildflags --get CPPFLAGS)
# Debian's own choices first (debian/rules: no-rdrand, no-capieng, enable-rfc3779, no-idea, no-mdc2, no-rc5,
# no-zlib, no-ssl3, enable-ec_nistp_64_gcc_128 on amd64; its enable-cms is dropped: nothing here uses CMS;
# its debian-<arch> target adds -DOPENSSL_TLS_SECURITY_LEVEL=2 and -fzero-call-used-regs=used-gpr), then ours.
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
options=(no-rdrand no-capieng enable-rfc3779 no-shared no-module no-legacy no-dso no-comp no-zlib
    no-ssl3 no-ssl3-method no-tls1 no-tls1-method no-tls1_1 no-tls1_1-method no-dtls no-srp no-psk no-srtp
    no-ct no-ts no-cms no-cmp no-ec2m no-sm2 no-sm3 no-sm4 no-gost
    no-camellia no-aria no-idea no-seed no-bf no-cast no-rc2 no-rc4 no-rc5 no-des no-md4 no-mdc2
    no-whirlpool no-rmd160 no-blake2 no-siphash no-scrypt no-ocb no-dsa no-dh no-err no-afalgeng no-padlockeng
    no-multiblock no-siv no-cmac
    no-tests no-fuzz-afl no-fuzz-libfuzzer)
[[ "$arch" == amd64 ]] && options+=(enable-ec_nistp_64_gcc_128)  # as debian/rules
rm -rf "$PREFIX"
(
    cd "$tree"
    ./Configure "debian-$arch" --prefix="$PREFIX" --libdir=lib --openssldir=/usr/lib/ssl "${options[@]}" \
        $cppflags $cflags -fPIC -ffunction-sections -fdata-sections >/dev/null
    make -s -j"$OPENSSL_JOBS" build_libs >/dev/null
    make -s install_dev >/dev/null
)
install -D -m 0644 "$tree/debian/copyright" "$PREFIX/share/doc/openssl/copyright"
rm -rf "$tree"  # the object tree; the downloaded source (.dsc, tarballs) stays in $SRC
[[ -f "$PREFIX/lib/libcrypto.a" && -f "$PREFIX/lib/libssl.a" ]] || die "no archives in $PREFIX/lib"
rm -f "$PREFIX"/lib/*.so*
echo "$want" >"$STAMP"
echo "build-openssl: done in $(($(date +%s) - start)) s: $(du -k "$PREFIX/lib/libcrypto.a" | cut -f1) KiB libcrypto.a," \
    "$(du -k "$PREFIX/lib/libssl.a" | cut -f1) KiB libssl.a"
