#!/usr/bin/env python3
"""Summarise checkov's JSON report (stdin): fail on any failed check, list every skip with its reason."""

import json
import sys

data = json.load(sys.stdin)
reports = data if isinstance(data, list) else [data]
failed, skipped, passed = [], [], 0
for report in reports:
    results = report.get("results", {})
    passed += len(results.get("passed_checks", []))
    failed += results.get("failed_checks", [])
    skipped += results.get("skipped_checks", [])
if passed == 0 and not failed:
    sys.exit("checkov: no checks ran (empty report)")
print(f"checkov: {passed} passed, {len(failed)} failed, {len(skipped)} skipped (each with its reason):")
for check in skipped:
    reason = check.get("check_result", {}).get("suppress_comment", "")
    print(f"  skip {check['check_id']} on {check['resource']}: {reason}")
for check in failed:
    print(f"  FAIL {check['check_id']} on {check['resource']} ({check.get('file_path')}:"
          f"{check.get('file_line_range')}): {check.get('check_name')}", file=sys.stderr)
sys.exit(1 if failed else 0)
