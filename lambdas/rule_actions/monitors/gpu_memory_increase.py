"""GPUMemoryIncrease: a host's GPU memory keeps growing (a leak, tensors kept across steps). Per host, the mean of
GPUMemoryUtilization per GPU over the last `window` minutes against the mean of the `window` minutes before: it
holds when it rose by more than `increase` points. Default increase 5: the value of Debugger's rule code
(smdebug-rulesconfig), which ran when a job set no parameter; its documentation says 10."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import PATIENCE, Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import gpus, host_needs, pct, per_host, settle
from rule_actions.monitors.verdicts import Clear, Judgement, NotJudged, Pending, Skipped

METRIC = "GPUMemoryUtilization"


class GPUMemoryIncrease(Monitor):
    name = "GPUMemoryIncrease"
    summary = "A host's GPU memory grows from one window to the next."
    params = (Param("increase", 5.0, "Rise of the mean per-GPU memory utilization, in percentage points, between two "
                    "consecutive windows above which the rule holds (Debugger's code: 5; its documentation: 10)",
                    0, 100, "points"),
              Param("window", 10, "Minutes of each of the two windows compared (Debugger: 10 samples of 500 ms, 5 s: "
                    "one-minute points need longer for a stable mean)", 2, 90, "min", whole=True),
              PATIENCE._replace(doc="Minutes skipped after training starts (Debugger's code: 1000 samples of 500 ms, "
                                    "8 min 20 s; its documentation: 100 samples)"))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return host_needs(job, self.name, (METRIC,), p["patience"], 2 * p["window"], now)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        minutes = p["window"]
        series = per_host(job, p, data, METRIC, now, 2 * minutes)
        found = []
        for host, values in series.values.items():
            half = len(values) // 2
            before, after = sum(values[:half]) / half, sum(values[half:]) / (len(values) - half)
            rise = (after - before) / host.gpu_count
            if rise > p["increase"]:
                first, last = before / host.gpu_count, after / host.gpu_count
                found.append(f"GPU memory on {host.name} ({gpus(host)}) rose from {pct(first)} to {pct(last)} "
                             f"(+{rise:.0f} points > {p['increase']:g}) between the last two {minutes}-min windows")
        return settle(found, series, METRIC, job, self.name)


MONITOR = GPUMemoryIncrease()
