"""With `monitor`, or a job family that sweeps its jobs (registry.sweeping: the Batch family telling waits): the
evaluator and its schedule, built into RuleActions' own scope (their construct ids, logical
ids and names those of its first releases; its alarms are alarms.py's).

    <name>-evaluate[-<n>]  scheduled rules (rule_actions_cdk.plugins.schedule: every `every_minutes`, one target per
                           run, five targets to a rule)
        --> <name>-evaluator  the same code and environment as the function, and the same statements (it stops jobs
                              and notifies through the same topic and ledger), plus an evaluation's reads
                              (plugins.evaluation_grants: Search, GetMetricData, FilterLogEvents...), on a role of
                              its own
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from rule_actions.contract import EVALUATION_KEY, Schedule
from rule_actions_cdk import organization, plugins
from rule_actions_cdk.function import Backing, grant_function, new_function, retention
from rule_actions_cdk.rules import TARGET_RETRIES
from rule_actions_cdk.settings import StackSettings

# The evaluator: 512 MB (a run over a thousand jobs parses their Search records and datapoints; Lambda's CPU share
# grows with memory), a timeout of its schedule's interval (a run never overlaps the next; at most Lambda's 15
# minutes); no retry of a failed run (the next run comes within minutes; the ledger keeps its actions once).
EVALUATOR_MEMORY_MB = 512
EVALUATOR_MAX_TIMEOUT = 900
TARGETS_PER_RULE = 5  # EventBridge's limit of targets per rule: runs of one schedule share rules five by five


class Evaluator:
    """The function that evaluates the monitor rules on a schedule and acts on what they find, as the function does,
    its log group, its role, and its schedule rules."""

    def __init__(self, scope: Construct, name: str, backing: Backing, settings: StackSettings,
                 environment: dict[str, str], code: lambda_.Code, schedule: Schedule) -> None:
        config, org = backing.config, backing.config.organization
        self.schedule = schedule
        self.timeout = min(schedule.every_minutes * 60, EVALUATOR_MAX_TIMEOUT)
        function_name = f"{name}-evaluator"
        what = plugins.scheduled_work(config)  # the monitor rules, a family's sweep, or both
        self.log_group = logs.LogGroup(
            scope, "EvaluatorLogGroup", log_group_name=f"/aws/lambda/{function_name}",
            retention=retention(settings.log_retention_days), removal_policy=RemovalPolicy.DESTROY)
        self.role = iam.Role(
            scope, "EvaluatorRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{function_name}: evaluate the monitor rules, stop training jobs, notify, keep the ledger",
            role_name=organization.evaluator_role_name(name, org) if org else None)
        grant_function(self.role, self.log_group, backing, [] if org else plugins.evaluation_grants(config))
        self.function = new_function(
            scope, "Evaluator", function_name,
            "Evaluates the monitor rules on SageMaker training jobs' metrics and logs, and acts on them"
            if what.startswith("monitor rules") else f"Runs the {what} on a schedule, and acts on what it finds",
            code, self.role, self.log_group, EVALUATOR_MEMORY_MB, Duration.seconds(self.timeout), environment,
            retry_attempts=0)
        runs = schedule.runs
        every = Duration.minutes(schedule.every_minutes)
        self.rules: list[events.Rule] = []
        for index in range(0, len(runs), TARGETS_PER_RULE):
            part = index // TARGETS_PER_RULE
            rule_name = f"{name}-evaluate" + (f"-{part + 1}" if len(runs) > TARGETS_PER_RULE else "")
            self.rules.append(events.Rule(
                scope, f"Schedule{part + 1}" if part else "Schedule", rule_name=rule_name,
                description=f"Runs the {what} every {schedule.every_minutes} minute(s)",
                schedule=events.Schedule.rate(Duration.minutes(schedule.every_minutes)),
                # EventBridge retries an invocation it could not make (throttling) within one interval: a later
                # attempt would overlap the next run.
                targets=[targets.LambdaFunction(self.function, retry_attempts=TARGET_RETRIES, max_event_age=every,
                                                event=events.RuleTargetInput.from_object(
                    {EVALUATION_KEY: {**run, "time": events.EventField.time}}))
                    for run in runs[index:index + TARGETS_PER_RULE]],
            ))
