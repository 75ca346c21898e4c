"""The stack with a team, training_job_prefixes and stack settings, the construct embedded in a user's app,
a configuration too large for the environment (shipped in the code), and the checks that stop synth: an
unacknowledged cdk-nag finding."""

import json

import pytest
from aws_cdk.assertions import Capture, Match, Template
from stack_helpers import arn, ref, synthesize

from rule_actions.config import Config, ConfigError
from rule_actions.contract import CONFIG_FILE_NAME, ENV_CONFIG, ENV_CONFIG_FILE, ROUTING_ATTRIBUTE, TEAM
from rule_actions_cdk.app import project_context
from rule_actions_sdk import SMS, ActionList, Email, StopTraining

SUBSCRIBERS = {"emails": ["ml-oncall@example.com", "lead@example.org"], "sms": ["+15555550100"]}
CONTEXT = {
    **project_context(),
    # as `cdk synth -c rule_actions='...'` passes it: a JSON string
    "rule_actions": json.dumps({
        "notify": SUBSCRIBERS,
        "training_job_prefixes": ["Exp-Fam-", "baseline-"],
        "notify_on_rule_error": False,
        "rules": {"VanishingGradient": ["stoptraining", "notify"], "*": ["notify"]},
    }),
    "rule_actions_stack": {"stack_name": "MlRuleActions", "reserved_concurrency": 5, "log_retention_days": 14},
}
SUBSCRIPTION = "AWS::SNS::Subscription"


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Template:
    return synthesize(CONTEXT, tmp_path_factory.mktemp("cdk.out"))


def test_team_subscribes_to_the_topic_filtered_on_team_and_to_the_ops_topic_unfiltered(template):
    topic = template.get_resource_id("AWS::SNS::Topic", {"Properties": {"TopicName": "MlRuleActions-notifications"}})
    ops = template.get_resource_id("AWS::SNS::Topic", {"Properties": {"TopicName": "MlRuleActions-ops"}})
    expected = [(protocol, endpoint) for protocol, key in (("email", "emails"), ("sms", "sms"))
                for endpoint in SUBSCRIBERS[key]]
    template.resource_count_is(SUBSCRIPTION, 6)
    for protocol, endpoint in expected:
        template.has_resource_properties(SUBSCRIPTION, {
            "TopicArn": ref(topic), "Protocol": protocol, "Endpoint": endpoint,
            "FilterPolicy": Match.exact({ROUTING_ATTRIBUTE: [TEAM]}),  # the message attribute the handler sets
            "FilterPolicyScope": Match.absent(),  # SNS's default: MessageAttributes
        })
        template.has_resource_properties(SUBSCRIPTION, {
            "TopicArn": ref(ops), "Protocol": protocol, "Endpoint": endpoint,
            "FilterPolicy": Match.absent(),  # alarm notifications carry no attributes
        })
    template.resource_properties_count_is(SUBSCRIPTION, {"TopicArn": ref(topic)}, len(expected))
    template.resource_properties_count_is(SUBSCRIPTION, {"TopicArn": ref(ops)}, len(expected))


def test_prefixes_narrow_the_pattern_and_iam(template):
    template.resource_count_is("AWS::Events::Rule", 1)
    template.has_resource_properties("AWS::Events::Rule", {"EventPattern": {"detail": {
        "TrainingJobName": Match.exact([{"prefix": "Exp-Fam-"}, {"prefix": "baseline-"}]),
        "$or": Match.array_with([
            Match.exact({"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}}),
        ]),
    }}})
    jobs = Capture()
    template.has_resource_properties("AWS::IAM::Policy", {"PolicyDocument": {"Statement": Match.array_with([
        Match.object_like({"Sid": "StopAndDescribeTrainingJobs", "Resource": jobs}),
    ])}})
    # SageMaker writes job names lower-cased into ARNs; the prefix as written is kept too, just in case
    expected = [arn("sagemaker", f"training-job/{prefix}*") for prefix in ("exp-fam-", "Exp-Fam-", "baseline-")]
    assert sorted(jobs.as_array(), key=json.dumps) == sorted(expected, key=json.dumps)


def test_stack_settings_apply(template):
    # the handler (and, since the team has a phone number, the SMS settings' custom resource provider)
    template.resource_properties_count_is("AWS::Lambda::Function", {"Handler": "rule_actions.handler.lambda_handler"}, 1)
    config = Capture()
    template.has_resource_properties("AWS::Lambda::Function", {
        "FunctionName": "MlRuleActions-handler",
        "ReservedConcurrentExecutions": 5,
        "Layers": Match.absent(),  # Powertools is in the code asset
        "Environment": {"Variables": {ENV_CONFIG: config}},
    })
    template.resource_count_is("AWS::Logs::LogGroup", 2)
    for function in ("handler", "sms-settings"):
        template.has_resource_properties("AWS::Logs::LogGroup", Match.exact({
            "LogGroupName": f"/aws/lambda/MlRuleActions-{function}", "RetentionInDays": 14,
        }))
    template.resource_count_is("AWS::SQS::Queue", 2)
    for queue_name in ("MlRuleActions-failed-events", "MlRuleActions-target-dlq"):
        template.has_resource_properties("AWS::SQS::Queue", {"QueueName": queue_name})
    assert Config.from_json(config.as_string()) == Config.from_dict(json.loads(CONTEXT["rule_actions"]))


def test_the_construct_embeds_in_a_users_app_with_client_actions():
    import aws_cdk as cdk

    from rule_actions_cdk.construct import RuleActions
    from rule_actions_cdk.settings import StackSettings

    # Given a user's own app and stack, and actions written with the SDK-like classes
    config = Config.from_dict({"rules": {
        "VanishingGradient": ActionList(StopTraining(), Email("first.last@mail.example.co.uk"), SMS("+15555550100")),
        "*": ["notify"],
    }})
    app = cdk.App()
    stack = cdk.Stack(app, "Platform")
    RuleActions(stack, "Debugger", config=config, settings=StackSettings(log_retention_days=30), name="ml-rules")
    template = Template.from_stack(stack)

    # Then names use the given prefix and the function gets exactly that configuration
    template.resource_properties_count_is("AWS::Lambda::Function", {"Handler": "rule_actions.handler.lambda_handler"}, 1)
    given = Capture()
    template.has_resource_properties("AWS::Lambda::Function", {
        "FunctionName": "ml-rules-handler",
        "Environment": {"Variables": {ENV_CONFIG: given}},
    })
    assert Config.from_json(given.as_string()) == config
    assert config.value("rules")[0][0] == "VanishingGradient"  # rule order (it decides which glob wins) survives
    assert set(template.to_json().get("Parameters", {})) <= {"BootstrapVersion"}  # nothing else to resolve


def test_a_configuration_too_large_for_the_environment_ships_in_the_code(tmp_path):
    from rule_actions_cdk.app import build_app, project_context

    # Given a configuration of 60 rules, each emailing its owner: more than Lambda's 4 KB environment holds
    rules = {f"CustomRule{i:03}": [{"name": "email", "endpoint": f"person{i}@example.com"}] for i in range(60)}
    config = Config.from_dict({"rules": rules})
    assert len(config.to_json()) > 4096

    # When the stack is synthesized (cdk-nag on)
    app, stack = build_app({**project_context(), "rule_actions": config.to_dict()}, outdir=str(tmp_path))
    app.synth()
    template = Template.from_stack(stack)

    # Then the environment names a file of the code asset instead, and the asset holds exactly that configuration
    variables = Capture()
    code = Capture()
    template.has_resource_properties("AWS::Lambda::Function", {
        "Handler": "rule_actions.handler.lambda_handler",
        "Code": {"S3Key": code},
        "Environment": {"Variables": variables},
    })
    assert variables.as_object()[ENV_CONFIG_FILE] == CONFIG_FILE_NAME and ENV_CONFIG not in variables.as_object()
    asset = tmp_path / f"asset.{code.as_string().removesuffix('.zip')}"
    assert Config.from_json((asset / CONFIG_FILE_NAME).read_text()) == config
    assert (asset / "rule_actions" / "handler.py").is_file()


def test_prefixes_that_would_widen_iam_are_refused():
    import aws_cdk as cdk

    from rule_actions_cdk.stack import RuleActionsStack

    with pytest.raises(ConfigError, match=r"training_job_prefixes: \"exp\*\" is not a training job name prefix"):
        RuleActionsStack(cdk.App(), config=Config.from_dict({"training_job_prefixes": ["exp*"]}))


def test_an_unacknowledged_cdk_nag_finding_fails_synth(tmp_path):
    import aws_cdk as cdk
    from aws_cdk import aws_sqs as sqs
    from cdk_nag import AwsSolutionsChecks

    from rule_actions_cdk.stack import RuleActionsStack

    # Given the app's stack plus one resource cdk-nag objects to, with nothing acknowledged for it
    app = cdk.App(context=project_context(), outdir=str(tmp_path))
    stack = RuleActionsStack(app, config=Config())
    sqs.Queue(stack, "Unencrypted", encryption=sqs.QueueEncryption.UNENCRYPTED)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))

    # When it synthesizes, then synth fails, and the report names that resource only
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    paths = {c["constructPath"] for r in report["pluginReports"] for v in r["violations"]
             for c in v["violatingConstructs"]}
    assert paths == {"RuleActions/Unencrypted/Resource"}


def test_a_name_too_long_for_the_derived_resource_names_is_refused():
    import aws_cdk as cdk

    from rule_actions_cdk.construct import RuleActions

    stack = cdk.Stack(cdk.App(), "S" * 60)  # fine for CloudFormation, too long for "<name>-handler" & co.
    with pytest.raises(ConfigError, match=r"RuleActions name \"S{60}\": resource names are derived from it"):
        RuleActions(stack, "Actions", config=Config())


def test_a_configuration_that_can_text_logs_sms_delivery_status(template):
    # Given a team with a phone number: SNS's account-level SMS preferences get a delivery status role (per-topic
    # delivery logging does not cover SMS), set by a custom resource, failures only
    role = template.get_resource_id("AWS::IAM::Role", {"Properties": {"AssumeRolePolicyDocument": {"Statement": [
        Match.object_like({"Principal": {"Service": "sns.amazonaws.com"}})]}}})
    template.has_resource_properties("AWS::IAM::Role", {"AssumeRolePolicyDocument": {"Statement": [Match.exact({
        "Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "sns.amazonaws.com"},
        "Condition": {"StringEquals": {"aws:SourceAccount": ref("AWS::AccountId")}},
    })]}})
    statements = Capture()
    template.has_resource_properties("AWS::IAM::Policy", {"Roles": [ref(role)],
                                                          "PolicyDocument": {"Statement": statements}})
    [write] = statements.as_array()
    assert write["Action"] == ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
    assert write["Resource"] == {"Fn::Join": ["", ["arn:", ref("AWS::Partition"), ":logs:", ref("AWS::Region"), ":",
                                                   ref("AWS::AccountId"), ":log-group:sns/", ref("AWS::Region"), "/",
                                                   ref("AWS::AccountId"), "/*"]]}
    create = Capture()
    template.resource_count_is("Custom::AWS", 1)
    template.has_resource_properties("Custom::AWS", {"Create": create, "Update": Match.any_value(),
                                                     "Delete": Match.any_value()})
    call = json.dumps(create.as_object())
    assert "setSMSAttributes" in call and "DeliveryStatusIAMRole" in call and role in call
    assert '\\"DeliveryStatusSuccessSamplingRate\\":\\"0\\"' in call
    # the provider function's role: no managed policy, only SetSMSAttributes (no resource-level permissions)
    # and passing that one role
    template.has_resource_properties("AWS::IAM::Policy", {"PolicyDocument": {"Statement": Match.array_with([
        Match.object_like({"Action": "sns:SetSMSAttributes", "Resource": "*"}),
        Match.object_like({"Action": "iam:PassRole", "Resource": {"Fn::GetAtt": [role, "Arn"]}}),
    ])}})
    template.all_resources_properties("AWS::IAM::Role", {"ManagedPolicyArns": Match.absent()})


def test_sms_delivery_logs_false_leaves_the_account_setting_alone(tmp_path):
    context = {**CONTEXT, "rule_actions_stack": {**CONTEXT["rule_actions_stack"], "sms_delivery_logs": False}}
    synthesize(context, tmp_path).resource_count_is("Custom::AWS", 0)
