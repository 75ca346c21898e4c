"""What people read about one planned action's trigger, rendered on demand: the `MessageOccasion` kinds are handed
(ports.Occasion).

The words come from the trigger family (triggers/<family>.py: subject, body, text message, links; the job family
names the job and its links), the chat notification from payloads.py (a webhook's body is its destination's:
destinations/). Everything a person reads is plain text: untrusted names, details and reasons are made plain
(control characters removed, capped), every value in a link encoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from rule_actions import payloads, registry
from rule_actions.cost import JobCost
from rule_actions.ports import Configured
from rule_actions.records import JobEvent, Message, Result, Trigger, TriggerFacts


@dataclass
class MessageOccasion:
    """One trigger of one job, as a kind delivers about it: its message and payloads, each rendered once."""

    config: Configured
    event: JobEvent
    trigger: Trigger
    region: str
    stops: tuple[Result, ...] = field(default=())
    cost: JobCost | None = None  # what the job cost at the event's time (None: not asked, or no cost here)

    @cached_property
    def message(self) -> Message:
        return registry.trigger_family(self.trigger).words(self)

    @cached_property
    def facts(self) -> TriggerFacts:
        return registry.trigger_family(self.trigger).facts(self.trigger, self.event)

    def chat(self) -> dict[str, Any]:
        return payloads.chat(self.message, self.event, self.trigger, self.facts, self.region)


def render(config: Configured, event: JobEvent, trigger: Trigger, region: str, stops: Sequence[Result] = (),
           cost: JobCost | None = None) -> Message:
    """The message about one trigger; `stops` are its stops carried out so far, `cost` what the job cost."""
    return MessageOccasion(config, event, trigger, region, tuple(stops), cost).message
