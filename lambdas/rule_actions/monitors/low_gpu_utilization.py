"""LowGPUUtilization: a host's GPUs idle or fluctuating. Per host, GPUUtilization divided by the instance type's GPU
count, over a window of one-minute datapoints after a warm-up: it holds when p95 < threshold_p95, or when
p95 >= threshold_p95 and p5 < threshold_p5 (Debugger's test). One idle GPU of eight is invisible: SageMaker
publishes the sum over an instance's GPUs, not a series per GPU."""

from __future__ import annotations

from rule_actions.monitors.base import (
    PATIENCE,
    WINDOW,
    Monitor,
    Param,
    gpus,
    host_needs,
    pct,
    per_host,
    percentile,
    settle,
)

METRIC = "GPUUtilization"


class LowGPUUtilization(Monitor):
    name = "LowGPUUtilization"
    summary = "A host's GPUs are mostly idle (p95 below threshold_p95) or fluctuate (p5 below threshold_p5)."
    params = (Param("threshold_p95", 70.0, "p95 of per-GPU utilization below which the GPUs are underused", 0, 100, "%"),
              Param("threshold_p5", 10.0, "p5 below which utilization fluctuates (when p95 is above threshold_p95)",
                    0, 100, "%"),
              WINDOW, PATIENCE)

    def needs(self, job, p, now):
        return host_needs(job, self.name, (METRIC,), p["patience"], p["window"], now)

    def judge(self, job, p, now, data):
        series = per_host(job, p, data, METRIC, now)
        found = []
        for host, values in series.values.items():
            per_gpu = [v / host.gpus for v in values]
            p95, p5 = percentile(per_gpu, 95), percentile(per_gpu, 5)
            where = f"over the last {p['window']} min on {host.name} ({gpus(host)})"
            if p95 < p["threshold_p95"]:
                found.append(f"GPU utilization p95 {pct(p95)} < {pct(p['threshold_p95'])} {where}")
            elif p5 < p["threshold_p5"]:
                found.append(f"GPU utilization fluctuates: p5 {pct(p5)} < {pct(p['threshold_p5'])} while p95 is "
                             f"{pct(p95)} {where}")
        return settle(found, series, METRIC, job, self.name)


MONITOR = LowGPUUtilization()
