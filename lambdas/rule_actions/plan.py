"""Pure decisions: (event, triggers, configuration, what the readers answered) -> the planned actions. No AWS here.

The plan is built once. It says what it still needs to know (`needs`: a rule's action_json to describe, the jobs
under a stop's prefix, whether the team has a subscriber, whether this stack stopped the job), learns the answers
(`learn`, which may reveal actions and so new needs), then decides. Every policy decision is made here, in this
order, for each action of each trigger:

    invalid    the entry is malformed (the reason names the field)
    failed     the trigger's list could not be read (its describe failed)
    denied     the kind's policy refuses it (an endpoint outside allowed_endpoints, a cross-job prefix)
    skipped    an archive replay (unless act_on_replays); the trigger family's check of what was read (an outcome
               its job family holds back: a trial's, a step job's; the Stopped outcome of a job this stack
               stopped); the kind's (job not InProgress, no or several prefix matches, no team subscriber)
    watched    an action that acts on jobs (a stop, a restart) of a trigger that only watches (a monitor rule in watch mode):
               what it would do; its other actions (the messages) go on
    dry_run    dry_run is on: what it would do
    (none)     to be carried out, on the jobs the check resolved

What time may have changed is decided when an action is carried out, not done before (below: a late event, a job
that has ended).

Within a trigger, stops come first, then the other actions on jobs (a restart: it follows the stop), then the
messages (what was done to the job is part of them); and the same action declared twice
(in action_json and in the configuration) is planned once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.contract import ENDED, PROGRESS, Outcome
from rule_actions.records import (
    ACTION_JSON,
    Action,
    Described,
    Invalid,
    JobEffect,
    JobEvent,
    Need,
    Origin,
    Planned,
    Progress,
    Seen,
    Trigger,
    Unread,
)
from rule_actions.text import timestamp

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # (type checking only: the function ships without it)

Pending = Need  # a trigger whose actions are not known until this is read


@dataclass(frozen=True)
class Plan:
    event: JobEvent
    config: Config
    steps: tuple[tuple[Trigger, tuple[Planned, ...] | Pending], ...]
    answers: Mapping[Need, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, event: JobEvent, triggers: list[Trigger], config: Config) -> Plan:
        return cls(event, config, tuple((trigger, _expand(event, config, trigger, {})) for trigger in triggers))

    def needs(self) -> frozenset[Need]:
        """What must be read before the actions still open can be decided (nothing already known)."""
        found: set[Need] = set()
        for trigger, planned in self.steps:
            if _waiting(planned):
                found.add(planned)
                continue
            family = registry.trigger_family(trigger)
            for item in planned:
                if item.outcome is None:
                    found |= registry.kind(item.kind).needs(item, self.event, self.config)
                    found |= family.needs(item, self.event)
        return frozenset(need for need in found if need not in self.answers)

    def learn(self, more: Mapping[Need, Any]) -> Plan:
        """The plan knowing the answers `more` too: a trigger whose actions waited for one of them now has them."""
        answers = {**self.answers, **more}
        steps = tuple((trigger, _expand(self.event, self.config, trigger, answers) if _waiting(planned) else planned)
                      for trigger, planned in self.steps)
        return replace(self, steps=steps, answers=answers)

    def decide(self) -> list[Planned]:
        """Every planned action, decided as far as the plan can: the rest is to be carried out."""
        decided = []
        for _trigger, planned in self.steps:
            if _waiting(planned):
                raise RuntimeError(f"plan decided before {planned} was read")
            decided += [self._finish(item) for item in planned]
        return decided

    def _finish(self, item: Planned) -> Planned:
        """The decisions that need what was read, then watch mode, then the dry run."""
        if item.outcome is not None:
            return item
        family = registry.trigger_family(item.trigger)
        item = family.check(item, self.event, self.config, dict(self.answers))
        if item.outcome is not None:
            return item
        kind = registry.kind(item.kind)
        item = kind.check(item, self.event, self.config, self.answers)
        if item.outcome is not None:
            return item
        watched = family.watched(item.trigger) if kind.acts_on_jobs else None
        if watched:
            return item.decided(Outcome.WATCHED, f"{watched}: {kind.preview(item)}; nothing was changed")
        if self.config.dry_run:
            return item.decided(Outcome.DRY_RUN, f"dry_run is true: {kind.preview(item)}; nothing was changed")
        return item


def _waiting(planned: tuple[Planned, ...] | Pending) -> TypeIs[Pending]:
    """The trigger's actions still wait for this Need (its planned actions are a plain tuple)."""
    return type(planned) is not tuple


def _expand(event: JobEvent, config: Config, trigger: Trigger,
            answers: Mapping[Need, Any]) -> tuple[Planned, ...] | Pending:
    """The trigger's actions with the decisions that need nothing read (invalid, failed, denied, replay); or what
    must be read before its actions are known."""
    entries = registry.trigger_family(trigger).entries(trigger, event, config, dict(answers))
    if not isinstance(entries, list):
        return entries
    unread = [Planned(trigger, ACTION_JSON, "", origin, Outcome.FAILED, entry.reason)
              for entry, origin in entries if isinstance(entry, Unread)]
    seen: set[tuple[str, str]] = set()
    items: list[Planned] = []
    for entry, origin in entries:
        if isinstance(entry, Unread):
            continue
        for item in _decide(event, config, trigger, entry, origin):
            if isinstance(entry, Action):
                identity = (item.kind, registry.kind(item.kind).identity(item.target))
                if identity in seen:
                    continue  # the same action from action_json and from the configuration runs once
                seen.add(identity)
            items.append(item)
    return (*unread, *sorted(items, key=lambda item: registry.rank(item.kind)))


def _decide(event: JobEvent, config: Config, trigger: Trigger, entry: Action | Invalid,
            origin: Origin) -> list[Planned]:
    """One planned action per target of the entry (an invalid entry: one, decided)."""
    if isinstance(entry, Invalid):
        effect = registry.effect(entry.kind)
        return [Planned(trigger, entry.kind, entry.target, origin, Outcome.INVALID, f"{entry.field}: {entry.reason}",
                        None if effect is None else (), effect)]
    kind = registry.kind(entry.kind)
    planned = []
    for target in kind.targets(entry, event, config):
        item = Planned(trigger, kind.name, target, origin, jobs=() if kind.acts_on_jobs else None, effect=kind.effect)
        refused = kind.deny(item.target, event, config)
        if refused:
            item = item.decided(Outcome.DENIED, refused)
        elif event.replay_name and not config.act_on_replays:
            item = item.decided(Outcome.SKIPPED, f"archive replay {event.replay_name!r}: act_on_replays is false")
        planned.append(item)
    return planned


# ---------------------------------------------------------------- at carry-out: what time may have changed

# An action the plan left to be carried out is carried out only after these, decided when the ledger says it is not
# done yet (the pipeline reads what they ask once per invocation, sharing what the plan read: a repeat of done
# actions reads nothing), each said once:
#     late    the event is behind what the ledger saw of its job (Seen: its status, or its phases)
#     ended   a job action (stop, restart) on an event that shows its job running, when the job's live status
#             (Described: its Describe, shared with the plan's read of it) says it has ended, or a stop when its live
#             phase refuses one (a training job now uploading its model)


def seen_need(event: JobEvent) -> Seen | None:
    """The ledger's order of the event's job (None: a request about no job, or a job without an ARN)."""
    return Seen(event.job_arn, event.progress) if event.family is not None and event.job_arn else None


def late(event: JobEvent, known: Any) -> str | None:
    """Why the event is not acted on when the ledger saw its job further along (`known`: Seen's answer), or None
    (as far along or further; or the ledger could not say: the live status and the stop's own answer still
    decide)."""
    if not isinstance(known, Progress):
        return None
    return (f"a late event, not acted on: it shows {event.job_name} {event.progress.said()}, and an event showing "
            f"it {known.said()} was seen before it (EventBridge keeps no order)")


def live_need(event: JobEvent) -> Described | None:
    """The description of the event's own job that says its live status, before a job action on an event that shows
    it running (or stopping); None when the event is itself the live description (a scheduled evaluation's) or shows
    the job ended (an outcome: its kinds act on an ended job, or refuse it, by the event's status)."""
    if event.family is None or event.live or PROGRESS.get(event.job_status, 0) >= ENDED:
        return None
    ref = event.job_family.own_ref(event)
    return Described(ref.api, ref.key)


VERBS = {JobEffect.STOP: "stop", JobEffect.RESTART: "restart", JobEffect.RELEASE: "release"}


def ended(item: Planned, event: JobEvent, described: Any) -> str | None:
    """Why a job action is not carried out when the live status of the event's job (`described`: live_need's answer)
    says it has ended: its status and when; or, for a stop, when its live phase refuses one. None: it may go ahead
    (a describe that failed leaves the decision to the action itself: SageMaker refuses to stop an ended job)."""
    if not isinstance(described, Mapping) or event.family is None:
        return None
    ref = event.job_family.own_ref(event)
    status = described.get(ref.status_member)
    if isinstance(status, str) and PROGRESS.get(status, 0) >= ENDED:
        when = f" (at {_ended_at(described)})" if _ended_at(described) else ""
        if item.effect == JobEffect.STOP and item.jobs and item.jobs != (ref.name,):  # others: a prefix's, an owner
            return (f"not acted on: {ref.name}, the job this event is about, is already {status}{when}: what it "
                    f"found acts on no job; this event showed it {event.job_status}")
        return (f"nothing to {VERBS.get(item.effect or JobEffect.STOP, 'do')}: {ref.name} is already {status}{when}"
                f"; this event showed it {event.job_status}")
    phase = described.get("SecondaryStatus")
    if item.effect == JobEffect.STOP and isinstance(phase, str) and phase != event.secondary_status:
        refused = event.job_family.stop_refusal(replace(event, secondary_status=phase))
        if refused:
            return f"{refused} (its live phase; this event showed {event.secondary_status or 'none'})"
    return None


def _ended_at(described: Mapping[str, Any]) -> str:
    """When a described job ended: its family's ...EndTime, else its LastModifiedTime ("" unknown)."""
    key = next((k for k in described if k.endswith("EndTime")), "LastModifiedTime")
    value = described.get(key)
    when = value if isinstance(value, datetime) else timestamp(value)
    if when is None:
        return ""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
