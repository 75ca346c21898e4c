"""IdleInstances: a processing or transform job's instances do nothing. Per host (<job>/algo-<n> in
/aws/sagemaker/ProcessingJobs; <job>/<instance-id> in /aws/sagemaker/TransformJobs), CPUUtilization divided by the
instance type's vCPUs, and on a GPU instance GPUUtilization divided by its GPUs, over a window of one-minute
datapoints after a warm-up: it holds when a host's p95 CPU is below cpu_threshold and (on a GPU instance) its p95 GPU
below gpu_threshold: the host idled for nearly the whole window. It holds when every host of the job idles, unless
`per_host` is true (then one idle host is enough): these families split their input between the instances, and one
that finished its share idles while the others work, which stopping the job would not help. A job waiting on a slow
external service (a database, an API) looks idle too: that is what the rule reports.

A transform job's instances are named by no API (DescribeTransformJob gives their type and count): the evaluation
lists the Host values of CPUUtilization in /aws/sagemaker/TransformJobs active in the last 3 hours (one ListMetrics
read per run, for every transform job), and judges those of `<job>/`; none yet: Pending."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.contract import Offer
from rule_actions.monitors.job import JUDGED, RunningJob
from rule_actions.monitors.params import PATIENCE, Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import STALE_AFTER, gpus, host_query, pct, per_host, percentile, settle_all, warmed_up
from rule_actions.monitors.verdicts import Clear, Judgement, NotJudged, Pending, Skipped

CPU, GPU = "CPUUtilization", "GPUUtilization"


class IdleInstances(Monitor):
    name = "IdleInstances"
    summary = "A processing or transform job's host idles: p95 CPU (per vCPU) below cpu_threshold and, on a GPU " \
              "instance, p95 GPU (per GPU) below gpu_threshold over the window."
    needs = frozenset({Offer.JOB_STATUS, Offer.HOST_METRICS})
    instances = True
    phases = (JUDGED,)
    params = (Param("cpu_threshold", 5.0, "p95 of per-vCPU CPU utilization below which a host idles", 0, 100, "%"),
              Param("gpu_threshold", 5.0, "p95 of per-GPU utilization below which a GPU host's GPUs idle", 0, 100,
                    "%"),
              Param("window", 30, "Minutes of one-minute datapoints judged per host", 5, 180, "min", whole=True),
              PATIENCE._replace(default=5, doc="Minutes skipped after the job starts (downloading its inputs)"),
              Param("per_host", "false", "true: one idle host is enough; false: every host of the job must idle (an "
                    "instance that finished its share of the input idles while the others work)",
                    choices=("false", "true")))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        if not job.hosts and job.instances_listed:
            return Pending(f"no instance of the {job.noun} has published CPUUtilization yet (its instances are "
                           "found by their metrics' Host dimension)")
        if not job.hosts:
            return Skipped(f"{self.name} needs the job's instances: its ProcessingResources.ClusterConfig names no "
                           "instance type and count")
        unknown = [h.instance_type for h in job.hosts if not h.vcpus or h.gpus is None]
        if unknown:
            return Skipped(f"{self.name} needs the vCPU and GPU counts of {unknown[0]}, which is not in the instance "
                           "table")
        queries = tuple(host_query(job, host, metric) for host in job.hosts
                        for metric in ((CPU, GPU) if host.gpus else (CPU,)))
        return warmed_up(job, now, p["patience"], p["window"]) or Reads(
            queries, now - p["window"] * 60 - STALE_AFTER)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        cpu = per_host(job, p, data, CPU, now)
        gpu = per_host(job._replace(hosts=tuple(h for h in job.hosts if h.gpus)), p, data, GPU, now)
        found = []
        for host, values in cpu.values.items():
            vcpus = host.vcpu_count
            cpu95 = percentile([v / vcpus for v in values], 95)
            if cpu95 >= p["cpu_threshold"]:
                continue
            words = f"CPU p95 {pct(cpu95)} < {pct(p['cpu_threshold'])} per vCPU"
            if host.gpus:
                if host not in gpu.values:
                    continue
                count = host.gpu_count
                gpu95 = percentile([v / count for v in gpu.values[host]], 95)
                if gpu95 >= p["gpu_threshold"]:
                    continue
                words += f" and GPU p95 {pct(gpu95)} < {pct(p['gpu_threshold'])} ({gpus(host)})"
            found.append(f"{host.name} idles: {words} over the last {p['window']} min")
        each = {CPU: cpu, GPU: gpu} if any(h.gpus for h in job.hosts) else {CPU: cpu}
        if found and p["per_host"] == "false" and len(found) < len(job.hosts):
            verdict = settle_all([], each, job, self.name)
            if isinstance(verdict, Clear) or not (cpu.waiting or cpu.missing):
                return Clear(f"{len(found)} of {len(job.hosts)} hosts idle, the others work (per_host is false): "
                             + "; ".join(found))
            return verdict
        return settle_all(found, each, job, self.name)


MONITOR = IdleInstances()
