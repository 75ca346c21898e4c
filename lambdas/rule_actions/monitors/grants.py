"""The IAM statements of what a scheduled evaluation reads (metrics, logs, tags, a tuning job's trials), per job
family it evaluates: the stack turns them into its evaluator's policy (registry.evaluation_grants)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rule_actions.contract import Arn, Grant
from rule_actions.monitors.rule import Monitor


def read_grants(log_group: str, logs: bool) -> list[Grant]:
    """What an evaluation reads besides the jobs: CloudWatch metrics, and the training jobs' log group."""
    grants = [Grant("ReadTrainingMetrics", ("cloudwatch:GetMetricData",), ("*",),
                    "cloudwatch:GetMetricData supports no resource-level permissions; IAM requires Resource \"*\" "
                    "for it (the only action in that statement).")]
    if logs:  # FilterLogEvents per job; one Logs Insights query (StartQuery) for many (effects/logs.py)
        grants.append(Grant("ReadTrainingLogs", ("logs:FilterLogEvents", "logs:StartQuery"),
                            (Arn("logs", "log-group", log_group, colon=True),
                             Arn("logs", "log-group", f"{log_group}:*", colon=True)),
                            "The training jobs' log group: its streams (<job>/algo-<n>-<epoch>) are named by "
                            "SageMaker at run time."))
        grants.append(Grant("ReadTrainingLogQueries", ("logs:GetQueryResults", "logs:StopQuery"), ("*",),
                            "logs:StopQuery supports no resource-level permissions, and logs:GetQueryResults none in "
                            "earlier versions of the Service Authorization Reference (the query's log group in the "
                            "current one): IAM requires Resource \"*\"; both act only on a query id StartQuery "
                            "returned, and the query itself is scoped to the log group."))
    return grants


def family_read_grants(family: Any, config: Any, configured: Sequence[Monitor], tagged: Sequence[Monitor],
                       first: bool) -> list[Grant]:
    """What an evaluation reads of one family's jobs besides listing and describing them, given the rules the
    configuration applies to them and those their tags may attach: for training (`first`) what it always read;
    for another family its instance metrics (the same GetMetricData statement), its log group when a rule reads
    logs, its jobs' tags (ListTags: processing and transform jobs are listed, Search would carry them), and a tuning
    job's trials."""
    rules = [*configured, *tagged]
    if first:
        return read_grants(family.log_group, any(rule.logs for rule in rules))
    grants: list[Grant] = []
    if any(rule.metrics for rule in rules):
        grants += read_grants(family.log_group, False)
    if any(rule.logs for rule in rules):  # per job, or one Logs Insights query for many, as for training
        label = family.label.split()[0]
        grants.append(Grant(f"Read{label}Logs", ("logs:FilterLogEvents", "logs:StartQuery"),
                            (Arn("logs", "log-group", family.log_group, colon=True),
                             Arn("logs", "log-group", f"{family.log_group}:*", colon=True)),
                            f"The {family.noun}s' log group: its streams (<job>/<host>-<epoch>) are named by "
                            "SageMaker at run time."))
        grants += [g for g in read_grants(family.log_group, True) if g.sid == "ReadTrainingLogQueries"]
    if not family.api.search:
        grants.append(Grant("ListTags" + "".join(w.capitalize() for w in f"{family.label}s".split()),
                            ("sagemaker:ListTags",),
                            family.resources(config),
                            f"The tags of the running {family.noun}s under the configured {family.scope.key} "
                            "(ListProcessingJobs and ListTransformJobs do not return them; Search does not support "
                            "these families), read once per job and execution environment."))
    if any(rule.instances for rule in rules) and family.instances_listed:
        grants.append(Grant("List" + "".join(w.capitalize() for w in family.label.split()) + "Instances",
                            ("cloudwatch:ListMetrics",), ("*",),
                            "cloudwatch:ListMetrics supports no resource-level permissions; IAM requires Resource "
                            f"\"*\" for it (the only action in that statement): a {family.noun}'s instances are "
                            "named only by its metrics' Host dimension."))
    summed = getattr(family.billing, "trials", False)  # a tuning job's cost sums its trials
    if any(rule.trials or (rule.prices and summed) for rule in rules):
        grants.append(Grant("ListTuningJobTrials", ("sagemaker:ListTrainingJobsForHyperParameterTuningJob",),
                            family.resources(config),
                            "The trials of the running tuning jobs under the configured tuning_job_prefixes: one "
                            "call per tuning job and run (a page per 100 trials for its cost), for the rules about "
                            "a tuning job as a whole."))
    if any(rule.prices for rule in rules) and summed:
        grants.append(Grant("DescribeTuningJobTrials", ("sagemaker:DescribeTrainingJob",),
                            family.resources(config, "training-job"),
                            "The trials of the running tuning jobs under the configured tuning_job_prefixes (a "
                            "trial's name starts with its tuning job's): what each ran on and was billed for, which "
                            "a tuning job's cost sums; once per running trial and run."))
    return grants

