"""Pure decisions: (event, configuration, rule parameters) -> the planned actions. No AWS here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rule_actions.actions import EMAIL, NOTIFY, SMS, STOP, Action, Invalid, parse_action_json
from rule_actions.config import Config
from rule_actions.model import NOT_GIVEN, JobEvent, RuleStatus

ISSUES_FOUND, RULE_ERROR, IN_PROGRESS = "IssuesFound", "Error", "InProgress"
TEAM = "team"  # the audience of `notify`: the stack's team subscribers
ACTION_JSON, CONFIG = "action_json", "config"
# Outcomes decided here; the rest ("done", "duplicate", "failed", and "skipped" found while acting) come later.
INVALID, DENIED, SKIPPED, DRY_RUN, FAILED = "invalid", "denied", "skipped", "dry_run", "failed"


@dataclass(frozen=True)
class Planned:
    rule: RuleStatus
    kind: str  # stoptraining | email | sms | notify | action_json (the list as a whole)
    target: str  # the prefix, the endpoint, or the audience
    origin: str  # action_json | config
    outcome: str | None = None  # None: to be carried out
    reason: str = ""


def triggered(event: JobEvent, config: Config) -> list[RuleStatus]:
    """Rules whose status can lead to an action."""
    return [
        rule
        for rule in event.rules
        if rule.status == ISSUES_FOUND or (rule.status == RULE_ERROR and config.notify_on_rule_error)
    ]


def needs_description(event: JobEvent, config: Config) -> bool:
    """True when an IssuesFound rule's action_json must be read with DescribeTrainingJob."""
    return config.honor_action_json and any(
        rule.status == ISSUES_FOUND and event.parameters(rule) is NOT_GIVEN for rule in event.rules
    )


def plan(
    event: JobEvent, config: Config, described: Mapping[tuple[str, str], Any] | str | None = None
) -> list[Planned]:
    """Planned actions for every triggered rule, stops first within a rule, without duplicates.

    `described` is the rule parameters read with DescribeTrainingJob ((family, name) -> RuleParameters), or
    the reason it could not be read (a string), or None when it was not needed.
    """
    planned: list[Planned] = []
    for rule in triggered(event, config):
        entries: list[tuple[Action | Invalid, str]] = []
        if rule.status == RULE_ERROR:
            entries.append((Action(NOTIFY), CONFIG))
        else:
            if config.honor_action_json:
                params = event.parameters(rule)
                if params is NOT_GIVEN:
                    if isinstance(described, str):
                        planned.append(Planned(rule, ACTION_JSON, "", ACTION_JSON, FAILED, described))
                        params = {}
                    else:
                        params = (described or {}).get((rule.family, rule.name), {})
                action_json = params.get("action_json") if isinstance(params, Mapping) else None
                if action_json is not None:
                    actions, invalid = parse_action_json(action_json)
                    entries += [(item, ACTION_JSON) for item in (*actions, *invalid)]
            entries += [(action, CONFIG) for action in config.actions_for_rule(rule.name)]
        seen: set[tuple[str, str]] = set()
        items: list[Planned] = []
        for entry, origin in entries:
            item = decide(event, config, rule, entry, origin)
            if isinstance(entry, Action):
                if (item.kind, item.target) in seen:
                    continue  # the same action from action_json and from the configuration runs once
                seen.add((item.kind, item.target))
            items.append(item)
        planned += sorted(items, key=lambda item: item.kind != STOP)
    return planned


def decide(event: JobEvent, config: Config, rule: RuleStatus, entry: Action | Invalid, origin: str) -> Planned:
    """One action's fate before anything runs: invalid, denied, skipped, dry_run, or None (to carry out)."""
    if isinstance(entry, Invalid):
        return Planned(rule, entry.kind, entry.target, origin, INVALID, f"{entry.field}: {entry.reason}")
    kind = entry.kind
    target = TEAM if kind == NOTIFY else entry.target or event.job_name
    item = Planned(rule, kind, target, origin)

    def verdict(outcome: str, reason: str) -> Planned:
        return Planned(rule, kind, target, origin, outcome, reason)

    if kind in (EMAIL, SMS) and not config.endpoint_allowed(target):
        return verdict(DENIED, f"{target} is not in allowed_endpoints")
    if kind == STOP and not event.job_name.startswith(target) and not config.allow_cross_job_stop:
        return verdict(
            DENIED,
            f"prefix {target!r} does not cover this event's job {event.job_name!r}: it could stop other teams' "
            "jobs (set allow_cross_job_stop to permit)",
        )
    if kind == NOTIFY and not config.has_team:
        return verdict(SKIPPED, "no team subscribers configured (notify.emails and notify.sms are empty)")
    if event.replay_name and not config.act_on_replays:
        return verdict(SKIPPED, f"archive replay {event.replay_name!r}: act_on_replays is false")
    if kind == STOP and event.job_status != IN_PROGRESS:
        return verdict(SKIPPED, f"training job is {event.job_status}; only InProgress jobs are stopped")
    if config.dry_run:
        return verdict(DRY_RUN, "dry_run is true: nothing was called")
    return item
