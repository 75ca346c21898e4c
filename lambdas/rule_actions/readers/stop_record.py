"""StopRecord: this stack's record of its stop of a job (a StopNote: who, and what is to follow once the job has
stopped), None when it did not stop it."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import StopRecord


class StopRecordReader(Reader[StopRecord]):
    need = StopRecord

    def read(self, need: StopRecord, ports: Ports) -> object:
        return ports.ledger.stop_record(need.job_arn)

    def failure(self, need: StopRecord) -> str:
        return "the stop record could not be read (the outcome is not held back)"


READER = StopRecordReader()
