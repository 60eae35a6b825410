#!/usr/bin/env bash
# OpenSSL (libcrypto, libssl) and zlib linked statically into the shipped binary (docs/deploy.md,
# docs/performance.md).
#
# Why: as shared libraries they were three of the 7 files the loader mapped and relocated at every cold
# start (most of the loader's symbol lookups were libcrypto's and libssl's) and ~2.2 MiB of the zip. Linked
# statically (the release link uses --gc-sections, which keeps only what AttestGate reaches) they cost
# neither; OpenSSL built for AttestGate (scripts/build-openssl.sh: trimmed, -ffunction-sections) also keeps
# the code and the relocated tables small. OpenSSL's default provider is built into libcrypto, so nothing
# is loaded at run time (no ossl-modules, no engines; scripts/link-check.sh checks the provider is linked
# in, and that the OpenSSL is build/openssl's).
#
# How: build/link/static/lib-<hash of the archives> gets the three archives (links: libcrypto.a and libssl.a
# built by scripts/build-openssl.sh from Debian's openssl source package, trimmed to what AttestGate uses;
# libz.a is zlib1g-dev's), build/link/static libcrypto.pc and libssl.pc (libssl-dev's, with libdir pointing
# at that folder). The Makefile puts build/link/static first in PKG_CONFIG_PATH, so COpenSSL's `-lcrypto`
# and libcurl's `-lssl -lcrypto -lz` resolve to the archives (the folder holds no .so) for every binary make
# builds: the tests run against the OpenSSL that ships. A plain `swift build` without that PKG_CONFIG_PATH
# links Debian's shared libraries (development only).
#
# Security updates: OpenSSL is built from the source package of the machine's libssl3 version, zlib is
# the -dev package of the machine's zlib1g version (libssl-dev = libssl3 and zlib1g-dev = zlib1g are
# checked here; recorded by package.sh in lib/MANIFEST.txt). An OpenSSL or zlib security update therefore
# needs `apt-get upgrade`, `make setup` (build-openssl.sh rebuilds on the new version) and a rebuild of the
# zip, as for libcurl.
set -euo pipefail

cd "$(dirname "$0")/.."
die() { echo "link-static: $*" >&2; exit 1; }

multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
system=/usr/lib/$multiarch
same_version() {  # <dev package> <runtime package>
    local dev runtime
    dev=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true)
    runtime=$(dpkg-query -W -f='${Version}' "$2" 2>/dev/null || true)
    [[ -n "$dev" ]] || die "$1 is not installed (make setup)"
    [[ "$dev" == "$runtime" ]] || die "$1 $dev is not the machine's $2 $runtime: apt-get install $1=$runtime $2=$runtime"
    echo "$1 $dev"
}

out=build/link/static
mkdir -p "$out"
versions="$(same_version libssl-dev libssl3)"$'\n'"$(same_version zlib1g-dev zlib1g)"
[[ -f "$system/libz.a" ]] || die "no $system/libz.a (apt-get install zlib1g-dev)"
# OpenSSL: the archives scripts/build-openssl.sh built from Debian's source package at libssl3's version
# (its STAMP says which). The .pc files stay libssl-dev's (same release, so the same ABI and headers): the C
# shims and libcurl (build/curl) compile against /usr/include as before, and a function the trimmed build
# left out fails the link, not the run.
ossl=$PWD/build/openssl/prefix
stamp=$(cat "$ossl/STAMP" 2>/dev/null || true)
libssl3=$(dpkg-query -W -f='${Version}' libssl3 2>/dev/null || true)
[[ "$stamp" == "debian-openssl $libssl3 "* ]] || die "build/openssl is not libssl3 $libssl3 (${stamp:-not built}): run scripts/build-openssl.sh"
# The archives go into a folder named after their contents, and the .pc files' libdir points at it: new
# archives (a security update, a changed build-openssl.sh) change the link command's -L, so SwiftPM relinks
# every binary (it does not track the files behind -l, and would otherwise keep linking the old code).
key=$(cat "$ossl/lib/libcrypto.a" "$ossl/lib/libssl.a" "$system/libz.a" | sha256sum | cut -c1-12)
dir=$out/lib-$key
mkdir -p "$dir"
ln -sfn "$ossl/lib/libcrypto.a" "$dir/libcrypto.a"
ln -sfn "$ossl/lib/libssl.a" "$dir/libssl.a"
ln -sfn "$system/libz.a" "$dir/libz.a"
for old in "$out"/lib-* "$out"/*.a; do
    [[ "$old" == "$dir" ]] || rm -rf "$old"
done
for lib in libcrypto libssl; do
    sed "s|^libdir=.*|libdir=$PWD/$dir|" "$system/pkgconfig/$lib.pc" >"$out/$lib.pc.tmp"
    mv "$out/$lib.pc.tmp" "$out/$lib.pc"
done
versions="$versions"$'\n'"$(cut -d' ' -f1-2 <<<"$stamp") (scripts/build-openssl.sh)"
echo "$versions" >"$out/VERSIONS"
