"""The metric checker must be able to fail: each test breaks one thing an alarm depends on."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_metrics  # noqa: E402
import tfload  # noqa: E402

FIXTURE_LINES = check_metrics.FIXTURE.read_text().splitlines()


def run(alarms, lines, coverage_only=False):
    with contextlib.redirect_stdout(io.StringIO()):
        return check_metrics.check(alarms, "\n".join(lines), coverage_only)


def run_with(alarms, lines, require):
    with contextlib.redirect_stdout(io.StringIO()):
        return check_metrics.check(alarms, "\n".join(lines), True, require)


def edit(lines, index, change):
    """A copy of `lines` with the decision line at `index` (counting decision lines only) changed."""
    out, seen = [], -1
    for raw in lines:
        record = json.loads(raw)
        if record.get("logger") == check_metrics.DECISION_LOGGER:
            seen += 1
            if seen == index:
                change(record)
        out.append(json.dumps(record))
    return out


class CheckMetricsTests(unittest.TestCase):
    alarms = check_metrics.alarms_from_terraform(tfload.load())

    def test_repository_alarms_are_all_fed_by_the_fixture(self):
        self.assertEqual(run(self.alarms, FIXTURE_LINES), [])

    def test_alarms_cover_the_issue_list(self):
        metrics = {a.metric for a in self.alarms}
        self.assertTrue({"budget_warning", "budget_exhausted", "block", "unavailable"} <= metrics)

    def test_alarm_on_a_metric_nobody_emits_fails(self):
        alarm = check_metrics.Alarm("typo", "blocks", {"environment": None})
        self.assertTrue(any("typo" in p for p in run([alarm], FIXTURE_LINES)))

    def test_alarm_on_a_dimension_set_nobody_emits_fails(self):
        alarm = check_metrics.Alarm("by_route_only", "block", {"environment": None, "route": None})
        self.assertTrue(run([alarm], FIXTURE_LINES))

    def test_literal_dimension_value_must_be_emitted(self):
        ok = check_metrics.Alarm("enforce_block", "block", {"environment": None, "route": None, "mode": "enforce"})
        bad = check_metrics.Alarm("monitor_block", "block", {"environment": None, "route": None, "mode": "monitor"})
        self.assertEqual(run([ok], FIXTURE_LINES), [])
        self.assertTrue(run([bad], FIXTURE_LINES))

    def test_renamed_dimension_in_the_line_is_caught(self):
        def rename(record):
            record["_aws"]["CloudWatchMetrics"][0]["Dimensions"] = [["env"], ["env", "route", "mode"]]
            record["env"] = record.pop("environment")

        # Every block line renamed: the block alarm is left without a source.
        lines = FIXTURE_LINES
        for i in range(8):
            lines = edit(lines, i, lambda r: rename(r) if "block" in r else None)
        self.assertTrue(any("block_spike" in p for p in run(self.alarms, lines)))

    def test_metric_listed_without_a_value_is_malformed(self):
        lines = edit(FIXTURE_LINES, 0, lambda r: r.pop("would_block"))
        self.assertTrue(any("no numeric value" in p for p in run(self.alarms, lines)))

    def test_dimension_without_a_value_is_malformed(self):
        lines = edit(FIXTURE_LINES, 1, lambda r: r.pop("route"))
        self.assertTrue(any("dimension 'route'" in p for p in run(self.alarms, lines)))

    def test_raw_path_as_route_is_malformed(self):
        lines = edit(FIXTURE_LINES, 1, lambda r: r.__setitem__("route", "/v1/generate"))
        self.assertTrue(any("looks like a path" in p for p in run(self.alarms, lines)))

    def test_lines_from_other_loggers_never_feed_an_alarm(self):
        forged = []
        for raw in FIXTURE_LINES:
            record = json.loads(raw)
            record["logger"] = "attestgate.http"
            forged.append(json.dumps(record))
        problems = run(self.alarms, forged)
        self.assertTrue(any("no decision lines" in p for p in problems))

    def test_text_before_the_json_is_ignored(self):
        prefixed = [f"2026-11-30T03:00:00Z\tr-1\t{raw}" for raw in FIXTURE_LINES]
        self.assertEqual(run(self.alarms, prefixed), [])

    def test_coverage_mode_still_fails_on_required_metrics(self):
        only_budget = [raw for raw in FIXTURE_LINES if "budget_used" in raw]
        problems = run_with(self.alarms, only_budget, require=("block",))
        self.assertTrue(any("block_spike" in p for p in problems))
        self.assertEqual(run_with(self.alarms, only_budget, require=("budget_warning",)), [])

    @staticmethod
    def alarm_in(namespace, metric="block"):
        body = {"namespace": f'"{namespace}"', "metric_name": f'"{metric}"',
                "dimensions": {"environment": "${var.environment}"}}
        return {"alarms.tf": {"resource": [{"aws_cloudwatch_metric_alarm": {"probe": body}}]}}

    def test_alarms_on_aws_namespaces_are_accepted_and_not_replayed(self):
        for namespace in sorted(check_metrics.AWS_NAMESPACES):
            self.assertEqual(check_metrics.alarms_from_terraform(self.alarm_in(namespace, "Errors")), [])

    def test_alarm_in_an_unknown_namespace_fails(self):
        for namespace in ("AttestGat", "AWS/DynamoDb", "AWS/ApiGateway", "${var.namespace}"):
            with self.assertRaises(SystemExit):
                check_metrics.alarms_from_terraform(self.alarm_in(namespace))

    def test_coverage_mode_reports_but_passes_partial_captures(self):
        only_budget = [raw for raw in FIXTURE_LINES if "budget_used" in raw]
        self.assertTrue(run(self.alarms, only_budget))
        self.assertEqual(run(self.alarms, only_budget, coverage_only=True), [])

    # The dashboard (infra/dashboard.tf) is held to the same rules as the alarms.
    def dashboard(self, change):
        parsed = tfload.load()
        locals_block = next(b for b in parsed["dashboard.tf"]["locals"] if "dashboard_metrics" in b)
        change(locals_block)
        return parsed

    def test_repository_dashboard_is_fed_by_the_fixture(self):
        metrics, decisions, fields = check_metrics.dashboard_from_terraform(tfload.load())
        self.assertTrue({"attestation_check", "would_block", "block", "unavailable", "budget_used", "budget_warning",
                         "budget_exhausted", "quota_exhausted", "unproven"} <= {m.metric for m in metrics})
        self.assertEqual(run(metrics, FIXTURE_LINES), [])
        self.assertEqual(check_metrics.check_log_widgets(decisions, fields, "\n".join(FIXTURE_LINES)), [])
        self.assertTrue({"reason", "device", "decision"} <= set(fields))

    def test_dashboard_metric_nobody_emits_fails(self):
        parsed = self.dashboard(lambda b: b["dashboard_metrics"]["by_route"]["metrics"].append('"blocked"'))
        metrics, _, _ = check_metrics.dashboard_from_terraform(parsed)
        self.assertTrue(any("dashboard metric by_route/blocked" in p for p in run(metrics, FIXTURE_LINES)))

    def test_dashboard_dimension_set_nobody_emits_fails(self):
        parsed = self.dashboard(lambda b: b["dashboard_metrics"]["by_route"].__setitem__(
            "dimensions", ['"environment"', '"route"']))
        metrics, _, _ = check_metrics.dashboard_from_terraform(parsed)
        self.assertTrue(run(metrics, FIXTURE_LINES))

    def test_dashboard_aws_metric_off_the_allow_list_fails(self):
        for namespace, metric in (("AWS/DynamoDB", "ConsumedWriteCapacityUnits"), ("AWS/Lambda", "Errors"),
                                  ("AttestGat", "block")):
            def add(b, namespace=namespace, metric=metric):
                b["dashboard_metrics"]["extra"] = {"namespace": f'"{namespace}"', "dimensions": ['"TableName"'],
                                                   "metrics": [f'"{metric}"']}
            with self.assertRaises(SystemExit):
                check_metrics.dashboard_from_terraform(self.dashboard(add))

    def test_dashboard_widget_naming_a_namespace_outside_the_map_fails(self):
        def smuggle(b):
            b["dashboard_table_widget"] = '${{metrics = [["AWS/Lambda", "Throttles"]]}}'
        with self.assertRaises(SystemExit):
            check_metrics.dashboard_from_terraform(self.dashboard(smuggle))

    def test_dashboard_refusal_decision_nobody_logs_fails(self):
        _, decisions, fields = check_metrics.dashboard_from_terraform(tfload.load())
        problems = check_metrics.check_log_widgets(decisions + ["refused"], fields, "\n".join(FIXTURE_LINES))
        self.assertTrue(any("'refused'" in p for p in problems))
        without_device = edit_all(FIXTURE_LINES, lambda r: r.pop("device", None))
        self.assertTrue(any("'device'" in p for p in check_metrics.check_log_widgets(decisions, fields, without_device)))


def edit_all(lines, change):
    out = []
    for raw in lines:
        record = json.loads(raw)
        change(record)
        out.append(json.dumps(record))
    return "\n".join(out)


if __name__ == "__main__":
    unittest.main()
