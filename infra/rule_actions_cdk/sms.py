"""SMS delivery status logging, when the configuration can text (a kind's Texts record: rule_actions_cdk.plugins
.stack_parts) and the settings ask for it; built into RuleActions' own scope (its construct ids, logical ids and
names those of its first releases).

SNS's per-topic delivery feedback covers HTTP, SQS, Lambda, Firehose and mobile push, not SMS; texts are logged
through the account's SMS preferences (SetSMSAttributes: DeliveryStatusIAMRole, a role SNS assumes to write
`sns/<region>/<account>/...` log groups). Set by a custom resource on create and update (failures only: success
sampling 0%); on delete the role is unset (ignoring errors, so that a delete never fails on it). An account-wide,
per-region setting: `sms_delivery_logs: false` leaves it alone.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, ArnFormat, RemovalPolicy, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import custom_resources as cr
from constructs import Construct

from rule_actions_cdk.function import retention
from rule_actions_cdk.settings import StackSettings


class SmsDeliveryLogs:
    """`role`: the role SNS assumes to write the delivery status logs."""

    def __init__(self, scope: Construct, name: str, settings: StackSettings) -> None:
        stack = Stack.of(scope)
        log_groups = stack.format_arn(service="logs", resource="log-group",
                                      resource_name=f"sns/{stack.region}/{stack.account}/*",
                                      arn_format=ArnFormat.COLON_RESOURCE_NAME)
        self.role = role = iam.Role(
            scope, "SmsDeliveryLogsRole",
            assumed_by=iam.ServicePrincipal("sns.amazonaws.com", conditions={
                "StringEquals": {"aws:SourceAccount": stack.account}}),
            description=f"{name}: SNS writes SMS delivery status logs (failed texts and their reasons)",
        )
        role.add_to_policy(iam.PolicyStatement(
            sid="WriteSmsDeliveryLogs", resources=[log_groups],
            actions=["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]))
        provider_name = f"{name}-sms-settings"
        provider_logs = logs.LogGroup(scope, "SmsSettingsLogGroup", log_group_name=f"/aws/lambda/{provider_name}",
                                      retention=retention(settings.log_retention_days),
                                      removal_policy=RemovalPolicy.DESTROY)
        provider_role = iam.Role(scope, "SmsSettingsRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
                                 description=f"{provider_name}: sets the account's SMS delivery status role")
        provider_role.add_to_policy(iam.PolicyStatement(
            sid="WriteLogs", actions=["logs:CreateLogStream", "logs:PutLogEvents"],
            resources=[provider_logs.log_group_arn]))
        attributes = {"DeliveryStatusIAMRole": role.role_arn, "DeliveryStatusSuccessSamplingRate": "0"}
        custom = cr.AwsCustomResource(
            scope, "SmsDeliveryLogs", function_name=provider_name, role=provider_role, log_group=provider_logs,
            install_latest_aws_sdk=False,
            on_update=cr.AwsSdkCall(service="SNS", action="setSMSAttributes", parameters={"attributes": attributes},
                                    physical_resource_id=cr.PhysicalResourceId.of(f"{name}-sms-delivery-logs")),
            on_delete=cr.AwsSdkCall(service="SNS", action="setSMSAttributes",
                                    parameters={"attributes": {"DeliveryStatusIAMRole": ""}},
                                    ignore_error_codes_matching=".*"),
            policy=cr.AwsCustomResourcePolicy.from_statements([
                # SetSMSAttributes supports no resource-level permissions
                iam.PolicyStatement(actions=["sns:SetSMSAttributes"], resources=["*"]),
                iam.PolicyStatement(actions=["iam:PassRole"], resources=[role.role_arn]),
            ]),
        )
        custom.node.add_dependency(role)
        for found_in, finding, reason in (
            (role, "Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/"
                   "<AWS::AccountId>/*",
             "SNS names its SMS delivery log groups sns/<region>/<account>/<topic or DirectPublishToPhoneNumber>[/Failure]"),
            (custom, "Resource::*", "sns:SetSMSAttributes supports no resource-level permissions; IAM requires "
                                    "Resource \"*\" for it (the only action in that statement)."),
        ):
            for child in found_in.node.find_all():
                if child.node.id == "DefaultPolicy" or child.node.id == "CustomResourcePolicy":
                    Validations.of(child).acknowledge(Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=reason))
