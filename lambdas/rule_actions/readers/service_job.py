"""ServiceJobOf: the AWS Batch service job that ran a training job, in the queues the Batch family follows (its
queue and DescribeServiceJob's answer, with the request it queued): what a restart through Batch resubmits."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import ServiceJobOf


class ServiceJobReader(Reader[ServiceJobOf]):
    need = ServiceJobOf

    def read(self, need: ServiceJobOf, ports: Ports) -> object:
        if ports.batch is None:
            raise LookupError("no AWS Batch port: the Batch family is off")
        found = ports.batch.job_of(need.training_job_arn, need.queues)
        if found is None:
            return None
        queue, summary = found
        return queue, ports.batch.describe(str(summary.get("jobId", "")))

    def failure(self, need: ServiceJobOf) -> str:
        return "ListServiceJobs or DescribeServiceJob failed (not restarted)"


READER = ServiceJobReader()
