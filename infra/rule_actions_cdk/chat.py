"""Chat channels: what the stack adds for the chat destinations of `notify` (kinds/notify.py declares them).

    <name>-chat (SNS, the stack's KMS key, SSL only)  <- the function publishes team messages only, as the
                                                         custom notification Amazon Q Developer renders
        -> one Amazon Q Developer in chat applications channel configuration per Slack / Teams channel
           (subscribed to this topic alone; read-only guardrail; a role with no permissions)

A channel configuration subscribes to whole topics, with no filter policy of ours: it is never subscribed to
the team topic, which also carries the messages addressed to one person.
"""

from __future__ import annotations

import hashlib

from aws_cdk import aws_chatbot as chatbot
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from rule_actions.contract import ChatChannel

# Chat members act within this policy at most (Amazon Q Developer applies AdministratorAccess when none is
# given); the channels' own role has no permissions at all: custom notifications need none.
GUARDRAIL = "ReadOnlyAccess"


def configuration_name(name: str, channel: ChatChannel) -> str:
    """Deterministic and unique per stack and channel: <name>-<platform>-<digest of the channel's ids>."""
    digest = hashlib.sha256("/".join(value for _, value in channel.ids).encode()).hexdigest()[:12]
    return f"{name}-{channel.platform}-{digest}"


class ChatChannels(Construct):
    """The chat topic and one channel configuration per configured channel (Slack: the L2 construct; Microsoft
    Teams: aws-cdk-lib has only the L1 resource)."""

    def __init__(self, scope: Construct, construct_id: str, *, name: str, channels: tuple[ChatChannel, ...],
                 key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        self.topic = sns.Topic(self, "Topic", topic_name=f"{name}-chat", display_name="RuleChat",
                               master_key=key, enforce_ssl=True)
        self.role = iam.Role(self, "ChannelRole", assumed_by=iam.ServicePrincipal("chatbot.amazonaws.com"),
                             description=f"{name}: chat channels that receive rule-actions notifications (no "
                                         "permissions: custom notifications need none)")
        guardrail = iam.ManagedPolicy.from_aws_managed_policy_name(GUARDRAIL)
        self.configurations: list[object] = []
        for channel in channels:
            ids = dict(channel.ids)
            config_name = configuration_name(name, channel)
            construct = f"{channel.platform.capitalize()}{config_name.rsplit('-', 1)[1]}"
            if channel.platform == "slack":
                self.configurations.append(chatbot.SlackChannelConfiguration(
                    self, construct, slack_channel_configuration_name=config_name,
                    slack_workspace_id=ids["workspace_id"], slack_channel_id=ids["channel_id"],
                    notification_topics=[self.topic], role=self.role, guardrail_policies=[guardrail],
                    logging_level=chatbot.LoggingLevel.NONE, user_role_required=False,
                ))
            else:
                self.configurations.append(chatbot.CfnMicrosoftTeamsChannelConfiguration(
                    self, construct, configuration_name=config_name, iam_role_arn=self.role.role_arn,
                    team_id=ids["team_id"], teams_channel_id=ids["channel_id"], teams_tenant_id=ids["tenant_id"],
                    sns_topic_arns=[self.topic.topic_arn], guardrail_policies=[guardrail.managed_policy_arn],
                    logging_level="NONE", user_role_required=False,
                ))
