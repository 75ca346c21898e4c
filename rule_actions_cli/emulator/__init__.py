"""The embedded AWS: moto, extended where it lacks what the replay and the tests need. Nothing else of the project
patches moto, and only the replay (embedded.py, embedded_organization.py, seeding.py, deploy_local.py) and the tests
import this package (tests/architecture.py holds it).

    sagemaker     the job families' calls moto lacks (the stops, a tuning job's trials, a pipeline's steps, Search of
                  tuning jobs, paged, UpdateTrainingJob), CreateTrainingJob as SageMaker does it (a name in use
                  refused, the job InProgress, the whole request kept), and jobs put into moto's backend in any status
                  (put_training_job ...)
    s3            a training job's checkpoints written at simulated times (put_checkpoint)
    monitoring    CloudWatch metrics, CloudWatch Logs and Logs Insights as an evaluation reads them; put_metrics and
                  put_log_lines at simulated times
    organization  STS's trust policies, a CloudFormation Ref to an event bus
    pricing       the AWS Price List (sample prices)
    dynamodb      conditional writes that are atomic (the ledger's exactly once under concurrent invocations)
    batch         AWS Batch's service jobs (SubmitServiceJob, DescribeServiceJob, TerminateServiceJob, ListServiceJobs),
                  and what Batch does on its own: an attempt's training job created (start_attempt), a job moved or
                  preempted (put_service_job)
    speed         no gap: the same answers in less time (moto's JSON serializer, Search's filters, JSON templates,
                  botocore's region lists), each checked against moto's and botocore's own code
    stacks        no gap: a stack's resources created as moto's CloudFormation creates them, without importing it (the
                  replay's deploy), checked against it call by call

Each gap-filling module lists the gaps it fills (`GAPS`: the service, the API as botocore's model names it, what moto
lacks, and the moto version it was found in); tests/unit/test_emulator.py checks each against botocore's model. Each
module's install() is idempotent and serves in-process `mock_aws` and a `ThreadedMotoServer` of this process alike
(moto looks its handlers up by name at every request); a `moto_server` process of its own is not extended.
"""

from __future__ import annotations

from typing import NamedTuple


class Gap(NamedTuple):
    """What moto lacks, or does otherwise than AWS, that an extension of this package fills."""

    service: str  # botocore's service name (sagemaker, cloudwatch, logs, sts, pricing, cloudformation, batch)
    api: str  # the operation, as botocore's service model names it
    lacks: str  # what moto does (or does not) that AWS does otherwise
    moto: str = "5.2.5"  # the moto version the gap was found in (and still is)

