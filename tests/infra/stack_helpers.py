"""Reading a synthesized CloudFormation template in the infra tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def synthesize(context: dict[str, Any], outdir: Path, nag: bool = True) -> dict[str, Any]:
    """The stack's template as `cdk synth` writes it for this context (cdk-nag runs when `nag`)."""
    from infra.app import build_app

    app, stack = build_app(context, outdir=str(outdir), nag=nag)
    return app.synth().get_stack_by_name(stack.stack_name).template


def of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def one(template: dict[str, Any], kind: str) -> tuple[str, dict[str, Any]]:
    found = of_type(template, kind)
    assert len(found) == 1, f"{len(found)} {kind}"
    return next(iter(found.items()))


def props(resource: dict[str, Any]) -> dict[str, Any]:
    return resource.get("Properties", {})


def named(template: dict[str, Any], kind: str, key: str, value: str) -> tuple[str, dict[str, Any]]:
    """The one resource of `kind` whose property `key` is `value`."""
    found = [(n, r) for n, r in of_type(template, kind).items() if props(r).get(key) == value]
    assert len(found) == 1, f"{len(found)} {kind} with {key}={value}"
    return found[0]


def flat(value: Any) -> str:
    """A reference or an ARN built with Fn::Join as one string: {"Ref": X} -> <X>, GetAtt -> <X.Attr>."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Ref" in value:
        return f"<{value['Ref']}>"
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        return f"<{'.'.join(value['Fn::GetAtt'])}>"
    if isinstance(value, dict) and "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(flat(part) for part in parts)
    return json.dumps(value, sort_keys=True)


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def statements(template: dict[str, Any]) -> list[dict[str, Any]]:
    """Every statement of every identity policy: AWS::IAM::Policy and the roles' inline policies."""
    found = [s for policy in of_type(template, "AWS::IAM::Policy").values()
             for s in props(policy)["PolicyDocument"]["Statement"]]
    for role in of_type(template, "AWS::IAM::Role").values():
        for inline in props(role).get("Policies", []):
            found += inline["PolicyDocument"]["Statement"]
    return found


def by_sid(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["Sid"]: s for s in statements(template)}


def policy_of(template: dict[str, Any], kind: str, target: str) -> list[dict[str, Any]]:
    """The statements of the resource policy (TopicPolicy / QueuePolicy) attached to `target`."""
    key = {"AWS::SNS::TopicPolicy": "Topics", "AWS::SQS::QueuePolicy": "Queues"}[kind]
    found = [props(p)["PolicyDocument"]["Statement"] for p in of_type(template, kind).values()
             if {"Ref": target} in props(p)[key]]
    assert len(found) == 1, f"{len(found)} {kind} for {target}"
    return found[0]
