#!/usr/bin/env python3
"""Check that every metric and dimension the alarms and the dashboard in infra/ use is emitted by the code.

The alarms watch CloudWatch metrics that only exist because the function's decision log line carries an
Embedded Metric Format block. CloudWatch creates a metric for each name in `Metrics` and for each dimension
set in `Dimensions`, taking the dimension values and the metric value from the line's top-level members.
An alarm whose metric name, dimension names or literal dimension values no line produces watches nothing
and never fires. So this replays decision lines through the same rules CloudWatch applies and requires
every AttestGate alarm to be matched by at least one line (the same holds for
metric filters). The dashboard (infra/dashboard.tf) is held to the same rule: each AttestGate metric and
dimension set of its `local.dashboard_metrics` must be fed by some line, an AWS/* metric must be on
AWS_DASHBOARD_METRICS, each `decision` value its refusal widget counts must appear on some line, and
each field its Logs Insights queries name (`| fields ...`) must be on some decision line.

Lines: any text stream; every line holding a JSON object whose "logger" is "attestgate.decision" is a
decision line (text before the first "{" is ignored, so CloudWatch exports and raw stderr both work).
Lines from other loggers never count, even when they carry an _aws block: a metric must come from the
decision line.

  check_metrics.py                         the fixture (infra/tests/decision-lines.jsonl)
  check_metrics.py --lines captured.log    real lines, e.g. the bootstrap's stderr under package-check
  check_metrics.py --lines x --coverage    report which alarms the lines cover; fail only on malformed
                                           decision lines (for partial captures)
  ... --coverage --require block,budget_warning   and on alarms of these metrics that no line feeds
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from dataclasses import dataclass

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tfload  # noqa: E402

NAMESPACE = "AttestGate"
# Namespaces AWS publishes itself (the functions' errors, the table's conflicts and throttles): no decision
# line feeds them, so their alarms are not replayed. Any other namespace, a misspelt AttestGate included, is
# an error rather than an alarm silently left unchecked.
AWS_NAMESPACES = frozenset({"AWS/Lambda", "AWS/DynamoDB"})
# AWS metrics the dashboard may draw, with their dimension names: published by AWS, not by a decision line.
AWS_DASHBOARD_METRICS = frozenset({
    ("AWS/DynamoDB", "TransactionConflict", ("TableName",)),
    ("AWS/DynamoDB", "WriteThrottleEvents", ("TableName",)),
    ("AWS/Lambda", "ConcurrentExecutions", ("FunctionName",)),
    ("AWS/Lambda", "Throttles", ("FunctionName",)),
    ("AWS/Lambda", "Errors", ("FunctionName",)),
})
DECISION_LOGGER = "attestgate.decision"
FIXTURE = pathlib.Path(__file__).resolve().parent / "decision-lines.jsonl"


@dataclass(frozen=True)
class Alarm:
    name: str
    metric: str
    dimensions: dict[str, str | None]  # name -> literal value, or None when the value is an expression
    kind: str = "alarm"  # or "dashboard metric"


@dataclass(frozen=True)
class Emission:
    """One metric as CloudWatch would create it from one decision line."""

    metric: str
    dimensions: dict[str, str]
    line_number: int


def alarms_from_terraform(parsed: dict[str, dict]) -> list[Alarm]:
    found = []
    for name, body in tfload.resources(parsed, "aws_cloudwatch_metric_alarm").items():
        namespace = tfload.unquote(body.get("namespace"))
        if namespace in AWS_NAMESPACES:
            continue
        if namespace != NAMESPACE:
            raise SystemExit(f"infra-check: alarm {name}: namespace {namespace!r} is neither {NAMESPACE} nor one "
                             f"of the AWS namespaces alarms may watch ({', '.join(sorted(AWS_NAMESPACES))})")
        metric = body.get("metric_name")
        if not tfload.is_literal(metric):
            raise SystemExit(f"infra-check: alarm {name}: metric_name must be a literal to be checkable")
        dims = body.get("dimensions") or {}
        if isinstance(dims, list):  # older python-hcl2 wraps maps in a list
            dims = dims[0] if dims else {}
        if not isinstance(dims, dict):
            raise SystemExit(f"infra-check: alarm {name}: dimensions must be a map literal to be checkable")
        values = {k: (tfload.unquote(v) if tfload.is_literal(v) else None) for k, v in dims.items()}
        found.append(Alarm(name, tfload.unquote(metric), values))
    return found


def dashboard_from_terraform(parsed: dict[str, dict]) -> tuple[list[Alarm], list[str], list[str]]:
    """The dashboard's AttestGate metrics (as Alarms of kind "dashboard metric", every dimension value an
    expression), the `decision` values its refusal widget counts, and the fields its Logs Insights queries
    name. Refuses an AWS/* metric off AWS_DASHBOARD_METRICS, any other namespace, and a namespace literal
    anywhere in the dashboard but local.dashboard_metrics (a widget must not name a metric the map does not)."""
    dashboards = tfload.resources(parsed, "aws_cloudwatch_dashboard")
    if not dashboards:
        return [], [], []
    values = tfload.locals_(parsed)
    groups = values.get("dashboard_metrics")
    if not isinstance(groups, dict) or not groups:
        raise SystemExit("infra-check: the dashboard's metrics must be the map literal local.dashboard_metrics")
    outside = {k: v for k, v in values.items() if k.startswith("dashboard_") and k != "dashboard_metrics"}
    outside.update({f"resource {k}": v for k, v in dashboards.items()})
    for where, body in outside.items():
        if '"AttestGate"' in str(body) or '"AWS/' in str(body) or "'AWS/" in str(body):
            raise SystemExit(f"infra-check: dashboard {where}: names a metric namespace outside local.dashboard_metrics")
    found = []
    for group, spec in groups.items():
        namespace = tfload.unquote(spec.get("namespace"))
        dims = [tfload.unquote(d) for d in spec.get("dimensions", [])]
        metrics = [tfload.unquote(m) for m in spec.get("metrics", [])]
        if not metrics or not all(tfload.is_literal(x) for x in [namespace, *dims, *metrics]):
            raise SystemExit(f"infra-check: dashboard_metrics.{group}: namespace, dimensions and metrics must be literals")
        for metric in metrics:
            if namespace == NAMESPACE:
                found.append(Alarm(f"{group}/{metric}", metric, {d: None for d in dims}, "dashboard metric"))
            elif (namespace, metric, tuple(dims)) not in AWS_DASHBOARD_METRICS:
                raise SystemExit(f"infra-check: dashboard_metrics.{group}: {namespace} {metric} by {dims} is neither "
                                 f"{NAMESPACE} nor on the AWS allow-list {sorted(AWS_DASHBOARD_METRICS)}")
    decisions = [tfload.unquote(d) for d in values.get("dashboard_refusal_decisions", [])]
    fields = sorted({f.strip() for q in re.findall(r"\| fields ([A-Za-z0-9_, ]+) \|", str(values.get("dashboard_log_widgets")))
                     for f in q.split(",")})
    return found, decisions, fields


def check_log_widgets(decisions: list[str], fields: list[str], text: str) -> list[str]:
    """Problems of the dashboard's Logs Insights widgets against the decision lines in `text`."""
    records = []
    for raw in text.splitlines():
        start = raw.find("{")
        try:
            record = json.loads(raw[start:]) if start >= 0 else None
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("logger") == DECISION_LOGGER:
            records.append(record)
    problems = []
    seen = {r.get("decision") for r in records}
    for decision in decisions:
        if decision not in seen:
            problems.append(f"dashboard refusal widget counts decision {decision!r}, which no decision line has "
                            f"(decisions seen: {sorted(str(d) for d in seen)})")
    for field in fields:
        if not any(field in r for r in records):
            problems.append(f"dashboard Logs Insights query names field {field!r}, which no decision line has")
    if not problems and (decisions or fields):
        print(f"  ok   dashboard log widgets: decisions {decisions}, fields {fields}")
    return problems


class MalformedLine(Exception):
    pass


def emissions_from_line(record: dict, line_number: int) -> list[Emission]:
    """What CloudWatch extracts from one EMF line; raises MalformedLine where it would extract nothing."""
    aws = record.get("_aws")
    if not isinstance(aws, dict):
        return []
    if not isinstance(aws.get("Timestamp"), int):
        raise MalformedLine("_aws.Timestamp must be an integer (milliseconds)")
    directives = aws.get("CloudWatchMetrics")
    if not isinstance(directives, list) or not directives:
        raise MalformedLine("_aws.CloudWatchMetrics must be a non-empty list")
    # The contract: `route` is the route's feature name, never the client's raw path; `mode` is bounded.
    if "/" in str(record.get("route", "")):
        raise MalformedLine(f"route {record.get('route')!r} looks like a path; it must be the feature name")
    if record.get("mode") not in (None, "off", "monitor", "enforce"):
        raise MalformedLine(f"mode {record.get('mode')!r} is not off, monitor or enforce")
    out = []
    for directive in directives:
        if directive.get("Namespace") != NAMESPACE:
            raise MalformedLine(f"namespace {directive.get('Namespace')!r}, want {NAMESPACE!r}")
        for dimension_set in directive.get("Dimensions", []):
            for key in dimension_set:
                if not isinstance(record.get(key), str) or not record[key]:
                    raise MalformedLine(f"dimension {key!r} has no string value in the line")
        for metric in directive.get("Metrics", []):
            name = metric.get("Name")
            if not isinstance(record.get(name), (int, float)) or isinstance(record.get(name), bool):
                raise MalformedLine(f"metric {name!r} has no numeric value in the line")
            if metric.get("Unit", "Count") not in ("Count", "None"):
                raise MalformedLine(f"metric {name!r}: unit {metric.get('Unit')!r}, want Count or None")
            for dimension_set in directive.get("Dimensions", []):
                out.append(Emission(name, {k: record[k] for k in dimension_set}, line_number))
    return out


def read_emissions(text: str) -> tuple[list[Emission], int, list[str]]:
    """Emissions of every decision line in `text`, the number of decision lines, and the problems found."""
    emissions, problems, count = [], [], 0
    for number, raw in enumerate(text.splitlines(), start=1):
        start = raw.find("{")
        if start < 0:
            continue
        try:
            record = json.loads(raw[start:])
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or record.get("logger") != DECISION_LOGGER:
            continue
        count += 1
        try:
            emissions.extend(emissions_from_line(record, number))
        except MalformedLine as error:
            problems.append(f"line {number}: {error}")
    return emissions, count, problems


def matches(alarm: Alarm, emission: Emission) -> bool:
    if emission.metric != alarm.metric or set(emission.dimensions) != set(alarm.dimensions):
        return False
    return all(v is None or emission.dimensions[k] == v for k, v in alarm.dimensions.items())


def check(alarms: list[Alarm], text: str, coverage_only: bool = False, require: tuple[str, ...] = ()) -> list[str]:
    """Problems (empty when every alarm is fed by some decision line; with `coverage_only`, when every alarm
    on a metric named in `require` is)."""
    emissions, count, problems = read_emissions(text)
    if count == 0:
        problems.append("no decision lines (logger attestgate.decision) in the input")
    if not alarms:
        problems.append(f"no {NAMESPACE} alarms found in infra/")
    for alarm in alarms:
        hits = [e for e in emissions if matches(alarm, e)]
        shape = f"{alarm.metric} by [{', '.join(sorted(alarm.dimensions))}]"
        if hits:
            print(f"  ok   {alarm.name}: {shape} <- line {hits[0].line_number} (+{len(hits) - 1} more)")
        elif coverage_only and alarm.metric not in require:
            print(f"  --   {alarm.name}: {shape} not in these lines")
        else:
            near = sorted({f"{e.metric} by [{', '.join(sorted(e.dimensions))}]" for e in emissions
                           if e.metric == alarm.metric})
            problems.append(f"{alarm.kind} {alarm.name} watches {shape} {alarm.dimensions}, which no decision line "
                            f"emits (this metric is emitted as: {near or 'nothing'})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=pathlib.Path, default=FIXTURE, help="log lines to replay")
    parser.add_argument("--infra", type=pathlib.Path, default=tfload.INFRA, help="the Terraform directory")
    parser.add_argument("--coverage", action="store_true", help="report coverage; fail only on bad lines")
    parser.add_argument("--require", default="", help="with --coverage: comma-separated metrics whose alarms "
                        "must still be fed")
    args = parser.parse_args(argv)
    parsed = tfload.load(args.infra)
    alarms = alarms_from_terraform(parsed)
    dashboard, decisions, fields = dashboard_from_terraform(parsed)
    print(f"check_metrics: {len(alarms)} {NAMESPACE} alarms, {len(dashboard)} {NAMESPACE} dashboard metrics, "
          f"lines from {args.lines}")
    require = tuple(m for m in args.require.split(",") if m)
    unknown = [m for m in require if m not in {a.metric for a in alarms}]
    if unknown:
        raise SystemExit(f"check_metrics: --require names metrics no alarm watches: {unknown}")
    text = args.lines.read_text()
    problems = check(alarms + dashboard, text, coverage_only=args.coverage, require=require)
    if not args.coverage:
        problems += check_log_widgets(decisions, fields, text)
    for problem in problems:
        print(f"  FAIL {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
