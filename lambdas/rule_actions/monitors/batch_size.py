"""BatchSize: a host whose CPU, GPU and GPU memory are all underused (p95 of each below its threshold, per vCPU and
per GPU): a larger batch, or a smaller instance, would use what is paid for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import PATIENCE, WINDOW, Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import host_needs, pct, per_host, percentile, settle_all
from rule_actions.monitors.verdicts import Clear, Judgement, NotJudged, Pending, Skipped

METRICS = ("CPUUtilization", "GPUUtilization", "GPUMemoryUtilization")


class BatchSize(Monitor):
    name = "BatchSize"
    summary = "CPU, GPU and GPU memory of a host are all underused: the batch could be larger."
    params = (Param("cpu_threshold_p95", 70.0, "p95 of per-vCPU CPU utilization below which the CPU is underused",
                    0, 100, "%"),
              Param("gpu_threshold_p95", 70.0, "p95 of per-GPU utilization below which the GPUs are underused",
                    0, 100, "%"),
              Param("gpu_memory_threshold_p95", 70.0, "p95 of per-GPU memory utilization below which GPU memory is "
                    "underused", 0, 100, "%"),
              WINDOW, PATIENCE)

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return host_needs(job, self.name, METRICS, p["patience"], p["window"], now, vcpus=True)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        each = {m: per_host(job, p, data, m, now) for m in METRICS}
        found = []
        for host in job.hosts:
            if not all(host in each[m].values for m in METRICS):
                continue
            vcpus, count = host.vcpu_count, host.gpu_count
            cpu = percentile([v / vcpus for v in each["CPUUtilization"].values[host]], 95)
            gpu = percentile([v / count for v in each["GPUUtilization"].values[host]], 95)
            memory = percentile([v / count for v in each["GPUMemoryUtilization"].values[host]], 95)
            if cpu < p["cpu_threshold_p95"] and gpu < p["gpu_threshold_p95"] and memory < p["gpu_memory_threshold_p95"]:
                found.append(f"p95 over the last {p['window']} min on {host.name}: GPU {pct(gpu)} < "
                             f"{pct(p['gpu_threshold_p95'])}, GPU memory {pct(memory)} < "
                             f"{pct(p['gpu_memory_threshold_p95'])}, CPU {pct(cpu)} < {pct(p['cpu_threshold_p95'])}: "
                             "a larger batch (or a smaller instance) would use what is paid for")
        return settle_all(found, each, job, self.name)


MONITOR = BatchSize()
