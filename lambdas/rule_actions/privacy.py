"""The one redaction rule: what is personal or secret never reaches a log line, a result or an error message.

`redact(text)` rewrites every email address, phone number and URL in a string:

    ml.team@example.com          -> m***@example.com      (the domain stays: it tells which team)
    +15555550100                 -> +*******0100           (the last four digits stay)
    sms=1-555-555-0100           -> sms=*-***-***-0100     (a number where a phone number goes, whatever its
                                                            shape: a tag's sms entry, a JSON endpoint, a value
                                                            rejected as no E.164 number, an sms action's target)
    https://hooks.example.com/T0/B1/xyz?k=v  -> https://hooks.example.com/***   (path, query and user info go)

The logger applies it to every serialized line, results and errors apply it to every string they carry, so a
new action kind that carries a secret (a webhook URL, a key inside a URL) is covered without code of its own.
Applying it twice changes nothing.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar, cast

T = TypeVar("T")

# Broad on purpose: an invalid address ("first.last@mail") is still somebody's. Bounded repetitions keep it
# linear on hostile input (a 100,000-character name): a local part has at most 64 characters, a domain 255.
# A URL in prose ends before the punctuation that follows it (`(s3://bucket/key);`): its path goes, the prose stays.
_URL = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]{1,15})://(?:[^\s/@\"'<>]{0,256}@)?([^\s/?#\"'<>\\]{0,255})"
                  r"(?:[^\s\"'<>]*[^\s\"'<>.,;:)\]!?])?")
_EMAIL = re.compile(r"([^\s\"'<>()\[\],;:@*\\])[^\s\"'<>()\[\],;:@\\]{0,63}@([^\s\"'<>()\[\],;:@\\]{1,255})")
_PHONE = re.compile(r"\+\d[\d ().-]{4,24}\d")
# Where a phone number goes, any shape the configuration or a tag can carry (the grammar accepts E.164 only, but a
# rejected value is echoed in its error row): an sms entry in the tag form (sms=15555550100), an endpoint in JSON,
# plain or escaped (a quoted action_json), and the value an E.164 check rejected as its error quotes it.
_SMS_TAG = re.compile(r"(?i)(?<![A-Za-z0-9])(sms=)([^\s\"'\\<>]{1,64})")
_ENDPOINT = re.compile(r'(endpoint\\*"\s*:\s*\\*")([^"\\@]{1,64})(?=\\*")')
_REJECTED = re.compile(r'(\\*")([^"\\]{1,64})(\\*" is not an E\.164 phone number)')
_MARKS = ("@", "+", "://", "=", "ndpoint", "E.164")
PHONE_KINDS = frozenset({"sms"})  # the action kinds whose target is a phone number


def _phone(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    return "+" + "*" * max(len(digits) - 4, 1) + digits[-4:]


def _masked(value: str) -> str:
    """Every digit but the last four starred, the rest of the value as written (idempotent)."""
    digits = sum(c in "0123456789" for c in value)
    out, seen = [], 0
    for c in value:
        if c in "0123456789":
            seen += 1
            c = c if seen > digits - 4 else "*"
        out.append(c)
    return "".join(out)


def _in_place(match: re.Match[str]) -> str:
    groups = match.groups()
    return groups[0] + _masked(groups[1]) + "".join(groups[2:])


def _url(match: re.Match[str]) -> str:
    scheme, host = match.group(1), match.group(2)
    whole = match.group()
    return f"{scheme}://{host}" + ("/***" if len(whole) > len(f"{scheme}://{host}") else "")


def redact(value: T) -> T:
    """A string with its addresses, phone numbers and URLs redacted; containers are walked; other values kept (each
    of the type it was)."""
    return cast(T, _redacted(value))


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        if not any(mark in value for mark in _MARKS):
            return value
        text = _URL.sub(_url, value)
        text = _EMAIL.sub(lambda m: f"{m.group(1)}***@{m.group(2)}", text)
        for pattern in (_SMS_TAG, _ENDPOINT, _REJECTED):
            text = pattern.sub(_in_place, text)
        return _PHONE.sub(_phone, text)
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redacted(item) for item in value)
    return value


def redact_target(kind: str, target: Any) -> Any:
    """An action's target (its row, its log line): a phone number, whatever its shape, for a kind that texts (an sms
    endpoint the grammar rejected keeps its shape: 15555550100); else as `redact` has it."""
    if kind in PHONE_KINDS and isinstance(target, str):
        return _masked(redact(target))
    return redact(target)
