"""Carry out the planned actions through the effects, each at most once (the ledger), every one attempted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyPersistenceLayerError,
)

from rule_actions import messages
from rule_actions.actions import EMAIL, NOTIFY, SMS, STOP
from rule_actions.config import Config
from rule_actions.effects import error_code, error_message
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.notify import PENDING, Notifier
from rule_actions.effects.sagemaker import NotRunning, SageMaker
from rule_actions.model import JobEvent
from rule_actions.plan import FAILED, SKIPPED, TEAM, Planned

DONE, DUPLICATE = "done", "duplicate"
MAX_NAMED_JOBS = 10


@dataclass(frozen=True)
class Effects:
    sagemaker: SageMaker
    notifier: Notifier
    ledger: Ledger
    region: str


class NotDone(Exception):
    """Nothing was done and nothing is recorded: a later delivery of this job's events tries again."""

    def __init__(self, outcome: str, reason: str):
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


def result(item: Planned, outcome: str, reason: str, jobs: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"rule": item.rule.name, "kind": item.kind, "target": item.target}
    if item.kind == STOP:
        out["jobs"] = jobs or []
    return {**out, "origin": item.origin, "outcome": outcome, "reason": reason}


def run(planned: list[Planned], event: JobEvent, config: Config, effects: Effects) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for item in planned:
        if item.outcome:
            results.append(result(item, item.outcome, item.reason))
            continue
        # What a message reports as taken: the rule's stops so far (never another recipient's address).
        taken = [r for r, p in zip(results, planned) if p.rule == item.rule and p.kind == STOP]
        work = _WORK[item.kind]
        key = {"job": event.job_arn, "family": item.rule.family, "rule": item.rule.name, "kind": item.kind,
               "target": item.target}
        try:
            done = effects.ledger.once(key, lambda: work(item, event, config, effects, taken))
        except NotDone as nd:
            results.append(result(item, nd.outcome, nd.reason))
        except IdempotencyAlreadyInProgressError:
            reason = "in progress in a concurrent invocation; failed here so the retry confirms it was done"
            results.append(result(item, FAILED, reason))
        except IdempotencyPersistenceLayerError as err:
            source = err.args[1] if len(err.args) > 1 else err  # Powertools passes the AWS error second
            cause = f"{error_code(source)}: {error_message(source)}"
            if "to success" in str(err.args[0]):  # the work ran; only its record could not be completed
                reason = (f"carried out, but the ledger could not record it ({cause}); a redelivery repeats it only "
                          "after its in-progress record expires")
            else:
                reason = f"ledger unavailable, not attempted: {cause}"
            results.append(result(item, FAILED, reason))
        except Exception as err:  # every action is attempted; the handler raises for the failed ones at the end
            results.append(result(item, FAILED, f"{error_code(err)}: {error_message(err)}"))
        else:
            if done.get("duplicate"):
                reason = f"already done ({done['reason']}); ledger record until {done['ledger_expires']}"
                results.append(result(item, DUPLICATE, reason, done.get("jobs")))
            else:
                results.append(result(item, DONE, done["reason"], done.get("jobs")))
    return results


def _stop(item: Planned, event: JobEvent, config: Config, effects: Effects, taken: list[dict[str, Any]]) -> dict[str, Any]:
    prefix, sagemaker = item.target, effects.sagemaker
    if prefix == event.job_name:
        candidates = [prefix]  # the job's own name: stop it directly, no listing
    else:
        candidates = sagemaker.in_progress_jobs(prefix)
        if not candidates:
            raise NotDone(SKIPPED, f"no InProgress training job starts with {prefix!r}")
        if event.job_name not in candidates and not config.allow_cross_job_stop:
            # A prefix covering this job covers others too; with this job gone they alone would be stopped.
            raise NotDone(
                SKIPPED,
                f"{event.job_name} is no longer InProgress; stopping only other jobs under {prefix!r} "
                f"({_names(candidates)}) needs allow_cross_job_stop",
            )
        if len(candidates) > 1 and not config.stop_all_matching:
            raise NotDone(
                SKIPPED,
                f"{len(candidates)} InProgress jobs start with {prefix!r} ({_names(candidates)}): "
                "stop_all_matching is false, so none was stopped",
            )
    stopped, already, not_running = [], [], []
    for name in candidates:
        try:
            status = sagemaker.stop(name)
        except NotRunning as err:
            not_running.append(f"{name} is {err.status}")
            continue
        if status == "stopped":
            stopped.append(name)
        else:
            already.append(f"{name} {status}")  # "already Stopping/Stopped" from SageMaker is success
    if not stopped and not already:
        raise NotDone(SKIPPED, f"nothing to stop: {'; '.join(not_running)}")
    notes = ([f"stopped {_names(stopped)}"] if stopped else []) + already + not_running
    return {"reason": "; ".join(notes), "jobs": stopped}


def _message(item: Planned, event: JobEvent, config: Config, effects: Effects, taken: list[dict[str, Any]]) -> dict[str, Any]:
    if item.kind in (EMAIL, SMS):
        state = effects.notifier.ensure_subscription(item.kind, item.target)
        if state == PENDING:
            raise NotDone(
                SKIPPED,
                f"{item.kind} subscription pending confirmation: {item.target} must confirm the AWS Notification "
                "message first; this message is sent on a later event of the job once confirmed",
            )
    to = TEAM if item.kind == NOTIFY else item.target
    message_id = effects.notifier.publish(
        to,
        messages.subject(event, item.rule),
        messages.body(event, item.rule, effects.region, taken),
        messages.sms(event, item.rule, taken),
    )
    audience = "the team subscribers" if item.kind == NOTIFY else item.target
    return {"reason": f"sent to {audience} (message {message_id})"}


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_NAMED_JOBS])
    return shown + (f" and {len(names) - MAX_NAMED_JOBS} more" if len(names) > MAX_NAMED_JOBS else "")


_WORK: dict[str, Callable[..., dict[str, Any]]] = {STOP: _stop, EMAIL: _message, SMS: _message, NOTIFY: _message}
