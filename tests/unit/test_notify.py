"""SNS subscription cases moto cannot show (it confirms email at once and overwrites attributes on a
repeated Subscribe): the real service's answers are stubbed with botocore's Stubber."""

import json

import boto3
import pytest
from botocore.stub import Stubber

from rule_actions.effects.notify import CONFIRMED, PENDING, Notifier

TOPIC = "arn:aws:sns:us-east-1:123456789012:rule-actions"
SUB = TOPIC + ":0f1e2d3c-aaaa-bbbb-cccc-123456789012"


@pytest.fixture
def sns():
    client = boto3.client("sns", region_name="us-east-1")
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def subscribe_params(endpoint, protocol="email"):
    return {
        "TopicArn": TOPIC,
        "Protocol": protocol,
        "Endpoint": endpoint,
        "Attributes": {"FilterPolicy": json.dumps({"to": [endpoint]})},
        "ReturnSubscriptionArn": True,
    }


def test_new_email_subscription_pending_confirmation_is_reported(sns):
    # Given SNS answers that the new email subscription awaits confirmation
    client, stub = sns
    stub.add_response("subscribe", {"SubscriptionArn": SUB}, subscribe_params("ml@example.com"))
    stub.add_response("get_subscription_attributes", {"Attributes": {"PendingConfirmation": "true"}}, {"SubscriptionArn": SUB})

    # When / Then the subscription is created with its own filter policy and reported pending
    assert Notifier(client, TOPIC).ensure_subscription("email", "ml@example.com") == PENDING


def test_team_member_named_in_action_json_gets_the_policy_widened(sns):
    # Given the endpoint is already a team subscriber ({"to": ["team"]}): SNS refuses other attributes
    client, stub = sns
    stub.add_client_error(
        "subscribe",
        "InvalidParameter",
        "Invalid parameter: Attributes Reason: Subscription already exists with different attributes",
        expected_params=subscribe_params("lead@example.com"),
    )
    stub.add_response(
        "list_subscriptions_by_topic",
        {"Subscriptions": [{"SubscriptionArn": SUB, "Protocol": "email", "Endpoint": "lead@example.com", "TopicArn": TOPIC, "Owner": "123456789012"}]},
        {"TopicArn": TOPIC},
    )
    stub.add_response(
        "get_subscription_attributes",
        {"Attributes": {"PendingConfirmation": "false", "FilterPolicy": json.dumps({"to": ["team"]})}},
        {"SubscriptionArn": SUB},
    )
    # Then the policy accepts both the team's messages and the ones addressed to this endpoint
    stub.add_response(
        "set_subscription_attributes",
        {},
        {"SubscriptionArn": SUB, "AttributeName": "FilterPolicy", "AttributeValue": json.dumps({"to": ["lead@example.com", "team"]})},
    )

    assert Notifier(client, TOPIC).ensure_subscription("email", "lead@example.com") == CONFIRMED


def test_existing_pending_subscription_has_no_arn_and_is_reported_pending(sns):
    client, stub = sns
    stub.add_client_error("subscribe", "InvalidParameter", "Subscription already exists with different attributes")
    stub.add_response(
        "list_subscriptions_by_topic",
        {"Subscriptions": [{"SubscriptionArn": "PendingConfirmation", "Protocol": "email", "Endpoint": "new@example.com", "TopicArn": TOPIC, "Owner": "123456789012"}]},
        {"TopicArn": TOPIC},
    )
    assert Notifier(client, TOPIC).ensure_subscription("email", "new@example.com") == PENDING


def test_other_subscribe_errors_propagate(sns):
    client, stub = sns
    stub.add_client_error("subscribe", "AuthorizationError", "not allowed")
    with pytest.raises(client.exceptions.AuthorizationErrorException):
        Notifier(client, TOPIC).ensure_subscription("sms", "+15555550100")
