"""The running job as the monitor rules see it (`RunningJob`, from SageMaker's Search record or a Describe answer, of any
family the rules judge), its hosts, and its clock: when its latest stretch of the phases a rule judges began."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from rule_actions.contract import TRAINING_PHASE, TRAINING_PHASES, Offer
from rule_actions.cost import Billing
from rule_actions.monitors.instances import counts
from rule_actions.ports import Configured
from rule_actions.records import JobApi, JobEvent, Span
from rule_actions.text import list_at, mapping_at, text_at

NAMESPACE = "/aws/sagemaker/TrainingJobs"  # instance metrics (dimension Host) and the user's (TrainingJobName)
TRAINING = "training"
TRIALS = 100  # a tuning job's latest trials its rules read per run (ListTrainingJobsForHyperParameterTuningJob's largest page)
JUDGED = "InProgress"  # the status other families are judged in, once they started (they have no SecondaryStatus)


class Evaluated(Protocol):
    """What a scheduled evaluation needs of the job family it evaluates (jobs/base.py's JobFamily is one)."""

    @property
    def name(self) -> str: ...
    @property
    def noun(self) -> str: ...
    @property
    def api(self) -> JobApi: ...
    @property
    def offers(self) -> frozenset[Offer]: ...
    @property
    def metric_namespace(self) -> str: ...
    @property
    def instances_listed(self) -> bool: ...
    @property
    def log_group(self) -> str: ...
    @property
    def billing(self) -> Billing | None: ...
    @property
    def members(self) -> Named: ...

    def in_scope(self, config: Configured, job_name: str) -> bool: ...

    def event_of(self, description: Mapping[str, Any], time: str, event_id: str,
                 extra: Mapping[str, Any]) -> JobEvent: ...


class Named(Protocol):
    """The members of a job's description that name it, hold its status and its start (jobs/base.py's Members)."""

    @property
    def name(self) -> str: ...
    @property
    def arn(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def started(self) -> str | None: ...


class Host(NamedTuple):
    name: str  # algo-1
    instance_type: str
    gpus: int | None  # None: not in the instance table
    vcpus: int | None

    @property
    def gpu_count(self) -> int:
        """Its GPUs, for a rule that judges them (its needs skip a host whose count is unknown or zero)."""
        if not self.gpus:
            raise ValueError(f"{self.instance_type}: no known GPU count")
        return self.gpus

    @property
    def vcpu_count(self) -> int:
        """Its vCPUs, for a rule that judges them (its needs skip a host whose count is unknown or zero)."""
        if not self.vcpus:
            raise ValueError(f"{self.instance_type}: no known vCPU count")
        return self.vcpus


class RunningJob(NamedTuple):
    """A running training job as the rules see it (from SageMaker's Search record: its Describe members and tags)."""

    name: str
    arn: str
    status: str
    secondary: str  # its phase (SecondaryStatus)
    started: int | None  # epoch seconds: when its latest stretch of training began (the rules' clock; see `clock`)
    hosts: tuple[Host, ...]
    metrics: tuple[str, ...]  # the names of its MetricDefinitions
    tags: Mapping[str, str]
    # The latest log line per host that earlier runs of this execution environment read (epoch ms): a host heard at
    # L cannot have been silent for the threshold before L + threshold, so no log query is needed until then.
    heard: Mapping[str, int] = {}
    transitions: tuple[tuple[str, int], ...] = ()  # (SecondaryStatus, its start in epoch seconds), in order
    family: str = TRAINING  # its job family's name (training, processing...)
    namespace: str = NAMESPACE  # where its instance metrics are (its family's)
    noun: str = "training job"  # its family's
    phased: bool = True  # it moves through SecondaryStatus phases (a training job); else judged by its status
    instances_listed: bool = False  # its instances are named by its metrics' Host dimension only (a transform job)
    max_runtime: int | None = None  # StoppingCondition.MaxRuntimeInSeconds, when it declares one
    objective: str = ""  # a tuning job's objective type: Minimize | Maximize ("" unknown)
    billed_from: int | None = None  # a training job's TrainingStartTime (billing starts; None: not yet)
    parent: str = ""  # a training job's TuningJobArn: the tuning job that launched it (a trial)

    @classmethod
    def of(cls, record: Mapping[str, Any], family: Evaluated | None = None) -> RunningJob:
        """The job of a Search (or Describe) record of `family` (None: a training job's); members that are missing
        or malformed are left empty. Families without SecondaryStatus phases (processing, transform, tuning) have
        their status as their phase (InProgress), and their clock starts when they started (their members' start:
        ProcessingStartTime, TransformStartTime; a tuning job's CreationTime): judged while InProgress after they
        started."""
        tags = _tags(record)
        if family is not None and Offer.TRAINING_PHASES not in family.offers:
            return _other(record, family, tags)
        algorithm = mapping_at(record, "AlgorithmSpecification")
        definitions = list_at(algorithm, "MetricDefinitions")
        metrics = tuple(d["Name"] for d in definitions if isinstance(d, Mapping) and isinstance(d.get("Name"), str))
        secondary = str(record.get("SecondaryStatus", ""))
        transitions = _transitions(record)
        started = clock(transitions, TRAINING_PHASES)
        if started is None and secondary == TRAINING_PHASE:  # no transitions: the job's own start of training
            started = _epoch(record.get("TrainingStartTime"))
        return cls(name=str(record.get("TrainingJobName", "")), arn=str(record.get("TrainingJobArn", "")),
                   status=str(record.get("TrainingJobStatus", "")), secondary=secondary, started=started,
                   hosts=_hosts(record), metrics=metrics, tags=tags, transitions=transitions,
                   billed_from=_epoch(record.get("TrainingStartTime")), parent=text_at(record, "TuningJobArn"))

    @property
    def started_at(self) -> int:
        """When its clock started (epoch seconds), for a rule judging it: its needs wait (Pending) until it has."""
        if self.started is None:
            raise ValueError(f"{self.name}: its clock has not started")
        return self.started

    def clocked(self, phases: Sequence[str]) -> RunningJob:
        """The job as a rule judging `phases` sees it: `started` is when its latest stretch of them began."""
        found = clock(self.transitions, phases)
        return self if found is None or found == self.started else self._replace(started=found)

    def phase_since(self) -> int | None:
        """When its current phase began (epoch seconds), if its transitions say."""
        last = self.transitions[-1] if self.transitions else None
        return last[1] if last and last[0] == self.secondary else None

    def host_of(self, stream: str) -> str:
        """The host a log stream belongs to: <job>/algo-<n>-<epoch> -> algo-<n> (training, processing); a transform
        job's <job>/<instance-id>-<epoch>[/data-log] -> <instance-id>."""
        rest = stream[len(self.name) + 1:] if stream.startswith(self.name + "/") else stream
        found = re.match(r"(algo-\d+)", rest)
        if found:
            return found.group(1)
        if self.instances_listed:
            return re.sub(r"-\d{10,13}$", "", rest.split("/")[0])
        return rest

    def latest_per_host(self, streams: Sequence[Span], into: Mapping[str, int] | None = None) -> dict[str, int]:
        """The latest log event (epoch ms) of each host in a heartbeat's `streams`, merged into `into`'s."""
        latest = dict(into or {})
        for found in streams:
            host = self.host_of(found.stream)
            latest[host] = max(found.last, latest.get(host, 0))
        return latest


def listed_hosts(job: RunningJob, record: Mapping[str, Any], found: Sequence[str], family: Evaluated) -> RunningJob:
    """A job whose metrics alone name its instances (a transform job), with them: the Host values
    `<job>/<instance-id>` ListMetrics found, each of the type its resources (its billing's path) name."""
    resources: Any = record
    for key in family.billing.resources if family.billing is not None else ():
        resources = mapping_at(resources, key)
    instance_type = text_at(resources, "InstanceType")
    gpus, vcpus = counts(instance_type)
    names = sorted(value[len(job.name) + 1:] for value in found if value.startswith(f"{job.name}/"))
    return job._replace(hosts=tuple(Host(name, instance_type, gpus, vcpus) for name in names if name))


def began(job: RunningJob) -> str:
    """What started when the job's clock did: training (a training job), the job (the others)."""
    return "training" if job.phased else "the job"


def _tags(record: Mapping[str, Any]) -> dict[str, str]:
    tags = record.get("Tags")
    if isinstance(tags, list):
        tags = {t.get("Key"): t.get("Value") for t in tags if isinstance(t, Mapping)}
    return {k: v for k, v in (tags or {}).items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(tags, Mapping) else {}


def _other(record: Mapping[str, Any], family: Evaluated, tags: dict[str, str]) -> RunningJob:
    """A job judged by its status (processing, transform, tuning): its status is its phase, its clock its start
    (its members'), its hosts those its description declares (where its billing finds its instances; none when only
    its metrics name them)."""
    m = family.members
    started = _epoch(record.get(m.started)) if m.started else None
    state = str(record.get(m.status, ""))
    hosts: tuple[Host, ...] = ()
    resources = family.billing.resources if family.billing is not None else ()
    if resources and not family.instances_listed:
        found: Any = record
        for key in resources:
            found = found.get(key) if isinstance(found, Mapping) else None
        hosts = _hosts({"ResourceConfig": found}) if isinstance(found, Mapping) else ()
    stopping = mapping_at(record, "StoppingCondition")
    runtime = stopping.get("MaxRuntimeInSeconds")
    objective = mapping_at(mapping_at(record, "HyperParameterTuningJobConfig"), "HyperParameterTuningJobObjective")
    return RunningJob(name=str(record.get(m.name, "")), arn=str(record.get(m.arn, "")), status=state,
                      secondary=state if started is not None else "", started=started, hosts=hosts, metrics=(),
                      tags=tags, transitions=((state, started),) if started is not None else (), family=family.name,
                      namespace=family.metric_namespace, noun=family.noun, phased=False,
                      instances_listed=family.instances_listed,
                      max_runtime=runtime if isinstance(runtime, int) and not isinstance(runtime, bool) else None,
                      objective=str(objective.get("Type", "")))


def _epoch(value: Any) -> int | None:
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value / 1000 if value > 10**11 else value)  # epoch ms, as events carry them
    if isinstance(value, str) and value.isdigit():
        return _epoch(int(value))
    return None


def _transitions(record: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """SecondaryStatusTransitions as (status, start), in order; malformed entries are left out."""
    found = record.get("SecondaryStatusTransitions")
    pairs = [(t.get("Status"), _epoch(t.get("StartTime"))) for t in found if isinstance(t, Mapping)] \
        if isinstance(found, list) else []
    return tuple((status, start) for status, start in pairs if isinstance(status, str) and start is not None)


def clock(transitions: Sequence[tuple[str, int]], phases: Sequence[str]) -> int | None:
    """When the latest stretch of `phases` began: a rule's clock. A stretch ends with any other phase (Uploading, a
    cluster repair's Restarting, a spot interruption and the start-up after it), so the clock starts again when
    training does. None: never in those phases."""
    start = latest = None
    for status, at in transitions:
        if status in phases:
            start = at if start is None else start
            latest = start
        else:
            start = None
    return latest



def _hosts(record: Mapping[str, Any]) -> tuple[Host, ...]:
    """algo-1 ... algo-N: the instances of ResourceConfig (or of its instance groups, in order)."""
    resources = mapping_at(record, "ResourceConfig")
    groups = list_at(resources, "InstanceGroups")
    kinds = [(g.get("InstanceType"), g.get("InstanceCount")) for g in groups if isinstance(g, Mapping)] or \
        [(resources.get("InstanceType"), resources.get("InstanceCount"))]
    hosts: list[Host] = []
    for instance_type, count in kinds:
        if not isinstance(instance_type, str) or not isinstance(count, int) or isinstance(count, bool):
            continue
        gpus, vcpus = counts(instance_type)
        for _ in range(min(count, 1000)):
            hosts.append(Host(f"algo-{len(hosts) + 1}", instance_type, gpus, vcpus))
    return tuple(hosts)


def ago(seconds: float) -> str:
    """A duration as people read it: 34 min, 2 h 05 min."""
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
