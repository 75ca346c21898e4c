"""Webhooks: read a webhook's secret (Secrets Manager, cached per execution environment by Powertools' parameters
utility) and POST a signed body with retries. The only module that talks HTTP.

Delivery: a short timeout per attempt; 429, 408 and 5xx answers and network errors are retried with exponential
backoff (honouring Retry-After) while the function has time left; any other answer is final. Redirects are
never followed: a 3xx is a failure that says so (the configured URL is stale, and a signed body should not go
where nobody configured it). Every failure raises WebhookFailed with a reason built from the status code or the
exception's type alone: the URL, the key and the receiver's own words never reach a log line or a result.
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any

from rule_actions.ports import Webhook
from rule_actions.text import error_code, error_message

SECRET_MAX_AGE = 300  # seconds a secret is cached; a rotated URL or key is used within five minutes
TIMEOUT = 5.0  # seconds per attempt (connect, and each read)
ATTEMPTS = 4
BACKOFF = 0.5  # seconds before the second attempt, doubling (with jitter) after
RESERVE = 5.0  # seconds of the function's time left for the other actions and the ledger
RETRIED = frozenset({408, 429})


class WebhookFailed(Exception):
    """A delivery failed; the message names the webhook and why, never its URL or key."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirects)


class Webhooks:
    def __init__(self, hooks: tuple[Webhook, ...], secrets_client: Callable[[], Any], loopback_http: bool,
                 timeout: float = TIMEOUT, attempts: int = ATTEMPTS, backoff: float = BACKOFF):
        self.hooks = {hook.name: hook for hook in hooks}
        self.loopback_http = loopback_http  # plain http to a loopback address: a local replay only
        self.timeout, self.attempts, self.backoff = timeout, attempts, backoff
        self._secrets_client = secrets_client
        self._provider: Any = None
        self._stale: set[str] = set()  # secrets to read afresh (their webhook failed for good)
        self._deadline: float | None = None

    def register(self, lambda_context: Any) -> None:
        """Retries stop RESERVE seconds before the invocation's time runs out."""
        if lambda_context is not None:
            self._deadline = time.monotonic() + lambda_context.get_remaining_time_in_millis() / 1000 - RESERVE

    def declared(self, name: str) -> Webhook:
        return self.hooks[name]

    def read_afresh(self, hook: Webhook) -> None:
        """The next read of this webhook's secret skips the cache: someone may be correcting it."""
        self._stale.add(hook.secret)

    def secret(self, hook: Webhook) -> tuple[str, str]:
        """(url, signing_key) from the webhook's secret string, {"url": ..., "signing_key": ...}."""
        if self._provider is None:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider

            self._provider = SecretsProvider(boto3_client=self._secrets_client())
        fresh = hook.secret in self._stale
        try:
            raw = self._provider.get(hook.secret, max_age=SECRET_MAX_AGE, force_fetch=fresh)
        except Exception as err:  # Powertools wraps the AWS error: name its code and message (never the value)
            cause = err.__cause__ or err
            raise WebhookFailed(f"webhook {hook.name}: the secret {hook.secret} cannot be read "
                                f"({error_code(cause)}: {error_message(cause)})") from None
        self._stale.discard(hook.secret)
        try:
            value = json.loads(raw)
        except (TypeError, ValueError):
            value = None
        if not (isinstance(value, Mapping) and isinstance(value.get("signing_key"), str) and value["signing_key"]):
            self.read_afresh(hook)
            raise WebhookFailed(f"webhook {hook.name}: the secret {hook.secret} is not a JSON object with a url "
                                "and a non-empty signing_key")
        return value.get("url"), value["signing_key"]

    def post(self, hook: Webhook, url: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, int]:
        """POST until a final answer: (2xx status, attempts). Raises WebhookFailed."""
        deadline = self._deadline if self._deadline is not None else time.monotonic() + 60 - RESERVE
        request_headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "rule-actions", **headers}
        attempt = 0
        while True:
            attempt += 1
            left = deadline - time.monotonic()
            if left <= 0:
                raise WebhookFailed(f"webhook {hook.name}: no time left for attempt {attempt}: Lambda retries the event")
            status, retry_after, why = self._attempt(url, body, request_headers, min(self.timeout, left))
            if status is not None and 200 <= status < 300:
                return status, attempt
            failure = f"webhook {hook.name}: {why}"
            if status is not None and not (status in RETRIED or status >= 500):
                self.read_afresh(hook)
                raise WebhookFailed(failure + _advice(status))
            if attempt >= self.attempts:
                raise WebhookFailed(f"{failure}, after {attempt} attempts")
            wait = retry_after if retry_after is not None else self.backoff * 2 ** (attempt - 1) * random.uniform(0.5, 1)
            if time.monotonic() + wait >= deadline:
                raise WebhookFailed(f"{failure}; waiting {wait:.0f} s more would pass the function's time: Lambda "
                                    "retries the event")
            time.sleep(wait)

    def _attempt(self, url: str, body: bytes, headers: Mapping[str, str],
                 timeout: float) -> tuple[int | None, float | None, str]:
        """One request: (status or None, Retry-After seconds or None, what happened: without the URL)."""
        request = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
        try:
            with _OPENER.open(request, timeout=timeout) as response:
                response.read(65536)
                return response.status, None, f"HTTP {response.status}"
        except urllib.error.HTTPError as err:
            err.close()
            return err.code, _retry_after(err.headers.get("Retry-After")), f"HTTP {err.code}{_phrase(err.code)}"
        except TimeoutError:
            return None, None, f"no answer within {timeout:.1f} s"
        except urllib.error.URLError as err:
            reason = err.reason
            if isinstance(reason, TimeoutError):
                return None, None, f"no answer within {timeout:.1f} s"
            return None, None, f"connection failed ({type(reason).__name__})"
        except (OSError, http.client.HTTPException) as err:  # reset, closed without an answer, a malformed answer
            return None, None, f"connection failed ({type(err).__name__})"


def _phrase(status: int) -> str:
    try:
        return f" {HTTPStatus(status).phrase}"
    except ValueError:
        return ""


def _advice(status: int) -> str:
    if status == 410:
        return ": the receiver has removed this webhook; put a new url in the secret or remove the webhook from the configuration"
    if 300 <= status < 400:
        return ": a redirect, not followed; put the final url in the secret"
    return ": not retried (only 408, 429 and 5xx answers are)"


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (a number, or an HTTP date), or None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
