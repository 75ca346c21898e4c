"""webhook endpoint=<name>: a signed HTTPS POST to a webhook declared in the configuration's `webhooks`.

The secret (Secrets Manager, read through effects/webhook.py) holds {"url", "signing_key"}; the configuration
names the secret and the payload format (slack, teams, json: payloads.py). Every request carries

    X-Rule-Actions-Timestamp: <Unix seconds>
    X-Rule-Actions-Signature: sha256=<hex HMAC-SHA256 with signing_key over "<timestamp>.<raw body>">
    X-Rule-Actions-Delivery:  <one id per job, trigger and webhook: the same on every retry>

Declared in `rules` and `job_outcomes` only: from `action_json`, anyone who starts a training job could make the
function call out. The URL and the key never reach a reason, a log line or an error: reasons name the webhook.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from typing import Any
from urllib.parse import urlsplit

from rule_actions import messages, payloads
from rule_actions.contract import Outcome
from rule_actions.kinds.base import JOB_OUTCOMES, RULES, Kind, NotDone
from rule_actions.records import Action, Invalid, show

NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
TIMESTAMP_HEADER = "X-Rule-Actions-Timestamp"
SIGNATURE_HEADER = "X-Rule-Actions-Signature"
DELIVERY_HEADER = "X-Rule-Actions-Delivery"
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def sign(key: str, timestamp: int, body: bytes) -> str:
    """The X-Rule-Actions-Signature value: HMAC-SHA256 over "<timestamp>.<raw body>", hex."""
    digest = hmac.new(key.encode("utf-8"), str(timestamp).encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def url_problem(url: Any, loopback_http: bool) -> str | None:
    """Why a secret's url cannot be posted to, or None. https only; plain http only to a loopback address and
    only where `loopback_http` (a local replay, never inside Lambda). The url itself is never quoted."""
    if not isinstance(url, str) or not url:
        return "its url is missing or not a string"
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 (raises ValueError on a port that is not a number)
    except ValueError:
        return "its url cannot be parsed"
    if not host:
        return "its url has no host"
    if parts.username is not None or parts.password is not None:
        return "its url carries user info (credentials in a URL are refused)"
    if parts.scheme == "https":
        return None
    if parts.scheme == "http" and host in LOOPBACK:
        return None if loopback_http else "its url is plain http to a loopback address: allowed only in a local replay"
    return f"its url's scheme is {show(parts.scheme, 16)}: only https (plain http only to 127.0.0.1, ::1 or localhost, locally)"


class Webhook(Kind):
    name = "webhook"
    keys = ("endpoint",)
    places = frozenset((RULES, JOB_OUTCOMES))

    def parse(self, entry, where):
        endpoint = entry.get("endpoint")
        if not isinstance(endpoint, str) or not NAME_RE.fullmatch(endpoint):
            return Invalid(f"{where}.endpoint", f"{show(endpoint)} is not a webhook name (1 to 64 letters, digits, "
                                                "'-', '_' or '.'; declared in webhooks)", self.name)
        return Action(self.name, endpoint)

    def as_dict(self, action):
        return {"endpoint": str(action.target), "name": self.name}

    def preview(self, item):
        return f"would post to webhook {item.target}"

    def carry_out(self, item, event, effects, taken):
        hooks = effects.webhooks
        hook = hooks.declared(item.target)
        url, key = hooks.secret(hook)
        problem = url_problem(url, hooks.loopback_http)
        if problem:
            hooks.read_afresh(hook)
            raise NotDone(Outcome.FAILED, f"webhook {hook.name}: the secret {hook.secret} is unusable: {problem}")
        delivery = payloads.digest(f"{event.job_arn}\n{item.trigger.label}\n{hook.name}")[:32]
        message = messages.render(event, item.trigger, effects.region, taken)
        body = payloads.webhook_body(hook.format, message, event, item.trigger, effects.region, taken, delivery)
        now = int(time.time())
        headers = {TIMESTAMP_HEADER: str(now), SIGNATURE_HEADER: sign(key, now, body), DELIVERY_HEADER: delivery}
        status, attempts = hooks.post(hook, url, body, headers)
        tries = f", attempt {attempts}" if attempts > 1 else ""
        return {"reason": f"delivered to webhook {hook.name} ({hook.format}; HTTP {status}{tries})"}


KIND = Webhook()
