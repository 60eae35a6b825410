# AttestGate: every command a developer or CI needs. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

SWIFT ?= swift
PYTHON ?= python3
# Every release binary: the Swift runtime static, so no library search path of its own (link-check).
SWIFT_RELEASE := -c release --static-swift-stdlib --disable-local-rpath
export PIP_BREAK_SYSTEM_PACKAGES := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
APT_PACKAGES := libssl-dev libcurl4-openssl-dev zlib1g-dev pkg-config python3 python3-pip zip unzip curl \
	patchelf binutils python3-venv openssl advancecomp openjdk-17-jdk-headless kotlin junit5
PIP_PACKAGES := moto[server] boto3 python-hcl2==8.1.4 cryptography cbor2 openapi-spec-validator==0.9.0

.PHONY: help setup build test contention-check lint format unit-test link-check init-order run clean package package-check infra-check test-table \
	demo run-check openapi-check api-fuzz ref-check stream-isolation-check android-client-check swift-client-check

## help: every target with the first line of its `## target:` comment (scripts/make-help.py; ref-check
## fails when a target has none).
help:
	@$(PYTHON) scripts/make-help.py Makefile

## setup: apt and pip packages, installed only when missing.
## SETUP_DONE=1 (set by make test for its stages, after one setup) skips the checks.
setup:
ifneq ($(SETUP_DONE),1)
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "apt-get install$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi
	@$(PYTHON) -c "import moto, boto3, flask, hcl2, cryptography, cbor2, openapi_spec_validator" 2>/dev/null || \
	  $(PYTHON) -m pip install -q $(PIP_PACKAGES)
	@scripts/build-curl.sh  # the libcurl that ships (below: "libcurl for AttestGate")
	@scripts/build-openssl.sh  # the OpenSSL that ships, from Debian's source package (docs/deploy.md)
	@scripts/link-static.sh  # OpenSSL (build/openssl) and zlib (zlib1g-dev's archive) linked statically (below)
endif

## build: the one shipped binary; `attestgate` is a link to it (bootstrap runs the operator CLI under that name).
build: setup
	@mkdir -p build
	set -o pipefail; $(SWIFT) build $(SWIFT_RELEASE) --product bootstrap 2>&1 | tee build/build-release.log
	scripts/no-warnings.sh build/build-release.log
	ln -sfn bootstrap .build/release/attestgate

## init-order: rewrites scripts/init-order.txt, the code and data the release bootstrap reaches before its
## first GET /next (valgrind's lackey), which the release link lays out first (docs/performance-archive.md,
## "Init order"); then relinks. Run it when link-check says the file went stale, and commit the file.
init-order: build
	@command -v valgrind >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
	$(PYTHON) scripts/init-order.py .build/release/bootstrap scripts/init-order.txt
	rm -f .build/release/bootstrap  # SwiftPM does not see the file behind the flag: relink
	$(MAKE) build

## lint: `swift format lint --strict` over Sources, Tools, Tests and Package.swift, and the Swift client's
## (Clients/swift), with the project's .swift-format.
SWIFT_FILES := Sources Tools Tests Package.swift Clients/swift/Sources Clients/swift/Tests Clients/swift/Package.swift
lint:
	$(SWIFT) format lint --strict -r $(SWIFT_FILES)

## format: rewrites the same files with `swift format -i`.
format:
	$(SWIFT) format -i -r $(SWIFT_FILES)

## Real decision lines of every in-process flow test, replayed through the alarms of infra/ after the tests.
DECISION_LINES := $(CURDIR)/build/decision-lines.tests.jsonl

## unit-test: swift test with moto's server on a free loopback port (DYNAMODB_ENDPOINT), always stopped after.
## Suites run in parallel, at most TEST_WIDTH test cases at a time. Test support never blocks Swift's
## cooperative pool (child processes are read and waited for on threads of their own: TestSupport's
## ChildProcess and offThePool). The width is bounded because the pool has only as many threads as cores
## (2 here): with every test runnable at once, CPU-bound suites held both threads long enough for
## deadline-bound tests (1-3 s deadlines against in-process fakes) to miss them on a loaded machine.
## TEST_WIDTH=1 runs them one at a time.
TEST_WIDTH ?= 4
unit-test: setup
	@mkdir -p build
	set -o pipefail; $(SWIFT) build --build-tests 2>&1 | tee build/build-tests.log
	scripts/no-warnings.sh build/build-tests.log
	$(SWIFT) build --product bootstrap  # BootstrapTests run this binary through local-harness/
	mkdir -p build && rm -f $(DECISION_LINES)
	ATTESTGATE_DECISION_LINES=$(DECISION_LINES) local-harness/with_moto.sh $(SWIFT) test --skip-build \
	  --parallel --experimental-maximum-parallelization-width $(TEST_WIDTH) --skip ContentionBootstrapTests
	$(PYTHON) infra/tests/check_metrics.py --lines $(DECISION_LINES)

## contention-check: the ceiling under DynamoDB's contention rules through the real bootstrap (8, 32 and 64
## calls in flight; docs/gate.md, "The ceiling under contention"), alone: its 64 bootstrap instances would
## otherwise take the cores from the deadline-bound tests that unit-test runs beside it.
contention-check: setup
	$(SWIFT) build --build-tests
	$(SWIFT) build --product bootstrap
	local-harness/with_moto.sh $(SWIFT) test --skip-build --filter ContentionBootstrapTests

## test-table: `attestgate table create|describe` against moto.
test-table: setup
	$(SWIFT) build --product bootstrap
	bin=$$($(SWIFT) build --show-bin-path) && ln -sfn bootstrap $$bin/attestgate && \
	  local-harness/with_moto.sh local-harness/table_check.sh $$bin/attestgate

## test: everything CI checks, stage by stage with each stage's wall time (scripts/test-stages.sh), ending
## with the single line `checks: N passed, 0 failed`.
TEST_STAGES := lint ref-check openapi-check unit-test contention-check infra-check test-table fuzz-smoke link-check ci-ddb-local \
	ci-ddb-selftest ddb-standin-check run-check stream-isolation-check android-client-check swift-client-check \
	api-fuzz
test: setup
	@scripts/test-stages.sh "$(MAKE)" $(TEST_STAGES)

## clean: removes .build and build/ but the pinned libcurl, OpenSSL and link inputs (distclean removes those).
clean:
	rm -rf .build $(filter-out build/curl build/openssl build/link,$(wildcard build/*))

## run: the whole system on 127.0.0.1 (local-harness/run.py: moto + table, fake Google, fake upstream AI,
## Lambda harness with the release bootstrap), the scripted session (attestgate-demo), then serving until
## Ctrl-C. SCRIPT=0 skips the session; PORT (8080) and INSTANCES (2) can be overridden. docs/quickstart.md.
PORT ?= 8080
INSTANCES ?= 2
SCRIPT ?= 1
RUN_ARGS = --bootstrap .build/release/bootstrap --attestgate .build/release/attestgate \
	--demo .build/release/attestgate-demo --instances $(INSTANCES)
run: build demo
	@$(PYTHON) local-harness/run.py $(RUN_ARGS) --port $(PORT) --script $(SCRIPT)

## demo: the simulated devices and scripted session (not part of the Lambda zip).
demo: setup
	$(SWIFT) build $(SWIFT_RELEASE) --product attestgate-demo

## run-check: the same session, non-interactively, on free ports; fails if any step is not as expected.
## Then the lifecycle: a second run is refused by name, SIGINT stops every process run.py started.
run-check: build demo
	$(PYTHON) local-harness/run.py $(RUN_ARGS) --check
	$(PYTHON) local-harness/run_lifecycle_check.py $(RUN_ARGS)

## stream-isolation-check: streamed routes on a pool of their own, through the real bootstrap
## (local-harness/stream_isolation_check.py, a few seconds): slow readers fill the stream pool, the next stream
## gets 429, and guests still get challenges and buffered answers; the control (one shared pool, the Function
## URL on the guest function as before) must starve them (500). BOOTSTRAP_PATH=<binary> runs it on that binary
## without building; else the release build.
stream-isolation-check: $(if $(BOOTSTRAP_PATH),setup,build)
	BOOTSTRAP_PATH=$(or $(BOOTSTRAP_PATH),.build/release/bootstrap) $(PYTHON) local-harness/stream_isolation_check.py

## android-client-check: the Android library (Clients/android/README.md): Kotlin compiled with Debian's `kotlin`,
## tested with Debian's `junit5` on the JVM, no network; its unit tests, then its flows against the local stack
## with the release bootstrap (local-harness/client_stack.py: moto, fake Google, fake upstream, two fronts, debug
## tokens on). The debug and release build types' source sets are compiled too, and the release classes checked to
## name no debug token. Clients/android/check.sh --unit runs the unit tests alone. The Play source set (src/play)
## and the debug set's androidx.test reader are not compiled here.
android-client-check: build
	Clients/android/check.sh .build/release/bootstrap

## swift-client-check: the Swift client (Clients/swift/README.md) built and tested on Linux: the wire vectors
## written again by the server's WireContract must equal the client's fixture; a release build of the library
## holds none of the debug-token strings its debug build holds; its unit tests, then its stack tests against the
## release bootstrap (local-harness/client_stack.py with App Attest against the demo's synthetic CA and
## DEBUG_TOKENS=on; `attestgate-demo enclave` as the Secure Enclave). Clients/swift/check.sh --unit runs the
## release check and the unit tests alone. The Apple glue (Sources/AttestGateClient/Apple) is not compiled here.
swift-client-check: build demo
	Clients/swift/check.sh .build/release/bootstrap .build/release/attestgate-demo

## link-check: the release bootstrap links neither Foundation nor ICU (FoundationEssentials only), and carries
## no test knob (scripts/knob-check.sh: resends, controls, log capture, key and certificate making).
link-check: build
	scripts/link-check.sh .build/release/bootstrap
	scripts/knob-check.sh .build/release/bootstrap

## Deployment (docs/deploy.md). checkov lives in its own venv: its pins must not move moto's/boto3's, and its
## hcl2 fork (bc-python-hcl2) installs the same `hcl2` module as python-hcl2.
CHECKOV_VERSION := 3.3.30
CHECKOV_VENV ?= $(HOME)/.local/share/attestgate/checkov-$(CHECKOV_VERSION)
CHECKOV := $(CHECKOV_VENV)/bin/checkov
setup: $(CHECKOV)
$(CHECKOV):
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install -q -c infra/tests/checkov-constraints.txt checkov==$(CHECKOV_VERSION)

## package: release build with the static Swift stdlib, then build/attestgate-lambda.zip (every library inside).
package: build
	scripts/package.sh

## package-check: unzip into an empty root, chroot (root), serve invocations, config check, table create on moto.
package-check: setup
	scripts/package-check.sh

## infra-check: parse infra/*.tf, checkov, and the alarms' metrics against real decision log lines (no cloud).
infra-check: setup
	CHECKOV=$(CHECKOV) infra/tests/infra-check.sh

## App Attest fuzzing (fuzz/README.md): libFuzzer + ASan over the CBOR decoder and the verifiers, built in
## its own scratch path so the normal build stays uninstrumented. gold crashes on the ASan objects: use lld.
FUZZ_SCRATCH := .build/fuzz
FUZZ_SECONDS ?= 300
FUZZ_BUILD := $(SWIFT) build -c release --product AppAttestFuzz --scratch-path $(FUZZ_SCRATCH) \
	-Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
.PHONY: fuzz fuzz-smoke bench

## fuzz: libFuzzer with ASan over the App Attest parsers for FUZZ_SECONDS (300; fuzz/README.md).
fuzz: setup
	$(FUZZ_BUILD)
	mkdir -p $(FUZZ_SCRATCH)/corpus
	$(FUZZ_SCRATCH)/release/AppAttestFuzz -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 $(FUZZ_SCRATCH)/corpus fuzz/seeds

## fuzz-smoke: the bounded pass `make test` runs.
fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=25

## bench: the performance figures of docs/performance.md, one table (local-harness/bench.py): cold start
## next to the Python stack, RSS over 10,000 metered calls, runtime-loop throughput, App Attest rates next to
## OpenSSL verifications in alternating windows (and `openssl speed`), DynamoDB requests and gate latency per
## iOS call against moto, sizes. Then the ceiling under contention (local-harness/contention_bench.py, about 2
## minutes: 503s, lost settles, latency and DynamoDB requests per call against the stand-in at 8-64 calls in
## flight, a scaled simulation of 5,000 calls/s; build/bench-contention.txt and .json). Figures, not tests:
## never part of `make test`. BENCH_ARGS=--quick for a short pass (bench.py only).
BENCH_ARGS ?=
bench: package
	$(SWIFT) build $(SWIFT_RELEASE) --product AppAttestBench
	$(SWIFT) build $(SWIFT_RELEASE) --product GateBench
	@mkdir -p build
	@rates=$$(openssl speed -seconds 3 ecdsap256 ecdsap384 2>/dev/null \
	  | awk '/nistp256/ {p256=$$NF} /nistp384/ {p384=$$NF} END {print p256, p384}'); \
	set -- $$rates; pin=$$(command -v taskset >/dev/null && echo "taskset -c 0"); \
	$$pin .build/release/AppAttestBench --seconds 3 --openssl-p256 "$$1" --openssl-p384 "$$2" \
	  | tee build/bench-appattest.txt
	$(PYTHON) local-harness/bench.py --bin .build/release --app-attest build/bench-appattest.txt \
	  --json build/bench.json $(BENCH_ARGS)
	$(SWIFT) build --product ddb-harness
	$(PYTHON) local-harness/contention_bench.py --bootstrap .build/release/bootstrap --attestgate .build/release/attestgate \
	  --ddb-harness $$($(SWIFT) build --show-bin-path)/ddb-harness | tee build/bench-contention.txt

## ci-ddb-local: moto + the loss proxy on free loopback ports, then every conditional write of the product
## resent two ways, with controls, broken expressions and races (docs/resend-harness.md); always stopped after.
## ci-ddb-selftest: the harness's own test: the counter advance without its token must fail its check.
## ddb-standin-check: the DynamoDB stand-in in front of moto (local-harness/ddb_standin.py, on by default in
## moto_server.py): transaction holds, per-item throughput, latency outside the lock, --rules none, and the
## control (the naive ceiling pattern fails under it, passes without it); local-harness/README.md.
.PHONY: ci-ddb-local ci-ddb-selftest ddb-standin-check
ci-ddb-local: setup
	$(SWIFT) build --product ddb-harness
	local-harness/ci_ddb_local.sh $$($(SWIFT) build --show-bin-path)/ddb-harness

ci-ddb-selftest: setup
	$(SWIFT) build --product ddb-harness
	local-harness/ci_ddb_local.sh --selftest $$($(SWIFT) build --show-bin-path)/ddb-harness

ddb-standin-check: setup
	$(PYTHON) local-harness/ddb_standin_selftest.py

## The contract (docs/api.md, docs/openapi.yaml). openapi-check: the OpenAPI document is valid OpenAPI 3.1,
## and the two name every setting, ROUTES field and error answer the code has (scripts/check-contract.py).
## api-fuzz: schemathesis against the local stack (local-harness/api_fuzz.py: run.py's stack with the release
## bootstrap, moto and the fakes, on free ports), API_FUZZ_EXAMPLES per operation and phase; no undocumented
## 5xx, every answer as documented, nothing admitted on the enforce route. schemathesis lives in its own venv,
## like checkov: its pins (hypothesis, jsonschema, werkzeug) must not move moto's.
## openapi-check: docs/openapi.yaml is valid OpenAPI 3.1, and it and docs/api.md name every setting,
## ROUTES field and error answer of the code (scripts/check-contract.py).
## ref-check: every reference to a document (the contract, the source documents, relative doc links) resolves
## to a file in the repository (scripts/check-refs.py); no Swift comment in Sources, Tools, Tests or Clients points at
## an issue number or the seed documents (scripts/check-refs.py --comments); every target has a `##`
## line (scripts/make-help.py --check); docs/architecture.md's module graph matches Package.swift and points
## one way (scripts/module-graph.py --check; run the script without --check to regenerate it).
.PHONY: openapi-check api-fuzz ref-check
SCHEMATHESIS_VERSION := 4.32.5
SCHEMATHESIS_VENV ?= $(HOME)/.local/share/attestgate/schemathesis-$(SCHEMATHESIS_VERSION)
SCHEMATHESIS := $(SCHEMATHESIS_VENV)/bin/schemathesis
API_FUZZ_EXAMPLES ?= 40
$(SCHEMATHESIS):
	$(PYTHON) -m venv $(SCHEMATHESIS_VENV)
	$(SCHEMATHESIS_VENV)/bin/pip install -q -c local-harness/schemathesis-constraints.txt schemathesis==$(SCHEMATHESIS_VERSION)

openapi-check: setup
	$(PYTHON) -m openapi_spec_validator docs/openapi.yaml
	$(PYTHON) scripts/check-contract.py

api-fuzz: build demo $(SCHEMATHESIS)
	$(PYTHON) local-harness/api_fuzz.py --schemathesis $(SCHEMATHESIS) --examples $(API_FUZZ_EXAMPLES) \
	  --bootstrap .build/release/bootstrap --attestgate .build/release/attestgate --demo .build/release/attestgate-demo

ref-check:
	$(PYTHON) scripts/check-refs.py
	$(PYTHON) scripts/check-refs.py --comments
	$(PYTHON) scripts/make-help.py --check Makefile
	$(PYTHON) scripts/module-graph.py --check

## ---- libcurl for AttestGate and the static link (docs/performance-archive.md, "Zip and link") ----
## scripts/build-curl.sh (run by setup): Debian's own curl source at the machine's libcurl4 version, HTTP/1.1
## and HTTPS over OpenSSL 3 only, a static library in build/curl/prefix; built once (a stamp: a new libcurl4
## version, or a changed script, rebuilds; about 3 min of C on 2 cores). Every swift build run by make finds
## it through PKG_CONFIG_PATH (CCurl's pkgConfig "libcurl"), so make test builds and tests the libcurl that
## ships; a plain `swift build` outside make links Debian's libcurl4 (development only). `make clean` keeps
## build/curl and build/link; `make distclean` removes them too.
## scripts/build-openssl.sh (run by setup, or `make openssl`): libcrypto.a and libssl.a from Debian's openssl source
## at libssl3's version, trimmed, in build/openssl (built once, as build/curl: a new libssl3 version rebuilds it;
## `make clean` keeps it). scripts/link-static.sh (run by setup): build/link/static holds the .pc files, first in
## PKG_CONFIG_PATH, and, in lib-<hash of the archives> (new archives change the -L, so SwiftPM relinks every
## binary), those two archives and zlib1g-dev's libz.a: OpenSSL and zlib are linked statically (docs/deploy.md).
export PKG_CONFIG_PATH := $(CURDIR)/build/link/static:$(CURDIR)/build/curl/prefix/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
## curl: (re)builds the shipped libcurl (scripts/build-curl.sh; setup runs it).
## openssl: (re)builds the shipped OpenSSL (scripts/build-openssl.sh; setup runs it).
## distclean: clean, and the pinned libcurl, OpenSSL and link inputs in build/ too.
.PHONY: curl openssl distclean
curl:
	scripts/build-curl.sh
openssl:
	scripts/build-openssl.sh

distclean: clean
	rm -rf build
