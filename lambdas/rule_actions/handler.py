"""The Lambda handler, entry only: which source is this (a trigger family's request, a scheduled evaluation, or a
job's state change) -> pipeline -> result. No decisions and no reads here.

Returns {"training_job": ..., "job": ..., "job_family": ..., "actions": [...]} (plus "ignored" with the reason for
events it cannot act on, and "problems" naming the parts of the event that could not be read): "job" names the
job of any family ("training", "tuning", "processing", "pipeline", "transform": "job_family"), "training_job" the
job of a training event as before (null for the other families). Raises ActionsFailed after every action was
attempted when any failed, so that Lambda retries them. Nothing personal or secret is in either.

A test notification request (triggers/test.py) returns {"test_notification": id, "actions": [...]} and never
raises for a destination that failed: the caller reads each outcome, and nothing retries or alarms on a test.

A scheduled evaluation (the evaluator function's schedule: {"rule_actions_evaluation": {...}}) has the monitor rules
judge every running job in scope (registry.evaluate), then hands each job whose rules hold to `process` as the
state change it becomes: the same route as a Debugger rule status. It returns {"evaluation": {...}, "jobs": [...]}
(each job's verdicts, actions and problems); a job whose reads fail is reported and the others go on; it raises
ActionsFailed when an action failed (the errors alarm), after every job was handled.
"""

from __future__ import annotations

import os
import time
from functools import cache
from typing import Any

from rule_actions import organization, pipeline, registry
from rule_actions.config import Settings
from rule_actions.contract import (
    EVALUATED_METRIC,
    EVALUATION_ERRORS_METRIC,
    EVALUATION_PROBLEMS_METRIC,
    EVALUATION_SECONDS_METRIC,
    EVENTS_METRIC,
    FINDINGS_METRIC,
    IGNORED_METRIC,
    REFUSED_ACCOUNT_METRIC,
    TEST_METRIC,
    UNFINISHED_METRIC,
    Outcome,
)
from rule_actions.effects import client, partition
from rule_actions.effects.adapters import Adapters
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.notify import Notifier
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.effects.webhook import Webhooks
from rule_actions.observability import emit, log_action, logger, metrics
from rule_actions.privacy import redact
from rule_actions.records import IgnoredEvent, JobEvent, Trigger
from rule_actions.text import iso_z

EVENT_KEYS = ("job", "job_family", "event_id")  # what process() adds to the log lines of an event's handling
TRAINING = "training"  # the family whose job the result's "training_job" names (its key since the first release)


class ActionsFailed(RuntimeError):
    """Some actions failed; Lambda retries the event and the ledger skips the ones already done."""

    def __init__(self, message: str, result: dict[str, Any]):
        super().__init__(message)
        self.result = result  # every action's outcome, for callers in-process (the local replay)


@cache
def runtime() -> tuple[Settings, Adapters]:
    """Settings and AWS clients, validated and created once per execution environment."""
    settings = Settings.from_env()
    config = settings.config
    org = config.organization
    if org:  # organization mode only (imported here: a single-account cold start never pays for it)
        from rule_actions.effects.members import Members
    adapters = Adapters(
        jobs=SageMaker(client("sagemaker", settings.region)),
        notifier=Notifier(client("sns", settings.region), settings.topic_arn, settings.chat_topic_arn),
        ledger=Ledger(settings.ledger_table, config.dedup_ttl_hours, client("dynamodb", settings.region)),
        region=settings.region,
        # Lambda sets AWS_LAMBDA_FUNCTION_NAME: there, https only; plain http to loopback only in a local replay.
        webhooks=Webhooks(lambda: client("secretsmanager", settings.region),
                          loopback_http="AWS_LAMBDA_FUNCTION_NAME" not in os.environ),
        members=Members(client("sts", settings.region), partition(settings.region), org.role_name) if org else None,
        heard={},  # what the evaluations of this environment read of the jobs' logs
    )
    return settings, adapters


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    settings, adapters = runtime()
    adapters.register(context)
    try:
        requested = pipeline.request(event, settings.region, settings.config)
    except IgnoredEvent as err:  # a request of a trigger family's own, malformed
        return _ignored(None, str(err))
    if requested is not None:
        return test_notification(*requested, settings, adapters)
    try:
        evaluation = registry.evaluation_request(event)
    except IgnoredEvent as err:  # a scheduled evaluation's request, malformed
        return _ignored(None, str(err))
    if evaluation is not None:
        return evaluate(evaluation, settings, _evaluating(adapters), context)
    outcome = process(event, settings, adapters)
    failed = [a for a in outcome["actions"] if a["outcome"] == Outcome.FAILED]
    if failed:
        summary = "; ".join(f"{a['trigger']} {a['kind']} {a['target']}: {a['reason']}" for a in failed)
        raise ActionsFailed(f"{len(failed)} action(s) failed for {outcome['job']}: {summary}", outcome)
    return outcome


def process(raw: Any, settings: Settings, adapters: Adapters) -> dict[str, Any]:
    config = settings.config
    metrics.add_metric(name=EVENTS_METRIC, unit="Count", value=1)
    try:
        event, found = pipeline.read_event(raw)
    except IgnoredEvent as err:
        return _ignored(err.job, str(err), family=registry.job_family(raw))
    logger.append_keys(job=event.job_name, job_family=event.family.name, event_id=event.event_id)  # EVENT_KEYS
    for problem in event.problems:
        logger.warning("unreadable part of the event", problem=problem)
    ports = adapters
    if config.organization:  # organization mode: act in the event's account and region, if it is a member's
        event = organization.named(config.organization, event)
        refused = organization.refusal(config.organization, event)
        if refused:
            metrics.add_metric(name=REFUSED_ACCOUNT_METRIC, unit="Count", value=1)
            return _ignored(event.job_name, refused, event.problems, event.family, _account(event))
        ports = adapters.in_account(event.account, event.region)
        logger.append_keys(account=event.account)
    family = event.family
    if not family.in_scope(config, event.job_name):
        return _ignored(event.job_name, f"{family.noun} is not under {family.scope.key}", event.problems, family,
                        _account(event))
    actions = _act(event, pipeline.select(event, found, config), settings, ports)
    return _with_problems({**_job(event.job_name, family), **_account(event), "actions": actions}, event.problems)


def _evaluating(adapters: Adapters) -> Adapters:
    """The ports with the evaluation's reads, made once per execution environment (kept beside what it heard)."""
    if "ports" not in adapters.heard:
        adapters.heard["ports"] = adapters.evaluating(client)
    return adapters.heard["ports"]


# A run keeps this share of its time (at least RESERVE_MIN seconds) for acting on what it found.
RESERVE_SHARE, RESERVE_MIN = 0.15, 10.0


def evaluate(request: Any, settings: Settings, adapters: Adapters, context: Any) -> dict[str, Any]:
    """The monitor rules over every running job in scope of the request's account and region (one account: the
    stack's), then each job whose rules hold through `process`."""
    config = settings.config
    began = time.monotonic()
    remaining = context.get_remaining_time_in_millis() / 1000 if context is not None else 60.0
    deadline = began + remaining - max(RESERVE_MIN, RESERVE_SHARE * remaining)
    now = request.time or int(time.time())
    org = config.organization
    if org and not (request.account and request.region):
        return _ignored(None, "a scheduled evaluation in organization mode names the account and region it evaluates")
    if org and request.account not in org.accounts:
        return _ignored(None, f"account {request.account} is not a member of this organization configuration")
    ports = adapters.in_account(request.account, request.region) if org else adapters
    logger.append_keys(evaluation=now, account=request.account, shard=f"{request.shard}/{request.shards}")
    place = (request.account, request.region)
    report = registry.evaluate(request, config, ports, pipeline.read, now, lambda: time.monotonic() < deadline,
                               adapters.heard.get(place))
    adapters.heard[place] = report.heard  # (one dict per environment: the evaluation's ports share it)
    jobs, failed = [], []
    for job in report.jobs:
        named = {"training_job": job.job} if job.family == TRAINING else {"job": job.job, "job_family": job.family}
        row: dict[str, Any] = {**named,
                               "rules": [{"rule": v.rule, "verdict": v.verdict, "reason": v.reason}
                                         for v in job.verdicts]}
        for verdict in job.verdicts:
            if verdict.verdict not in ("NoIssuesFound", "Pending", "NotJudged"):  # the result says those each run
                (logger.warning if verdict.verdict in ("Error", "Skipped") else logger.info)(
                    "rule evaluated", **named, rule=verdict.rule, verdict=verdict.verdict,
                    reason=verdict.reason)
        for problem in job.problems:
            logger.warning("rule not evaluated", **named, problem=problem)
        if job.event is not None:
            outcome = process(job.event, settings, adapters)
            row["actions"] = outcome.get("actions", [])
            row.update({k: outcome[k] for k in ("account", "account_alias", "ignored") if k in outcome})
            failed += [a for a in row["actions"] if a["outcome"] == Outcome.FAILED]
        if job.problems:
            row["problems"] = list(job.problems)
        jobs.append(row)
        logger.remove_keys([*EVENT_KEYS, "account"])  # the job's event's keys, then the run's account again
        logger.append_keys(account=request.account)
    verdicts = [v.verdict for job in report.jobs for v in job.verdicts]
    for name, value in ((EVALUATED_METRIC, len(report.jobs)), (FINDINGS_METRIC, verdicts.count("IssuesFound")),
                        (EVALUATION_ERRORS_METRIC, verdicts.count("Error") + (1 if report.error else 0)),
                        (EVALUATION_PROBLEMS_METRIC,
                         verdicts.count("Skipped") + sum(len(j.problems) for j in report.jobs)),
                        (UNFINISHED_METRIC, report.unfinished)):
        metrics.add_metric(name=name, unit="Count", value=value)
    metrics.add_metric(name=EVALUATION_SECONDS_METRIC, unit="Seconds", value=round(time.monotonic() - began, 3))
    summary = {"time": iso_z(now), "account": request.account, "region": request.region,
               "shard": request.shard, "shards": request.shards, "running": report.listed,
               "evaluated": len(report.jobs), "findings": verdicts.count("IssuesFound"),
               "log_queries": report.log_queries, "unfinished": report.unfinished, **({"error": report.error} if report.error else {}),
               **({"log_reads": report.log_reads} if report.log_reads else {})}
    (logger.error if report.error else logger.info)("evaluation", **summary)
    result = redact({"evaluation": summary, "jobs": jobs})
    if failed:
        raise ActionsFailed(f"{len(failed)} action(s) failed in the evaluation at {now}", result)
    return result


def test_notification(event: JobEvent, trigger: Trigger, settings: Settings, adapters: Adapters) -> dict[str, Any]:
    """One test message to every destination; each destination's outcome, never an exception for them."""
    logger.append_keys(test_notification=event.event_id)
    metrics.add_metric(name=TEST_METRIC, unit="Count", value=1)
    return redact({"test_notification": event.event_id,
                   "actions": _act(event, [trigger], settings, adapters)})


def _act(event: JobEvent, triggers: list[Trigger], settings: Settings, ports: Adapters) -> list[dict[str, Any]]:
    """The pipeline over the triggers; one log line per decision and per failed read, the metrics; the results."""
    results, unread = pipeline.run(event, triggers, settings.config, ports)
    for failure in unread:
        logger.warning("read failed", reason=failure.reason)
    for item in results:
        log_action(event.job_name, item)
    emit(triggers, results)
    return [r.as_dict() for r in results]


def _account(event: JobEvent) -> dict[str, str]:
    """Organization mode: the account the job ran in, and its alias when one is configured."""
    if not event.account_name:
        return {}
    alias = {"account_alias": event.account_name} if event.account_name != event.account else {}
    return {"account": event.account, **alias}


def _job(job: str | None, family: Any) -> dict[str, Any]:
    """The result's job: "training_job" as before (a training job's name, else null), "job" and "job_family"."""
    name = family.name if family is not None else None
    return {"training_job": job if name == TRAINING else None, "job": job, "job_family": name}


def _ignored(job: str | None, reason: str, problems: tuple[str, ...] = (), family: Any = None,
             account: dict[str, str] | None = None) -> dict[str, Any]:
    logger.info("event ignored", reason=reason)
    metrics.add_metric(name=IGNORED_METRIC, unit="Count", value=1)
    return _with_problems({**_job(job, family), **(account or {}), "actions": [], "ignored": reason}, problems)


def _with_problems(result: dict[str, Any], problems: tuple[str, ...]) -> dict[str, Any]:
    """The result, with the parts of the event that could not be read (quoted from the event: redacted)."""
    return {**redact(result), "problems": [redact(p) for p in problems]} if problems else redact(result)


