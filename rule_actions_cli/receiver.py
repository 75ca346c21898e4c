"""A webhook receiver on a loopback address: checks each request's signature as a real receiver would
(docs/destinations.md, "Webhooks"), or for an unsigned destination its payload as the destination says its service
checks it (PagerDuty: its routing key and its event's shape), records what arrived, and answers as told (status,
Retry-After, Location, a delay).

Used by `rule-actions replay --receiver` / `test-notify --receiver` (one receiver per loopback host and port that
the --secrets webhook URLs name) and by the tests.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple, TextIO
from urllib.parse import urlsplit

from rule_actions import registry
from rule_actions_cli.terminal import TEXT, spaced

REPLAY_WINDOW = 300  # seconds: an older (or future) timestamp is refused, so a captured request cannot be replayed
SIGNED = ("signature ok ", "BAD SIGNATURE")  # what a line says of a request, checked or not
CHECKED = ("payload ok   ", "BAD PAYLOAD  ")  # (an unsigned destination's: its payload checked)
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class Expected(NamedTuple):
    """What a path receives: a destination's requests, made with this secret."""

    destination: str  # its name (registry.destinations())
    secret: Mapping[str, Any]


def verify(signing_key: str, timestamp: str | None, body: bytes, signature: str | None, now: float,
           window: int = REPLAY_WINDOW) -> bool:
    """What every receiver does first: a fresh timestamp, and the HMAC of "<timestamp>.<raw body>"."""
    if not timestamp or not signature or not timestamp.isdigit() or abs(now - int(timestamp)) > window:
        return False
    expected = hmac.new(signing_key.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"sha256={expected}", signature)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow receiver)
    trickle: float = 0.0  # seconds between the answer's bytes (a receiver that answers one byte at a time)


@dataclass(frozen=True)
class Received:
    path: str
    headers: Mapping[str, str]
    body: bytes
    valid: bool  # the signature checked against the path's signing key, within the replay window (an unsigned
    # destination's: its payload checked)
    words: tuple[str, str] = SIGNED  # what the report says of it, valid or not

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """`with Receiver({"/hook": key}) as r: ... r.url("/hook") ... r.received`; `r.replies` is a queue of the
    answers to give (then 200). A path's key is a signing key, or what it expects (a destination and its secret)."""

    def __init__(self, keys: Mapping[str, str | Expected], host: str = "127.0.0.1", port: int = 0):
        self.keys = dict(keys)  # path -> signing key, or Expected
        self.received: list[Received] = []
        self.replies: deque[Reply] = deque()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = urlsplit(self.path).path
                valid, words = checked(receiver.keys.get(path), self.headers, body)
                receiver.received.append(Received(path, dict(self.headers.items()), body, valid, words))
                reply = receiver.replies.popleft() if receiver.replies else Reply()
                time.sleep(reply.delay)
                status = reply.status if valid or reply.status != 200 else 401
                if reply.trickle:
                    return self._trickle(status, reply.trickle)
                self.send_response(status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST  # (recorded too: a client that follows a redirect may switch to GET)

            def _trickle(self, status: int, pause: float) -> None:
                """The whole answer, one byte every `pause` seconds, until the client hangs up."""
                self.close_connection = True
                for byte in f"HTTP/1.1 {status} OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode():
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(pause)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.host, self.port = host, self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str = "/hook") -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def checked(key: str | Expected | None, headers: Any, body: bytes) -> tuple[bool, tuple[str, str]]:
    """Whether a request to a path is what it expects, and the words that say it: a signed destination's signature,
    else the payload as its destination checks it."""
    if isinstance(key, Expected):
        destination = registry.destinations()[key.destination]
        if not destination.signed:
            try:
                payload = json.loads(body)
            except ValueError:
                return False, CHECKED
            return not destination.problems(key.secret, payload), CHECKED
        key = key.secret.get("signing_key")
    valid = isinstance(key, str) and verify(key, headers.get("X-Rule-Actions-Timestamp"), body,
                                            headers.get("X-Rule-Actions-Signature"), time.time())
    return valid, SIGNED


def loopback_hooks(secrets: Mapping[str, str]) -> dict[tuple[str, int], dict[str, str | Expected]]:
    """The loopback http webhook URLs in secret strings, each of the first destination whose secret it is:
    (host, port) -> {path: Expected}."""
    found: dict[tuple[str, int], dict[str, str | Expected]] = {}
    for value in secrets.values():
        try:
            secret = json.loads(value)
        except (ValueError, TypeError):
            continue  # not a webhook secret: nothing to listen for
        if not isinstance(secret, dict):
            continue
        for name, destination in registry.destinations().items():
            url = destination.receives(secret)
            if url is None:
                continue
            try:
                parts = urlsplit(url)
                if parts.scheme == "http" and parts.hostname in LOOPBACK and parts.port:
                    found.setdefault((parts.hostname, parts.port), {})[parts.path or "/"] = Expected(name, secret)
            except ValueError:
                pass
            break
    return found


def add_options(parser: Any, where: str = "") -> None:
    """--secrets and --receiver, for the commands that run the function on the embedded account."""
    parser.add_argument("--secrets", metavar="FILE", help=f"{where}JSON of secret name -> secret string (a webhook's "
                        '{"url", "signing_key"}; a pagerduty one\'s {"routing_key", "url"}), created in the embedded '
                        "Secrets Manager")
    parser.add_argument("--receiver", action="store_true", help=f"{where}receive the loopback webhook URLs of "
                        "--secrets, check their signatures (or an unsigned destination's payload) and print what "
                        "arrived; then what each destination of the topics received (each message's subject, then "
                        "its text as the destination shows it)")


class ReceiverError(Exception):
    """--receiver cannot listen: one line for the user."""


@contextmanager
def receiving(secrets: Mapping[str, str], enabled: bool) -> Iterator[list[Receiver]]:
    """When `enabled`, a receiver on each loopback host and port the secrets' webhook URLs name (none without such a
    secret: --receiver then shows what the topics delivered only)."""
    hooks = loopback_hooks(secrets) if enabled else {}
    with ExitStack() as stack:
        receivers = []
        for (host, port), keys in hooks.items():
            try:
                receivers.append(stack.enter_context(Receiver(keys, host, port)))
            except OSError as err:
                raise ReceiverError(f"--receiver: cannot listen on {host}:{port} ({err.strerror or err}): change "
                                    "the port in the secret's url") from None
        yield receivers


def report(receivers: list[Receiver], out: TextIO) -> None:
    """What each receiver got: one line per request (no URL path: it can be a secret's); a Slack message then its
    blocks, one indented line each, as the channel shows them (`blocks`)."""
    for receiver in receivers:
        valid = sum(r.valid for r in receiver.received)
        signed = all(r.words == SIGNED for r in receiver.received)
        out.write(f"receiver {receiver.host}:{receiver.port}: {len(receiver.received)} request(s), {valid} "
                  f"{'correctly signed' if signed else 'valid'}\n")
        for item in receiver.received:
            out.write(f"  {item.words[0] if item.valid else item.words[1]}  {describe(item)}\n")
            for line in blocks(item):
                out.write(f"{BLOCK_INDENT}{line}\n")


BLOCK_INDENT = " " * 17  # under the payload's words, past "  signature ok  "
MAX_BLOCKS = 50  # Slack's own limit of blocks in a message: a longer list is cut, and says so


def blocks(item: Received) -> list[str]:
    """A Slack message's blocks (Block Kit) as the channel lays them out, each on lines of its own: `header`, the
    text of a `section` with its line breaks (then its `fields`, one a line), `context` elements, `actions` as
    [button] labels, `divider` as a rule; any other type named. Every line inert text (terminal.spaced), the
    message's own text never cut but bounded (TEXT a line). Empty for any other payload."""
    try:
        body = item.json()
    except ValueError:
        return []
    found = body.get("blocks") if isinstance(body, dict) else None
    if not isinstance(found, list):
        return []
    lines: list[str] = []
    for block in found[:MAX_BLOCKS]:
        lines += _block(block)
    if len(found) > MAX_BLOCKS:
        lines.append(f"... {len(found) - MAX_BLOCKS} more block(s) not shown")
    return lines


def _text_of(value: Any) -> str:
    """A text object's text (plain_text or mrkdwn), or a string as it is."""
    if isinstance(value, dict):
        value = value.get("text", "")
    return value if isinstance(value, str) else json.dumps(value)


def _labelled(label: str, text: str) -> list[str]:
    """`label: first line`, then each further line of `text` under the first, aligned."""
    parts = text.split("\n") or [""]
    pad = " " * (len(label) + 2)
    return [spaced(f"{label}: {parts[0]}", TEXT), *(spaced(pad + part, TEXT) for part in parts[1:])]


def _block(block: Any) -> list[str]:
    if not isinstance(block, dict):
        return [spaced(f"(not a block: {json.dumps(block)[:64]})", TEXT)]
    kind = block.get("type")
    if kind == "header":
        return _labelled("header", _text_of(block.get("text")))
    if kind == "section":
        lines = _labelled("section", _text_of(block.get("text"))) if block.get("text") else ["section:"]
        fields = block["fields"] if isinstance(block.get("fields"), list) else []
        return lines + [line for field_ in fields for line in _labelled("  field", _text_of(field_))]
    if kind == "context":
        elements = block["elements"] if isinstance(block.get("elements"), list) else []
        return [line for element in elements for line in _labelled("context", _text_of(element))]
    if kind == "actions":
        elements = block["elements"] if isinstance(block.get("elements"), list) else []
        return [spaced("actions: " + "  ".join(f"[{_text_of(e.get('text') if isinstance(e, dict) else e)}]"
                                                for e in elements), TEXT)]
    if kind == "divider":
        return ["-" * 20]
    return [spaced(f"{kind if isinstance(kind, str) else json.dumps(kind)[:64]} block", TEXT)]


def describe(item: Received) -> str:
    """A request's payload in a few words, as its destination says it (json: trigger and job; slack: its text;
    teams: its title; pagerduty: severity, class and summary), as one line of inert text (terminal.shown)."""
    return spaced(_described(item), TEXT)


def _described(item: Received) -> str:
    try:
        body = item.json()
    except ValueError:
        return "not JSON"
    said = (destination.describe(body) for destination in registry.destinations().values())
    return next((words for words in said if words is not None), "unknown payload")
