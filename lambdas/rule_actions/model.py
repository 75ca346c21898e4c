"""Typed model of the "SageMaker Training Job State Change" event (the fields we use; the rest is tolerated).

What cannot be read is a named problem on the event (`JobEvent.problems`), never a crash; only an event
without a job name, ARN and status is ignored (`IgnoredEvent`, naming the field).

The two kinds of trigger live here, beside the event they come from (which of them count is `triggers.find`):

    RuleStatus        a Debugger or Profiler rule's evaluation status        label: the rule's name
    JobOutcome        how the job ended, or that its spot capacity was lost   label: job:<Outcome>
    TestNotification  a test message to every destination (not an event)    label: test
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rule_actions.contract import DETAIL_TYPE, FAMILIES, JOB_OUTCOMES, JOB_TRIGGER_PREFIX, SOURCE
from rule_actions.records import show

NOT_GIVEN = object()  # a rule whose configuration the event does not carry


class IgnoredEvent(ValueError):
    """The event is not a training-job state change we can act on; retrying cannot help."""

    def __init__(self, reason: str, job: str | None = None):
        super().__init__(reason)
        self.job = job  # the job's name when the event names one


@dataclass(frozen=True)
class RuleStatus:
    """A rule's evaluation status; a trigger when it is IssuesFound or Error."""

    family: str  # Debug | Profiler
    name: str  # RuleConfigurationName
    status: str  # RuleEvaluationStatus
    details: str = ""
    evaluation_job_arn: str = ""
    last_modified: datetime | None = None

    @property
    def label(self) -> str:
        return self.name

    @property
    def rule(self) -> str | None:
        return self.name

    @property
    def ledger_fields(self) -> dict[str, str]:
        """The trigger's part of an exactly-once key (unchanged since the first release: records stay valid)."""
        return {"family": self.family, "rule": self.name}

    @property
    def metric(self) -> str:
        return f"rule:{self.status}"


@dataclass(frozen=True)
class JobOutcome:
    """How the job ended (or that its spot instances were interrupted): a key of contract.JOB_OUTCOMES."""

    outcome: str

    @property
    def label(self) -> str:
        return JOB_TRIGGER_PREFIX + self.outcome

    @property
    def rule(self) -> str | None:
        return None

    @property
    def ledger_fields(self) -> dict[str, str]:
        return {"outcome": self.outcome}

    @property
    def metric(self) -> str:
        return self.label


@dataclass(frozen=True)
class TestNotification:
    """`rule-actions test-notify`: one clearly marked message to every destination; `entries` are the email and
    sms actions the request adds. Its ledger keys hold its request id, never a job's: a test never consumes a
    real event's exactly-once record, and a retried request sends nothing twice."""

    request_id: str
    entries: tuple[Any, ...] = ()  # Action | Invalid (records.py)
    __test__ = False  # not a pytest test class, whatever its name

    @property
    def label(self) -> str:
        return "test"

    @property
    def rule(self) -> str | None:
        return None

    @property
    def ledger_fields(self) -> dict[str, str]:
        return {"test": self.request_id}

    @property
    def metric(self) -> str:
        return "test"


Trigger = RuleStatus | JobOutcome | TestNotification


@dataclass(frozen=True)
class Transition:
    """An entry of SecondaryStatusTransitions."""

    status: str
    start: datetime | None
    message: str


@dataclass(frozen=True)
class JobEvent:
    event_id: str
    account: str
    region: str
    time: str
    replay_name: str | None
    job_name: str
    job_arn: str
    job_status: str
    secondary_status: str | None
    rules: tuple[RuleStatus, ...]
    # (family, rule name) -> RuleParameters of the rule configurations the event carries, when it carries them
    rule_parameters: Mapping[tuple[str, str], Mapping[str, Any]]
    problems: tuple[str, ...] = ()  # parts of the detail that could not be read
    failure_reason: str = ""
    transitions: tuple[Transition, ...] = ()
    created: datetime | None = None
    started: datetime | None = None  # TrainingStartTime
    ended: datetime | None = None  # TrainingEndTime
    last_modified: datetime | None = None
    training_seconds: int | None = None
    billable_seconds: int | None = None
    # Organization mode: how messages and results name the account the job ran in (its alias, else its id);
    # empty with one account (rule_actions.organization.named sets it).
    account_name: str = ""

    def parameters(self, rule: RuleStatus) -> Any:
        """The rule's RuleParameters from the event, or NOT_GIVEN when the event does not carry them."""
        return self.rule_parameters.get((rule.family, rule.name), NOT_GIVEN)

    @property
    def outcome(self) -> JobOutcome | None:
        """The job outcome this event shows, if any (the conditions exclude one another)."""
        for name, condition in JOB_OUTCOMES.items():
            if condition.holds(self.job_status, self.secondary_status):
                return JobOutcome(name)
        return None

    def arn_of(self, job_name: str) -> str:
        """The ARN of another training job in the same account and region (SageMaker lower-cases the name)."""
        return f"{self.job_arn.rpartition('/')[0]}/{job_name.lower()}"


def parse_timestamp(value: Any) -> datetime | None:
    """Epoch milliseconds (number or string) or an ISO 8601 string; None when absent or unreadable."""
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        return datetime.fromtimestamp(float(value) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        pass
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_event(raw: Any) -> JobEvent:
    """Validate the envelope and the detail; raise IgnoredEvent naming the field when it cannot be used."""
    if not isinstance(raw, Mapping):
        raise IgnoredEvent(f"event: not an object ({type(raw).__name__})")
    if raw.get("source") != SOURCE or raw.get("detail-type") != DETAIL_TYPE:
        raise IgnoredEvent(
            f"not a training job state change (source {show(raw.get('source'))}, "
            f"detail-type {show(raw.get('detail-type'))})"
        )
    detail = raw.get("detail")
    if not isinstance(detail, Mapping):
        raise IgnoredEvent("detail: missing or not an object")
    named = detail.get("TrainingJobName")
    name, arn, status = (_text(detail, key, named) for key in ("TrainingJobName", "TrainingJobArn", "TrainingJobStatus"))
    problems: list[str] = []
    rules = tuple(
        rule
        for family in FAMILIES
        for rule in _statuses(detail.get(f"{family}RuleEvaluationStatuses"), family, problems)
    )
    fields = dict(  # read first: each may add to `problems`
        secondary_status=_optional(detail, "SecondaryStatus", str, problems),
        rule_parameters=_configurations(detail, problems),
        failure_reason=_optional(detail, "FailureReason", str, problems) or "",
        transitions=_transitions(detail.get("SecondaryStatusTransitions"), problems),
        training_seconds=_seconds(detail, "TrainingTimeInSeconds", problems),
        billable_seconds=_seconds(detail, "BillableTimeInSeconds", problems),
    )
    return JobEvent(
        event_id=str(raw.get("id", "")),
        account=str(raw.get("account", "")),
        region=str(raw.get("region", "")),
        time=str(raw.get("time", "")),
        replay_name=_replay_name(raw.get("replay-name")),
        job_name=name,
        job_arn=arn,
        job_status=status,
        rules=rules,
        problems=tuple(problems),
        created=parse_timestamp(detail.get("CreationTime")),
        started=parse_timestamp(detail.get("TrainingStartTime")),
        ended=parse_timestamp(detail.get("TrainingEndTime")),
        last_modified=parse_timestamp(detail.get("LastModifiedTime")),
        **fields,
    )


def _text(detail: Mapping[str, Any], key: str, named: Any) -> str:
    value = detail.get(key)
    if not isinstance(value, str) or not value:
        job = named if isinstance(named, str) and named else None
        raise IgnoredEvent(f"detail.{key}: missing or not a non-empty string ({show(value)})", job)
    return value


def _optional(detail: Mapping[str, Any], key: str, kind: type, problems: list[str]) -> Any:
    value = detail.get(key)
    if value is not None and not isinstance(value, kind):
        problems.append(f"detail.{key}: not a {kind.__name__} ({show(value)})")
        return None
    return value


def _seconds(detail: Mapping[str, Any], key: str, problems: list[str]) -> int | None:
    value = detail.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"detail.{key}: not a whole number of seconds ({show(value)})")
        return None
    return value


def _statuses(value: Any, family: str, problems: list[str]) -> list[RuleStatus]:
    """Rule evaluation statuses; an entry without a name or status cannot trigger anything: it is reported."""
    field = f"detail.{family}RuleEvaluationStatuses"
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"{field}: not a list ({show(value)})")
        return []
    rules = []
    for index, item in enumerate(value):
        name = item.get("RuleConfigurationName") if isinstance(item, Mapping) else None
        status = item.get("RuleEvaluationStatus") if isinstance(item, Mapping) else None
        if not (isinstance(name, str) and name and isinstance(status, str)):
            problems.append(f"{field}[{index}]: no RuleConfigurationName and RuleEvaluationStatus strings ({show(item)})")
        else:
            details = item.get("StatusDetails")
            job = item.get("RuleEvaluationJobArn")
            rules.append(
                RuleStatus(
                    family=family,
                    name=name,
                    status=status,
                    details=details if isinstance(details, str) else "",
                    evaluation_job_arn=job if isinstance(job, str) else "",
                    last_modified=parse_timestamp(item.get("LastModifiedTime")),
                )
            )
    return rules


def _configurations(detail: Mapping[str, Any], problems: list[str]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """(family, rule name) -> RuleParameters of the rule configurations the event carries."""
    parameters: dict[tuple[str, str], Mapping[str, Any]] = {}
    for family in FAMILIES:
        field = f"detail.{family}RuleConfigurations"
        configurations = detail.get(f"{family}RuleConfigurations")
        if configurations is None:
            continue
        if not isinstance(configurations, list):
            problems.append(f"{field}: not a list ({show(configurations)})")
            continue
        for index, item in enumerate(configurations):
            name = item.get("RuleConfigurationName") if isinstance(item, Mapping) else None
            if not (isinstance(name, str) and name):
                problems.append(f"{field}[{index}]: no RuleConfigurationName string ({show(item)})")
                continue
            params = item.get("RuleParameters")
            parameters[(family, name)] = params if isinstance(params, Mapping) else {}
    return parameters


def _transitions(value: Any, problems: list[str]) -> tuple[Transition, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(f"detail.SecondaryStatusTransitions: not a list ({show(value)})")
        return ()
    found = []
    for index, item in enumerate(value):
        status = item.get("Status") if isinstance(item, Mapping) else None
        if not isinstance(status, str):
            problems.append(f"detail.SecondaryStatusTransitions[{index}]: no Status string ({show(item)})")
            continue
        message = item.get("StatusMessage")
        found.append(Transition(status, parse_timestamp(item.get("StartTime")), message if isinstance(message, str) else ""))
    return tuple(found)


def _replay_name(value: Any) -> str | None:
    """The envelope's `replay-name`, set on events replayed from an EventBridge archive."""
    return value if isinstance(value, str) and value else None
