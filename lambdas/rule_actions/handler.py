"""The Lambda handler: parse -> plan -> execute -> result. No decisions here.

Returns {"training_job": ..., "actions": [...]} (plus "ignored" with the reason for events it cannot act on).
Raises ActionsFailed after every action was attempted when any failed, so that Lambda retries them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rule_actions import execute, plan
from rule_actions.config import Settings
from rule_actions.effects import client, error_code, error_message
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.notify import Notifier
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.model import IgnoredEvent, parse_event
from rule_actions.observability import emit_outcomes, log_action, logger, metrics


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
    failed = [a for a in outcome["actions"] if a["outcome"] == plan.FAILED]
    if failed:
        summary = "; ".join(f"{a['rule']} {a['kind']} {a['target']}: {a['reason']}" for a in failed)
        raise ActionsFailed(f"{len(failed)} action(s) failed for {outcome['training_job']}: {summary}", outcome)
    return outcome


def process(raw: Any, settings: Settings, effects: execute.Effects) -> dict[str, Any]:
    config = settings.config
    metrics.add_metric(name="Events", unit="Count", value=1)
    try:
        event = parse_event(raw)
    except IgnoredEvent as err:
        return _ignored(None, str(err))
    logger.append_keys(training_job=event.job_name, event_id=event.event_id)
    for problem in event.problems:
        logger.warning("unreadable part of the event", problem=problem)
    if not config.job_in_scope(event.job_name):
        return _ignored(event.job_name, "training job is not under training_job_prefixes")
    described: Any = None
    if plan.needs_description(event, config):
        try:
            described = effects.sagemaker.rule_parameters(event.job_name)
        except Exception as err:  # reported per rule as failed: the retry reads it again
            described = f"DescribeTrainingJob failed, action_json unknown: {error_code(err)}: {error_message(err)}"
    results = execute.run(plan.plan(event, config, described), event, config, effects)
    for item in results:
        log_action(event.job_name, item)
    emit_outcomes(results)
    return {"training_job": event.job_name, "actions": results}


def _ignored(job: str | None, reason: str) -> dict[str, Any]:
    logger.info("event ignored", reason=reason)
    metrics.add_metric(name="IgnoredEvents", unit="Count", value=1)
    return {"training_job": job, "actions": [], "ignored": reason}
