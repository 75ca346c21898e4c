"""LogHeartbeat: what a job's log streams hold in a window (one FilterLogEvents call per job and run): the first
and last event of each stream, and whether the one page held every event of the window."""

from __future__ import annotations

from rule_actions.readers.base import Reader
from rule_actions.records import LogHeartbeat


class HeartbeatReader(Reader):
    need = LogHeartbeat

    def read(self, need, ports):
        return ports.logs.heartbeat(need.group, need.prefix, need.start, need.end)

    def failure(self, need):
        return f"FilterLogEvents on {need.group} ({need.prefix}*) failed"


READER = HeartbeatReader()
