"""Described: the job's description (DescribeTrainingJob...), where a rule's action_json is when the event lacks it."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import Described


class DescribeReader(Reader[Described]):
    need = Described

    def read(self, need: Described, ports: Ports) -> object:
        return ports.jobs.describe(need.api, need.job_name)

    def failure(self, need: Described) -> str:
        return f"{need.api.describe} failed"


READER = DescribeReader()
