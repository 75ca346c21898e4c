"""SNS: subscribe an endpoint so it receives only the messages addressed to it, publish, and tell whether the
team audience has a subscriber.

Every message carries the attribute `to` (an endpoint, or "team" for the stack's team audience) and every
subscription the stack or the function makes has the filter policy {"to": [the values it accepts]}: an
endpoint named in one job's action_json never receives another job's message (the rule container's own
routing idea).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from rule_actions.contract import ROUTING_ATTRIBUTE as ATTRIBUTE
from rule_actions.contract import TEAM
from rule_actions.text import error_code

if TYPE_CHECKING:
    from rule_actions.records import Message

PENDING = "pending confirmation"
CONFIRMED = "confirmed"
NO_TEAM_RECHECK_SECONDS = 300  # an audience found empty (or not known) is listed again after this; one found is kept
# Filter policies read per listing, at most: every endpoint an action_json named has a subscription of its own, so a
# topic can hold thousands; reading each (one GetSubscriptionAttributes apiece) made the check cost one call per
# subscription. Beyond this many, an audience not yet found counts as found ("not known": the team message goes
# out, and SNS delivers it only to subscriptions whose filter accepts it); `rule-actions subscriptions` removes
# the subscriptions nobody needs.
FILTER_READS = 25
OURS = ("email", "sms")  # the protocols of the subscriptions the function makes itself (one person's messages)


class SnsNotifier:
    PENDING = PENDING

    def __init__(self, client: Any, topic_arn: str, chat_topic_arn: str | None = None):
        self.client = client
        self.topic_arn = topic_arn
        self.chat_topic_arn = chat_topic_arn  # the chat channels' topic: team messages only
        self._team: tuple[bool | None, float] | None = None  # (has a subscriber, or None: not known; when listed)

    def ensure_subscription(self, protocol: str, endpoint: str) -> str:
        """Subscribe `endpoint` (email or sms) with a filter policy accepting its address; CONFIRMED or PENDING."""
        policy = json.dumps({ATTRIBUTE: [endpoint]})
        try:
            arn = self.client.subscribe(
                TopicArn=self.topic_arn,
                Protocol=protocol,
                Endpoint=endpoint,
                Attributes={"FilterPolicy": policy},
                ReturnSubscriptionArn=True,
            )["SubscriptionArn"]
        except ClientError as err:
            # The endpoint is already subscribed with another policy (a team member): widen that policy.
            if error_code(err) != "InvalidParameter" or "attributes" not in str(err).lower():
                raise
            arn = self._existing(protocol, endpoint)
            if arn is None:
                return PENDING
        attributes = self.client.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
        if attributes.get("PendingConfirmation") == "true":
            return PENDING
        policy = json.loads(attributes.get("FilterPolicy") or "{}")
        accepted = policy.get(ATTRIBUTE, [])
        if policy and endpoint not in accepted:  # no policy at all: it already receives everything
            self.client.set_subscription_attributes(
                SubscriptionArn=arn,
                AttributeName="FilterPolicy",
                AttributeValue=json.dumps({**policy, ATTRIBUTE: sorted({*accepted, endpoint})}),
            )
        return CONFIRMED

    def _existing(self, protocol: str, endpoint: str) -> str | None:
        """The confirmed subscription of this endpoint; None while it is pending (it has no ARN yet)."""
        pages = self.client.get_paginator("list_subscriptions_by_topic").paginate(TopicArn=self.topic_arn)
        for page in pages:
            for sub in page["Subscriptions"]:
                if sub["Protocol"] == protocol and sub["Endpoint"] == endpoint:
                    arn = sub["SubscriptionArn"]
                    return arn if arn.startswith("arn:") else None
        return None

    def publish(self, to: str, message: Message, chat: dict[str, Any] | None = None) -> str:
        """Publish one message for the subscribers that accept `to`; email gets the body, SMS the short text, and
        HTTPS subscribers (a chat channel added by hand with the team filter) the chat notification when given."""
        bodies = {"default": message.body, "email": message.body, "sms": message.short}
        if chat is not None:
            bodies["https"] = json.dumps(chat, ensure_ascii=False)
        sent: str = self.client.publish(
            TopicArn=self.topic_arn,
            Subject=message.subject,
            MessageStructure="json",
            Message=json.dumps(bodies),
            MessageAttributes={ATTRIBUTE: {"DataType": "String", "StringValue": to}},
        )["MessageId"]
        return sent

    def publish_chat(self, notification: dict[str, Any]) -> str:
        """Publish a custom notification to the chat topic (its subscribers are the channel configurations)."""
        sent: str = self.client.publish(TopicArn=self.chat_topic_arn,
                                        Message=json.dumps(notification, ensure_ascii=False))["MessageId"]
        return sent

    def team_subscribed(self) -> bool:
        """Whether a confirmed subscription of the topic receives team messages, whoever made it (the stack, or a
        person adding a chat channel or a list by hand). Listed once per execution environment: an audience found
        is kept, one found empty or not known is listed again after NO_TEAM_RECHECK_SECONDS (a subscriber added
        later is found). A listing costs one ListSubscriptionsByTopic per 100 subscriptions and at most
        FILTER_READS GetSubscriptionAttributes, those of other protocols than the function's own first (hand-made
        subscribers: chat, on-call tools); every invocation in between costs none."""
        now = time.monotonic()
        if self._team and (self._team[0] or now - self._team[1] < NO_TEAM_RECHECK_SECONDS):
            return self._team[0] is not False
        pages = self.client.get_paginator("list_subscriptions_by_topic").paginate(TopicArn=self.topic_arn)
        confirmed = [sub for page in pages for sub in page["Subscriptions"]
                     if sub["SubscriptionArn"].startswith("arn:")]  # "PendingConfirmation" has no ARN yet
        confirmed.sort(key=lambda sub: sub.get("Protocol") in OURS)
        found: bool | None = any(self._receives_team(sub["SubscriptionArn"]) for sub in confirmed[:FILTER_READS])
        if not found and len(confirmed) > FILTER_READS:
            found = None  # not known: it goes out
        self._team = (found, now)
        return found is not False

    def _receives_team(self, arn: str) -> bool:
        return audience(self.client.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]) == TEAM_AUDIENCE


TEAM_AUDIENCE, PERSONAL, OTHER = "team", "personal", "other"


def audience(attributes: dict[str, str]) -> str:
    """Who a subscription is, by its attributes: TEAM_AUDIENCE (it may receive team messages), PERSONAL (one or a
    few people's own messages: {"to": [endpoints]}, as the function subscribes them), PENDING (not confirmed),
    or OTHER (it filters on attributes our messages do not carry: it receives nothing from this stack)."""
    if attributes.get("PendingConfirmation") == "true":
        return PENDING
    policy = attributes.get("FilterPolicy")
    if not policy:
        return TEAM_AUDIENCE  # no filter: it receives every message
    if attributes.get("FilterPolicyScope") == "MessageBody":
        return TEAM_AUDIENCE  # a policy on the body: it may accept team messages, the team message goes out
    values = json.loads(policy).get(ATTRIBUTE)
    if not isinstance(values, list):
        return OTHER  # it filters on other attributes, which our messages do not carry
    if any(value == TEAM or isinstance(value, dict) for value in values):
        return TEAM_AUDIENCE  # a match rule may accept it
    return PERSONAL
