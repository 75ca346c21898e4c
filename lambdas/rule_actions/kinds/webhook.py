"""webhook endpoint=<name>: an HTTPS POST to a webhook declared in the configuration's `webhooks`.

The configuration names the webhook's secret (Secrets Manager, read through effects/webhook.py) and its `format`,
the destination it posts to (destinations/: slack, teams, json, pagerduty), which renders the body, says what the
secret holds and where the request goes. A signed destination's secret holds {"url", "signing_key"}, and its
requests carry

    X-Rule-Actions-Timestamp: <Unix seconds>
    X-Rule-Actions-Signature: sha256=<hex HMAC-SHA256 with signing_key over "<timestamp>.<raw body>">
    X-Rule-Actions-Delivery:  <one id per job, trigger and webhook: the same on every retry> (every destination)

Declared in `rules` and `job_outcomes` only: from `action_json`, anyone who starts a training job could make the
function call out. The URL and the secret's keys never reach a reason, a log line or an error: reasons name the
webhook. Reading the configured secrets is the one grant, on exactly them, for every destination.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple
from urllib.parse import urlsplit

from rule_actions.contract import Arn, Grant, Outcome
from rule_actions.fields import Context, Field, anchored
from rule_actions.kinds.base import Kind
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import (
    Action,
    Done,
    Invalid,
    NothingDone,
    Place,
    Planned,
)
from rule_actions.text import digest, quoted

NAME = r"[A-Za-z0-9_.-]{1,64}"
NAME_RE = re.compile(NAME)
TIMESTAMP_HEADER = "X-Rule-Actions-Timestamp"
SIGNATURE_HEADER = "X-Rule-Actions-Signature"
DELIVERY_HEADER = "X-Rule-Actions-Delivery"
LOOPBACK = ("127.0.0.1", "::1", "localhost")
# A Secrets Manager secret: its name (which cannot look like an ARN), or its ARN.
_SECRET_NAME = r"[A-Za-z0-9/_+=.@-]{1,512}"
SECRET = rf"arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{{12}}:secret:{_SECRET_NAME}|(?!arn:){_SECRET_NAME}"
SECRET_RE = re.compile(SECRET)


class DeclaredWebhook(NamedTuple):
    """A named webhook: the Secrets Manager secret holding its URL and signing key, and its payload format."""

    name: str
    secret: str  # a secret's name or ARN
    format: str  # a destination's name: slack | teams | json | pagerduty


def _webhooks(value: Any, where: str, errors: list[str], formats: tuple[str, ...]) -> tuple[DeclaredWebhook, ...]:
    """`webhooks`: name -> {"secret": a Secrets Manager secret name or ARN, "format": a destination's name}."""
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object of name -> {{secret, format}}")
        return ()
    found = []
    for name, spec in value.items():
        path = f"{where}[{json.dumps(name)}]"
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            errors.append(f"{path}: a webhook name is 1 to 64 letters, digits, '-', '_' or '.'")
            continue
        if not isinstance(spec, Mapping) or set(spec) != {"secret", "format"}:
            errors.append(f"{path}: {quoted(spec)} must be an object with exactly the keys secret, format")
            continue
        secret, fmt = spec["secret"], spec["format"]
        if not (isinstance(secret, str) and SECRET_RE.fullmatch(secret)):
            errors.append(f"{path}.secret: {quoted(secret)} is not a Secrets Manager secret name (letters, digits, "
                          "/_+=.@-; at most 512) or ARN")
            continue
        if fmt not in formats:
            errors.append(f"{path}.format: {quoted(fmt)} is not one of {', '.join(formats)}")
            continue
        found.append(DeclaredWebhook(name, secret, fmt))
    return tuple(found)


class WebhooksField(Field[tuple[DeclaredWebhook, ...]]):
    """`webhooks`: its formats are the destinations the registry lists (the context lends them)."""

    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> tuple[DeclaredWebhook, ...]:
        return _webhooks(value, where, errors, tuple(ctx.destinations()))

    def dump(self, value: tuple[DeclaredWebhook, ...], ctx: Context) -> Any:
        return {w.name: {"secret": w.secret, "format": w.format} for w in value}

    def schema(self, ctx: Context) -> dict[str, Any]:
        formats = ctx.destinations()
        return {"type": "object", "propertyNames": {"pattern": anchored(NAME)},
                "additionalProperties": {
                    "type": "object", "additionalProperties": False, "required": ["secret", "format"],
                    "properties": {
                        "secret": {"type": "string", "pattern": anchored(SECRET),
                                   "description": "The Secrets Manager secret (its name or ARN) holding "
                                                  "{\"url\", \"signing_key\"}, or what its format says."},
                        "format": {"enum": list(formats), "description": "The payload: " + ", ".join(
                            f"{name} ({doc})" for name, doc in formats.items()) + "."}}}}


WEBHOOKS = WebhooksField(
    "webhooks", (),
    "Name -> {secret: a Secrets Manager secret name or ARN holding {\"url\", \"signing_key\"} (or what its format "
    "says), format: the destination (its enum)}; attach {name: webhook, endpoint: <name>} in rules or job_outcomes.")


def declared_webhook(config: Any, name: str) -> DeclaredWebhook | None:
    return next((w for w in config[WEBHOOKS] if w.name == name), None)


def secret_resource(webhook: DeclaredWebhook) -> Arn | str:
    """The IAM resource of a webhook's secret: its ARN as configured, or for a name the ARN Secrets Manager gives
    it (the name, a hyphen and six random characters)."""
    return webhook.secret if webhook.secret.startswith("arn:") else Arn("secretsmanager", "secret",
                                                                         f"{webhook.secret}-??????", colon=True)


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
    return f"its url's scheme is {quoted(parts.scheme, 16)}: only https (plain http only to 127.0.0.1, ::1 or localhost, locally)"


class WebhookKind(Kind):
    name = "webhook"
    keys = ("endpoint",)
    required = ("endpoint",)
    key_schemas: ClassVar = {"endpoint": {"type": "string", "pattern": anchored(NAME)}}
    places = frozenset((Place.RULES, Place.JOB_OUTCOMES))
    fields = (WEBHOOKS,)

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        endpoint = entry.get("endpoint")
        if not isinstance(endpoint, str) or not NAME_RE.fullmatch(endpoint):
            return Invalid(f"{where}.endpoint", f"{quoted(endpoint)} is not a webhook name (1 to 64 letters, digits, "
                                                "'-', '_' or '.'; declared in webhooks)", self.name)
        return Action(self.name, endpoint)

    def as_dict(self, action: Action) -> dict[str, str]:
        return {"endpoint": str(action.target), "name": self.name}

    def preview(self, item: Planned) -> str:
        return f"would post to webhook {item.target}"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        hooks = ports.webhooks
        hook = declared_webhook(occasion.config, item.target)
        if hook is None:  # (the configuration refuses an action naming a webhook it does not declare)
            raise LookupError(f"webhook {item.target} is not declared in webhooks")
        destination = occasion.config.destination(hook.format)
        secret = hooks.secret(hook, destination.secret_keys, destination.secret_shape)
        url = destination.url(secret)
        problem = url_problem(url, hooks.loopback_http) or destination.refusal(url, hooks.loopback_http)
        if problem:
            hooks.read_afresh(hook)
            return NothingDone(Outcome.FAILED, f"webhook {hook.name}: the secret {hook.secret} is unusable: {problem}")
        delivery = digest(f"{occasion.event.job_arn}\n{item.trigger.label}\n{hook.name}")[:32]
        body = destination.body(occasion, delivery, secret)
        headers = {DELIVERY_HEADER: delivery}
        if destination.signed:
            now = int(time.time())
            headers = {TIMESTAMP_HEADER: str(now), SIGNATURE_HEADER: sign(str(secret["signing_key"]), now, body),
                       DELIVERY_HEADER: delivery}
        status, attempts = hooks.post(hook, url, body, headers)
        tries = f", attempt {attempts}" if attempts > 1 else ""
        return Done(f"delivered to webhook {hook.name} ({hook.format}; HTTP {status}{tries})")

    def check_config(self, config: Configured, where: str) -> list[str]:
        declared = ", ".join(w.name for w in config[WEBHOOKS]) or "none"
        return [f"{d.where}: webhook {quoted(d.action.target)} is not declared in webhooks (declared: {declared})"
                for d in self.declared(config) if declared_webhook(config, str(d.action.target)) is None]

    def test_actions(self, config: Configured) -> tuple[Action, ...]:
        return tuple(Action(self.name, w.name) for w in config[WEBHOOKS])

    def stack_parts(self, config: Configured) -> list[Any]:
        hooks = config[WEBHOOKS]
        if not hooks:
            return []
        formats = dict.fromkeys(w.format for w in hooks)
        return [Grant("ReadWebhookSecrets", ("secretsmanager:GetSecretValue",),
                      tuple(dict.fromkeys(secret_resource(w) for w in hooks))),
                *(part for fmt in formats for part in config.destination(fmt).stack_parts(
                    tuple(dict.fromkeys(secret_resource(w) for w in hooks if w.format == fmt))))]


KIND = WebhookKind()
