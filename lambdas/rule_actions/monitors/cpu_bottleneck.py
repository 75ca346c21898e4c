"""CPUBottleneck: the GPUs wait for the CPU. Per host, the share of the window's minutes where CPU (per vCPU) is
above cpu_threshold while GPU (per GPU) is below gpu_threshold; it holds when that share exceeds `threshold` %."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import PATIENCE, WINDOW, Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import host_needs, pct, per_host, settle_all
from rule_actions.monitors.verdicts import Clear, Judgement, NotJudged, Pending, Skipped

CPU, GPU = "CPUUtilization", "GPUUtilization"


class CPUBottleneck(Monitor):
    name = "CPUBottleneck"
    summary = "The GPUs of a host wait for its CPU most of the time (data loading or preprocessing)."
    params = (Param("threshold", 50.0, "Share of the window's minutes with a CPU bottleneck above which the rule holds",
                    0, 100, "%"),
              Param("cpu_threshold", 90.0, "Per-vCPU CPU utilization above which a minute is CPU-bound", 0, 100, "%"),
              Param("gpu_threshold", 10.0, "Per-GPU utilization below which the GPUs wait in that minute", 0, 100, "%"),
              WINDOW._replace(doc="Minutes of one-minute datapoints judged per host (Debugger counts every sample "
                                  "since the start)"), PATIENCE)

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return host_needs(job, self.name, (CPU, GPU), p["patience"], p["window"], now, vcpus=True)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        cpu, gpu = per_host(job, p, data, CPU, now), per_host(job, p, data, GPU, now)
        found = []
        for host in job.hosts:
            if host not in cpu.values or host not in gpu.values:
                continue
            pairs = list(zip(cpu.values[host][-len(gpu.values[host]):], gpu.values[host][-len(cpu.values[host]):],
                             strict=False))
            bound = sum(1 for c, g in pairs if c / host.vcpu_count > p["cpu_threshold"] and g / host.gpu_count < p["gpu_threshold"])
            share = 100 * bound / len(pairs)
            if share > p["threshold"]:
                found.append(f"CPU bottleneck on {host.name}: {pct(share)} of the last {p['window']} min had CPU > "
                             f"{pct(p['cpu_threshold'])} and GPU < {pct(p['gpu_threshold'])} (threshold "
                             f"{pct(p['threshold'])})")
        return settle_all(found, {CPU: cpu, GPU: gpu}, job, self.name)


MONITOR = CPUBottleneck()
