"""The handler against moto: an SNS topic, the ledger table and SageMaker (with our StopTrainingJob)."""

from __future__ import annotations

import json
import threading
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from builders import ACCOUNT, REGION, function_resources
from moto import mock_aws
from moto.core.botocore_stubber import BotocoreStubber
from moto.server import ThreadedMotoServer
from moto.sns.models import sns_backends
from moto.sns.utils import FilterPolicyMatcher

from rule_actions import handler
from rule_actions.handler import ActionsFailed
from rule_actions_cli.embedded import LocalContext
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

TABLE = "rule-actions-ledger"


def LambdaContext() -> LocalContext:
    return LocalContext("rule-actions", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:rule-actions")


@dataclass
class Account:
    topic_arn: str
    monkeypatch: pytest.MonkeyPatch
    calls: list[str] = field(default_factory=list)  # every AWS operation the handler's clients made

    def configure(self, **config: Any) -> None:
        """Set the function's configuration (the RULE_ACTIONS_CONFIG environment variable) for the next calls,
        and subscribe the team as the stack does: filter policy {"to": ["team"]}."""
        self.monkeypatch.setenv("RULE_ACTIONS_CONFIG", json.dumps(config))
        handler.runtime.cache_clear()
        sns = boto3.client("sns", region_name=REGION)
        notify = config.get("notify", {})
        for protocol, endpoints in (("email", notify.get("emails", [])), ("sms", notify.get("sms", []))):
            for endpoint in endpoints:
                sns.subscribe(
                    TopicArn=self.topic_arn,
                    Protocol=protocol,
                    Endpoint=endpoint,
                    Attributes={"FilterPolicy": json.dumps({"to": ["team"]})},
                )

    def invoke(self, event: Any) -> dict[str, Any]:
        self.effects()  # the clients exist and are counted
        return handler.lambda_handler(event, LambdaContext())

    def effects(self) -> Any:
        """The function's effects (created on first use, like at cold start), with their AWS calls counted."""
        effects = handler.runtime()[1]
        for client in (effects.jobs.client, effects.notifier.client, effects.ledger.client):
            if not getattr(client, "_counted", False):
                client.meta.events.register("before-call", lambda model, **_: self.calls.append(model.name))
                client._counted = True
        return effects

    def at_once(self, event: Any, copies: int = 4) -> list[ActionsFailed]:
        """`event` delivered `copies` times at once (threads): the invocations that failed, each "in progress in a
        concurrent invocation" when the ledger works (Lambda retries those)."""
        self.effects()
        errors: list[ActionsFailed] = []

        def deliver_once() -> None:
            try:
                self.invoke(event)
            except ActionsFailed as err:
                errors.append(err)

        threads = [threading.Thread(target=deliver_once) for _ in range(copies)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return errors

    def put_job(self, name: str, status: str = "InProgress", **rules: Any) -> str:
        return moto_sagemaker.put_training_job(name, status, **rules)

    def status(self, name: str) -> str:
        return moto_sagemaker.training_job_status(name)

    def inbox(self, endpoint: str) -> list[dict[str, Any]]:
        """The messages SNS delivers to `endpoint`'s subscription (after its filter policy)."""
        topic = sns_backends[ACCOUNT][REGION].topics[self.topic_arn]
        subs = [s for s in sns_backends[ACCOUNT][REGION].subscriptions.values() if s.endpoint == endpoint]
        received = []
        for sub in subs:
            policy = json.loads(sub.attributes.get("FilterPolicy") or "{}")
            matcher = FilterPolicyMatcher(policy, sub.attributes.get("FilterPolicyScope"))
            for _id, message, subject, attributes, _group in topic.sent_notifications:
                if matcher.matches(attributes, message):
                    received.append({"subject": subject, **json.loads(message)})
        return received

    @property
    def published(self) -> list[tuple[str, dict[str, Any]]]:
        """Every publish: (the `to` attribute, the JSON message structure)."""
        topic = sns_backends[ACCOUNT][REGION].topics[self.topic_arn]
        return [(attrs["to"]["Value"], json.loads(msg)) for _id, msg, _s, attrs, _g in topic.sent_notifications]


@pytest.fixture
def atomic_requests(monkeypatch):
    """Each AWS request is atomic, as DynamoDB's conditional writes are. moto's in-process backends are not
    thread-safe: its PutItem reads the item, evaluates the condition and writes without a lock, so two threads
    can both "create" the same ledger record (observed: a notify done twice under load, a stop made twice by four
    concurrent deliveries about once in 25 runs). Serializing moto's request handling keeps the handler's own
    concurrency (between calls) and removes only that artefact."""
    lock = threading.Lock()
    process = BotocoreStubber.process_request

    def serialized(self, request):
        with lock:
            return process(self, request)

    monkeypatch.setattr(BotocoreStubber, "process_request", serialized)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch):
    with mock_aws():
        topic_arn = function_resources(monkeypatch, "rule-actions", TABLE)
        account = Account(topic_arn, monkeypatch)
        account.configure()
        yield account
        handler.runtime.cache_clear()


@pytest.fixture
def server_sagemaker():
    """A SageMaker client talking HTTP to a moto server on a free port of 127.0.0.1 (this process), with the
    project's calls installed."""
    moto_sagemaker.install()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        url = f"http://{host}:{port}"
        # The server never resets by itself: start from empty backends.
        urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/reset", method="POST"), timeout=5)
        yield boto3.client("sagemaker", region_name=REGION, endpoint_url=url)
    finally:
        server.stop()
