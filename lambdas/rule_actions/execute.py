"""Read what the plan needs, and carry the planned actions out: each at most once (the ledger), every one
attempted. Only the adapters in effects/ call AWS."""

from __future__ import annotations

from dataclasses import dataclass, replace

from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyPersistenceLayerError,
)

from rule_actions import kinds
from rule_actions.contract import Outcome
from rule_actions.effects import begin_invocation, error_text
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.members import Members
from rule_actions.effects.notify import Notifier
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.effects.webhook import Webhooks
from rule_actions.kinds import NotDone
from rule_actions.model import JobEvent
from rule_actions.observability import logger
from rule_actions.privacy import redact
from rule_actions.records import Facts, Planned, Reads, Result


@dataclass(frozen=True)
class Effects:
    sagemaker: SageMaker
    notifier: Notifier
    ledger: Ledger
    region: str
    webhooks: Webhooks
    members: Members | None = None  # organization mode: SageMaker in each event's account (effects/members.py)

    def register(self, lambda_context: object) -> None:
        """The invocation's context: AWS calls, in-progress records and webhook retries end with its remaining time."""
        begin_invocation(lambda_context)
        self.ledger.register(lambda_context)
        self.webhooks.register(lambda_context)

    def where(self, account: str, region: str) -> Effects:
        """The effects for a job of `account` in `region`: with members, SageMaker there (through the account's
        executor role) and messages linking to that region; with one account, these."""
        if self.members is None:
            return self
        return replace(self, sagemaker=self.members.sagemaker(account, region), region=region)


def read_facts(needed: Reads, event: JobEvent, facts: Facts, effects: Effects) -> Facts:
    """Read what `needed` names. A listing that fails makes its stop fail (and the event be retried); an unknown
    team audience or stop record lets the message go out (better twice than never)."""
    listings: dict[str, tuple[str, ...] | str] = {}
    for prefix in sorted(needed.prefixes):
        try:
            listings[prefix] = tuple(effects.sagemaker.in_progress_jobs(prefix))
        except Exception as err:
            listings[prefix] = f"ListTrainingJobs failed: {error_text(err)}"
    team, stopped_by = facts.team_subscribed, facts.stopped_by
    if needed.team:
        try:
            team = effects.notifier.team_subscribed()
        except Exception as err:
            logger.warning("team audience unknown: notify goes out", error=error_text(err))
    if needed.stopped_by:
        try:
            stopped_by = effects.ledger.stopped_by(event.job_arn)
        except Exception as err:
            logger.warning("stop record unknown: the outcome is not held back", error=error_text(err))
    return replace(facts, listings=listings, team_subscribed=team, stopped_by=stopped_by)


def run(planned: list[Planned], event: JobEvent, effects: Effects) -> list[Result]:
    results: list[Result] = []
    for item in planned:
        if item.outcome:
            results.append(item.result(item.outcome, item.reason))
            continue
        kind = kinds.get(item.kind)
        # What a message reports as taken: its trigger's stops so far (never another recipient's address).
        taken = [r.as_dict() for r in results if r.planned.trigger == item.trigger and r.jobs is not None]
        key = {"job": event.job_arn, **item.trigger.ledger_fields, "kind": item.kind, "target": kind.identity(item.target)}

        def work(item: Planned = item, taken: list = taken, kind: kinds.Kind = kind) -> dict:
            done = kind.carry_out(item, event, effects, taken)
            return {**done, "reason": redact(done["reason"])}  # the ledger keeps it: redacted like any result

        try:
            done = effects.ledger.once(key, work)
        except NotDone as nd:
            results.append(item.result(nd.outcome, nd.reason))
        except IdempotencyAlreadyInProgressError:
            reason = "in progress in a concurrent invocation; failed here so the retry confirms it was done"
            results.append(item.result(Outcome.FAILED, reason))
        except IdempotencyPersistenceLayerError as err:
            source = err.args[1] if len(err.args) > 1 else err  # Powertools passes the AWS error second
            cause = error_text(source)
            if "to success" in str(err.args[0]):  # the work ran; only its record could not be completed
                reason = (f"carried out, but the ledger could not record it ({cause}); a redelivery repeats it only "
                          "after its in-progress record expires")
            else:
                reason = f"ledger unavailable, not attempted: {cause}"
            results.append(item.result(Outcome.FAILED, reason))
        except Exception as err:  # every action is attempted; the handler raises for the failed ones at the end
            results.append(item.result(Outcome.FAILED, error_text(err)))
        else:
            jobs = tuple(done.get("jobs") or ())
            if done.get("duplicate"):
                reason = f"already done ({done['reason']}); ledger record until {done['ledger_expires']}"
                results.append(item.result(Outcome.DUPLICATE, reason, jobs))
            else:
                results.append(item.result(Outcome.DONE, done["reason"], jobs))
    return results
