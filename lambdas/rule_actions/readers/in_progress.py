"""InProgress: the running jobs of a family whose names start with a prefix (a stop's prefix), every page."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import InProgress


class InProgressReader(Reader[InProgress]):
    need = InProgress

    def read(self, need: InProgress, ports: Ports) -> object:
        return tuple(ports.jobs.in_progress(need.api, need.prefix))

    def failure(self, need: InProgress) -> str:
        return f"{need.api.list} failed"


READER = InProgressReader()
