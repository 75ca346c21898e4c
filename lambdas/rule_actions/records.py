"""The typed records that flow through the core (the ground floor: it imports only contract and privacy).

    JobEvent          what a job family read from a state-change event (jobs/): the job, its status, times, tags
    Trigger           the base of the trigger records each trigger family defines (triggers/)
    Action / Invalid  an entry of the action grammar (grammar.py, kinds/), valid or not; Declared: where from
    Planned           one action for one trigger, with its fate once the plan decided it
    needs             what the plan asks the readers (readers/) before it can decide or word a message: Described,
                      InProgress, TeamAudience, StopRecord, Seen (the order the ledger saw), FailedTrials, FailedSteps; and what a scheduled evaluation
                      asks: RunningJobs, MetricData (MetricQuery series), LogHeartbeat (answered by a Heartbeat of Spans),
                      LogLatest (many jobs' streams at once: prefix -> Heartbeat), QueuedServiceJobs (a Batch queue's
                      jobs in one status, for a family's sweep); and what a job's cost needs (cost.py):
                      PriceList (one instance type's prices in one region), TrialRuns (a tuning job's trials); a read
                      that failed is an Unread with its reason
    EvaluationRequest, EvaluationRun  a scheduled evaluation's invocation, and one run of it in an account and region
    Swept             what a job family's sweep found on a scheduled run (the state changes it reads as events)
    Done / NothingDone  what carrying an action out gave: done (recorded), or nothing done (not recorded)
    Result            what became of a planned action; `as_dict()` is the public (redacted) form
    Message           what people read about a trigger; TriggerFacts: what payloads say of it
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, Protocol

from rule_actions.contract import PROGRESS, Outcome, OutcomeCondition
from rule_actions.privacy import redact, redact_target


class Place(StrEnum):
    """Where an action may be declared (each kind says where it may)."""

    ACTION_JSON = "action_json"  # a rule's action_json
    RULES = "rules"  # the configuration's rules (rule name or glob -> actions)
    JOB_OUTCOMES = "job_outcomes"  # the configuration's job outcomes (outcome -> actions)


ACTION_JSON = Place.ACTION_JSON  # also the kind of a planned action whose rule's list cannot be read at all


class IgnoredEvent(ValueError):
    """The invocation is nothing the function acts on (not an event of a job family, not a request it knows);
    retrying cannot help. `job` names the job when the event names one."""

    def __init__(self, reason: str, job: str | None = None):
        super().__init__(reason)
        self.job = job


class Origin(StrEnum):
    """Where a planned action was declared."""

    ACTION_JSON = "action_json"  # a rule's action_json: whoever started the job wrote it
    CONFIGURATION = "config"  # the stack's configuration
    TEST_REQUEST = "test"  # a test notification request


class _Value:
    """A value record: a plain class with slots (a fraction of a NamedTuple's cost to define at every cold start),
    equal only to one of its own type with the same fields, hashable, immutable by convention, its repr a
    dataclass's."""

    __slots__ = ()

    def _key(self) -> tuple[object, ...]:
        fields: tuple[str, ...] = self.__slots__
        return tuple(getattr(self, name) for name in fields)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._key()))

    def __repr__(self) -> str:
        fields: tuple[str, ...] = self.__slots__
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in fields)})"


class Action(_Value):
    """A valid action. `target` is the prefix (None: the job's own name), the endpoint, or None for notify."""

    __slots__ = ("kind", "target")

    def __init__(self, kind: str, target: str | None = None):
        self.kind, self.target = kind, target


class Invalid(_Value):
    """An entry that cannot run: `field` is the path of the offending field, `reason` says why; `kind` is the entry's
    kind when its name was understood."""

    __slots__ = ("field", "kind", "reason", "target")

    def __init__(self, field: str, reason: str, kind: str = ACTION_JSON, target: str = ""):
        self.field, self.reason, self.kind, self.target = field, reason, kind, target


class Declared(NamedTuple):
    """An action the configuration attaches: `where` is its field's path, `place` the block's place (rules...)."""

    where: str
    place: Place
    action: Action


class JobEffect(StrEnum):
    """What an action kind that acts on jobs does to them (kinds/base.py Kind.effect): what its results count as."""

    STOP = "stop"  # counted as a stop, with what it saved (its jobs: the jobs it stopped)
    RESTART = "restart"  # counted as a restart (its jobs: the copies it created)
    RELEASE = "release"  # what a job keeps after it ended is let go (a warm pool): counted as neither


class JobApi(NamedTuple):
    """How a job family's jobs are described, listed and stopped: SageMaker's operation names and members."""

    describe: str  # DescribeTrainingJob
    stop: str  # StopTrainingJob
    list: str  # ListTrainingJobs
    name: str  # TrainingJobName: the request member naming a job, and its name in a listing's summaries
    summaries: str  # TrainingJobSummaries
    search: str = ""  # TrainingJob: its Search resource (a listing with every member, tags included); "" none
    create: str = ""  # CreateTrainingJob: how a copy of a job is made (a restart); "" none
    update: str = ""  # UpdateTrainingJob: how a job's warm pool is released; "" none


class JobRef(NamedTuple):
    """A job an action may stop: the event's own, or the tuning job or pipeline execution it belongs to (a family's
    `jobs_of`). `key` is what the API names it by (its name; a pipeline execution's ARN)."""

    api: JobApi
    noun: str  # "processing job"
    name: str  # as results and messages name it
    key: str
    arn: str
    running: str  # the status of a running job of its family (InProgress; a pipeline execution's Executing)
    status_member: str  # its status in its Describe output
    scope: Any  # its family's scope field (fields.TextList): the name prefixes the stack acts on
    insensitive: bool = False  # its scope's prefixes compare without case (pipeline names)
    status: str = ""  # its status, when the event says it (the event's own job)
    consequence: str = ""  # what SageMaker does when it is stopped, as its stop's row says it ("" nothing to add)

    def covered(self, prefixes: tuple[str, ...]) -> bool:
        """Under one of the scope's prefixes (every job when none)."""
        if not prefixes:
            return True
        if self.insensitive:
            return self.name.lower().startswith(tuple(p.lower() for p in prefixes))
        return self.name.startswith(prefixes)


class Capability(StrEnum):
    """What a plug-in may need of a job family's jobs (the family grants the matching calls)."""

    DESCRIBE = "describe"
    STOP = "stop"
    CREATE = "create"  # a copy of a job (a restart): Create..., AddTags, and ListTags to read the job's tags
    UPDATE = "update"  # a job's warm pool released (Update...)
    LIST = "list"  # the running jobs under a prefix
    SEARCH = "search"  # every running job with its description and tags (a scheduled evaluation)


class EventFamily(Protocol):
    """What an event's job family tells the plug-ins that read the event (jobs/base.py implements it)."""

    # (read-only: a family's are class attributes; `config` is a ports.Configured and `outcome_actions` a
    # fields.ActionMap, which records, below both, does not name)
    @property
    def name(self) -> str: ...  # training
    @property
    def noun(self) -> str: ...  # training job
    @property
    def label(self) -> str: ...  # Training job
    @property
    def resource(self) -> str: ...  # its ARN resource type: training-job
    @property
    def api(self) -> JobApi: ...
    @property
    def outcomes(self) -> Mapping[str, OutcomeCondition]: ...
    @property
    def outcome_actions(self) -> Any: ...  # outcome -> actions
    @property
    def stoppable(self) -> bool: ...  # this stack may stop its jobs (its Stopped outcome may be our own stop)
    @property
    def owner_key(self) -> str: ...  # how a stop names this family's jobs as another's owner ("tuning_job"), or ""
    @property
    def scope(self) -> Any: ...  # its fields.TextList: the name prefixes the stack acts on
    @property
    def billing(self) -> Any: ...  # its cost.Billing: where its description says what its job costs; None: no cost

    def in_scope(self, config: Any, job_name: str) -> bool: ...
    def scope_refusal(self, config: Any, event: JobEvent,
                      answers: Mapping[Any, Any] | None = None) -> str | Need | None: ...
    def stopped_through(self, config: Any, job_name: str) -> tuple[str, ...]: ...
    def own_prefix(self, config: Any, job_name: str, prefix: str) -> bool: ...

    def own_ref(self, event: JobEvent) -> JobRef: ...
    def jobs_of(self, event: JobEvent) -> dict[str, JobRef]: ...
    def stop_refusal(self, event: JobEvent) -> str | None: ...

    def arn_of(self, event_arn: str, job_name: str) -> str: ...
    def console(self, region: str, job_name: str) -> tuple[str, str]: ...
    def logs(self, region: str, job_name: str) -> tuple[str, str]: ...
    def links(self, event: JobEvent, region: str) -> tuple[tuple[str, str], ...]: ...
    def outcome_clause(self, outcome: str) -> dict[str, Any]: ...
    def quiet_clause(self, config: Any) -> dict[str, Any]: ...
    def outcome_of(self, event: JobEvent) -> str | None: ...
    def held_back(self, event: JobEvent, config: Any, answers: Mapping[Any, Any]) -> str | Need | None: ...
    def outcome_needs(self, event: JobEvent, outcome: str) -> frozenset[Need]: ...
    def stop_record_of(self, event: JobEvent, outcome: str) -> str | None: ...
    def outcome_lines(self, event: JobEvent, outcome: str) -> list[str]: ...
    def learn(self, event: JobEvent, answers: Mapping[Any, Any]) -> JobEvent: ...
    def short_reason(self, event: JobEvent) -> str: ...
    def json_details(self, event: JobEvent) -> dict[str, Any] | None: ...


class Transition(NamedTuple):
    """An entry of the job's secondary status transitions."""

    status: str
    start: datetime | None
    message: str


@dataclass(frozen=True)
class JobEvent:
    """A job's state change as its family read it. What cannot be read is a named problem (`problems`), never a
    crash; `detail` is the event's detail as sent, for the trigger families that find more in it."""

    family: EventFamily | None  # None: a stand-in for a request about no job (a test notification)
    event_id: str
    account: str
    region: str
    time: str
    replay_name: str | None
    job_name: str
    job_arn: str
    job_status: str
    secondary_status: str | None
    detail: Mapping[str, Any] = field(default_factory=dict, repr=False)
    problems: tuple[str, ...] = ()
    failure_reason: str = ""
    transitions: tuple[Transition, ...] = ()
    created: datetime | None = None
    started: datetime | None = None
    ended: datetime | None = None
    last_modified: datetime | None = None
    run_seconds: int | None = None
    billable_seconds: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    # Organization mode: how messages and results name the account the job ran in (its alias, else its id);
    # empty with one account (rule_actions.organization.named sets it).
    account_name: str = ""
    # The ARN of the job that launched this one, as the event names it (a tuning job for its training jobs, a
    # training job for its Debugger rule evaluations); empty when none.
    parent: str = ""
    # What the job family learned of the job from its readers (its failed trials, its failed steps), for its words
    # and payloads; empty until the family learned it (JobFamily.learn).
    details: Mapping[str, Any] = field(default_factory=dict, repr=False)
    # Its detail is the job's description read just before (a scheduled evaluation's finding): its status is the
    # job's live one, and nothing is described again before acting on it.
    live: bool = False

    @property
    def progress(self) -> Progress:
        """How far along its life the job was when the event was sent (its status, its phases so far)."""
        return Progress(self.job_status, len(self.transitions), self.time, self.secondary_status or "")

    @property
    def job_family(self) -> EventFamily:
        """Its job family: a job's event always has one (only a test notification's stand-in, about no job, has
        none: the plug-ins that read a job's event are never handed that one)."""
        if self.family is None:
            raise TypeError(f"event {self.event_id} is about no job: it has no job family")
        return self.family

    def arn_of(self, job_name: str) -> str:
        """The ARN of another job of the same family, account and region."""
        return self.job_family.arn_of(self.job_arn, job_name)


class EvaluationRequest(_Value):
    """A scheduled evaluation's invocation: {"rule_actions_evaluation": {"time", "account", "region", "shard",
    "shards"}} (monitors/evaluation.py reads it). `time`: the run's (epoch seconds), the schedule's (None: now);
    `account`, `region`: what organization mode evaluates (a member account's)."""

    __slots__ = ("account", "region", "shard", "shards", "time")

    def __init__(self, time: int | None, account: str | None, region: str | None, shard: int = 0, shards: int = 1):
        self.time, self.account, self.region, self.shard, self.shards = time, account, region, shard, shards


class EvaluationRun(_Value):
    """One scheduled run in one account and region: its request, its time (epoch seconds), whether another log query
    fits in it, what earlier runs of the execution environment heard of the jobs' logs there (job -> host -> its
    latest log line, epoch ms), the region its reads are made in (a job's prices, when its ARN names none), and from
    how many jobs to read one Logs Insights query reads their logs."""

    __slots__ = ("heard", "insights_from", "now", "region", "request", "time_left")

    def __init__(self, request: EvaluationRequest, now: int, time_left: Callable[[], bool],
                 heard: Mapping[str, Mapping[str, int]], region: str, insights_from: int):
        self.request, self.now, self.time_left = request, now, time_left
        self.heard, self.region, self.insights_from = heard, region, insights_from


class Trigger:
    """What happened that actions can be attached to; each trigger family (triggers/) defines its record, a frozen
    dataclass with these four, and registers as its TYPE."""

    TYPE: ClassVar[str] = ""

    @property
    def label(self) -> str:  # how results and messages name it: the rule's name, job:Failed, test
        raise NotImplementedError

    @property
    def rule(self) -> str | None:  # the rule's name, when a rule is the trigger
        return None

    @property
    def ledger_fields(self) -> dict[str, str]:  # its part of an exactly-once key (never change a released one)
        raise NotImplementedError

    @property
    def metric(self) -> str:  # its `Triggers` metric dimension: a bounded vocabulary
        raise NotImplementedError


@dataclass(frozen=True)
class Planned:
    """One action for one trigger. `outcome` None: to be carried out (on `jobs`, for a stop)."""

    trigger: Trigger
    kind: str  # a kind's name, or action_json (a rule's list as a whole, when it cannot be read)
    target: str  # the prefix or job name, the endpoint, or the audience
    origin: Origin
    outcome: Outcome | None = None
    reason: str = ""
    jobs: tuple[str, ...] | None = None  # a job action's jobs (None for kinds that act on no job)
    effect: JobEffect | None = None  # what its kind does to jobs (None: it acts on no job)
    # What the kind's check prepared for carrying it out (a restart's copy), when it needs more than `jobs`
    prepared: object = field(default=None, compare=False, repr=False)

    def decided(self, outcome: Outcome, reason: str) -> Planned:
        return replace(self, outcome=outcome, reason=reason)

    def result(self, outcome: Outcome, reason: str, jobs: tuple[str, ...] = ()) -> Result:
        return Result(self, outcome, reason, None if self.jobs is None else tuple(jobs))


# What the plan asks before it can decide; each is answered by one reader (readers/), the answer a value or Unread.


class _Question(_Value):
    """A Need: a value record (equal only to a Need of its own type with the same fields: needs of different types
    share the plan's dictionaries)."""

    __slots__ = ()


class Described(_Question):
    """The job's description (DescribeTrainingJob...): a rule's action_json when the event lacks it."""

    __slots__ = ("api", "job_name")

    def __init__(self, api: JobApi, job_name: str):
        self.api, self.job_name = api, job_name


class InProgress(_Question):
    """The names of the family's running jobs that start with `prefix` (a stop's prefix)."""

    __slots__ = ("api", "prefix")

    def __init__(self, api: JobApi, prefix: str):
        self.api, self.prefix = api, prefix


class TeamAudience(_Question):
    """Whether the team audience has a confirmed subscriber."""

    __slots__ = ()


class StopRecord(_Question):
    """This stack's record of its stop of the job (a StopNote), None when it did not stop it."""

    __slots__ = ("job_arn",)

    def __init__(self, job_arn: str):
        self.job_arn = job_arn


class StopNote(_Value):
    """This stack's stop of a job, as the ledger keeps it: who stopped it (a rule of a job), when (`at`, "" unknown),
    and what is to follow once the job has stopped (`then`: the actions its stop's trigger asked for then, each "kind|target|origin": a
    restart)."""

    __slots__ = ("at", "by", "then")

    def __init__(self, by: str, then: tuple[str, ...] = (), at: str = ""):
        self.by, self.then, self.at = by, then, at


class Progress(_Value):
    """How far along its life a job is, as one of its events shows it: its status (contract.PROGRESS ranks it), how
    many phases it went through (SecondaryStatusTransitions; 0 for a family without them), the event's time and its
    phase (SecondaryStatus, "" none). One is `after` another when its status is further along, or the same with more
    phases; the time only tells the reader when (EventBridge's times have second resolution, and a scheduled
    evaluation's finding is timed when it ran, not when the job changed)."""

    __slots__ = ("at", "phase", "status", "steps")

    def __init__(self, status: str, steps: int = 0, at: str = "", phase: str = ""):
        self.status, self.steps, self.at, self.phase = status, steps, at, phase

    @property
    def rank(self) -> int:
        return PROGRESS.get(self.status, 0)

    def after(self, other: Progress) -> bool:
        """Further along than `other`: its status, or the same status with more phases (when `other` names its
        phases: an event without SecondaryStatusTransitions is ranked by its status alone)."""
        return self.rank > other.rank or (self.rank == other.rank and 0 < other.steps < self.steps)

    def said(self) -> str:
        """"Completed (Completed, 2026-11-24T10:00:00Z)": the status, its phase and the event's time, as known."""
        phase = f"{self.phase}, " if self.phase and self.phase != self.status else ""
        return f"{self.status} ({phase}{self.at})" if self.at else self.status


class Seen(_Question):
    """The ledger's order of what it saw of a job: `progress` (the event's) recorded when it is the furthest along
    yet; the answer is the Progress of an event seen before that is further along (the event is late), else None."""

    __slots__ = ("job_arn", "progress")

    def __init__(self, job_arn: str, progress: Progress):
        self.job_arn, self.progress = job_arn, progress


class RestartSource(_Question):
    """What a copy of a training job is made from: its description, its tags (ListTags) and, when its checkpoint
    (CheckpointConfig.S3Uri) is under one of `prefixes`, the newest object there (a Source)."""

    __slots__ = ("api", "job_arn", "job_name", "prefixes")

    def __init__(self, api: JobApi, job_name: str, job_arn: str, prefixes: tuple[str, ...]):
        self.api, self.job_name, self.job_arn, self.prefixes = api, job_name, job_arn, prefixes


class Source(_Value):
    """A RestartSource's answer. `checkpoint`: CheckpointConfig.S3Uri ("" none); `listed`: whether it was listed (it
    is under the prefixes); `newest`: its newest object's LastModified (None: nothing there, or not listed)."""

    __slots__ = ("checkpoint", "description", "listed", "newest", "tags")

    def __init__(self, description: Mapping[str, Any], tags: Mapping[str, str], checkpoint: str, listed: bool,
                 newest: datetime | None):
        self.description, self.tags, self.checkpoint, self.listed, self.newest = (description, tags, checkpoint,
                                                                                  listed, newest)

    def _key(self) -> tuple[object, ...]:
        return (self.checkpoint, self.listed, self.newest, repr(self.description), repr(self.tags))


class ServiceJobOf(_Question):
    """The AWS Batch service job of one of `queues` whose latest attempt is the training job (its ARN): its queue and
    DescribeServiceJob's answer (its request, verbatim), as a tuple; None when no service job of those queues ran it
    (a restart through Batch resubmits it)."""

    __slots__ = ("queues", "training_job_arn")

    def __init__(self, training_job_arn: str, queues: tuple[str, ...]):
        self.training_job_arn, self.queues = training_job_arn, queues


class RunningJobs(_Question):
    """The family's InProgress jobs, each with its description and tags (Search, every page)."""

    __slots__ = ("api",)

    def __init__(self, api: JobApi):
        self.api = api


class QueuedServiceJobs(_Question):
    """The service jobs of the AWS Batch job queue `queue` (a name or an ARN) in `status` (ListServiceJobs with
    jobQueue and jobStatus, every page): their summaries, as the API gives them (a job family's sweep)."""

    __slots__ = ("queue", "status")

    def __init__(self, queue: str, status: str):
        self.queue, self.status = queue, status


class Swept(_Value):
    """What a job family's sweep found on a scheduled run (JobFamily.sweep): how many jobs it listed, the state
    change of each to act on (its family's reading: a JobEvent, or why it cannot be read: an IgnoredEvent), and the
    listings that failed (each naming its call and error)."""

    __slots__ = ("errors", "events", "listed")

    def __init__(self, listed: int, events: tuple[Any, ...], errors: tuple[str, ...] = ()):
        self.listed, self.events, self.errors = listed, events, errors


class MetricHosts(_Question):
    """The Host dimension values of `metric` in `namespace` active in the last 3 hours (ListMetrics, every page): the
    instances of the jobs whose Host names an instance id no API gives (a transform job's <job>/<instance-id>)."""

    __slots__ = ("metric", "namespace")

    def __init__(self, namespace: str, metric: str):
        self.namespace, self.metric = namespace, metric


class TuningTrials(_Question):
    """The latest `limit` training jobs (trials) a tuning job launched, newest first, whatever their status
    (ListTrainingJobsForHyperParameterTuningJob sorted by CreationTime: one call). The answer: Trial records."""

    __slots__ = ("limit", "tuning_job_name")

    def __init__(self, tuning_job_name: str, limit: int):
        self.tuning_job_name, self.limit = tuning_job_name, limit


class Trial(NamedTuple):
    """One trial of a tuning job, as a monitor rule reads it (HyperParameterTrainingJobSummary)."""

    name: str
    status: str  # TrainingJobStatus: InProgress | Completed | Failed | Stopping | Stopped
    created: int  # epoch seconds
    ended: int | None  # TrainingEndTime (epoch seconds)
    reason: str  # FailureReason ("" when none)
    objective: float | None  # FinalHyperParameterTuningJobObjectiveMetric.Value, when reported


class TrialRuns(_Question):
    """Every trial a tuning job launched, with when it trained (ListTrainingJobsForHyperParameterTuningJob, every
    page): what its cost sums. The answer: TrialRun records, oldest first."""

    __slots__ = ("tuning_job_name",)

    def __init__(self, tuning_job_name: str):
        self.tuning_job_name = tuning_job_name


class TrialRun(_Value):
    """One trial of a tuning job as its cost counts it (HyperParameterTrainingJobSummary): `definition` its
    TrainingJobDefinitionName ("" when the tuning job has one definition), `status` its TrainingJobStatus, `started`
    and `ended` its TrainingStartTime and TrainingEndTime (epoch seconds; None: not started, still running);
    `record` the members of its own DescribeTrainingJob that say what it ran on and was billed for (TRIAL_MEMBERS;
    None when not read: `unread` says why)."""

    __slots__ = ("definition", "ended", "name", "record", "started", "status", "unread")

    def __init__(self, name: str, definition: str, status: str, started: int | None, ended: int | None,
                 record: Mapping[str, Any] | None = None, unread: str = ""):
        self.name, self.definition, self.status, self.started, self.ended = name, definition, status, started, ended
        self.record, self.unread = record, unread

    def _key(self) -> tuple[object, ...]:
        shown = json.dumps(self.record, sort_keys=True, default=str) if self.record is not None else None
        return (self.name, self.definition, self.status, self.started, self.ended, shown, self.unread)


# What a trial's cost reads of its DescribeTrainingJob (cost.TRAINING's members).
TRIAL_MEMBERS = ("ResourceConfig", "TrainingStartTime", "TrainingEndTime", "StoppingCondition", "BillableTimeInSeconds",
                 "EnableManagedSpotTraining", "SecondaryStatusTransitions", "WarmPoolStatus", "TrainingJobStatus")


class PriceList(_Question):
    """The on-demand prices of one instance type in one region (the AWS Price List API: GetProducts, service code
    AmazonSageMaker), read at most once per execution environment. The answer: the price list's component
    (platoinstancetype: Training, Processing, BatchTransform...) -> US dollars per hour."""

    __slots__ = ("instance_type", "region")

    def __init__(self, instance_type: str, region: str):
        self.instance_type, self.region = instance_type, region


class UnreadJob(NamedTuple):
    """A running job listed whose description or tags could not be read: reported on its own row."""

    name: str
    reason: str


class MetricQuery(_Question):
    """One CloudWatch series, as GetMetricData's MetricStat names it."""

    __slots__ = ("dimensions", "name", "namespace", "period", "stat")

    def __init__(self, namespace: str, name: str, dimensions: tuple[tuple[str, str], ...], stat: str = "Average",
                 period: int = 60):
        self.namespace, self.name, self.dimensions, self.stat, self.period = namespace, name, dimensions, stat, period


class MetricData(_Question):
    """The datapoints of `queries` from `start` to `end` (epoch seconds), read in batches (GetMetricData takes 500
    queries a call). The answer: MetricQuery -> ((epoch seconds, value), ...), oldest first."""

    __slots__ = ("end", "queries", "start")

    def __init__(self, queries: tuple[MetricQuery, ...], start: int, end: int):
        self.queries, self.start, self.end = queries, start, end


class LogHeartbeat(_Question):
    """What a job's log streams (`prefix`, in `group`) hold from `start` to `end` (epoch milliseconds): one query,
    answered by a Heartbeat."""

    __slots__ = ("end", "group", "prefix", "start")

    def __init__(self, group: str, prefix: str, start: int, end: int):
        self.group, self.prefix, self.start, self.end = group, prefix, start, end


class LogLatest(_Question):
    """The latest log line of every stream of many jobs at once (one CloudWatch Logs Insights query over `group`):
    `windows` holds (stream name prefix, start epoch ms) per job, `end` is shared (epoch ms). The answer: prefix ->
    Heartbeat, holding the streams of that prefix with a line from its start to `end` (each Span's `last` exact;
    `first` and `events` count from the query's start, the earliest of the windows; `gap` 0: not known)."""

    __slots__ = ("end", "group", "windows")

    def __init__(self, group: str, windows: tuple[tuple[str, int], ...], end: int):
        self.group, self.windows, self.end = group, windows, end


class Span(NamedTuple):
    """What one log stream held in a window: its first and last event (epoch ms), how many events, and the longest
    gap between two of its consecutive events (ms; 0 with fewer than two)."""

    stream: str
    first: int
    last: int
    events: int
    gap: int = 0


class Heartbeat(_Question):
    """Per log stream, its Span in the window of one LogHeartbeat. `complete`: every event of the window was seen
    (one page held them all); otherwise the streams' later events are unknown."""

    __slots__ = ("complete", "streams")

    def __init__(self, streams: tuple[Span, ...], complete: bool):
        self.streams, self.complete = streams, complete


class FailedTrials(_Question):
    """The failed training jobs a tuning job launched (ListTrainingJobsForHyperParameterTuningJob, StatusEquals
    Failed): at most `limit`, each with its own FailureReason."""

    __slots__ = ("limit", "tuning_job_name")

    def __init__(self, tuning_job_name: str, limit: int):
        self.tuning_job_name, self.limit = tuning_job_name, limit


class FailedSteps(_Question):
    """A pipeline execution's failed (and stopped) steps (ListPipelineExecutionSteps), each with the job its metadata
    names described for that job's own failure reason (`jobs`: metadata member -> how that job is described; a
    job named lower-cased in its ARN is found by its real name, `find_names`) and this stack's record of a stop of
    it; at most `limit` steps are described; `tuning`: the metadata member naming a tuning job, whose first failed
    trial's reason is the real one; `execution`: how the execution is described (DescribePipelineExecution, once,
    only when no step failed: the execution's own FailureReason then says why)."""

    __slots__ = ("execution", "execution_arn", "find_names", "jobs", "limit", "tuning")

    def __init__(self, execution_arn: str, jobs: tuple[tuple[str, JobApi], ...], limit: int, tuning: str = "",
                 execution: JobApi | None = None, find_names: bool = False):
        self.execution_arn, self.jobs, self.limit, self.tuning = execution_arn, jobs, limit, tuning
        self.execution, self.find_names = execution, find_names


class StepFailure(NamedTuple):
    """A failed (or stopped) step of a pipeline execution, as the FailedSteps reader found it."""

    name: str
    type: str  # the step's type, from its metadata's member (TrainingJob, Fail, ...); "" when it has none
    reason: str  # the step's own FailureReason
    job_arn: str = ""  # the job its metadata names
    job_reason: str = ""  # that job's own FailureReason (described; a tuning job's: its first failed trial's)
    unread: str = ""  # why the job could not be described, when it could not
    trial: str = ""  # the tuning job's trial whose reason job_reason is
    status: str = "Failed"  # the step's status: Failed or Stopped
    exit_message: str = ""  # the job's ExitMessage (DescribeProcessingJob's), the cause a generic reason hides
    job_name: str = ""  # the job's real name when its ARN's lower-cased name was not it (found by a listing)
    stopped_by: str = ""  # this stack stopped the job: who (the ledger's record: "rule X of job Y")


class StepFailures(tuple[StepFailure, ...]):
    """The FailedSteps reader's answer: the StepFailure of each failed or stopped step, and, when none failed, the
    execution's own FailureReason (DescribePipelineExecution) or why it could not be read."""

    execution_reason: str = ""
    execution_unread: str = ""

    def __new__(cls, steps: Any = (), execution_reason: str = "", execution_unread: str = "") -> StepFailures:
        found = super().__new__(cls, steps)
        found.execution_reason, found.execution_unread = execution_reason, execution_unread
        return found


Need = (Described | InProgress | TeamAudience | StopRecord | Seen | RestartSource | ServiceJobOf | FailedTrials | FailedSteps | RunningJobs | MetricData
        | LogHeartbeat | LogLatest | PriceList | TrialRuns | TuningTrials | MetricHosts | QueuedServiceJobs)


class Unread(NamedTuple):
    """A read that failed, and why (the reason names the call and the error)."""

    reason: str


class Done(NamedTuple):
    """An action carried out: kept in the ledger (its reason redacted) and shown on duplicates."""

    reason: str
    jobs: tuple[str, ...] = ()


class NothingDone(NamedTuple):
    """Nothing was done and nothing is recorded: a later delivery of the job's events tries again; `once`: a decision
    that stands (a job already stopping stays so), said once as the plan's decisions are (a later delivery reports
    it as a duplicate)."""

    outcome: Outcome  # skipped | failed
    reason: str
    once: bool = False


class Result(_Value):
    """What became of one planned action."""

    __slots__ = ("jobs", "outcome", "planned", "reason")

    def __init__(self, planned: Planned, outcome: Outcome, reason: str, jobs: tuple[str, ...] | None = None):
        self.planned, self.outcome, self.reason, self.jobs = planned, outcome, reason, jobs

    @property
    def stopped(self) -> tuple[str, ...]:
        """The jobs this action stopped (a stop carried out now)."""
        return self._done(JobEffect.STOP)

    @property
    def restarted(self) -> tuple[str, ...]:
        """The copies this action created (a restart carried out now)."""
        return self._done(JobEffect.RESTART)

    def _done(self, effect: JobEffect) -> tuple[str, ...]:
        return self.jobs or () if self.outcome == Outcome.DONE and self.planned.effect == effect else ()

    def as_dict(self) -> dict[str, Any]:
        """The public form (the function's result, logs, the replay's output), redacted by the one rule."""
        trigger = self.planned.trigger
        out: dict[str, Any] = {"trigger": trigger.label, "rule": trigger.rule, "kind": self.planned.kind,
                               "target": redact_target(self.planned.kind, self.planned.target)}
        if self.jobs is not None:
            out["jobs"] = list(self.jobs)
        return {**out, "origin": str(self.planned.origin), "outcome": str(self.outcome),
                "reason": redact(self.reason)}


class Message(NamedTuple):
    """What people read about one trigger: plain text throughout (untrusted values made plain, links encoded)."""

    subject: str  # at most 100 printable ASCII characters
    body: str  # plain text, for email
    short: str  # at most 140 printable ASCII characters, for SMS
    links: tuple[tuple[str, str], ...] = ()  # (label, URL), also written at the end of the body

    @property
    def text(self) -> str:
        """The body without its link lines (each payload shows the links its own way)."""
        urls = tuple(url for _, url in self.links)
        return "\n".join(line for line in self.body.splitlines() if not (urls and line.endswith(urls))).strip()


class TriggerFacts(NamedTuple):
    """What the payloads (chat, the json webhook format) say of a trigger besides its message."""

    type: str  # rule_status | job_outcome | test: the trigger family
    fields: Mapping[str, Any]  # the json format's trigger members besides label and type
    keywords: tuple[str, ...]  # chat keywords: a bounded vocabulary
    reason: str | None  # why, as plain text: the rule's status details, the job's failure reason
    mark: str  # the title's emoji
    about_job: bool = True  # False for a test: no job, no thread of a job
    watch: bool = False  # the trigger only watches: its stops are reported as what they would do (TriggerFamily.watched)
    warning: float | None = None  # the trigger only warns, at this level (a budget's fraction): its stops are skipped
