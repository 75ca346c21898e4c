"""The one redaction rule: what is personal or secret never reaches a log line, a result or an error message.

`redact(text)` rewrites every email address, phone number and URL in a string:

    ml.team@example.com          -> m***@example.com      (the domain stays: it tells which team)
    +15555550100                 -> +*******0100           (the last four digits stay)
    https://hooks.example.com/T0/B1/xyz?k=v  -> https://hooks.example.com/***   (path, query and user info go)

The logger applies it to every serialized line, results and errors apply it to every string they carry, so a
new action kind that carries a secret (a webhook URL, a key inside a URL) is covered without code of its own.
Applying it twice changes nothing.
"""

from __future__ import annotations

import re
from typing import Any

# Broad on purpose: an invalid address ("first.last@mail") is still somebody's. Bounded repetitions keep it
# linear on hostile input (a 100,000-character name): a local part has at most 64 characters, a domain 255.
_URL = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]{1,15})://(?:[^\s/@\"'<>]{0,256}@)?([^\s/?#\"'<>\\]{0,255})[^\s\"'<>]*")
_EMAIL = re.compile(r"([^\s\"'<>()\[\],;:@*\\])[^\s\"'<>()\[\],;:@\\]{0,63}@([^\s\"'<>()\[\],;:@\\]{1,255})")
_PHONE = re.compile(r"\+\d[\d ().-]{4,24}\d")


def _phone(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    return "+" + "*" * max(len(digits) - 4, 1) + digits[-4:]


def _url(match: re.Match[str]) -> str:
    scheme, host = match.group(1), match.group(2)
    whole = match.group()
    return f"{scheme}://{host}" + ("/***" if len(whole) > len(f"{scheme}://{host}") else "")


def redact(value: Any) -> Any:
    """A string with its addresses, phone numbers and URLs redacted; containers are walked; other values kept."""
    if isinstance(value, str):
        if "@" not in value and "+" not in value and "://" not in value:
            return value
        text = _URL.sub(_url, value)
        text = _EMAIL.sub(lambda m: f"{m.group(1)}***@{m.group(2)}", text)
        return _PHONE.sub(_phone, text)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact(item) for item in value)
    return value
