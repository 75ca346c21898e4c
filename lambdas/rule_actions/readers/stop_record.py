"""StopRecord: who in this stack stopped a job (the ledger's record of each stop), None when it did not."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import StopRecord


class StopRecordReader(Reader[StopRecord]):
    need = StopRecord

    def read(self, need: StopRecord, ports: Ports) -> object:
        return ports.ledger.stopped_by(need.job_arn)

    def failure(self, need: StopRecord) -> str:
        return "the stop record could not be read (the outcome is not held back)"


READER = StopRecordReader()
