"""Pure decisions: (event, triggers, configuration, what the adapters read) -> the planned actions. No AWS here.

Every policy decision is made here, in this order, for each action of each trigger:

    invalid    the entry is malformed (the reason names the field)
    denied     the kind's policy refuses it (an endpoint outside allowed_endpoints, a cross-job prefix)
    skipped    an archive replay (unless act_on_replays); the Stopped outcome of a job this stack stopped;
               the kind's check of what was read (job not InProgress, no or several prefix matches, no team)
    dry_run    dry_run is on: what it would do
    (none)     to be carried out, on the jobs the check resolved

The handler calls `needs_description`, then `reads` (what the kinds need read), then `plan` with the facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions import kinds
from rule_actions.actions import NOTIFY, parse_action_json
from rule_actions.config import Config
from rule_actions.contract import ISSUES_FOUND, RULE_ERROR, STOPPED, Outcome
from rule_actions.model import NOT_GIVEN, JobEvent, JobOutcome, RuleStatus, TestNotification, Trigger
from rule_actions.records import ACTION_JSON, CONFIG, TEST, Action, Facts, Invalid, Planned, Reads


def needs_description(event: JobEvent, triggers: list[Trigger], config: Config) -> bool:
    """True when an IssuesFound rule's action_json must be read with DescribeTrainingJob."""
    return config.honor_action_json and any(
        isinstance(t, RuleStatus) and t.status == ISSUES_FOUND and event.parameters(t) is NOT_GIVEN for t in triggers
    )


def reads(event: JobEvent, triggers: list[Trigger], config: Config, described: Any = None) -> Reads:
    """What must be read before the actions still open can be decided."""
    needed = Reads()
    for item in _candidates(event, triggers, config, described):
        if item.outcome is None:
            needed |= kinds.get(item.kind).reads(item, event, config)
            needed |= Reads(stopped_by=_is_stopped_outcome(item.trigger))
    return needed


def plan(event: JobEvent, triggers: list[Trigger], config: Config, facts: Facts | None = None) -> list[Planned]:
    """Planned actions for every trigger, stops first within a trigger, without duplicates, each decided."""
    facts = facts or Facts()
    return [_finish(item, event, config, facts) for item in _candidates(event, triggers, config, facts.described)]


def _candidates(event: JobEvent, triggers: list[Trigger], config: Config, described: Any) -> list[Planned]:
    """Each trigger's actions with the decisions that need nothing read (invalid, denied, replay)."""
    planned: list[Planned] = []
    for trigger in triggers:
        entries: list[tuple[Action | Invalid, str]] = []
        if isinstance(trigger, TestNotification):  # the team (and its chat), every webhook, what the request adds
            entries += [(action, TEST) for action in (Action(NOTIFY), *config.webhook_actions, *trigger.entries)]
        elif isinstance(trigger, JobOutcome):
            entries += [(action, CONFIG) for action in config.actions_for_outcome(trigger.outcome)]
        elif trigger.status == RULE_ERROR:
            entries.append((Action(NOTIFY), CONFIG))
        else:
            if config.honor_action_json:
                params = event.parameters(trigger)
                if params is NOT_GIVEN:
                    if isinstance(described, str):
                        planned.append(Planned(trigger, ACTION_JSON, "", ACTION_JSON, Outcome.FAILED, described))
                        params = {}
                    else:
                        params = (described or {}).get((trigger.family, trigger.name), {})
                action_json = params.get("action_json") if isinstance(params, Mapping) else None
                if action_json is not None:
                    actions, invalid = parse_action_json(action_json)
                    entries += [(item, ACTION_JSON) for item in (*actions, *invalid)]
            entries += [(action, CONFIG) for action in config.actions_for_rule(trigger.name)]
        seen: set[tuple[str, str]] = set()
        items: list[Planned] = []
        for entry, origin in entries:
            for item in _decide(event, config, trigger, entry, origin):
                if isinstance(entry, Action):
                    identity = (item.kind, kinds.get(item.kind).identity(item.target))
                    if identity in seen:
                        continue  # the same action from action_json and from the configuration runs once
                    seen.add(identity)
                items.append(item)
        planned += sorted(items, key=lambda item: not (item.kind in kinds.KINDS and kinds.get(item.kind).acts_on_jobs))
    return planned


def _decide(event: JobEvent, config: Config, trigger: Trigger, entry: Action | Invalid, origin: str) -> list[Planned]:
    """One planned action per target of the entry (an invalid entry: one, decided)."""
    if isinstance(entry, Invalid):
        jobs = () if entry.kind in kinds.KINDS and kinds.get(entry.kind).acts_on_jobs else None
        return [Planned(trigger, entry.kind, entry.target, origin, Outcome.INVALID, f"{entry.field}: {entry.reason}", jobs)]
    kind = kinds.get(entry.kind)
    planned = []
    for target in kind.targets(entry, event, config):
        item = Planned(trigger, kind.name, target, origin, jobs=() if kind.acts_on_jobs else None)
        refused = kind.deny(item.target, event, config)
        if refused:
            item = item.decided(Outcome.DENIED, refused)
        elif event.replay_name and not config.act_on_replays:
            item = item.decided(Outcome.SKIPPED, f"archive replay {event.replay_name!r}: act_on_replays is false")
        planned.append(item)
    return planned


def _finish(item: Planned, event: JobEvent, config: Config, facts: Facts) -> Planned:
    """The decisions that need what was read, then the dry run."""
    if item.outcome is not None:
        return item
    if _is_stopped_outcome(item.trigger) and facts.stopped_by:
        return item.decided(Outcome.SKIPPED, f"stopped by this stack ({facts.stopped_by}): no second alert")
    kind = kinds.get(item.kind)
    item = kind.check(item, event, config, facts)
    if item.outcome is not None:
        return item
    if config.dry_run:
        return item.decided(Outcome.DRY_RUN, f"dry_run is true: {kind.preview(item)}; nothing was changed")
    return item


def _is_stopped_outcome(trigger: Trigger) -> bool:
    return isinstance(trigger, JobOutcome) and trigger.outcome == STOPPED
