#!/usr/bin/env python3
"""Part of `make openapi-check`: the contract documents name everything the code has.

docs/api.md must stay true as the code changes. This reads the code and fails, naming each gap, unless:

  - every environment variable the configuration reads (Sources/6-App/App: `env["NAME"]`, the reader's
    `required`/`choice`/`number`/`list`/`url`/`headerName("NAME")`, `secret("NAME")` as NAME_SECRET_ARN
    and NAME_FILE) appears in docs/api.md section 5;
  - every `ROUTES` field the parser accepts (`routeFields`) appears, backticked, in docs/api.md section 5;
  - every error the code answers (`.error(<status>, "<code>"`) has its row in docs/api.md section 2
    (`| <status> | `<code>` |`) and its code in docs/openapi.yaml's Error schema.

The other direction (documented but not in the code) is not checked: docs/api.md also states settings
that other work in progress is adding. Usage: check-contract.py [ROOT]
"""
import os
import re
import sys

SETTING_CALL = re.compile(
    r'(?:env|environment)\["([A-Z_][A-Z0-9_]*)"\]|reader\.(?:required|choice|number|list|url|headerName|dollars)\(\s*"([A-Z_][A-Z0-9_]*)"'
    r'|(?:reader\.)?\b(?:required|choice|number|list|url|headerName|dollars)\(\s*"([A-Z_][A-Z0-9_]*)"'
    # A renamed setting: both its name and its deprecated one are read.
    r'|renamed\(\s*"([A-Z_][A-Z0-9_]*)"|old:\s*"([A-Z_][A-Z0-9_]*)"')
# Configuration+EnvironmentSize.swift's two lists of names, which must cover exactly the settings the code reads.
NAME_LIST = re.compile(r"static let (deployedSettingNames|lambdaSetNames): Set<String> = \[(.*?)\]", re.S)
SECRET_CALL = re.compile(r'\bsecret\(\s*"([A-Z_][A-Z0-9_]*)"\s*\)')
ROUTE_FIELDS = re.compile(r"routeFields\s*:\s*Set<String>\s*=\s*\[(.*?)\]", re.S)
# The refusals the code can answer: the constants of `Refusal` (Sources/2-Core/AttestCore/Refusal.swift),
# `public static let attestationRequired = Refusal(403, "attestation_required")`.
REFUSAL = re.compile(r'static let \w+ = Refusal\(\s*(\d{3})\s*,\s*"([a-z_]+)"\s*\)')
REFUSAL_FILE = os.path.join("Sources", "2-Core", "AttestCore", "Refusal.swift")
# An error answer built by hand instead of through `Refusal`: `.error(429, "quota_exhausted"`,
# `Refusal(429, ...)` outside its file, or a body `{"error":` written out.
BY_HAND = re.compile(r'\.error\(\s*[^,()"]*?\d{3}[^,()"]*?\s*,\s*"[a-z_]+"|\bRefusal\(\s*\d{3}|\{\\?"error\\?":')
# A decision-line field set by name instead of through DecisionRecord's properties.
STRING_KEYED_DECISION = re.compile(r'\brecord\.fields\[')


def section(text, number):
    match = re.search(r"^## %d\. .*?(?=^## \d+\. |\Z)" % number, text, re.S | re.M)
    return match.group(0) if match else ""


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def swift_files(folder):
    for base, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    api = read(os.path.join(root, "docs", "api.md"))
    openapi = read(os.path.join(root, "docs", "openapi.yaml"))
    settings_doc, errors_doc = section(api, 5), section(api, 2)
    problems = []

    settings = set()
    fields = set()
    for path in swift_files(os.path.join(root, "Sources", "6-App", "App")):
        text = read(path)
        for match in SETTING_CALL.finditer(text):
            settings.add(next(group for group in match.groups() if group))
        for match in SECRET_CALL.finditer(text):
            settings.update({match.group(1) + "_SECRET_ARN", match.group(1) + "_FILE"})
        for match in ROUTE_FIELDS.finditer(text):
            fields.update(re.findall(r'"([A-Za-z]+)"', match.group(1)))
    size_file = read(os.path.join(root, "Sources", "6-App", "App", "Configuration+EnvironmentSize.swift"))
    listed = set()
    for match in NAME_LIST.finditer(size_file):
        listed.update(re.findall(r'"([A-Z_][A-Z0-9_]*)"', match.group(2)))
    for name in sorted(settings - listed):
        problems.append("setting %s is read by the code but in neither list of Configuration+EnvironmentSize.swift" % name)
    for name in sorted(listed - settings):
        problems.append("Configuration+EnvironmentSize.swift lists %s, which the code does not read" % name)
    if not settings or not fields:
        problems.append("found no settings or no route fields in Sources/6-App/App: is this check still reading them?")
    for name in sorted(settings):
        short = name.replace("_SECRET_ARN", "").replace("_FILE", "")
        # `X_SECRET_ARN` / `_FILE` rows write the file variant as `_FILE` after the ARN.
        if not re.search(r"`%s`" % re.escape(name), settings_doc) and not (
                name.endswith("_FILE") and re.search(r"`%s_SECRET_ARN` / `_FILE`" % re.escape(short), settings_doc)):
            problems.append("setting %s is read by the code but not in docs/api.md section 5" % name)
    for field in sorted(fields):
        if "`%s`" % field not in settings_doc:
            problems.append("ROUTES field %s is accepted by the code but not in docs/api.md section 5" % field)

    answered = set(REFUSAL.findall(read(os.path.join(root, REFUSAL_FILE))))
    if not answered:
        problems.append("found no Refusal constants in %s: is this check still reading them?" % REFUSAL_FILE)
    for path in swift_files(os.path.join(root, "Sources")):
        relative = os.path.relpath(path, root)
        text = read(path)
        for number, line in enumerate(text.splitlines(), 1):
            if relative != REFUSAL_FILE and BY_HAND.search(line) and not line.lstrip().startswith("///"):
                problems.append("%s:%d answers an error by hand; use a Refusal constant: %s"
                                % (relative, number, line.strip()))
            if STRING_KEYED_DECISION.search(line):
                problems.append("%s:%d sets a decision-line field by name; use DecisionRecord's property: %s"
                                % (relative, number, line.strip()))
    enum = set(re.findall(r"^\s+- ([a-z_]+)$", openapi.split("    Error:\n", 1)[-1], re.M))
    for status, code in sorted(answered):
        if not re.search(r"^\| %s \| `%s` \|" % (status, code), errors_doc, re.M):
            problems.append("%s %s is answered by the code but has no row in docs/api.md section 2" % (status, code))
        if code not in enum:
            problems.append("%s is answered by the code but not in docs/openapi.yaml's Error schema" % code)

    for problem in problems:
        print("check-contract: " + problem)
    if problems:
        return 1
    print("check-contract: docs/api.md and docs/openapi.yaml name all %d settings, %d route fields and %d error "
          "answers of the code" % (len(settings), len(fields), len(answered)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
