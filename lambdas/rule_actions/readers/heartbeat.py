"""LogHeartbeat: what a job's log streams hold in a window (one FilterLogEvents call per job and run): the first
and last event of each stream, and whether the one page held every event of the window."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader, logs_of
from rule_actions.records import LogHeartbeat


class HeartbeatReader(Reader[LogHeartbeat]):
    need = LogHeartbeat

    def read(self, need: LogHeartbeat, ports: Ports) -> object:
        return logs_of(ports).heartbeat(need.group, need.prefix, need.start, need.end)

    def failure(self, need: LogHeartbeat) -> str:
        return f"FilterLogEvents on {need.group} ({need.prefix}*) failed"


READER = HeartbeatReader()
