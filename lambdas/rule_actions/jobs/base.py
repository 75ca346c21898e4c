"""What a SageMaker job family is: one object per family (jobs/<family>.py), holding everything about its jobs.

    name, noun, detail_type   who it is ("training", "training job"), its EventBridge detail-type(s) and source
    members                   the detail's members naming its job, status, reason, times, parent (Members)
    api, resource             how its jobs are described, listed and stopped; its ARN resource type
    outcomes                  its job outcomes: conditions on status and secondary status, and their words
    scope, outcome_actions    its configuration: the name prefixes acted on, the actions each outcome gets
    parse                     the event -> JobEvent (what cannot be read is a named problem on it)
    held_back                 why its event's job's outcomes are not its own to report (another report covers
                              them: a tuning job's trial, a pipeline step's job, a Debugger rule evaluation), or the
                              Need to read first; None: they are (its rule statuses never are held back)
    stop_refusal              why its job must not be stopped in the phase its event shows (a training job uploading
                              its model), or None
    outcome_needs, learn      what an outcome's message needs read of the job (its failed trials, its failed
                              steps), and the event knowing it (JobEvent.details)
    stop_record_of            the job whose stop by this stack an outcome may be the end of (its Stopped; a Batch
                              service job's Terminated: its latest attempt's training job): that outcome is then
                              not alerted twice
    billing                   where its description says what its job runs on and for how long: its cost (cost.py)
    outcome_lines, links      its words in an outcome's message (counters, steps...), its links
    json_details              what the json webhook format says of the job besides its name and status
    scope_clause, quiet_clause  its pattern's clauses: its jobs in scope; what its outcome clauses add so that the
                              outcomes it holds back are never matched
    warnings                  what its switches make valid but probably not meant (printed at synth)
    own_capabilities, read_grants, resources  what its IAM statements derive from: what it needs of its own jobs,
                              the statements of its own reads, its jobs in scope as IAM resources
    event_of                  a state change of one of its jobs, from its description (a scheduled evaluation's), read
    offers, metric_namespace, instances_listed  what the monitor rules may judge of its running jobs (contract.Offer:
                              a rule judges the families that offer all it needs), where its instances' metrics are
    statuses, kept            how the local replay seeds its jobs (rule_actions_cli.seeding): its API's statuses, the
                              members of a job's first event its embedded job keeps
    on, scope_refusal         whether the configuration turns it on at all (Batch's: batch_queues), and why an event's
                              job is outside its scope (a queue, not a name prefix)
    pattern_scope             its pattern's scope clause from the configuration (training: Batch-made names too)
    stopped_through, own_prefix  a job stopped through another service (a Batch-made training job: its service job's
                              queues), and a stop's prefix covering a job by the name its owner asked for
    service_grants            another service's IAM statements it needs whenever it is on (AWS Batch's)
    sweeps, sweep             what its jobs do without an event, read on the stack's schedule: whether it asks the
                              schedule, and the state changes it reads from a listing there (a Batch job waiting in
                              its queue: ListServiceJobs), acted on as its events are

Adding a family: a module with a `JobFamily` subclass and its line in rule_actions/registry.py. Its pattern and its
IAM statements derive from it on the stack's side (rule_actions_cdk.plugins); the trigger families that apply to it
say so themselves, the monitor rules by what it offers; the local replay seeds its jobs from its event's detail
(rule_actions_cli.seeding; the families moto models have a seeder of their own there).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any, ClassVar, NamedTuple

from rule_actions.contract import IN_PROGRESS, JOB_NAME, JOB_NAME_PREFIX, SOURCE, Arn, Grant, Offer, OutcomeCondition
from rule_actions.cost import Billing
from rule_actions.fields import ActionMap, Field, TextList
from rule_actions.jobs.common import (
    EXECUTION_ARN_HINT,
    OWN_JOB,
    PIPELINE_OWNER,
    PIPELINE_STEP_JOBS_ALERT,
    PIPELINE_TAG,
    TRAINING_ARN,
    TUNING_ARN,
    execution_name,
    execution_ref,
    is_arn,
    scope_field,
    step_jobs_held_back,
)
from rule_actions.ports import Configured
from rule_actions.records import Capability, IgnoredEvent, JobApi, JobEvent, JobRef, Need, Swept, Transition
from rule_actions.text import arn_name, arn_place, console_link, encoded, log_link, quoted, timestamp

PREFIX_RE = re.compile(JOB_NAME_PREFIX, re.ASCII)
NAME_RE = re.compile(JOB_NAME, re.ASCII)
# A parent's ARN pattern (jobs/common.py) and its noun, by the member naming it.
PARENTS = {"TuningJobArn": (TUNING_ARN, "hyperparameter tuning job"), "TrainingJobArn": (TRAINING_ARN, "training job")}


class Envelope:
    """What an event says around its detail: its id, the account and region it comes from, its time, and the name of
    the archive replay that sent it again (None: a live event). (A plain class: defined at every cold start.)"""

    __slots__ = ("account", "event_id", "region", "replay_name", "time")

    def __init__(self, event_id: str, account: str, region: str, time: str, replay_name: str | None):
        self.event_id, self.account, self.region, self.time, self.replay_name = (event_id, account, region, time,
                                                                                 replay_name)

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Envelope:
        return cls(str(raw.get("id", "")), str(raw.get("account", "")), str(raw.get("region", "")),
                   str(raw.get("time", "")), _replay_name(raw.get("replay-name")))


def detail_of(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """An event's detail (IgnoredEvent when it has none)."""
    detail = raw.get("detail")
    if not isinstance(detail, Mapping):
        raise IgnoredEvent("detail: missing or not an object")
    return detail


class Members(NamedTuple):
    """The names of the detail's members (a family's event mirrors its Describe... output)."""

    name: str
    arn: str
    status: str
    secondary: str | None = "SecondaryStatus"
    failure_reason: str = "FailureReason"
    transitions: str | None = "SecondaryStatusTransitions"
    created: str = "CreationTime"
    started: str | None = None
    ended: str | None = None
    last_modified: str = "LastModifiedTime"
    run_seconds: str | None = None
    billable_seconds: str | None = None
    tags: str = "Tags"
    parent: str | None = None  # the ARN of the job that launched this one (TuningJobArn...)


class JobFamily:
    name: ClassVar[str] = ""
    noun: ClassVar[str] = ""  # "training job": lower case, singular
    detail_type: ClassVar[str] = ""
    members: ClassVar[Members]
    api: ClassVar[JobApi]
    resource: ClassVar[str] = ""  # its ARN resource type: arn:...:sagemaker:<region>:<account>:<resource>/<name>
    outcomes: ClassVar[Mapping[str, OutcomeCondition]] = {}
    console_path: ClassVar[str] = "jobs"  # the console's page of one job: #/<path>/<name>
    log_group: ClassVar[str] = ""  # its jobs' CloudWatch Logs group (streams start with the job's name)
    scope: ClassVar[TextList]  # its name prefixes (empty: every job)
    outcome_actions: ClassVar[ActionMap]  # outcome -> actions
    settings: ClassVar[tuple[Field[Any], ...]] = ()  # its other configuration fields
    stoppable: ClassVar[bool] = True  # this stack may stop its jobs (a stop kind acts on its events)
    running: ClassVar[str] = IN_PROGRESS  # the status of a running job
    owner_key: ClassVar[str] = ""  # how a stop names its jobs as the owner of another's ("tuning_job"), or ""
    stop_consequence: ClassVar[str] = ""  # what SageMaker does when one of its jobs is stopped, said on the stop's row
    name_pattern: ClassVar[re.Pattern[str]] = NAME_RE  # the names SageMaker gives its jobs (botocore's model)
    name_hint: ClassVar[str] = "letters, digits and '-', at most 63"
    billing: ClassVar[Billing | None] = None  # where its description says what a job costs (cost.py); None: no cost
    source: ClassVar[str] = SOURCE  # the source of its events
    # What the monitor rules may judge of its running jobs (none: never evaluated), the CloudWatch namespace of its
    # instances' metrics, and whether its instances are named only by those metrics' Host dimension (ListMetrics).
    offers: ClassVar[frozenset[Offer]] = frozenset()
    metric_namespace: ClassVar[str] = ""
    instances_listed: ClassVar[bool] = False
    # The local replay: its API's job statuses (an event of another seeds nothing), and the members of a job's first
    # event that its embedded job keeps.
    statuses: ClassVar[tuple[str, ...]] = (IN_PROGRESS, "Completed", "Failed", "Stopping", "Stopped")
    kept: ClassVar[tuple[str, ...]] = ()

    @property
    def label(self) -> str:
        return self.noun[:1].upper() + self.noun[1:]

    @property
    def fields(self) -> tuple[Any, ...]:
        return (self.outcome_actions, self.scope, *self.settings, PIPELINE_STEP_JOBS_ALERT)

    @property
    def detail_types(self) -> tuple[str, ...]:
        """Every detail-type of its events (a family may have more than one: a pipeline's execution and steps)."""
        return (self.detail_type,)

    def name_of(self, detail: Mapping[str, Any]) -> Any:
        """The job an event's detail names (as it stands: not checked)."""
        return detail.get(self.members.name)

    # ---------------------------------------------------------------- the event

    def parse(self, raw: Mapping[str, Any]) -> JobEvent:
        """The event's job (its envelope and detail already known to be this family's); raises IgnoredEvent naming
        the field when the job cannot be named (or its name is none SageMaker gives: no API call may carry it), else
        every unreadable member is a problem on the event."""
        return self.named(self.read(detail_of(raw), Envelope.of(raw), self.members))

    def event_of(self, description: Mapping[str, Any], time: str, event_id: str,
                 extra: Mapping[str, Any]) -> JobEvent:
        """The state change SageMaker would send for the job `description` describes (Describe or Search members;
        times as epoch-millisecond strings, Tags as a map, as in SageMaker's events), with `extra` detail members,
        read as `parse` reads an event (a scheduled evaluation's finding): live (its status is the job's, just read:
        nothing describes it again before acting). Its account and region are the job's ARN's."""
        detail = {key: _event_value(value) for key, value in description.items() if key != "ResponseMetadata"}
        tags = description.get(self.members.tags)
        if isinstance(tags, list):
            detail[self.members.tags] = {t.get("Key"): t.get("Value") for t in tags if isinstance(t, Mapping)}
        account, region = arn_place(str(description.get(self.members.arn, "")))
        envelope = Envelope(event_id, account, region, time, None)
        return replace(self.named(self.read({**detail, **extra}, envelope, self.members)), live=True)

    def named(self, event: JobEvent) -> JobEvent:
        """The event, when it names its job as SageMaker names them (IgnoredEvent naming the member otherwise)."""
        if not self.name_pattern.fullmatch(event.job_name):
            raise IgnoredEvent(f"detail.{self.members.name}: {quoted(event.job_name)} is not a SageMaker job name "
                               f"(a {self.noun}'s: {self.name_hint})")
        return event

    def read(self, detail: Mapping[str, Any], envelope: Envelope, m: Members) -> JobEvent:
        """The job the event's `detail` names, read with the members `m` (a family whose detail-types name their
        members differently passes its own)."""
        named = detail.get(m.name)
        name, arn, status = (_text(detail, key, named) for key in (m.name, m.arn, m.status))
        problems: list[str] = []
        # read in this order: each may add to `problems`
        secondary_status = _optional(detail, m.secondary, str, problems) if m.secondary else None
        failure_reason = _optional(detail, m.failure_reason, str, problems) or ""
        transitions = _transitions(detail, m.transitions, problems) if m.transitions else ()
        run_seconds = _seconds(detail, m.run_seconds, problems)
        billable_seconds = _seconds(detail, m.billable_seconds, problems)
        tags = _tags(detail, m.tags, problems)
        parent = _parent(detail, m.parent, problems) if m.parent else ""
        times = (m.created, m.started, m.ended, m.last_modified)
        problems += [problem for key in dict.fromkeys(t for t in times if t) for problem in _time(detail, key)]
        problems += self.detail_problems(detail)
        return JobEvent(
            family=self,
            event_id=envelope.event_id,
            account=envelope.account,
            region=envelope.region,
            time=envelope.time,
            replay_name=envelope.replay_name,
            job_name=name,
            job_arn=arn,
            job_status=status,
            detail=detail,
            problems=tuple(problems),
            created=timestamp(detail.get(m.created)),
            started=timestamp(detail.get(m.started)) if m.started else None,
            ended=timestamp(detail.get(m.ended)) if m.ended else None,
            last_modified=timestamp(detail.get(m.last_modified)),
            secondary_status=secondary_status,
            failure_reason=failure_reason,
            transitions=transitions,
            run_seconds=run_seconds,
            billable_seconds=billable_seconds,
            tags=tags,
            parent=parent,
        )

    def detail_problems(self, detail: Mapping[str, Any]) -> list[str]:
        """The family's own members of the event that cannot be read, each naming the member and quoting its value
        (its counters, its best job...): the message still goes out, without them."""
        return []

    def in_scope(self, config: Configured, job_name: str) -> bool:
        prefixes = config[self.scope]
        return not prefixes or job_name.startswith(prefixes)

    def on(self, config: Configured) -> bool:
        """Whether the configuration turns the family on at all (a family off is neither matched nor granted
        whatever its outcomes attach; every family is on but one a setting must name the scope of: Batch's)."""
        return True

    def scope_refusal(self, config: Configured, event: JobEvent,
                      answers: Mapping[Any, Any] | None = None) -> str | Need | None:
        """Why the event's job is outside the stack's scope (ignored), or None: its name under the prefixes; a Need
        when the family must read before it knows (asked again with `answers`)."""
        return None if self.in_scope(config, event.job_name) else f"{self.noun} is not under {self.scope.key}"

    def stopped_through(self, config: Configured, job_name: str) -> tuple[str, ...]:
        """The AWS Batch job queues one of its jobs is stopped through (TerminateServiceJob of the service job that
        runs it, in one of them), or () when its own stop call stops it."""
        return ()

    def own_prefix(self, config: Configured, job_name: str, prefix: str) -> bool:
        """Whether a prefix a stop names (stoptraining's) covers the job by its name (or the name its owner asked
        for, when a service made it)."""
        return job_name.startswith(prefix)

    def outcome_of(self, event: JobEvent) -> str | None:
        """The outcome the event shows: the first condition that holds (a family's conditions exclude one another)."""
        return next((name for name, condition in self.outcomes.items()
                     if condition.holds(event.job_status, event.secondary_status)), None)

    def held_back(self, event: JobEvent, config: Configured, answers: Mapping[Any, Any]) -> str | Need | None:
        """Why the event's job's outcomes are not its own to report (another report covers them), the Need to read
        before that is known, or None (they are). `answers`: what was read so far. Here: a job a pipeline's step
        launched (its tag names the execution), while the execution reports and pipeline_step_jobs_alert is false."""
        execution = event.tags.get(PIPELINE_TAG)
        if not execution or not step_jobs_held_back(config):
            return None
        return (f"a step's job of pipeline execution {arn_name(execution)}: the execution reports for it "
                "(pipeline_outcomes; pipeline_step_jobs_alert is false)")

    def own_ref(self, event: JobEvent) -> JobRef:
        """The event's own job, as a stop names it."""
        return JobRef(self.api, self.noun, event.job_name, event.job_name, event.job_arn, self.running,
                      self.members.status, self.scope, status=event.job_status, consequence=self.stop_consequence)

    def jobs_of(self, event: JobEvent) -> dict[str, JobRef]:
        """The jobs a stop may name for this event: its own ("job"; and under its family's owner_key, as the owner of
        others), and the pipeline execution whose step launched it (its tag)."""
        own = self.own_ref(event)
        found = {OWN_JOB: own, **({self.owner_key: own} if self.owner_key else {})}
        execution = execution_ref(event.tags.get(PIPELINE_TAG, ""))
        if execution is not None and PIPELINE_OWNER not in found:
            found[PIPELINE_OWNER] = execution
        return found

    def stop_refusal(self, event: JobEvent) -> str | None:
        """Why the event's job must not be stopped in the phase its event shows, or None (a stop may go ahead)."""
        return None

    def outcome_needs(self, event: JobEvent, outcome: str) -> frozenset[Need]:
        """What an outcome's message needs read of the job (nothing, unless the family says so)."""
        return frozenset()

    def stop_record_of(self, event: JobEvent, outcome: str) -> str | None:
        """The ARN under which this stack's stop is recorded of the job whose stop `outcome` may be the end of (the
        ledger's stop record: its actions are then skipped, "no second alert"), None when it cannot be one: a job
        this stack may stop, its Stopped."""
        return event.job_arn if outcome == "Stopped" and self.stoppable else None

    def learn(self, event: JobEvent, answers: Mapping[Any, Any]) -> JobEvent:
        """The event knowing what was read of its job (its `details`; a reason the event did not carry)."""
        return event

    def short_reason(self, event: JobEvent) -> str:
        """Why, in a text message: its FailureReason."""
        return event.failure_reason

    def outcome_lines(self, event: JobEvent, outcome: str) -> list[str]:
        """Its own lines in an outcome's message (between the failure reason and the job's facts)."""
        return []

    def json_details(self, event: JobEvent) -> dict[str, Any] | None:
        """What the json webhook format says of the job besides its name and status (`job.details`): the details
        its family read, if any."""
        return dict(event.details) or None

    def arn_of(self, event_arn: str, job_name: str) -> str:
        """The ARN of another job in the same account and region (SageMaker lower-cases names in ARNs)."""
        return f"{event_arn.rpartition('/')[0]}/{job_name.lower()}"

    # ---------------------------------------------------------------- words and links

    def console(self, region: str, job_name: str) -> tuple[str, str]:
        return f"{self.label} in the console", console_link(region, f"/{self.console_path}/{encoded(job_name)}")

    def logs(self, region: str, job_name: str) -> tuple[str, str]:
        return f"{self.label} logs", log_link(region, self.log_group, job_name)

    def links(self, event: JobEvent, region: str) -> tuple[tuple[str, str], ...]:
        """An outcome's links: the job in the console, and its logs."""
        return self.console(region, event.job_name), self.logs(region, event.job_name)

    # ---------------------------------------------------------------- what the stack derives from it (rule_actions_cdk.plugins)

    def scope_clause(self, prefixes: tuple[str, ...]) -> dict[str, Any]:
        """The detail clause matching its jobs under the prefixes."""
        return {self.members.name: [{"prefix": prefix} for prefix in prefixes]}

    def pattern_scope(self, config: Configured) -> dict[str, Any]:
        """The detail clause of its jobs in the configuration's scope ({}: every job)."""
        prefixes = config[self.scope]
        return self.scope_clause(prefixes) if prefixes else {}

    def outcome_clause(self, outcome: str) -> dict[str, Any]:
        """The detail clause matching exactly the events of this outcome."""
        return self.outcomes[outcome].pattern(self.members.status, self.members.secondary or "")

    def quiet_clause(self, config: Configured) -> dict[str, Any]:
        """What each of its outcome clauses adds so that the rule never matches the outcomes it holds back (a member
        that must not exist: the parent their event names, a pipeline's tag); never its rule statuses' clauses."""
        return {"Tags": {PIPELINE_TAG: [{"exists": False}]}} if step_jobs_held_back(config) else {}

    def warnings(self, config: Configured, where: str) -> list[str]:
        """What its settings make valid but probably not meant (printed at synth)."""
        return []

    def own_capabilities(self, config: Configured) -> frozenset[Capability]:
        """What the family itself needs of its jobs (a describe before it knows whether a job alerts)."""
        return frozenset()

    def read_grants(self, config: Configured) -> list[Grant]:
        """The IAM statements of its own reads (its outcome_needs), when the configuration can make them."""
        return []

    def service_grants(self, config: Configured) -> list[Grant]:
        """The IAM statements of another service's calls it needs whenever it is on, whatever triggers fire on its
        own events (AWS Batch's: a stop of a Batch-made training job goes through it)."""
        return []

    def sweeps(self, config: Configured) -> bool:
        """Whether it asks the stack's schedule to sweep its jobs on every run (`sweep`): a state its jobs may stay in
        without sending an event that the configuration attaches actions to (a Batch job waiting in its queue). The
        stack then has the schedule (and the evaluator grants its service_grants) even without `monitor`."""
        return False

    def sweep(self, now: int, config: Configured) -> Generator[frozenset[Need], Mapping[Need, Any], Swept]:
        """On a scheduled run (at `now`, epoch seconds), its jobs' state changes read from a listing, as its events
        are read: it yields the needs it wants read (the readers answer them, through the run's account's ports)
        and returns what it found; the pipeline acts on each event as on any of its events (scope, outcomes, the
        ledger's once). Here: nothing."""
        yield from ()  # a generator that asks nothing
        return Swept(0, ())

    def resources(self, config: Configured, resource: str | None = None) -> tuple[Arn, ...]:
        """Its jobs in scope (or the jobs of another resource type under its prefixes), as IAM resources."""
        return tuple(Arn("sagemaker", resource or self.resource, f"{pattern}*")
                     for pattern in job_name_patterns(config[self.scope]))


__all__ = ["Envelope", "JobFamily", "Members", "detail_of", "job_name_patterns", "scope_field"]


def job_name_patterns(prefixes: tuple[str, ...]) -> list[str]:
    """Job resource name prefixes for IAM: SageMaker puts job names into ARNs lower-cased, so the lower-cased
    prefix; the prefix as written too when it has capitals (should an ARN ever keep them)."""
    if not prefixes:
        return [""]
    return list(dict.fromkeys(p for prefix in prefixes for p in (prefix.lower(), prefix)))


def _text(detail: Mapping[str, Any], key: str, named: Any) -> str:
    value = detail.get(key)
    if not isinstance(value, str) or not value:
        job = named if isinstance(named, str) and named else None
        raise IgnoredEvent(f"detail.{key}: missing or not a non-empty string ({quoted(value)})", job)
    return value


def _optional(detail: Mapping[str, Any], key: str, kind: type, problems: list[str]) -> Any:
    value = detail.get(key)
    if value is not None and not isinstance(value, kind):
        problems.append(f"detail.{key}: not a {kind.__name__} ({quoted(value)})")
        return None
    return value


def _seconds(detail: Mapping[str, Any], key: str | None, problems: list[str]) -> int | None:
    value = detail.get(key) if key else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"detail.{key}: not a whole number of seconds ({quoted(value)})")
        return None
    return value


def _time(detail: Mapping[str, Any], key: str) -> list[str]:
    value = detail.get(key)
    if value is None or value == "" or timestamp(value) is not None:
        return []
    return [f"detail.{key}: not a time (epoch milliseconds or ISO 8601) ({quoted(value)})"]


def _transitions(detail: Mapping[str, Any], key: str, problems: list[str]) -> tuple[Transition, ...]:
    value = detail.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(f"detail.{key}: not a list ({quoted(value)})")
        return ()
    found = []
    for index, item in enumerate(value):
        status = item.get("Status") if isinstance(item, Mapping) else None
        if not isinstance(status, str):
            problems.append(f"detail.{key}[{index}]: no Status string ({quoted(item)})")
            continue
        message = item.get("StatusMessage")
        found.append(Transition(status, timestamp(item.get("StartTime")), message if isinstance(message, str) else ""))
    return tuple(found)


def _tags(detail: Mapping[str, Any], key: str, problems: list[str]) -> dict[str, str]:
    """The job's tags: a map in the event (a list of {Key, Value} is read too, as Describe... returns it)."""
    value = detail.get(key)
    if value is None:
        return {}
    if isinstance(value, list):
        value = {t.get("Key"): t.get("Value") for t in value if isinstance(t, Mapping)}
    if not isinstance(value, Mapping):
        problems.append(f"detail.{key}: not an object of tag values ({quoted(value)})")
        return {}
    tags = {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}
    execution = tags.get(PIPELINE_TAG)
    if execution is not None and execution_name(execution) is None:  # never acted on, never sent: dropped
        problems.append(f"detail.{key}.{PIPELINE_TAG}: {quoted(execution)} is not a pipeline execution ARN SageMaker "
                        f"gives ({EXECUTION_ARN_HINT})")
        del tags[PIPELINE_TAG]
    return tags


def _parent(detail: Mapping[str, Any], key: str, problems: list[str]) -> str:
    """The ARN of the job that launched this one, "" when none, or when it is none SageMaker gives (a problem)."""
    value = _optional(detail, key, str, problems)
    if not value:
        return ""
    pattern, noun = PARENTS[key]
    if not is_arn(value, pattern):
        problems.append(f"detail.{key}: {quoted(value)} is not a {noun} ARN SageMaker gives")
        return ""
    return str(value)


def _event_value(value: Any) -> Any:
    """A Describe member as an event carries it: datetimes as epoch-millisecond strings, all the way down."""
    if isinstance(value, datetime):
        return str(int(value.timestamp() * 1000))
    if isinstance(value, Mapping):
        return {key: _event_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_event_value(item) for item in value]
    return value


def _replay_name(value: Any) -> str | None:
    """The envelope's `replay-name`, set on events replayed from an EventBridge archive."""
    return value if isinstance(value, str) and value else None
