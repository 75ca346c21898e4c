"""What a job cost, end to end on the embedded AWS (moto, its Price List answering from the sample prices): a stop's
result, its team message and text, and the ledger's record of the stop say what the job cost until the stop and
what the stop saved at most; a failure says what the job cost in all."""

from __future__ import annotations

from datetime import datetime

import boto3
from builders import REGION, event, rule_status

from rule_actions.contract import LEDGER_KEY_ATTRIBUTE
from rule_actions.effects.ledger import STOPPED_PREFIX
from rule_actions_cli.emulator import pricing as moto_pricing

TABLE = "rule-actions-ledger"
P4D = "ml.p4d.24xlarge"  # the sample prices: $37.688/h in us-east-1


def running(job: str, hours_in: float, **detail):
    """A Debugger finding on a job on two p4d that started `hours_in` hours before the event (a 1-day MaxRuntime)."""
    raw = event(job=job, debug=[rule_status("LossNotDecreasing", job=job)])
    when = datetime.fromisoformat(raw["time"].replace("Z", "+00:00")).timestamp()
    raw["detail"].update(ResourceConfig={"InstanceType": P4D, "InstanceCount": 2},
                         TrainingStartTime=str(int((when - hours_in * 3600) * 1000)),
                         StoppingCondition={"MaxRuntimeInSeconds": 86400}, **detail)
    return raw


def test_a_stop_says_what_the_job_cost_until_the_stop_and_the_ledger_keeps_it(aws):
    # Given the team subscribed, rules that stop, and a job 3 h 12 min on two p4d
    aws.configure(notify={"emails": ["ml@example.com"], "sms": ["+15555550100"]},
                  rules={"*": ["stoptraining", "notify"]})
    aws.put_job("llm-pretrain-7")
    served = moto_pricing.calls()
    # When its finding arrives
    result = aws.invoke(running("llm-pretrain-7", 3.2))
    # Then the stop's result says the cost until the stop and the saving at most (2 x $37.688/h x 3.2 h; x 20.8 h)
    stop = result["actions"][0]
    assert (stop["kind"], stop["outcome"]) == ("stoptraining", "done")
    assert stop["reason"] == "stopped llm-pretrain-7 (cost $241.20 until the stop; saved at most $1,567.82)"
    assert moto_pricing.calls() - served == 1  # the price list read once for the one instance type and region
    # And the team's email and text say it, with the inputs of the sum
    [message] = aws.inbox("ml@example.com")
    assert "Cost:           $241.20 until the stop (2 x ml.p4d.24xlarge at $37.688/h for 3 h 12 min)" in \
        message["email"]
    assert "Saved:          at most $1,567.82: the rest of its MaxRuntimeInSeconds" in message["email"]
    [text] = aws.inbox("+15555550100")
    assert text["sms"].endswith("; cost $241.20, saved <=$1,567.82") and len(text["sms"]) <= 140
    # And the ledger's stop record keeps both figures as decimal strings
    arn = f"arn:aws:sagemaker:{REGION}:123456789012:training-job/llm-pretrain-7"
    item = boto3.client("dynamodb", region_name=REGION).get_item(
        TableName=TABLE, Key={LEDGER_KEY_ATTRIBUTE: {"S": STOPPED_PREFIX + arn}})["Item"]
    assert (item["cost_usd"], item["saved_usd"]) == ({"S": "241.20"}, {"S": "1567.82"})
    assert item["stopped_by"]["S"].startswith("rule LossNotDecreasing of llm-pretrain-7")


def test_a_stop_whose_price_is_unknown_stops_all_the_same_and_its_record_has_no_figure(aws):
    # Given a job on an instance type the price list does not price
    aws.configure(rules={"*": ["stoptraining"]})
    aws.put_job("exotic-1")
    raw = running("exotic-1", 1.0)
    raw["detail"]["ResourceConfig"] = {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1}
    # When its finding arrives, Then it is stopped, and nothing made up is said or kept
    result = aws.invoke(raw)
    assert result["actions"][0]["reason"] == "stopped exotic-1"
    item = boto3.client("dynamodb", region_name=REGION).get_item(
        TableName=TABLE, Key={LEDGER_KEY_ATTRIBUTE: {"S": STOPPED_PREFIX + f"arn:aws:sagemaker:{REGION}:123456789012:"
                                                                          "training-job/exotic-1"}})["Item"]
    assert "cost_usd" not in item and "saved_usd" not in item


def test_a_failure_says_what_the_job_cost_in_all(aws):
    # Given the team told of failures, and a job that ran 2 hours on two p4d and failed
    aws.configure(notify={"emails": ["ml@example.com"]}, job_outcomes={"Failed": ["notify"]})
    raw = running("llm-failed-3", 2.0, TrainingJobStatus="Failed", SecondaryStatus="Failed",
                  FailureReason="AlgorithmError: CUDA out of memory")
    raw["detail"]["TrainingEndTime"] = str(int(datetime.fromisoformat(raw["time"].replace("Z", "+00:00"))
                                               .timestamp() * 1000))
    del raw["detail"]["DebugRuleEvaluationStatuses"]
    aws.invoke(raw)
    [message] = aws.inbox("ml@example.com")
    assert "Cost:           $150.75 in all (2 x ml.p4d.24xlarge at $37.688/h for 2 h 00 min)" in message["email"]
