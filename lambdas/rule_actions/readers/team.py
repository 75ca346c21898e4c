"""TeamAudience: whether a confirmed subscription of the team topic receives team messages (listed once per
execution environment; an empty audience again after five minutes: effects/notify.py)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import TeamAudience


class TeamReader(Reader[TeamAudience]):
    need = TeamAudience

    def read(self, need: TeamAudience, ports: Ports) -> object:
        return ports.notifier.team_subscribed()

    def failure(self, need: TeamAudience) -> str:
        return "the team audience could not be listed (notify goes out)"


READER = TeamReader()
