"""Sample timelines (events/timelines/): training jobs as SageMaker runs them, minute by minute, for a replay of the
monitor rules on the embedded account (docs/sample-events.md documents the format); a job may also be a processing,
batch transform or hyperparameter tuning job (`family`), a tuning job with its trials (`trials`).

    read(data, source)     a timeline, checked (every problem named, with its field)
    Timeline.between(...)  what SageMaker publishes for a job between two simulated times: its status, its
                           instance and user metrics' datapoints, its log lines (deterministic: the jitter is a
                           hash of the job, series and minute)

The replay (embedded.EmbeddedAccount.replay_timeline) seeds these at each tick of a simulated clock and runs the
evaluator at the tick's time, as its schedule would.
"""

from __future__ import annotations

import hashlib
import math
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, NamedTuple, Protocol, TypeVar

from rule_actions import registry
from rule_actions.text import quoted, unknown

T = TypeVar("T")


class Checker(Protocol):
    """What a timeline's checks call with each condition: records the problem when it is falsy, gives it back."""

    def __call__(self, condition: T, where: str, what: str) -> T: ...


NAMESPACE = "/aws/sagemaker/TrainingJobs"
LOG_GROUP = "/aws/sagemaker/TrainingJobs"
# The families whose jobs a timeline plays (the embedded account puts each as SageMaker shows it: embedded.py); each
# one's instance metrics' namespace and log group are its family's (rule_actions.registry.JOBS).
FAMILIES = ("training", "processing", "transform", "tuning")
TRIAL_KEYS = ("name", "from", "to", "status", "reason", "objective", "instance_type", "instance_count")
GROUP_KEYS = ("name", "instance_type", "instance_count")  # ResourceConfig.InstanceGroups (a heterogeneous cluster)
TRIAL_ENDS = ("Completed", "Failed", "Stopped")
STATUSES = ("InProgress", "Stopping", "Completed", "Failed", "Stopped")
JOB_NAME = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}")
TIMELINE_KEYS = ("timeline", "description", "start", "minutes", "every", "jobs", "batch")
# An AWS Batch service job that runs the timeline's jobs as its attempts (its `batch` section): its queue, the name
# its request gives the training job, its retries, and its status at each minute (an attempt number starts one of
# the jobs; `preempted` ends the running one as Batch's preemption does; `reason` is the job's statusReason);
# `resubmitted`: the states of the service job the function submits again (a restart through Batch), played once
# it exists, at their minutes; `checkpoint`: the request's CheckpointConfig.S3Uri.
BATCH_KEYS = ("job_name", "queue", "share", "requested_name", "retry_attempts", "states", "expect", "resubmitted",
              "checkpoint")
BATCH_STATE_KEYS = ("at", "status", "attempt", "reason", "preempted")
BATCH_STATUSES = ("RUNNABLE", "SCHEDULED", "STARTING", "RUNNING", "SUCCEEDED", "FAILED")
JOB_KEYS = ("name", "instance_type", "instance_count", "tags", "metric_definitions", "phases", "metrics", "logs",
            "expect", "stream_epoch", "account", "tuning_job", "family", "trials", "objective", "max_runtime_minutes",
            "checkpoint", "restarts", "instance_groups", "spot", "max_trials")
# What a restarted attempt (a copy the function created) does, minutes counted from the copy's creation; what it runs
# on, its tags, its run time and its checkpoint's S3 URI are the copy's own, read from the embedded account.
RESTART_KEYS = ("phases", "metrics", "logs", "checkpoint", "expect")
CHECKPOINT_KEYS = ("s3_uri", "from", "to", "every")
S3_URI = re.compile(r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\s{}]*)?")
LOCAL_PATH = "/opt/ml/checkpoints"  # CheckpointConfig.LocalPath: SageMaker's default
MAX_RUNTIME = (1, 40320)  # StoppingCondition.MaxRuntimeInSeconds, in minutes: at most 28 days
MAX_TRIALS = 10_000  # a timeline's bound on a tuning job's ResourceLimits.MaxNumberOfTrainingJobs (AWS: at least 1)
PHASE_KEYS = ("at", "status", "secondary", "message", "reason")
TUNING_JOB = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,31}")
SERIES_KEYS = ("metric", "hosts", "from", "to", "value", "jitter", "every")
LOG_KEYS = ("hosts", "from", "to", "every", "text")
PLACEHOLDERS = ("minute", "host", "job")  # what a log line's text may name, as {minute}, {host}, {job}
DAY = 24 * 60


@dataclass(frozen=True)
class Series:
    metric: str
    hosts: tuple[str, ...] | None  # None: a metric of the job (MetricDefinitions: dimension TrainingJobName)
    start: int  # minutes from the timeline's start
    end: int
    value: tuple[float, float]  # from, to (linear)
    jitter: float = 0.0
    every: int = 1

    def at(self, job: str, host: str | None, minute: int) -> float | None:
        if not self.start <= minute < self.end or (minute - self.start) % self.every:
            return None
        span = max(1, self.end - 1 - self.start)
        base = self.value[0] + (self.value[1] - self.value[0]) * (minute - self.start) / span
        if self.jitter:
            seed = hashlib.sha256(f"{job}|{self.metric}|{host}|{minute}".encode("utf-8", "surrogatepass")).digest()
            base += self.jitter * (int.from_bytes(seed[:4], "big") / 2**32 * 2 - 1)
        return max(0.0, base)


@dataclass(frozen=True)
class Lines:
    hosts: tuple[str, ...]
    start: int
    end: int
    every: int
    text: str


@dataclass(frozen=True)
class TimelineTrial:
    """A tuning job's trial: a training job running from minute `start`, ended at `end` with `status` (its
    FailureReason, or its final objective value)."""

    name: str
    start: int
    end: int
    status: str  # Completed | Failed | Stopped
    reason: str = ""
    objective: float | None = None
    instance_type: str = ""  # what it runs on ("": its tuning job's instance_type and instance_count)
    instance_count: int = 0

    def at(self, minute: int) -> str | None:
        """Its TrainingJobStatus at `minute`; None before it is created."""
        if minute < self.start:
            return None
        return "InProgress" if minute < self.end else self.status


@dataclass(frozen=True)
class Checkpoint:
    """Where and when a training job writes its checkpoints: its CheckpointConfig.S3Uri (None in a restarted
    attempt's spec: the copy's own, read from the embedded account) and the minutes it writes one, from `start`
    every `every` minutes, before `end` (only while it is InProgress and not stopped)."""

    s3_uri: str | None
    start: int
    end: int
    every: int

    def minutes(self, first: int, last: int) -> Iterator[int]:
        """The minutes first <= m < last at which a checkpoint is written."""
        for minute in range(max(first, self.start), min(last, self.end)):
            if not (minute - self.start) % self.every:
                yield minute


@dataclass(frozen=True)
class Job:
    name: str
    instance_type: str
    instance_count: int
    tags: Mapping[str, str]
    metric_definitions: tuple[str, ...]
    phases: tuple[tuple[int, str, str, str], ...]  # (minute, TrainingJobStatus, SecondaryStatus, StatusMessage)
    metrics: tuple[Series, ...]
    logs: tuple[Lines, ...]
    expect: tuple[Mapping[str, Any], ...]
    stream_epoch: int = 0
    account: str | None = None  # organization mode: the member account the job runs in
    tuning_job: str | None = None  # the tuning job that launched it (it is a trial: its TuningJobArn)
    family: str = "training"  # training | processing | transform | tuning
    trials: tuple[TimelineTrial, ...] = ()  # a tuning job's trials
    objective: str = "Minimize"  # a tuning job's objective type
    max_runtime_minutes: int = 1440  # its StoppingCondition.MaxRuntimeInSeconds, in minutes (AWS's default: 1 day)
    checkpoint: Checkpoint | None = None  # its CheckpointConfig and the minutes it writes checkpoints
    restarts: tuple[Job, ...] = ()  # what each restarted attempt does (minutes from the copy's creation)
    failure_reason: str = ""  # its FailureReason (its Failed phase's `reason`)
    restarted_from: str | None = None  # a copy the function created: the job it restarts (set by the replay)
    instance_groups: tuple[tuple[str, str, int], ...] = ()  # (name, instance type, count): a heterogeneous cluster
    spot: bool = False  # EnableManagedSpotTraining
    max_trials: int | None = None  # a tuning job's ResourceLimits.MaxNumberOfTrainingJobs (None: its trials' count)

    def resources(self, volume: int) -> dict[str, Any]:
        """Its ResourceConfig: its instance groups, or its instance type and count."""
        if self.instance_groups:
            return {"InstanceGroups": [{"InstanceGroupName": name, "InstanceType": kind, "InstanceCount": count}
                                       for name, kind, count in self.instance_groups], "VolumeSizeInGB": volume}
        return {"InstanceType": self.instance_type, "InstanceCount": self.instance_count, "VolumeSizeInGB": volume}

    def attempt(self, offset: int, name: str, instance_type: str, instance_count: int, tags: Mapping[str, str],
                checkpoint: str | None, restarted_from: str) -> Job:
        """This restart spec as the copy `name` plays it: its minutes moved to the timeline's (the copy was created
        at minute `offset`), with what the copy is (its resources, tags, checkpoint URI: the embedded account's)."""

        def moved(series: Series) -> Series:
            return replace(series, start=series.start + offset, end=series.end + offset)

        spot = self.checkpoint
        return replace(
            self, name=name, instance_type=instance_type, instance_count=instance_count, tags=dict(tags),
            phases=tuple((p[0] + offset, *p[1:]) for p in self.phases),
            metrics=tuple(moved(s) for s in self.metrics),
            logs=tuple(replace(lines, start=lines.start + offset, end=lines.end + offset) for lines in self.logs),
            expect=tuple({**e, "begins": e["begins"] + offset} for e in self.expect),
            checkpoint=replace(spot, s3_uri=checkpoint, start=spot.start + offset, end=spot.end + offset)
            if spot and checkpoint else None, restarts=(), restarted_from=restarted_from)

    @property
    def hosts(self) -> tuple[str, ...]:
        """algo-1 ... algo-<count>; a transform job's instances are named by their (made-up, stable) instance ids."""
        if self.family == "transform":
            return tuple("i-0" + hashlib.sha256(f"{self.name}|{n}".encode()).hexdigest()[:16]
                         for n in range(1, self.instance_count + 1))
        return tuple(f"algo-{n}" for n in range(1, self.instance_count + 1))

    @property
    def log_group(self) -> str:
        return str(_family(self.family).log_group)

    def started(self) -> int | None:
        """The minute it started (its first InProgress phase): a processing or transform job's start time."""
        return next((p[0] for p in self.phases if p[1] == "InProgress" and p[2] != "Starting"), None)

    def phase(self, minute: int) -> tuple[int, str, str, str] | None:
        """The job's (start minute, status, secondary status, message) at `minute`; None before it exists."""
        found = [p for p in self.phases if p[0] <= minute]
        return found[-1] if found else None


class BatchState(NamedTuple):
    at: int
    status: str
    attempt: int | None = None  # the index in `jobs` of the attempt this state starts (SCHEDULED)
    reason: str | None = None
    preempted: bool = False


class BatchJob(NamedTuple):
    """The service job of a timeline's `batch` section."""

    job_name: str
    queue: str
    requested_name: str
    retry_attempts: int
    states: tuple[BatchState, ...]
    share: str | None = None
    expect: Mapping[str, Any] = {}
    resubmitted: tuple[BatchState, ...] = ()  # the states of the service job a restart submits again
    checkpoint: str | None = None  # the request's CheckpointConfig.S3Uri


@dataclass
class Timeline:
    title: str
    start: int  # epoch seconds
    minutes: int
    every: int | None
    jobs: tuple[Job, ...]
    description: str = ""
    source: str = field(default="")
    batch: BatchJob | None = None

    def time(self, minute: int) -> int:
        return self.start + minute * 60

    def ticks(self, every: int) -> Iterator[int]:
        """The minutes at which the schedule runs: every `every` minutes after the start, up to the end."""
        yield from range(every, self.minutes + 1, every)

    def datapoints(self, job: Job, first: int, last: int) -> Iterator[tuple[str, str, dict[str, str], int, float]]:
        """(namespace, metric, dimensions, epoch seconds, value) of the minutes first <= m < last."""
        for series in job.metrics:
            for minute in range(first, last):
                for host in series.hosts or (None,):
                    value = series.at(job.name, host, minute)
                    if value is None:
                        continue
                    dimensions = {"Host": f"{job.name}/{host}"} if host else {"TrainingJobName": job.name}
                    yield _family(job.family).metric_namespace, series.metric, dimensions, self.time(minute), value

    def checkpoints(self, job: Job, first: int, last: int) -> Iterator[tuple[str, int]]:
        """(its CheckpointConfig.S3Uri, epoch seconds) of each checkpoint the job writes in the minutes
        first <= m < last."""
        if job.checkpoint is None or job.checkpoint.s3_uri is None:
            return
        for minute in job.checkpoint.minutes(first, last):
            yield job.checkpoint.s3_uri, self.time(minute)

    def log_lines(self, job: Job, first: int, last: int) -> Iterator[tuple[str, int, str]]:
        """(stream, epoch seconds, message) of the minutes first <= m < last."""
        for lines in job.logs:
            for minute in range(max(first, lines.start), min(last, lines.end)):
                if (minute - lines.start) % lines.every:
                    continue
                for host in lines.hosts:
                    stream = f"{job.name}/{host}-{job.stream_epoch or self.start}"
                    yield stream, self.time(minute) + 7, lines.text.format(minute=minute, host=host, job=job.name)


def read(data: Any, source: str) -> tuple[Timeline | None, list[str]]:
    """The timeline in `data`, or None and every problem (each naming its field's path and value): every field is
    checked like a configuration's, so that nothing in a timeline can crash the replay or be silently misread."""
    problems: list[str] = []

    def need(condition: T, where: str, what: str) -> T:
        if not condition:
            problems.append(f"{source}: {where}: {what}")
        return condition

    if not need(isinstance(data, Mapping), "timeline", f"{quoted(data)} is not an object (a timeline is one JSON "
                "object: docs/sample-events.md)"):
        return None, problems
    for key in (key for key in data if key not in TIMELINE_KEYS):  # quoted: a key may hold any character
        need(False, quoted(key), unknown(key, TIMELINE_KEYS, listed="docs/sample-events.md"))
    for key in ("timeline", "description"):
        need(isinstance(data.get(key, ""), str), key, f"{quoted(data.get(key))} is not text")
    start, given = None, data.get("start")
    try:
        start = int(datetime.fromisoformat(given.replace("Z", "+00:00")).astimezone(UTC).timestamp())
    except (AttributeError, ValueError, OverflowError, OSError):
        need(False, "start", f"{repr(given[:64]) if isinstance(given, str) else quoted(given)} is not an ISO 8601 time")
    minutes, every = data.get("minutes"), data.get("every")
    _minutes(need, minutes, "minutes", 1, DAY)
    if every is not None:
        _minutes(need, every, "every", 1, 60)
    jobs = []
    items = data.get("jobs")
    if need(isinstance(items, list) and items, "jobs", f"{quoted(items)} is not a non-empty list of jobs"):
        for index, item in enumerate(items):
            job = _job(item, f"jobs[{index}]", need)
            if job:
                jobs.append(job)
    batch = _batch(need, data["batch"], minutes, len(jobs)) if "batch" in data else None
    if problems or start is None:  # (a start that cannot be read is a problem)
        return None, problems
    return Timeline(str(data.get("timeline", "")), start, minutes, every, tuple(jobs),
                    str(data.get("description", "")), source, batch), []


def _batch(need: Checker, spec: Any, minutes: Any, jobs: int) -> BatchJob | None:
    """The `batch` section: its names, queue and retries; its states in time order, each attempt one of the jobs."""
    if not _object(need, spec, BATCH_KEYS, "batch"):
        return None
    for key in ("job_name", "queue", "requested_name"):
        need(isinstance(spec.get(key), str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}", spec[key]),
             f"batch.{key}", f"{quoted(spec.get(key))} is not a name (letters, digits, '-', '_'; at most 128)")
    need(spec.get("share") is None or isinstance(spec["share"], str), "batch.share", f"{quoted(spec.get('share'))} "
         "is not text")
    need(_whole(spec.get("retry_attempts", 1), 1, 10), "batch.retry_attempts",
         f"{quoted(spec.get('retry_attempts'))} is not a whole number from 1 to 10")
    need(isinstance(spec.get("expect", {}), Mapping), "batch.expect", f"{quoted(spec.get('expect'))} is not an object")
    need(spec.get("checkpoint") is None or (isinstance(spec["checkpoint"], str)
                                             and spec["checkpoint"].startswith("s3://")), "batch.checkpoint",
         f"{quoted(spec.get('checkpoint'))} is not an S3 URI")
    items = spec.get("states")
    if not need(isinstance(items, list) and items, "batch.states", f"{quoted(items)} is not a non-empty list"):
        return None
    states = _batch_states(need, items, "batch.states", minutes, jobs)
    again = spec.get("resubmitted", [])
    resubmitted = _batch_states(need, again, "batch.resubmitted", minutes, jobs) if need(
        isinstance(again, list), "batch.resubmitted", f"{quoted(again)} is not a list") else []
    if not states:
        return None
    return BatchJob(spec.get("job_name", ""), spec.get("queue", ""), spec.get("requested_name", ""),
                    spec.get("retry_attempts", 1), tuple(states), spec.get("share"), dict(spec.get("expect", {})),
                    tuple(resubmitted), spec.get("checkpoint"))


def _batch_states(need: Checker, items: list[Any], where: str, minutes: Any, jobs: int) -> list[BatchState]:
    """A service job's states, in time order, each attempt one of the jobs."""
    states: list[BatchState] = []
    high = minutes if isinstance(minutes, int) else DAY
    for index, item in enumerate(items):
        path = f"{where}[{index}]"
        if not _object(need, item, BATCH_STATE_KEYS, path):
            continue
        ok = all([
            _minutes(need, item.get("at"), f"{path}.at", 0, high),
            need(item.get("status") in BATCH_STATUSES, f"{path}.status",
                 f"{quoted(item.get('status'))} is not one of {', '.join(BATCH_STATUSES)}"),
            need(item.get("attempt") is None or _whole(item["attempt"], 0, jobs - 1), f"{path}.attempt",
                 f"{quoted(item.get('attempt'))} is not the index of one of the timeline's {jobs} jobs"),
            need(item.get("reason") is None or isinstance(item["reason"], str), f"{path}.reason",
                 f"{quoted(item.get('reason'))} is not text"),
            need(isinstance(item.get("preempted", False), bool), f"{path}.preempted",
                 f"{quoted(item.get('preempted'))} is not true or false"),
        ])
        if ok:
            states.append(BatchState(item["at"], item["status"], item.get("attempt"), item.get("reason"),
                                     item.get("preempted", False)))
    need([s.at for s in states] == sorted(s.at for s in states), where, "are not in time order")
    return states


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _minutes(need: Checker, value: Any, where: str, low: int, high: int) -> bool:
    return need(_whole(value, low, high), where, f"{quoted(value)} is not a whole number of minutes from {low} to "
                f"{high}")


def _number(value: Any) -> bool:
    """A finite JSON number (not a boolean; an integer too large for a float is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _list(need: Checker, item: Mapping[str, Any], key: str, where: str) -> list[Any]:
    """The list at `key` (absent or null: none), or none and a problem."""
    value = item.get(key)
    if value is None:
        return []
    return value if need(isinstance(value, list), f"{where}.{key}", f"{quoted(value)} is not a list") else []


def _span(need: Checker, spec: Mapping[str, Any], path: str) -> bool:
    """`from` and `to` (minutes from the start, from before to) and `every` (1 to 1440 minutes)."""
    ok = _minutes(need, spec.get("from"), f"{path}.from", 0, DAY)
    ok &= _minutes(need, spec.get("to"), f"{path}.to", 0, DAY)
    if ok:
        ok &= need(spec["from"] < spec["to"], f"{path}.to", f"{spec['to']} must be after from ({spec['from']})")
    return ok & _minutes(need, spec.get("every", 1), f"{path}.every", 1, DAY)


def _family(name: str) -> Any:  # (a rule_actions.jobs.base.JobFamily)
    return next(family for family in registry.JOBS if family.name == name)


def _hosts(need: Checker, chosen: Any, hosts: tuple[str, ...], family: str, path: str) -> tuple[str, ...] | None:
    """The hosts a series or log spec names: "all", or a list of `algo-<n>`, or for a transform job
    `instance-<n>` (its n-th instance, whose id the timeline makes up), n from 1 to the job's instance count."""
    if chosen == "all":
        return hosts
    if not need(isinstance(chosen, list) and chosen, f"{path}.hosts", f"{quoted(chosen)} must be \"all\" or a list "
                "of hosts"):
        return None
    prefix = "instance" if family == "transform" else "algo"
    found: list[str] | None = []
    for index, name in enumerate(chosen):
        match = re.fullmatch(prefix + r"-([1-9][0-9]{0,2})", name) if isinstance(name, str) else None
        number = int(match.group(1)) if match else 0
        if need(1 <= number <= len(hosts), f"{path}.hosts[{index}]", f"{quoted(name)} is not a host of this job "
                f"({prefix}-1 to {prefix}-{len(hosts)})") and found is not None:
            found.append(hosts[number - 1])
        else:
            found = None
    return tuple(found) if found is not None else None


def _text(need: Checker, text: Any, path: str) -> bool:
    """A log line's text: it may name {minute}, {host} and {job} ({{ and }} for braces), nothing else."""
    if not need(isinstance(text, str), path, f"{quoted(text)} is not text"):
        return False
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(text)
                  if name is not None]
    except ValueError:
        fields = [("", "", "")]
    return need(all(name in PLACEHOLDERS and not spec and not conversion for name, spec, conversion in fields),
                path, f"{quoted(text)} may name only {{minute}}, {{host}} and {{job}} (write {{{{ and }}}} for braces)")


def _job(item: Any, where: str, need: Checker, attempt: bool = False) -> Job | None:
    """A job of the timeline at `where`; with `attempt`, a restart spec (its keys checked by `_restarts`) made a job
    of its job's name and resources."""
    if not need(isinstance(item, Mapping), where, f"{quoted(item)} is not an object (a job)"):
        return None
    ok = True
    for key in (key for key in item if key not in JOB_KEYS):
        ok &= need(False, f"{where}.{quoted(key)}", unknown(key, JOB_KEYS, listed="docs/sample-events.md"))
    name = item.get("name")
    family = item.get("family", "training")
    ok &= need(family in FAMILIES, f"{where}.family", f"{quoted(family)} is not one of {', '.join(FAMILIES)}")
    family = family if family in FAMILIES else "training"
    ok &= need(isinstance(name, str) and JOB_NAME.fullmatch(name) is not None, f"{where}.name",
               f"{quoted(name)} is not a {family} job name (letters, digits and '-', at most 63)")
    groups = []
    for index, spec in enumerate(_list(need, item, "instance_groups", where)):
        group = _group(need, spec, f"{where}.instance_groups[{index}]")
        if group:
            groups.append(group)
        else:
            ok = False
    if groups:
        ok &= need(family == "training" and "instance_type" not in item and "instance_count" not in item,
                   f"{where}.instance_groups", "a training job's instance groups replace its instance_type and "
                   "instance_count (give one or the other)")
    count = item.get("instance_count", sum(c for _, _, c in groups) if groups else 1)
    ok &= need(_whole(count, 1, 64), f"{where}.instance_count", f"{quoted(count)} is not a whole number from 1 to 64")
    spot = item.get("spot", False)
    ok &= need(isinstance(spot, bool) and (not spot or family == "training"), f"{where}.spot",
               f"{quoted(spot)}: true or false (EnableManagedSpotTraining), a training job's only")
    instance_type = item.get("instance_type", groups[0][1] if groups else None)
    ok &= need(isinstance(instance_type, str), f"{where}.instance_type",
               f"{quoted(instance_type)} is not an instance type (text: ml.*)")
    tags = item.get("tags", {})
    ok &= need(isinstance(tags, Mapping) and all(isinstance(v, str) for v in tags.values()), f"{where}.tags",
               f"{quoted(tags)} is not an object of strings")
    definitions = item.get("metric_definitions", [])
    ok &= need(isinstance(definitions, list) and all(isinstance(d, str) for d in definitions),
               f"{where}.metric_definitions", f"{quoted(definitions)} is not a list of metric names")
    phases = []
    failure_reason = ""
    given = item.get("phases")
    each = need(given is None or isinstance(given, list), f"{where}.phases", f"{quoted(given)} is not a list")
    for index, phase in enumerate(given if isinstance(given, list) else []):
        if _phase(need, phase, f"{where}.phases[{index}]"):
            phases.append((phase["at"], phase.get("status", "InProgress"),
                           phase.get("secondary", phase.get("status", "InProgress")), phase.get("message", "")))
        else:
            each = False
        if not isinstance(phase, Mapping):
            continue
        status, reason = phase.get("status", "InProgress"), phase.get("reason")
        if reason is None:
            continue
        path = f"{where}.phases[{index}].reason"
        if not need(isinstance(reason, str) and reason.strip() != "", path, f"{quoted(reason)} is not text"):
            ok = False
        elif need(status == "Failed", path, f"{quoted(reason)}: only a Failed phase has a FailureReason (this one "
                                            f"is {quoted(status)})"):
            failure_reason = reason
        else:
            ok = False
    if each:  # each phase good: the list's own problems (a phase's are said at its index)
        each &= need(bool(phases), f"{where}.phases", f"{quoted(given)} is not a non-empty list of phases")
        each &= need(phases == sorted(phases, key=lambda p: p[0]), f"{where}.phases",
                   f"the phases' minutes {quoted([p[0] for p in phases])} are not in time order")
    ok &= each
    hosts = Job(str(name), "", count if _whole(count, 1, 64) else 1, {}, (), (), (), (), (), family=family).hosts
    series = []
    for index, spec in enumerate(_list(need, item, "metrics", where)):
        path = f"{where}.metrics[{index}]"
        if not _object(need, spec, SERIES_KEYS, path):
            ok = False
            continue
        value = spec.get("value")
        value = [value, value] if _number(value) else value
        good = need(isinstance(spec.get("metric"), str) and spec["metric"] != "", f"{path}.metric",
                    f"{quoted(spec.get('metric'))} is not a metric name")
        good &= _span(need, spec, path)
        good &= need(isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value), f"{path}.value",
                     f"{quoted(spec.get('value'))} is not a number or [from, to] of numbers")
        jitter = spec.get("jitter", 0)
        good &= need(_number(jitter) and jitter >= 0, f"{path}.jitter", f"{quoted(jitter)} is not a number (0 or more)")
        chosen = spec.get("hosts")
        named = None if chosen is None else _hosts(need, chosen, hosts, family, path)
        good &= chosen is None or named is not None
        if good:
            series.append(Series(spec["metric"], named, spec["from"], spec["to"], (float(value[0]), float(value[1])),
                                 float(jitter), spec.get("every", 1)))
        ok &= good
    lines = []
    for index, spec in enumerate(_list(need, item, "logs", where)):
        path = f"{where}.logs[{index}]"
        if not _object(need, spec, LOG_KEYS, path):
            ok = False
            continue
        good = _span(need, spec, path)
        text = spec.get("text", "step {minute}")
        good &= _text(need, text, f"{path}.text")
        named = _hosts(need, spec.get("hosts", "all"), hosts, family, path)
        good &= named is not None
        if good and named is not None:
            lines.append(Lines(named, spec["from"], spec["to"], spec.get("every", 1), text))
        ok &= good
    expect = item.get("expect", [])
    if need(isinstance(expect, list), f"{where}.expect", f"{quoted(expect)} is not a list of {{rule, begins}}"):
        for index, spec in enumerate(expect):
            ok &= need(isinstance(spec, Mapping) and isinstance(spec.get("rule"), str)
                       and _whole(spec.get("begins"), 0, DAY), f"{where}.expect[{index}]",
                       f"{quoted(spec)} is not {{rule: a rule's name, begins: a minute from 0 to {DAY}}}")
    else:
        ok = False
    stream_epoch = item.get("stream_epoch", 0)
    ok &= need(_whole(stream_epoch, 0, 2**40), f"{where}.stream_epoch",
               f"{quoted(stream_epoch)} is not an epoch second (a whole number, 0 or more)")
    account = item.get("account")
    ok &= need(account is None or (isinstance(account, str) and re.fullmatch(r"\d{12}", account) is not None),
               f"{where}.account", f"{quoted(account)} is not an AWS account id (12 digits)")
    tuning_job = item.get("tuning_job")
    ok &= need(tuning_job is None or (isinstance(tuning_job, str) and TUNING_JOB.fullmatch(tuning_job) is not None),
               f"{where}.tuning_job", f"{quoted(tuning_job)} is not a tuning job name (letters, digits and '-', at "
               "most 32)")
    trials = []
    for index, spec in enumerate(_list(need, item, "trials", where)):
        path = f"{where}.trials[{index}]"
        if _trial(need, spec, path):
            objective = spec.get("objective")
            trials.append(TimelineTrial(spec["name"], spec["from"], spec["to"], spec["status"],
                                        spec.get("reason", ""), None if objective is None else float(objective),
                                        spec.get("instance_type", ""), spec.get("instance_count", 0)))
        else:
            ok = False
    ok &= need(not trials or family == "tuning", f"{where}.trials", f"only a tuning job has trials (this is a "
               f"{family} job)")
    objective_type = item.get("objective", "Minimize")
    ok &= need(objective_type in ("Minimize", "Maximize"), f"{where}.objective",
               f"{quoted(objective_type)} is not Minimize or Maximize")
    runtime = item.get("max_runtime_minutes", 1440)
    ok &= _minutes(need, runtime, f"{where}.max_runtime_minutes", *MAX_RUNTIME)
    max_trials = item.get("max_trials")
    if max_trials is not None:
        ok &= need(family == "tuning", f"{where}.max_trials", f"only a tuning job has trials (this is a {family} job)")
        ok &= need(_whole(max_trials, max(1, len(trials)), MAX_TRIALS), f"{where}.max_trials",
                   f"{quoted(max_trials)} is not a whole number from {max(1, len(trials))} (its trials) to "
                   f"{MAX_TRIALS:,}")
    checkpoint = None
    if item.get("checkpoint") is not None:
        checkpoint = _checkpoint(need, item["checkpoint"], f"{where}.checkpoint", family, attempt)
        ok &= checkpoint is not None
    restarts = _restarts(need, item, where, family, count if _whole(count, 1, 64) else 1)
    ok &= restarts is not None
    if not ok or restarts is None:
        return None
    return Job(name, instance_type, count, dict(tags),
               tuple(definitions), tuple(phases), tuple(series), tuple(lines), tuple(expect), stream_epoch, account,
               tuning_job, family, tuple(trials), objective_type, runtime, checkpoint, restarts, failure_reason,
               instance_groups=tuple(groups), spot=spot, max_trials=max_trials)


def _object(need: Checker, spec: Any, keys: tuple[str, ...], path: str) -> bool:
    """An object with only `keys` (each other key named), or a problem naming what it is instead."""
    if not need(isinstance(spec, Mapping), path, f"{quoted(spec)} is not an object with the keys {', '.join(keys)}"):
        return False
    ok = True
    for key in (key for key in spec if key not in keys):
        ok &= need(False, f"{path}.{quoted(key)}", unknown(key, keys, listed="docs/sample-events.md"))
    return ok


def _phase(need: Checker, phase: Any, path: str) -> bool:
    """A phase `{at, status, secondary, message, reason}`, each wrong field named with its value (the reason is
    checked by the caller, against the status)."""
    if not _object(need, phase, PHASE_KEYS, path):
        return False
    at, status = phase.get("at"), phase.get("status", "InProgress")
    ok = _minutes(need, at, f"{path}.at", 0, DAY)
    ok &= need(status in STATUSES, f"{path}.status", f"{quoted(status)} is not one of {', '.join(STATUSES)}")
    for key in ("secondary", "message"):
        ok &= need(key not in phase or isinstance(phase[key], str), f"{path}.{key}", f"{quoted(phase.get(key))} is "
                   "not text")
    return ok


def _trial(need: Checker, spec: Any, path: str) -> bool:
    """A tuning job's trial `{name, from, to, status, reason, objective, instance_type, instance_count}`, each
    wrong field named with its value."""
    if not _object(need, spec, TRIAL_KEYS, path):
        return False
    name, objective = spec.get("name"), spec.get("objective")
    ok = need(isinstance(name, str) and JOB_NAME.fullmatch(name) is not None, f"{path}.name",
              f"{quoted(name)} is not a training job name (letters, digits and '-', at most 63)")
    ok &= _minutes(need, spec.get("from"), f"{path}.from", 0, DAY)
    ok &= _minutes(need, spec.get("to"), f"{path}.to", 0, DAY)
    ok &= need(spec.get("status") in TRIAL_ENDS, f"{path}.status",
               f"{quoted(spec.get('status'))} is not one of {', '.join(TRIAL_ENDS)}")
    ok &= need(isinstance(spec.get("reason", ""), str), f"{path}.reason", f"{quoted(spec.get('reason'))} is not text")
    ok &= need(isinstance(spec.get("instance_type", ""), str), f"{path}.instance_type",
               f"{quoted(spec.get('instance_type'))} is not an instance type (text: ml.*)")
    ok &= need(_whole(spec.get("instance_count", 1), 1, 64), f"{path}.instance_count",
               f"{quoted(spec.get('instance_count'))} is not a whole number from 1 to 64")
    return ok & need(objective is None or _number(objective), f"{path}.objective",
                     f"{quoted(objective)} is not a finite number")


def _group(need: Checker, spec: Any, path: str) -> tuple[str, str, int] | None:
    """An instance group `{name, instance_type, instance_count}` (ResourceConfig.InstanceGroups), each wrong field
    named with its value."""
    if not _object(need, spec, GROUP_KEYS, path):
        return None
    name, kind, count = spec.get("name"), spec.get("instance_type"), spec.get("instance_count")
    ok = need(isinstance(name, str), f"{path}.name", f"{quoted(name)} is not a group name (text)")
    ok &= need(isinstance(kind, str), f"{path}.instance_type", f"{quoted(kind)} is not an instance type (text: ml.*)")
    ok &= need(_whole(count, 1, 64), f"{path}.instance_count", f"{quoted(count)} is not a whole number from 1 to 64")
    return (name, kind, count) if ok else None


def _checkpoint(need: Checker, spec: Any, path: str, family: str, attempt: bool) -> Checkpoint | None:
    """`{"s3_uri", "from", "to", "every"}`: where (a job's; never a restarted attempt's, whose copy writes under the
    CheckpointConfig the function gave it) and when (minutes, `to` excluded) a training job writes checkpoints."""
    if not need(isinstance(spec, Mapping), path, f"{quoted(spec)} is not an object with the keys "
                f"{', '.join(CHECKPOINT_KEYS)}"):
        return None
    ok = need(family == "training", path, f"only a training job has a CheckpointConfig (this is a {family} job)")
    for key in (key for key in spec if key not in CHECKPOINT_KEYS):
        ok &= need(False, f"{path}.{quoted(key)}", unknown(key, CHECKPOINT_KEYS, listed="docs/sample-events.md"))
    uri = spec.get("s3_uri")
    if attempt:
        ok &= need(uri is None, f"{path}.s3_uri", f"{quoted(uri)}: a restarted attempt writes under the "
                   "CheckpointConfig.S3Uri of the copy the function created (its job's): leave it out")
    else:
        ok &= need(isinstance(uri, str) and S3_URI.fullmatch(uri) is not None, f"{path}.s3_uri",
                   f"{quoted(uri)} is not an S3 URI (s3://bucket/prefix)")
    ok &= _span(need, spec, path)
    if not ok:
        return None
    return Checkpoint(uri, spec["from"], spec["to"], spec.get("every", 1))


def _restarts(need: Checker, item: Mapping[str, Any], where: str, family: str, count: int) -> tuple[Job, ...] | None:
    """What each restarted attempt of the job does: `restarts[n]` is attempt n + 1's spec (RESTART_KEYS, checked as a
    job's, minutes from the copy's creation), read as a job of the job's name and resources (the copy asks the
    same; the replay gives it the copy's own)."""
    specs = _list(need, item, "restarts", where)
    ok = need(not specs or family == "training", f"{where}.restarts",
              f"only a training job is restarted (this is a {family} job)")
    found = []
    for index, spec in enumerate(specs):
        path = f"{where}.restarts[{index}]"
        if not need(isinstance(spec, Mapping), path, f"{quoted(spec)} is not an object with the keys "
                    f"{', '.join(RESTART_KEYS)}"):
            ok = False
            continue
        for key in (key for key in spec if key not in RESTART_KEYS):
            ok &= need(False, f"{path}.{quoted(key)}", unknown(key, RESTART_KEYS, listed="docs/sample-events.md"))
        job = _job({"name": item.get("name"), "instance_type": item.get("instance_type"), "instance_count": count,
                    **{key: spec[key] for key in RESTART_KEYS if key in spec}}, path, _quiet(need, path), attempt=True)
        if job is None:
            ok = False
        else:
            found.append(job)
    return tuple(found) if ok else None


def _quiet(need: Checker, path: str) -> Checker:
    """`need` for a restart spec read as a job: its problems on its own keys only (its job's name, type and count are
    checked, and said, where the job is)."""
    own = (f"{path}.name", f"{path}.instance_type", f"{path}.instance_count")

    def check(condition: T, where: str, what: str) -> T:
        return condition if where in own else need(condition, where, what)
    return check
