"""What reaches a terminal, in one place: untrusted text (a job name, a file name, a reason, a message) made inert
and bounded, and every command's output guarded.

    shown(value, limit)  a value as one line of printable text: whitespace runs made one space, every other control
                         character (C0, DEL, C1, bidi overrides, line separators) escaped visibly (`\\x1b`,
                         `\\u202e`), cut to `limit` characters with an ellipsis and the length it had
    json_line(obj)       one JSON line whose strings carry no raw control character (json.dumps escapes C0 only
                         when it keeps non-ASCII text: C1, DEL and bidi controls are escaped here too)
    guarded()            stdout and stderr behind `Guarded` for the command's run (main)
    Guarded(stream)      a stream whose writes escape every control character but the newlines and tabs the layout
                         adds and the colours the command paints (bold, dim, reset, foreground 31-36)
    StatusLine(stream)   one line of progress rewritten in place on a terminal (`shown` text, cut to its width),
                         cleared when done; nothing at all on a pipe or a file

A value that passes `shown` keeps the layout whole (no newline of its own, no carriage return to overwrite a line);
`Guarded` is the backstop for any text that did not (an error naming a file, a library's message): it can no
longer retitle, clear or move on the terminal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

NAME = 200  # a job, file, rule or destination name: longer ones are cut (SageMaker's longest names are 63)
TEXT = 2_000  # a reason, a problem, an error line
MESSAGE = 8_192  # a delivered message's text (the bound of the json payload's text)

# C0 but newline and tab, DEL, C1, the bidi controls (Trojan Source), the line and paragraph separators.
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[{_CONTROL}]")
# The only sequences a guarded stream lets through: the painter's SGR codes (replay_table.COLOURS), none that hides text.
_STYLE = re.compile(r"\x1b\[(?:0|1|2|3[1-6]|1;3[1-6])m")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def fit_width(fallback: int) -> int:
    """The width to fit: COLUMNS when set, else the terminal's, else `fallback` (a file or a pipe); at least 40."""
    return max(40, shutil.get_terminal_size((fallback, 24)).columns)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """`text` with every control character but newline and tab escaped visibly."""
    return _UNSAFE.sub(_escape, text)


def spaced(text: str, limit: int = TEXT) -> str:
    """A line the caller laid out (its runs of spaces kept) as `shown` makes a value: newlines and tabs a space,
    every other control character escaped, bounded."""
    cut = len(text) > limit
    head = _UNSAFE.sub(_escape, text[:limit].replace("\n", " ").replace("\t", " "))
    return f"{head}... ({len(text):,} characters)" if cut else head


def shown(value: Any, limit: int | None = NAME) -> str:
    """`value` as one line a terminal shows as written: runs of spaces, tabs and newlines one space, any other
    control character escaped, at most `limit` characters of it kept (then `... (N characters)`)."""
    text = value if isinstance(value, str) else str(value)
    cut = limit is not None and len(text) > limit
    head = text[:limit] if cut else text  # never escape a megabyte only to cut it
    head = _UNSAFE.sub(_escape, " ".join(head.split()))  # str.split takes \r, \x1c-\x1f, \x85, \u2028 too
    return f"{head}... ({len(text):,} characters)" if cut else head


def json_line(obj: Any) -> str:
    """One line of JSON (non-ASCII text kept), every control character in its strings escaped (\\u009b): the
    same values when read back."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(obj, ensure_ascii=False))


class Guarded:
    """A text stream that escapes every control character written to it, but newlines, tabs and the painter's
    colours; everything else (isatty, fileno, encoding, flush) is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if _UNSAFE.search(text):
            kept = _STYLE.split(text)
            styles = _STYLE.findall(text)
            text = "".join(escaped(part) + (styles[i] if i < len(styles) else "") for i, part in enumerate(kept))
        return self.stream.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def guarded() -> Iterator[None]:
    """stdout and stderr guarded while the command runs, as they were after."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Guarded(out), Guarded(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


class StatusLine:
    """Progress on a terminal: one line, rewritten in place (a carriage return, the text, erase to the end of the
    line); `clear` leaves the line empty for what follows. The text is `shown` (inert, one line) and cut to the
    terminal's width, so that it never wraps. On a stream that is no terminal (a pipe, a file) or with TERM=dumb it
    writes nothing at all."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream.stream if isinstance(stream, Guarded) else stream  # its \r and erase are the point
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"
        self.showing = False

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self.stream.write("\r" + shown(text, None)[:width] + "\x1b[K")
        self.stream.flush()
        self.showing = True

    def clear(self) -> None:
        if self.showing:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.showing = False
