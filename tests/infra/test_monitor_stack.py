"""The stack with the monitor rules (`monitor`): the evaluator beside the function, its schedule, its own role (what
the function may do, plus listing, metrics and the training log group: scoped), its alarms on the ops topic, cdk-nag
clean; in organization mode, the member's executor role trusts it and grants its reads. Without `monitor` nothing
of it is there (the templates of such configurations are unchanged)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import get_att, no_statement, synthesize

from rule_actions_cdk.app import build_app, project_context

MONITOR = {"notify": {"emails": ["ml@example.com"]}, "monitor": {"rules": {"LowGPUUtilization": {}}}}


def context(**config: Any) -> dict[str, Any]:
    return {**project_context(), "rule_actions": config}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Template:
    return synthesize(context(**MONITOR), tmp_path_factory.mktemp("cdk.out"))  # cdk-nag raises on a finding


def statements(template: Template, role_id: str) -> dict[str, dict[str, Any]]:
    [policy] = [r for r in template.to_json()["Resources"].values() if r["Type"] == "AWS::IAM::Policy"
                and {"Ref": role_id} in r["Properties"]["Roles"]]
    return {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}


def test_the_evaluator_runs_the_same_code_on_a_schedule(template):
    evaluator = template.find_resources("AWS::Lambda::Function", {"Properties": {"FunctionName": "RuleActions-evaluator"}})
    [(logical, resource)] = evaluator.items()
    function = next(r for r in template.find_resources("AWS::Lambda::Function", {"Properties": {
        "FunctionName": "RuleActions-handler"}}).values())
    props = resource["Properties"]
    assert props["Handler"] == function["Properties"]["Handler"] and props["Code"] == function["Properties"]["Code"]
    assert props["Environment"] == function["Properties"]["Environment"]
    assert (props["MemorySize"], props["Timeout"], props["Architectures"]) == (512, 300, ["arm64"])
    template.has_resource_properties("AWS::Lambda::EventInvokeConfig", {
        "FunctionName": {"Ref": logical}, "MaximumRetryAttempts": 0})
    template.has_resource_properties("AWS::Events::Rule", {
        "Name": "RuleActions-evaluate", "ScheduleExpression": "rate(5 minutes)",
        "Targets": [{"Arn": get_att(logical), "Id": "Target0", "RetryPolicy": {"MaximumRetryAttempts": 8,
                                                                                "MaximumEventAgeInSeconds": 300},
                     "InputTransformer": {"InputPathsMap": {"time": "$.time"}, "InputTemplate": json.dumps(
                         {"rule_actions_evaluation": {"shard": 0, "shards": 1, "time": "<time>"}},
                         separators=(",", ":")).replace('"<time>"', "<time>")}}]})
    template.has_output("EvaluatorFunctionName", {"Value": {"Ref": logical}})


def test_the_evaluators_role_is_the_functions_plus_its_scoped_reads(template):
    roles = template.find_resources("AWS::IAM::Role")
    evaluator = next(k for k in roles if k.startswith("RuleActionsEvaluatorRole"))
    function = next(k for k in roles if k.startswith("RuleActionsFunctionRole"))
    found, own = statements(template, evaluator), statements(template, function)
    assert set(found) - set(own) == {"SearchTrainingJobs", "ReadTrainingMetrics", "ReadTrainingLogs",
                                     "ReadTrainingLogQueries"}
    # the evaluator has no on-failure queue, and never sees the Stopped event at which a stop's warm pool is released
    assert set(own) - set(found) == {"SendFailedEvents", "ReleaseWarmPoolsOfTrainingJobs"}
    assert (found["SearchTrainingJobs"]["Action"], found["SearchTrainingJobs"]["Resource"]) == ("sagemaker:Search", "*")
    assert (found["ReadTrainingMetrics"]["Action"], found["ReadTrainingMetrics"]["Resource"]) == (
        "cloudwatch:GetMetricData", "*")
    assert found["ReadTrainingLogs"]["Action"] == ["logs:FilterLogEvents", "logs:StartQuery"]
    # A Logs Insights query's results and its stop: no narrower resource than "*" (the query is the log group's)
    assert (found["ReadTrainingLogQueries"]["Action"], found["ReadTrainingLogQueries"]["Resource"]) == (
        ["logs:GetQueryResults", "logs:StopQuery"], "*")
    assert [json.dumps(r) for r in found["ReadTrainingLogs"]["Resource"]] == [
        json.dumps({"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":logs:", {"Ref": "AWS::Region"}, ":",
                                      {"Ref": "AWS::AccountId"}, f":log-group:/aws/sagemaker/TrainingJobs{tail}"]]})
        for tail in ("", ":*")]
    # And the function itself gains nothing
    for sid in ("SearchTrainingJobs", "ReadTrainingMetrics", "ReadTrainingLogs", "ReadTrainingLogQueries"):
        assert sid not in own


def test_the_evaluators_alarms_reach_the_ops_topic(template):
    alarms = {r["Properties"]["AlarmName"]: r["Properties"] for r in template.find_resources(
        "AWS::CloudWatch::Alarm").values()}
    ops = next(k for k, r in template.find_resources("AWS::SNS::Topic").items()
               if r["Properties"]["TopicName"] == "RuleActions-ops")
    for name in ("evaluator-errors", "evaluation-errors", "evaluator-duration", "evaluation-unfinished",
                 "evaluator-not-running"):
        assert alarms[f"RuleActions-{name}"]["AlarmActions"] == [{"Ref": ops}]
    assert alarms["RuleActions-evaluator-duration"]["Threshold"] == 240_000  # 80% of the 300 s timeout
    assert (alarms["RuleActions-evaluator-not-running"]["ComparisonOperator"],
            alarms["RuleActions-evaluator-not-running"]["TreatMissingData"]) == ("LessThanThreshold", "breaching")
    assert alarms["RuleActions-evaluation-unfinished"]["MetricName"] == "UnfinishedJobs"


def test_runs_share_rules_five_by_five_and_the_timeout_follows_the_interval(tmp_path):
    found = synthesize(context(monitor={"every_minutes": 10, "shards": 7}), tmp_path, nag=False)
    rules = [r["Properties"] for r in found.find_resources("AWS::Events::Rule").values()
             if "ScheduleExpression" in r["Properties"]]
    assert sorted((r["Name"], len(r["Targets"])) for r in rules) == [("RuleActions-evaluate-1", 5),
                                                                     ("RuleActions-evaluate-2", 2)]
    assert {r["ScheduleExpression"] for r in rules} == {"rate(10 minutes)"}
    found.has_resource_properties("AWS::Lambda::Function", {"FunctionName": "RuleActions-evaluator", "Timeout": 600})


def test_without_monitor_nothing_of_the_evaluation_is_in_the_stack(tmp_path):
    found = synthesize(project_context(), tmp_path, nag=False)
    found.resource_properties_count_is("AWS::Lambda::Function", {"FunctionName": "RuleActions-evaluator"}, 0)
    assert not [r for r in found.find_resources("AWS::Events::Rule").values()
                if "ScheduleExpression" in r["Properties"]]
    found.has_resource_properties("AWS::IAM::Policy", no_statement({"Sid": "SearchTrainingJobs"}))
    assert "monitor" not in json.dumps(found.find_resources("AWS::Lambda::Function"))


ORG = {"org_id": "o-a1b2c3d4e5", "accounts": ["111122223333"], "central_account": "123456789012",
       "central_region": "us-east-1"}


def test_organization_mode_members_trust_the_evaluator_and_grant_its_reads(tmp_path):
    app, _ = build_app(context(organization=ORG, monitor={"rules": {"StalledTraining": {}}}), outdir=str(tmp_path),
                       nag=True)
    central = Template.from_stack(app.node.find_child("RuleActions"))
    member = Template.from_stack(app.node.find_child("RuleActionsMember"))
    central.has_resource_properties("AWS::IAM::Role", {"RoleName": "RuleActions-evaluator-us-east-1"})
    evaluator = next(k for k in central.find_resources("AWS::IAM::Role") if k.startswith("RuleActionsEvaluatorRole"))
    sids = statements(central, evaluator)
    assert "AssumeMemberExecutorRoles" in sids and not {"SearchTrainingJobs", "ReadTrainingMetrics"} & set(sids)
    [role] = [r for k, r in member.find_resources("AWS::IAM::Role").items() if k.startswith("ExecutorRole")]
    trusted = role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["AWS"]
    assert sorted(p["Fn::Join"][1][-1] for p in trusted) == [
        ":iam::123456789012:role/RuleActions-evaluator-us-east-1", ":iam::123456789012:role/RuleActions-handler-us-east-1"]
    member.has_resource_properties("AWS::IAM::Policy", {"PolicyDocument": {"Statement": Match.array_with([
        Match.object_like({"Sid": "SearchTrainingJobs", "Action": "sagemaker:Search", "Resource": "*"}),
        Match.object_like({"Sid": "ReadTrainingMetrics", "Action": "cloudwatch:GetMetricData"}),
        Match.object_like({"Sid": "ReadTrainingLogs", "Action": ["logs:FilterLogEvents", "logs:StartQuery"]}),
        Match.object_like({"Sid": "ReadTrainingLogQueries", "Action": ["logs:GetQueryResults", "logs:StopQuery"],
                           "Resource": "*"})])}})
    assert json.loads(json.dumps(central.find_outputs("EvaluatorRoleArn")))
    # And the executor role still holds what only the function does through it: releasing the warm pool of a job
    # it stopped, on the job's Stopped event (the evaluator's statements do not hold it)
    member.has_resource_properties("AWS::IAM::Policy", {"PolicyDocument": {"Statement": Match.array_with([
        Match.object_like({"Sid": "ReleaseWarmPoolsOfTrainingJobs", "Action": "sagemaker:UpdateTrainingJob"})])}})


# Per job family: the evaluator is granted a family's reads only when a configured rule judges it (or
# monitor.families names it), scoped to the family's prefixes and log group.

FAMILY_RULES = {  # the monitor block and the family's prefixes
    "processing": ({"families": ["processing"]}, {"processing_job_prefixes": ["prep-"]}),  # for its jobs' tags
    "transform": ({"families": ["transform"]}, {"transform_job_prefixes": ["score-"]}),  # for its jobs' tags
    "tuning": ({"rules": {"FailingTrials": {}}, "job_tags": False}, {"tuning_job_prefixes": ["hpo-"]}),
}


def evaluator_statements(tmp_path, config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    template = synthesize(context(**config), tmp_path)  # cdk-nag raises on a finding
    roles = template.find_resources("AWS::IAM::Role")
    return statements(template, next(k for k in roles if k.startswith("RuleActionsEvaluatorRole")))


def arn_text(resource: Any) -> str:
    return json.dumps(resource)


@pytest.mark.parametrize("family", sorted(FAMILY_RULES))
def test_the_evaluator_is_granted_a_family_s_reads_only_when_a_rule_judges_it(tmp_path, family):
    # Given a configuration turning on the rules of one family (or its jobs' tags), with its prefixes
    monitor, prefixes = FAMILY_RULES[family]
    found = evaluator_statements(tmp_path, {"notify": {"emails": ["ml@example.com"]}, **prefixes, "monitor": monitor})
    others = {"processing": "ProcessingJob", "transform": "TransformJob", "tuning": "HyperparameterTuningJob"}
    # Then its reads are granted, each scoped, and no other family's
    if family == "processing":
        assert found["ListProcessingJobs"]["Action"] == "sagemaker:ListProcessingJobs"
        # a job's tag may attach `stop` (job_tags, and action_json honoured): its stop is granted with the describe
        assert sorted(found["StopAndDescribeProcessingJobs"]["Action"]) == ["sagemaker:DescribeProcessingJob",
                                                                            "sagemaker:StopProcessingJob"]
        assert "processing-job/prep-*" in arn_text(found["StopAndDescribeProcessingJobs"]["Resource"])
        assert found["ListTagsProcessingJobs"]["Action"] == "sagemaker:ListTags"
        assert "processing-job/prep-*" in arn_text(found["ListTagsProcessingJobs"]["Resource"])
        assert "/aws/sagemaker/ProcessingJobs" in arn_text(found["ReadProcessingLogs"]["Resource"])  # StalledJob's
        assert "ListTransformJobInstances" not in found
    elif family == "transform":
        assert found["ListTransformJobs"]["Action"] == "sagemaker:ListTransformJobs"
        assert "transform-job/score-*" in arn_text(found["ListTagsTransformJobs"]["Resource"])
        assert "/aws/sagemaker/TransformJobs" in arn_text(found["ReadTransformLogs"]["Resource"])  # StalledJob's tag
        assert (found["ListTransformJobInstances"]["Action"], found["ListTransformJobInstances"]["Resource"]) == (
            "cloudwatch:ListMetrics", "*")  # IdleInstances' tag: a transform job's instances
    else:
        assert found["SearchHyperparameterTuningJobs"]["Action"] == "sagemaker:Search"
        assert found["ListTuningJobTrials"]["Action"] == "sagemaker:ListTrainingJobsForHyperParameterTuningJob"
        assert "hyper-parameter-tuning-job/hpo-*" in arn_text(found["ListTuningJobTrials"]["Resource"])
        assert not any(sid.startswith("Read") and sid.endswith("Logs") and sid != "ReadTrainingLogs" for sid in found)
    for other, word in others.items():
        if other != family:
            assert not any(word in sid or ("Tuning" in sid and other == "tuning") for sid in found), (other, found)


def test_a_family_s_stop_is_granted_only_when_a_stop_may_be_declared(tmp_path):
    # Given processing jobs judged by StalledJob, once with a stop in `rules`, once with no stop anywhere (no tags'
    # actions honoured, no stop declared)
    base = {"notify": {"emails": ["ml@example.com"]}, "processing_job_prefixes": ["prep-"]}
    stopping = evaluator_statements(tmp_path / "a", {**base, "rules": {"StalledJob": ["stop", "notify"]},
                                                     "monitor": {"rules": {"StalledJob": {}}}})
    watching = evaluator_statements(tmp_path / "b", {**base, "honor_action_json": False, "rules": {"*": ["notify"]},
                                                     "monitor": {"rules": {"StalledJob": {}}, "job_tags": False}})
    # Then the first grants StopProcessingJob on its prefixes, the second only the describe
    assert "sagemaker:StopProcessingJob" in stopping["StopAndDescribeProcessingJobs"]["Action"]
    assert watching["DescribeProcessingJobs"]["Action"] == "sagemaker:DescribeProcessingJob"
    assert not [sid for sid, st in watching.items() if "sagemaker:Stop" in json.dumps(st.get("Action"))]


def test_a_configuration_of_training_rules_grants_no_other_family_s_reads(tmp_path):
    found = evaluator_statements(tmp_path, MONITOR)
    assert not any(word in sid for sid in found for word in ("Processing", "Transform", "Tuning", "ListTags"))
