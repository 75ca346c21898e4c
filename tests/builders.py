"""Builders for "SageMaker Training Job State Change" events, as SageMaker sends them (see events/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ACCOUNT = "123456789012"  # moto's default account: the jobs the tests create live there
REGION = "us-east-1"
EVENTS = Path(__file__).resolve().parent.parent / "events"
SDK_ACTIONS = (  # Rule.prepare_actions("demo-job-001") for ActionList(StopTraining(), Email("ml@example.com"))
    '[{\\"name\\": \\"stoptraining\\", \\"training_job_prefix\\": \\"demo-job-001\\"}, '
    '{\\"endpoint\\": \\"ml@example.com\\", \\"name\\": \\"email\\"}]'
)


def job_arn(name: str, account: str = ACCOUNT, region: str = REGION) -> str:
    return f"arn:aws:sagemaker:{region}:{account}:training-job/{name.lower()}"


def rule_status(name: str, status: str = "IssuesFound", job: str = "demo-job-001", **extra: Any) -> dict[str, Any]:
    processing = f"{job[:26]}-{name.lower()[:26]}-0a1b2c3d"
    return {
        "RuleConfigurationName": name,
        "RuleEvaluationJobArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:processing-job/{processing}",
        "RuleEvaluationStatus": status,
        "StatusDetails": f"RuleEvaluationConditionMet: Evaluation of the rule {name} at step 500 resulted in the condition being met\n"
        if status == "IssuesFound"
        else "",
        "LastModifiedTime": "1763800000000",
        **extra,
    }


def rule_config(name: str, action_json: str | None = None) -> dict[str, Any]:
    params = {"rule_to_invoke": name}
    if action_json is not None:
        params["action_json"] = action_json
    return {"RuleConfigurationName": name, "RuleEvaluatorImage": "503895931360.dkr.ecr.us-east-1.amazonaws.com/sagemaker-debugger-rules:latest", "RuleParameters": params}


def event(
    job: str = "demo-job-001",
    status: str = "InProgress",
    secondary: str = "Training",
    debug: list[dict[str, Any]] | None = None,
    profiler: list[dict[str, Any]] | None = None,
    debug_configs: list[dict[str, Any]] | None = None,
    profiler_configs: list[dict[str, Any]] | None = None,
    event_id: str = "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
    account: str = ACCOUNT,
    region: str = REGION,
    **envelope: Any,
) -> dict[str, Any]:
    """An event of `account` in `region` (the job's ARN names them too)."""
    detail: dict[str, Any] = {
        "TrainingJobName": job,
        "TrainingJobArn": job_arn(job, account, region),
        "TrainingJobStatus": status,
        "SecondaryStatus": secondary,
        "CreationTime": "1763799000000",
        "LastModifiedTime": "1763800000000",
    }
    for key, value in (
        ("DebugRuleEvaluationStatuses", debug),
        ("ProfilerRuleEvaluationStatuses", profiler),
        ("DebugRuleConfigurations", debug_configs),
        ("ProfilerRuleConfigurations", profiler_configs),
    ):
        if value is not None:
            detail[key] = value
    return {
        "version": "0",
        "id": event_id,
        "detail-type": "SageMaker Training Job State Change",
        "source": "aws.sagemaker",
        "account": account,
        "time": "2026-11-22T08:00:00Z",
        "region": region,
        "resources": [job_arn(job, account, region)],
        "detail": detail,
        **envelope,
    }


def monitor_event(mode: str | None, family: str = "Monitor", rule: str = "StalledTraining",
                  **event_args: Any) -> dict[str, Any]:
    """A state change carrying one IssuesFound rule of `family` whose RuleParameters hold `mode` (None: no mode), as
    a scheduled evaluation hands a monitor rule over (for Debug or Profiler: as a user could write them)."""
    raw = event(**event_args)
    params = {"rule_to_invoke": rule, **({"mode": mode} if mode else {})}
    raw["detail"][f"{family}RuleEvaluationStatuses"] = [rule_status(rule, job=raw["detail"]["TrainingJobName"],
                                                                    StatusDetails="no log line from any host for 34 min")]
    raw["detail"][f"{family}RuleConfigurations"] = [{"RuleConfigurationName": rule, "RuleParameters": params}]
    return raw


def sample(name: str) -> Any:
    return json.loads((EVENTS / name).read_text())


def function_resources(monkeypatch: Any, topic_name: str = "rule-actions", table: str = "rule-actions-ledger") -> str:
    """Inside moto: what the stack gives the function (its topic and ledger table, and the environment that
    names them); returns the topic ARN."""
    import boto3

    from rule_actions_cli.emulator import dynamodb as moto_dynamodb
    from rule_actions_cli.emulator import pricing as moto_pricing
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker

    moto_sagemaker.install()
    moto_pricing.install()  # the Price List the stack's function reads (sample prices)
    moto_dynamodb.install()  # the ledger's conditional writes atomic, as in AWS (concurrent invocations)
    topic_arn = boto3.client("sns", region_name=REGION).create_topic(Name=topic_name)["TopicArn"]
    boto3.client("dynamodb", region_name=REGION).create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    monkeypatch.setenv("RULE_ACTIONS_TOPIC_ARN", topic_arn)
    monkeypatch.setenv("RULE_ACTIONS_LEDGER_TABLE", table)
    return topic_arn
