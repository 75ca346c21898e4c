"""Webhooks: read a webhook's secret (Secrets Manager, cached per execution environment by Powertools' parameters
utility) and POST a signed body with retries. The only module that talks HTTP.

Delivery, over urllib3 (which botocore loads already: no cost at a cold start): its connection pool frames the
request, wraps TLS and checks the certificate against the name; the connection it opens is ours (`_Vetted`):
- deadlines, not socket timeouts: each attempt (name lookup, connection, TLS, request and answer together) ends
  within ATTEMPT_TIMEOUT, the whole delivery (attempts and waits) within DELIVERY_BUDGET and RESERVE seconds before
  the invocation's time runs out; every socket operation waits only for what is left (the attempt's deadline, in a
  context variable the connection's sockets read), so a receiver answering one byte a second cannot hold a delivery
  longer than that;
- 429, 408 and 5xx answers and network errors are retried with exponential backoff (honouring Retry-After) within
  those limits; any other answer is final, and so is a TLS certificate the receiver's name does not verify (a
  retry cannot fix it);
- redirects are never followed: a 3xx is a failure that says so (the configured URL is stale, and a signed body
  should not go where nobody configured it);
- deployed (`vet_addresses`, inside Lambda), the name is resolved once per attempt and each address is checked
  before connecting to exactly that address (so a DNS answer that changes between check and use, DNS rebinding,
  cannot pass): loopback, link-local (169.254.169.254, the instance metadata), private, shared, reserved,
  multicast and unspecified addresses are refused at once, IPv4 carried in IPv6 (mapped, 6to4, NAT64) included.
  HTTP proxies (HTTPS_PROXY) are not used: the function connects to the address it checked.
Every failure raises WebhookFailed with a reason built from the status code or the exception's type alone: the
URL, its addresses, the key and the receiver's own words never reach a log line or a result.
"""

from __future__ import annotations

import contextvars
import functools
import http.client
import ipaddress
import json
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import ProtocolError
from urllib3.exceptions import SSLError as Urllib3SSLError
from urllib3.exceptions import TimeoutError as Urllib3Timeout
from urllib3.util.ssl_match_hostname import CertificateError

from rule_actions.ports import Webhook
from rule_actions.text import error_code, error_message

SECRET_MAX_AGE = 300  # seconds a secret is cached; a rotated URL or key is used within five minutes
TIMEOUT = 5.0  # seconds per attempt, all of it: lookup, connection, TLS, request, status line and headers
ATTEMPTS = 4
DELIVERY_BUDGET = 15.0  # seconds for the whole delivery: 4 stalled attempts cannot take 20 s plus their waits
BACKOFF = 0.5  # seconds before the second attempt, doubling (with jitter) after
RESERVE = 5.0  # seconds of the function's time left for the other actions and the ledger
RETRIED = frozenset({408, 429})
# What a deployed function never connects to (`ipaddress` names; IPv4 inside IPv6 is checked as IPv4).
REFUSED = ("unspecified", "loopback", "link_local", "multicast", "reserved", "private")  # the first that applies
NAT64 = ipaddress.ip_network("64:ff9b::/96")


class WebhookFailed(Exception):
    """A delivery failed; the message names the webhook and why, never its URL or key."""


class HttpsWebhooks:
    def __init__(self, secrets_client: Callable[[], Any], loopback_http: bool,
                 timeout: float = TIMEOUT, attempts: int = ATTEMPTS, backoff: float = BACKOFF,
                 budget: float = DELIVERY_BUDGET, vet_addresses: bool | None = None):
        self.loopback_http = loopback_http  # plain http to a loopback address: a local replay only
        # Deployed (no loopback http), only public addresses are contacted; a local replay may reach the machine's.
        self.vet_addresses = not loopback_http if vet_addresses is None else vet_addresses
        self.timeout, self.attempts, self.backoff, self.budget = timeout, attempts, backoff, budget
        self._secrets_client = secrets_client
        self._provider: Any = None
        self._stale: set[str] = set()  # secrets to read afresh (their webhook failed for good)
        self._deadline: float | None = None

    def register(self, lambda_context: Any) -> None:
        """Deliveries end RESERVE seconds before the invocation's time runs out."""
        if lambda_context is not None:
            self._deadline = time.monotonic() + lambda_context.get_remaining_time_in_millis() / 1000 - RESERVE

    def read_afresh(self, hook: Webhook) -> None:
        """The next read of this webhook's secret skips the cache: someone may be correcting it."""
        self._stale.add(hook.secret)

    def secret(self, hook: Webhook, keys: tuple[str, ...], shape: str) -> Mapping[str, Any]:
        """The webhook's secret string as a JSON object whose `keys` are non-empty strings (a signed destination's
        {"url": ..., "signing_key": ...}; `shape` says them when they are not)."""
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
        if not (isinstance(value, Mapping) and all(isinstance(value.get(key), str) and value[key] for key in keys)):
            self.read_afresh(hook)
            raise WebhookFailed(f"webhook {hook.name}: the secret {hook.secret} is not a JSON object with {shape}")
        return value

    def post(self, hook: Webhook, url: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, int]:
        """POST until a final answer: (2xx status, attempts). Raises WebhookFailed."""
        started = time.monotonic()
        invocation = self._deadline if self._deadline is not None else started + 60 - RESERVE
        deadline = min(started + self.budget, invocation)
        request_headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "rule-actions", **headers}
        attempt = 0
        while True:
            attempt += 1
            left = deadline - time.monotonic()
            if left <= 0:
                raise WebhookFailed(f"webhook {hook.name}: no time left for attempt {attempt} (delivery budget "
                                    f"{self.budget:.0f} s): Lambda retries the event")
            allowed = min(self.timeout, left)
            status, retry_after, why, retry = self._attempt(url, body, request_headers, allowed)
            if status is not None and 200 <= status < 300:
                return status, attempt
            failure = f"webhook {hook.name}: {why}"
            if not retry:
                self.read_afresh(hook)
                raise WebhookFailed(failure + (_advice(status) if status is not None else ": not retried"))
            if attempt >= self.attempts:
                raise WebhookFailed(f"{failure}, after {attempt} attempts")
            wait = retry_after if retry_after is not None else self.backoff * 2 ** (attempt - 1) * random.uniform(0.5, 1)
            if time.monotonic() + wait >= deadline:
                raise WebhookFailed(f"{failure}; waiting {wait:.0f} s more would pass the delivery's time: Lambda "
                                    "retries the event")
            time.sleep(wait)

    def _attempt(self, url: str, body: bytes, headers: Mapping[str, str],
                 allowed: float) -> tuple[int | None, float | None, str, bool]:
        """One request within `allowed` seconds: (status or None, Retry-After seconds or None, what happened without
        the URL, whether a retry may help)."""
        parts = urlsplit(url)
        tls = parts.scheme == "https"
        port = parts.port or (443 if tls else 80)
        # One connection, never reused, to an address checked when it opens (_Vetted); no proxy, no retry, no
        # redirect of urllib3's (the loop above retries; a redirect is a failure), the body never read.
        host = parts.hostname or ""  # (the kind posts only to a URL it checked: it names a host)
        pool = (_TLSPool(host, port, maxsize=1, retries=False, ssl_context=_tls(), vet=self.vet_addresses)
                if tls else _Pool(host, port, maxsize=1, retries=False, vet=self.vet_addresses))
        deadline = _DEADLINE.set(time.monotonic() + allowed)
        try:
            response = pool.urlopen("POST", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                                    body=body, headers=dict(headers), retries=False, redirect=False,
                                    preload_content=False, release_conn=False)
        except (OSError, http.client.HTTPException, urllib3.exceptions.HTTPError) as err:
            cause = _cause(err)
            if isinstance(cause, AddressRefused):
                return None, None, str(cause), False
            if isinstance(cause, (ssl.SSLCertVerificationError, CertificateError)):
                return None, None, f"the receiver's TLS certificate does not verify ({type(cause).__name__})", False
            if isinstance(cause, (TimeoutError, Urllib3Timeout)):
                return None, None, f"no answer within {allowed:.1f} s", True
            # refused, reset, closed without an answer, malformed
            return None, None, f"connection failed ({type(cause).__name__})", True
        finally:
            _DEADLINE.reset(deadline)
            pool.close()
        status = response.status
        retry = status in RETRIED or status >= 500
        return status, _retry_after(response.headers.get("Retry-After")), f"HTTP {status}{_phrase(status)}", retry


class AddressRefused(OSError):
    """The webhook's host resolves only to addresses a deployed function must not contact."""


# The time.monotonic() by which the current attempt ends: every socket operation of its connection waits only
# until then (a context variable: each thread's delivery has its own).
_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar("webhook_attempt_deadline")


class _Deadline:
    """Mixed into a socket class: every operation waits only until the attempt's deadline, so the deadline bounds
    the whole exchange, not each read (a receiver trickling bytes cannot stretch it)."""

    def _left(self) -> None:
        left = _DEADLINE.get() - time.monotonic()
        if left <= 0:
            raise TimeoutError("the attempt's deadline passed")
        self.settimeout(left)  # type: ignore[attr-defined]

    def recv_into(self, *args: Any, **kwargs: Any) -> int:
        self._left()
        found: int = super().recv_into(*args, **kwargs)  # type: ignore[misc]
        return found

    def recv(self, *args: Any, **kwargs: Any) -> bytes:
        self._left()
        found: bytes = super().recv(*args, **kwargs)  # type: ignore[misc]
        return found

    def send(self, *args: Any, **kwargs: Any) -> int:
        self._left()
        found: int = super().send(*args, **kwargs)  # type: ignore[misc]
        return found

    def sendall(self, *args: Any, **kwargs: Any) -> None:
        self._left()
        super().sendall(*args, **kwargs)  # type: ignore[misc]

    def do_handshake(self, *args: Any, **kwargs: Any) -> None:
        self._left()
        super().do_handshake(*args, **kwargs)  # type: ignore[misc]


class _Socket(_Deadline, socket.socket):
    pass


class _TLSSocket(_Deadline, ssl.SSLSocket):
    pass


class _Vetted:
    """Mixed into urllib3's connection classes: the connection is `_open`'s socket, to an address checked first."""

    def __init__(self, *args: Any, vet: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.vet = vet

    def _new_conn(self) -> socket.socket:
        return _open(self._dns_host, self.port, self.vet)  # type: ignore[attr-defined]


class _VettedHTTP(_Vetted, HTTPConnection):
    pass


class _VettedHTTPS(_Vetted, HTTPSConnection):
    pass


class _Pool(urllib3.HTTPConnectionPool):
    ConnectionCls = _VettedHTTP


class _TLSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _VettedHTTPS


def _cause(err: BaseException) -> BaseException:
    """The error under urllib3's wrappers (a refused or reset connection, a certificate, a timeout)."""
    while True:
        if isinstance(err, ProtocolError) and len(err.args) > 1 and isinstance(err.args[1], BaseException):
            err = err.args[1]
        elif isinstance(err, Urllib3SSLError) and err.args and isinstance(err.args[0], BaseException):
            err = err.args[0]
        else:
            return err


def _open(host: str, port: int, vet: bool) -> socket.socket:
    """A connected socket to the first address of `host` that accepts, every address checked first when `vet`;
    Refused when none may be contacted. urllib3 wraps it in TLS, the certificate verified against `host`."""
    candidates = _resolve(host, port, _DEADLINE.get())
    allowed = [c for c in candidates if not (vet and refusal(c[4][0]))]
    if not allowed:
        kinds = sorted({refusal(c[4][0]) or "" for c in candidates})
        raise AddressRefused(f"its host resolves only to {' and '.join(kinds)} addresses, which a deployed function "
                             "never contacts (only public addresses are)")
    last: OSError = OSError("no address")
    for family, kind, proto, _name, address in allowed:
        sock = _Socket(family, kind, proto)
        try:
            sock._left()
            _connect(sock, address)
        except OSError as err:
            sock.close()
            last = err
            continue
        return sock
    raise last


@functools.cache
def _tls() -> ssl.SSLContext:
    """The system's trust store, the certificate required; one context per execution environment (loading it costs).
    The name is checked by urllib3 after the handshake (its match_hostname: DNS names and IP addresses alike), not by
    the context: urllib3 1.26, which a Lambda runtime may ship, gives the context no server name for an address, and
    a context that checks names refuses to wrap without one."""
    context = ssl.create_default_context()
    context.check_hostname = False  # urllib3 checks it (verify_mode stays CERT_REQUIRED)
    context.sslsocket_class = _TLSSocket
    return context


def _connect(sock: socket.socket, address: Any) -> None:
    sock.connect(address)


def _resolve(host: str, port: int, deadline: float) -> list[tuple[Any, ...]]:
    """getaddrinfo within the deadline (it has no timeout of its own: it runs in a thread that is left behind
    if the resolver does not answer in time)."""
    found: list[Any] = []

    def lookup() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as err:
            found.append(err)

    worker = threading.Thread(target=lookup, daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if not found:
        raise TimeoutError("the name lookup did not answer in time")
    if isinstance(found[0], OSError):
        raise found[0]
    addresses: list[tuple[Any, ...]] = found[0]
    return addresses


def refusal(address: str) -> str | None:
    """Why a deployed function must not contact an IP address ("loopback", "link-local", "private", ...), or None
    for a public one. IPv4 carried in IPv6 (mapped, 6to4, NAT64's well-known prefix) is judged as IPv4."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone ("fe80::1%eth0") names no other address
    if isinstance(ip, ipaddress.IPv6Address):
        carried = ip.ipv4_mapped or ip.sixtofour or (
            ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in NAT64 else None)
        if carried is not None:
            return refusal(str(carried))
    for kind in REFUSED:
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return None if ip.is_global else "non-public"


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
