"""What an action kind is: one object per kind (kinds/<kind>.py), holding everything about that kind.

    name, keys, places    its grammar: the keys it takes besides `name`, where it may be declared
    parse                 the values of its keys -> Action, or Invalid naming the field
    target(s)             the concrete target for an event (a prefix or job, an endpoint, an audience); a kind
                          that reaches several destinations with one declaration gives several (notify: the
                          team, and its chat channels), each planned, recorded and reported on its own
    deny                  policy: why it is refused here (denied), whatever the state of the account
    reads, check          what it needs read, then its decision given what was read (skipped, failed, or ready)
    preview               what it would do (the dry run's reason)
    carry_out             do it, through the adapters (effects/); raise NotDone when nothing was done

Redaction is not per kind: every result, log line and error goes through privacy.redact, whatever it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rule_actions.contract import Outcome
from rule_actions.records import Action, Facts, Invalid, Planned, Reads

if TYPE_CHECKING:
    from rule_actions.config import Config
    from rule_actions.execute import Effects
    from rule_actions.model import JobEvent

# Where an action may be declared.
ACTION_JSON, RULES, JOB_OUTCOMES = "action_json", "rules", "job_outcomes"
PLACES = (ACTION_JSON, RULES, JOB_OUTCOMES)


class NotDone(Exception):
    """Nothing was done and nothing is recorded: a later delivery of this job's events tries again."""

    def __init__(self, outcome: Outcome, reason: str):
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


class Kind:
    name: str = ""
    keys: tuple[str, ...] = ()  # keys besides `name`
    places: frozenset[str] = frozenset(PLACES)
    acts_on_jobs = False  # its results name the jobs it acted on

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        return Action(self.name)

    def as_dict(self, action: Action) -> dict[str, str]:
        """The grammar's object form, keys in the SDK's order."""
        return {"name": self.name}

    def identity(self, target: str) -> str:
        """Two targets with one identity are one action (planned once, recorded once)."""
        return target

    def target(self, action: Action, event: JobEvent) -> str:
        return action.target or ""

    def targets(self, action: Action, event: JobEvent, config: Config) -> tuple[str, ...]:
        return (self.target(action, event),)

    def deny(self, target: str, event: JobEvent, config: Config) -> str | None:
        return None

    def reads(self, item: Planned, event: JobEvent, config: Config) -> Reads:
        return Reads()

    def check(self, item: Planned, event: JobEvent, config: Config, facts: Facts) -> Planned:
        return item

    def preview(self, item: Planned) -> str:
        return f"would {self.name} {item.target}"

    def carry_out(self, item: Planned, event: JobEvent, effects: Effects, taken: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Returns {"reason": ..., "jobs": [...]} (stored in the ledger, shown on duplicates)."""
        raise NotImplementedError
