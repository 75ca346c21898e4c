"""RuntimeOverrun: a job runs far past what its owner declared. The job declares how long it should take with the
parameter `expected_minutes` (its tag rule-actions:RuntimeOverrun:parameters, e.g. `expected_minutes=45`, or the
configuration's monitor.rules.RuntimeOverrun); the rule holds once it has run `factor` times that since it started
(ProcessingStartTime, TransformStartTime, a tuning job's CreationTime). Nothing declared: Skipped, naming the
parameter (the job's StoppingCondition.MaxRuntimeInSeconds, when set, is SageMaker's own hard limit and is named in
the reason). Nothing is read: the job's start is in its listing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.contract import Offer
from rule_actions.monitors.job import JUDGED, RunningJob, ago
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped

EXPECTED = "expected_minutes"


class RuntimeOverrun(Monitor):
    name = "RuntimeOverrun"
    summary = "A processing, transform or tuning job has run `factor` times the `expected_minutes` its owner declared."
    needs = frozenset({Offer.JOB_STATUS})
    phases = (JUDGED,)
    metrics = False
    params = (Param(EXPECTED, 0, "How long the job should run, in minutes (0: not declared; the rule is skipped)", 0,
                    40320, "min", whole=True),
              Param("factor", 2.0, "How many times `expected_minutes` the job may run before the rule holds", 1, 100,
                    "x"))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        if not p[EXPECTED]:
            limit = f"; its MaxRuntimeInSeconds is {ago(job.max_runtime)}" if job.max_runtime else ""
            return Skipped(f"{self.name} needs {EXPECTED}: declare it in the tag rule-actions:{self.name}:parameters "
                           f"({EXPECTED}=<minutes>) or in monitor.rules.{self.name}{limit}")
        return Reads()

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        ran, allowed = now - job.started_at, p[EXPECTED] * 60 * p["factor"]
        words = f"ran {ago(ran)}; expected {ago(p[EXPECTED] * 60)}, allowed {p['factor']:g} times that"
        if ran > allowed:
            return Finding(f"the job {words} ({ago(allowed)})")
        return Clear(words)


MONITOR = RuntimeOverrun()
