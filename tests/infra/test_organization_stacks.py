"""Organization mode: the central stack and the member stack as `cdk synth` builds them from one configuration,
cdk-nag clean, asserted with `aws_cdk.assertions`: the bus admits exactly the organization or the listed accounts,
the executor role trusts exactly the central function's role, each side grants exactly what it needs, and the
names one side derives are the ones the other creates."""

from __future__ import annotations

import fnmatch
import json
from typing import Any

import pytest
from aws_cdk.assertions import Capture, Match, Template
from stack_helpers import arn, get_att, no_statement, ref

from rule_actions.config import Config
from rule_actions.contract import ENV_CONFIG, ENV_SERVICE, SERVICE_DIMENSION
from rule_actions_cdk.app import build_app, project_context
from rule_actions_cdk.plugins import event_pattern

CENTRAL, REGION, ORG = "123456789012", "us-east-1", "o-a1b2c3d4e5"
TEAM_A, TEAM_B = "111122223333", "444455556666"
BOTH = {"org_id": ORG, "accounts": [TEAM_A, TEAM_B], "aliases": {TEAM_A: "team-a-prod"},
        "central_account": CENTRAL, "central_region": REGION}
VARIANTS = {  # who may forward: the organization and the listed accounts, the organization alone, the accounts alone
    "org-and-accounts": BOTH,
    "org-only": {"org_id": ORG, "central_account": CENTRAL, "central_region": REGION},
    "accounts-only": {"accounts": [TEAM_A, TEAM_B], "central_account": CENTRAL, "central_region": REGION},
}
BUS_ARN = f"arn:aws:events:{REGION}:{CENTRAL}:event-bus/RuleActions-bus"
CENTRAL_ROLE = "RuleActions-handler-us-east-1"


def partition_arn(rest: str) -> dict[str, Any]:
    """An ARN in the stack's partition (the member stack is deployed anywhere: the partition stays a token)."""
    return {"Fn::Join": ["", ["arn:", ref("AWS::Partition"), rest]]}


def context(organization: dict[str, Any], **config: Any) -> dict[str, Any]:
    base = project_context()
    return {**base, "rule_actions": {**base["rule_actions"], **config, "organization": organization}}


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    """Each variant's app synthesized once, with cdk-nag (an unacknowledged finding raises)."""
    built = {}
    for variant, organization in VARIANTS.items():
        app, central = build_app(context(organization), outdir=str(tmp_path_factory.mktemp(variant)))
        assembly = app.synth()  # cdk-nag's validation runs here: RuntimeError ValidationFailed on any finding
        member = app.node.find_child("RuleActionsMember")
        built[variant] = (Template.from_stack(central), Template.from_stack(member), central, member, assembly)
    return built


def central(apps, variant: str = "org-and-accounts") -> Template:
    return apps[variant][0]


def member(apps, variant: str = "org-and-accounts") -> Template:
    return apps[variant][1]


def statements(template: Template, resource_type: str, props: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """The statements of the one resource of `resource_type` matching `props`, at `path` in its properties."""
    [found] = template.find_resources(resource_type, {"Properties": props}).values()
    value = found["Properties"]
    for key in path.split("."):
        value = value[key]
    return value["Statement"]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_both_stacks_synthesize_cdk_nag_clean_and_the_central_stack_is_pinned(apps, variant):
    # Given a variant's app (synthesized with cdk-nag by the fixture: a finding would have raised)
    _, _, central_stack, member_stack, _ = apps[variant]

    # Then the central stack is pinned to the configured account and region, the member stack to none
    assert (central_stack.account, central_stack.region) == (CENTRAL, REGION)
    assert member_stack.stack_name == "RuleActionsMember"
    assert member_stack.resolve(member_stack.account) == ref("AWS::AccountId")


def test_the_bus_admits_exactly_the_organization_when_an_org_id_is_given(apps):
    for variant in ("org-and-accounts", "org-only"):
        policy = statements(central(apps, variant), "AWS::Events::EventBus", {"Name": "RuleActions-bus"}, "Policy")
        assert policy == [{"Sid": "OrganizationPutsEvents", "Effect": "Allow", "Principal": {"AWS": "*"},
                           "Action": "events:PutEvents", "Resource": BUS_ARN,
                           "Condition": {"StringEquals": {"aws:PrincipalOrgID": ORG}}}], variant


def test_the_bus_admits_exactly_the_listed_accounts_without_an_org_id(apps):
    policy = statements(central(apps, "accounts-only"), "AWS::Events::EventBus", {"Name": "RuleActions-bus"}, "Policy")
    assert policy == [{"Sid": "MemberAccountsPutEvents", "Effect": "Allow", "Action": "events:PutEvents",
                       "Principal": {"AWS": [f"arn:aws:iam::{TEAM_A}:root", f"arn:aws:iam::{TEAM_B}:root"]},
                       "Resource": BUS_ARN}]


def test_the_central_rule_is_on_the_bus_with_the_stacks_pattern_and_targets_the_function(apps):
    template = central(apps)
    bus = template.get_resource_id("AWS::Events::EventBus", {"Properties": {"Name": "RuleActions-bus"}})
    function = template.get_resource_id("AWS::Lambda::Function")
    template.resource_count_is("AWS::Events::Rule", 1)
    template.has_resource_properties("AWS::Events::Rule", {
        "EventBusName": ref(bus),
        "EventPattern": Match.exact(event_pattern(Config.from_dict(context(BOTH)["rule_actions"]))),
        "Targets": [Match.object_like({"Arn": get_att(function)})],
    })
    # the target DLQ's key admits EventBridge for this rule, whose ARN names the bus
    template.has_resource_properties("AWS::KMS::Key", {"KeyPolicy": {"Statement": Match.array_with([
        Match.object_like({"Sid": "RuleWritesToEncryptedDeadLetterQueue", "Condition": {"ArnEquals": {
            "aws:SourceArn": f"arn:aws:events:{REGION}:{CENTRAL}:rule/RuleActions-bus/RuleActions-rule-outcomes"}}}),
    ])}})


@pytest.mark.parametrize(("variant", "resources", "condition"), [
    ("org-and-accounts", [f"arn:aws:iam::{a}:role/RuleActionsMember-*" for a in (TEAM_A, TEAM_B)],
     {"StringEquals": {"aws:ResourceOrgID": ORG}}),
    ("org-only", "arn:aws:iam::*:role/RuleActionsMember-*", {"StringEquals": {"aws:ResourceOrgID": ORG}}),
    ("accounts-only", [f"arn:aws:iam::{a}:role/RuleActionsMember-*" for a in (TEAM_A, TEAM_B)], None),
])
def test_the_function_may_assume_the_members_executor_roles_and_has_no_sagemaker_access_of_its_own(
        apps, variant, resources, condition):
    template = central(apps, variant)
    # the role's name is what the member stacks trust
    template.has_resource_properties("AWS::IAM::Role", {"RoleName": CENTRAL_ROLE})
    assume = [s for s in statements(template, "AWS::IAM::Policy", {}, "PolicyDocument") if "sts:AssumeRole" in
              json.dumps(s.get("Action"))]
    expected = {"Sid": "AssumeMemberExecutorRoles", "Effect": "Allow", "Action": "sts:AssumeRole",
                "Resource": resources}
    assert assume == [{**expected, "Condition": condition} if condition else expected]
    template.has_resource_properties("AWS::IAM::Policy", no_statement({"Action": Match.string_like_regexp("sagemaker:")}))
    template.has_resource_properties("AWS::IAM::Policy", no_statement({"Action": Match.array_with([
        Match.string_like_regexp("sagemaker:")])}))


def test_the_central_stack_passes_the_organization_to_the_function_alarms_on_refusals_and_outputs_its_arns(apps):
    template = central(apps)
    config = Capture()
    template.has_resource_properties("AWS::Lambda::Function", {"Environment": {"Variables": {ENV_CONFIG: config}}})
    assert Config.from_json(config.as_string()).organization == Config.from_dict(context(BOTH)["rule_actions"]).organization
    template.has_resource_properties("AWS::CloudWatch::Alarm", {
        "AlarmName": "RuleActions-refused-accounts", "Namespace": "RuleActions", "MetricName": "RefusedAccountEvents",
        "Dimensions": [{"Name": SERVICE_DIMENSION, "Value": "RuleActions"}], "Statistic": "Sum", "Threshold": 1,
    })  # the service name the central function emits under: its construct's name, the stack's
    template.has_resource_properties("AWS::Lambda::Function", {"Environment": {"Variables": Match.object_like(
        {ENV_SERVICE: "RuleActions"})}})
    outputs = template.find_outputs("*")
    bus = template.get_resource_id("AWS::Events::EventBus")
    assert outputs["EventBusArn"]["Value"] == get_att(bus)
    assert outputs["FunctionRoleArn"]["Value"] == get_att(template.get_resource_id("AWS::IAM::Role"))


def test_the_alarm_on_events_the_rule_could_not_queue_watches_the_rule_on_the_central_bus(apps):
    # EventBridge names a custom bus's rule by EventBusName and RuleName; RuleName alone is a default-bus rule
    template = central(apps)
    template.has_resource_properties("AWS::CloudWatch::Alarm", {
        "AlarmName": "RuleActions-rule-dlq-failures", "MetricName": "InvocationsFailedToBeSentToDlq",
        "Dimensions": [{"Name": "EventBusName", "Value": ref(template.get_resource_id("AWS::Events::EventBus"))},
                       {"Name": "RuleName", "Value": ref(template.get_resource_id("AWS::Events::Rule"))}],
    })


def test_the_executor_role_trusts_exactly_the_central_functions_role(apps):
    for variant in VARIANTS:
        trust = statements(member(apps, variant), "AWS::IAM::Role", {"RoleName": Match.any_value(),
                                                                      "Description": Match.string_like_regexp("central function")},
                           "AssumeRolePolicyDocument")
        assert trust == [{"Effect": "Allow", "Action": "sts:AssumeRole",
                          "Principal": {"AWS": partition_arn(f":iam::{CENTRAL}:role/{CENTRAL_ROLE}")}}], variant


def test_the_executor_role_may_describe_and_stop_training_jobs_here_and_list_them_only_as_stops_need(apps):
    template = member(apps)
    role = template.get_resource_id("AWS::IAM::Role", {"Properties": {"RoleName": {
        "Fn::Join": ["", ["RuleActionsMember-", ref("AWS::Region")]]}}})
    granted = statements(template, "AWS::IAM::Policy", {"Roles": [ref(role)]}, "PolicyDocument")
    assert granted == [
        {"Sid": "StopAndDescribeTrainingJobs", "Effect": "Allow",
         "Action": ["sagemaker:DescribeTrainingJob", "sagemaker:StopTrainingJob"],
         "Resource": arn("sagemaker", "training-job/*")},
        # a stop's warm pool released in the job's account once it has Stopped (release_warm_pools)
        {"Sid": "ReleaseWarmPoolsOfTrainingJobs", "Effect": "Allow", "Action": "sagemaker:UpdateTrainingJob",
         "Resource": arn("sagemaker", "training-job/*")},
        # honor_action_json: an action_json stop may name a prefix, which ListTrainingJobs resolves
        {"Sid": "ListTrainingJobs", "Effect": "Allow", "Action": "sagemaker:ListTrainingJobs", "Resource": "*"},
    ]


@pytest.mark.parametrize(("extra", "sid", "actions"), [
    # job outcomes act, and no tuning job reports for its trials: a trial alerts as any job; a job is described
    # only for its live status before a stop (nothing acts on a job that has ended)
    ({}, "StopAndDescribeTrainingJobs", ["sagemaker:DescribeTrainingJob", "sagemaker:StopTrainingJob"]),
    # a tuning job reports for its trials (tuning_trials_alert false): a job whose name has a trial's form is
    # described before its outcome acts
    ({"tuning_job_outcomes": {"Failed": ["notify"]}}, "StopAndDescribeTrainingJobs",
     ["sagemaker:DescribeTrainingJob", "sagemaker:StopTrainingJob"]),
])
def test_without_prefix_stops_the_executor_role_cannot_list_and_prefixes_narrow_it(tmp_path, extra, sid, actions):
    # Given a configuration that never honors action_json, stops only the event's own job, under two prefixes
    ctx = context(BOTH, honor_action_json=False, training_job_prefixes=["nlp-", "CV-"],
                  rules={"*": ["stoptraining", "notify"]}, **extra)
    app, _ = build_app(ctx, outdir=str(tmp_path))
    app.synth()
    template = Template.from_stack(app.node.find_child("RuleActionsMember"))

    # Then the executor role stops those jobs, describes them (their live status before a stop; a trial held
    # back), and never lists: no action_json to read
    policies = template.find_resources("AWS::IAM::Policy")
    executor = [p for p in policies.values() if "sagemaker" in json.dumps(p)]
    found = [s for p in executor for s in p["Properties"]["PolicyDocument"]["Statement"]]
    assert [s["Sid"] for s in found if "Training" not in s["Sid"]] == (["ReadHyperparameterTuningJobs"] if extra else [])
    [granted, released] = [s for s in found if "Training" in s["Sid"]]
    jobs = granted.pop("Resource")
    assert granted == {"Sid": sid, "Effect": "Allow", "Action": actions}
    expected = [arn("sagemaker", f"training-job/{p}*") for p in ("nlp-", "cv-", "CV-")]
    assert sorted(jobs, key=json.dumps) == sorted(expected, key=json.dumps)
    # And a stop's warm pool is released on the same jobs only, once the job has Stopped (release_warm_pools)
    assert (released["Sid"], released["Action"]) == ("ReleaseWarmPoolsOfTrainingJobs", "sagemaker:UpdateTrainingJob")
    assert sorted(released["Resource"], key=json.dumps) == sorted(expected, key=json.dumps)


def test_the_member_forwards_the_same_events_to_the_central_bus_as_a_role_that_can_only_put_them_there(apps):
    template = member(apps)
    bus = partition_arn(f":events:{REGION}:{CENTRAL}:event-bus/RuleActions-bus")
    forwarder = Capture()
    dlq = template.get_resource_id("AWS::SQS::Queue", {"Properties": {"QueueName": "RuleActionsMember-forward-dlq"}})
    template.resource_count_is("AWS::Events::Rule", 1)
    template.has_resource_properties("AWS::Events::Rule", {
        "Name": "RuleActionsMember-forward",
        "EventBusName": Match.absent(),  # the member's default bus, where SageMaker sends its events
        "EventPattern": Match.exact(event_pattern(Config.from_dict(context(BOTH)["rule_actions"]))),
        "Targets": [{"Id": Match.any_value(), "Arn": bus, "RoleArn": get_att(forwarder), "DeadLetterConfig": {"Arn": get_att(dlq)}}],
    })
    assert statements(template, "AWS::IAM::Policy", {"Roles": [ref(forwarder.as_string())]}, "PolicyDocument") == [
        {"Effect": "Allow", "Action": "events:PutEvents", "Resource": bus}]
    trust = statements(template, "AWS::IAM::Role", {"RoleName": Match.absent()}, "AssumeRolePolicyDocument")
    assert trust == [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "events.amazonaws.com"}}]
    template.has_resource_properties("AWS::SQS::Queue", {"QueueName": "RuleActionsMember-forward-dlq",
                                                         "SqsManagedSseEnabled": True})


def test_the_member_stack_is_only_that_and_deploys_without_bootstrap(apps):
    template = member(apps).to_json()
    kinds = sorted(resource["Type"] for resource in template["Resources"].values())
    assert kinds == ["AWS::Events::Rule", "AWS::IAM::Policy", "AWS::IAM::Policy", "AWS::IAM::Role", "AWS::IAM::Role",
                     "AWS::SQS::Queue", "AWS::SQS::QueuePolicy"]
    # no bootstrap version parameter or rule: StackSets and never-bootstrapped accounts deploy it as it is
    assert "Parameters" not in template and "Rules" not in template
    # and `cdk deploy` uses the CLI's own credentials: no bootstrap role to assume, none passed to CloudFormation
    # (a role named there that the account lacks fails the deploy), no asset to upload
    artifact = apps["org-and-accounts"][4].get_stack_artifact("RuleActionsMember")
    assert artifact.assume_role_arn is None and artifact.cloud_formation_execution_role_arn is None
    assert artifact.requires_bootstrap_stack_version is None and not artifact.dependencies


def test_what_one_side_names_is_what_the_other_creates(apps):
    # Given the two templates of one app
    central_template, member_template = central(apps).to_json(), member(apps).to_json()
    resources = list(central_template["Resources"].values())
    [role] = [r for r in resources if r["Type"] == "AWS::IAM::Role"]
    [bus] = [r for r in resources if r["Type"] == "AWS::Events::EventBus"]
    [policy] = [r for r in resources if r["Type"] == "AWS::IAM::Policy"]
    text = json.dumps(member_template)

    # Then the member forwards to the central bus, trusts the central role, and names its role as the central
    # role's grant expects in any region
    assert f":event-bus/{bus['Properties']['Name']}" in text
    assert f":iam::{CENTRAL}:role/{role['Properties']['RoleName']}" in text
    [assume] = [s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s["Action"] == "sts:AssumeRole"]
    for region in ("us-east-1", "eu-west-1", "ap-southeast-4"):
        assert all(fnmatch.fnmatchcase(f"arn:aws:iam::{TEAM_A}:role/RuleActionsMember-{region}", pattern) or
                   TEAM_A not in pattern for pattern in assume["Resource"])
