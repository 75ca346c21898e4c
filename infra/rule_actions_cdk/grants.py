"""The plug-ins' IAM statements (rule_actions.contract.Grant records: rule_actions_cdk.plugins collects them) as
statements on a role, each wildcard acknowledged to cdk-nag with the grant's own reason."""

from __future__ import annotations

from aws_cdk import Acknowledgment, ArnFormat, Stack, Validations
from aws_cdk import aws_iam as iam
from constructs import IConstruct

from rule_actions.contract import Arn, Grant


def grant(role: iam.Role, grants: list[Grant]) -> None:
    """The plug-ins' grants (contract.Grant) as statements on `role`, each wildcard acknowledged to cdk-nag with
    the grant's reason."""
    stack = Stack.of(role)
    for item in grants:
        resources = [_arn(stack, resource) for resource in item.resources]
        conditions: dict[str, dict[str, list[str]]] = {}
        for operator, key, values in item.conditions:
            conditions.setdefault(operator, {})[key] = list(values)
        role.add_to_policy(iam.PolicyStatement(sid=item.sid, actions=list(item.actions), resources=resources,
                                               conditions=conditions or None))
        acknowledge(role.node.find_child("DefaultPolicy"),
                    {f"Resource::{_finding(resource)}": item.reason for resource in item.resources
                     if "*" in _finding(resource)})


def _arn(stack: Stack, resource: Arn | str) -> str:
    if isinstance(resource, str):
        return resource
    if resource.service == "s3":  # a bucket: no region, no account
        return stack.format_arn(service="s3", resource=resource.resource, region="", account="")
    if resource.service == "iam":  # global: no region
        return stack.format_arn(service="iam", resource=resource.resource, resource_name=resource.name, region="")
    return stack.format_arn(service=resource.service, resource=resource.resource, resource_name=resource.name,
                            arn_format=ArnFormat.COLON_RESOURCE_NAME if resource.colon else ArnFormat.SLASH_RESOURCE_NAME)


def _finding(resource: Arn | str) -> str:
    """How cdk-nag names a resource in its findings (the stack's partition, region and account as tokens)."""
    if isinstance(resource, str):
        return resource
    if resource.service == "s3":
        return f"arn:<AWS::Partition>:s3:::{resource.resource}"
    if resource.service == "iam":
        return f"arn:<AWS::Partition>:iam::<AWS::AccountId>:{resource.resource}/{resource.name}"
    separator = ":" if resource.colon else "/"
    return (f"arn:<AWS::Partition>:{resource.service}:<AWS::Region>:<AWS::AccountId>:{resource.resource}"
            f"{separator}{resource.name}")


def acknowledge(policy: IConstruct, acknowledgments: dict[str, str]) -> None:
    """cdk-nag AwsSolutions-IAM5 (wildcard) findings on `policy`, each acknowledged with its reason."""
    for finding, reason in acknowledgments.items():
        Validations.of(policy).acknowledge(Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=reason))
