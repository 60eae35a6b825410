#!/usr/bin/env bash
# Build the libcurl that ships in AttestGate: build/curl/prefix/{include,lib/libcurl.a,lib/pkgconfig/libcurl.pc}.
#
# Why: Debian's libcurl4 links gnutls, nettle, Kerberos, LDAP, SASL, libssh2, nghttp2, libidn2, libpsl, brotli
# and zstd (35 shared libraries with their closure), none of which AttestGate uses; the loader maps and
# relocates all of them at every cold start and the zip carries them (docs/performance.md). AttestGate needs
# HTTP/1.1 and HTTPS over OpenSSL 3 only.
#
# What: Debian's own source package of curl, at exactly the version of the machine's libcurl4 (installed, else
# the candidate), so the upstream release and every Debian security patch are the same as the system
# library's. apt fetches it (signatures checked against the archive's Release files) through a private apt
# configuration in build/curl/apt: the deb-src twins of the Debian suites already in /etc/apt/sources.list*
# (bookworm, bookworm-updates, bookworm-security here). Nothing under /etc is changed.
# The patches applied are those of Debian's OpenSSL flavour (libcurl4): debian/patches/series up to, not
# including, 90_gnutls.patch (Debian's rules pop 90_gnutls and 99_nss for that flavour). Debian then runs
# autoreconf; we use the release's own configure: the two patches to configure.ac concern only GSSAPI and
# LDAP, both disabled here, and no patch changes a library source list.
# Configured with HTTP (1.1) and HTTPS over OpenSSL 3 only, static, position-independent, with Debian's
# hardening flags (dpkg-buildflags) plus -ffunction-sections -fdata-sections so the final link can drop
# what AttestGate does not call.
#
# The link: SwiftPM reads build/curl/prefix/lib/pkgconfig/libcurl.pc (the Makefile exports PKG_CONFIG_PATH;
# CCurl's pkgConfig "libcurl"). Its Libs name the archive libcurl-attestgate.a: SwiftPM puts libcrypto's
# -L/usr/lib/x86_64-linux-gnu first, where -lcurl would find Debian's libcurl.so.
# Also build/link/libstdc++.a (a link to GCC's): Package.swift searches it first when linking the shipped
# binaries in release, so libstdc++ (with -static-libgcc, libgcc) is linked statically too.
#
# Built once: build/curl/prefix/STAMP holds the Debian version and this script's hash; a rerun with both
# unchanged does nothing. A changed libcurl4 version (a security update) or a changed script rebuilds.
# `make clean` keeps build/curl (a pinned third-party input, not project output); `make distclean` drops it.
#
# Environment: CURL_JOBS (2: the make -j of the C build), CURL_DIR (build/curl).
set -euo pipefail

cd "$(dirname "$0")/.."
CURL_DIR=${CURL_DIR:-build/curl}
CURL_JOBS=${CURL_JOBS:-2}
PREFIX="$PWD/$CURL_DIR/prefix"
STAMP="$PREFIX/STAMP"

die() { echo "build-curl: $*" >&2; exit 1; }

link_libstdcxx() {
    local archive
    archive=$(gcc -print-file-name=libstdc++.a 2>/dev/null || true)
    [[ "$archive" == /* && -f "$archive" ]] || die "no static libstdc++.a (apt-get install g++)"
    mkdir -p build/link
    ln -sfn "$archive" build/link/libstdc++.a
}

version=$(dpkg-query -W -f='${Version}' libcurl4 2>/dev/null || true)
[[ -n "$version" ]] || version=$(apt-cache policy libcurl4 | awk '/Candidate:/ {print $2}')
[[ -n "$version" && "$version" != "(none)" ]] || die "no libcurl4 version known to apt"
want="debian-curl $version script $(sha256sum "$0" | cut -c1-16)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -f "$PREFIX/lib/libcurl.a" ]]; then
    link_libstdcxx
    exit 0
fi

missing=""
for p in dpkg-dev gcc make libssl-dev zlib1g-dev; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [[ -n "$missing" ]]; then
    echo "build-curl: apt-get install$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

start=$(date +%s)
echo "build-curl: libcurl from Debian's curl $version (HTTP/1.1 + HTTPS over OpenSSL, static) into $PREFIX"

# A private apt for Debian's source packages (scripts/debian-source-apt.sh).
APT="$PWD/$CURL_DIR/apt"
source scripts/debian-source-apt.sh  # the working directory is the repository (above)
debian_source_apt "$APT"
apt-get "${apt_opts[@]}" -qq update
SRC="$PWD/$CURL_DIR/src"
rm -rf "$SRC"
mkdir -p "$SRC"
(cd "$SRC" && apt-get "${apt_opts[@]}" -qq source --download-only "curl=$version" >/dev/null)
rm -rf "$APT"  # 40 MB of package indices, needed only for the download
dsc=$(ls "$SRC"/curl_*.dsc)
# Unpack without patches, then apply Debian's series for the OpenSSL flavour (see above). The files'
# integrity comes from apt (hashes in the signed Release files); the .dsc's own maintainer signature
# cannot be checked without debian-keyring, so dpkg-source's gpgv notice is dropped.
dpkg-source -q --skip-patches -x "$dsc" "$SRC/curl" 2>&1 | { grep -v '^gpgv:' || true; } >&2
tree="$SRC/curl"
applied=0
while read -r patch _; do
    [[ -z "$patch" || "$patch" == \#* ]] && continue
    [[ "$patch" == 90_gnutls.patch ]] && break
    patch -s -p1 -d "$tree" <"$tree/debian/patches/$patch" || die "patch $patch does not apply"
    applied=$((applied + 1))
done <"$tree/debian/patches/series"
echo "build-curl: applied $applied Debian patches (series up to 90_gnutls.patch)"

export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CFLAGS) -ffunction-sections -fdata-sections"
cppflags="$(dpkg-buildflags --get CPPFLAGS) -DCURL_PATCHSTAMP=\\\"$version\\\""
ldflags=$(dpkg-buildflags --get LDFLAGS)
rm -rf "$PREFIX"
(
    cd "$tree"
    ./configure -q --prefix="$PREFIX" --disable-shared --enable-static --with-pic \
        --disable-dependency-tracking --disable-silent-rules \
        CFLAGS="$cflags" CPPFLAGS="$cppflags" LDFLAGS="$ldflags" \
        --with-openssl --without-gnutls --without-mbedtls --without-wolfssl --without-bearssl --without-rustls \
        --without-nss --with-zlib \
        --enable-http --disable-ftp --disable-file --disable-ldap --disable-ldaps --disable-rtsp --disable-dict \
        --disable-telnet --disable-tftp --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher \
        --disable-mqtt --disable-manual --disable-ntlm --disable-ntlm-wb --disable-tls-srp \
        --without-libssh2 --without-libssh --without-wolfssh --without-librtmp --without-libidn2 --without-libpsl \
        --without-libgsasl --without-nghttp2 --without-ngtcp2 --without-nghttp3 --without-quiche --without-msh3 \
        --without-hyper --without-brotli --without-zstd --without-gssapi --disable-ares \
        --enable-threaded-resolver --enable-ipv6 --enable-symbol-hiding \
        --with-ca-bundle=/etc/ssl/certs/ca-certificates.crt --with-ca-path=/etc/ssl/certs \
        --without-zsh-functions-dir --without-fish-functions-dir >/dev/null
    make -s -j"$CURL_JOBS" -C lib >/dev/null
    make -s -C lib install >/dev/null
    make -s -C include install >/dev/null
    make -s install-pkgconfigDATA install-binSCRIPTS >/dev/null
)
# The archive under a name only it has (see above), and a .pc that names it.
ln -sfn libcurl.a "$PREFIX/lib/libcurl-attestgate.a"
# (CURL_STATICLIB only matters for Windows DLL imports; SwiftPM refuses -D flags from pkg-config anyway.)
sed -i -e 's|^Libs: .*|Libs: -L${libdir} -lcurl-attestgate -lssl -lcrypto -lz|' \
    -e 's|^Cflags: .*|Cflags: -I${includedir}|' "$PREFIX/lib/pkgconfig/libcurl.pc"
# curl's licence travels with the binaries that now contain it (scripts/package.sh: licenses/).
install -D -m 0644 "$tree/debian/copyright" "$PREFIX/share/doc/curl/copyright"
rm -rf "$tree"  # the object tree; the downloaded source (.dsc, tarballs) stays in $SRC
# Fail here, not in the Swift link, if a backend or library slipped in.
features=$("$PREFIX/bin/curl-config" --features | tr '\n' ' ')
protocols=$("$PREFIX/bin/curl-config" --protocols | tr '\n' ' ')
libs=$("$PREFIX/bin/curl-config" --static-libs)
[[ "$protocols" == "HTTP HTTPS " ]] || die "unexpected protocols: $protocols"
for lib in gnutls nettle gssapi krb5 ldap lber sasl ssh2 nghttp2 idn2 psl brotli zstd rtmp; do
    grep -q -- "-l$lib" <<<"$libs" && die "libcurl links -l$lib: $libs"
done
link_libstdcxx
echo "$want" >"$STAMP"
echo "build-curl: done in $(($(date +%s) - start)) s; protocols: $protocols; features: $features; libs: $libs"
