"""Test notifications (`rule-actions test-notify`): one clearly marked message to every destination the stack
reaches (the team and its chat channels, each webhook) plus the email addresses and numbers the request adds.

The request is an invocation of its own, never an EventBridge event: {"rule_actions_test_notification": {"id",
"emails", "sms"}}. Its ledger keys hold the request's id, never a job's: a test never uses up a real event's
exactly-once record, and a retried request sends nothing twice. It is about no job, so nothing is stopped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from rule_actions.contract import TEST_EVENT_KEY
from rule_actions.ports import Configured, Occasion
from rule_actions.records import (
    Action,
    IgnoredEvent,
    Invalid,
    JobEvent,
    Message,
    Need,
    Origin,
    Place,
    Trigger,
    TriggerFacts,
)
from rule_actions.text import SMS_MAX, one_line, quoted
from rule_actions.triggers.base import FOOTER, Entry, TriggerFamily

ID_RE = re.compile(r"[A-Za-z0-9-]{8,64}")
MAX_ENDPOINTS = 10
KEYS = {"emails": "email", "sms": "sms"}  # the request's lists -> the kind of each endpoint


@dataclass(frozen=True)
class TestNotification(Trigger):
    """A test request: `entries` are the email and sms actions it adds."""

    TYPE = "test"
    request_id: str
    entries: tuple[Action | Invalid, ...] = ()
    __test__ = False  # not a pytest test class, whatever its name

    @property
    def label(self) -> str:
        return "test"

    @property
    def ledger_fields(self) -> dict[str, str]:
        return {"test": self.request_id}

    @property
    def metric(self) -> str:
        return "test"


class TestNotifications(TriggerFamily[TestNotification]):
    type = TestNotification.TYPE
    record = TestNotification

    def metric_values(self, outcomes: Sequence[str]) -> tuple[str, ...]:
        return (TestNotification("").metric,)
    __test__ = False

    def request(self, raw: Any, region: str, config: Configured) -> tuple[JobEvent, TestNotification] | None:
        if not (isinstance(raw, Mapping) and TEST_EVENT_KEY in raw):
            return None
        request, where = raw[TEST_EVENT_KEY], TEST_EVENT_KEY
        if not isinstance(request, Mapping) or set(request) - {"id", *KEYS}:
            raise IgnoredEvent(f"{where}: must be an object with the keys id, {', '.join(KEYS)} ({quoted(request)})")
        request_id = request.get("id")
        if not isinstance(request_id, str) or not ID_RE.fullmatch(request_id):
            raise IgnoredEvent(f"{where}.id: {quoted(request_id)} is not a request id (8 to 64 letters, digits or '-')")
        entries: list[Action | Invalid] = []
        for key, kind in KEYS.items():
            endpoints = request.get(key, [])
            if not isinstance(endpoints, list) or len(endpoints) > MAX_ENDPOINTS:
                raise IgnoredEvent(f"{where}.{key}: must be a list of at most {MAX_ENDPOINTS} endpoints "
                                   f"({quoted(endpoints)})")
            entries += [config.grammar.entry({"name": kind, "endpoint": endpoint}, f"{where}.{key}[{index}]",
                                             Place.RULES) for index, endpoint in enumerate(endpoints)]
        event = JobEvent(
            family=None, event_id=request_id, account="", region=region,
            time=datetime.now(UTC).isoformat(timespec="seconds"), replay_name=None,
            job_name="rule-actions-test-notification", job_arn=f"rule-actions:test-notification:{request_id}",
            job_status="", secondary_status=None,
        )
        return event, TestNotification(request_id, tuple(entries))

    def entries(self, trigger: TestNotification, event: JobEvent, config: Configured,
                answers: dict[Need, Any]) -> list[Entry] | Need:
        return [(entry, Origin.TEST_REQUEST) for entry in (*config.test_actions, *trigger.entries)]

    def words(self, occasion: Occasion) -> Message:
        request = one_line(cast(TestNotification, occasion.trigger).request_id, 64)
        return Message(
            subject="[rule-actions] TEST notification: this destination is wired correctly",
            body="\n".join([
                "TEST NOTIFICATION - nothing happened to any job.",
                "",
                "This message was sent by `rule-actions test-notify` to every destination the stack is configured to",
                "reach (the team, its chat channels, its webhooks), so that you can check the wiring before a real",
                "failure. No job was stopped and no exactly-once record of a real event was used.",
                "",
                f"Request: {request}",
                "",
                f"{FOOTER} (test notification).",
            ]),
            short=one_line(f"rule-actions TEST notification ({request}): this destination is wired correctly", SMS_MAX),
        )

    def facts(self, trigger: TestNotification, event: JobEvent) -> TriggerFacts:
        return TriggerFacts(type=self.type, fields={"outcome": None, "rule": None, "rule_family": None,
                                                    "rule_status": None},
                            keywords=("test",), reason=None, mark="\U0001f9ea", about_job=False)


FAMILY = TestNotifications()
