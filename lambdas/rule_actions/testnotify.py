"""A test notification request (`rule-actions test-notify`): {TEST_EVENT_KEY: {"id": ..., "emails": [...],
"sms": [...]}}, sent by invoking the function directly (never by EventBridge).

It becomes one trigger, `TestNotification`, on a stand-in event about no job: `notify` (the team and its chat
channels), every configured webhook, and the email addresses and numbers the request names, each decided by
the same policy as real actions (allowed_endpoints, dry_run) and carried out behind the ledger under the
request's own id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from rule_actions.actions import EMAIL, RULES, SMS, parse_entry
from rule_actions.contract import TEST_EVENT_KEY
from rule_actions.model import IgnoredEvent, JobEvent, TestNotification
from rule_actions.records import show

ID_RE = re.compile(r"[A-Za-z0-9-]{8,64}")
MAX_ENDPOINTS = 10


def is_request(raw: Any) -> bool:
    return isinstance(raw, Mapping) and TEST_EVENT_KEY in raw


def parse(raw: Mapping[str, Any], region: str) -> tuple[JobEvent, TestNotification]:
    """The stand-in event and the trigger; IgnoredEvent naming the field when the request is malformed."""
    request = raw[TEST_EVENT_KEY]
    where = TEST_EVENT_KEY
    if not isinstance(request, Mapping) or set(request) - {"id", "emails", "sms"}:
        raise IgnoredEvent(f"{where}: must be an object with the keys id, emails, sms ({show(request)})")
    request_id = request.get("id")
    if not isinstance(request_id, str) or not ID_RE.fullmatch(request_id):
        raise IgnoredEvent(f"{where}.id: {show(request_id)} is not a request id (8 to 64 letters, digits or '-')")
    entries = []
    for key, kind in (("emails", EMAIL), ("sms", SMS)):
        endpoints = request.get(key, [])
        if not isinstance(endpoints, list) or len(endpoints) > MAX_ENDPOINTS:
            raise IgnoredEvent(f"{where}.{key}: must be a list of at most {MAX_ENDPOINTS} endpoints ({show(endpoints)})")
        entries += [parse_entry({"name": kind, "endpoint": endpoint}, f"{where}.{key}[{index}]", RULES)
                    for index, endpoint in enumerate(endpoints)]
    event = JobEvent(
        event_id=request_id, account="", region=region, time=datetime.now(UTC).isoformat(timespec="seconds"),
        replay_name=None, job_name="rule-actions-test-notification", job_arn=f"rule-actions:test-notification:{request_id}",
        job_status="", secondary_status=None, rules=(), rule_parameters={},
    )
    return event, TestNotification(request_id, tuple(entries))
