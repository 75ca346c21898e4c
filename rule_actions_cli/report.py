"""`rule-actions report`: what rule-actions did and saved (the dashboard's figures, printed).

--stack NAME reads a deployed stack's figures over the last --days: the function's metrics (CloudWatch
GetMetricData: actions by kind and outcome, triggers, stops, dollars saved, job costs, events, the evaluation's)
under the stack's service name, and Lambda's own of the evaluator (its runs, failed runs and duration), the stack's
functions and service name read from its outputs (FunctionName, EvaluatorFunctionName, ServiceName), as `check`
finds them.

--replay EVENT_FILE_OR_DIR... replays the events (and timelines) on the embedded account first, as `replay` does,
has CloudWatch take the function's metrics from its output as it takes them from a Lambda function's log (EMF), and
prints the same report (of the service name the stack gives the replayed function), then what the embedded ledger
holds: every job this stack stopped (with what it cost until the stop and saved at most, when known) and its
records of actions.

A figure that cannot be known is said to be unknown, never 0: a stop whose price is unknown adds nothing to the
dollars saved (the report says how many), a metric CloudWatch answered only in part is unknown.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, TextIO

from rule_actions.contract import ENV_SERVICE, SERVICE, Outcome
from rule_actions.text import iso_z
from rule_actions_cli import receiver
from rule_actions_cli.inputs import refuse
from rule_actions_cli.options import Formatter, add_aws_options
from rule_actions_cli.terminal import json_line

DEFAULT_DAYS = 30
MAX_DAYS = 455  # CloudWatch keeps hourly datapoints 455 days: a day's figure is computed from them
DAY = 86400
QUERIES_PER_CALL = 500  # GetMetricData's limit of MetricDataQueries
LAMBDA = "AWS/Lambda"
SUM, MAX, COUNT = "Sum", "Maximum", "SampleCount"
LABEL = 14  # the text's first column: what each line is about
DONE, WATCHED = str(Outcome.DONE), str(Outcome.WATCHED)

HELP = "what rule-actions did and saved: actions, triggers, stops, dollars saved, job costs, the evaluator's health"
EPILOG = f"""\
exit status: 0 when the report was printed (whatever its figures; an unknown one says so), 2 when an input is
unusable (--days outside 1-{MAX_DAYS}, an event file, the configuration) or AWS cannot be configured or reached or
refuses a call (one line saying what, nothing printed before it).

--stack: the usual AWS settings (--profile or AWS_PROFILE, --region or AWS_REGION / AWS_DEFAULT_REGION,
AWS_ENDPOINT_URL). The caller needs cloudformation:DescribeStacks, cloudwatch:GetMetricData and, when the stack
runs the monitor rules, lambda:GetFunctionConfiguration. The figures are the stack's own: its functions' metrics
carry its service name (the output ServiceName, its RuleActions construct's name), which the report reads; a stack
deployed before that output existed has none, and the metrics it emits carry {SERVICE}, which is then read (the
first line says so). A stack holding two RuleActions constructs is refused (each has its own figures).

examples:
  rule-actions report --stack RuleActions
  rule-actions report --stack RuleActions --days 7 --json
  rule-actions report --replay events/ --config rule-actions.json
"""


class ReportError(Exception):
    """An input is unusable: one line for the user."""


# ------------------------------------------------------------------------------------------------ the figures


@dataclass
class Stops:
    carried_out: int | None  # Actions of the kinds that stop jobs, outcome done
    watched: int | None  # ... outcome watched: a monitor rule in watch mode, nothing stopped
    saving_known: int | None  # SavedDollars' datapoints: the stops whose saving is known
    saving_unknown: int | None  # the stops carried out whose saving is not known (price unknown)
    saved_usd: float | None  # at most; None when no stop's saving is known
    saved_by_family: dict[str, float] = field(default_factory=dict)


@dataclass
class Costs:
    messages: int | None  # CostDollars' datapoints: messages that stated a job's cost
    usd: float | None  # None when no message stated one
    by_family: dict[str, float] = field(default_factory=dict)


@dataclass
class EvaluatorFigures:
    function: str
    timeout_s: int | None
    runs: int | None  # Lambda's invocations (unknown in a replay: the embedded account has no Lambda metrics)
    failed_runs: int | None  # Lambda's errors
    timed_runs: int | None  # the runs that finished and timed themselves (EvaluationSeconds)
    longest_run_s: float | None
    failed_reads: int | None  # EvaluationErrors
    not_computed: int | None  # EvaluationProblems: rules not computed, jobs' problems
    jobs_not_reached: int | None  # UnfinishedJobs
    most_jobs_in_a_run: int | None  # EvaluatedJobs, the most in a run
    findings: int | None  # RuleFindings


@dataclass
class LedgerContents:
    """What the embedded account's ledger holds after a replay."""

    stopped: list[dict[str, Any]]  # {"job", "stopped_by", "cost_usd", "saved_usd"} (a figure None when unknown)
    actions_done: int  # records of actions carried out
    decisions: int  # records of decisions not to act, each said once


@dataclass
class Report:
    scope: str
    service: str  # the service name whose metrics were read (the dimension service)
    start: str
    end: str
    days: int
    actions: dict[str, dict[str, int | None]]  # kind -> outcome -> count (the counts above 0; None: unknown)
    triggers: dict[str, int | None]  # trigger -> count (above 0; None: unknown)
    stops: Stops
    costs: Costs
    events: dict[str, int | None]
    evaluator: EvaluatorFigures | None  # None: no evaluator (the monitor rules are off)
    unknown: list[str]  # the metrics CloudWatch answered only in part (their figures are unknown)
    ledger: LedgerContents | None = None  # --replay only


@dataclass(frozen=True)
class Query:
    namespace: str
    name: str
    dimensions: tuple[tuple[str, str], ...]
    stat: str


def _function_query(metric: Any, service: str, stat: str = SUM) -> Query:
    return Query(metric.namespace, metric.name, tuple(metric.dimensions(service).items()), stat)


def _lambda_query(function: str, name: str, stat: str = SUM) -> Query:
    return Query(LAMBDA, name, (("FunctionName", function),), stat)


def fetch(cloudwatch: Any, queries: Iterable[Query], start: datetime,
          end: datetime) -> tuple[dict[Query, float | None], set[Query]]:
    """Each query's figure over [start, end): the sum of its daily values (Sum, SampleCount; 0 when there is no
    datapoint: nothing happened), their maximum (Maximum; None when there is none); None, and among the queries
    returned second, when CloudWatch's answer was not Complete."""
    from rule_actions_cli.invoke import aws_errors

    wanted = list(dict.fromkeys(queries))
    values: dict[Query, list[float]] = {query: [] for query in wanted}
    status: dict[Query, str] = {}
    for first in range(0, len(wanted), QUERIES_PER_CALL):
        batch = {f"q{index}": query for index, query in enumerate(wanted[first:first + QUERIES_PER_CALL])}
        request = {"StartTime": start, "EndTime": end, "ScanBy": "TimestampAscending", "MetricDataQueries": [
            {"Id": key, "ReturnData": True, "MetricStat": {
                "Metric": {"Namespace": q.namespace, "MetricName": q.name,
                           "Dimensions": [{"Name": n, "Value": v} for n, v in q.dimensions]},
                "Period": DAY, "Stat": q.stat}} for key, q in batch.items()]}
        while True:
            with aws_errors("cloudwatch", region=cloudwatch.meta.region_name):
                answer = cloudwatch.get_metric_data(**request)
            for result in answer.get("MetricDataResults", []):
                query = batch[result["Id"]]
                values[query] += [float(v) for v in result.get("Values", [])]
                status[query] = result.get("StatusCode", "Complete")
            if not answer.get("NextToken"):
                break
            request["NextToken"] = answer["NextToken"]
    incomplete = {query for query in wanted if status.get(query, "Complete") != "Complete"}
    found: dict[Query, float | None] = {}
    for query in wanted:
        if query in incomplete:
            found[query] = None
        elif query.stat == MAX:
            found[query] = max(values[query]) if values[query] else None
        else:
            found[query] = sum(values[query])
    return found, incomplete


class Queries(NamedTuple):
    """What the report asks CloudWatch, by figure."""

    action: dict[tuple[str, str], Query]  # (kind, outcome)
    trigger: dict[str, Query]
    saved: dict[str, Query]  # by family: the sum, and how many (below)
    known: dict[str, Query]
    cost: dict[str, Query]
    stated: dict[str, Query]
    events: dict[str, Query]
    evaluation: dict[str, Query]  # empty without an evaluator

    def all(self) -> list[Query]:
        return [query for group in self for query in group.values()]


def queries(evaluator: str | None, service: str, lambda_metrics: bool = True) -> Queries:
    """The report's queries: the function's metrics (infra/rule_actions_cdk/metrics.py) as the deployment whose service
    name is `service` emits them, and Lambda's of the evaluator."""
    from functools import partial

    from rule_actions_cdk import metrics as m

    function = partial(_function_query, service=service)
    evaluation: dict[str, Query] = {}
    if evaluator:
        evaluation = {
            "failed_reads": function(m.EVALUATION_ERRORS), "not_computed": function(m.EVALUATION_PROBLEMS),
            "jobs_not_reached": function(m.UNFINISHED), "findings": function(m.FINDINGS),
            "most_jobs_in_a_run": function(m.EVALUATED, stat=MAX),
            "timed_runs": function(m.EVALUATION_SECONDS, stat=COUNT),
            "longest_run_s": function(m.EVALUATION_SECONDS, stat=MAX),
            **({"runs": _lambda_query(evaluator, "Invocations"), "failed_runs": _lambda_query(evaluator, "Errors"),
                "duration_ms": _lambda_query(evaluator, "Duration", MAX)} if lambda_metrics else {})}
    return Queries(
        action={(k, o): function(m.actions(k, o)) for k in m.KINDS for o in m.OUTCOMES},
        trigger={t: function(m.triggers(t)) for t in m.TRIGGERS},
        saved={f: function(m.saved(f)) for f in m.FAMILIES},
        known={f: function(m.saved(f), stat=COUNT) for f in m.FAMILIES},
        cost={f: function(m.cost(f)) for f in m.FAMILIES},
        stated={f: function(m.cost(f), stat=COUNT) for f in m.FAMILIES},
        events={"handled": function(m.EVENTS), "ignored": function(m.IGNORED),
                "test_notifications": function(m.TESTS), "refused_accounts": function(m.REFUSED),
                "restarts": function(m.RESTARTS)},
        evaluation=evaluation)


def gather(cloudwatch: Any, scope: str, days: int, end: datetime, evaluator: str | None,
           evaluator_timeout: int | None, *, service: str, lambda_metrics: bool = True) -> Report:
    """The report over the `days` before `end` of the deployment whose service name is `service`. `evaluator`: its
    function's name (None: the stack has none); `lambda_metrics`: whether Lambda's own metrics exist (not on the
    embedded account)."""
    from rule_actions_cdk.metrics import KINDS, OUTCOMES, STOP_KINDS

    start = end - timedelta(days=days)
    asked = queries(evaluator, service, lambda_metrics)
    action, trigger, saved, known, cost, stated, events, evaluation = asked
    found, incomplete = fetch(cloudwatch, asked.all(), start, end)

    def total(queries: Iterable[Query]) -> float | None:
        figures = [found[q] for q in queries]
        return None if any(f is None for f in figures) else sum(f for f in figures if f is not None)

    def count(value: float | None) -> int | None:
        return None if value is None else round(value)

    stops = count(total(action[(k, DONE)] for k in STOP_KINDS))
    known_count = count(total(known.values()))
    saved_usd = total(saved.values())
    unknown_count = None if stops is None or known_count is None else max(stops - known_count, 0)
    stated_count = count(total(stated.values()))
    cost_usd = total(cost.values())
    return Report(
        scope=scope, service=service, start=iso_z(start.timestamp()), end=iso_z(end.timestamp()), days=days,
        actions={k: row for k in KINDS if (row := {o: count(found[action[(k, o)]]) for o in OUTCOMES
                                                      if found[action[(k, o)]] != 0})},
        triggers={t: count(found[q]) for t, q in trigger.items() if found[q] != 0},
        stops=Stops(stops, count(total(action[(k, WATCHED)] for k in STOP_KINDS)), known_count, unknown_count,
                    None if not known_count or saved_usd is None else round(saved_usd, 2),
                    {f: round(v, 2) for f, q in saved.items() if (v := found[q])}),
        costs=Costs(stated_count, None if not stated_count or cost_usd is None else round(cost_usd, 2),
                    {f: round(v, 2) for f, q in cost.items() if (v := found[q])}),
        events={key: count(found[q]) for key, q in events.items()},
        evaluator=_evaluator(evaluator, evaluator_timeout, evaluation, found) if evaluator else None,
        unknown=sorted({q.name for q in incomplete}))


def _evaluator(function: str, timeout: int | None, queries: Mapping[str, Query],
               found: Mapping[Query, float | None]) -> EvaluatorFigures:
    figure = {key: found[q] for key, q in queries.items()}

    def count(key: str) -> int | None:
        value = figure.get(key)
        return None if value is None else round(value)

    longest = figure["longest_run_s"]
    if figure.get("duration_ms") is not None:  # a run that raised timed nothing itself: Lambda's duration has it
        longest = max(longest or 0, (figure["duration_ms"] or 0) / 1000)
    return EvaluatorFigures(function=function, timeout_s=timeout, runs=count("runs"),
                            failed_runs=count("failed_runs"), timed_runs=count("timed_runs"),
                            longest_run_s=None if longest is None else round(longest, 1),
                            failed_reads=count("failed_reads"), not_computed=count("not_computed"),
                            jobs_not_reached=count("jobs_not_reached"),
                            most_jobs_in_a_run=count("most_jobs_in_a_run"), findings=count("findings"))


# ------------------------------------------------------------------------------------------------ the words


def _usd(value: float) -> str:
    return f"${value:,.2f}"


def _n(value: int | None, unit: str = "") -> str:
    if value is None:
        return "unknown"
    return f"{value:,}" + (f" {unit}" if unit else "")


def _by(figures: Mapping[str, float]) -> str:
    return ", ".join(f"{name} {_usd(value)}" for name, value in figures.items())


def lines(report: Report) -> list[str]:
    """The report as a person reads it: a label, then what it says."""
    found = [f"rule-actions report: {report.scope}, the last {report.days} day(s) ({report.start} to {report.end})"]

    def say(label: str, *texts: str) -> None:
        for index, text in enumerate(texts):
            found.append(f"{label if index == 0 else '':<{LABEL}}{text}")

    stops = report.stops
    watched = f"; {_n(stops.watched)} watched (watch mode: nothing stopped)" if stops.watched else ""
    say("jobs stopped", f"{_n(stops.carried_out)} stop(s) carried out{watched}")
    if report.events.get("restarts"):
        say("restarted", f"{_n(report.events['restarts'])} job(s) relaunched as a copy (restart)")
    say("saved", _saved(stops))
    costs = report.costs
    if costs.messages is None:
        say("job costs", "unknown (CloudWatch answered in part)")
    elif not costs.messages:
        say("job costs", "none stated (no message said a job's known cost)")
    else:
        say("job costs", f"{_usd(costs.usd or 0)} stated in {costs.messages:,} message(s)"
                         + (f" ({_by(costs.by_family)})" if costs.by_family else ""))
    say("actions", *(_actions_table(report.actions) or ["none"]))
    say("triggers", ", ".join(f"{t} {_n(n)}" for t, n in report.triggers.items()) or "none")
    events = report.events
    refused = f", {_n(events['refused_accounts'])} of accounts not configured (refused)" if events.get(
        "refused_accounts") else ""
    say("events", f"{_n(events['handled'])} handled, {_n(events['ignored'])} ignored, "
                  f"{_n(events['test_notifications'])} test notification(s){refused}")
    say("evaluator", *_evaluator_lines(report.evaluator))
    if report.unknown:
        say("unknown", f"CloudWatch answered in part for {', '.join(report.unknown)}: their figures are unknown")
    if report.ledger is not None:
        say("ledger", *_ledger_lines(report.ledger))
    return found


def _saved(stops: Stops) -> str:
    if stops.carried_out is None or stops.saving_known is None:
        return "unknown (CloudWatch answered in part)"
    if not stops.saving_known:
        return ("$0.00: no stop carried out" if not stops.carried_out else
                f"unknown: no stop's saving is known ({stops.carried_out:,} stop(s): their prices unknown)")
    text = f"{_usd(stops.saved_usd or 0)} at most, from {stops.saving_known:,} stop(s) ({_by(stops.saved_by_family)})"
    if stops.saving_unknown:
        text += f"; {stops.saving_unknown:,} more stop(s), saving unknown (price unknown)"
    return text


def _actions_table(actions: Mapping[str, Mapping[str, int | None]]) -> list[str]:
    from rule_actions_cdk.metrics import OUTCOMES

    if not actions:
        return []
    columns = [o for o in OUTCOMES if o == DONE or any(o in row for row in actions.values())]
    width = max(len("kind"), *map(len, actions))
    cells = {o: max(len(o), *(len(_n(row.get(o, 0))) for row in actions.values())) for o in columns}
    head = "kind".ljust(width) + "".join(f"  {o:>{cells[o]}}" for o in columns)
    return [head, *(k.ljust(width) + "".join(f"  {_n(row.get(o, 0)):>{cells[o]}}" for o in columns)
                     for k, row in actions.items())]


def _evaluator_lines(evaluator: EvaluatorFigures | None) -> list[str]:
    if evaluator is None:
        return ["none: the stack runs no monitor rules (no EvaluatorFunctionName output)"]
    runs = (f"{_n(evaluator.runs)} run(s), {_n(evaluator.failed_runs)} failed" if evaluator.runs is not None
            else f"{_n(evaluator.timed_runs)} run(s) finished (failed runs unknown: no Lambda metrics here)")
    first = (f"{runs}; {_n(evaluator.failed_reads)} failed read(s), {_n(evaluator.not_computed)} rule evaluation(s) "
             f"not computed, {_n(evaluator.jobs_not_reached)} job(s) not reached")
    if evaluator.timed_runs == 0 and not evaluator.runs:
        return [first, "no run in the window"]
    longest = "unknown" if evaluator.longest_run_s is None else f"{evaluator.longest_run_s:g} s"
    timeout = f" (timeout {evaluator.timeout_s} s)" if evaluator.timeout_s else ""
    return [first, f"longest run {longest}{timeout}; at most {_n(evaluator.most_jobs_in_a_run)} job(s) judged in a "
                   f"run; {_n(evaluator.findings)} rule finding(s)"]


def _ledger_lines(ledger: LedgerContents) -> list[str]:
    found = [f"{len(ledger.stopped)} job(s) stopped by this stack (its stop records)"]
    for stop in ledger.stopped:
        cost = "cost unknown" if stop["cost_usd"] is None else f"cost {_usd(stop['cost_usd'])} until the stop"
        saved = "saving unknown" if stop["saved_usd"] is None else f"saved {_usd(stop['saved_usd'])} at most"
        found.append(f"  {stop['job']}: {cost}, {saved}; by {stop['stopped_by']}")
    found.append(f"{ledger.actions_done + ledger.decisions} action record(s): {ledger.actions_done} carried out, "
                 f"{ledger.decisions} decision(s) not to act, each said once")
    return found


def write(report: Report, out: TextIO, as_json: bool) -> None:
    if as_json:
        out.write(json_line(asdict(report)) + "\n")
        return
    out.write("\n".join(lines(report)) + "\n")


# ------------------------------------------------------------------------------------------------ a deployed stack


def deployed(stack: str, days: int, profile: str | None, region: str | None, now: datetime | None = None) -> Report:
    """The report of a deployed stack: its functions from its outputs, its figures from CloudWatch."""
    from rule_actions_cli.invoke import (
        EVALUATOR_OUTPUT,
        FUNCTION_OUTPUT,
        SERVICE_OUTPUT,
        _stack_label,
        aws_errors,
        function_output,
        lambda_client,
        open_session,
        stack_outputs,
    )

    session = open_session(profile, region)
    outputs = stack_outputs(session, stack)
    key = function_output(outputs, stack)
    function, prefix = outputs[key], key.removesuffix(FUNCTION_OUTPUT)  # the construct's outputs share the prefix
    evaluator, timeout = outputs.get(prefix + EVALUATOR_OUTPUT), None
    service = outputs.get(prefix + SERVICE_OUTPUT)
    said = f"service {service}" if service else (f"service {SERVICE}: the stack has no {prefix + SERVICE_OUTPUT} "
                                                  "output (deployed before it existed, it emits that)")
    if evaluator:
        client = lambda_client(session)
        with aws_errors("lambda", region=client.meta.region_name, function=evaluator):
            timeout = client.get_function_configuration(FunctionName=evaluator).get("Timeout")
    with aws_errors("cloudwatch"):
        cloudwatch = session.client("cloudwatch")
    scope = f"stack {_stack_label(stack)} (function {function}, {said}), {cloudwatch.meta.region_name}"
    return gather(cloudwatch, scope, days, _end(now), evaluator, timeout, service=service or SERVICE)


def _end(now: datetime | None) -> datetime:
    """The report's end: the next whole minute (CloudWatch keeps datapoints by the minute)."""
    moment = (now or datetime.now(UTC)).replace(second=0, microsecond=0)
    return moment + timedelta(minutes=1)


# ------------------------------------------------------------------------------------------------ a replay


def emf_datapoints(line: str) -> list[tuple[str, str, dict[str, str], float, float, str]]:
    """The datapoints CloudWatch takes from one EMF log line (its embedded metric format): (namespace, name,
    dimensions, epoch seconds, value, unit), one per dimension set, metric and value; none for another line."""
    try:
        document = json.loads(line)
    except ValueError:
        return []
    meta = document.get("_aws") if isinstance(document, dict) else None
    if not isinstance(meta, dict):
        return []
    stamp = meta.get("Timestamp", 0) / 1000
    found = []
    for directive in meta.get("CloudWatchMetrics", []):
        for dimension_set in directive.get("Dimensions", []):
            dimensions = {name: str(document[name]) for name in dimension_set}
            for metric in directive.get("Metrics", []):
                raw = document.get(metric["Name"])
                for value in raw if isinstance(raw, list) else [raw]:
                    found.append((directive["Namespace"], metric["Name"], dimensions, stamp, float(value),
                                  metric.get("Unit", "None")))
    return found


def replayed(events: list[tuple[str, Any]], context: dict[str, Any], days: int, secrets: Mapping[str, str],
             now: datetime | None = None) -> Report:
    """Replay the events on the embedded account, then report from its CloudWatch (the function's EMF output put
    there) and its ledger."""
    from rule_actions_cli.embedded_organization import embedded_from

    output = io.StringIO()
    with embedded_from(context, secrets) as world:
        world.replay(events, log=output)
        world.put_metrics((namespace, name, dimensions, stamp, value) for line in output.getvalue().splitlines()
                          for namespace, name, dimensions, stamp, value, _ in emf_datapoints(line))
        scope = f"a replay of {len(events)} event(s) on the embedded account (moto), stack {world.stack_name}"
        # What the replayed function emitted under: the service name its environment (the template's) gives it.
        service = world.environment.get(ENV_SERVICE) or SERVICE
        report = gather(world.client("cloudwatch"), scope, days, _end(now), world.evaluator_name,
                        _timeout(world), service=service, lambda_metrics=False)
        report.ledger = ledger(world.client("dynamodb"), world.environment)
    return report


def _timeout(world: Any) -> int | None:
    if not world.evaluator_name:
        return None
    # boto3's clients are untyped (Any): Timeout is the function's, in seconds
    timeout: int | None = world.client("lambda").get_function_configuration(
        FunctionName=world.evaluator_name).get("Timeout")
    return timeout


def ledger(dynamodb: Any, environment: Mapping[str, str]) -> LedgerContents:
    """The ledger's stop records (their optional cost_usd and saved_usd) and its records of actions, by a scan."""
    from rule_actions.contract import (
        ENV_LEDGER_TABLE,
        LEDGER_COST_ATTRIBUTE,
        LEDGER_KEY_ATTRIBUTE,
        LEDGER_SAVED_ATTRIBUTE,
    )
    from rule_actions.effects.ledger import KEY_PREFIX, STOPPED_PREFIX

    items: list[dict[str, Any]] = []
    request: dict[str, Any] = {"TableName": environment[ENV_LEDGER_TABLE]}
    while True:
        page = dynamodb.scan(**request)
        items += page.get("Items", [])
        if not page.get("LastEvaluatedKey"):
            break
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    stopped, done, decisions = [], 0, 0
    for item in items:
        key = item[LEDGER_KEY_ATTRIBUTE]["S"]
        if key.startswith(STOPPED_PREFIX):
            stopped.append({"job": key.removeprefix(STOPPED_PREFIX).rsplit("/", 1)[-1],
                            "stopped_by": item.get("stopped_by", {}).get("S", ""),  # effects/ledger.py mark_stopped
                            "cost_usd": _dollars(item.get(LEDGER_COST_ATTRIBUTE)),
                            "saved_usd": _dollars(item.get(LEDGER_SAVED_ATTRIBUTE))})
        elif key.startswith(KEY_PREFIX):  # Powertools' idempotency record: its result in "data" (JSON)
            try:
                data = json.loads(item.get("data", {}).get("S") or "{}")
            except ValueError:
                data = {}
            if "jobs" in data:  # an action carried out (pipeline.py records its jobs); a decision has its reason only
                done += 1
            else:
                decisions += 1
    return LedgerContents(sorted(stopped, key=lambda s: s["job"]), done, decisions)


def _dollars(attribute: Mapping[str, str] | None) -> float | None:
    """A stop record's figure (a string holding a decimal), None when absent or unreadable."""
    try:
        return float(Decimal(attribute["S"])) if attribute and "S" in attribute else None
    except InvalidOperation:
        return None


# ------------------------------------------------------------------------------------------------ the command


def add_parser(commands: Any) -> None:
    command = commands.add_parser("report", help=HELP, description=__doc__.split("\n\n", 1)[1],
                                  epilog=EPILOG, formatter_class=Formatter)
    where = command.add_mutually_exclusive_group(required=True)
    where.add_argument("--stack", metavar="NAME", help="the deployed stack (its FunctionName, "
                       "EvaluatorFunctionName and ServiceName outputs)")
    where.add_argument("--replay", nargs="+", metavar="PATH", help="replay these event files or directories (and "
                       "timelines) on the embedded account first, then report, with what its ledger holds")
    command.add_argument("--days", metavar="N", default=str(DEFAULT_DAYS), help=f"the last N days (1 to {MAX_DAYS}; "
                         f"default {DEFAULT_DAYS})")
    command.add_argument("--json", action="store_true", help="one JSON object instead of the text")
    add_aws_options(command)
    command.add_argument("--config", metavar="FILE", help="with --replay: the configuration file (default: "
                         "./rule-actions.json if there is one, else the defaults)")
    receiver.add_options(command, "with --replay: ")


def days_of(text: str) -> int:
    """--days: a whole number of days from 1 to MAX_DAYS; ReportError naming the value."""
    days = int(text) if text.isascii() and text.isdigit() else 0
    if not 1 <= days <= MAX_DAYS:
        raise ReportError(f"--days {json.dumps(text)}: not a whole number of days from 1 to {MAX_DAYS} (CloudWatch "
                          f"keeps hourly datapoints {MAX_DAYS} days)")
    return days


def main(args: argparse.Namespace) -> int:
    from rule_actions_cli import inputs
    from rule_actions_cli.invoke import InvokeError

    try:
        days = days_of(args.days)
    except ReportError as err:
        return refuse(err)
    if args.stack is not None:
        extra = [option for option, value in (("--config", args.config), ("--secrets", args.secrets),
                                               ("--receiver", args.receiver)) if value]
        if extra:
            return refuse(f"{', '.join(extra)}: for --replay only (a deployed stack has its own configuration)")
        try:
            report = deployed(args.stack, days, args.profile, args.region)
        except InvokeError as err:
            return refuse(err)
        write(report, sys.stdout, args.json)
        return 0
    events, errors = inputs.load(args.replay)
    context, secrets, read_errors = inputs.context_and_secrets(args.config, args.secrets)
    errors += read_errors
    if errors:
        return refuse(*errors)
    from rule_actions.config import ConfigError

    try:
        with receiver.receiving(secrets, args.receiver) as receivers:
            report = replayed(events, context, days, secrets)
    except (receiver.ReceiverError, ConfigError) as err:  # a port in use; what synthesis refuses
        return refuse(err)
    write(report, sys.stdout, args.json)
    receiver.report(receivers, sys.stderr)
    return 0
