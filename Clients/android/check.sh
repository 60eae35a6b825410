#!/usr/bin/env bash
# make android-client-check: builds the Android library (Kotlin, with Debian's `kotlin` compiler, no
# network) and runs its JUnit 5 tests (Debian's `junit5`) on the JVM: the unit tests, then the flows
# against the local stack (local-harness/client_stack.py with the given bootstrap, moto, the fake Google
# and the fake upstream). src/main is compiled, then the build types' source sets as Gradle would pick
# them: src/debug (but its androidx.test reader) and src/release, each over src/main; the tests run on
# main + debug. The release classes are checked to carry no debug-token name (no header, variable or
# argument) while the debug ones do. src/play needs the Play library and is not compiled here (README.md).
#
#   Clients/android/check.sh BOOTSTRAP        everything (make passes .build/release/bootstrap)
#   Clients/android/check.sh --unit           the unit tests only, no stack
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/build/android-client"
kotlin_lib=/usr/share/kotlin/kotlinc/lib
java_lib=/usr/share/java
PYTHON=${PYTHON:-python3}

if [ "$#" -ne 1 ]; then
    echo "usage: $0 BOOTSTRAP | --unit" >&2
    exit 2
fi

# The compiler's main class, without the kotlinc script's -noverify (which JDK 13+ warns about).
kotlinc() {
    java -Dkotlin.home=/usr/share/kotlin/kotlinc -cp "$kotlin_lib/kotlin-preloader.jar" \
        org.jetbrains.kotlin.preloading.Preloader -cp "$kotlin_lib/kotlin-compiler.jar" \
        org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -jvm-target 1.8 -Werror -no-reflect "$@"
}

rm -rf "$out"
mkdir -p "$out"
echo "android-client: compiling src/main (Debian's kotlin $(dpkg-query -W -f='${Version}' kotlin), $(java -version 2>&1 | head -1))"
find "$here/src/main" -name '*.kt' | sort >"$out/main.sources"
kotlinc -d "$out/main" @"$out/main.sources"

# The debug source set's files that need androidx.test (no Android SDK here): the rest is plain JVM.
android_only=(DebugTokens.kt InstrumentationArgumentDebugTokenSource.kt)
debug_dir="$here/src/debug/kotlin/dev/attestgate/client"
skipped=()
for name in "${android_only[@]}"; do
    [ -f "$debug_dir/$name" ] || { echo "android-client: $debug_dir/$name is gone: update check.sh" >&2; exit 1; }
    skipped+=(-e "/$name")
done
echo "android-client: compiling src/debug (but ${android_only[*]}) and src/release, each over src/main"
find "$here/src/debug" -name '*.kt' | sort | grep -v -F "${skipped[@]}" >"$out/debug.sources"
kotlinc -d "$out/debug" -cp "$out/main" -Xfriend-paths="$out/main" @"$out/debug.sources"
find "$here/src/release" -name '*.kt' | sort >"$out/release.sources"
kotlinc -d "$out/release" -cp "$out/main" -Xfriend-paths="$out/main" @"$out/release.sources"
# A release build (main + release) names no debug token; the debug build does (so the search can find them).
for name in X-Debug-Token ATTESTGATE_DEBUG_TOKEN attestgateDebugToken; do
    if leaked=$(grep -rlaF -- "$name" "$out/main" "$out/release"); then
        echo "android-client: the release build's classes name $name:" $leaked >&2
        exit 1
    fi
    grep -rqaF -- "$name" "$out/debug" || { echo "android-client: the debug build's classes lack $name" >&2; exit 1; }
done
javap -c -cp "$out/main:$out/release" dev.attestgate.client.DebugTokens | grep -q 'Field dev/attestgate/client/DebugTokenSource.NONE' ||
    { echo "android-client: the release DebugTokens.source() is not DebugTokenSource.NONE" >&2; exit 1; }
echo "android-client: the release classes carry no debug-token name; the debug ones do"

echo "android-client: compiling src/test"
junit_api="$java_lib/junit-jupiter-api.jar:$java_lib/apiguardian-api.jar:$java_lib/opentest4j.jar:$java_lib/junit-platform-commons.jar"
find "$here/src/test" -name '*.kt' | sort >"$out/test.sources"
kotlinc -d "$out/test" -cp "$out/main:$out/debug:$junit_api" -Xfriend-paths="$out/main,$out/debug" @"$out/test.sources"

junit=(java -jar "$java_lib/junit-platform-console-standalone.jar" --disable-banner --disable-ansi-colors --details=tree
    --class-path "$out/main:$out/debug:$out/test:$java_lib/kotlin-stdlib.jar" --scan-class-path "$out/test"
    --reports-dir "$out/reports")
if [ "$1" = "--unit" ]; then
    "${junit[@]}" --exclude-tag stack
else
    "$PYTHON" "$root/local-harness/client_stack.py" --bootstrap "$1" --routes "$here/src/test/resources/routes.json" \
        --ceiling-budget 3 --debug-tokens -- "${junit[@]}"
fi
