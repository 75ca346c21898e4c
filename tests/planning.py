"""The route as the pipeline takes it, with the readers' answers given instead of read: for the unit tests of the
planner, the trigger families and the kinds (no AWS)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from builders import job_arn

from rule_actions.config import Config
from rule_actions.pipeline import read_event, select
from rule_actions.plan import Plan
from rule_actions.records import Described, InProgress, JobEvent, Planned, StopRecord, TeamAudience, Trigger, Unread


@dataclass(frozen=True)
class Parsed:
    """An event as the pipeline reads it: its job (with every problem named) and the triggers observed in it."""

    event: JobEvent
    found: list[Trigger]

    def __getattr__(self, name: str) -> Any:  # the event's fields: parsed.job_name, parsed.problems...
        return getattr(self.event, name)

    @property
    def rules(self) -> tuple[Any, ...]:
        """The rule statuses observed (every status, in the event's order: Debug, then Profiler)."""
        return tuple(t for t in self.found if t.TYPE == "rule_status")

    def parameters(self, rule: Any) -> Any:
        """A rule's RuleParameters from the event's configurations (rule_status.NOT_GIVEN when it has none)."""
        return rule.parameters

    @property
    def outcome(self) -> Any:
        """The job outcome the event shows, if any."""
        return next((t for t in self.found if t.TYPE == "job_outcome"), None)


def parse_event(raw: Any) -> Parsed:
    return Parsed(*read_event(raw))


def renamed(parsed: Parsed, job: str) -> Parsed:
    """`parsed` for a job named `job`, which may be a name SageMaker never gives: read_event refuses such an event,
    and the renderers stay safe with one all the same (names are untrusted text wherever they come from)."""
    return replace(parsed, event=replace(parsed.event, job_name=job, job_arn=job_arn(job, parsed.account, parsed.region)))


def find(parsed: Parsed, config: Config) -> list[Trigger]:
    """The triggers that count under `config`."""
    return select(parsed.event, parsed.found, config)


def describe_answer(described: Mapping[tuple[str, str], Any]) -> dict[str, Any]:
    """(rule family, rule name) -> RuleParameters, as DescribeTrainingJob answers it."""
    answer: dict[str, list] = {}
    for (family, name), parameters in described.items():
        answer.setdefault(f"{family}RuleConfigurations", []).append(
            {"RuleConfigurationName": name, "RuleParameters": parameters})
    return answer


def answer(need: Any, described: Any, running: tuple[str, ...], team_subscribed: bool | None,
           stopped_by: str | None) -> Any:
    """What a reader would answer: `described` a mapping or a failure's reason; `team_subscribed` None: unknown."""
    if isinstance(need, Described):
        return Unread(described) if isinstance(described, str) else describe_answer(described or {})
    if isinstance(need, InProgress):
        return tuple(job for job in running if job.startswith(need.prefix))
    if isinstance(need, TeamAudience):
        return Unread("unknown") if team_subscribed is None else team_subscribed
    if isinstance(need, StopRecord):
        return stopped_by
    raise AssertionError(f"no answer for {need}")


def plan_all(raw: Any, config: Mapping[str, Any] | Config | None = None, described: Any = None,
             running: tuple[str, ...] = (), team_subscribed: bool | None = None,
             stopped_by: str | None = None) -> list[Planned]:
    """Plan an event as the pipeline does, the readers' answers given."""
    parsed = parse_event(raw)
    cfg = config if isinstance(config, Config) else Config.from_dict(config or {})
    plan = Plan.build(parsed.event, find(parsed, cfg), cfg)
    while needs := plan.needs():
        plan = plan.learn({need: answer(need, described, running, team_subscribed, stopped_by) for need in needs})
    return plan.decide()


def first_needs(raw: Any, config: Mapping[str, Any]) -> frozenset[Any]:
    """What the plan asks first (before anything is read)."""
    parsed, cfg = parse_event(raw), Config.from_dict(config)
    return Plan.build(parsed.event, find(parsed, cfg), cfg).needs()
