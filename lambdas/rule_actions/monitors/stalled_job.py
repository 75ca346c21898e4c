"""StalledJob: a processing or batch transform job stopped making progress: no new log line in any of its streams for
`threshold` seconds after it started, or one host that was logging fell silent for `threshold` (and longer than its
own rhythm or its GPUs allow: monitors/silence.py) while the others go on. StalledTraining's logic and parameters, on
the other families' logs:

    processing   log group /aws/sagemaker/ProcessingJobs, streams <job>/algo-<n>-<epoch> (host algo-<n>)
    transform    log group /aws/sagemaker/TransformJobs, streams <job>/<instance-id>-<epoch> and
                 <job>/<instance-id>-<epoch>/data-log (host <instance-id>)

These families have no SecondaryStatus: a job is judged while InProgress once it started (ProcessingStartTime,
TransformStartTime: the rule's clock). A processing job that writes nothing between its start and its end (a script
that only prints at the end) is stalled by this rule: raise `threshold` or leave the rule off for it (opt-out tag).

Unlike a training job's, one silent host is not judged alone unless `per_host` is true: these families split their
input between the instances (ShardedByS3Key, a transform job's input files), and an instance that finished its share
waits quietly while the others work: the whole job's silence is the stall.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.contract import Offer
from rule_actions.monitors.job import JUDGED, RunningJob, ago
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Reads
from rule_actions.monitors.silence import StalledTraining
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped


class StalledJob(StalledTraining):
    name = "StalledJob"
    summary = "No log line for `threshold` seconds after a processing or transform job started, from the whole job " \
              "or from one host that was logging."
    needs = frozenset({Offer.JOB_STATUS, Offer.HOST_LOGS})
    phases = (JUDGED,)
    params = (Param("threshold", 1800, "Seconds without a log line after which the job is stalled", 60, 86400, "s",
                    whole=True),
              Param("startup", 5, "Minutes after the job starts whose log lines do not make a host watched", 0, 120,
                    "min", whole=True),
              Param("rhythm", 1.5, "A host silent while others log, its GPUs neither busy nor idle, is stalled "
                    "only when its silence also exceeds this many times its longest gap between two log lines earlier "
                    "in the job (times at least an hour while that history is too short to trust; with `per_host`)",
                    1, 10, "x"),
              Param("per_host", "false", "true: a host silent for `threshold` while others log is a stalled job "
                    "too (StalledTraining's test); false: only the whole job's silence (an instance that finished "
                    "its share of the input waits quietly)", choices=("false", "true")))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return super().reads(job, {**p, "metric": ""}, now)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        if p["per_host"] == "true":
            return super().judge(job, {**p, "metric": ""}, now, data)
        beat = data.logs
        if not beat.complete:
            return Pending("one page of log events (10,000) does not hold the window: judged when it does")
        latest = max(job.latest_per_host(beat.streams).values(), default=None)
        if latest is None or latest < (now - p["threshold"]) * 1000:
            since = f"for {ago(now - latest / 1000)}" if latest is not None else \
                self._before(job, self._since(job, p, now), now)
            return Finding(f"no log line from any host {since} (threshold {ago(p['threshold'])})")
        return Clear()

    @staticmethod
    def _history(job: RunningJob, host: str, last: int) -> tuple[str, int, int]:
        window = StalledTraining._history(job, host, last)
        if job.instances_listed:  # a transform job's <job>/<instance-id>-<epoch>: the instance's streams, its data-log too
            return f"{job.name}/{host}", window[1], window[2]
        return window


MONITOR = StalledJob()
