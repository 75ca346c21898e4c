"""Each deployment reads its own metrics: two RuleActions in one stack, and two stacks, each give their functions the
service name of their own (the construct's name: POWERTOOLS_SERVICE_NAME, the stack output <prefix>ServiceName), and
each one's alarms on the function's metrics and dashboard name that service and no other. Everything expected is
derived from the code's names (rule_actions.contract, the metric catalog infra/rule_actions_cdk/metrics.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import aws_cdk as cdk
from aws_cdk.assertions import Template
from stack_helpers import dashboard_body, graphed

from rule_actions.config import Config
from rule_actions.contract import (
    ENV_SERVICE,
    EVALUATION_ERRORS_METRIC,
    NAMESPACE,
    REFUSED_ACCOUNT_METRIC,
    SERVICE,
    SERVICE_DIMENSION,
    UNFINISHED_METRIC,
)
from rule_actions_cdk import RuleActions, StackSettings
from rule_actions_cdk.metrics import every_metric
from rule_actions_cdk.stack import RuleActionsStack

MONITOR: dict[str, Any] = {"rules": {"*": ["notify"]}, "notify": {"emails": ["ml@example.com"]},
                           "monitor": {"every_minutes": 10, "rules": {"StalledTraining": {}}}}
ORGANIZATION: dict[str, Any] = {"rules": {"*": ["notify"]}, "monitor": MONITOR["monitor"], "organization": {
    "org_id": "o-a1b2c3d4e5", "accounts": ["111122223333"], "central_account": "123456789012",
    "central_region": "us-east-1"}}
CENTRAL = cdk.Environment(account="123456789012", region="us-east-1")


class Deployment(NamedTuple):
    """One RuleActions as its stack's template holds it: its name, its outputs' prefix, whether it is an
    organization's central deployment, and the names of the other deployments in the same template."""

    template: Template
    name: str
    prefix: str
    organization: bool
    others: tuple[str, ...] = ()

    def functions(self) -> list[dict[str, Any]]:
        """Its functions (the handler and the evaluator)."""
        return [p for r in self.template.find_resources("AWS::Lambda::Function").values()
                if (p := r["Properties"]).get("FunctionName") in (f"{self.name}-handler", f"{self.name}-evaluator")]

    def alarms_on_function_metrics(self) -> list[tuple[str, list[dict[str, str]]]]:
        """(metric, dimensions) of its alarms on the function's own metrics (namespace NAMESPACE): those named
        <name>-..., not those of another deployment whose longer name starts so too."""
        def ours(alarm: str) -> bool:
            return max((n for n in (self.name, *self.others) if alarm.startswith(f"{n}-")), key=len) == self.name

        return [(p["MetricName"], p["Dimensions"]) for r in self.template.find_resources("AWS::CloudWatch::Alarm").values()
                if (p := r["Properties"]).get("Namespace") == NAMESPACE and ours(p["AlarmName"])]


def assert_its_own_service(deployment: Deployment) -> None:
    name = deployment.name
    # Its functions' log lines and metrics carry its name as their service, and its output says so
    functions = deployment.functions()
    assert len(functions) == 2
    assert {f["Environment"]["Variables"][ENV_SERVICE] for f in functions} == {name}
    output = f"{deployment.prefix}ServiceName"
    assert deployment.template.find_outputs(output)[output]["Value"] == name
    # Its alarms on the function's metrics read that service and no other
    alarms = deployment.alarms_on_function_metrics()
    assert sorted(metric for metric, _ in alarms) == sorted([EVALUATION_ERRORS_METRIC, UNFINISHED_METRIC] + (
        [REFUSED_ACCOUNT_METRIC] if deployment.organization else []))
    for metric, dimensions in alarms:
        assert dimensions == [{"Name": SERVICE_DIMENSION, "Value": name}], metric
    # Its dashboard graphs every metric of the function, each as that service emits it, and nothing of another's
    found = {(namespace, metric, dims) for namespace, metric, dims in
             graphed(dashboard_body(deployment.template, f"{name}-dashboard")) if namespace == NAMESPACE}
    assert found == {(m.namespace, m.name, frozenset(m.dimensions(name).items()))
                     for m in every_metric(organization=deployment.organization, monitor=True)}


def test_two_constructs_in_one_stack_each_read_their_own_service(tmp_path: Path):
    # Given one stack holding two constructs: one named after the stack (an organization's central deployment), the
    # other by its own name=
    app = cdk.App(outdir=str(tmp_path / "cdk.out"))
    stack = cdk.Stack(app, "MyTraining", env=CENTRAL)
    RuleActions(stack, "Alerts", config=ORGANIZATION, warn=False)
    RuleActions(stack, "Audit", config=MONITOR, name="MyTraining-audit", warn=False)
    # When it synthesizes
    template = Template.from_stack(stack)
    # Then each has the service of its own name: its functions emit it, its alarms and dashboard read it
    assert_its_own_service(Deployment(template, "MyTraining", "Alerts", True, ("MyTraining-audit",)))
    assert_its_own_service(Deployment(template, "MyTraining-audit", "Audit", False, ("MyTraining",)))
    assert "MyTraining" != "MyTraining-audit" != SERVICE  # no longer the one service every deployment shared


def test_two_stacks_each_read_their_own_service(tmp_path: Path):
    # Given two stacks of RuleActionsStack in one app (one account and region), named apart
    app = cdk.App(outdir=str(tmp_path / "cdk.out"))
    stacks = [RuleActionsStack(app, config=Config.from_dict(config), settings=StackSettings(stack_name=name),
                               warn=False, **kwargs)
              for name, config, kwargs in (("TrainingActions", ORGANIZATION, {}), ("AuditActions", MONITOR, {"env": CENTRAL}))]
    # Then each stack's construct has the service of its stack's name, its outputs unprefixed
    for stack, organization in zip(stacks, (True, False), strict=True):
        assert_its_own_service(Deployment(Template.from_stack(stack), stack.stack_name, "", organization))
