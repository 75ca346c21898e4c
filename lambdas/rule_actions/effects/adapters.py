"""The bag of ports the handler builds once per execution environment (ports.Ports): SageMaker, SNS, the ledger,
webhooks, CloudWatch metrics and logs (clients made on first use), the AWS Price List (its answers kept for the
environment, whatever account a job runs in: prices are public), and in organization mode the member accounts'
SageMaker, metrics and logs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from rule_actions.effects import begin_invocation, client
from rule_actions.effects.ledger import DynamoLedger
from rule_actions.effects.notify import SnsNotifier
from rule_actions.effects.pricing import PriceListApi
from rule_actions.effects.s3 import S3Checkpoints
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.effects.webhook import HttpsWebhooks

if TYPE_CHECKING:  # organization mode only: the handler imports it when the configuration has an organization
    from rule_actions.effects.batch import BatchServiceJobs  # the Batch family's, imported only when it is on
    from rule_actions.effects.cloudwatch import CloudWatchMetrics
    from rule_actions.effects.logs import CloudWatchLogs
    from rule_actions.effects.members import MemberAccounts


class Kept:
    """What an execution environment keeps from one invocation to the next, lost with it: per (account, region), what
    its evaluations heard of each job's logs (job -> host -> its latest log line read, epoch ms: a job heard recently
    needs no log query until its silence could reach a threshold); and its ports with an evaluation's reads, made on
    its first evaluation."""

    def __init__(self) -> None:
        self.heard: dict[tuple[str | None, str | None], Mapping[str, Mapping[str, int]]] = {}
        self.evaluation: Adapters | None = None


class Adapters(NamedTuple):
    jobs: SageMaker
    notifier: SnsNotifier
    ledger: DynamoLedger
    region: str  # where links point: the function's region, or the member's in organization mode
    webhooks: HttpsWebhooks
    kept: Kept  # what the execution environment keeps (shared by every copy of these ports)
    prices: PriceListApi  # the AWS Price List: what a job's cost multiplies
    checkpoints: S3Checkpoints | None = None  # S3: a restart's loop guard lists its job's checkpoints
    batch: BatchServiceJobs | None = None  # AWS Batch's service jobs (None: the Batch family is off)
    members: MemberAccounts | None = None  # organization mode: SageMaker in each event's account (effects/members.py)
    metrics: CloudWatchMetrics | None = None  # a scheduled evaluation's reads (`evaluation()`; None for an event)
    logs: CloudWatchLogs | None = None

    def register(self, lambda_context: object) -> None:
        """The invocation's context: AWS calls, in-progress records and webhook retries end with its remaining time."""
        begin_invocation(lambda_context)
        self.ledger.register(lambda_context)
        self.webhooks.register(lambda_context)

    def evaluation(self) -> Adapters:
        """These ports with a scheduled evaluation's reads (CloudWatch metrics and logs, clients made on first use),
        made on the environment's first evaluation and kept: an event invocation never imports them."""
        if self.kept.evaluation is None:
            from rule_actions.effects.cloudwatch import CloudWatchMetrics
            from rule_actions.effects.logs import CloudWatchLogs

            self.kept.evaluation = self._replace(metrics=CloudWatchMetrics(lambda: client("cloudwatch", self.region)),
                                                 logs=CloudWatchLogs(lambda: client("logs", self.region)))
        return self.kept.evaluation

    def in_account(self, account: str, region: str) -> Adapters:
        """The ports for a job of `account` in `region`: with members, SageMaker, metrics and logs there (through
        the account's executor role) and links to that region; with one account, these."""
        if self.members is None:
            return self
        members = self.members
        found = self._replace(jobs=members.sagemaker(account, region), region=region,
                              checkpoints=S3Checkpoints(lambda: members.client("s3", account, region)))
        if self.batch is not None:  # the Batch family is on: its adapter imported then
            from rule_actions.effects.batch import BatchServiceJobs

            found = found._replace(batch=BatchServiceJobs(lambda: members.client("batch", account, region)))
        if self.metrics is None:  # an event's ports: no evaluation's reads
            return found
        from rule_actions.effects.cloudwatch import CloudWatchMetrics
        from rule_actions.effects.logs import CloudWatchLogs

        return found._replace(metrics=CloudWatchMetrics(lambda: members.client("cloudwatch", account, region)),
                              logs=CloudWatchLogs(lambda: members.client("logs", account, region),
                                                  self.logs.tps if self.logs else None))
