"""The Lambda handler: parse -> triggers -> plan -> execute -> result. No decisions here.

Returns {"training_job": ..., "actions": [...]} (plus "ignored" with the reason for events it cannot act on,
and "problems" naming the parts of the event that could not be read). Raises ActionsFailed after every action
was attempted when any failed, so that Lambda retries them. Nothing personal or secret is in either.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rule_actions import execute, plan, triggers
from rule_actions.config import Settings
from rule_actions.contract import Outcome
from rule_actions.effects import client, error_text
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.notify import Notifier
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.model import IgnoredEvent, parse_event
from rule_actions.observability import emit, log_action, logger, metrics
from rule_actions.privacy import redact
from rule_actions.records import Facts


class ActionsFailed(RuntimeError):
    """Some actions failed; Lambda retries the event and the ledger skips the ones already done."""

    def __init__(self, message: str, result: dict[str, Any]):
        super().__init__(message)
        self.result = result  # every action's outcome, for callers in-process (the local replay)


@cache
def runtime() -> tuple[Settings, execute.Effects]:
    """Settings and AWS clients, validated and created once per execution environment."""
    settings = Settings.from_env()
    effects = execute.Effects(
        sagemaker=SageMaker(client("sagemaker", settings.region)),
        notifier=Notifier(client("sns", settings.region), settings.topic_arn),
        ledger=Ledger(settings.ledger_table, settings.config.dedup_ttl_hours, client("dynamodb", settings.region)),
        region=settings.region,
    )
    return settings, effects


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    settings, effects = runtime()
    effects.ledger.register(context)
    outcome = process(event, settings, effects)
    failed = [a for a in outcome["actions"] if a["outcome"] == Outcome.FAILED]
    if failed:
        summary = "; ".join(f"{a['trigger']} {a['kind']} {a['target']}: {a['reason']}" for a in failed)
        raise ActionsFailed(f"{len(failed)} action(s) failed for {outcome['training_job']}: {summary}", outcome)
    return outcome


def process(raw: Any, settings: Settings, effects: execute.Effects) -> dict[str, Any]:
    config = settings.config
    metrics.add_metric(name="Events", unit="Count", value=1)
    try:
        event = parse_event(raw)
    except IgnoredEvent as err:
        return _ignored(err.job, str(err))
    logger.append_keys(training_job=event.job_name, event_id=event.event_id)
    for problem in event.problems:
        logger.warning("unreadable part of the event", problem=problem)
    if not config.job_in_scope(event.job_name):
        return _ignored(event.job_name, "training job is not under training_job_prefixes", event.problems)
    found = triggers.find(event, config)
    facts = Facts(described=_described(event, found, settings, effects))
    facts = execute.read_facts(plan.reads(event, found, config, facts.described), event, facts, effects)
    results = execute.run(plan.plan(event, found, config, facts), event, effects)
    for item in results:
        log_action(event.job_name, item)
    emit(found, results)
    return _with_problems({"training_job": event.job_name, "actions": [r.as_dict() for r in results]}, event.problems)


def _described(event: Any, found: list, settings: Settings, effects: execute.Effects) -> Any:
    """The rule parameters from DescribeTrainingJob when the event lacks an action_json it needs; else None."""
    if not plan.needs_description(event, found, settings.config):
        return None
    try:
        return effects.sagemaker.rule_parameters(event.job_name)
    except Exception as err:  # reported per rule as failed: the retry reads it again
        return f"DescribeTrainingJob failed, action_json unknown: {error_text(err)}"


def _ignored(job: str | None, reason: str, problems: tuple[str, ...] = ()) -> dict[str, Any]:
    logger.info("event ignored", reason=reason)
    metrics.add_metric(name="IgnoredEvents", unit="Count", value=1)
    return _with_problems({"training_job": job, "actions": [], "ignored": reason}, problems)


def _with_problems(result: dict[str, Any], problems: tuple[str, ...]) -> dict[str, Any]:
    """The result, with the parts of the event that could not be read (quoted from the event: redacted)."""
    return {**redact(result), "problems": [redact(p) for p in problems]} if problems else redact(result)
