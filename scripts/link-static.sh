#!/usr/bin/env bash
# OpenSSL (libcrypto, libssl) and zlib linked statically into the shipped binary (issue 20; docs/deploy.md,
# docs/performance.md).
#
# Why: as shared libraries they were three of the 7 files the loader mapped and relocated at every cold
# start (most of the loader's symbol lookups were libcrypto's and libssl's) and ~2.2 MiB of the zip. Linked
# from Debian's own archives (libssl-dev's libcrypto.a and libssl.a, zlib1g-dev's libz.a; the release link
# uses --gc-sections, which keeps the archive members AttestGate reaches) they cost neither. OpenSSL's
# default provider is built into libcrypto, so nothing is loaded at run time (no ossl-modules, no engines;
# scripts/link-check.sh checks the provider is linked in).
#
# How: build/link/static gets the three archives (links to Debian's) and libcrypto.pc and libssl.pc
# (Debian's, with libdir pointing at that folder). The Makefile puts the folder first in PKG_CONFIG_PATH,
# so COpenSSL's `-lcrypto` and libcurl's `-lssl -lcrypto -lz` resolve to the archives (the folder holds no
# .so) for every binary make builds: the tests run against the OpenSSL that ships. A plain `swift build`
# without that PKG_CONFIG_PATH links Debian's shared libraries (development only).
#
# Security updates: each archive comes from the -dev package of the same Debian version as the machine's
# shared library (libssl-dev = libssl3, zlib1g-dev = zlib1g; checked here, recorded by package.sh in
# lib/MANIFEST.txt). An OpenSSL or zlib security update therefore needs `apt-get upgrade` (both packages
# move together) and a rebuild of the zip, as for libcurl.
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
for lib in libcrypto libssl libz; do
    [[ -f "$system/$lib.a" ]] || die "no $system/$lib.a (apt-get install libssl-dev zlib1g-dev)"
    ln -sfn "$system/$lib.a" "$out/$lib.a"
done
for pc in libcrypto libssl; do
    sed "s|^libdir=.*|libdir=$PWD/$out|" "$system/pkgconfig/$pc.pc" >"$out/$pc.pc.tmp"
    mv "$out/$pc.pc.tmp" "$out/$pc.pc"
done
echo "$versions" >"$out/VERSIONS"
