"""Typed model of the "SageMaker Training Job State Change" event (the fields we use; the rest is tolerated)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from rule_actions.actions import show

SOURCE = "aws.sagemaker"
DETAIL_TYPE = "SageMaker Training Job State Change"
DEBUG, PROFILER = "Debug", "Profiler"
FAMILIES = (DEBUG, PROFILER)
NOT_GIVEN = object()  # a rule whose configuration the event does not carry


class IgnoredEvent(ValueError):
    """The event is not a training-job state change we can act on; retrying cannot help."""


@dataclass(frozen=True)
class RuleStatus:
    family: str  # Debug | Profiler
    name: str  # RuleConfigurationName
    status: str  # RuleEvaluationStatus
    details: str = ""
    evaluation_job_arn: str = ""
    last_modified: datetime | None = None


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
    secondary_status: str
    rules: tuple[RuleStatus, ...]
    # (family, rule name) -> RuleParameters of the rule configurations the event carries, when it carries them
    rule_parameters: Mapping[tuple[str, str], Mapping[str, Any]]
    problems: tuple[str, ...] = ()  # entries of the detail that could not be read

    def parameters(self, rule: RuleStatus) -> Any:
        """The rule's RuleParameters from the event, or NOT_GIVEN when the event does not carry them."""
        return self.rule_parameters.get((rule.family, rule.name), NOT_GIVEN)


def parse_timestamp(value: Any) -> datetime | None:
    """Epoch milliseconds (number or string) or an ISO 8601 string; None when absent or unreadable."""
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        return datetime.fromtimestamp(float(value) / 1000, tz=timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        pass
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


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
    name, arn, status = (_text(detail, key) for key in ("TrainingJobName", "TrainingJobArn", "TrainingJobStatus"))
    problems: list[str] = []
    rules = tuple(
        rule
        for family in FAMILIES
        for rule in _statuses(detail.get(f"{family}RuleEvaluationStatuses"), family, problems)
    )
    parameters = {}
    for family in FAMILIES:
        configurations = detail.get(f"{family}RuleConfigurations")
        if isinstance(configurations, list):
            for item in configurations:
                if isinstance(item, Mapping) and isinstance(item.get("RuleConfigurationName"), str):
                    params = item.get("RuleParameters")
                    parameters[(family, item["RuleConfigurationName"])] = params if isinstance(params, Mapping) else {}
    return JobEvent(
        event_id=str(raw.get("id", "")),
        account=str(raw.get("account", "")),
        region=str(raw.get("region", "")),
        time=str(raw.get("time", "")),
        replay_name=_replay_name(raw.get("replay-name")),
        job_name=name,
        job_arn=arn,
        job_status=status,
        secondary_status=detail.get("SecondaryStatus") if isinstance(detail.get("SecondaryStatus"), str) else "",
        rules=rules,
        rule_parameters=parameters,
        problems=tuple(problems),
    )


def _text(detail: Mapping[str, Any], key: str) -> str:
    value = detail.get(key)
    if not isinstance(value, str) or not value:
        raise IgnoredEvent(f"detail.{key}: missing or not a non-empty string ({show(value)})")
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


def _replay_name(value: Any) -> str | None:
    """The envelope's `replay-name`, set on events replayed from an EventBridge archive."""
    return value if isinstance(value, str) and value else None
