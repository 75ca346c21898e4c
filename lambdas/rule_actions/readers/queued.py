"""QueuedServiceJobs: an AWS Batch job queue's service jobs in one status (ListServiceJobs, every page), for a job
family's sweep on the schedule (the Batch family's: the jobs waiting RUNNABLE in the queues it follows)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import QueuedServiceJobs


class QueuedReader(Reader[QueuedServiceJobs]):
    need = QueuedServiceJobs

    def read(self, need: QueuedServiceJobs, ports: Ports) -> object:
        if ports.batch is None:
            raise LookupError("no AWS Batch port: the Batch family is off (batch_queues is empty)")
        return tuple(ports.batch.listed(need.queue, need.status))

    def failure(self, need: QueuedServiceJobs) -> str:
        return f"ListServiceJobs of queue {need.queue} ({need.status}) failed"


READER = QueuedReader()
