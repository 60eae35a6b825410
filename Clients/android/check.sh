#!/usr/bin/env bash
# make android-client-check: builds the Android library (Kotlin, with Debian's `kotlin` compiler, no
# network) and runs its JUnit 5 tests (Debian's `junit5`) on the JVM: the unit tests, then the flows
# against the local stack (local-harness/client_stack.py with the given bootstrap, moto, the fake Google
# and the fake upstream). Only src/main and src/test are compiled; src/play needs the Play library and is
# not compiled here (README.md).
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
echo "android-client: compiling src/test"
junit_api="$java_lib/junit-jupiter-api.jar:$java_lib/apiguardian-api.jar:$java_lib/opentest4j.jar:$java_lib/junit-platform-commons.jar"
find "$here/src/test" -name '*.kt' | sort >"$out/test.sources"
kotlinc -d "$out/test" -cp "$out/main:$junit_api" -Xfriend-paths="$out/main" @"$out/test.sources"

junit=(java -jar "$java_lib/junit-platform-console-standalone.jar" --disable-banner --disable-ansi-colors --details=tree
    --class-path "$out/main:$out/test:$java_lib/kotlin-stdlib.jar" --scan-class-path "$out/test"
    --reports-dir "$out/reports")
if [ "$1" = "--unit" ]; then
    "${junit[@]}" --exclude-tag stack
else
    "$PYTHON" "$root/local-harness/client_stack.py" --bootstrap "$1" --routes "$here/src/test/resources/routes.json" \
        --ceiling-budget 3 -- "${junit[@]}"
fi
