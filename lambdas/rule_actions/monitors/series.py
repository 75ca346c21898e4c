"""What the monitor rules over metric series share: the queries (per host, per job), windows of one-minute
datapoints (CloudWatch publishes late: a window ends at its series' latest datapoint), percentiles, per-host series
and how a rule over them settles, the hosts' GPUs, the warm-up, the user's metrics and the losses."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from rule_actions.monitors.job import NAMESPACE, Host, RunningJob, ago, began
from rule_actions.monitors.params import Param, num
from rule_actions.monitors.rule import Data, Reads
from rule_actions.monitors.verdicts import NOT_STARTED, Clear, Finding, Judgement, NotJudged, Pending, Skipped
from rule_actions.records import MetricQuery
from rule_actions.text import quoted

# How long before `now` a series' latest datapoint may be and still end its window (CloudWatch publishes SageMaker's
# metrics a few minutes late); a window's series must hold at least COVERAGE of its minutes.
STALE_AFTER = 6 * 60
COVERAGE = 0.8
LOOKBACK_MAX = 200  # minutes: a GetMetricData call of 500 series x 200 one-minute periods stays under 100,800 points


def host_query(job: RunningJob, host: Host, metric: str) -> MetricQuery:
    return MetricQuery(job.namespace, metric, (("Host", f"{job.name}/{host.name}"),))


def job_query(job: RunningJob, metric: str) -> MetricQuery:
    """A metric of the job's MetricDefinitions (SageMaker publishes them with the dimension TrainingJobName)."""
    return MetricQuery(NAMESPACE, metric, (("TrainingJobName", job.name),))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def window(points: Sequence[tuple[int, float]], minutes: int, now: int, after: int | None = None,
           ) -> tuple[list[float], int] | str:
    """The values of the last `minutes` minutes of a series, ending at its latest datapoint (CloudWatch publishes
    late), not before `after`; and the window's end. Or why there is no such window: no datapoint, the latest
    too old, too few datapoints (under COVERAGE of the minutes)."""
    usable = [(t, v) for t, v in points if after is None or t >= after]
    if not usable:
        return "no datapoint yet"
    end = usable[-1][0]
    if now - end > STALE_AFTER:
        return f"its latest datapoint is {ago(now - end)} old"
    values = [v for t, v in usable if t > end - minutes * 60]
    if len(values) < math.ceil(COVERAGE * minutes):
        return f"{len(values)} datapoints in the last {minutes} min (at least {math.ceil(COVERAGE * minutes)} needed)"
    return values, end


class HostSeries(NamedTuple):
    """One metric of every host of a job, each host's window: `values` per host (raw, as CloudWatch has them), the
    hosts still waiting for data (`waiting`: why), and those with no datapoint at all (`missing`)."""

    values: dict[Host, list[float]]
    waiting: list[str]
    missing: list[str]


def per_host(job: RunningJob, p: Mapping[str, Any], data: Data, metric: str, now: int, minutes: int | None = None) -> HostSeries:
    """`metric` on each of the job's hosts over the last `minutes` (the rule's window unless given), once the rule's
    `patience` after training started has passed."""
    values, waiting, missing = {}, [], []
    minutes, after = minutes or p["window"], job.started + p["patience"] * 60
    for host in job.hosts:
        points = data.points(host_query(job, host, metric))
        if not points:
            missing.append(host.name)
            continue
        found = window(points, minutes, now, after)
        if isinstance(found, str):
            waiting.append(f"{host.name}: {found}")
        else:
            values[host] = found[0]
    return HostSeries(values, waiting, missing)


def settle_all(found: list[str], each: Mapping[str, HostSeries], job: RunningJob, rule: str) -> Judgement:
    """`settle` for a rule over several metrics: judged on the first metric a host still lacks or waits for."""
    metric = next((m for m, series in each.items() if series.missing or series.waiting), next(iter(each)))
    return settle(found, each[metric], metric, job, rule)


def settle(found: list[str], series: HostSeries, metric: str, job: RunningJob, rule: str) -> Judgement:
    """A Finding when a host holds the rule, else Clear when every host was judged, else why not: the metric is
    missing (Skipped, naming it) when no host has it and none is waiting, or the data is not there yet."""
    if found:
        return Finding("; ".join(found))
    if not series.waiting and not series.missing:
        return Clear()
    if series.missing and not series.waiting and not series.values:
        hosts = ", ".join(series.missing)
        return Skipped(f"{rule} needs {metric}: no datapoint for {hosts} (namespace {job.namespace}, dimension Host "
                       f"{job.name}/<host>) since the window began")
    return Pending("; ".join(series.waiting + [f"{h}: no {metric} datapoint" for h in series.missing]))


def gpus(host: Host) -> str:
    return f"{host.gpus} GPU" + ("s" if host.gpus != 1 else "")


def pct(value: float) -> str:
    return f"{value:.0f}%"


def gpu_hosts(job: RunningJob, rule: str, metric: str = "GPUUtilization") -> tuple[Host, ...] | Skipped:
    """The job's hosts, each with a known GPU count; Skipped naming the instance type otherwise."""
    if not job.hosts:
        return Skipped(f"{rule} needs {metric} per host: the job's ResourceConfig names no instance type and count")
    for host in job.hosts:
        if host.gpus is None:
            return Skipped(f"{rule} needs the GPU count of {host.instance_type}, which is not in the instance table")
        if host.gpus == 0:
            return Skipped(f"{rule} needs {metric}: {host.instance_type} has no GPU")
    return job.hosts


def host_needs(job: RunningJob, rule: str, metrics: Sequence[str], patience: int, minutes: int, now: int,
               vcpus: bool = False) -> Reads | Clear | Pending | Skipped | NotJudged:
    """What a rule over instance metrics reads: `metrics` of every host over its last `minutes` (after the warm-up);
    Skipped when a host's GPU count (or vCPU count, with `vcpus`) is not known or zero."""
    hosts = gpu_hosts(job, rule, " and ".join(m for m in metrics if m.startswith("GPU")))
    if isinstance(hosts, Skipped):
        return hosts
    unknown = [h.instance_type for h in hosts if vcpus and not h.vcpus]
    if unknown:
        return Skipped(f"{rule} needs the vCPU count of {unknown[0]}, which is not in the instance table")
    return warmed_up(job, now, patience, minutes) or Reads(
        tuple(host_query(job, host, m) for host in hosts for m in metrics), now - minutes * 60 - STALE_AFTER)


def warmed_up(job: RunningJob, now: int, patience: float, minutes: float) -> Pending | None:
    """Pending while training has not run `patience` + `minutes` minutes (the warm-up, then a full window)."""
    if job.started is None:
        return NOT_STARTED
    if now - job.started < (patience + minutes) * 60:
        return Pending(f"{began(job)} started {ago(now - job.started)} ago: the rule waits {num(patience)} min, then "
                       f"judges {num(minutes)}-min windows")
    return None


def user_metric(job: RunningJob, name: str, pattern: str, rule: str, param: str) -> str | Skipped:
    """The job's metric `name`, or the first of its MetricDefinitions matching `pattern` when `name` is empty."""
    if name:
        if name in job.metrics:
            return name
        return Skipped(f"{rule}.{param}: the job defines no metric {quoted(name)} (MetricDefinitions: "
                       f"{', '.join(job.metrics) or 'none'})")
    found = [m for m in job.metrics if re.search(pattern, m, re.IGNORECASE)]
    if found:
        return found[0]
    return Skipped(f"{rule} needs a metric matching /{pattern}/ in the job's MetricDefinitions (it defines "
                   f"{', '.join(job.metrics) or 'none'}): set the parameter {param}")


TRAIN_LOSS = r"train.*loss|loss.*train"
VALIDATION_LOSS = r"(val|valid|validation|eval|test).*loss|loss.*(val|valid|validation|eval|test)"
LOSS_WINDOW = Param("window", 120, "Minutes of datapoints read", 10, 200, "min", whole=True)
LOSS_METRICS = (Param("training_metric", "", "The training loss metric (default: the first of MetricDefinitions "
                      "matching /train.*loss/)", text=True),
                Param("validation_metric", "", "The validation loss metric (default: the first matching "
                      "/(val|eval|test).*loss/)", text=True))


def loss_pair(job: RunningJob, p: Mapping[str, Any], rule: str) -> tuple[str, str] | Skipped:
    """The job's training and validation loss metrics (the parameters', else found by name)."""
    train = user_metric(job, p["training_metric"], TRAIN_LOSS, rule, "training_metric")
    if isinstance(train, Skipped):
        return train
    validation = user_metric(job, p["validation_metric"], VALIDATION_LOSS, rule, "validation_metric")
    return validation if isinstance(validation, Skipped) else (train, validation)


def loss_needs(job: RunningJob, p: Mapping[str, Any], rule: str, now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
    """What a rule over the training and validation losses reads: both series over its `window`."""
    metrics = loss_pair(job, p, rule)
    if isinstance(metrics, Skipped):
        return metrics
    if job.started is None:
        return NOT_STARTED
    return Reads(tuple(job_query(job, m) for m in metrics), now - p["window"] * 60)

