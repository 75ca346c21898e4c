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

Within a trigger, stops come first, then the other actions on jobs (a restart: it follows the stop), then the
messages (what was done to the job is part of them); and the same action declared twice
(in action_json and in the configuration) is planned once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.contract import Outcome
from rule_actions.records import ACTION_JSON, Action, Invalid, JobEvent, Need, Origin, Planned, Trigger, Unread

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # (type checking only: the function ships without it)

Pending = Need  # a trigger whose actions are not known until this is read


@dataclass(frozen=True)
class Plan:
    event: JobEvent
    config: Config
    steps: tuple[tuple[Trigger, tuple[Planned, ...] | Pending], ...]
    facts: Mapping[Need, Any] = field(default_factory=dict)

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
        return frozenset(need for need in found if need not in self.facts)

    def learn(self, answers: Mapping[Need, Any]) -> Plan:
        """The plan knowing `answers` too: a trigger whose actions waited for one of them now has them."""
        facts = {**self.facts, **answers}
        steps = tuple((trigger, _expand(self.event, self.config, trigger, facts) if _waiting(planned) else planned)
                      for trigger, planned in self.steps)
        return replace(self, steps=steps, facts=facts)

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
        item = family.check(item, self.event, self.config, dict(self.facts))
        if item.outcome is not None:
            return item
        kind = registry.kind(item.kind)
        item = kind.check(item, self.event, self.config, self.facts)
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
            facts: Mapping[Need, Any]) -> tuple[Planned, ...] | Pending:
    """The trigger's actions with the decisions that need nothing read (invalid, failed, denied, replay); or what
    must be read before its actions are known."""
    entries = registry.trigger_family(trigger).entries(trigger, event, config, dict(facts))
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
