"""What a job costs reads the AWS Price List: the stack grants pricing:GetProducts (no resource-level permissions:
Resource "*", acknowledged to cdk-nag with its reason) to the function and the evaluator only when something asks
prices (prices.price_list, and an action that words or stops a job, or the monitor rules), never otherwise; a
tuning job's budget lists its trials; in organization mode prices are read centrally, never by a member's role."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import no_statement, synthesize

from rule_actions_cdk.app import build_app, project_context

READ_PRICES = {"Sid": "ReadPrices", "Effect": "Allow", "Action": "pricing:GetProducts", "Resource": "*"}
BUDGET = {"Budget": {"by_prefix": {"llm-": 500}}}


def context(**config: Any) -> dict[str, Any]:
    return {**project_context(), "rule_actions": {"notify": {"emails": ["ml@example.com"]}, **config}}


def policies(template: Template) -> dict[str, list[dict[str, Any]]]:
    """Each role's statements, by the role's logical id."""
    found = {}
    for resource in template.find_resources("AWS::IAM::Policy").values():
        for role in resource["Properties"]["Roles"]:
            found[role["Ref"]] = resource["Properties"]["PolicyDocument"]["Statement"]
    return found


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory) -> Template:
    # cdk-nag raises on a finding it was not told why: the grant's wildcard is acknowledged with its reason
    return synthesize(context(monitor={"rules": BUDGET, "families": ["tuning"]}), tmp_path_factory.mktemp("cdk.out"))


def test_the_function_and_the_evaluator_read_prices_with_the_one_action_on_star(budgeted):
    roles = policies(budgeted)
    assert len(roles) == 2  # the function's and the evaluator's
    for statements in roles.values():
        assert [s for s in statements if s["Sid"] == "ReadPrices"] == [READ_PRICES]


def test_a_tuning_job_s_budget_lists_its_trials(budgeted):
    evaluator = next(v for k, v in policies(budgeted).items() if k.startswith("RuleActionsEvaluatorRole"))
    trials = next(s for s in evaluator if s["Sid"] == "ListTuningJobTrials")
    assert trials["Action"] == "sagemaker:ListTrainingJobsForHyperParameterTuningJob"


def test_no_price_read_is_granted_when_the_price_list_is_off_whatever_the_rates(tmp_path):
    # Given rates in the configuration and the price list turned off: the budget is judged from the rates alone
    template = synthesize(context(prices={"price_list": False, "usd_per_hour": {"ml.p4d.24xlarge": 25}},
                                  monitor={"rules": BUDGET}), tmp_path)
    # Then no role may call the Price List API
    template.all_resources_properties("AWS::IAM::Policy", no_statement({"Action": Match.string_like_regexp(
        "^pricing:")}))
    template.all_resources_properties("AWS::IAM::Policy", no_statement({"Sid": "ReadPrices"}))


def test_no_price_read_is_granted_when_nothing_asks_a_job_s_cost(tmp_path):
    # Given a stack that attaches no action and reads no action_json, without the monitor rules
    template = synthesize({**project_context(), "rule_actions": {"rules": {}, "honor_action_json": False,
                                                                  "notify_on_rule_error": False}}, tmp_path, nag=False)
    template.all_resources_properties("AWS::IAM::Policy", no_statement({"Sid": "ReadPrices"}))


def test_organization_mode_reads_prices_centrally_never_through_a_member(tmp_path):
    org = {"accounts": ["111122223333"], "central_account": "123456789012", "central_region": "us-east-1"}
    app, _ = build_app(context(organization=org, monitor={"rules": BUDGET}), outdir=str(tmp_path), nag=False)
    central = Template.from_stack(app.node.find_child("RuleActions"))
    assert all(READ_PRICES in statements for statements in policies(central).values())
    members = [stack for stack in app.node.children if stack.node.id != "RuleActions"
               and hasattr(stack, "template_options")]
    assert members
    for stack in members:
        Template.from_stack(stack).all_resources_properties(
            "AWS::IAM::Policy", no_statement({"Action": Match.string_like_regexp("^pricing:")}))
