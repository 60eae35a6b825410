"""Schemathesis checks of `make api-fuzz` (loaded through SCHEMATHESIS_HOOKS by api_fuzz.py).

Beside schemathesis's own conformance checks (status code, content type, headers, body schema against
docs/openapi.yaml), two properties of the contract (docs/api.md section 2):

  only_documented_server_errors   a 5xx is one of AttestGate's own four answers, with its exact body:
                                  502/504 upstream_unavailable, 503 unavailable, 503 daily_budget_exhausted.
                                  Anything else (the platform's 500 for a crashed invocation, a 504 for a
                                  missed deadline, a 5xx with another body) is a bug in our code.
  never_admitted_on_enforce       a generated request never gets past layer 1 of the enforce route named
                                  by API_FUZZ_ENFORCE_PATH: no 2xx, no answer from the allowance, the
                                  ceiling or the provider (X-Quota-Remaining, quota_exhausted,
                                  daily_budget_exhausted, upstream_unavailable).
"""
import json
import os

import schemathesis

OUR_SERVER_ERRORS = {(502, "upstream_unavailable"), (504, "upstream_unavailable"), (503, "unavailable"),
                     (503, "daily_budget_exhausted")}
PAST_LAYER_ONE = {"quota_exhausted", "daily_budget_exhausted", "upstream_unavailable"}


def error_code(response):
    """The `error` of a `{"error":"<code>"}` body, or None for any other body."""
    try:
        document = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(document, dict) and list(document) == ["error"] and isinstance(document["error"], str):
        return document["error"]
    return None


@schemathesis.check
def only_documented_server_errors(ctx, response, case):
    if response.status_code < 500:
        return None
    code = error_code(response)
    if (response.status_code, code) not in OUR_SERVER_ERRORS:
        raise AssertionError("undocumented server error %d: %r" % (response.status_code, response.content[:200]))
    return None


@schemathesis.check
def never_admitted_on_enforce(ctx, response, case):
    enforce_path = os.environ.get("API_FUZZ_ENFORCE_PATH", "")
    # A path, or a prefix ending in "/" (the control run aims at a route with path parameters).
    path = case.formatted_path
    matches = path.startswith(enforce_path) if enforce_path.endswith("/") else path == enforce_path
    if not enforce_path or not matches or case.method.upper() != "POST":
        return None
    headers = {name.lower() for name in response.headers}
    if 200 <= response.status_code < 300:
        raise AssertionError("a generated request was admitted on the enforce route (%d)" % response.status_code)
    if "x-quota-remaining" in headers or error_code(response) in PAST_LAYER_ONE:
        raise AssertionError("a generated request got past the gate of the enforce route: %d %r"
                             % (response.status_code, response.content[:200]))
    return None
