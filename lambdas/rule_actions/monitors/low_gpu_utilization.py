"""LowGPUUtilization: a host's GPUs idle or fluctuating. Per host, GPUUtilization divided by the instance type's GPU
count, over a window of one-minute datapoints after a warm-up: it holds when p95 < threshold_p95 (idle), or when
p95 >= threshold_p95 and the minutes below threshold_p5 add up to more than `low_minutes` (fluctuating). One idle
GPU of eight is invisible: SageMaker publishes the sum over an instance's GPUs, not a series per GPU.

Fluctuation differs from Debugger's test (p5 < threshold_p5), made for its 500 ms samples: there, a p5 under 10%
means the GPUs wait for data a few percent of the time. A one-minute average hides such waits, and a minute under
10% means the GPUs idled for nearly the whole minute: a checkpoint save or an evaluation pass, which a healthy job
shows for a few minutes every half hour or so. A p5 over 30 such minutes is low as soon as two of them are, so the
rule counts them instead: the GPUs fluctuate when they idle for more than `low_minutes` of the window.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import PATIENCE, WINDOW, Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import gpus, host_needs, pct, per_host, percentile, settle
from rule_actions.monitors.verdicts import Clear, Judgement, NotJudged, Pending, Skipped

METRIC = "GPUUtilization"


class LowGPUUtilization(Monitor):
    name = "LowGPUUtilization"
    summary = "A host's GPUs are mostly idle (p95 below threshold_p95) or fluctuate (more than low_minutes of the " \
              "window below threshold_p5)."
    params = (Param("threshold_p95", 70.0, "p95 of per-GPU utilization below which the GPUs are underused", 0, 100, "%"),
              Param("threshold_p5", 10.0, "Per-GPU utilization below which a minute counts as idle (when p95 is "
                    "above threshold_p95)", 0, 100, "%"),
              Param("low_minutes", 6, "Idle minutes in the window above which utilization fluctuates (a checkpoint "
                    "save idles the GPUs for a few minutes: not a fluctuation)", 1, 180, "min", whole=True),
              WINDOW, PATIENCE)

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return host_needs(job, self.name, (METRIC,), p["patience"], p["window"], now)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        series = per_host(job, p, data, METRIC, now)
        found = []
        for host, values in series.values.items():
            count = host.gpu_count
            per_gpu = [v / count for v in values]
            p95 = percentile(per_gpu, 95)
            low = sum(1 for v in per_gpu if v < p["threshold_p5"])
            where = f"over the last {p['window']} min on {host.name} ({gpus(host)})"
            if p95 < p["threshold_p95"]:
                found.append(f"GPU utilization p95 {pct(p95)} < {pct(p['threshold_p95'])} {where}")
            elif low > p["low_minutes"]:
                found.append(f"GPU utilization fluctuates: {low} min below {pct(p['threshold_p5'])} (more than "
                             f"{p['low_minutes']}) while p95 is {pct(p95)} {where}")
        return settle(found, series, METRIC, job, self.name)


MONITOR = LowGPUUtilization()
