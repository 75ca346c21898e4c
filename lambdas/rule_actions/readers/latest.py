"""LogLatest: the latest log line of every stream of many jobs at once, from one CloudWatch Logs Insights query over
the log group's window (StartQuery, then GetQueryResults until it is Complete; effects/logs.py)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader, logs_of
from rule_actions.records import LogLatest


class LatestReader(Reader[LogLatest]):
    need = LogLatest

    def read(self, need: LogLatest, ports: Ports) -> object:
        return logs_of(ports).latest(need.group, need.windows, need.end)

    def failure(self, need: LogLatest) -> str:
        return f"the Logs Insights query on {need.group} ({len(need.windows)} jobs) failed"


READER = LatestReader()
