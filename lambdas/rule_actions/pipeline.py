"""The route of every invocation, one way: an event (or a request) -> its job and triggers -> the plan, built once
-> while it needs something, the readers read it -> decide -> the job family learns what was read of its job ->
when an action is to be carried out, what the job cost (cost.py: its prices and a tuning job's trials read) -> carry
each action out, at most once (the ledger), every one attempted -> results.

    read_event(raw)        the job family parses the event; every trigger family observes it (problems named)
    select(...)            the triggers that count under the configuration
    request(raw, ...)      an invocation that is a trigger family's own request (a test notification), if it is
    run(...)               plan, read, decide, the job's cost, carry out: the results, in plan order

Only the ports it is handed (effects/) call AWS; plug-ins are reached through the registry.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from rule_actions import cost, registry
from rule_actions.config import Config
from rule_actions.contract import Outcome
from rule_actions.messages import Occasion
from rule_actions.plan import Plan
from rule_actions.ports import InProgressElsewhere, LedgerUnavailable, Ports
from rule_actions.privacy import redact
from rule_actions.records import IgnoredEvent, JobEvent, Need, NothingDone, Planned, Result, Trigger, Unread
from rule_actions.text import error_text, quoted, timestamp


def read_event(raw: Any) -> tuple[JobEvent, list[Trigger]]:
    """The event's job (its family's reading) and everything the trigger families observe in it; IgnoredEvent
    naming the field when it is no state change of a known family or names no job."""
    if not isinstance(raw, Mapping):
        raise IgnoredEvent(f"event: not an object ({type(raw).__name__})")
    family = registry.job_family(raw)
    if family is None:
        raise IgnoredEvent(f"not a state change of a SageMaker job this stack acts on (source "
                           f"{quoted(raw.get('source'))}, detail-type {quoted(raw.get('detail-type'))})")
    event = family.parse(raw)
    found: list[Trigger] = []
    problems = list(event.problems)
    for trigger_family in registry.TRIGGERS:
        observed, unreadable = trigger_family.observe(event)
        found += observed
        problems += unreadable
    return replace(event, problems=tuple(problems)), found


def select(event: JobEvent, found: list[Trigger], config: Config) -> list[Trigger]:
    """The observed triggers that count here, family by family in registry order (rules before the outcome)."""
    return [trigger for family in registry.TRIGGERS
            for trigger in family.select([t for t in found if t.TYPE == family.type], event, config)]


def request(raw: Any, region: str, config: Config) -> tuple[JobEvent, Trigger] | None:
    """The stand-in event and the trigger of a trigger family's own request; None when `raw` is no such request
    (IgnoredEvent, naming the field, when it is one but malformed)."""
    for family in registry.TRIGGERS:
        found = family.request(raw, region, config)
        if found is not None:
            return found
    return None


class Ran(NamedTuple):
    results: list[Result]  # every planned action's, in plan order
    unread: list[Unread]  # the reads that failed (each already reflected in the results or the cost)
    cost: cost.JobCost | None  # what the job cost at the event's time; None: nothing carried out, or no cost here


def run(event: JobEvent, triggers: list[Trigger], config: Config, ports: Ports) -> Ran:
    """Every planned action's result, the reads that failed, and the job's cost when an action was carried out."""
    plan = Plan.build(event, triggers, config)
    unread: list[Unread] = []
    while needs := plan.needs():
        answers = read(needs, ports)
        unread += [answer for answer in answers.values() if isinstance(answer, Unread)]
        plan = plan.learn(answers)
    decided = plan.decide()
    if event.family is not None:  # what its words say of the job: its failed trials, its failed steps
        event = event.family.learn(event, plan.facts)
    found = job_cost(event, config, ports, unread) if any(item.outcome is None for item in decided) else None
    return Ran(carry_out(decided, config, event, ports, found), unread, found)


def job_cost(event: JobEvent, config: Config, ports: Ports, unread: list[Unread]) -> cost.JobCost | None:
    """What the event's job cost at the event's time (its prices, a tuning job's trials read; a failed read makes
    the figure unknown, naming it); None for a family without a cost (a pipeline execution) or a test."""
    billing = event.family.billing if event.family is not None else None
    if billing is None:
        return None
    region = event.region or ports.region
    answers = read(cost.needs(billing, event.detail, region, config.prices, event.job_name), ports)
    unread += [answer for answer in answers.values() if isinstance(answer, Unread)]
    when = timestamp(event.time) or event.last_modified
    at = int(when.timestamp()) if when else int(time.time())
    return cost.of(billing, event.detail, region, config.prices, answers, at, event.job_name)


def read(needs: frozenset[Need], ports: Ports) -> dict[Need, Any]:
    """Each need's answer from its reader; a read that fails is an Unread naming the call and the error."""
    answers: dict[Need, Any] = {}
    for need in sorted(needs, key=repr):
        reader = registry.reader(need)
        try:
            answers[need] = reader.read(need, ports)
        except Exception as err:
            answers[need] = Unread(f"{reader.failure(need)}: {error_text(err)}")
    return answers


class _Unrecorded(Exception):
    """Carries a NothingDone out of the ledger, which then keeps no record of the action."""

    def __init__(self, nothing: NothingDone):
        super().__init__(nothing.reason)
        self.nothing = nothing


def carry_out(planned: list[Planned], config: Config, event: JobEvent, ports: Ports,
              found: cost.JobCost | None = None) -> list[Result]:
    """Each action still open, at most once (the ledger), every one attempted; each decision not to carry one out
    said once (the ledger too); a failed one as decided, never recorded (a retry reads it again). `found`: what the
    job cost (its messages and stops say it)."""
    results: list[Result] = []
    for item in planned:
        if item.outcome == Outcome.FAILED:  # never recorded: the retry it causes decides again
            results.append(item.result(item.outcome, item.reason))
            continue
        if item.outcome:
            results.append(_said(item, _key(event, item), ports))
            continue
        kind = registry.kind(item.kind)
        stops = tuple(r for r in results if r.planned.trigger == item.trigger and r.jobs is not None)
        occasion = Occasion(config, event, item.trigger, ports.region, stops, found)

        def work(item: Planned = item, occasion: Occasion = occasion, kind: Any = kind) -> dict[str, Any]:
            done = kind.carry_out(item, occasion, ports)
            if isinstance(done, NothingDone):
                raise _Unrecorded(done)
            return {"reason": redact(done.reason), "jobs": list(done.jobs)}  # the ledger keeps it: redacted

        results.append(_once(item, _key(event, item), work, ports))
    return results


def _key(event: JobEvent, item: Planned) -> dict[str, str]:
    """The ledger key of carrying the action out (never change a released one), or of a decision not to: the same
    with the outcome added, so that a recorded refusal never stands for the action done (allowed later, it runs
    once). An invalid entry, which may name no kind or target, is told apart by its reason (it names the field)."""
    kind = registry.KINDS.get(item.kind)
    key = {"job": event.job_arn, **item.trigger.ledger_fields, "kind": item.kind,
           "target": kind.identity(item.target) if kind else item.target}
    if item.outcome is None:
        return key
    return {**key, "decided": str(item.outcome), **({"entry": item.reason} if item.outcome == Outcome.INVALID else {})}


def _said(item: Planned, key: dict[str, str], ports: Ports) -> Result:
    """A decision not to act, reported once per (job, trigger, action, outcome) while its record lasts; when the
    ledger cannot tell, reported again rather than failed (a failed action is retried and alarms)."""
    try:
        record = ports.ledger.once(key, lambda: {"reason": redact(item.reason)})
    except InProgressElsewhere:
        return item.result(item.outcome, f"{item.reason} (its ledger record is in progress: reported here too)")
    except Exception as err:  # whatever the ledger raises, a decision stays a decision
        cause = err.cause if isinstance(err, LedgerUnavailable) else error_text(err)
        return item.result(item.outcome, f"{item.reason} (not recorded as reported: {cause})")
    if record.get("duplicate"):
        return item.result(Outcome.DUPLICATE, f"already reported: {item.outcome} ({record['reason']}); ledger record "
                                              f"until {record['ledger_expires']}")
    return item.result(item.outcome, item.reason)


def _once(item: Planned, key: dict[str, str], work: Any, ports: Ports) -> Result:
    try:
        record = ports.ledger.once(key, work)
    except _Unrecorded as err:
        return item.result(err.nothing.outcome, err.nothing.reason)
    except InProgressElsewhere:
        return item.result(Outcome.FAILED, "in progress in a concurrent invocation; failed here so the retry "
                                           "confirms it was done")
    except LedgerUnavailable as err:
        if err.after_work:  # the work ran; only its record could not be completed
            return item.result(Outcome.FAILED, f"carried out, but the ledger could not record it ({err.cause}); a "
                                               "redelivery repeats it only after its in-progress record expires")
        return item.result(Outcome.FAILED, f"ledger unavailable, not attempted: {err.cause}")
    except Exception as err:  # every action is attempted; the handler raises for the failed ones at the end
        return item.result(Outcome.FAILED, error_text(err))
    jobs = tuple(record.get("jobs") or ())
    if record.get("duplicate"):
        reason = f"already done ({record['reason']}); ledger record until {record['ledger_expires']}"
        return item.result(Outcome.DUPLICATE, reason, jobs)
    return item.result(Outcome.DONE, record["reason"], jobs)

