"""LossNotDecreasing: over the user's loss metric (MetricDefinitions, one-minute averages), the latest datapoint
against the one `num_steps` datapoints before: it holds when the loss fell by less than `diff_percent` %, or rose
by more than `increase_threshold_percent` % (Debugger's test, over datapoints instead of steps)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import LOSS_WINDOW, job_query, user_metric
from rule_actions.monitors.verdicts import NOT_STARTED, Clear, Finding, Judgement, NotJudged, Pending, Skipped

LOSS = r"loss"


class LossNotDecreasing(Monitor):
    name = "LossNotDecreasing"
    summary = "The loss metric stopped decreasing (or rose) over its last `num_steps` datapoints."
    params = (Param("metric", "", "The loss metric (a name of the job's MetricDefinitions; default: the first "
                    "matching /loss/)", text=True),
              Param("num_steps", 10, "Datapoints (one a minute at most) between the two values compared (Debugger: "
                    "steps)", 2, 150, "datapoints", whole=True),
              Param("diff_percent", 0.1, "Least decrease over num_steps, in % of the earlier value", 0, 100, "%"),
              Param("increase_threshold_percent", 5.0, "Largest increase over num_steps, in %", 0, 1000, "%"),
              LOSS_WINDOW)

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        metric = user_metric(job, p["metric"], LOSS, self.name, "metric")
        if isinstance(metric, Skipped):
            return metric
        if job.started is None:
            return NOT_STARTED
        return Reads((job_query(job, metric),), now - p["window"] * 60)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        metric = user_metric(job, p["metric"], LOSS, self.name, "metric")
        if isinstance(metric, Skipped):
            return metric
        values = [v for t, v in data.points(job_query(job, metric)) if t >= job.started_at - 60]
        steps = p["num_steps"]
        if len(values) <= steps:
            return Pending(f"{len(values)} datapoints of {metric} in the last {p['window']} min ({steps + 1} needed)")
        before, latest = values[-steps - 1], values[-1]
        if before == 0:
            return Clear()
        change = 100 * (latest - before) / abs(before)
        span = f"over its last {steps} datapoints ({before:.4g} -> {latest:.4g})"
        if change > p["increase_threshold_percent"]:
            return Finding(f"{metric} rose {change:.1f}% {span}, more than {p['increase_threshold_percent']:g}%")
        if -change < p["diff_percent"]:
            return Finding(f"{metric} is not decreasing: {-change:.2f}% {span}, less than {p['diff_percent']:g}%")
        return Clear()


MONITOR = LossNotDecreasing()
