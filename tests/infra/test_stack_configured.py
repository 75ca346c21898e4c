"""The stack with a team, training_job_prefixes and stack settings, the construct embedded in a user's app,
and the checks that stop synth: a too-large environment and an unacknowledged cdk-nag finding."""

import json

import pytest
from stack_helpers import as_list, by_sid, flat, named, of_type, props, synthesize

from infra.app import cdk_json_context
from rule_actions.client import SMS, ActionList, Email, StopTraining
from rule_actions.config import Config, ConfigError

LAYER = "arn:aws:lambda:eu-west-1:017000801446:layer:AWSLambdaPowertoolsPythonV3-python314-arm64:7"
TEAM = {"emails": ["ml-oncall@example.com", "lead@example.org"], "sms": ["+15555550100"]}
CONTEXT = {
    **cdk_json_context(),
    # as `cdk synth -c rule_actions='...'` passes it: a JSON string
    "rule_actions": json.dumps({
        "notify": TEAM,
        "training_job_prefixes": ["Exp-Fam-", "baseline-"],
        "notify_on_rule_error": False,
        "rules": {"VanishingGradient": ["stoptraining", "notify"], "*": ["notify"]},
    }),
    "rule_actions_stack": {"stack_name": "MlRuleActions", "reserved_concurrency": 5, "log_retention_days": 14,
                           "powertools_layer": LAYER},
}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return synthesize(CONTEXT, tmp_path_factory.mktemp("cdk.out"))


def test_team_subscribes_to_the_topic_filtered_on_team_and_to_the_ops_topic_unfiltered(template):
    topic = named(template, "AWS::SNS::Topic", "TopicName", "MlRuleActions-notifications")[0]
    ops = named(template, "AWS::SNS::Topic", "TopicName", "MlRuleActions-ops")[0]
    subscriptions = [props(s) for s in of_type(template, "AWS::SNS::Subscription").values()]
    expected = {(protocol, endpoint) for protocol, key in (("email", "emails"), ("sms", "sms")) for endpoint in TEAM[key]}
    team = [s for s in subscriptions if s["TopicArn"] == {"Ref": topic}]
    assert {(s["Protocol"], s["Endpoint"]) for s in team} == expected and len(team) == 3
    for subscription in team:
        assert subscription["FilterPolicy"] == {"to": ["team"]}  # the message attribute the handler sets
        assert subscription.get("FilterPolicyScope", "MessageAttributes") == "MessageAttributes"
    on_call = [s for s in subscriptions if s["TopicArn"] == {"Ref": ops}]
    assert {(s["Protocol"], s["Endpoint"]) for s in on_call} == expected and len(on_call) == 3
    assert all("FilterPolicy" not in s for s in on_call)  # alarm notifications carry no attributes
    assert len(subscriptions) == 6


def test_prefixes_narrow_the_pattern_and_iam(template):
    [(_, rule)] = of_type(template, "AWS::Events::Rule").items()
    detail = props(rule)["EventPattern"]["detail"]
    assert detail["TrainingJobName"] == [{"prefix": "Exp-Fam-"}, {"prefix": "baseline-"}]
    assert detail["$or"][0] == {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}}
    jobs = [flat(r) for r in as_list(by_sid(template)["StopAndDescribeTrainingJobs"]["Resource"])]
    base = "arn:<AWS::Partition>:sagemaker:<AWS::Region>:<AWS::AccountId>:training-job/"
    # SageMaker writes job names lower-cased into ARNs; the prefix as written is kept too, just in case
    assert sorted(jobs) == sorted([f"{base}exp-fam-*", f"{base}Exp-Fam-*", f"{base}baseline-*"])


def test_stack_settings_apply(template):
    [(_, function)] = of_type(template, "AWS::Lambda::Function").items()
    assert props(function)["FunctionName"] == "MlRuleActions-handler"
    assert props(function)["ReservedConcurrentExecutions"] == 5
    assert props(function)["Layers"] == [LAYER]  # pinned: no SSM parameter
    assert "PowertoolsLayerArn" not in template.get("Parameters", {})
    [(_, log_group)] = of_type(template, "AWS::Logs::LogGroup").items()
    assert props(log_group) == {"LogGroupName": "/aws/lambda/MlRuleActions-handler", "RetentionInDays": 14}
    names = sorted(props(q)["QueueName"] for q in of_type(template, "AWS::SQS::Queue").values())
    assert names == ["MlRuleActions-failed-events", "MlRuleActions-target-dlq"]
    variables = props(function)["Environment"]["Variables"]
    assert Config.from_json(variables["RULE_ACTIONS_CONFIG"]) == Config.from_dict(json.loads(CONTEXT["rule_actions"]))


def test_the_construct_embeds_in_a_users_app_with_client_actions():
    import aws_cdk as cdk

    from infra.construct import RuleActions
    from infra.settings import StackSettings

    # Given a user's own app and stack, and actions written with the SDK-like classes
    config = Config.from_dict({"rules": {
        "VanishingGradient": ActionList(StopTraining(), Email("first.last@mail.example.co.uk"), SMS("+15555550100")),
        "*": ["notify"],
    }})
    app = cdk.App()
    stack = cdk.Stack(app, "Platform")
    RuleActions(stack, "Debugger", config=config, settings=StackSettings(log_retention_days=30), name="ml-rules")
    template = app.synth().get_stack_by_name("Platform").template

    # Then names use the given prefix and the function gets exactly that configuration
    [(_, function)] = of_type(template, "AWS::Lambda::Function").items()
    assert props(function)["FunctionName"] == "ml-rules-handler"
    assert Config.from_json(props(function)["Environment"]["Variables"]["RULE_ACTIONS_CONFIG"]) == config
    assert config.rules[0][0] == "VanishingGradient"  # rule order (it decides which glob wins) survives
    assert template["Parameters"]["PowertoolsLayerArn"]["Type"] == "AWS::SSM::Parameter::Value<String>"


def test_a_configuration_too_large_for_the_environment_fails_synth():
    import aws_cdk as cdk

    from infra.stack import RuleActionsStack

    rules = {f"CustomRule{i:03}": [{"name": "email", "endpoint": f"person{i}@example.com"}] for i in range(60)}
    config = Config.from_dict({"rules": rules})
    with pytest.raises(ConfigError) as failure:
        RuleActionsStack(cdk.App(), config=config)
    message = str(failure.value)
    assert message.startswith("rule_actions: too large for the function's environment")
    assert "Lambda allows 4096" in message and "Shorten `rules`" in message
    # one rule fewer per email keeps it well inside
    RuleActionsStack(cdk.App(), config=Config.from_dict({"rules": dict(list(rules.items())[:20])}))


def test_prefixes_that_would_widen_iam_are_refused():
    import aws_cdk as cdk

    from infra.stack import RuleActionsStack

    with pytest.raises(ConfigError, match=r"training_job_prefixes: \"exp\*\" is not a training job name prefix"):
        RuleActionsStack(cdk.App(), config=Config.from_dict({"training_job_prefixes": ["exp*"]}))


def test_an_unacknowledged_cdk_nag_finding_fails_synth(tmp_path):
    import aws_cdk as cdk
    from aws_cdk import aws_sqs as sqs
    from cdk_nag import AwsSolutionsChecks

    from infra.stack import RuleActionsStack

    # Given the app's stack plus one resource cdk-nag objects to, with nothing acknowledged for it
    app = cdk.App(context=cdk_json_context(), outdir=str(tmp_path))
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

    from infra.construct import RuleActions

    stack = cdk.Stack(cdk.App(), "S" * 60)  # fine for CloudFormation, too long for "<name>-handler" & co.
    with pytest.raises(ConfigError, match=r"RuleActions name \"S{60}\": resource names are derived from it"):
        RuleActions(stack, "Actions", config=Config())
