"""What a reader is: the answer to one kind of Need (records.py), read through the ports it is handed.

    need      the record type it answers
    read      the answer; raises when the read fails (the pipeline makes it an Unread with `failure`'s words)
    failure   what failed, for the Unread's reason ("ListTrainingJobs failed")

Adding a reader: its Need record in records.py (the question plug-ins ask), a module here with a `Reader`, and its
line in rule_actions/registry.py.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from rule_actions.ports import Logs, Metrics, Ports
from rule_actions.records import Need

N = TypeVar("N", bound=Need)


def metrics_of(ports: Ports) -> Metrics:
    """The CloudWatch metrics port (a scheduled evaluation's: only its readers ask it)."""
    if ports.metrics is None:
        raise LookupError("no CloudWatch metrics port: only a scheduled evaluation reads metrics")
    return ports.metrics


def logs_of(ports: Ports) -> Logs:
    """The CloudWatch Logs port (a scheduled evaluation's: only its readers ask it)."""
    if ports.logs is None:
        raise LookupError("no CloudWatch Logs port: only a scheduled evaluation reads logs")
    return ports.logs


class Reader(Generic[N]):
    """The reader of the Need records of type N: its answer to each (a value whose type the Need's record says)."""

    need: type[N]

    def read(self, need: N, ports: Ports) -> object:
        raise NotImplementedError

    def failure(self, need: N) -> str:
        raise NotImplementedError
