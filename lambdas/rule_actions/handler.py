"""The Lambda handler, entry only: which source this is (a trigger family's request, a scheduled evaluation, or a job's
state change) -> the pipeline -> its result. No decisions and no reads here: the pipeline makes every decision about
an event and reports each on the result (pipeline.py).

Returns {"training_job": ..., "job": ..., "job_family": ..., "actions": [...]} (plus "ignored" with the reason for
events it cannot act on, and "problems" naming the parts of the event that could not be read): "job" names the
job of any family ("training", "tuning", "processing", "pipeline", "transform": "job_family"), "training_job" the
job of a training event as before (null for the other families). Raises ActionsFailed after every action was
attempted when any failed, so that Lambda retries them. Nothing personal or secret is in either.

A test notification request (triggers/test.py) returns {"test_notification": id, "actions": [...]} and never
raises for a destination that failed: the caller reads each outcome, and nothing retries or alarms on a test.

A scheduled evaluation (the evaluator function's schedule: {"rule_actions_evaluation": {...}}) has the monitor rules
judge every running job in scope, then each job whose rules hold goes the route of any job's state change, as the
typed event its family reads. It returns {"evaluation": {...}, "jobs": [...]} (each job's verdicts, actions and
problems); a job whose reads fail is reported and the others go on; it raises ActionsFailed when an action failed
(the errors alarm), after every job was handled.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from rule_actions import pipeline, registry
from rule_actions.config import Settings
from rule_actions.effects import client, partition
from rule_actions.effects.adapters import Adapters, Kept
from rule_actions.effects.ledger import DynamoLedger
from rule_actions.effects.notify import SnsNotifier
from rule_actions.effects.pricing import PriceListApi
from rule_actions.effects.s3 import S3Checkpoints
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.effects.webhook import HttpsWebhooks
from rule_actions.observability import observed
from rule_actions.records import IgnoredEvent

DEFAULT_SECONDS = 60.0  # the time an evaluation invoked without a Lambda context has (a test)


class ActionsFailed(RuntimeError):
    """Some actions failed; Lambda retries the event and the ledger skips the ones already done."""

    def __init__(self, message: str, result: dict[str, Any]):
        super().__init__(message)
        self.result = result  # every action's outcome, for callers in-process (the local replay)


@cache
def runtime() -> tuple[Settings, Adapters]:
    """Settings and AWS clients, validated and created once per execution environment."""
    settings = Settings.from_env()
    config = settings.config
    org = config.organization
    if org:  # organization mode only (imported here: a single-account cold start never pays for it)
        from rule_actions.effects.members import MemberAccounts
    adapters = Adapters(
        jobs=SageMaker(client("sagemaker", settings.region)),
        notifier=SnsNotifier(client("sns", settings.region), settings.topic_arn, settings.chat_topic_arn),
        ledger=DynamoLedger(settings.ledger_table, config.dedup_ttl_hours, client("dynamodb", settings.region)),
        region=settings.region,
        # Lambda sets AWS_LAMBDA_FUNCTION_NAME: there, https only; plain http to loopback only in a local replay.
        webhooks=HttpsWebhooks(lambda: client("secretsmanager", settings.region),
                               loopback_http="AWS_LAMBDA_FUNCTION_NAME" not in os.environ),
        members=MemberAccounts(client("sts", settings.region), partition(settings.region), org.role_name) if org else None,
        kept=Kept(),  # what the evaluations of this environment heard, and their ports
        prices=PriceListApi(lambda endpoint: client("pricing", endpoint)),  # each answer kept for the environment
        checkpoints=S3Checkpoints(lambda: client("s3", settings.region)),  # made on a restart's first listing
    )
    if registry.batch_on(config):  # AWS Batch, when the Batch family is on (its client made on a stop's first call)
        from rule_actions.effects.batch import BatchServiceJobs

        adapters = adapters._replace(batch=BatchServiceJobs(lambda: client("batch", settings.region)))
    return settings, adapters


@observed
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    settings, adapters = runtime()
    adapters.register(context)
    config = settings.config
    try:
        requested = pipeline.request(event, settings.region, config)
        evaluation = registry.evaluation_request(event) if requested is None else None
    except IgnoredEvent as err:  # a request of a trigger family's own, or a scheduled evaluation's, malformed
        return pipeline.ignored(str(err))
    if requested is not None:
        handled = pipeline.test(*requested, config, adapters)
    elif evaluation is not None:
        seconds = context.get_remaining_time_in_millis() / 1000 if context is not None else DEFAULT_SECONDS
        handled = pipeline.evaluate(evaluation, config, adapters.evaluation(), seconds, adapters.kept.heard)
    else:
        handled = pipeline.handle(event, config, adapters)
    if handled.failed:
        raise ActionsFailed(handled.failed, handled.result)
    return handled.result
