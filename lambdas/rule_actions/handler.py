"""The Lambda handler: parse -> triggers -> plan -> execute -> result. No decisions here.

Returns {"training_job": ..., "actions": [...]} (plus "ignored" with the reason for events it cannot act on,
and "problems" naming the parts of the event that could not be read). Raises ActionsFailed after every action
was attempted when any failed, so that Lambda retries them. Nothing personal or secret is in either.

A test notification request (testnotify.py) returns {"test_notification": id, "actions": [...]} and never
raises for a destination that failed: the caller reads each outcome, and nothing retries or alarms on a test.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from rule_actions import execute, organization, plan, testnotify, triggers
from rule_actions.config import Settings
from rule_actions.contract import REFUSED_ACCOUNT_METRIC, Outcome
from rule_actions.effects import client, error_text, partition
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.members import Members
from rule_actions.effects.notify import Notifier
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.effects.webhook import Webhooks
from rule_actions.model import IgnoredEvent, JobEvent, Trigger, parse_event
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
    org = settings.config.organization
    effects = execute.Effects(
        sagemaker=SageMaker(client("sagemaker", settings.region)),
        notifier=Notifier(client("sns", settings.region), settings.topic_arn, settings.chat_topic_arn),
        ledger=Ledger(settings.ledger_table, settings.config.dedup_ttl_hours, client("dynamodb", settings.region)),
        region=settings.region,
        # Lambda sets AWS_LAMBDA_FUNCTION_NAME: there, https only; plain http to loopback only in a local replay.
        webhooks=Webhooks(settings.config.webhooks, lambda: client("secretsmanager", settings.region),
                          loopback_http="AWS_LAMBDA_FUNCTION_NAME" not in os.environ),
        members=Members(client("sts", settings.region), partition(settings.region), org.role_name) if org else None,
    )
    return settings, effects


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    settings, effects = runtime()
    effects.register(context)
    if testnotify.is_request(event):
        return test_notification(event, settings, effects)
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
    if config.organization:  # organization mode: act in the event's account and region, if it is a member's
        refused = organization.refusal(config.organization, event)
        if refused:
            metrics.add_metric(name=REFUSED_ACCOUNT_METRIC, unit="Count", value=1)
            return _ignored(event.job_name, refused, event.problems)
        event, effects = organization.named(config.organization, event), effects.where(event.account, event.region)
        logger.append_keys(account=event.account)
    if not config.job_in_scope(event.job_name):
        return _ignored(event.job_name, "training job is not under training_job_prefixes", event.problems)
    found = triggers.find(event, config)
    actions = _act(event, found, settings, effects)
    return _with_problems({"training_job": event.job_name, **_account(event), "actions": actions}, event.problems)


def test_notification(raw: Any, settings: Settings, effects: execute.Effects) -> dict[str, Any]:
    """One test message to every destination; each destination's outcome, never an exception for them."""
    try:
        event, trigger = testnotify.parse(raw, settings.region)
    except IgnoredEvent as err:
        return _ignored(None, str(err))
    logger.append_keys(test_notification=trigger.request_id)
    metrics.add_metric(name="TestNotifications", unit="Count", value=1)
    return redact({"test_notification": trigger.request_id, "actions": _act(event, [trigger], settings, effects)})


def _act(event: JobEvent, found: list[Trigger], settings: Settings, effects: execute.Effects) -> list[dict[str, Any]]:
    """Read what the plan needs, plan, carry out; one log line per decision, the metrics; the public results."""
    config = settings.config
    facts = Facts(described=_described(event, found, settings, effects))
    facts = execute.read_facts(plan.reads(event, found, config, facts.described), event, facts, effects)
    results = execute.run(plan.plan(event, found, config, facts), event, effects)
    for item in results:
        log_action(event.job_name, item)
    emit(found, results)
    return [r.as_dict() for r in results]


def _account(event: JobEvent) -> dict[str, str]:
    """Organization mode: the account the job ran in, and its alias when one is configured."""
    if not event.account_name:
        return {}
    alias = {"account_alias": event.account_name} if event.account_name != event.account else {}
    return {"account": event.account, **alias}


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
