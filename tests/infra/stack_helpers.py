"""Building the stack for the infra tests, and the CloudFormation values their `aws_cdk.assertions` expect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aws_cdk.assertions import Match, Template

ROOT = Path(__file__).resolve().parents[2]


def synthesize(context: dict[str, Any], outdir: Path, nag: bool = True) -> Template:
    """`Template.from_stack` of the app's stack for this context, as `cdk synth` builds it: the app synthesizes
    into `outdir` (the code asset included), and cdk-nag, when `nag`, raises on a finding."""
    from rule_actions_cdk.app import build_app

    _, stack = build_app(context, outdir=str(outdir), nag=nag)
    return Template.from_stack(stack)


def ref(logical_id: str) -> dict[str, str]:
    """{"Ref": id}: a topic's ARN, a table's, function's or log group's name, a queue's URL, a parameter's value."""
    return {"Ref": logical_id}


def get_att(logical_id: str, attribute: str = "Arn") -> dict[str, list[str]]:
    return {"Fn::GetAtt": [logical_id, attribute]}


def arn(service: str, resource: str) -> dict[str, Any]:
    """The ARN `Stack.format_arn` builds: `resource` of `service` in the stack's partition, region and account."""
    return {"Fn::Join": ["", ["arn:", ref("AWS::Partition"), f":{service}:", ref("AWS::Region"), ":",
                              ref("AWS::AccountId"), f":{resource}"]]}


def no_statement(pattern: Any) -> dict[str, Any]:
    """An IAM policy's properties in which no statement matches `pattern` (an object_like pattern)."""
    return {"PolicyDocument": {"Statement": Match.not_(Match.array_with([Match.object_like(pattern)]))}}


def deny_without_tls(kind: str, logical_id: str) -> dict[str, Any]:
    """The statement `enforce_ssl=True` adds to a topic's or queue's resource policy."""
    if kind == "AWS::SNS::Topic":
        return {"Sid": "AllowPublishThroughSSLOnly", "Effect": "Deny", "Principal": "*", "Action": "sns:Publish",
                "Resource": ref(logical_id), "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
    return {"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "sqs:*", "Resource": get_att(logical_id),
            "Condition": {"Bool": {"aws:SecureTransport": "false"}}}


def dashboard_body(template: Template, name: str | None = None) -> dict[str, Any]:
    """The body of the dashboard named `name` (the template's one dashboard when None), its references written
    <LogicalId> (pseudo parameters <AWS::Region>...)."""
    [dashboard] = [d for d in template.find_resources("AWS::CloudWatch::Dashboard").values()
                   if name is None or d["Properties"]["DashboardName"] == name]

    def text(value: Any) -> str:
        if isinstance(value, str):
            return value
        if "Ref" in value:
            return f"<{value['Ref']}>"
        separator, parts = value["Fn::Join"]
        return separator.join(map(text, parts))

    return json.loads(text(dashboard["Properties"]["DashboardBody"]))


def graphed(body: dict[str, Any]) -> list[tuple[str, str, frozenset]]:
    """(namespace, metric name, dimensions) of every metric a dashboard's widgets name (expressions left out)."""
    return [(line[0], line[1], frozenset(zip(line[2:-1:2], line[3:-1:2], strict=True)) if isinstance(line[-1], dict)
             else frozenset(zip(line[2::2], line[3::2], strict=True)))
            for widget in body["widgets"] for line in widget["properties"].get("metrics", []) if isinstance(line[0], str)]
