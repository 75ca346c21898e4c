"""What a destination is: one object per destination (destinations/<name>.py), holding everything about it.

A destination is where the `webhook` kind posts (kinds/webhook.py: the declaration in `webhooks`, the signed
request, the secret's cache and the transport in effects/webhook.py are the kind's, the same for every destination);
the destination says what goes out and what its secret holds:

    name, doc             the value of a webhook's `format`, and its words in the configuration schema
    secret_keys           the members its secret must hold as non-empty strings (never in a log, result or error:
                          the body is never logged, and reasons name the webhook and its secret's name only)
    secret_shape          those members, as the error about an unusable secret says them
    signed                whether the request carries X-Rule-Actions-Timestamp and -Signature (HMAC with the
                          secret's signing_key); X-Rule-Actions-Delivery is on every request
    url, refusal          where it posts (from the secret, or its own), and why a URL is not its (None: it is)
    payload               the body, from the same Message and TriggerFacts every message is made of
    stack_parts           what it asks of the stack beyond reading its secret (which the kind grants, on exactly
                          the configured secrets, only when a webhook is configured): records plugins.py builds
    receives, problems, describe
                          the replay's receiver (rule_actions_cli/receiver.py): the loopback URL of a secret of
                          its own, what is wrong with a body it received, and a body in a few words

Redaction is not per destination: every result, log line and error goes through privacy.redact.
Adding a destination: a module with a `Destination` subclass and its line in rule_actions/registry.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from rule_actions.ports import Occasion
from rule_actions.records import Trigger, TriggerFacts
from rule_actions.text import DETAILS_MAX, NAME_MAX, cap, plain

TEXT_MAX = DETAILS_MAX  # a reason, a detail (an exit message, a step's cause), an action's target and reason, a label
BODY_MAX = 8192  # a message's text in a body
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class Destination:
    name: ClassVar[str] = ""
    doc: ClassVar[str] = ""
    secret_keys: ClassVar[tuple[str, ...]] = ("signing_key",)
    secret_shape: ClassVar[str] = "a url and a non-empty signing_key"
    signed: ClassVar[bool] = True

    def url(self, secret: Mapping[str, Any]) -> Any:
        """Where the request goes: the secret's url."""
        return secret.get("url")

    def refusal(self, url: str, loopback_http: bool) -> str | None:
        """Why `url` (https, or plain http to a loopback address in a local replay) is not this destination's;
        None: any such URL is (the URL itself is never quoted)."""
        return None

    def payload(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def body(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> bytes:
        """The raw body: compact JSON, UTF-8."""
        return encoded(self.payload(occasion, delivery, secret))

    def stack_parts(self, secrets: tuple[Any, ...]) -> list[Any]:
        """What it asks of the stack for webhooks of its format (`secrets`: their secrets' IAM resources), beyond
        reading those secrets."""
        return []

    # The replay's receiver (rule_actions_cli/receiver.py).

    def receives(self, secret: Mapping[str, Any]) -> str | None:
        """The URL a secret of this destination posts to, when the secret is one of its own; else None."""
        url = secret.get("url")
        return url if isinstance(url, str) and isinstance(secret.get("signing_key"), str) else None

    def problems(self, secret: Mapping[str, Any], body: Any) -> list[str]:
        """What is wrong with a body received for this secret (a signed body's signature is the receiver's)."""
        return []

    def describe(self, body: Any) -> str | None:
        """A body of this destination in a few words (one line); None for another's."""
        return None


def encoded(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def label(trigger: Trigger, facts: TriggerFacts) -> str:
    """The trigger's label as a payload shows it (made plain and capped when it comes from a job's event)."""
    return plain(trigger.label, NAME_MAX) if facts.about_job else trigger.label


def bounded(value: Any, limit: int = TEXT_MAX) -> Any:
    """`value` with every string in it cut to `limit` (the payload's own structures: a few levels deep)."""
    if isinstance(value, str):
        return cap(value, limit)
    if isinstance(value, dict):
        return {key: bounded(item, limit) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [bounded(item, limit) for item in value]
    return value
