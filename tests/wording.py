"""The words of each trigger family as the kinds receive them (messages.Occasion, payloads.py, destinations/), with the shapes
the tests write: a parsed event (planning.Parsed) or a JobEvent, a trigger, and the stops taken as the public
result dicts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rule_actions import payloads, registry
from rule_actions.config import Config
from rule_actions.contract import Outcome
from rule_actions.destinations import json as json_format
from rule_actions.jobs.training import FAMILY as TRAINING
from rule_actions.messages import MessageOccasion
from rule_actions.records import JobEvent, Message, Origin, Planned, Result, Trigger, TriggerFacts
from rule_actions.text import duration, one_line, plain  # noqa: F401 (re-exported for the tests)
from rule_actions.triggers.rule_status import rule_log_link  # noqa: F401 (re-exported for the tests)


def job_event(parsed: Any) -> JobEvent:
    return parsed.event if hasattr(parsed, "found") else parsed


def stops(trigger: Trigger, taken: Iterable[Mapping[str, Any]]) -> tuple[Result, ...]:
    """Results from the public dicts a test writes ({kind, target, outcome, reason, jobs})."""
    return tuple(Result(Planned(trigger, a["kind"], a["target"], Origin(a.get("origin", "config")),
                                Outcome(a["outcome"]), a["reason"], tuple(a.get("jobs", ())),
                                registry.effect(a["kind"])),
                        Outcome(a["outcome"]), a["reason"], tuple(a.get("jobs", ()))) for a in taken)


def occasion(parsed: Any, trigger: Trigger, region: str = "us-east-1",
             taken: Iterable[Mapping[str, Any]] | Iterable[Result] = ()) -> MessageOccasion:
    taken = list(taken)
    results = tuple(taken) if taken and isinstance(taken[0], Result) else stops(trigger, taken)
    return MessageOccasion(Config(), job_event(parsed), trigger, region, results)


def render(parsed: Any, trigger: Trigger, region: str = "us-east-1", taken: Iterable[Any] = ()) -> Message:
    return occasion(parsed, trigger, region, taken).message


def facts(parsed: Any, trigger: Trigger) -> TriggerFacts:
    return occasion(parsed, trigger).facts


def subject(parsed: Any, rule: Trigger) -> str:
    return render(parsed, rule).subject


def body(parsed: Any, rule: Trigger, region: str, taken: Iterable[Any] = ()) -> str:
    return render(parsed, rule, region, taken).body


def sms(parsed: Any, rule: Trigger, taken: Iterable[Any] = ()) -> str:
    return render(parsed, rule, "us-east-1", taken).short


def outcome_body(parsed: Any, outcome: Trigger, region: str) -> str:
    return render(parsed, outcome, region).body


def job_link(region: str, job_name: str) -> str:
    return TRAINING.console(region, job_name)[1]


def job_log_link(region: str, job_name: str) -> str:
    return TRAINING.logs(region, job_name)[1]


def chat(message: Message, parsed: Any, trigger: Trigger, region: str) -> dict[str, Any]:
    return payloads.chat(message, job_event(parsed), trigger, facts(parsed, trigger), region)


def thread_id(parsed: Any, trigger: Trigger) -> str:
    return payloads.thread_id(job_event(parsed), facts(parsed, trigger))


def json_payload(message: Message, parsed: Any, trigger: Trigger, region: str, taken: Iterable[Any],
                 delivery: str) -> dict[str, Any]:
    return json_format.json_payload(message, job_event(parsed), trigger, facts(parsed, trigger), region,
                                    occasion(parsed, trigger, region, taken).stops, delivery)


def webhook_body(fmt: str, message: Message, parsed: Any, trigger: Trigger, region: str, taken: Iterable[Any],
                 delivery: str) -> bytes:
    seen = occasion(parsed, trigger, region, taken)
    seen.__dict__["message"] = message  # (the message the test gives: cached_property's slot)
    return registry.destinations()[fmt].body(seen, delivery, {})
