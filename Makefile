# AttestGate: every command a developer or CI needs. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

SWIFT ?= swift
PYTHON ?= python3
export PIP_BREAK_SYSTEM_PACKAGES := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
APT_PACKAGES := libssl-dev libcurl4-openssl-dev zlib1g-dev pkg-config python3 python3-pip zip unzip curl
PIP_PACKAGES := moto[server] boto3

.PHONY: help setup build test lint format unit-test link-check run clean

help:
	@echo "make run    - install what is missing, build, start the local stack and play the scripted session"
	@echo "make test   - everything CI checks (.ci/run calls exactly this)"
	@echo "make setup | build | lint | format | clean"

## setup: apt and pip packages, installed only when missing.
setup:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "apt-get install$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi
	@$(PYTHON) -c "import moto, boto3, flask" 2>/dev/null || $(PYTHON) -m pip install -q $(PIP_PACKAGES)

build: setup
	$(SWIFT) build -c release --static-swift-stdlib --product bootstrap
	$(SWIFT) build -c release --static-swift-stdlib --product attestgate

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

unit-test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## test: everything CI checks.
test: setup lint unit-test

clean:
	rm -rf .build build
