#!/usr/bin/env bash
# Build the Lambda deployment zip: build/attestgate-lambda.zip.
#
# Why: the release binary is built on Debian 12 (glibc 2.36, Debian's libcurl/OpenSSL sonames). As built it
# runs on neither provided.al2 (glibc 2.26, OpenSSL 1.0) nor provided.al2023 (glibc 2.34). So the zip carries
# every shared library the binaries need, glibc and its loader included, and the binaries are rewritten
# (patchelf) to use that loader and to look only in /var/task/lib:
#   - PT_INTERP  = /var/task/lib/ld-linux-x86-64.so.2 (the bundled loader, same glibc build as the bundled libc)
#   - DT_RPATH   = /var/task/lib (RPATH, not RUNPATH: RPATH is searched before LD_LIBRARY_PATH, which on
#                  Lambda lists /lib64 and /usr/lib64 before /var/task/lib, and it also applies to the
#                  transitive dependencies of libcurl and libssl, which RUNPATH would not)
#   - every bundled library except glibc's own gets DT_RPATH=$ORIGIN as a second line of defence.
# The Swift runtime is linked statically (--static-swift-stdlib), so no libswift*.so travels; so are libcurl
# (built for AttestGate: scripts/build-curl.sh), libstdc++, OpenSSL and zlib (scripts/link-static.sh),
# leaving glibc and libgcc_s (which glibc's pthread_exit dlopens in any case).
#
# Layout of the zip (Lambda unpacks it into /var/task):
#   bootstrap            the one binary: the Lambda custom runtime (handler name `bootstrap`), and the operator
#                        CLI when started as `attestgate` (it dispatches on argv[0]'s basename)
#   attestgate           a symbolic link to bootstrap, stored as a link (zip -y; Lambda keeps zip symlinks):
#                        `/var/task/attestgate config check` works on the Lambda image too. A tool that
#                        dereferences it on the way makes a second copy, which still works (same name check)
#   lib/*.so*            every shared library, named by soname, plus ld-linux-x86-64.so.2
#   lib/MANIFEST.txt     soname <- source file <- Debian package and version
#   licenses/<pkg>       the Debian copyright file of every package a bundled library comes from
# The pinned Apple roots are compiled into the binaries (checked below); the CA bundle comes from the image
# (the HTTP client probes Debian's and Amazon Linux's paths, Sources/3-Wrappers/HTTPClient/CAInfo.swift).
#
# Environment: SWIFT (swift), BIN_DIR (the release bin dir; default asks swift), OUT_DIR (build),
#              STRIP (1: strip symbols from the binaries; 0 keeps them for symbolicated crash logs),
#              RECOMPRESS (1: advzip -3 re-deflates every entry with 7-Zip's deflate, still plain deflate
#              for Lambda: ~3.5 % smaller than zip -9 for ~40 s of CPU; 0 skips it),
#              ROUTES_FILE (a route table too large for Lambda's 4 KB environment: shipped as routes.json at the
#              zip's root, read with ROUTES_FILE=routes.json; its SHA-256 is written beside the zip as
#              attestgate-lambda.zip.routes.sha256, which infra/ checks against its routes; docs/deploy.md).
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
OUT_DIR=${OUT_DIR:-build}
STRIP=${STRIP:-1}
RECOMPRESS=${RECOMPRESS:-1}
TASK_ROOT=/var/task
LOADER_NAME=ld-linux-x86-64.so.2
BINARIES=(bootstrap)   # the one ELF file of ours; LINKS name it again
LINKS=(attestgate)

die() { echo "package: $*" >&2; exit 1; }
tools=(patchelf ldd readelf zip dpkg-query)
[[ "$RECOMPRESS" == 1 ]] && tools+=(advzip)
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || die "$tool not found (run: make setup)"
done

BIN_DIR=${BIN_DIR:-$("$SWIFT" build -c release --show-bin-path)}
for b in "${BINARIES[@]}"; do
    [[ -x "$BIN_DIR/$b" ]] || die "$BIN_DIR/$b missing: build it first (make build)"
done

STAGE="$OUT_DIR/lambda-root"
ZIP="$OUT_DIR/attestgate-lambda.zip"
rm -rf "$STAGE" "$ZIP"
mkdir -p "$STAGE/lib" "$STAGE/licenses"

for b in "${BINARIES[@]}"; do
    install -m 0755 "$BIN_DIR/$b" "$STAGE/$b"
    if [[ "$STRIP" == 1 ]]; then strip --strip-unneeded "$STAGE/$b"; fi
done

# The Swift runtime must be static: a libswift*.so in the closure means --static-swift-stdlib was lost.
declare -A LIBS=()   # soname -> resolved source file
for b in "${BINARIES[@]}"; do
    while read -r soname path; do
        [[ "$soname" == libswift* || "$soname" == libFoundation* || "$soname" == libdispatch* ]] &&
            die "$b links $soname dynamically; build with --static-swift-stdlib"
        [[ "$path" == "not" ]] && die "$b: $soname not found on the build machine"
        LIBS[$soname]=$(readlink -f "$path")
    done < <(ldd "$STAGE/$b" | awk '$2 == "=>" && $3 != "" { print $1, $3 }')
done

# The loader: whatever PT_INTERP the linker wrote (Debian: /lib64/ld-linux-x86-64.so.2), resolved.
interp=$(patchelf --print-interpreter "$STAGE/bootstrap")
[[ "$(basename "$interp")" == "$LOADER_NAME" ]] || die "unexpected interpreter $interp"
LIBS[$LOADER_NAME]=$(readlink -f "$interp")

manifest="$STAGE/lib/MANIFEST.txt"
echo "# soname <- file on the build machine <- Debian package (version); built $(date -u +%FT%TZ)" >"$manifest"
declare -A PKGS=()
for soname in $(printf '%s\n' "${!LIBS[@]}" | sort); do
    src=${LIBS[$soname]}
    install -m 0755 "$src" "$STAGE/lib/$soname"
    # dpkg knows the file under its /lib or /usr/lib spelling (usrmerge): try both.
    pkg=$(dpkg-query -S "$src" 2>/dev/null || dpkg-query -S "${src#/usr}" 2>/dev/null || true)
    pkg=${pkg%%:*}
    version=$([[ -n "$pkg" ]] && dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo "?")
    echo "$soname <- $src <- ${pkg:-unknown} ($version)" >>"$manifest"
    [[ -n "$pkg" ]] && PKGS[$pkg]=1
done
# Linked in statically (scripts/build-curl.sh, Package.swift's release link): libcurl and libstdc++.
# Their code is inside the binaries, so their licences travel too.
curl_stamp=build/curl/prefix/STAMP
if [[ -f "$curl_stamp" ]]; then
    echo "# static: libcurl <- $(cut -d' ' -f1-2 "$curl_stamp") (scripts/build-curl.sh)" >>"$manifest"
    PKGS[curl]=1
fi
for pkg in libstdc++6; do
    echo "# static: ${pkg%%[0-9]*} <- $pkg ($(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo "?"))" >>"$manifest"
    PKGS[$pkg]=1
done
# OpenSSL and zlib, when linked from the -dev archives (scripts/link-static.sh): the archive's Debian version
# must be the machine's shared library's (the one its security updates move), and it is recorded.
symbols=$(nm "$BIN_DIR/bootstrap" 2>/dev/null || true)
static_from() {  # <what> <symbol> <dev package> <runtime package>
    grep -Eq " [Tt] $2\$" <<<"$symbols" || return 0
    local dev runtime
    dev=$(dpkg-query -W -f='${Version}' "$3" 2>/dev/null || echo "?")
    runtime=$(dpkg-query -W -f='${Version}' "$4" 2>/dev/null || echo "?")
    [[ "$dev" == "$runtime" ]] || die "$1 is linked from $3 $dev, not the machine's $4 $runtime (scripts/link-static.sh)"
    echo "# static: $1 <- $3 ($dev, = $4)" >>"$manifest"
    PKGS[$4]=1
}
# OpenSSL: built from Debian's source package at libssl3's version (scripts/build-openssl.sh's STAMP).
ossl_stamp=build/openssl/prefix/STAMP
if grep -Eq " [Tt] OPENSSL_init_crypto\$" <<<"$symbols"; then
    libssl3=$(dpkg-query -W -f='${Version}' libssl3 2>/dev/null || echo "?")
    [[ -f "$ossl_stamp" && "$(cut -d' ' -f2 "$ossl_stamp")" == "$libssl3" ]] \
        || die "libcrypto, libssl are not build/openssl at libssl3 $libssl3 (scripts/build-openssl.sh)"
    # build/openssl has no error strings (no-err); Debian's libcrypto.a has: the binary was linked from ours.
    ! grep -Eq ' [Dd] ERR_str_reasons$' <<<"$symbols" \
        || die "bootstrap carries Debian's libcrypto.a, not build/openssl's (make setup, then make build)"
    echo "# static: libcrypto, libssl <- $(cut -d' ' -f1-2 "$ossl_stamp") (= libssl3; scripts/build-openssl.sh)" >>"$manifest"
    PKGS[openssl]=1
fi
static_from zlib inflate zlib1g-dev zlib1g
for pkg in "${!PKGS[@]}"; do
    copyright="/usr/share/doc/$pkg/copyright"
    [[ "$pkg" == curl ]] && copyright=build/curl/prefix/share/doc/curl/copyright
    [[ "$pkg" == openssl ]] && copyright=build/openssl/prefix/share/doc/openssl/copyright
    [[ -f "$copyright" ]] && cp "$copyright" "$STAGE/licenses/$pkg"
done

# glibc's own objects (the loader, libc, libm, libresolv, ...) find each other by the loader's rules and are
# left byte-identical; every other library gets RPATH=$ORIGIN.
for lib in "$STAGE"/lib/*.so*; do
    name=$(basename "$lib")
    case "$name" in
        "$LOADER_NAME" | libc.so.* | libm.so.* | libresolv.so.* | libpthread.so.* | libdl.so.* | librt.so.*) ;;
        *) patchelf --force-rpath --set-rpath '$ORIGIN' "$lib" ;;
    esac
done
# Each bundled library the binary names, by its full path: the loader opens it at once, instead of first
# trying a dozen directories under the RPATH that do not exist (glibc-hwcaps/x86-64-v3, tls/x86_64, ...;
# ~0.3 ms of every cold start; docs/deploy.md). The loader itself keeps its soname: it is the interpreter.
for b in "${BINARIES[@]}"; do
    patchelf --set-interpreter "$TASK_ROOT/lib/$LOADER_NAME" --force-rpath --set-rpath "$TASK_ROOT/lib" "$STAGE/$b"
    while read -r needed; do
        [[ "$needed" == "$LOADER_NAME" ]] && continue
        [[ -f "$STAGE/lib/$needed" ]] || die "$b needs $needed, which is not in lib/"
        patchelf --replace-needed "$needed" "$TASK_ROOT/lib/$needed" "$STAGE/$b"
    done < <(readelf -d "$STAGE/$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done

# The pinned Apple roots (App Attestation Root CA, Root CA - G3) travel inside the binaries: AppAttest compiles
# Sources/4-Protocols/AppAttest/Roots/*.pem into AppleRoots.swift as string constants, so no certificate file is needed
# at run time. Check that each PEM, byte for byte, is in the staged bootstrap.
python3 - "$STAGE/bootstrap" Sources/4-Protocols/AppAttest/Roots/*.pem <<'PY' || die "the pinned Apple roots are not in bootstrap"
import pathlib, sys
binary = pathlib.Path(sys.argv[1]).read_bytes()
pems = sys.argv[2:]
if not pems or not all(pathlib.Path(p).is_file() for p in pems):
    sys.exit("no Sources/4-Protocols/AppAttest/Roots/*.pem")
for pem in pems:
    text = pathlib.Path(pem).read_text().strip()
    if text.encode() not in binary:
        sys.exit(f"{pem} is not embedded")
    print(f"  pinned root embedded: {pathlib.Path(pem).name}")
PY

for l in "${LINKS[@]}"; do ln -s bootstrap "$STAGE/$l"; done
rm -f "$ZIP.routes.sha256"
if [[ -n "${ROUTES_FILE:-}" ]]; then
    [[ -f "$ROUTES_FILE" ]] || die "ROUTES_FILE=$ROUTES_FILE is not a file"
    python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert isinstance(v, list) and v' "$ROUTES_FILE" \
        || die "ROUTES_FILE=$ROUTES_FILE is not a non-empty JSON list"
    install -m 0644 "$ROUTES_FILE" "$STAGE/routes.json"
    sha256sum "$ROUTES_FILE" | cut -d' ' -f1 > "$ZIP.routes.sha256"
fi

# Deterministic-ish zip: fixed mtimes, sorted entries, unix modes kept (bootstrap must stay executable), links
# stored as links (-y).
find "$STAGE" -exec touch -h -d '2000-01-01 00:00:00Z' {} +
(cd "$STAGE" && find . -mindepth 1 -print | sed 's|^\./||' | LC_ALL=C sort | zip -q -X -9 -y -@ "../$(basename "$ZIP")")
zip_9=$(stat -c %s "$ZIP")
# Same entries, modes and link, each re-deflated harder (advancecomp; the result is an ordinary deflate zip).
if [[ "$RECOMPRESS" == 1 ]]; then advzip -z -3 -q "$ZIP"; fi

size() { stat -c %s "$1"; }
human() { numfmt --to=iec-i --suffix=B "$1"; }
unzipped=$(du -sb "$STAGE" | cut -f1)
echo "package: $ZIP"
echo "  zip size:        $(size "$ZIP") bytes ($(human "$(size "$ZIP")")); Lambda limit 50 MiB zipped (zip -9 alone: $zip_9)"
echo "  unzipped size:   $unzipped bytes ($(human "$unzipped")); Lambda limit 250 MiB"
for b in "${BINARIES[@]}"; do
    echo "  $b binary: $(size "$STAGE/$b") bytes ($(human "$(size "$STAGE/$b")")), unstripped $(size "$BIN_DIR/$b")"
done
for l in "${LINKS[@]}"; do echo "  $l:      a link to $(readlink "$STAGE/$l") (the operator CLI)"; done
echo "  libraries:       ${#LIBS[@]} (see lib/MANIFEST.txt), glibc $(ldd --version | head -1 | awk '{print $NF}')"
