"""Seen: the ledger's order of what it saw of a job. The event's Progress is kept when it is the furthest along yet;
the answer is the Progress of an event seen before that is further along (this one is late), else None."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import Seen


class SeenReader(Reader[Seen]):
    need = Seen

    def read(self, need: Seen, ports: Ports) -> object:
        return ports.ledger.saw(need.job_arn, need.progress)

    def failure(self, need: Seen) -> str:
        return "the ledger's order of the job's events could not be read or kept"


READER = SeenReader()
