"""A stack's template deployed into moto's backends as moto's CloudFormation deploys it, without importing moto's
CloudFormation: that imports the models of some thirty services to find each resource type's class (ec2's, with its
instance types and region list, apigateway's with its OpenAPI validator, and SSM's: a third of a one-event replay's
start-up).

Each resource is created as moto's CloudFormation creates it (moto.cloudformation.parsing, moto 5.2.5): by moto's own
model class for its type (its create_from_cloudformation_json), with the physical name moto gives it, its properties
resolved as moto resolves them (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split), each created when it is
first referenced, in moto's order of DependsOn; the types moto's CloudFormation skips are skipped (a Ref to one
resolves to nothing). tests/integration/test_moto_stacks.py deploys the example configurations' templates both ways
and compares what each created, call by call.

A template this cannot deploy so (a type not listed in TYPES, a condition, a mapping, a transform, an output's export,
a parameter a resource or an output reads, another intrinsic function) or that moto's CloudFormation would refuse (a
Ref to nothing, a GetAtt of a resource it skips...) is left alone: deploy() answers None before creating anything,
and the caller creates the stack with moto's CloudFormation, which creates it or refuses it its own way.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import logging
import os
import re
import string
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from moto.moto_api._internal import mock_random
from moto.utilities.utils import get_partition

# moto's CloudFormation model of each resource type the replay's templates declare, as moto.cloudformation.parsing's
# get_model_map() finds it (module, class); None: a type moto's CloudFormation does not create (it warns and goes on).
TYPES: dict[str, tuple[str, str] | None] = {
    "AWS::Chatbot::MicrosoftTeamsChannelConfiguration": None,
    "AWS::Chatbot::SlackChannelConfiguration": None,
    "AWS::CloudWatch::Alarm": None,
    "AWS::CloudWatch::Dashboard": ("moto.cloudwatch.models", "Dashboard"),
    "AWS::DynamoDB::Table": ("moto.dynamodb.models.table", "Table"),
    "AWS::Events::Rule": ("moto.events.models", "Rule"),
    "AWS::IAM::Policy": ("moto.iam.models", "InlinePolicy"),
    "AWS::IAM::Role": ("moto.iam.models", "Role"),
    "AWS::KMS::Alias": ("moto.kms.models", "Alias"),
    "AWS::KMS::Key": ("moto.kms.models", "Key"),
    "AWS::Lambda::EventInvokeConfig": None,
    "AWS::Lambda::Function": ("moto.awslambda.models", "LambdaFunction"),
    "AWS::Lambda::Permission": ("moto.awslambda.models", "Permission"),
    "AWS::Logs::LogGroup": ("moto.logs.models", "LogGroup"),
    "AWS::SNS::Subscription": None,
    "AWS::SNS::Topic": ("moto.sns.models", "Topic"),
    "AWS::SNS::TopicPolicy": None,
    "AWS::SQS::Queue": ("moto.sqs.models", "Queue"),
    "AWS::SQS::QueuePolicy": None,
}
FUNCTIONS = {"Fn::GetAtt", "Fn::Join", "Fn::Sub", "Fn::Select", "Fn::Split"}  # besides Ref
TOP_LEVEL = {"AWSTemplateFormatVersion", "Description", "Metadata", "Parameters", "Resources", "Outputs", "Rules"}
RESOURCE_KEYS = {"Type", "Properties", "DependsOn", "Metadata", "UpdateReplacePolicy", "DeletionPolicy"}


@dataclass
class Deployed:
    """What a deployment made: the stack's id, each created resource's physical id (by logical id, in creation
    order; None for a model that has none, as moto's DescribeStackResources says), its outputs' values."""

    stack_id: str
    physical: dict[str, str | None]
    outputs: dict[str, Any]


class TemplateError(Exception):
    """What moto's CloudFormation would refuse the template for (the stack would not be created)."""


PSEUDO = ("AWS::AccountId", "AWS::Region", "AWS::StackId", "AWS::StackName", "AWS::URLSuffix", "AWS::NoValue",
          "AWS::Partition")


def deployable(template: dict[str, Any]) -> bool:
    """Whether deploy() deploys `template` as moto's CloudFormation would, none of its checks failing (else moto's
    CloudFormation is to, and to refuse it its own way): known types and keys only, every parameter with a default
    and read by nothing, every Ref and Fn::Sub variable naming a resource or a pseudo parameter, every Fn::GetAtt a
    resource moto creates, an output's one an attribute its model has."""
    resources = template.get("Resources")
    if not isinstance(resources, dict) or not resources or set(template) - TOP_LEVEL:
        return False
    if any(not isinstance(r, dict) or r.get("Type") not in TYPES or set(r) - RESOURCE_KEYS for r in resources.values()):
        return False
    outputs = template.get("Outputs") or {}
    if not isinstance(outputs, dict) or any(not isinstance(o, dict) or set(o) - {"Value", "Description"}
                                            for o in outputs.values()):
        return False
    parameters = template.get("Parameters") or {}
    if not isinstance(parameters, dict) or any(not isinstance(p, dict) or p.get("Default") is None
                                               for p in parameters.values()):
        return False
    named = set(resources) | set(PSEUDO)
    for key, value in _keys(resources, outputs):
        if key.startswith("Fn::") and key not in FUNCTIONS:
            return False
        if key == "Ref" and value not in named:
            return False
        if key == "Fn::Sub" and any(name.split(".")[0] not in named for name in _substituted(value)):
            return False
        if key == "Fn::GetAtt" and not (isinstance(value, list) and len(value) == 2 and value[0] in resources
                                        and TYPES[resources[value[0]]["Type"]] is not None):
            return False
    for output in outputs.values():  # moto checks them before creating anything
        value = output.get("Value")
        if isinstance(value, dict) and "Fn::GetAtt" in value:
            name, attribute = value["Fn::GetAtt"]
            if not _model(resources[name]["Type"]).has_cfn_attr(attribute):
                return False
    return True


def _model(resource_type: str) -> Any:
    """moto's model class of a type TYPES lists as created."""
    found = TYPES[resource_type]
    assert found is not None
    return getattr(importlib.import_module(found[0]), found[1])


EXCEPTIONS = "moto.cloudformation.exceptions"


def _exceptions() -> None:
    """moto's models import moto.cloudformation.exceptions when a GetAtt is resolved (for the exception an unknown
    attribute raises), and importing it through its package imports all of moto's CloudFormation: the module is
    loaded by itself here (it imports moto.core's exceptions alone), under its own name, where the package finds it
    when it is imported (a template left to moto's CloudFormation), as it would have loaded it."""
    if EXCEPTIONS in sys.modules or "moto.cloudformation" in sys.modules:
        return
    import moto

    location = os.path.join(os.path.dirname(moto.__file__), "cloudformation", "exceptions.py")
    spec = importlib.util.spec_from_file_location(EXCEPTIONS, location)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[EXCEPTIONS] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[EXCEPTIONS]
        raise


def deploy(template: dict[str, Any], stack_name: str, account_id: str, region: str) -> Deployed | None:
    """Create `template`'s resources in moto's backends of `account_id` and `region` as moto's CloudFormation would
    for a stack `stack_name`; None (nothing created) when deployable() says it is moto's CloudFormation's to."""
    if not deployable(template):
        return None
    _exceptions()
    template = copy.deepcopy(template)  # moto's own copy, which its parse adds to ("Properties": {})
    stack_id = f"arn:{get_partition(region)}:cloudformation:{region}:{account_id}:stack/{stack_name}/" \
               f"{mock_random.uuid4()}"
    resources = _Resources(template["Resources"], stack_id, stack_name, account_id, region)
    for logical_id in resources.in_dependency_order():
        instance = resources[logical_id]
        if instance is not None and not instance.is_created():
            raise TemplateError(f"{logical_id} was not created")
    outputs = {key: _clean(output.get("Value"), resources) for key, output in (template.get("Outputs") or {}).items()}
    return Deployed(stack_id, {logical_id: getattr(resource, "physical_resource_id", None) for logical_id, resource
                               in resources.created.items()}, outputs)


def _keys(*values: Any) -> Iterator[tuple[str, Any]]:
    for value in values:
        if isinstance(value, dict):
            for key, item in value.items():
                yield key, item
                yield from _keys(item)
        elif isinstance(value, list):
            yield from _keys(*value)


def _substituted(value: Any) -> list[str]:
    text = value[0] if isinstance(value, list) and value else value
    return re.findall(r"\$\{([^!}][^}]*)\}", text) if isinstance(text, str) else []


def random_suffix() -> str:
    """moto.cloudformation.utils.random_suffix: 12 characters of moto's random."""
    chars = list(range(10)) + list(string.ascii_uppercase)
    return "".join(str(mock_random.choice(chars)) for _ in range(12))


def resource_name(resource_type: str, stack_name: str, logical_id: str) -> str:
    """moto.cloudformation.parsing.generate_resource_name, for the types of TYPES."""
    if resource_type == "AWS::IAM::Policy":
        return f"{stack_name[:5]}-{logical_id[:4]}-{random_suffix()}"
    return f"{stack_name}-{logical_id}-{random_suffix()}"


class _Resources:
    """moto's ResourceMap, for what deployable() admits: the pseudo parameters, then each resource created at its
    first lookup."""

    def __init__(self, resources: dict[str, Any], stack_id: str, stack_name: str, account_id: str, region: str):
        self.resources, self.stack_id, self.account_id, self.region = resources, stack_id, account_id, region
        self.parsed: dict[str, Any] = dict(zip(PSEUDO, (account_id, region, stack_id, stack_name, "amazonaws.com",
                                                        None, "aws"), strict=True))
        self.created: dict[str, Any] = {}

    def __getitem__(self, logical_id: str) -> Any:
        if logical_id in self.parsed:
            return self.parsed[logical_id]
        resource = self.resources.get(logical_id)
        if not resource:
            raise KeyError(logical_id)
        made = self._create(logical_id, resource)
        if made is not None:
            self.parsed[logical_id] = self.created[logical_id] = made
        return made

    def get(self, logical_id: str) -> Any:
        try:
            return self[logical_id]
        except KeyError:
            return None

    def _create(self, logical_id: str, resource: dict[str, Any]) -> Any:
        resource_type = resource["Type"]
        found = TYPES[resource_type]
        if found is None:
            logging.getLogger("moto").warning("No Moto CloudFormation support for %s", resource_type)
            warnings.warn(f"Tried to parse {resource_type} but it's not supported by moto's CloudFormation "
                          "implementation", stacklevel=2)
            return None
        model = _model(resource_type)
        resource.setdefault("Properties", {})
        cleaned = _clean(resource, self)
        name = resource_name(resource_type, self.parsed["AWS::StackName"], logical_id)
        name_property = model.cloudformation_name_type()
        if name_property and name_property in cleaned.get("Properties", {}):
            name = cleaned["Properties"][name_property]
        made = model.create_from_cloudformation_json(name, cleaned, self.account_id, self.region, LogicalId=logical_id,
                                                     StackId=self.stack_id, ResourceType=resource_type)
        made.cf_resource_type = resource_type
        made.logical_resource_id = logical_id
        return made

    def in_dependency_order(self) -> list[str]:
        """moto's order: each resource after what its DependsOn names, in the template's order otherwise."""
        left = dict(self.resources)
        ordered: list[str] = []

        def visit(logical_id: str) -> None:
            depends = left[logical_id].get("DependsOn", [])
            for dependency in [depends] if isinstance(depends, str) else depends:
                if dependency in left:
                    visit(dependency)
            ordered.append(logical_id)
            del left[logical_id]

        while left:
            visit(next(iter(left)))
        return ordered


def _clean(value: Any, resources: _Resources) -> Any:
    """moto.cloudformation.parsing.clean_json, for the intrinsic functions deployable() admits."""
    if isinstance(value, dict):
        if "Ref" in value:
            found = resources[value["Ref"]]
            return found.physical_resource_id if hasattr(found, "physical_resource_id") else found
        if "Fn::GetAtt" in value:
            name, attribute = value["Fn::GetAtt"][0], value["Fn::GetAtt"][1]
            target = resources.get(name)
            if target is None:
                raise TemplateError(f"Template error: instance of Fn::GetAtt references undefined resource {name}")
            try:
                return target.get_cfn_attribute(attribute)
            except NotImplementedError:
                pass  # as moto: the GetAtt is kept, cleaned as any other value
        if "Fn::Join" in value:
            joined = _clean(value["Fn::Join"][1], resources)
            return value["Fn::Join"][0].join([str(x) for x in joined])
        if "Fn::Split" in value:
            return _clean(value["Fn::Split"][1], resources).split(value["Fn::Split"][0])
        if "Fn::Select" in value:
            return _clean(value["Fn::Select"][1], resources)[int(value["Fn::Select"][0])]
        if "Fn::Sub" in value:
            return _sub(value["Fn::Sub"], resources)
        cleaned = {}
        for key, item in value.items():
            found = _clean(item, resources)
            if found is not None:
                cleaned[key] = found
        return cleaned
    if isinstance(value, list):
        return [_clean(item, resources) for item in value]
    return value


def _sub(template: Any, resources: _Resources) -> Any:
    """moto's Fn::Sub: its variables' values, then each ${Name} a Ref and each ${Name.Attribute} a GetAtt."""
    if isinstance(template, list):
        template, mappings = template
        for key, value in mappings.items():
            template = string.Template(template).safe_substitute(**{key: str(_clean(value, resources))})
    text = _clean(template, resources)
    subs, literals = re.findall(r'(?=\${)[^!^"]*?}', text), re.findall(r'(?=\${!)[^"]*?}', text)
    for sub in subs:
        name = re.findall(r'(?<=\${)[^"]*?(?=})', sub)[0]
        found = _clean({"Fn::GetAtt": name.split(".")} if "." in sub else {"Ref": name}, resources)
        if found is not None:
            text = text.replace(sub, str(found))
    for literal in literals:
        text = text.replace(literal, literal.replace("!", ""))
    return text


def _json(value: Any) -> str:  # (for the tests' comparisons)
    return json.dumps(value, sort_keys=True, default=str)
