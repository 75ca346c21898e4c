"""CPUBottleneck: the GPUs wait for the CPU. Per host, the share of the window's minutes where CPU (per vCPU) is
above cpu_threshold while GPU (per GPU) is below gpu_threshold; it holds when that share exceeds `threshold` %."""

from __future__ import annotations

from rule_actions.monitors.base import (
    PATIENCE,
    STALE_AFTER,
    WINDOW,
    Monitor,
    Needs,
    Param,
    Skipped,
    gpu_hosts,
    host_query,
    pct,
    per_host,
    settle,
    warmed_up,
)

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

    def needs(self, job, p, now):
        hosts = gpu_hosts(job, self.name, GPU)
        if isinstance(hosts, Skipped):
            return hosts
        unknown = [h.instance_type for h in hosts if not h.vcpus]
        if unknown:
            return Skipped(f"{self.name} needs the vCPU count of {unknown[0]}, which is not in the instance table")
        return warmed_up(job, now, p["patience"], p["window"]) or Needs(
            tuple(host_query(job, host, m) for host in hosts for m in (CPU, GPU)), now - p["window"] * 60 - STALE_AFTER)

    def judge(self, job, p, now, data):
        after = job.started + p["patience"] * 60
        cpu = per_host(job, job.hosts, data, CPU, p["window"], now, after)
        gpu = per_host(job, job.hosts, data, GPU, p["window"], now, after)
        found = []
        for host in job.hosts:
            if host not in cpu.values or host not in gpu.values:
                continue
            pairs = list(zip(cpu.values[host][-len(gpu.values[host]):], gpu.values[host][-len(cpu.values[host]):],
                             strict=False))
            bound = sum(1 for c, g in pairs if c / host.vcpus > p["cpu_threshold"] and g / host.gpus < p["gpu_threshold"])
            share = 100 * bound / len(pairs)
            if share > p["threshold"]:
                found.append(f"CPU bottleneck on {host.name}: {pct(share)} of the last {p['window']} min had CPU > "
                             f"{pct(p['cpu_threshold'])} and GPU < {pct(p['gpu_threshold'])} (threshold "
                             f"{pct(p['threshold'])})")
        series = cpu if cpu.missing or cpu.waiting else gpu
        return settle(found, series, CPU if series is cpu else GPU, job, self.name)


MONITOR = CPUBottleneck()
