"""StalledJob: a processing or batch transform job stopped making progress: no new log line in any of its streams for
`threshold` seconds after it started, or one host that was logging fell silent for `threshold` (and longer than its
own rhythm allows) while the others go on. StalledTraining's logic and parameters, on the other families' logs:

    processing   log group /aws/sagemaker/ProcessingJobs, streams <job>/algo-<n>-<epoch> (host algo-<n>)
    transform    log group /aws/sagemaker/TransformJobs, streams <job>/<instance-id>-<epoch> and
                 <job>/<instance-id>-<epoch>/data-log (host <instance-id>)

These families have no SecondaryStatus: a job is judged while InProgress once it started (ProcessingStartTime,
TransformStartTime: the rule's clock). A processing job that writes nothing between its start and its end (a script
that only prints at the end) is stalled by this rule: raise `threshold` or leave the rule off for it (opt-out tag).
"""

from __future__ import annotations

from rule_actions.monitors.base import JUDGED, Param
from rule_actions.monitors.silence import StalledTraining


class StalledJob(StalledTraining):
    name = "StalledJob"
    summary = "No log line for `threshold` seconds after a processing or transform job started, from the whole job " \
              "or from one host that was logging."
    families = ("processing", "transform")
    phases = (JUDGED,)
    params = (Param("threshold", 1800, "Seconds without a log line after which the job is stalled", 60, 86400, "s",
                    whole=True),
              Param("startup", 5, "Minutes after the job starts whose log lines do not make a host watched", 0, 120,
                    "min", whole=True),
              Param("rhythm", 1.5, "A host silent while others log is stalled only when its silence also exceeds "
                    "this many times its longest gap between two log lines earlier in the job", 1, 10, "x"))

    def needs(self, job, p, now):
        return super().needs(job, {**p, "metric": ""}, now)

    def judge(self, job, p, now, data):
        return super().judge(job, {**p, "metric": ""}, now, data)

    @staticmethod
    def _history(job, host, last):
        window = StalledTraining._history(job, host, last)
        if job.family == "transform":  # <job>/<instance-id>-<epoch>: the instance's streams, its data-log too
            return f"{job.name}/{host}", window[1], window[2]
        return window


MONITOR = StalledJob()
