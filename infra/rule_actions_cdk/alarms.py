"""The deployment's alarms, apart from what they watch (built into RuleActions' own scope: their construct ids,
logical ids and names those of its first releases), each notifying the ops topic:

    of the function      its errors and throttles, a message in either dead-letter queue, an event Lambda could not
                         put in the failed-events queue or EventBridge in the target DLQ, messages SNS could not
                         deliver (a bounced email, a refused text); in organization mode, events of accounts the
                         configuration does not name
    of the evaluator     its errors, jobs whose reads failed, runs near their timeout or out of time for some jobs,
                         no run at all
"""

from __future__ import annotations

from typing import TypedDict, cast

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from constructs import Construct

from rule_actions_cdk import metrics, organization
from rule_actions_cdk.dashboard import function_metric
from rule_actions_cdk.messaging import DeadLetterQueues

ALARM_PERIOD = Duration.minutes(5)


class MetricOptions(TypedDict):
    """How an alarm reads its metric (a metric method's or cloudwatch.Metric's options)."""

    period: Duration
    statistic: str
DURATION_ALARM_SHARE = 0.8  # an evaluation longer than this share of its timeout alarms


def alarm_arns(stack: Stack, name: str) -> str:
    """The deployment's alarms, as the ops topic's policy names them (the only sources it takes)."""
    return stack.format_arn(service="cloudwatch", resource="alarm", resource_name=f"{name}-*",
                            arn_format=ArnFormat.COLON_RESOURCE_NAME)


def alarm_name(alarm: cloudwatch.Alarm) -> str:
    """The name the alarm was made with (Alarms._alarm names each): its L1 CfnAlarm's AlarmName, which CDK types
    optional (and the L1 itself IConstruct)."""
    return cast(str, cast(cloudwatch.CfnAlarm, alarm.node.default_child).alarm_name)


class Alarms:
    """`alarms`: every alarm, in the order made (the dashboard shows them in that order)."""

    def __init__(self, scope: Construct, name: str, ops_topic: sns.ITopic) -> None:
        self.scope, self.name = scope, name
        self.action = cloudwatch_actions.SnsAction(ops_topic)
        self.alarms: list[cloudwatch.Alarm] = []

    def of_function(self, function: lambda_.Function, queues: DeadLetterQueues, rule_dimensions: dict[str, str],
                    topic: sns.ITopic, organization_mode: bool) -> None:
        """The function's, its queues' and its deliveries' alarms (and refused accounts' in organization mode)."""
        name = self.name
        queue_metric: MetricOptions = {"period": ALARM_PERIOD, "statistic": "Maximum"}
        sum_: MetricOptions = {"period": ALARM_PERIOD, "statistic": "Sum"}
        self._alarm("FunctionErrorsAlarm", f"{name}-function-errors",
                    "The rule-actions function failed: an action failed, or the handler raised",
                    function.metric_errors(period=ALARM_PERIOD, statistic="Sum"))
        self._alarm("TargetDeadLetterQueueAlarm", f"{name}-target-dlq-messages",
                    "EventBridge could not deliver rule outcomes to the function: they wait in the target DLQ",
                    queues.target_dlq.metric_approximate_number_of_messages_visible(**queue_metric))
        self._alarm("FailedEventsQueueAlarm", f"{name}-failed-events-messages",
                    "The function failed on rule outcomes after Lambda's retries: they wait in the "
                    "failed-events queue",
                    queues.failure_queue.metric_approximate_number_of_messages_visible(**queue_metric))
        # What would otherwise be lost or late without a trace: throttled invocations, a failed event Lambda could
        # not put in the failed-events queue, an event EventBridge could not put in the target DLQ, and messages SNS
        # could not deliver (a bounced email, a refused text).
        self._alarm("FunctionThrottlesAlarm", f"{name}-function-throttles",
                    "Lambda throttled the rule-actions function: events wait in Lambda's async queue (up to "
                    "6 hours) and may be late; raise the account's concurrency or reserved_concurrency",
                    function.metric_throttles(**sum_))
        self._alarm("DestinationDeliveryFailuresAlarm", f"{name}-destination-delivery-failures",
                    "Lambda could not put an event the function failed on into the failed-events queue: that "
                    "event is lost (see the function's logs)",
                    function.metric("DestinationDeliveryFailures", **sum_))
        self._alarm("RuleDeadLetterFailuresAlarm", f"{name}-rule-dlq-failures",
                    "EventBridge could neither deliver rule outcomes to the function nor put them in the target "
                    "DLQ: those events are lost",
                    cloudwatch.Metric(namespace="AWS/Events", metric_name="InvocationsFailedToBeSentToDlq",
                                      dimensions_map=rule_dimensions, **sum_))
        self._alarm("NotificationsFailedAlarm", f"{name}-notifications-failed",
                    "SNS could not deliver messages of the team topic (an email bounced, a text was refused: "
                    "SMS sandbox, spend limit, opted-out number); texts' reasons are in the SMS delivery logs",
                    topic.metric_number_of_notifications_failed(**sum_))
        if organization_mode:
            self._alarm("RefusedAccountsAlarm", f"{name}-refused-accounts",
                        "Events came from an account the organization configuration does not name: nothing was done "
                        "for them (add the account to organization.accounts, or remove its member stack)",
                        organization.refused_account_metric(name))

    def of_evaluator(self, evaluator: lambda_.Function, every_minutes: int, timeout: int) -> None:
        """The evaluator's alarms (`timeout`: its timeout, in seconds)."""
        name = self.name
        quiet = Duration.minutes(max(every_minutes, 5))
        self._alarm("EvaluatorErrorsAlarm", f"{name}-evaluator-errors",
                    "The evaluator failed: an action it decided failed, or the run raised (see its logs)",
                    evaluator.metric_errors(period=quiet, statistic="Sum"))
        self._alarm("EvaluationErrorsAlarm", f"{name}-evaluation-errors",
                    "The evaluator could not read what some jobs' rules need (Search, GetMetricData or "
                    "FilterLogEvents failed: throttling, permissions of a member's executor role); those rules "
                    "were not judged (see the evaluator's logs)",
                    function_metric(metrics.EVALUATION_ERRORS, name, period=quiet))
        self._alarm("EvaluatorDurationAlarm", f"{name}-evaluator-duration",
                    f"An evaluation ran longer than {int(DURATION_ALARM_SHARE * 100)}% of its timeout: raise "
                    "monitor.shards (or every_minutes) before runs fail",
                    evaluator.metric_duration(period=quiet, statistic="Maximum"),
                    threshold=int(DURATION_ALARM_SHARE * timeout * 1000))
        self._alarm("EvaluationUnfinishedAlarm", f"{name}-evaluation-unfinished",
                    "A run had no time left for some jobs' log queries: those jobs were not evaluated in it "
                    "(FilterLogEvents allows 5 calls a second per account and region, a quota that cannot be "
                    "raised; from 500 jobs to read one Logs Insights query reads them); raise every_minutes",
                    function_metric(metrics.UNFINISHED, name, period=quiet))
        self._notify(cloudwatch.Alarm(
            self.scope, "EvaluatorNotRunningAlarm", alarm_name=f"{name}-evaluator-not-running",
            alarm_description="The evaluator was not invoked for three schedule periods: the schedule rule is "
                              "disabled, or EventBridge cannot invoke it",
            metric=evaluator.metric_invocations(period=Duration.minutes(every_minutes), statistic="Sum"),
            threshold=1, evaluation_periods=3,
            comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.BREACHING))

    def _alarm(self, construct_id: str, alarm_name: str, description: str, metric: cloudwatch.Metric,
               threshold: float = 1) -> None:
        """An alarm on one datapoint at or over `threshold` (no data: not breaching)."""
        self._notify(cloudwatch.Alarm(
            self.scope, construct_id, alarm_name=alarm_name, alarm_description=description, metric=metric,
            threshold=threshold, evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        ))

    def _notify(self, alarm: cloudwatch.Alarm) -> None:
        alarm.add_alarm_action(self.action)
        self.alarms.append(alarm)
