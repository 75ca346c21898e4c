"""`SavingsDashboard`: the CloudWatch dashboard <name>-dashboard, "what rule-actions did and saved".

    text        what the figures are, and where they come from
    totals      over the dashboard's time range: saved at most (USD), stops carried out, stops whose saving is
                known, stops watched, job costs in messages (USD), actions carried out, actions failed
    per day     dollars saved, by job family | job costs in messages, by job family
                actions carried out, by kind | decisions, by outcome (all kinds)
                triggers, by trigger         | events: handled, ignored, test notifications (refused accounts)
    per hour    with `monitor`, the evaluator: runs, failed runs, failed reads, rules not computed | its longest
                run (seconds) against the duration alarm | jobs per run, jobs not reached, rule findings
    alarms      the state of every alarm of the construct

Every metric is one the function emits (infra/rule_actions_cdk/metrics.py, from rule_actions.contract's names) under the
deployment's service name, or Lambda's own of the evaluator.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from rule_actions.contract import NAMESPACE, SERVICE_DIMENSION, Outcome
from rule_actions_cdk import metrics
from rule_actions_cdk.metrics import FunctionMetric

DAY, HOUR = Duration.days(1), Duration.hours(1)
DEFAULT_DAYS = 30  # the time range the dashboard opens with (`rule-actions report`'s default too)
FULL, HALF, THIRD = 24, 12, 8  # widths on CloudWatch's grid of 24 columns
GRAPH_HEIGHT = 6


def function_metric(metric: FunctionMetric, service: str, statistic: str = "Sum", period: Duration = DAY,
                    label: str | None = None) -> cloudwatch.Metric:
    """`metric` as the deployment whose service name is `service` emits it (its alarms read it so too)."""
    return cloudwatch.Metric(namespace=metric.namespace, metric_name=metric.name,
                             dimensions_map=metric.dimensions(service), statistic=statistic, period=period, label=label)


def _sum(service: str, prefix: str, label: str, found: Sequence[FunctionMetric], statistic: str = "Sum",
         period: Duration = DAY) -> cloudwatch.MathExpression:
    """One line: the sum of `found` (each its own series, hidden), e.g. Actions of every kind for one outcome."""
    using = {f"{prefix}{index}": function_metric(metric, service, statistic, period, label)
             for index, metric in enumerate(found)}
    return cloudwatch.MathExpression(expression=f"SUM([{', '.join(using)}])", using_metrics=using, label=label,
                                     period=period)


def _graph(title: str, left: Sequence[cloudwatch.IMetric], unit: str, width: int = HALF, period: Duration = DAY,
           stacked: bool = True, annotations: Sequence[cloudwatch.HorizontalAnnotation] = ()) -> cloudwatch.GraphWidget:
    return cloudwatch.GraphWidget(title=title, left=list(left), width=width, height=GRAPH_HEIGHT, period=period,
                                  stacked=stacked, left_annotations=list(annotations),
                                  left_y_axis=cloudwatch.YAxisProps(label=unit, show_units=False, min=0))


class SavingsDashboard(Construct):
    """The dashboard of one RuleActions: `name` names it (<name>-dashboard); `service`, the service name its function
    emits its metrics under; `evaluator` (with `monitor`), its timeout and the run time its duration alarm fires at
    add the evaluator's health; `alarms` (their names), their states;
    `organization`, the events refused from accounts the configuration does not name."""

    def __init__(self, scope: Construct, construct_id: str, *, name: str, service: str, alarms: Sequence[str],
                 evaluator: lambda_.IFunction | None = None, evaluator_timeout: int = 0, duration_alarm: float = 0,
                 organization: bool = False) -> None:
        super().__init__(scope, construct_id)
        self.dashboard = cloudwatch.Dashboard(
            self, "Dashboard", dashboard_name=f"{name}-dashboard", default_interval=Duration.days(DEFAULT_DAYS),
            period_override=cloudwatch.PeriodOverride.INHERIT)
        self.dashboard.add_widgets(cloudwatch.TextWidget(markdown=_about(name, service), width=FULL, height=4))
        self.dashboard.add_widgets(_totals(service))
        families, kinds = metrics.FAMILIES, metrics.KINDS
        line = functools.partial(function_metric, service=service)
        self.dashboard.add_widgets(
            _graph("Dollars saved by stops, per day (at most: the rest of each job's MaxRuntime)",
                   [line(metrics.saved(f), label=f) for f in families], "USD"),
            _graph("Job costs stated in messages, per day", [line(metrics.cost(f), label=f) for f in families], "USD"))
        self.dashboard.add_widgets(
            _graph("Actions carried out (outcome done), per day, by kind",
                   [line(metrics.actions(k, Outcome.DONE), label=k) for k in kinds], "actions"),
            _graph("Decisions, per day, by outcome (every kind)",
                   [_sum(service, f"o{i}_", o, [metrics.actions(k, o) for k in kinds])
                    for i, o in enumerate(metrics.OUTCOMES)], "decisions"))
        events = [line(metrics.EVENTS, label="events handled"), line(metrics.IGNORED, label="events ignored"),
                  line(metrics.TESTS, label="test notifications"),
                  *([line(metrics.REFUSED, label="events of accounts not configured (refused)")] if organization
                    else [])]
        self.dashboard.add_widgets(
            _graph("Triggers, per day, by trigger", [line(metrics.triggers(t), label=t) for t in metrics.TRIGGERS],
                   "triggers"),
            _graph("Invocations of the function, per day", events, "invocations", stacked=False))
        if evaluator is not None:
            self.dashboard.add_widgets(*_evaluator(service, evaluator, evaluator_timeout, duration_alarm))
        # The alarms by their ARNs, built from their names: the dashboard holds no reference to them (an emulator
        # that does not create alarms deploys it too).
        stack = Stack.of(self)
        found = [cloudwatch.Alarm.from_alarm_arn(self, f"Alarm{index}", stack.format_arn(
            service="cloudwatch", resource="alarm", resource_name=alarm, arn_format=ArnFormat.COLON_RESOURCE_NAME))
            for index, alarm in enumerate(alarms)]
        self.dashboard.add_widgets(cloudwatch.AlarmStatusWidget(
            title=f"Alarms of {name} (each notifies {name}-ops)", alarms=found, width=FULL,
            height=GRAPH_HEIGHT, sort_by=cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP))


def _totals(service: str) -> cloudwatch.SingleValueWidget:
    """The figures over the dashboard's whole time range."""
    families, kinds, stops = metrics.FAMILIES, metrics.KINDS, metrics.STOP_KINDS
    figures = [
        _sum(service, "saved", "Saved, at most (USD)", [metrics.saved(f) for f in families]),
        _sum(service, "stops", "Stops carried out", [metrics.actions(k, Outcome.DONE) for k in stops]),
        _sum(service, "known", "Stops whose saving is known", [metrics.saved(f) for f in families], "SampleCount"),
        _sum(service, "watched", "Stops watched (watch mode: not carried out)",
             [metrics.actions(k, Outcome.WATCHED) for k in stops]),
        _sum(service, "restarts", "Jobs restarted (copies created)", [metrics.RESTARTS]),
        _sum(service, "cost", "Job costs stated in messages (USD)", [metrics.cost(f) for f in families]),
        _sum(service, "done", "Actions carried out", [metrics.actions(k, Outcome.DONE) for k in kinds]),
        _sum(service, "failed", "Actions failed", [metrics.actions(k, Outcome.FAILED) for k in kinds]),
    ]
    return cloudwatch.SingleValueWidget(title="Over the time range", metrics=figures, set_period_to_time_range=True,
                                        full_precision=True, width=FULL, height=4)


def _evaluator(service: str, evaluator: lambda_.IFunction, timeout: int,
               duration_alarm: float) -> list[cloudwatch.GraphWidget]:
    """The evaluator's health, per hour: its runs and their failures, its longest run, the jobs it reached."""

    line = functools.partial(function_metric, service=service, period=HOUR)
    runs = [evaluator.metric_invocations(period=HOUR, statistic="Sum", label="runs (Lambda invocations)"),
            evaluator.metric_errors(period=HOUR, statistic="Sum", label="failed runs (Lambda errors)"),
            line(metrics.EVALUATION_ERRORS, label="failed reads (EvaluationErrors)"),
            line(metrics.EVALUATION_PROBLEMS, label="rules not computed, jobs' problems")]
    seconds: list[cloudwatch.IMetric] = [line(metrics.EVALUATION_SECONDS, statistic="Maximum", label="longest run, as the evaluator timed it"),
               cloudwatch.MathExpression(
                   expression="duration / 1000", label="longest run, Lambda's duration", period=HOUR,
                   using_metrics={"duration": evaluator.metric_duration(period=HOUR, statistic="Maximum")})]
    alarm = cloudwatch.HorizontalAnnotation(value=duration_alarm, label=f"the duration alarm ({duration_alarm:g} s; "
                                            f"timeout {timeout} s)", color="#d62728")
    jobs = [line(metrics.EVALUATED, statistic="Maximum", label="jobs judged in a run (most)"),
            line(metrics.UNFINISHED, statistic="Maximum", label="jobs a run had no time for (most)"),
            line(metrics.FINDINGS, label="rule findings (IssuesFound)")]
    return [_graph("Evaluator: runs and failures, per hour", runs, "count", THIRD, HOUR, stacked=False),
            _graph("Evaluator: longest run, per hour", seconds, "seconds", THIRD, HOUR, stacked=False,
                   annotations=[alarm]),
            _graph("Evaluator: jobs and findings, per hour", jobs, "jobs", THIRD, HOUR, stacked=False)]


def _about(name: str, service: str) -> str:
    return (
        f"# {name}: what rule-actions did and saved\n"
        f"Counts and US dollars from the function's metrics (namespace `{NAMESPACE}`, dimension "
        f"`{SERVICE_DIMENSION}` = `{service}`: this deployment's own), over the time range above "
        f"({DEFAULT_DAYS} days when it opens). **Saved** is what each stop saved at most: the rest of the job's "
        "MaxRuntime at its price. A stop whose price is unknown adds nothing, so compare *Stops carried out* with "
        "*Stops whose saving is known*. *Job costs* are the costs the messages stated. No data: nothing of the kind "
        "in the range. `rule-actions report --stack STACK` prints the same.")
