"""MaxInitializationTime: training started, but no first datapoint (of `metric`, by default the job's first
MetricDefinitions) or, for a job without metric definitions, no log line within `threshold` minutes. Judged until
LATE minutes past the threshold: after that StalledTraining watches the job."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob, ago
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import job_query, user_metric
from rule_actions.monitors.verdicts import NOT_STARTED, Clear, Finding, Judgement, NotJudged, Pending, Skipped

LATE = 60  # minutes past the threshold during which the rule is judged


class MaxInitializationTime(Monitor):
    name = "MaxInitializationTime"
    summary = "No first datapoint (or log line) within `threshold` minutes of training's start."
    logs = True
    params = (Param("threshold", 20, "Minutes from the start of training (SecondaryStatus Training) to the first "
                    "datapoint or log line (Debugger's default and unit)", 1, 240, "min", whole=True),
              Param("metric", "", "The metric whose first datapoint counts (default: the first of the job's "
                    "MetricDefinitions; none: the first log line)", text=True))

    def _metric(self, job: RunningJob, p: Mapping[str, Any]) -> str | Skipped | None:
        if p["metric"]:
            return user_metric(job, p["metric"], "", self.name, "metric")
        return job.metrics[0] if job.metrics else None

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        if job.started is None:
            return NOT_STARTED
        elapsed = now - job.started
        if elapsed < p["threshold"] * 60:
            return Pending(f"training started {ago(elapsed)} ago (threshold {p['threshold']} min)")
        if elapsed > (p["threshold"] + LATE) * 60:
            return Clear(f"past initialization (training started {ago(elapsed)} ago)")
        metric = self._metric(job, p)
        if isinstance(metric, Skipped):
            return metric
        if metric:
            return Reads((job_query(job, metric),), job.started - 60)
        return Reads(logs=(job.started * 1000, now * 1000))

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        metric, started = self._metric(job, p), job.started_at
        if isinstance(metric, Skipped):
            return metric
        limit = f"{ago(now - started)} after training started (threshold {p['threshold']} min)"
        if metric:
            if any(t >= started - 60 for t, _ in data.points(job_query(job, metric))):
                return Clear()
            return Finding(f"no datapoint of {metric} {limit}")
        beat = data.logs
        if any(found.last >= started * 1000 for found in beat.streams):
            return Clear()
        if not beat.complete:
            return Pending("the log query did not search every stream in one page")
        return Finding(f"no log line from any host {limit}")


MONITOR = MaxInitializationTime()
