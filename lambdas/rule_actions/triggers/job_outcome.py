"""Job outcomes: how a job ended (or that its spot capacity was lost), for every job family.

Each job family declares its outcomes (conditions on its status and secondary status, with their words) and the
field that attaches actions to them (`job_outcomes` for training jobs, `tuning_job_outcomes`...): an outcome is a
trigger when that field gives it actions. A job this stack stopped ends Stopped (an AWS Batch service job it terminated,
Terminated: JobFamily.stop_record_of); that outcome's actions are skipped (read from the ledger's stop record), so
one stop does not alert twice, but for what the stop asked to follow it once the
job has stopped (a restart: the record's `then`), which the Stopped outcome carries out (matched for it when the
configuration may restart). The outcome of a job its family holds back (a tuning
job's trial, a pipeline step's job: another report covers it) is skipped too, each action naming that report;
when the family must read before it knows, the outcome's actions wait for that read. A restart this stack's stop
asked for is carried out all the same (an AWS Batch attempt's: through Batch). Only outcomes are held back:
the family's outcome clauses carry its quiet clause, the other trigger families' clauses never do. What the family
reads for an outcome's message (a tuning job's failed trials, a pipeline's failed steps) is read with the rest of
the plan, and the family words it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from rule_actions import cost as costs
from rule_actions.contract import Outcome, detail_matches
from rule_actions.fields import Actions
from rule_actions.ports import Configured, Occasion
from rule_actions.records import (
    Action,
    EventFamily,
    JobEffect,
    JobEvent,
    Message,
    Need,
    Origin,
    Place,
    Planned,
    StopNote,
    StopRecord,
    Trigger,
    TriggerFacts,
)
from rule_actions.text import (
    DETAILS_MAX,
    NAME_MAX,
    duration,
    indented,
    line,
    plain,
    stamp,
)
from rule_actions.triggers.base import (
    FOOTER,
    Entry,
    TriggerFamily,
    account_lines,
    link_lines,
    subject,
    tag,
    text_message,
)

LABEL_PREFIX = "job:"  # a job outcome's label: job:Failed
STOPPED = "Stopped"
TRANSITIONS_SHOWN = 4  # the last secondary status transitions in an outcome's message
MARKS = {"Failed": "\u274c", "MaxRuntimeExceeded": "\u23f1\ufe0f", "MaxWaitTimeExceeded": "\u23f1\ufe0f",
         "Interrupted": "\u26a0\ufe0f", "Stopped": "\U0001f6d1", "Completed": "\u2705", "Succeeded": "\u2705",
         "CompletedWithFailures": "\u26a0\ufe0f"}


@dataclass(frozen=True)
class JobOutcome(Trigger):
    """How the job ended: one of its family's outcomes."""

    TYPE = "job_outcome"
    outcome: str

    @property
    def label(self) -> str:
        return LABEL_PREFIX + self.outcome

    @property
    def ledger_fields(self) -> dict[str, str]:
        return {"outcome": self.outcome}

    @property
    def metric(self) -> str:
        return self.label


def _outcome(trigger: Trigger) -> JobOutcome:
    """A trigger of this family (the registry hands each family its own)."""
    return cast(JobOutcome, trigger)


def _follows(outcome: str, family: EventFamily, config: Configured, event: JobEvent | None = None) -> bool:
    """The outcome is a Stopped one that may carry out what this stack's stop asked to follow it (a restart, a warm
    pool's release), for the family's jobs (those that can be copied or keep a warm pool: training jobs) and, given
    an event, for its job (the clauses the stack's rule matches it with)."""
    if not (outcome == STOPPED and family.stoppable and family.api.create and config.follows_stops):
        return False
    return event is None or any(detail_matches(clause, event.detail) for clause in config.follows_stops)


TELL = "tell"  # a follow-up's last field when it is news: the Stopped outcome's own messages then go out, saying it


def following(note: StopNote) -> list[tuple[Action, Origin]]:
    """The actions a stop of this stack asked to follow it once the job has stopped ("kind|target|origin", and
    "|tell" when what becomes of it is news for the outcome's messages)."""
    found = []
    for entry in note.then:
        kind, target, origin = [*entry.split("|"), "", "", ""][:3]
        if kind and origin in {str(o) for o in Origin}:
            found.append((Action(kind, target or None), Origin(origin)))
    return found


def actions_for(config: Configured, family: EventFamily, outcome: str) -> tuple[Action, ...]:
    """The actions the family's outcome field attaches to `outcome` (none when it is not listed)."""
    attached: Actions = config[family.outcome_actions]
    return dict(attached).get(outcome, ())


def ran_for(event: JobEvent) -> str | None:
    """How long the job ran (and what was billed), from what the event carries; None when it carries nothing."""
    seconds = event.run_seconds
    if seconds is None and event.started:
        end = event.ended or event.last_modified
        seconds = int((end - event.started).total_seconds()) if end and end >= event.started else None
    if seconds is None:
        return None
    text = duration(seconds)
    billable = event.billable_seconds
    if billable is not None:
        text += f" (billable {duration(billable)}"
        if event.run_seconds and billable < event.run_seconds:
            text += f", {100 - round(100 * billable / event.run_seconds)}% saved by spot capacity"
        text += ")"
    return text


class JobOutcomes(TriggerFamily[JobOutcome]):
    type = JobOutcome.TYPE
    record = JobOutcome
    places = frozenset({Place.JOB_OUTCOMES})

    def metric_values(self, outcomes: Sequence[str]) -> tuple[str, ...]:
        return tuple(JobOutcome(outcome=outcome).metric for outcome in outcomes)

    def observe(self, event: JobEvent) -> tuple[list[JobOutcome], list[str]]:
        family = event.family
        if family is None:
            return [], []
        outcome = family.outcome_of(event)  # a family's conditions exclude one another
        return ([JobOutcome(outcome)] if outcome else []), []

    def select(self, found: list[JobOutcome], event: JobEvent, config: Configured) -> list[JobOutcome]:
        return [outcome for outcome in found if actions_for(config, event.job_family, outcome.outcome)
                or _follows(outcome.outcome, event.job_family, config, event)]

    def entries(self, trigger: JobOutcome, event: JobEvent, config: Configured,
                answers: dict[Need, Any]) -> list[Entry] | Need:
        held = event.job_family.held_back(event, config, answers)
        if held is not None and not isinstance(held, str):  # a Need: its actions wait for it (check decides)
            return held
        found: list[Entry] = [(action, Origin.CONFIGURATION)
                              for action in actions_for(config, event.job_family, trigger.outcome)]
        if not _follows(trigger.outcome, event.job_family, config, event):
            return found
        need = StopRecord(event.job_arn)  # what this stack's stop asked to follow it, now that the job has stopped
        if need not in answers:
            return need
        note = answers[need]
        return [*following(note), *found] if isinstance(note, StopNote) else found

    def needs(self, item: Planned, event: JobEvent) -> frozenset[Need]:
        family, outcome = event.job_family, _outcome(item.trigger).outcome
        stopped = family.stop_record_of(event, outcome)  # the end of this stack's stop? Its record says
        return frozenset({StopRecord(stopped)} if stopped else ()) | family.outcome_needs(event, outcome)

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: dict[Need, Any]) -> Planned:
        held = event.job_family.held_back(event, config, answers)
        stopped = event.job_family.stop_record_of(event, _outcome(item.trigger).outcome)
        by = answers.get(StopRecord(stopped)) if stopped else None
        ours = isinstance(by, StopNote) and item.effect == JobEffect.RESTART \
            and (item.kind, item.target) in [(a.kind, a.target) for a, _ in following(by)]
        if isinstance(held, str) and not ours:  # another report covers the job's outcomes: said on each action,
            return item.decided(Outcome.SKIPPED, held)  # never dropped; but a restart this stack's stop asked for
        # An Unread record lets the message go out (better twice than never); what the stop asked to follow it goes on,
        # and the outcome's own messages too when a follow-up is news (a restart: what became of it)
        if isinstance(by, StopNote) and (item.kind, item.target) not in [(a.kind, a.target) for a, _ in following(by)] \
                and not (_outcome(item.trigger).outcome == STOPPED and any(e.endswith(f"|{TELL}") for e in by.then)):
            return item.decided(Outcome.SKIPPED, f"stopped by this stack ({by.by}): no second alert")
        return item

    def words(self, occasion: Occasion) -> Message:
        event, outcome, region = occasion.event, _outcome(occasion.trigger), occasion.region
        family = event.job_family
        condition = family.outcomes[outcome.outcome]
        links = family.links(event, region)
        job = plain(event.job_name, NAME_MAX)
        secondary = plain(event.secondary_status or "", 64)
        state = plain(event.job_status, 64) + (f" ({secondary})" if secondary else "")
        ours = outcome.outcome == STOPPED and any(r.planned.effect is not None for r in occasion.stops)
        restarted = [job for r in occasion.stops for job in r.restarted]
        says = "was stopped by this stack, for a rule's finding; what followed is below" if ours else condition.says
        lines = [f"SageMaker {family.noun} {job} {says}.", ""]
        if event.failure_reason:
            lines += ["Failure reason:", indented(event.failure_reason), ""]
        lines += [
            line(family.label, job),
            *account_lines(event),
            line("Outcome", outcome.outcome),
            line("Job status", state),
            line("Region", plain(region, 64)),
            line("Created", stamp(event.created)),
            line("Started", stamp(event.started)),
            line("Ended", stamp(event.ended) if event.ended else "not yet"),
        ]
        ran = ran_for(event)
        if ran:
            lines.append(line("Ran for", ran))
        lines += costs.lines(occasion.cost, stopped=False)
        acted = [r for r in occasion.stops if r.planned.effect is not None]  # a restart, before the messages
        if acted:
            lines += ["", "Done to the job:", *(f"  - {r.planned.kind}: {r.outcome} ({plain(r.reason, 512)})"
                                               for r in acted)]
        own = family.outcome_lines(event, outcome.outcome)
        if own:
            lines += ["", *own]
        if event.transitions:
            lines += ["", "Last status transitions:"]
            for step in event.transitions[-TRANSITIONS_SHOWN:]:
                message = plain(step.message, 256)
                lines.append(f"  - {stamp(step.start)}  {plain(step.status, 64)}" + (f": {message}" if message else ""))
        lines += ["", *link_lines(links)] if links else []
        lines += ["", f"{FOOTER} for the job outcomes configured in the stack "
                  f"({family.outcome_actions.key}.{outcome.outcome})."]
        short = family.short_reason(event)
        reason = f": {short}" if short else ""
        return Message(
            subject(event, "", (f"{family.noun} restarted" if restarted else condition.subject) + ": ", event.job_name),
            "\n".join(lines),
            text_message(f"{tag(event)}: {condition.subject}: {event.job_name}{reason}"
                         + "".join(f"; restarted as {job}" for r in acted for job in r.restarted),
                         costs.short(occasion.cost, stopped=False)),
            links,
        )

    def facts(self, trigger: JobOutcome, event: JobEvent) -> TriggerFacts:
        return TriggerFacts(
            type=self.type,
            fields={"outcome": trigger.outcome, "rule": None, "rule_family": None, "rule_status": None},
            keywords=(trigger.outcome,),
            reason=plain(event.failure_reason.strip(), DETAILS_MAX, multiline=True) or None,
            mark=MARKS.get(trigger.outcome, "\u26a0\ufe0f"),
        )

    def clauses(self, config: Configured, family: EventFamily) -> list[dict[str, Any]]:
        """Each outcome that has actions, on the jobs whose outcomes the family does not hold back: its quiet clause,
        once, around the outcome clauses (a nested $or: EventBridge's takes two alternatives or more, so one clause
        stands alone), never around the other trigger families' clauses (the rule statuses of those jobs)."""
        attached = dict(config[family.outcome_actions])
        outcomes = [family.outcome_clause(o) for o, actions in attached.items() if actions]
        if _follows(STOPPED, family, config) and not attached.get(STOPPED):  # what follows our stops, on those jobs
            outcomes += [{**family.outcome_clause(STOPPED), **clause} for clause in config.follows_stops]
        quiet = family.quiet_clause(config)
        if not (outcomes and quiet):
            return outcomes
        return [{**({"$or": outcomes} if len(outcomes) > 1 else outcomes[0]), **quiet}]


FAMILY = JobOutcomes()
