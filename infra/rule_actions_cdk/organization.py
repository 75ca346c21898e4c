"""Organization mode, the central side (`rule_actions.organization` is the function's, infra/rule_actions_cdk/member_stack.py the
members'): the bus the members forward to, who may put events on it, the function's AssumeRole grant, the alarm on
refused accounts, and the names both sides derive from the configuration.

    member account (each region)                      central account (central_region)
    default bus -> rule (rule_actions_cdk.plugins.event_pattern) --PutEvents--> <name>-bus (policy: the organization or the accounts)
    executor role <member_role>-<region>  <--AssumeRole--  rule -> function (role <name>-handler-<region>)

Names are deterministic so that a member stack, synthesized without any lookup, forwards to the right bus and
trusts exactly the central function's role.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_cdk import Acknowledgment, Duration, Environment, Stack, Token, Validations
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from constructs import Construct

from rule_actions_cdk import metrics
from rule_actions_cdk.dashboard import function_metric

if TYPE_CHECKING:  # infra/rule_actions_cdk/ reads the configuration through rule_actions.config at run time
    from rule_actions.organization import Organization


def bus_name(name: str) -> str:
    return f"{name}-bus"


def function_role_name(name: str, org: Organization) -> str:
    """The central function's role (IAM names are global to an account: the region keeps two deployments apart)."""
    return f"{name}-handler-{org.central_region}"


def evaluator_role_name(name: str, org: Organization) -> str:
    """The central evaluator's role (the monitor rules), which the member stacks' executor roles also trust."""
    return f"{name}-evaluator-{org.central_region}"


def central_environment(org: Organization) -> Environment:
    """The central stack is pinned where members expect it: `cdk deploy` refuses another account or region."""
    return Environment(account=org.central_account, region=org.central_region)


def central_bus(scope: Construct, name: str, org: Organization) -> events.EventBus:
    """The bus members forward to. Its policy admits PutEvents from the organization (`org_id`: its accounts, the
    new ones too) or else from exactly the listed accounts; the function then acts only for `accounts` when they
    are listed, and refuses the others (RefusedAccountEvents)."""
    bus = events.EventBus(scope, "OrganizationBus", event_bus_name=bus_name(name),
                          description=f"{name}: SageMaker training job events forwarded by the member accounts")
    principals: list[iam.IPrincipal]
    if org.org_id:
        sid, principals = "OrganizationPutsEvents", [iam.OrganizationPrincipal(org.org_id)]
    else:
        sid, principals = "MemberAccountsPutEvents", [iam.AccountPrincipal(account) for account in org.accounts]
    arn = Stack.of(scope).format_arn(service="events", resource="event-bus", resource_name=bus_name(name))
    statement = iam.PolicyStatement(sid=sid, principals=principals, actions=["events:PutEvents"], resources=[arn])
    # The bus's own Policy property: AWS::Events::EventBusPolicy (what add_to_resource_policy makes) carries a
    # property CloudFormation deprecated, and aws-cdk-lib warns about it at every synth.
    cfn_bus: events.CfnEventBus = bus.node.default_child  # type: ignore[assignment]
    cfn_bus.policy = iam.PolicyDocument(statements=[statement]).to_json()
    return bus


def grant_assume_member_roles(role: iam.Role, org: Organization) -> None:
    """sts:AssumeRole on the members' executor roles and nothing else: the listed accounts' (any region), or with
    only an organization id, any account's role of that name whose account belongs to the organization."""
    stack = Stack.of(role)
    accounts = org.accounts or ("*",)
    resources = [f"arn:{stack.partition}:iam::{account}:role/{org.member_role}-*" for account in accounts]
    conditions = {"StringEquals": {"aws:ResourceOrgID": org.org_id}} if org.org_id else None
    role.add_to_policy(iam.PolicyStatement(sid="AssumeMemberExecutorRoles", actions=["sts:AssumeRole"],
                                           resources=resources, conditions=conditions))
    shown = "<AWS::Partition>" if Token.is_unresolved(stack.partition) else stack.partition
    reason = ("The executor role a member stack creates in each region is named <member_role>-<region>; members "
              "deploy in regions the central stack does not know" +
              ("." if org.accounts else ", and with only an organization id in accounts it does not list: "
               "aws:ResourceOrgID keeps it to the organization's accounts."))
    for account in accounts:
        finding = f"AwsSolutions-IAM5[Resource::arn:{shown}:iam::{account}:role/{org.member_role}-*]"
        Validations.of(role.node.find_child("DefaultPolicy")).acknowledge(Acknowledgment(id=finding, reason=reason))


def refused_account_metric(service: str) -> cloudwatch.Metric:
    """Events the function of the deployment whose service name is `service` refused because their account is not
    configured (a member forwarding without being listed, or an event naming another account's job)."""
    return function_metric(metrics.REFUSED, service, period=Duration.minutes(5))
