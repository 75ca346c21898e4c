"""RunningJobs: every InProgress job of a family with its description and tags (Search, 100 a call; for processing and
transform jobs, which Search does not support, List...Jobs, 100 a call, then a describe and ListTags per job seen for
the first time), for a scheduled evaluation."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import RunningJobs


class RunningReader(Reader[RunningJobs]):
    need = RunningJobs

    def read(self, need: RunningJobs, ports: Ports) -> object:
        return tuple(ports.jobs.running(need.api))

    def failure(self, need: RunningJobs) -> str:
        return f"Search ({need.api.search}) failed" if need.api.search else f"{need.api.list} failed"


READER = RunningReader()
