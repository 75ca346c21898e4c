"""SNS subscription cases moto cannot show (it confirms email at once and overwrites attributes on a
repeated Subscribe): the real service's answers are stubbed with botocore's Stubber."""

import json

import boto3
import pytest
from botocore.stub import Stubber

from rule_actions.effects.notify import CONFIRMED, PENDING, SnsNotifier

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
    assert SnsNotifier(client, TOPIC).ensure_subscription("email", "ml@example.com") == PENDING


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

    assert SnsNotifier(client, TOPIC).ensure_subscription("email", "lead@example.com") == CONFIRMED


def test_existing_pending_subscription_has_no_arn_and_is_reported_pending(sns):
    client, stub = sns
    stub.add_client_error("subscribe", "InvalidParameter", "Subscription already exists with different attributes")
    stub.add_response(
        "list_subscriptions_by_topic",
        {"Subscriptions": [{"SubscriptionArn": "PendingConfirmation", "Protocol": "email", "Endpoint": "new@example.com", "TopicArn": TOPIC, "Owner": "123456789012"}]},
        {"TopicArn": TOPIC},
    )
    assert SnsNotifier(client, TOPIC).ensure_subscription("email", "new@example.com") == PENDING


def test_other_subscribe_errors_propagate(sns):
    client, stub = sns
    stub.add_client_error("subscribe", "AuthorizationError", "not allowed")
    with pytest.raises(client.exceptions.AuthorizationErrorException):
        SnsNotifier(client, TOPIC).ensure_subscription("sms", "+15555550100")


# --- the team audience ---------------------------------------------------------------------------------------


def listing(*subscriptions):
    return {"Subscriptions": [{"SubscriptionArn": arn, "Owner": "123456789012", "Protocol": protocol,
                               "Endpoint": "x", "TopicArn": TOPIC} for arn, protocol in subscriptions]}


@pytest.mark.parametrize(("attributes", "expected"), [
    ({"FilterPolicy": json.dumps({"to": ["team"]})}, True),  # the stack's own team subscription, or one by hand
    ({"FilterPolicy": json.dumps({"to": ["ml@example.com", "team"]})}, True),  # a team member named in action_json
    ({}, True),  # no filter: it receives everything
    ({"FilterPolicy": json.dumps({"to": [{"prefix": "te"}]})}, True),  # a match rule may accept team: it goes out
    ({"FilterPolicy": json.dumps({"to": ["x"]}), "FilterPolicyScope": "MessageBody"}, True),
    ({"FilterPolicy": json.dumps({"to": ["ml@example.com"]})}, False),  # one person's own messages only
    ({"FilterPolicy": json.dumps({"severity": ["high"]})}, False),  # our messages carry no such attribute
    ({"FilterPolicy": json.dumps({"to": ["team"]}), "PendingConfirmation": "true"}, False),
])
def test_a_subscription_receives_team_messages_when_its_filter_accepts_them(sns, attributes, expected):
    # Given one confirmed subscription with these attributes
    client, stub = sns
    stub.add_response("list_subscriptions_by_topic", listing((SUB, "https")), {"TopicArn": TOPIC})
    stub.add_response("get_subscription_attributes", {"Attributes": attributes}, {"SubscriptionArn": SUB})

    # When / Then the team audience has a subscriber exactly when that filter accepts to=team
    assert SnsNotifier(client, TOPIC).team_subscribed() is expected


def test_pending_subscriptions_are_not_read_and_the_listing_is_paged(sns):
    # Given a pending subscription (no ARN yet) on page one, and the team's subscription on page two
    client, stub = sns
    stub.add_response("list_subscriptions_by_topic", {**listing(("PendingConfirmation", "email")), "NextToken": "p2"},
                      {"TopicArn": TOPIC})
    stub.add_response("list_subscriptions_by_topic", listing((SUB, "email")), {"TopicArn": TOPIC, "NextToken": "p2"})
    stub.add_response("get_subscription_attributes", {"Attributes": {"FilterPolicy": json.dumps({"to": ["team"]})}},
                      {"SubscriptionArn": SUB})

    # When / Then it is found, with one attribute read
    assert SnsNotifier(client, TOPIC).team_subscribed() is True


def test_the_audience_is_listed_once_per_execution_environment(sns, monkeypatch):
    # Given a topic whose team audience has a subscriber
    client, stub = sns
    stub.add_response("list_subscriptions_by_topic", listing((SUB, "email")), {"TopicArn": TOPIC})
    stub.add_response("get_subscription_attributes", {"Attributes": {}}, {"SubscriptionArn": SUB})
    notifier = SnsNotifier(client, TOPIC)

    # When it is asked for every event, hours apart
    clock = iter([0.0, 3600.0, 7200.0])
    monkeypatch.setattr("rule_actions.effects.notify.time.monotonic", lambda: next(clock))

    # Then one listing answers them all (the Stubber refuses any further call)
    assert [notifier.team_subscribed() for _ in range(3)] == [True, True, True]


def test_an_empty_audience_is_listed_again_after_a_while(sns, monkeypatch):
    # Given an empty topic, then a subscriber added by hand (a chat channel)
    client, stub = sns
    stub.add_response("list_subscriptions_by_topic", listing(), {"TopicArn": TOPIC})
    stub.add_response("list_subscriptions_by_topic", listing((SUB, "https")), {"TopicArn": TOPIC})
    stub.add_response("get_subscription_attributes", {"Attributes": {"FilterPolicy": json.dumps({"to": ["team"]})}},
                      {"SubscriptionArn": SUB})
    notifier = SnsNotifier(client, TOPIC)
    clock = iter([0.0, 60.0, 301.0])
    monkeypatch.setattr("rule_actions.effects.notify.time.monotonic", lambda: next(clock))

    # When it is asked now, a minute later, and five minutes later
    # Then the empty answer is kept for five minutes, and the new subscriber is found after
    assert [notifier.team_subscribed() for _ in range(3)] == [False, False, True]


def test_a_topic_of_a_thousand_personal_subscriptions_is_checked_with_a_bounded_number_of_calls(monkeypatch):
    # Given a topic holding 1,000 confirmed subscriptions that the function made for endpoints named in action_json
    # (each filtered to its own address), and no team subscriber
    from moto import mock_aws

    with mock_aws():
        sns = boto3.client("sns", region_name="us-east-1")
        topic = sns.create_topic(Name="rule-actions")["TopicArn"]
        for i in range(1000):
            sns.subscribe(TopicArn=topic, Protocol="email", Endpoint=f"p{i}@example.com",
                          Attributes={"FilterPolicy": json.dumps({"to": [f"p{i}@example.com"]})})
        calls = []
        sns.meta.events.register("before-call.sns", lambda model, **_: calls.append(model.name))
        notifier = SnsNotifier(sns, topic)
        clock = iter([0.0] + [float(t) for t in range(1, 20)])
        monkeypatch.setattr("rule_actions.effects.notify.time.monotonic", lambda: next(clock))

        # When twenty invocations ask within five minutes
        answers = [notifier.team_subscribed() for _ in range(20)]

    # Then one listing answered them all, with 10 pages (moto adds an empty 11th) and 25 filter reads, not 1,000:
    # none of those read accepts team, the rest is not known, so the team message goes out (SNS filters it)
    assert calls.count("ListSubscriptionsByTopic") <= 11 and calls.count("GetSubscriptionAttributes") == 25
    assert answers == [True] * 20


def test_hand_made_subscribers_of_other_protocols_are_read_first(sns):
    # Given 30 personal email subscriptions, then a chat channel's https subscription to the team
    client, stub = sns
    personal = [(f"{TOPIC}:p{i}", "email") for i in range(30)]
    stub.add_response("list_subscriptions_by_topic", listing(*personal, (SUB, "https")), {"TopicArn": TOPIC})
    stub.add_response("get_subscription_attributes", {"Attributes": {"FilterPolicy": json.dumps({"to": ["team"]})}},
                      {"SubscriptionArn": SUB})
    # When / Then the https one is read first and found, with one read
    assert SnsNotifier(client, TOPIC).team_subscribed() is True
