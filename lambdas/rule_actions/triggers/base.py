"""What a trigger family is: one object per family (triggers/<family>.py), holding everything about its triggers.

    type, record           its name (its records' TYPE and the json format's trigger type) and its record
    fields                 its configuration (fields.py declarations)
    observe                what a job's event shows of it (config-free: every unreadable part is a problem)
    select                 which of those count under the configuration
    request                an invocation that is no event but one of its own (a test request), if it has one
    entries                the actions declared for a trigger: (action, origin) pairs, or the Need to read first
    needs, check           what a planned action of its triggers needs read, then its decision given that (and
                           the configuration)
    watched                why a trigger only watches (its actions that act on jobs are reported, not carried out)
    words, facts           its message (subject, body, text, links) and what payloads say of it
    clauses                its EventBridge detail clauses for a job family's events (none: it never triggers there)
    metric_values          every value its triggers' `Triggers` metric dimension can take (the stack's dashboard
                           and `rule-actions report` read each)
    places                 where its actions are declared (the kinds declared there act on the families it fires on)
    capabilities           what it needs of the job families (describe...), which they grant

The frame every message shares (the subject's tag, the account line, the link lines, the footer) is here too.
Adding a family: a module with a `TriggerFamily` subclass and its line in rule_actions/registry.py.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

from rule_actions.fields import Field
from rule_actions.ports import Configured, Occasion
from rule_actions.records import (
    Action,
    Capability,
    Declared,
    EventFamily,
    Invalid,
    JobEvent,
    Message,
    Need,
    Origin,
    Place,
    Planned,
    Trigger,
    TriggerFacts,
    Unread,
)
from rule_actions.text import SMS_MAX, SUBJECT_MAX, line, one_line, plain

T = TypeVar("T", bound=Trigger)
Entry = tuple[Action | Invalid | Unread, Origin]  # Unread: a list that could not be read (the action fails)
FOOTER = "Sent by rule-actions"


class TriggerFamily(Generic[T]):
    """A trigger family of records T (its `record`): the registry pairs each trigger with its family by TYPE."""

    type: ClassVar[str] = ""
    record: ClassVar[builtins.type[Trigger]]
    fields: ClassVar[tuple[Field[Any], ...]] = ()
    places: ClassVar[frozenset[Place]] = frozenset()

    def observe(self, event: JobEvent) -> tuple[list[T], list[str]]:
        return [], []

    def select(self, found: list[T], event: JobEvent, config: Configured) -> list[T]:
        return found

    def request(self, raw: Any, region: str, config: Configured) -> tuple[JobEvent, T] | None:
        return None

    def entries(self, trigger: T, event: JobEvent, config: Configured,
                answers: dict[Need, Any]) -> list[Entry] | Need:
        raise NotImplementedError

    def needs(self, item: Planned, event: JobEvent) -> frozenset[Need]:
        return frozenset()

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: dict[Need, Any]) -> Planned:
        return item

    def watched(self, trigger: T) -> str | None:
        """Why the trigger's actions that act on jobs (a stop) are to be reported as what they would do and not
        carried out (a monitor rule in watch mode), or None: they are carried out."""
        return None

    def words(self, occasion: Occasion) -> Message:
        raise NotImplementedError

    def facts(self, trigger: T, event: JobEvent) -> TriggerFacts:
        raise NotImplementedError

    def clauses(self, config: Configured, family: EventFamily) -> list[dict[str, Any]]:
        return []

    def metric_values(self, outcomes: Sequence[str]) -> tuple[str, ...]:
        """Every value of its triggers' `metric` (a bounded vocabulary), `outcomes` being every job outcome of the
        job families."""
        return ()

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        return frozenset()

    def reads_action_json(self, config: Configured) -> bool:
        return False

    def implied(self, config: Configured, where: str) -> tuple[Declared, ...]:
        """Actions its configuration attaches without an action map (a flag that notifies)."""
        return ()

    def check_config(self, config: Configured, where: str) -> list[str]:
        return []

    def warnings(self, config: Configured, where: str) -> list[str]:
        return []


# The frame of every message.


def tag(event: JobEvent) -> str:
    """"rule-actions", and in organization mode the name of the account the job ran in (its alias, else its id)."""
    return f"rule-actions {event.account_name}" if event.account_name else "rule-actions"


def subject(event: JobEvent, name: str, what: str, job: str) -> str:
    """Names a subject (a rule, or the empty string) and the job within 100 characters: when both are long, each
    keeps at least half the room."""
    head = f"[{tag(event)}] "
    name, job = one_line(name), one_line(job)
    room = SUBJECT_MAX - len(head) - len(what)
    job = one_line(job, max(room - len(name), room // 2))
    return head + one_line(name, room - len(job)) + what + job


def account_lines(event: JobEvent) -> list[str]:
    """Organization mode: the body's line naming the account (its id, and its alias when one is configured)."""
    if not event.account_name:
        return []
    alias = f" ({event.account_name})" if event.account_name != event.account else ""
    return [line("Account", f"{plain(event.account, 64)}{alias}")]


def link_lines(links: Sequence[tuple[str, str]]) -> list[str]:
    """A body's link lines, URLs aligned (a label too long to align keeps a space before its URL)."""
    return [f"{label + ':':<28} {url}" for label, url in links]


def text_message(text: str, tail: str = "") -> str:
    """A text message (one SMS part: SMS_MAX characters) ending with `tail` whatever `text`'s length (the job's cost:
    the rest gives way)."""
    return one_line(text, SMS_MAX - len(tail)) + tail
