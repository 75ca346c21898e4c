"""What a monitor rule is: a rule evaluated by rule-actions itself, on a schedule, from what SageMaker publishes for
every training job without Debugger (instance metrics and the user's MetricDefinitions in CloudWatch, the job's log
streams). One module per rule (monitors/<rule>.py), listed in rule_actions/registry.py.

    name, params, summary   the rule's name (as `rules` and the tags name it), its parameters, one line about it
    phases                  the phases (SecondaryStatus) it judges (Training, and Updating, during which training goes
                            on): in any other a job is NotJudged, never acted on, and the rule's clock
                            (`Job.started`) starts again when such a phase does
    needs                   what it must read for one running job: metric series, a log window (or why it cannot be
                            computed for this job: Skipped; or why not yet: Pending)
    judge                   pure: the job, its parameters, the time and what was read -> Finding | Clear | Pending |
                            Skipped, each with a reason a person can act on; or Needs of some streams' windows to
                            read before it can decide (StalledTraining: a silent host's own rhythm)

Also here, shared by the rules and the evaluation: the running job as the rules see it (`Job`, from SageMaker's
Search record), the parameters (`Param`) and how a configuration or a tag sets them, the job's tags (`rules_of`),
the rules that cannot be computed without Debugger (`REFUSED`), percentiles and the series helpers, and how the
configuration block reads (`read_settings`, `settings_schema`: the registry assembles the field from them and the
rules' parameters, and imports this package only when a configuration sets the block).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, NamedTuple

from rule_actions.contract import (
    ACT,
    MODE_KEY,
    PHASES,
    STARTUP_PHASES,
    TRAINING_PHASE,
    TRAINING_PHASES,
    WATCH,
    Arn,
    Grant,
)
from rule_actions.fields import anchored
from rule_actions.monitors.instances import counts
from rule_actions.records import Heartbeat, MetricQuery, Span, Trial, Unread
from rule_actions.text import quoted, unknown

NAMESPACE = "/aws/sagemaker/TrainingJobs"  # instance metrics (dimension Host) and the user's (TrainingJobName)
# The other families' instance metrics (dimension Host: <job>/algo-<n> for processing, <job>/<instance-id> for
# transform) and log groups: docs/triggers.md, "Monitor rules of other job families", with their sources.
NAMESPACES = {"training": NAMESPACE, "processing": "/aws/sagemaker/ProcessingJobs",
              "transform": "/aws/sagemaker/TransformJobs", "tuning": NAMESPACE}
TRAINING = "training"
TRIALS = 100  # a tuning job's latest trials its rules read per run (ListTrainingJobsForHyperParameterTuningJob's largest page)
JUDGED = "InProgress"  # the status other families are judged in, once they started (they have no SecondaryStatus)
FAMILY_NOUNS = {"training": "training job", "processing": "processing job", "transform": "transform job",
                "tuning": "hyperparameter tuning job"}
ISSUES_FOUND = "IssuesFound"
# How long before `now` a series' latest datapoint may be and still end its window (CloudWatch publishes SageMaker's
# metrics a few minutes late); a window's series must hold at least COVERAGE of its minutes.
STALE_AFTER = 6 * 60
COVERAGE = 0.8
LOOKBACK_MAX = 200  # minutes: a GetMetricData call of 500 series x 200 one-minute periods stays under 100,800 points

# Tags: one per rule (its actions, in the tag form of the action grammar), one per rule's parameters, the opt-out.
TAG_PREFIX = "rule-actions:"
PARAMETERS_SUFFIX = ":parameters"
OPT_OUT = "opt-out"
TAG_VALUE_MAX = 256  # SageMaker's limit on a tag value
TAG_KEY_MAX = 128  # and on a tag key
# SageMaker's tag value characters: letters, separators, digits and _ . : / = + - @ (no quotes, brackets or commas:
# a tag cannot hold JSON, so the actions are written `stoptraining email=a@example.com`).
TAG_VALUE_RE = re.compile(r"[\w .:/=+\-@]*")
NAME_RE = re.compile(r"[^\s=]{1,255}")  # a metric name in a parameter (MetricDefinitions' Name, no spaces)

REFUSED = {
    **dict.fromkeys(("AllZero", "CheckInputImages", "ClassImbalance", "Confusion", "DeadRelu", "ExplodingTensor",
                     "FeatureImportanceOverweight", "NLPSequenceRatio", "PoorWeightInitialization",
                     "SaturatedActivation", "SimilarAcrossRuns", "TensorVariance", "TreeDepth", "UnchangedTensor",
                     "VanishingGradient", "WeightUpdateRatio"),
                    "it inspects the model's tensors, which only Debugger's hook saves"),
    "IOBottleneck": "it needs I/O wait per step from Debugger's profiler; CloudWatch's DiskUtilization is disk space, "
                    "not I/O",
    "LoadBalancing": "it compares the GPUs of one instance, and SageMaker publishes one GPUUtilization per instance "
                     "(summed over its GPUs), no series per GPU",
    "Dataloader": "it counts the data loader's worker processes, which only Debugger's profiler sees",
    "StepOutlier": "it needs each step's duration, which only Debugger's hook records (publish the step time as a "
                   "metric in MetricDefinitions and watch it with StalledTraining's `metric`)",
    "ProfilerReport": "it is a report of Debugger's profiler, not a condition",
    "OverallSystemUsage": "it is a report (percentiles per host), not a condition",
    "CreateXgboostReport": "it is a report of Debugger's XGBoost hook, not a condition",
    "StalledTrainingRule": "it is called StalledTraining here",
}


# ---------------------------------------------------------------- verdicts


class Finding(NamedTuple):
    """The rule holds: an IssuesFound status of the Monitor family, with a reason a person can act on."""

    reason: str


class Clear(NamedTuple):
    """The rule does not hold (NoIssuesFound)."""

    reason: str = ""


class Pending(NamedTuple):
    """Not judged in this run: not enough data yet, or what was read is incomplete (the next run tries again)."""

    reason: str


class Skipped(NamedTuple):
    """The rule cannot be computed for this job (a metric it needs is missing, an instance type without GPUs): a
    problem on the job's row, naming what is missing."""

    reason: str


class NotJudged(NamedTuple):
    """The job is in a phase the rule does not judge (uploading its artifacts, waiting for spot capacity, a cluster
    repair), or it opted out: nothing is read and it is never acted on; the reason says which."""

    reason: str


Verdict = Finding | Clear | Pending | Skipped | NotJudged
NOT_STARTED = Pending("training has not started (no SecondaryStatus Training yet)")


# ---------------------------------------------------------------- the running job


class Host(NamedTuple):
    name: str  # algo-1
    instance_type: str
    gpus: int | None  # None: not in the instance table
    vcpus: int | None


class Job(NamedTuple):
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
    family: str = TRAINING  # its job family: training | processing | transform | tuning
    namespace: str = NAMESPACE  # where its instance metrics are (per family)
    max_runtime: int | None = None  # StoppingCondition.MaxRuntimeInSeconds, when it declares one
    objective: str = ""  # a tuning job's objective type: Minimize | Maximize ("" unknown)

    @classmethod
    def of(cls, record: Mapping[str, Any], family: str = TRAINING) -> Job:
        """The job of a Search (or Describe) record of `family`; members that are missing or malformed are left
        empty. Families without a SecondaryStatus (processing, transform, tuning) have their status as their phase
        (InProgress), and their clock starts when they started (ProcessingStartTime, TransformStartTime; a tuning
        job's CreationTime): judged while InProgress after they started."""
        tags = _tags(record)
        if family != TRAINING:
            return _other(record, family, tags)
        algorithm = record.get("AlgorithmSpecification") if isinstance(record.get("AlgorithmSpecification"), Mapping) else {}
        definitions = algorithm.get("MetricDefinitions") if isinstance(algorithm.get("MetricDefinitions"), list) else []
        metrics = tuple(d["Name"] for d in definitions if isinstance(d, Mapping) and isinstance(d.get("Name"), str))
        secondary = str(record.get("SecondaryStatus", ""))
        transitions = _transitions(record)
        started = clock(transitions, TRAINING_PHASES)
        if started is None and secondary == TRAINING_PHASE:  # no transitions: the job's own start of training
            started = _epoch(record.get("TrainingStartTime"))
        return cls(name=str(record.get("TrainingJobName", "")), arn=str(record.get("TrainingJobArn", "")),
                   status=str(record.get("TrainingJobStatus", "")), secondary=secondary, started=started,
                   hosts=_hosts(record), metrics=metrics, tags=tags, transitions=transitions)

    def clocked(self, phases: Sequence[str]) -> Job:
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
        if self.family == "transform":
            return re.sub(r"-\d{10,13}$", "", rest.split("/")[0])
        return rest

    def latest_per_host(self, streams: Sequence[Span], into: Mapping[str, int] | None = None) -> dict[str, int]:
        """The latest log event (epoch ms) of each host in a heartbeat's `streams`, merged into `into`'s."""
        latest = dict(into or {})
        for found in streams:
            host = self.host_of(found.stream)
            latest[host] = max(found.last, latest.get(host, 0))
        return latest


def transform_hosts(job: Job, record: Mapping[str, Any], found: Sequence[str]) -> Job:
    """A transform job with its instances: the Host values `<job>/<instance-id>` ListMetrics found, each of the type
    its TransformResources names."""
    resources = record.get("TransformResources") if isinstance(record.get("TransformResources"), Mapping) else {}
    instance_type = resources.get("InstanceType") if isinstance(resources.get("InstanceType"), str) else ""
    gpus, vcpus = counts(instance_type)
    names = sorted(value[len(job.name) + 1:] for value in found if value.startswith(f"{job.name}/"))
    return job._replace(hosts=tuple(Host(name, instance_type, gpus, vcpus) for name in names if name))


def began(job: Job) -> str:
    """What started when the job's clock did: training (a training job), the job (the others)."""
    return "training" if job.family == TRAINING else "the job"


def _tags(record: Mapping[str, Any]) -> dict[str, str]:
    tags = record.get("Tags")
    if isinstance(tags, list):
        tags = {t.get("Key"): t.get("Value") for t in tags if isinstance(t, Mapping)}
    return {k: v for k, v in (tags or {}).items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(tags, Mapping) else {}


# Each other family's members: name, ARN, status, start, and where its instances are declared.
_MEMBERS = {
    "processing": ("ProcessingJobName", "ProcessingJobArn", "ProcessingJobStatus", "ProcessingStartTime"),
    "transform": ("TransformJobName", "TransformJobArn", "TransformJobStatus", "TransformStartTime"),
    "tuning": ("HyperParameterTuningJobName", "HyperParameterTuningJobArn", "HyperParameterTuningJobStatus",
               "CreationTime"),
}


def _other(record: Mapping[str, Any], family: str, tags: dict[str, str]) -> Job:
    """A processing, transform or tuning job: its status is its phase, its clock its start."""
    name, arn, status, start = _MEMBERS[family]
    started = _epoch(record.get(start))
    state = str(record.get(status, ""))
    hosts: tuple[Host, ...] = ()
    if family == "processing":
        cluster = record.get("ProcessingResources", {}).get("ClusterConfig") \
            if isinstance(record.get("ProcessingResources"), Mapping) else None
        hosts = _hosts({"ResourceConfig": cluster}) if isinstance(cluster, Mapping) else ()
    stopping = record.get("StoppingCondition") if isinstance(record.get("StoppingCondition"), Mapping) else {}
    runtime = stopping.get("MaxRuntimeInSeconds")
    config = record.get("HyperParameterTuningJobConfig") \
        if isinstance(record.get("HyperParameterTuningJobConfig"), Mapping) else {}
    objective = config.get("HyperParameterTuningJobObjective") \
        if isinstance(config.get("HyperParameterTuningJobObjective"), Mapping) else {}
    return Job(name=str(record.get(name, "")), arn=str(record.get(arn, "")), status=state,
               secondary=state if started is not None else "", started=started, hosts=hosts, metrics=(), tags=tags,
               transitions=((state, started),) if started is not None else (), family=family,
               namespace=NAMESPACES[family],
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


def in_phase(job: Job, rule: Monitor, now: int) -> Pending | NotJudged | None:
    """None when `rule` judges the job's phase. Before training (re)starts, not yet (Pending); in any other phase
    (Uploading, Restarting, Interrupted...), NotJudged, saying which and for how long."""
    if job.family != TRAINING:
        noun = FAMILY_NOUNS.get(job.family, f"{job.family} job")
        if job.status in rule.phases and job.started is not None:
            return None
        if job.started is None:
            return Pending(f"the {noun} has not started yet (no start time)")
        return NotJudged(f"the {noun} is {job.status or 'in an unknown status'}: not judged ({rule.name} judges "
                         f"{' and '.join(rule.phases)} only)")
    if job.secondary in rule.phases:
        return None
    words = PHASES.get(job.secondary, f"in phase {quoted(job.secondary or 'unknown')}")
    since = job.phase_since()
    if since is not None and now >= since:
        words += f" for {ago(now - since)}" if now - since >= 60 else " for less than a minute"
    if job.secondary in STARTUP_PHASES:
        return Pending(f"training has not {'re' if job.started else ''}started yet ({words})")
    return NotJudged(f"{words}: not judged ({rule.name} judges {' and '.join(rule.phases)} only)")


def _hosts(record: Mapping[str, Any]) -> tuple[Host, ...]:
    """algo-1 ... algo-N: the instances of ResourceConfig (or of its instance groups, in order)."""
    resources = record.get("ResourceConfig") if isinstance(record.get("ResourceConfig"), Mapping) else {}
    groups = resources.get("InstanceGroups") if isinstance(resources.get("InstanceGroups"), list) else []
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


# ---------------------------------------------------------------- parameters


class Param(NamedTuple):
    """A rule parameter: a number from `low` to `high` in `unit` (whole when `whole`), a metric name (`text`), or
    one of `choices`."""

    key: str
    default: Any
    doc: str
    low: float = 0
    high: float = 0
    unit: str = ""
    whole: bool = False
    text: bool = False
    choices: tuple[str, ...] = ()

    def read(self, value: Any, from_tag: bool = False) -> tuple[Any, str | None]:
        """(the value, or None and why it is refused); a tag gives every value as text."""
        if self.choices:
            if isinstance(value, str) and value in self.choices:
                return value, None
            return None, f"{quoted(value)} is not one of {', '.join(self.choices)}"
        if self.text:
            if isinstance(value, str) and (value == "" or NAME_RE.fullmatch(value)):
                return value, None
            return None, f"{quoted(value)} is not a metric name (up to 255 characters, no spaces or '=')"
        number = value
        if isinstance(value, str) and from_tag:
            try:
                number = float(value)
            except ValueError:
                number = None
        # (an int is compared as it is: one too large for a float must be refused, not raise OverflowError)
        if isinstance(number, bool) or not isinstance(number, (int, float)) \
                or (isinstance(number, float) and not math.isfinite(number)) or not self.low <= number <= self.high or (self.whole and number != int(number)):
            kind = "a whole number" if self.whole else "a number"
            return None, f"{quoted(value)} is not {kind} from {_num(self.low)} to {_num(self.high)}{_unit(self.unit)}"
        return (int(number) if self.whole else float(number)), None

    def schema(self) -> dict[str, Any]:
        if self.choices:
            return {"type": "string", "enum": list(self.choices), "description": self.doc, "default": self.default}
        if self.text:
            return {"type": "string", "anyOf": [{"maxLength": 0}, {"pattern": anchored(NAME_RE.pattern)}],
                    "description": self.doc, "default": self.default}
        return {"type": "integer" if self.whole else "number", "minimum": self.low, "maximum": self.high,
                "description": f"{self.doc} ({_num(self.default)}{_unit(self.unit)} by default)",
                "default": self.default}


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _unit(unit: str) -> str:
    return "" if not unit else ("%" if unit == "%" else f" {unit}")


# Shared by the rules over instance metrics: Debugger's window and patience count 500 ms samples; converted to time.
WINDOW = Param("window", 30, "Minutes of one-minute datapoints judged per host (Debugger: 500 samples of 500 ms, "
               "about 4 min, too few one-minute points for a p5)", 5, 180, "min", whole=True)
PATIENCE = Param("patience", 9, "Minutes skipped after training starts (Debugger: 1000 samples of 500 ms, 8 min 20 s)",
                 0, 120, "min", whole=True)


# Every rule has a mode. Its default depends on who turned the rule on (rules_of): watch for a rule the configuration
# turns on for every job, act for one a job's own tag attaches; a mode set in a tag or the configuration wins.
MODE = Param(MODE_KEY, WATCH, "act: the rule's stops stop the job; watch: each stop is reported as \"would stop "
             "<job>\" and nothing is stopped (the rule's messages go out). Default: watch for a rule this block turns "
             "on for every job; act for a rule a job's own tag attaches (rule-actions:<Rule>), unless a mode is set "
             f"here. A job's parameters tag ({MODE_KEY}={ACT} or {MODE_KEY}={WATCH}) wins over both",
             choices=(ACT, WATCH))


def params_of(rule: Monitor) -> tuple[Param, ...]:
    """The rule's parameters: its own, then those every rule has (its mode)."""
    return (*rule.params, MODE)


def parameters(rule: Monitor, given: Mapping[str, Any], where: str, base: Mapping[str, Any] | None = None,
               from_tag: bool = False) -> tuple[dict[str, Any], list[str]]:
    """The rule's parameters: `base` (its defaults when None), overridden by `given` (each checked; errors name
    `where` and the key)."""
    values = dict(base) if base is not None else {p.key: p.default for p in params_of(rule)}
    known = {p.key: p for p in params_of(rule)}
    errors = []
    for key, value in given.items():
        param = known.get(key)
        if param is None:
            errors.append(f"{where}.{key}: {unknown(key, known, f'parameter of {rule.name}', 'docs/triggers.md')}")
            continue
        read, problem = param.read(value, from_tag)
        if problem:
            errors.append(f"{where}.{key}: {problem}")
        else:
            values[key] = read
    return values, errors


# ---------------------------------------------------------------- what a rule is


class Needs(NamedTuple):
    """What a rule reads for one job: metric series from `start` (epoch seconds) to now, and a log window
    (epoch ms) of the job's streams, or None. A rule's `judge` may also return Needs of `streams` only: windows of
    some of the job's streams to read before it can decide (stream name prefix, start ms, end ms), read in the same
    run, after which it judges again with them in `Data.streams`."""

    queries: tuple[MetricQuery, ...] = ()
    start: int = 0
    logs: tuple[int, int] | None = None
    streams: tuple[tuple[str, int, int], ...] = ()
    trials: int = 0  # a tuning job's latest trials to read (0: none)


class Data(NamedTuple):
    """What was read for one job: each series' datapoints ((epoch seconds, value), oldest first), and its log window
    (a Heartbeat; an Unread when the query failed or the run had no time left; None when not asked); the stream
    windows its judge asked for (prefix -> Heartbeat)."""

    series: Mapping[MetricQuery, tuple[tuple[int, float], ...]]
    heartbeat: Heartbeat | Unread | None = None
    streams: Mapping[str, Heartbeat] = {}
    trials: tuple[Trial, ...] = ()  # a tuning job's latest trials, newest first (when its rule asked)

    def points(self, query: MetricQuery) -> tuple[tuple[int, float], ...]:
        return self.series.get(query, ())


class Monitor:
    name: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    summary: ClassVar[str] = ""
    logs: ClassVar[bool] = False  # it may read the job's log streams (the stack grants FilterLogEvents)
    metrics: ClassVar[bool] = True  # it may read CloudWatch metrics (the stack grants GetMetricData)
    trials: ClassVar[bool] = False  # it reads a tuning job's trials (ListTrainingJobsForHyperParameterTuningJob)
    # It judges a transform job's instances, which no API names: the evaluation finds them by ListMetrics (the Host
    # dimension values <job>/<instance-id> of CPUUtilization in /aws/sagemaker/TransformJobs; the stack grants it).
    instances: ClassVar[bool] = False
    # The phases (SecondaryStatus) it judges: in any other the job is never acted on by it, and its clock (the job's
    # `started`) starts again when one of them does.
    phases: ClassVar[tuple[str, ...]] = TRAINING_PHASES
    # The job families it judges (training, processing, transform, tuning): a configuration's rule applies to the
    # jobs of these families only, and the stack evaluates (and grants the reads of) each family a rule judges.
    families: ClassVar[tuple[str, ...]] = (TRAINING,)

    def needs(self, job: Job, p: Mapping[str, Any], now: int) -> Needs | Pending | Skipped:
        raise NotImplementedError

    def judge(self, job: Job, p: Mapping[str, Any], now: int, data: Data) -> Verdict | Needs:
        raise NotImplementedError


# ---------------------------------------------------------------- series helpers


def host_query(job: Job, host: Host, metric: str) -> MetricQuery:
    return MetricQuery(job.namespace, metric, (("Host", f"{job.name}/{host.name}"),))


def job_query(job: Job, metric: str) -> MetricQuery:
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


class Series(NamedTuple):
    """One metric of every host of a job, each host's window: `values` per host (raw, as CloudWatch has them), the
    hosts still waiting for data (`waiting`: why), and those with no datapoint at all (`missing`)."""

    values: dict[Host, list[float]]
    waiting: list[str]
    missing: list[str]


def per_host(job: Job, p: Mapping[str, Any], data: Data, metric: str, now: int, minutes: int | None = None) -> Series:
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
    return Series(values, waiting, missing)


def settle_all(found: list[str], each: Mapping[str, Series], job: Job, rule: str) -> Verdict:
    """`settle` for a rule over several metrics: judged on the first metric a host still lacks or waits for."""
    metric = next((m for m, series in each.items() if series.missing or series.waiting), next(iter(each)))
    return settle(found, each[metric], metric, job, rule)


def settle(found: list[str], series: Series, metric: str, job: Job, rule: str) -> Verdict:
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


def ago(seconds: float) -> str:
    """A duration as people read it: 34 min, 2 h 05 min."""
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def pct(value: float) -> str:
    return f"{value:.0f}%"


def gpu_hosts(job: Job, rule: str, metric: str = "GPUUtilization") -> tuple[Host, ...] | Skipped:
    """The job's hosts, each with a known GPU count; Skipped naming the instance type otherwise."""
    if not job.hosts:
        return Skipped(f"{rule} needs {metric} per host: the job's ResourceConfig names no instance type and count")
    for host in job.hosts:
        if host.gpus is None:
            return Skipped(f"{rule} needs the GPU count of {host.instance_type}, which is not in the instance table")
        if host.gpus == 0:
            return Skipped(f"{rule} needs {metric}: {host.instance_type} has no GPU")
    return job.hosts


def host_needs(job: Job, rule: str, metrics: Sequence[str], patience: int, minutes: int, now: int,
               vcpus: bool = False) -> Needs | Pending | Skipped:
    """What a rule over instance metrics reads: `metrics` of every host over its last `minutes` (after the warm-up);
    Skipped when a host's GPU count (or vCPU count, with `vcpus`) is not known or zero."""
    hosts = gpu_hosts(job, rule, " and ".join(m for m in metrics if m.startswith("GPU")))
    if isinstance(hosts, Skipped):
        return hosts
    unknown = [h.instance_type for h in hosts if vcpus and not h.vcpus]
    if unknown:
        return Skipped(f"{rule} needs the vCPU count of {unknown[0]}, which is not in the instance table")
    return warmed_up(job, now, patience, minutes) or Needs(
        tuple(host_query(job, host, m) for host in hosts for m in metrics), now - minutes * 60 - STALE_AFTER)


def warmed_up(job: Job, now: int, patience: float, minutes: float) -> Pending | None:
    """Pending while training has not run `patience` + `minutes` minutes (the warm-up, then a full window)."""
    if job.started is None:
        return NOT_STARTED
    if now - job.started < (patience + minutes) * 60:
        return Pending(f"{began(job)} started {ago(now - job.started)} ago: the rule waits {_num(patience)} min, then "
                       f"judges {_num(minutes)}-min windows")
    return None


def user_metric(job: Job, name: str, pattern: str, rule: str, param: str) -> str | Skipped:
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


def loss_pair(job: Job, p: Mapping[str, Any], rule: str) -> tuple[str, str] | Skipped:
    """The job's training and validation loss metrics (the parameters', else found by name)."""
    train = user_metric(job, p["training_metric"], TRAIN_LOSS, rule, "training_metric")
    if isinstance(train, Skipped):
        return train
    validation = user_metric(job, p["validation_metric"], VALIDATION_LOSS, rule, "validation_metric")
    return validation if isinstance(validation, Skipped) else (train, validation)


def loss_needs(job: Job, p: Mapping[str, Any], rule: str, now: int) -> Needs | Pending | Skipped:
    """What a rule over the training and validation losses reads: both series over its `window`."""
    metrics = loss_pair(job, p, rule)
    if isinstance(metrics, Skipped):
        return metrics
    if job.started is None:
        return NOT_STARTED
    return Needs(tuple(job_query(job, m) for m in metrics), now - p["window"] * 60)


# ---------------------------------------------------------------- which rules a job gets


class Applied(NamedTuple):
    """A rule for one job: its parameters (its mode resolved among them) and, when a tag attaches it, the tag's
    actions (the action grammar's tag form, or None: the configuration's `rules` alone)."""

    rule: Monitor
    params: Mapping[str, Any]
    actions: str | None
    source: str  # "tag" | "config"


class Settings(NamedTuple):
    """The `monitor` block: stack-wide rules and their parameters, the schedule, per-job tags, shards, regions."""

    rules: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    every_minutes: int = 5
    job_tags: bool = True
    shards: int = 1
    regions: tuple[str, ...] = ()
    families: tuple[str, ...] = ()  # other families evaluated for the rules their jobs' tags attach


EVERY_MINUTES = (1, 60)
SHARDS = (1, 20)
REGION_RE = re.compile(r"[a-z]{2,4}(-[a-z]+)+-\d{1,2}", re.ASCII)
KEYS = ("rules", "every_minutes", "job_tags", "shards", "regions", "families")
OTHER_FAMILIES = ("processing", "transform", "tuning")


def refusal(name: str) -> str:
    reason = REFUSED.get(name)
    return f"cannot be computed without Debugger: {reason}" if reason else "is not a rule rule-actions evaluates"


OPTED_OUT = f"opted out (tag {TAG_PREFIX}{OPT_OUT}=true): not judged by the stack-wide rules"


def is_opted_out(job: Job) -> bool:
    """The job's tag opts it out of the stack-wide rules (read whatever job_tags says)."""
    return job.tags.get(TAG_PREFIX + OPT_OUT, "").strip().lower() == "true"


def rules_of(job: Job, settings: Settings, monitors: Mapping[str, Monitor]) -> tuple[list[Applied], list[str]]:
    """The rules that apply to a job: the stack-wide ones (unless the job opts out), and those its tags attach
    (when job_tags); with their parameters (the configuration's, then the job's parameters tag) and their mode:
    the one set (the tag's over the configuration's), else act for a rule the job's tag attaches (its owner asked
    for it, even when the rule is stack-wide too) and watch for a rule only the configuration turns on. The opt-out
    tag is read whatever job_tags says: job_tags only stops tags from adding rules, actions or parameters. Every tag
    that cannot be used is a problem naming the tag and its value; the job's other rules go on."""
    problems: list[str] = []
    tags = {k: v for k, v in job.tags.items() if k.startswith(TAG_PREFIX)}
    opted_out = is_opted_out(job)
    if TAG_PREFIX + OPT_OUT in tags:
        value = tags.pop(TAG_PREFIX + OPT_OUT)
        if value.strip().lower() not in ("true", "false"):
            problems.append(f"tag {TAG_PREFIX}{OPT_OUT}: {quoted(value)} is not true or false (the stack-wide rules "
                            "apply)")
    if not settings.job_tags:
        tags = {}
    stack_wide = {} if opted_out else {name: dict(given) for name, given in settings.rules
                                       if job.family in monitors[name].families}
    tagged: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for key, value in sorted(tags.items()):
        name = key[len(TAG_PREFIX):]
        target = overrides if name.endswith(PARAMETERS_SUFFIX) else tagged
        name = name.removesuffix(PARAMETERS_SUFFIX)
        if name not in monitors:  # the key as SageMaker allows it, else quoted (it may hold any character)
            shown = key if len(key) <= TAG_KEY_MAX and TAG_VALUE_RE.fullmatch(key) else quoted(key)
            problems.append(f"tag {shown}: {quoted(name)} {refusal(name)}; the job's other rules go on")
            continue
        if job.family not in monitors[name].families:
            nouns = " and ".join(f"{FAMILY_NOUNS[f]}s" for f in monitors[name].families)
            problems.append(f"tag {key}: {name} judges {nouns} only, not a {FAMILY_NOUNS.get(job.family, job.family)}"
                            "; the job's other rules go on")
            continue
        if len(value) > TAG_VALUE_MAX or not TAG_VALUE_RE.fullmatch(value):
            problems.append(f"tag {key}: {quoted(value)} is not a tag value (at most {TAG_VALUE_MAX} letters, digits, "
                            "spaces and _ . : / = + - @)")
            continue
        target[name] = value
    applied = []
    for name in dict.fromkeys([*stack_wide, *tagged]):
        rule = monitors[name]
        configured, given = stack_wide.get(name, {}), {}
        params, errors = parameters(rule, configured, f"monitor.rules[{json.dumps(name)}]")
        if name in overrides:
            given, malformed = _pairs(overrides[name])
            where = f"tag {TAG_PREFIX}{name}{PARAMETERS_SUFFIX}"
            errors += [f"{where}: {quoted(item)} is not key=value" for item in malformed]
            params, more = parameters(rule, given, where, base=params, from_tag=True)
            errors += more
        if errors:
            problems += [f"{error}; {name} is not evaluated for this job" for error in errors]
            continue
        if MODE.key not in configured and MODE.key not in given:  # no mode set: who turned the rule on decides
            params[MODE.key] = ACT if name in tagged else WATCH  # the job's own tag asked for it: it acts
        applied.append(Applied(rule, params, tagged.get(name), "tag" if name in tagged else "config"))
    for name in overrides:
        if name not in stack_wide and name not in tagged:
            problems.append(f"tag {TAG_PREFIX}{name}{PARAMETERS_SUFFIX}: sets parameters of {name}, which no "
                            f"configuration or tag {TAG_PREFIX}{name} applies to this job")
    return applied, problems


def _pairs(text: str) -> tuple[dict[str, str], list[str]]:
    found, malformed = {}, []
    for item in text.split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            malformed.append(item)
        else:
            found[key] = value
    return found, malformed


# ---------------------------------------------------------------- the configuration block


def read_settings(value: Any, where: str, errors: list[str], monitors: Mapping[str, Monitor]) -> Settings | None:
    """The `monitor` block: null (no evaluation), or the block checked (each error names its field and value)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be null (no evaluation) or an object with the keys "
                      f"{', '.join(KEYS)}")
        return None
    found = [f"{where}.{key}: {unknown(key, KEYS)}" for key in value if key not in KEYS]
    rules = _read_rules(value.get("rules", {}), f"{where}.rules", monitors, found)
    every = _whole(value.get("every_minutes", 5), f"{where}.every_minutes", EVERY_MINUTES, "minutes", found)
    shards = _whole(value.get("shards", 1), f"{where}.shards", SHARDS, "shards", found)
    job_tags = value.get("job_tags", True)
    if not isinstance(job_tags, bool):
        found.append(f"{where}.job_tags: {quoted(job_tags)} is not true or false")
    regions = value.get("regions", [])
    if not isinstance(regions, list) or not all(isinstance(r, str) and REGION_RE.fullmatch(r) for r in regions):
        found.append(f"{where}.regions: {quoted(regions)} is not a list of AWS region names (us-east-1)")
        regions = []
    families = value.get("families", [])
    if not isinstance(families, list) or not all(isinstance(f, str) and f in OTHER_FAMILIES for f in families):
        found.append(f"{where}.families: {quoted(families)} is not a list of job families from "
                     f"{', '.join(OTHER_FAMILIES)}")
        families = []
    errors += found
    if found:
        return None
    return Settings(rules, every, job_tags, shards, tuple(dict.fromkeys(regions)), tuple(dict.fromkeys(families)))


def evaluated_families(settings: Settings, monitors: Mapping[str, Monitor]) -> tuple[str, ...]:
    """The job families an evaluation lists: training (as ever), each family a configured rule judges, and those
    `families` names for the rules its jobs' tags attach; in that order."""
    judged = [f for name, _ in settings.rules for f in monitors[name].families]
    return tuple(dict.fromkeys([TRAINING, *judged, *settings.families]))


def write_settings(settings: Settings | None) -> Any:
    if settings is None:
        return None
    written = {"rules": {name: dict(params) for name, params in settings.rules},
               "every_minutes": settings.every_minutes, "job_tags": settings.job_tags, "shards": settings.shards,
               "regions": list(settings.regions)}
    return {**written, "families": list(settings.families)} if settings.families else written


def settings_schema(monitors: Mapping[str, Monitor]) -> dict[str, Any]:
    """The block's JSON Schema, the rules' parameters with their ranges."""
    rule_schemas = {name: {"type": "object", "additionalProperties": False, "description": rule.summary,
                           "properties": {p.key: p.schema() for p in params_of(rule)}}
                    for name, rule in monitors.items()}
    return {
        "type": ["object", "null"], "additionalProperties": False,
        "properties": {
            "rules": {"type": "object", "additionalProperties": False, "properties": rule_schemas, "default": {},
                      "description": "Rule name -> its parameters ({} for the defaults): evaluated on every running "
                                     "job in scope (but those tagged rule-actions:opt-out=true)."},
            "every_minutes": {"type": "integer", "minimum": EVERY_MINUTES[0], "maximum": EVERY_MINUTES[1],
                              "description": "How often the evaluation runs (5 by default).", "default": 5},
            "job_tags": {"type": "boolean", "description": "Also evaluate the rules a job's tags attach "
                                                           "(rule-actions:<Rule>), with their actions and "
                                                           "parameters (true). A job tagged rule-actions:opt-out="
                                                           "true is skipped by the stack-wide rules either way.",
                         "default": True},
            "shards": {"type": "integer", "minimum": SHARDS[0], "maximum": SHARDS[1],
                       "description": "Runs per schedule tick, each evaluating its share of the jobs (1).", "default": 1},
            "regions": {"type": "array", "items": {"type": "string", "pattern": anchored(REGION_RE.pattern)},
                        "description": "Organization mode: the regions evaluated in each member account (default: "
                                       "the central region).", "default": []},
            "families": {"type": "array", "items": {"type": "string", "enum": list(OTHER_FAMILIES)},
                         "description": "Other job families whose running jobs are evaluated for the rules their "
                                        "tags attach (rule-actions:<Rule>), besides training jobs and the families "
                                        "a rule in `rules` judges (none by default).", "default": []},
        },
    }


def _read_rules(value: Any, where: str, monitors: Mapping[str, Monitor],
                errors: list[str]) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object of rule name -> parameters")
        return ()
    found = []
    for name, given in value.items():
        path = f"{where}[{json.dumps(name)}]"
        if name not in monitors:
            errors.append(f"{path}: {quoted(name)} {refusal(name)}; rules: {', '.join(monitors)}")
            continue
        if not isinstance(given, Mapping):
            errors.append(f"{path}: {quoted(given)} must be an object of parameter -> value ({{}} for the defaults)")
            continue
        params, problems = parameters(monitors[name], given, path)
        errors += problems
        found.append((name, tuple((key, params[key]) for key in given if key in params)))
    return tuple(found)


def _whole(value: Any, where: str, bounds: tuple[int, int], unit: str, errors: list[str]) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and bounds[0] <= value <= bounds[1]:
        return value
    errors.append(f"{where}: {quoted(value)} is not a whole number of {unit} from {bounds[0]} to {bounds[1]}")
    return bounds[0]


def read_grants(log_group: str, logs: bool) -> list[Grant]:
    """What an evaluation reads besides the jobs: CloudWatch metrics, and the training jobs' log group."""
    grants = [Grant("ReadTrainingMetrics", ("cloudwatch:GetMetricData",), ("*",),
                    "cloudwatch:GetMetricData supports no resource-level permissions; IAM requires Resource \"*\" "
                    "for it (the only action in that statement).")]
    if logs:  # FilterLogEvents per job; one Logs Insights query (StartQuery) for many (effects/logs.py)
        grants.append(Grant("ReadTrainingLogs", ("logs:FilterLogEvents", "logs:StartQuery"),
                            (Arn("logs", "log-group", log_group, colon=True),
                             Arn("logs", "log-group", f"{log_group}:*", colon=True)),
                            "The training jobs' log group: its streams (<job>/algo-<n>-<epoch>) are named by "
                            "SageMaker at run time."))
        grants.append(Grant("ReadTrainingLogQueries", ("logs:GetQueryResults", "logs:StopQuery"), ("*",),
                            "logs:StopQuery supports no resource-level permissions, and logs:GetQueryResults none in "
                            "earlier versions of the Service Authorization Reference (the query's log group in the "
                            "current one): IAM requires Resource \"*\"; both act only on a query id StartQuery "
                            "returned, and the query itself is scoped to the log group."))
    return grants


def family_read_grants(family: Any, config: Any, configured: Sequence[Monitor], tagged: Sequence[Monitor],
                       first: bool) -> list[Grant]:
    """What an evaluation reads of one family's jobs besides listing and describing them, given the rules the
    configuration applies to them and those their tags may attach: for training (`first`) what it always read;
    for another family its instance metrics (the same GetMetricData statement), its log group when a rule reads
    logs, its jobs' tags (ListTags: processing and transform jobs are listed, Search would carry them), and a tuning
    job's trials."""
    rules = [*configured, *tagged]
    if first:
        return read_grants(family.log_group, any(rule.logs for rule in rules))
    grants: list[Grant] = []
    if any(rule.metrics for rule in rules):
        grants += read_grants(family.log_group, False)
    if any(rule.logs for rule in rules):  # per job, or one Logs Insights query for many, as for training
        label = family.label.split()[0]
        grants.append(Grant(f"Read{label}Logs", ("logs:FilterLogEvents", "logs:StartQuery"),
                            (Arn("logs", "log-group", family.log_group, colon=True),
                             Arn("logs", "log-group", f"{family.log_group}:*", colon=True)),
                            f"The {family.noun}s' log group: its streams (<job>/<host>-<epoch>) are named by "
                            "SageMaker at run time."))
        grants += [g for g in read_grants(family.log_group, True) if g.sid == "ReadTrainingLogQueries"]
    if not family.api.search:
        grants.append(Grant("ListTags" + "".join(w.capitalize() for w in f"{family.label}s".split()),
                            ("sagemaker:ListTags",),
                            family.resources(config),
                            f"The tags of the running {family.noun}s under the configured {family.scope.key} "
                            "(ListProcessingJobs and ListTransformJobs do not return them; Search does not support "
                            "these families), read once per job and execution environment."))
    if any(rule.instances for rule in rules) and family.name == "transform":
        grants.append(Grant("ListTransformJobInstances", ("cloudwatch:ListMetrics",), ("*",),
                            "cloudwatch:ListMetrics supports no resource-level permissions; IAM requires Resource "
                            "\"*\" for it (the only action in that statement): a transform job's instances are "
                            "named only by its metrics' Host dimension."))
    if any(rule.trials for rule in rules):
        grants.append(Grant("ListTuningJobTrials", ("sagemaker:ListTrainingJobsForHyperParameterTuningJob",),
                            family.resources(config),
                            "The trials of the running tuning jobs under the configured tuning_job_prefixes: one "
                            "call per tuning job and run, for the rules about a tuning job as a whole."))
    return grants


def check(settings: Settings | None, organization: Any, where: str) -> list[str]:
    """What the block asks of the rest of the configuration: organization mode evaluates the listed accounts (an
    organization id alone names none), and only organization mode evaluates other regions."""
    if settings is None:
        return []
    if organization is None:
        return [f"{where}.monitor.regions: only organization mode evaluates other regions (one account: the "
                "stack's own region); remove it"] if settings.regions else []
    if not organization.accounts:
        return [f"{where}.monitor: organization mode evaluates the jobs of organization.accounts, which lists none "
                "(an organization id alone names no account to evaluate)"]
    return []


def tags_for(rule: Monitor, actions: str | None, given: Mapping[str, Any]) -> list[dict[str, str]]:
    """The tags that attach `rule` to a training job: its actions in the tag form (None: the configuration's
    `rules` alone) and its parameters; ValueError naming what SageMaker or the evaluation would refuse."""
    params, errors = parameters(rule, given, f"{rule.name} parameters")
    if errors:
        raise ValueError("; ".join(errors))
    tags = [{"Key": f"{TAG_PREFIX}{rule.name}", "Value": actions or ""}]
    if given:
        tags.append({"Key": f"{TAG_PREFIX}{rule.name}{PARAMETERS_SUFFIX}",
                     "Value": " ".join(f"{key}={_num(params[key])}" for key in given)})
    for tag in tags:
        if len(tag["Value"]) > TAG_VALUE_MAX or not TAG_VALUE_RE.fullmatch(tag["Value"]):
            raise ValueError(f"tag {tag['Key']}: {quoted(tag['Value'])} is not a SageMaker tag value (at most "
                             f"{TAG_VALUE_MAX} letters, digits, spaces and _ . : / = + - @)")
    return tags


def opt_out_tags() -> list[dict[str, str]]:
    return [{"Key": TAG_PREFIX + OPT_OUT, "Value": "true"}]
