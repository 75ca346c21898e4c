"""The dashboard <name>-dashboard (infra/rule_actions_cdk/dashboard.py), asserted on the synthesized templates: it names the
function's metrics exactly as the function emits them (namespace, name, dimensions: from rule_actions.contract and
the registry, the service dimension from the function's own environment), the evaluator's health only with `monitor`,
the construct's alarms, a name of its own per construct; `dashboard: false` leaves it out; cdk-nag stays clean."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import dashboard_body, graphed, ref, synthesize

from rule_actions.contract import ENV_SERVICE, NAMESPACE, SERVICE_DIMENSION
from rule_actions_cdk import metrics
from rule_actions_cdk.app import project_context

DASHBOARD = "AWS::CloudWatch::Dashboard"
MONITOR = {"notify": {"emails": ["ml@example.com"]}, "monitor": {"every_minutes": 10,
                                                                 "rules": {"StalledTraining": {}}}}
ORGANIZATION = {"organization": {"org_id": "o-a1b2c3d4e5", "accounts": ["111122223333"],
                                 "central_account": "123456789012", "central_region": "us-east-1"},
                "rules": {"*": ["notify"]}}


def context(config: dict[str, Any] | None = None, **stack: Any) -> dict[str, Any]:
    found = project_context()
    return {**found, **({"rule_actions": config} if config is not None else {}),
            "rule_actions_stack": {**found["rule_actions_stack"], **stack}}


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> dict[str, Template]:
    """rule-actions.json's stack, and with the monitor rules, with cdk-nag (it raises on a finding); an organization's
    central stack."""
    made = {"plain": synthesize(context(), tmp_path_factory.mktemp("plain")),
            "monitor": synthesize(context(MONITOR), tmp_path_factory.mktemp("monitor"))}
    made["organization"] = synthesize(context(ORGANIZATION), tmp_path_factory.mktemp("organization"), nag=False)
    return made


def body(template: Template) -> dict[str, Any]:
    """The one dashboard's body."""
    return dashboard_body(template)


def function_service(template: Template) -> str:
    """The service name of the function's metrics: its POWERTOOLS_SERVICE_NAME, as the template sets it."""
    functions = [f for f in template.find_resources("AWS::Lambda::Function").values()
                 if f["Properties"].get("FunctionName") == "RuleActions-handler"]
    return functions[0]["Properties"]["Environment"]["Variables"][ENV_SERVICE]


@pytest.mark.parametrize(("variant", "organization", "monitor"), [("plain", False, False), ("monitor", False, True),
                                                                   ("organization", True, False)])
def test_the_dashboard_graphs_every_metric_of_the_function_as_it_is_emitted(templates, variant, organization, monitor):
    template = templates[variant]
    # Given the stack's dashboard, named after the stack
    template.has_resource_properties(DASHBOARD, {"DashboardName": "RuleActions-dashboard"})
    found = graphed(body(template))
    ours = {(namespace, name, dims) for namespace, name, dims in found if namespace == NAMESPACE}
    # Then its metrics of the function's namespace are exactly the ones the function emits (every kind x outcome,
    # trigger, job family; the organization's refused events; the evaluation's only with an evaluator), each with
    # the service dimension the function's environment gives it: the stack's own name
    service = function_service(template)
    assert service == "RuleActions"
    expected = {(m.namespace, m.name, frozenset({**dict(m.own), SERVICE_DIMENSION: service}.items()))
                for m in metrics.every_metric(organization=organization, monitor=monitor)}
    assert ours == expected
    # and nothing else but Lambda's own metrics of the evaluator, with monitor only
    others = {(namespace, name) for namespace, name, _ in found if namespace != NAMESPACE}
    assert others == ({("AWS/Lambda", "Invocations"), ("AWS/Lambda", "Errors"), ("AWS/Lambda", "Duration")}
                      if monitor else set())


def test_the_widgets_have_titles_and_units_and_the_evaluators_health_comes_with_monitor(templates):
    plain, monitored = body(templates["plain"]), body(templates["monitor"])
    titles = [w["properties"].get("title") for w in monitored["widgets"] if w["type"] != "text"]
    assert all(titles) and len(titles) == len(set(titles))
    for widget in monitored["widgets"]:  # every graph says its unit on its axis, from 0
        if widget["properties"].get("view") == "timeSeries":
            assert widget["properties"]["yAxis"]["left"]["label"] and widget["properties"]["yAxis"]["left"]["min"] == 0
    evaluator = [t for t in titles if t.startswith("Evaluator")]
    assert len(evaluator) == 3
    assert not [w for w in plain["widgets"] if w["properties"].get("title", "").startswith("Evaluator")]
    # The evaluator's widgets read its own function's Lambda metrics, and draw its duration alarm's threshold
    [evaluator_id] = templates["monitor"].find_resources(
        "AWS::Lambda::Function", {"Properties": {"FunctionName": "RuleActions-evaluator"}})
    lambda_lines = [line for w in monitored["widgets"] for line in w["properties"].get("metrics", [])
                    if line[0] == "AWS/Lambda"]
    assert {line[3] for line in lambda_lines} == {f"<{evaluator_id}>"}
    [timeline] = [w for w in monitored["widgets"] if w["properties"].get("title") == "Evaluator: longest run, per hour"]
    [alarm] = templates["monitor"].find_resources("AWS::CloudWatch::Alarm", {"Properties": {
        "AlarmName": "RuleActions-evaluator-duration"}}).values()
    threshold_seconds = alarm["Properties"]["Threshold"] / 1000  # Lambda's Duration is in milliseconds
    assert timeline["properties"]["annotations"]["horizontal"][0]["value"] == threshold_seconds == 0.8 * 600
    # The totals are taken over the dashboard's whole time range, which opens on the report's default 30 days
    [totals] = [w for w in plain["widgets"] if w["properties"].get("view") == "singleValue"]
    assert totals["properties"]["setPeriodToTimeRange"] is True and plain["start"] == "-P30D"


def test_the_alarm_widget_shows_every_alarm_of_the_construct_by_its_arn(templates):
    template = templates["monitor"]
    names = sorted(a["Properties"]["AlarmName"] for a in template.find_resources("AWS::CloudWatch::Alarm").values())
    [widget] = [w for w in body(template)["widgets"] if w["type"] == "alarm"]
    arns = widget["properties"]["alarms"]
    prefix = "arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:"
    assert sorted(arn.removeprefix(prefix) for arn in arns) == names and len(names) == 12


def test_the_stack_outputs_the_dashboards_name_and_the_setting_leaves_it_out(templates, tmp_path):
    template = templates["plain"]
    [dashboard_id] = template.find_resources(DASHBOARD)
    template.has_output("DashboardName", {"Value": ref(dashboard_id)})
    # Given the stack setting "dashboard": false
    without = synthesize(context(dashboard=False), tmp_path)
    # Then there is no dashboard and no output naming one
    without.resource_count_is(DASHBOARD, 0)
    assert "DashboardName" not in without.find_outputs("*")
    without.has_output("FunctionName", Match.any_value())
