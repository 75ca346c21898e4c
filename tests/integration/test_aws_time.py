"""AWS calls against real sockets on 127.0.0.1 and moto: explicit timeouts, retries within each call's budget and the
invocation's remaining time (so one stalled service cannot keep the other actions from being attempted), and a
Publish whose answer is lost never sent twice by the client."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from botocore.exceptions import ConnectionClosedError, EndpointConnectionError, ReadTimeoutError
from builders import SDK_ACTIONS, event, rule_config, rule_status
from moto.core.models import botocore_stubber

from rule_actions import effects, handler
from rule_actions.effects import NoTimeLeft, begin_invocation, client
from rule_actions.handler import ActionsFailed
from rule_actions_cli.embedded import LocalContext

TOPIC = "arn:aws:sns:us-east-1:123456789012:rule-actions"


class Endpoint:
    """A TCP endpoint on 127.0.0.1 that reads each request and then `stall`s (never answers) or `hangs up`."""

    def __init__(self, behaviour: str):
        self.behaviour, self.requests = behaviour, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.open: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            conn.recv(65536)
            self.requests += 1
            if self.behaviour == "hang up":
                conn.close()
            else:
                self.open.append(conn)  # kept open, never answered

    def close(self) -> None:
        self.listener.close()
        for conn in self.open:
            conn.close()


@pytest.fixture
def endpoint():
    made = []

    def make(behaviour: str) -> Endpoint:
        made.append(Endpoint(behaviour))
        return made[-1]

    yield make
    for item in made:
        item.close()


@pytest.fixture
def quick(monkeypatch):
    """The same rules at a tenth of the time: 0.2 s to connect, 0.5 s per read, 1 s per call."""
    monkeypatch.setattr(effects, "CONNECT_TIMEOUT", 0.2)
    monkeypatch.setattr(effects, "READ_TIMEOUT", 0.5)
    monkeypatch.setattr(effects, "CALL_BUDGET", 1.0)
    monkeypatch.setattr(effects, "_invocation", {"ends": float("inf")})


def sns_at(url: str, monkeypatch) -> object:
    monkeypatch.setenv("AWS_ENDPOINT_URL_SNS", url)
    return client("sns", "us-east-1")


# --- timeouts and budgets -------------------------------------------------------------------------------------


def test_every_client_has_explicit_timeouts_and_three_attempts():
    config = client("sns", "us-east-1").meta.config
    assert (config.connect_timeout, config.read_timeout) == (2.0, 5.0)  # botocore's defaults: 60 s each
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}


def test_a_stalled_call_ends_at_its_read_timeout_and_is_not_retried_past_its_budget(endpoint, quick, monkeypatch):
    # Given an SNS endpoint that takes requests and never answers
    stalled = endpoint("stall")
    sns = sns_at(stalled.url, monkeypatch)

    # When a read is made (reads are retried on a timeout, within the call's budget)
    started = time.monotonic()
    with pytest.raises(ReadTimeoutError):
        sns.list_subscriptions_by_topic(TopicArn=TOPIC)

    # Then one attempt of 0.5 s: a second (up to 1 s of backoff + 0.7 s) would not fit the 1 s budget
    assert stalled.requests == 1 and time.monotonic() - started < 0.9


def test_no_call_starts_that_could_not_finish_before_the_invocation_ends(endpoint, monkeypatch):
    # Given an invocation with 5 s left (one attempt may take 2 + 5 s, and 1 s is kept to return the result)
    stalled = endpoint("stall")
    sns = sns_at(stalled.url, monkeypatch)
    begin_invocation(LocalContext("f", "arn", remaining_millis=5_000))
    try:
        # When a call is made, Then it is refused before anything is sent
        with pytest.raises(NoTimeLeft, match="ListSubscriptionsByTopic not attempted: less than 7 s"):
            sns.list_subscriptions_by_topic(TopicArn=TOPIC)
    finally:
        begin_invocation(None)
    assert stalled.requests == 0


def test_with_sns_stalled_every_action_is_attempted_within_the_invocation(aws, endpoint, quick, monkeypatch):
    # Given a team to notify, a job whose rule asks for a stop and an email, and SNS that never answers
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    stalled = endpoint("stall")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SNS", stalled.url)
    handler.runtime.cache_clear()  # the clients are made anew, SNS's pointed at the stalled endpoint

    # When the IssuesFound event arrives
    with pytest.raises(ActionsFailed) as failure:
        aws.invoke(event(job="demo-job-001", debug=[rule_status("VanishingGradient", job="demo-job-001")],
                         debug_configs=[rule_config("VanishingGradient", SDK_ACTIONS)]))

    # Then the stop is done, and each message was attempted once and failed on its own timeout: no retries past the
    # calls' budgets (counted, not timed: a busy machine stretches the seconds, not the attempts)
    outcomes = {a["kind"]: (a["outcome"], a["reason"]) for a in failure.value.result["actions"]}
    assert outcomes["stoptraining"][0] == "done" and aws.status("demo-job-001") == "Stopping"
    assert outcomes["email"][0] == outcomes["notify"][0] == "failed"
    assert "ReadTimeoutError" in outcomes["email"][1] and "ReadTimeoutError" in outcomes["notify"][1]
    assert stalled.requests == 3  # the team's subscriptions read, the email's subscribe, the team's publish


# --- a send whose answer is lost ------------------------------------------------------------------------------


def test_a_publish_whose_connection_drops_after_sending_is_not_sent_again(endpoint, monkeypatch):
    # Given an SNS endpoint that reads the request and hangs up without an answer (it may have published)
    lost = endpoint("hang up")
    sns = sns_at(lost.url, monkeypatch)

    # When a message is published
    with pytest.raises(ConnectionClosedError):
        sns.publish(TopicArn=TOPIC, Message="hello")

    # Then it was sent once: the client never repeats a send that may have been delivered
    assert lost.requests == 1


def test_a_read_whose_connection_drops_is_retried(endpoint, monkeypatch):
    lost = endpoint("hang up")
    sns = sns_at(lost.url, monkeypatch)
    with pytest.raises(ConnectionClosedError):
        sns.list_subscriptions_by_topic(TopicArn=TOPIC)
    assert lost.requests == 3  # harmless to repeat: the standard three attempts


def test_a_publish_that_could_not_connect_is_retried(monkeypatch):
    # Given nothing listening (the connection is refused: the message never left)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sns = sns_at(f"http://127.0.0.1:{port}", monkeypatch)
    attempts = []
    sns.meta.events.register("before-send.sns.Publish", lambda **_: attempts.append(1))
    with pytest.raises(EndpointConnectionError):
        sns.publish(TopicArn=TOPIC, Message="hello")
    assert len(attempts) == 3


class LostAnswer:
    """SNS publishes the message (moto answers), then the answer is lost on the way back (a read timeout)."""

    def __init__(self, sns_client, times: int = 1):
        self.remaining, self.attempts = times, 0
        sns_client.meta.events.register_first("before-send.sns.Publish", self)

    def __call__(self, request, **_):
        self.attempts += 1
        if self.remaining <= 0:
            return None
        self.remaining -= 1
        answered = botocore_stubber("before-send.sns.Publish", request)  # moto has published it
        assert answered is not None and answered.status_code == 200
        raise ReadTimeoutError(endpoint_url=request.url)


def test_a_lost_publish_answer_fails_the_message_once_and_the_documented_window_sends_it_on_redelivery(aws):
    # Given a job whose rule emails someone, and SNS whose first answer to a Publish is lost after it published
    aws.put_job("demo-job-001")
    lost = LostAnswer(aws.effects().notifier.client)
    raw = event(job="demo-job-001", debug=[rule_status("VanishingGradient", job="demo-job-001")],
                debug_configs=[rule_config("VanishingGradient", SDK_ACTIONS)])

    # When the event arrives
    with pytest.raises(ActionsFailed) as failure:
        aws.invoke(raw)

    # Then the message went out once and the client did not send it again: the email is failed, not recorded
    [email] = [a for a in failure.value.result["actions"] if a["kind"] == "email"]
    assert email["outcome"] == "failed" and email["reason"].startswith("ReadTimeoutError")
    assert lost.attempts == 1 and len(aws.inbox("ml@example.com")) == 1

    # When Lambda redelivers the event (twice)
    retry, again = aws.invoke(raw), aws.invoke(raw)

    # Then the email is sent again once (the documented window: a lost answer means at most one more copy per
    # delivery), recorded, and never again
    assert [a["outcome"] for a in retry["actions"] if a["kind"] == "email"] == ["done"]
    assert [a["outcome"] for a in again["actions"] if a["kind"] == "email"] == ["duplicate"]
    assert len(aws.inbox("ml@example.com")) == 2
