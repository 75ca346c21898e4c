"""Safe text (the ground floor): untrusted values quoted, made plain and capped; error texts; the pieces of links.

    quoted(value)      a short printable rendering of an untrusted value, for reasons and errors
    plain(text)        untrusted text as plain text: control and reordering characters removed, capped
    one_line(text)     the same on one printable ASCII line (an email subject, a text message): common characters
                       spelled in ASCII (é -> e, — -> -, ’ -> '), any other "?"
    encoded(value)     a value placed in a link, percent-encoded whole
    timestamp(value)   an event's time (epoch milliseconds or ISO 8601), None when unreadable
    error_text(err)    "<code>: <message>" of an AWS error, "<class>: <text>" of another
    unknown(key, allowed)   an unknown key's error: "did you mean" the closest allowed one, the few allowed, or
                       where the many are listed (never 28 keys on one line)
    closest(key, allowed)   the allowed name a "did you mean" names (difflib's, or the same in another case)
    typo_of(name, known)    the known name one or two edits away (a typo, not a name of its own)
    os_problem(err)    what an OSError says of a file, in words: no errno number, no path (the caller names it)
    mapping_at(record, key)  a member of an untrusted object that must itself be an object ({} when it is not);
                       list_at and text_at, one that must be a list ([]), a string ("")

Names, reasons and details come from events and from whoever started a job: everything a person reads goes
through `plain` or `one_line`, every value in a link through `encoded`. Redaction is privacy.py's.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

SUBJECT_MAX = 100  # SNS: ASCII, no line breaks, at most 100 characters
SMS_MAX = 140
DETAILS_MAX = 1024
NAME_MAX = 256  # SageMaker allows 63 for a job name, 256 for a rule name: a longer one is a hostile event
ARN_MAX = 2048  # an ARN in a payload (a pipeline execution's may be longer: it is cut)
URL_MAX = 4096  # a link in a payload
# Control characters, and the bidirectional marks, overrides and isolates that can reorder a line on screen.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def quoted(value: Any, limit: int = 64) -> str:
    """A short, printable, ASCII rendering of an untrusted value (JSON, cut to `limit`) for reasons and errors."""
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]  # never encode a huge string only to cut it
    try:
        text = json.dumps(value, default=lambda v: f"<{type(v).__name__}>")
    except (ValueError, RecursionError):  # a 5,000-digit integer, a structure nested too deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 4] + '..."'


def plain(text: str, limit: int | None = None, multiline: bool = False) -> str:
    """Untrusted text as plain text: control characters removed (newlines kept only when `multiline`, so a
    name can never start a line of its own), length capped."""
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate (JSON can carry one) becomes "?"
    text = _CONTROL.sub("", text) if multiline else " ".join(_CONTROL.sub("", text).split())
    return text if limit is None else cap(text, limit)


# Characters that Unicode does not decompose into ASCII, spelled as people write them in ASCII.
_ASCII = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2039": "<", "\u203a": ">", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    "\u2015": "-", "\u2212": "-", "\u2026": "...", "\u00a0": " ", "\u2022": "*", "\u00b7": ".", "\u00d7": "x",
    "\u00df": "ss", "\u00e6": "ae", "\u00c6": "AE", "\u0153": "oe", "\u0152": "OE", "\u00f8": "o", "\u00d8": "O",
    "\u0142": "l", "\u0141": "L", "\u0111": "d", "\u0110": "D", "\u00f0": "d", "\u00d0": "D", "\u00fe": "th",
    "\u00de": "Th", "\u0131": "i", "\u20ac": "EUR", "\u00a3": "GBP", "\u00b0": " deg", "\u2192": "->",
})


def ascii_spelling(text: str) -> str:
    """Text in ASCII: common characters spelled as in ASCII (é -> e, ß -> ss, — -> -, ’ -> ', … -> ...), accents
    dropped (NFKD, combining marks removed), any other character "?". SNS sends a text message in GSM-7 when
    every character allows it (160 per part) and in UCS-2 otherwise (70 per part, billed per part), and an email
    subject must be ASCII: so what a text says stays in one part and readable."""
    text = unicodedata.normalize("NFKD", text.translate(_ASCII)).translate(_ASCII)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return text.encode("ascii", "replace").decode("ascii")


def one_line(text: str, limit: int | None = None) -> str:
    """Untrusted text on one printable ASCII line (common characters spelled in ASCII, any other "?")."""
    return plain(ascii_spelling(plain(text)), limit)


def digest(text: str) -> str:
    """sha256 hex of untrusted text (a lone surrogate, which JSON can carry, is digested as is)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def arn_name(arn: str) -> str:
    """The name at the end of a job's ARN (arn:...:training-job/<name>)."""
    return arn.rpartition("/")[2]


def arn_place(arn: str) -> tuple[str, str]:
    """The account and region an ARN names (arn:<partition>:<service>:<region>:<account>:<resource>), ("", "") when
    it is no ARN."""
    parts = arn.split(":")
    return (parts[4], parts[3]) if len(parts) > 5 else ("", "")


def s3_parts(s3_uri: str) -> tuple[str, str]:
    """s3://bucket/prefix -> (bucket, prefix)."""
    bucket, _, prefix = s3_uri.removeprefix("s3://").partition("/")
    return bucket, prefix


def iso_z(epoch: float) -> str:
    """An epoch second as EventBridge writes a time: 2026-11-24T10:00:00Z."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def line(label: str, value: str) -> str:
    """A body's `Label:   value` line, values aligned (a label too long to align keeps a space before its value)."""
    return f"{label + ':':<15} {value}"


def indented(text: str, limit: int = DETAILS_MAX) -> str:
    """Untrusted multi-line text (a reason, status details) as an indented block of plain text."""
    return "  " + plain(text.strip(), limit, multiline=True).replace("\n", "\n  ")


def duration(seconds: float) -> str:
    """3725 -> "1 h 2 min 5 s"."""
    seconds = round(seconds)
    parts = [(seconds // 3600, "h"), (seconds % 3600 // 60, "min"), (seconds % 60, "s")]
    shown = [f"{value} {unit}" for value, unit in parts if value]
    return " ".join(shown) or "0 s"


def stamp(when: datetime | None) -> str:
    return when.isoformat(timespec="seconds") if when else "unknown"


def encoded(value: str) -> str:
    """A value for a link: percent-encoded whole (a lone surrogate, which UTF-8 cannot hold, becomes "?")."""
    return quote(value[:NAME_MAX].encode("utf-8", "replace"), safe="")


def console_domain(region: str) -> str:
    return f"{region}.console.amazonaws.cn" if region.startswith("cn-") else f"{region}.console.aws.amazon.com"


def console_link(region: str, fragment: str) -> str:
    """A page of the SageMaker console; `fragment` is already encoded."""
    return f"https://{console_domain(region)}/sagemaker/home?region={quote(region)}#{fragment}"


def log_link(region: str, group: str, stream_filter: str) -> str:
    """The CloudWatch Logs console on `group`, its streams filtered by a prefix."""
    # The console's logsV2 fragment encodes '/' as $252F, '?' as $3F and '=' as $3D.
    fragment = quote(group, safe="").replace("%", "$25") + "$3FlogStreamNameFilter$3D" + encoded(stream_filter)
    return f"https://{console_domain(region)}/cloudwatch/home?region={quote(region)}#logsV2:log-groups/log-group/{fragment}"


def timestamp(value: Any) -> datetime | None:
    """Epoch milliseconds (number or string) or an ISO 8601 string; None when absent or unreadable."""
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        return datetime.fromtimestamp(float(value) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        pass
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def error_code(err: BaseException) -> str:
    """The AWS error code of a botocore ClientError, else the exception's class name."""
    response = getattr(err, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return type(err).__name__


def error_message(err: BaseException) -> str:
    response = getattr(err, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Message", ""))
    return str(err)


def error_text(err: BaseException) -> str:
    """"<code>: <message>" of an AWS error (or "<class>: <text>" of another), for reasons."""
    return f"{error_code(err)}: {error_message(err)}"


FEW = 8  # allowed keys listed in full up to this many
REFERENCE = "docs/configuration.md, or `rule-actions schema`"


COMPARED_MAX = 100  # a hostile name of megabytes is never compared


def closest(key: Any, allowed: Iterable[str]) -> str | None:
    """The allowed name closest to `key` (difflib's ratio 0.6 or more), or one differing only in case
    ("Stalledtraining"); None when none is close, or `key` is no string of at most 100 characters."""
    import difflib  # an error's only: never at a cold start

    if not (isinstance(key, str) and len(key) <= COMPARED_MAX):
        return None
    allowed = list(allowed)
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    return close[0] if close else next((a for a in allowed if a.lower() == key.lower()), None)


def typo_of(name: str, known: Iterable[str]) -> str | None:
    """The known name that `name` is most probably a typo of: one that differs from it only in case, or by one
    edit (a character added, dropped, changed, or two neighbours swapped; two edits for a known name of 10
    characters or more), case ignored; None when none is that near (a name deliberately different is further)."""
    if len(name) > COMPARED_MAX:
        return None
    found = [(edits(name.lower(), k.lower(), 2), k) for k in known if k != name]
    near = [(d, k) for d, k in found if d <= (2 if len(k) >= 10 else 1)]
    return min(near)[1] if near else None


def edits(a: str, b: str, most: int) -> int:
    """The edits from `a` to `b` (optimal string alignment: insert, delete, substitute, swap two neighbours), or
    `most` + 1 when there are more than `most`."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (x != y))
            if before is not None and i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > most and min(row) >= most:  # no later row can come back under (a swap reaches 2 back)
            return most + 1
        before, row = row, current
    return min(row[-1], most + 1)


def unknown(key: Any, allowed: Iterable[str], what: str = "key", listed: str = REFERENCE) -> str:
    """The error of an unknown key: the closest allowed one when there is one ("did you mean"), else the allowed
    ones when they are few, else where they are listed."""
    allowed = list(allowed)
    close = closest(key, allowed)
    if close:
        return f"unknown {what}; did you mean {quoted(close)}?"
    if len(allowed) <= FEW:
        return f"unknown {what}; allowed: {', '.join(allowed) or 'none'}"
    return f"unknown {what}: none of the {len(allowed)} allowed is close (see {listed})"


def unknown_keys(value: Iterable[Any], allowed: Collection[str], where: str) -> list[str]:
    """The error of each key of an object that is not `allowed` (`unknown`'s, on its path `where`.<key>), in order."""
    return [f"{where}.{key}: {unknown(key, allowed)}" for key in value if key not in allowed]


def os_problem(err: OSError | UnicodeDecodeError) -> str:
    """An OSError in words (its strerror, "no such file or directory"; the path left to the caller), or "not
    UTF-8 text"."""
    if isinstance(err, UnicodeDecodeError):
        return "not UTF-8 text"
    said = err.strerror or type(err).__name__
    return said[:1].lower() + said[1:]


def mapping_at(record: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """`record[key]` when it is an object (a description's member), else an empty one."""
    value = record.get(key)
    return value if isinstance(value, Mapping) else {}


def list_at(record: Mapping[str, Any], key: str) -> list[Any]:
    """`record[key]` when it is a list, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, list) else []


def text_at(record: Mapping[str, Any], key: str) -> str:
    """`record[key]` when it is a string, else ""."""
    value = record.get(key)
    return value if isinstance(value, str) else ""
