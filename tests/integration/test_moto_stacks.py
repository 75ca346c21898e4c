"""The embedded stack created without moto's CloudFormation (rule_actions_cli.emulator.stacks) is the one moto's
CloudFormation creates: for the example configurations' templates, the embedded account deployed both ways asks moto's
models for the same resources, call by call (the same class, physical name, resolved properties), its names and ids
drawn as moto draws them; the types, names and ids are moto's CloudFormation's own; a template it does not deploy so
is left to moto's CloudFormation, untouched."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from moto.moto_api._internal import mock_random

from rule_actions_cli import inputs
from rule_actions_cli.embedded import EmbeddedAccount
from rule_actions_cli.emulator import stacks
from rule_actions_cli.synth import synthesize

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "demo (webhooks, monitor rules)": "examples/demo-webhook-config.json",
    "families": "examples/families-config.json",
    "restarts": "examples/restart-config.json",
    "budgets": "examples/budgets-config.json",
    "default": "rule-actions.json",
    "chat and the evaluator": {"chat": {"slack": [{"workspace_id": "T0123ABCDEF", "channel_id": "C0123ABCDEF"}]},
                               "monitor": {}, "notify": {"emails": ["ml-team@example.com"]}},
}


def _assembly(config: str | dict[str, Any], folder: Path) -> tuple[Path, str]:
    """The configuration's synthesized assembly and stack (a configuration given as a dict is written to `folder`)."""
    path = ROOT / config if isinstance(config, str) else folder / "rule-actions.json"
    if isinstance(config, dict):
        path.write_text(json.dumps(config))
    context, errors = inputs.replay_context(str(path), False)
    assert not errors
    return synthesize(context)


class Recorded:
    """Every resource moto's models are asked to create (create_from_cloudformation_json), in order: every model
    moto's CloudFormation knows (imported here), whether emulator.stacks lists it or not."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from moto.cloudformation import parsing  # (imports every model moto's CloudFormation knows)
        from moto.core.common_models import CloudFormationModel

        assert parsing.get_model_map()
        self.calls: list[dict[str, Any]] = []
        for model in set(_subclasses(CloudFormationModel)):
            if "create_from_cloudformation_json" not in vars(model):
                continue
            original = vars(model)["create_from_cloudformation_json"].__func__

            def create(cls: Any, name: str, json_: dict[str, Any], account: str, region: str,
                       _original: Any = original, **kwargs: Any) -> Any:
                self.calls.append({"class": cls.__name__, "name": name, "json": copy.deepcopy(json_),
                                   "account": account, "region": region,
                                   "kwargs": {k: v for k, v in kwargs.items() if k != "StackId"}})
                return _original(cls, name, json_, account, region, **kwargs)

            monkeypatch.setattr(model, "create_from_cloudformation_json", classmethod(create))


def _subclasses(cls: type) -> list[type]:
    return [found for sub in cls.__subclasses__() for found in (sub, *_subclasses(sub))]


def _deployed(assembly: Path, stack: str, direct: bool, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The calls of one deployment of the stack into a fresh embedded account, and what it answered."""
    with monkeypatch.context() as patched:
        recorded = Recorded(patched)
        mock_random.seed(37)
        with EmbeddedAccount(assembly, stack, cloudformation=not direct) as account:
            answered = {"environment": account.environment, "function": account.function_name,
                        "evaluator": account.evaluator_name, "patterns": account.patterns}
    return [*recorded.calls, answered]


def _normalized(calls: list[dict[str, Any]]) -> str:
    """The calls as text, each generated suffix of a physical name and each of moto's random ids (a KMS key's, a
    stack's, a function's revision) replaced by the name of what it belongs to, in order of appearance."""
    text = json.dumps(calls, sort_keys=True, default=str)
    seen: dict[str, str] = {}
    for call in calls[:-1]:
        match = re.fullmatch(r".+-([0-9A-Z]{12})", call["name"])
        if match:
            seen.setdefault(match.group(1), f"<suffix of {call['kwargs']['LogicalId']}>")
    for uuid in re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text):
        seen.setdefault(uuid, f"<id {len(seen)}>")
    for random, placeholder in seen.items():
        text = text.replace(random, placeholder)
    return text


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_the_stack_is_created_as_moto_s_cloudformation_creates_it(config, monkeypatch, tmp_path):
    # Given an example configuration's synthesized stack
    assembly, stack = _assembly(config, tmp_path)
    template = json.loads((assembly / f"{stack}.template.json").read_text())
    assert stacks.deployable({**template, "Resources": {k: v for k, v in template["Resources"].items()
                                                         if not v["Type"].startswith("Custom::")}})
    # When the embedded account is deployed by moto's CloudFormation, then without it
    theirs = _deployed(assembly, stack, False, monkeypatch)
    ours = _deployed(assembly, stack, True, monkeypatch)
    # Then moto's models were asked for the same resources, in the same order, with the same names and properties,
    # and the replay found the same function, environment and rule patterns
    assert len(ours) == len(theirs) > 10
    assert [c["kwargs"]["LogicalId"] for c in ours[:-1]] == [c["kwargs"]["LogicalId"] for c in theirs[:-1]]
    assert _normalized(ours) == _normalized(theirs)


def test_the_types_names_and_ids_are_moto_s_cloudformation_s():
    # Given moto's CloudFormation (imported here: the replay need not)
    from moto.cloudformation import parsing, utils

    for resource_type, found in stacks.TYPES.items():
        # Then each type's model is the one it finds, and its name property the one it reads
        model = parsing.resource_class_from_type(resource_type)
        if found is None:
            assert model is None, resource_type
            continue
        assert (model.__module__, model.__name__) == found, resource_type
        assert parsing.resource_name_property_from_type(resource_type) == model.cloudformation_name_type()
        # and a generated name is drawn as it draws one
        mock_random.seed(7)
        theirs = parsing.generate_resource_name(resource_type, "RuleActions", "LedgerTable0123ABCD")
        mock_random.seed(7)
        assert stacks.resource_name(resource_type, "RuleActions", "LedgerTable0123ABCD") == theirs
    # and a stack's id is drawn as it draws one (a template of one queue, created both ways)
    mock_random.seed(11)
    expected = utils.generate_stack_id("RuleActions", "eu-west-1", "111122223333")
    from moto import mock_aws

    with mock_aws():
        mock_random.seed(11)
        deployed = stacks.deploy({"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}, "RuleActions", "111122223333",
                                 "eu-west-1")
    assert deployed is not None and deployed.stack_id == expected and list(deployed.physical) == ["Queue"]


@pytest.mark.parametrize("change", [
    {"Conditions": {"Yes": {"Fn::Equals": ["a", "a"]}}},
    {"Mappings": {"M": {"k": {"v": "1"}}}},
    {"Transform": "AWS::Serverless-2016-10-31"},
    {"Resources": {"Bus": {"Type": "AWS::Events::EventBus", "Properties": {"Name": "bus"}}}},
    {"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Condition": "Yes"}}},
    {"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Ref": "Name"}}}},
     "Parameters": {"Name": {"Type": "String", "Default": "q"}}},
    {"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Fn::Sub": "${Name}-q"}}}},
     "Parameters": {"Name": {"Type": "String", "Default": "q"}}},
    {"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Fn::ImportValue": "x"}}}}},
    {"Outputs": {"Url": {"Value": {"Ref": "Queue"}, "Export": {"Name": "url"}}}},
    {"Parameters": {"Name": {"Type": "String"}}},  # no default: moto refuses the stack without the parameter
    {"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Ref": "Nothing"}}}}},
    {"Resources": {"Policy": {"Type": "AWS::SQS::QueuePolicy"}, "Queue": {"Type": "AWS::SQS::Queue", "Properties": {
        "QueueName": {"Fn::GetAtt": ["Policy", "Id"]}}}}},  # a GetAtt of a resource moto skips: refused
    {"Outputs": {"Colour": {"Value": {"Fn::GetAtt": ["Queue", "Colour"]}}}},  # an attribute its model has not
])
def test_a_template_it_does_not_deploy_as_moto_is_left_to_moto_s_cloudformation(change):
    # Given a template holding something deploy() does not do as moto's CloudFormation does, or that moto refuses
    template = {"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}
    template = {**template, **change, "Resources": {**template["Resources"], **change.get("Resources", {})}}
    from moto import mock_aws
    from moto.sqs.models import sqs_backends

    with mock_aws():
        # When it is deployed
        deployed = stacks.deploy(copy.deepcopy(template), "RuleActions", "123456789012", "us-east-1")
        # Then nothing was created: moto's CloudFormation is to create it all
        assert deployed is None and not sqs_backends["123456789012"]["us-east-1"].queues
    assert not stacks.deployable(template)
