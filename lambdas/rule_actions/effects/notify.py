"""SNS: subscribe an endpoint so it receives only the messages addressed to it, and publish.

Every message carries the attribute `to` (an endpoint, or "team" for the stack's team subscribers) and
every subscription has the filter policy {"to": [the values it accepts]}: an endpoint named in one job's
action_json never receives another job's message (the rule container's own routing idea).
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from rule_actions.effects import error_code

ATTRIBUTE = "to"
PENDING = "pending confirmation"
CONFIRMED = "confirmed"


class Notifier:
    def __init__(self, client: Any, topic_arn: str):
        self.client = client
        self.topic_arn = topic_arn

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

    def publish(self, to: str, subject: str, body: str, sms: str) -> str:
        """Publish one message for the subscribers that accept `to`; email gets the body, SMS the short text."""
        return self.client.publish(
            TopicArn=self.topic_arn,
            Subject=subject,
            MessageStructure="json",
            Message=json.dumps({"default": body, "email": body, "sms": sms}),
            MessageAttributes={ATTRIBUTE: {"DataType": "String", "StringValue": to}},
        )["MessageId"]
