"""The typed records that flow through the core: actions as declared, planned actions, what was read, results.

    Action / Invalid   an entry of the grammar (actions.py, kinds/), valid or not
    Planned            one action for one trigger, with its fate once the plan decided it
    Reads / Facts      what the plan needs the adapters to read, and what they read
    Result             what became of a planned action; `as_dict()` is the public (redacted) form
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rule_actions.contract import Outcome
from rule_actions.privacy import redact

if TYPE_CHECKING:
    from rule_actions.model import Trigger

ACTION_JSON, CONFIG, TEST = "action_json", "config", "test"  # where a planned action was declared


def show(value: Any, limit: int = 64) -> str:
    """A short, printable, ASCII rendering of an untrusted value for reasons and logs."""
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]  # never encode a huge string only to cut it
    try:
        text = json.dumps(value, default=lambda v: f"<{type(v).__name__}>")
    except (ValueError, RecursionError):  # a 5,000-digit integer, a structure nested too deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 4] + '..."'


@dataclass(frozen=True)
class Action:
    """A valid action. `target` is the prefix (None: the job's own name), the endpoint, or None for notify."""

    kind: str
    target: str | None = None


@dataclass(frozen=True)
class Invalid:
    """An entry that cannot run: `field` is the path of the offending field, `reason` says why."""

    field: str
    reason: str
    kind: str = ACTION_JSON  # the entry's kind when its name was understood
    target: str = ""


@dataclass(frozen=True)
class Planned:
    """One action for one trigger. `outcome` None: to be carried out (on `jobs`, for a stop)."""

    trigger: Trigger
    kind: str  # a kind's name, or action_json (a rule's list as a whole, when it cannot be read)
    target: str  # the prefix or job name, the endpoint, or the audience
    origin: str  # action_json | config
    outcome: Outcome | None = None
    reason: str = ""
    jobs: tuple[str, ...] | None = None  # a stop's jobs (None for kinds that act on no job)

    def decided(self, outcome: Outcome, reason: str) -> Planned:
        return replace(self, outcome=outcome, reason=reason)

    def result(self, outcome: Outcome, reason: str, jobs: tuple[str, ...] = ()) -> Result:
        return Result(self, outcome, reason, None if self.jobs is None else tuple(jobs))


@dataclass(frozen=True)
class Reads:
    """What the plan needs read before it can decide: jobs InProgress under these prefixes, whether the team
    audience has a subscriber, whether this stack stopped the event's job."""

    prefixes: frozenset[str] = frozenset()
    team: bool = False
    stopped_by: bool = False

    def __or__(self, other: Reads) -> Reads:
        return Reads(self.prefixes | other.prefixes, self.team or other.team, self.stopped_by or other.stopped_by)


@dataclass(frozen=True)
class Facts:
    """What the adapters read. A string in place of a value is why it could not be read."""

    # (family, rule name) -> RuleParameters from DescribeTrainingJob; None when not needed
    described: Mapping[tuple[str, str], Any] | str | None = None
    listings: Mapping[str, tuple[str, ...] | str] = field(default_factory=dict)  # prefix -> InProgress jobs
    team_subscribed: bool | None = None  # None: not read, or unknown
    stopped_by: str | None = None  # who in this stack stopped the job (a trigger and job), if it did


@dataclass(frozen=True)
class Result:
    """What became of one planned action."""

    planned: Planned
    outcome: Outcome
    reason: str
    jobs: tuple[str, ...] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The public form (the function's result, logs, the replay's output), redacted by the one rule."""
        trigger = self.planned.trigger
        out: dict[str, Any] = {"trigger": trigger.label, "rule": trigger.rule, "kind": self.planned.kind,
                               "target": redact(self.planned.target)}
        if self.jobs is not None:
            out["jobs"] = list(self.jobs)
        return {**out, "origin": self.planned.origin, "outcome": str(self.outcome), "reason": redact(self.reason)}
