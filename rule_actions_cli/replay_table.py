"""Output of `replay` and `invoke`: a table a person reads at a glance (fitted to the terminal's width, in colour on
a terminal), or one JSON object per event (`--json`, for scripts: its shape never depends on the terminal)."""

from __future__ import annotations

import os
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TextIO

from rule_actions.contract import Outcome
from rule_actions.privacy import redact
from rule_actions_cli.terminal import MESSAGE, NAME, TEXT, fit_width, json_line, shown, spaced

OUTCOMES = tuple(outcome.value for outcome in Outcome)
NOTABLE = ("IssuesFound", "Skipped", "NotJudged", "Error")  # the monitor rules' verdicts a row shows


TRAINING = "training"  # the family whose job "training_job" names (the key of the first releases)


class Delivery(NamedTuple):
    """A message a topic delivered: to whom (team, chat channels, or an address or number), its subject, its text,
    and what the text is: "sms" (the text message a phone receives), "chat" (a chat notification's description),
    or "text" (the message itself, no text message in it)."""

    to: str
    subject: str
    text: str
    kind: str = "text"


def row(source: str, job: str | None, matched: bool, result: dict[str, Any] | None,
        problems: Iterable[str] = (), family: str | None = None) -> dict[str, Any]:
    """The JSON shape: {"source", "training_job", "job", "job_family", "matched", "actions"} (+ "account" /
    "account_alias" in organization mode, "ignored" / "error" / "problems" when present: "problems" names each part
    of the event that could not be read; for a timeline's evaluation, "rules": the monitor rules that hold, cannot
    be computed, do not judge the job's phase or failed, with their reasons). "job" is the job of any family
    (training, tuning, processing, pipeline, transform: "job_family"); "training_job" names it for a training
    event, as before, and is null otherwise."""
    family = (result or {}).get("job_family") or family
    out: dict[str, Any] = {"source": source, "training_job": job if family == TRAINING else None, "job": job,
                           "job_family": family, "matched": matched, "actions": []}
    if result:
        out["actions"] = result.get("actions", [])
        out.update({key: result[key] for key in ("account", "account_alias", "ignored", "error") if result.get(key)})
        rules = [r for r in result.get("rules", []) if r.get("verdict") in NOTABLE]
        if rules:
            out["rules"] = rules
    found = list(dict.fromkeys([*(result or {}).get("problems", []), *problems]))
    if found:
        out["problems"] = found
    return redact(out)  # the function's results are redacted already; problems found here quote the event


def heading(events: list[tuple[str, Any]], paths: list[str], context: dict[str, Any], config_file: str | None,
            width: int | None = None) -> str:
    """The replay's first line: what is replayed, from where, against which stack of which configuration ("Replaying
    12 events and 8 timelines from events/ and events/timelines/ against stack RuleActions of rule-actions.json on the
    embedded AWS"), wrapped to `width` (the terminal's) as the table is."""
    from rule_actions_cdk.app import read_context
    from rule_actions_cdk.settings import FILE_NAME
    from rule_actions_cli.inputs import is_timeline

    timelines = sum(1 for _, event in events if is_timeline(event))
    counted = [_count(len(events) - timelines, "event")] if len(events) > timelines else []
    counted += [_count(timelines, "timeline")] if timelines else []
    names = [shown(path) for path in paths]
    where = (", ".join(names[:-1]) + " and " + names[-1]) if 1 < len(names) <= 3 else names[0] if names else ""
    where = where if len(names) <= 3 else f"{len(names)} paths"
    config = shown(config_file) if config_file else FILE_NAME if os.path.isfile(FILE_NAME) else \
        "the default configuration"
    stack = shown(read_context(context)[1].stack_name)
    said = f"Replaying {' and '.join(counted)} from {where} against stack {stack} of {config} on the embedded AWS"
    return "\n".join(_wrap(said, width or terminal_width(), "  "))


def write_json(rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    for item in rows:
        out.write(json_line(item) + "\n")


# The table: each event on a line of its own, then one line per thing done about it, in five columns.
HEADER = ("TRIGGER", "ACTION", "BY", "OUTCOME", "REASON")
OUTCOME, REASON = HEADER.index("OUTCOME"), HEADER.index("REASON")
INDENT, GAP = "  ", "  "
CAPS = (24, 26, 6, 12)  # the widest TRIGGER, ACTION, BY and OUTCOME cells before they wrap
# Who asked for an action (its "origin" in --json): the job (its rule's action_json, the SDK's actions, or its
# tags: whoever started it), the configuration, or a test-notify request; "mixed" on the line a row's repeated
# actions share when they came from more than one.
BY = {"action_json": "job", "config": "config", "test": "test"}
MIN_REASON = 32  # a narrower REASON column goes on lines of its own below its row, the whole width
REASON_INDENT = "      "
WIDTH = 120  # when the output is no terminal and COLUMNS is not set
COLOURS = {"done": "32", "watched": "36", "dry_run": "36", "duplicate": "2", "skipped": "33", "denied": "31",
           "invalid": "31", "failed": "1;31", "IssuesFound": "33", "Error": "31", "NotJudged": "2", "Skipped": "2",
           "problem": "31", "error": "31"}


def terminal_width() -> int:
    """The width to fit: COLUMNS when set, else the terminal's, else WIDTH (a file or a pipe)."""
    return fit_width(WIDTH)


def colour_wanted(out: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org) or the terminal is dumb."""
    return bool(getattr(out, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR") \
        and os.environ.get("TERM") != "dumb"


# A timeline's row when the configuration runs no monitor rules: the table says it once, with what to add.
NO_MONITOR = ("the configuration runs no monitor rules (monitor is null): the stack has no evaluator, so the timeline "
              "was not replayed")
MONITOR_HINT = ('add a monitor block to replay them, e.g. "monitor": {"rules": {"StalledTraining": {}, '
                '"LowGPUUtilization": {}}} (docs/triggers.md, the monitor rules)')


def quiet(item: dict[str, Any]) -> str | None:
    """Why a row is left out of the table without --all (None when it is shown): an event the stack's rule does not
    match, or a repeated delivery whose every action was done or reported before. A row with problems, an error,
    a monitor rule's finding, a reason it was ignored or anything new is always shown."""
    if item.get("ignored") == NO_MONITOR and not item.get("problems"):
        return "no_monitor"
    if item.get("problems") or item.get("error") or item.get("rules") or item.get("ignored"):
        return None
    if not item["matched"] and not item["actions"]:
        return "unmatched"
    actions = item["actions"]
    if actions and all(a["outcome"] == Outcome.DUPLICATE for a in actions):
        return "duplicate"
    return None


def write_table(rows: list[dict[str, Any]], out: TextIO, width: int | None = None, colour: bool = False,
                show_all: bool = False) -> None:
    """Each event (its file, #index or +minute, and job), then trigger | action | by | outcome | reason, one line
    per action (by: who asked for it, `BY`), a monitor rule's finding or a problem (a part of the event that could not be read); every line fits
    `width`: a long cell wraps within its column, and a reason never is cut (it wraps, or takes lines of its own
    when its column would be too narrow). Rows that did nothing (see `quiet`) are counted, not listed, unless
    `show_all`."""
    width = width or terminal_width()
    paint = _painter(colour)
    shown = [item for item in rows if show_all or not quiet(item)]
    blocks = [(_event_line(item), _cells(item, show_all)) for item in shown]
    cells = [cell for _, block in blocks for cell in block]
    widths = _fit([min(cap, max([len(HEADER[i]), *(len(c[i]) for c in cells)])) for i, cap in enumerate(CAPS)],
                  width - len(INDENT) - len(GAP) * (len(CAPS) - 1))
    reason = width - len(INDENT) - sum(widths) - len(GAP) * len(widths)
    inline = reason >= MIN_REASON
    out.write(paint("EVENT  JOB", "1") + "\n")
    head = INDENT + GAP.join(h.ljust(w) for h, w in zip(HEADER, widths, strict=False))
    below = head.rstrip() + "  (REASON below)"
    out.write(paint(head + GAP + "REASON" if inline else below if len(below) <= width else head.rstrip(), "1") + "\n")
    for event, block in blocks:
        for line in _wrap(event, width, "    "):
            out.write(paint(line, "1") + "\n")
        for row in block:
            _write_row(row, widths, reason if inline else None, width, paint, out)
    left_out = Counter(quiet(item) for item in rows if not show_all and quiet(item))
    if left_out:
        parts = [f"{_count(left_out['unmatched'], 'event')} the stack's rule does not match"] \
            if left_out["unmatched"] else []
        if left_out["duplicate"]:
            parts.append(f"{_count(left_out['duplicate'], 'repeated event')} whose every action was done or "
                         "reported before (duplicate)")
        if parts:
            for line in _wrap(f"not listed (--all lists them): {'; '.join(parts)}", width, "  "):
                out.write(paint(line, "2") + "\n")
        if left_out["no_monitor"]:
            told = (f"{_count(left_out['no_monitor'], 'timeline')} not replayed: the configuration runs no monitor "
                    f"rules; {MONITOR_HINT}")
            for line in _wrap(told, width, "  "):
                out.write(paint(line, "1") + "\n")
    for line in _wrap(summary(rows), width, "  "):
        out.write(line + "\n")


def _fit(widths: list[int], room: int) -> list[int]:
    """The columns' widths, the widest narrowed one character at a time until they fit `room` (or reach the
    width of their heading)."""
    widths = list(widths)
    while sum(widths) > room:
        widest = max(range(len(widths)), key=lambda i: widths[i] - len(HEADER[i]))
        if widths[widest] <= len(HEADER[widest]):
            break
        widths[widest] -= 1
    return widths


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _painter(colour: bool) -> Callable[[str, str | None], str]:
    def paint(text: str, code: str | None) -> str:
        return f"\033[{code}m{text}\033[0m" if colour and code and text.strip() else text
    return paint


def _event_line(item: dict[str, Any]) -> str:
    """The event's file name (and #index or +minute), its job (`family:job` for the other families, `account:` in
    organization mode), and "not matched" when the stack's rule does not match it."""
    source = item["source"].rsplit("/", 1)[-1]
    where = item.get("account_alias") or item.get("account")
    job = item.get("job", item.get("training_job"))
    family = item.get("job_family")
    job = f"{family}:{job}" if job and family and family != TRAINING else job
    job = f"{where}:{job}" if where and job else job
    return "  ".join(p for p in (shown(source), shown(job or ""),
                                 "" if item["matched"] else "(not matched by the stack's rule)") if p)


def _by(action: dict[str, Any]) -> str:
    """Who asked for the action (`BY`); an origin it does not know, as it is."""
    origin = str(action.get("origin") or "-")
    return BY.get(origin, origin)


def _one(asked: set[str]) -> str:
    """Who asked for the repeated actions that share a line: the one, or "mixed" (--all gives each)."""
    return next(iter(asked)) if len(asked) == 1 else "mixed"


def _cells(item: dict[str, Any], show_all: bool = True) -> list[tuple[str, str, str, str, str]]:
    """trigger, action, by, outcome, reason: a timeline's findings, the actions (or why there are none), the
    problems. Without `show_all`, a row's duplicate actions (done or reported before) share one line."""
    job = item.get("job", item.get("training_job"))
    found = [(rule["rule"], "evaluated", "-", rule["verdict"], rule["reason"]) for rule in item.get("rules", [])]
    if not item["actions"] and not item.get("rules"):
        note = item.get("error") or item.get("ignored") or ("nothing to act on" if item["matched"] else "")
        word = "error" if item.get("error") else "ignored" if item.get("ignored") else "-"
        if note:
            found.append(("-", "-", "-", word, note))
    repeated = [] if show_all else [a for a in item["actions"] if a["outcome"] == Outcome.DUPLICATE]
    for action in item["actions"]:
        if action in repeated:
            if action is repeated[0]:
                found.append(("-", ", ".join(dict.fromkeys(a["kind"] for a in repeated)),
                              _one({_by(a) for a in repeated}), Outcome.DUPLICATE.value,
                              "done or reported before; --all gives each reason"))
            continue
        found.append((action.get("trigger") or action.get("rule") or "-", _action(action, job), _by(action),
                      action["outcome"], action["reason"]))
    found += [("problem", "-", "-", "-", problem) for problem in item.get("problems", [])]
    # Every cell one line of inert text, bounded: a name's cells to NAME characters, a reason to TEXT.
    return [tuple(shown(cell, TEXT if i == REASON else NAME) for i, cell in enumerate(cells))  # type: ignore[misc]
            for cells in found]


def _action(action: dict[str, Any], job: str | None) -> str:
    """The action's kind, and its target unless it is the event's own job (`stoptraining`, `email a***@...`)."""
    target = str(action.get("target") or "")
    return action["kind"] if target in ("", "-", job) else f"{action['kind']} {shown(target)}"


def _write_row(row: tuple[str, str, str, str, str], widths: list[int], reason: int | None, width: int,
               paint: Callable[[str, str | None], str], out: TextIO) -> None:
    columns = [_wrap(cell, w) for cell, w in zip(row, widths, strict=False)]
    said = _wrap(row[REASON], reason) if reason else []
    colour = COLOURS.get(row[OUTCOME]) or COLOURS.get(row[0])
    for index in range(max(len(c) for c in [*columns, said])):
        cells = [c[index] if index < len(c) else "" for c in columns]
        text = [cell.ljust(w) for cell, w in zip(cells, widths, strict=False)]
        text[OUTCOME] = paint(text[OUTCOME], colour)
        line = INDENT + GAP.join(text) + (GAP + said[index] if index < len(said) else "")
        out.write(line.rstrip() + "\n")
    if reason is None:
        for line in _wrap(row[REASON], width - len(REASON_INDENT)):
            out.write(REASON_INDENT + line + "\n")


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    """`text` in lines of at most `width` characters (the lines after the first indented by `indent`); a word
    longer than a line is split, never cut."""
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


def write_deliveries(deliveries: list[Delivery], out: TextIO, width: int | None = None) -> None:
    """What each destination of the topics received, grouped by destination in the order first reached: each
    message's subject, then its text as the destination shows it, indented: a text message whole, with its length
    and SMS parts; a chat notification's description line by line, its line breaks kept (every line fits `width`,
    a long one wraps, none is cut; addresses redacted)."""
    width = width or terminal_width()
    by_destination: dict[str, list[Delivery]] = {}
    for delivery in deliveries:
        by_destination.setdefault(redact(delivery.to), []).append(delivery)
    heading = f"what the topics delivered: {len(deliveries)} message(s)" + (
        " (each: its subject, then its text message as a phone shows it, or a chat notification as the channel "
        "does)" if deliveries else "")
    for line in _wrap(heading, width, "  "):
        out.write(line + "\n")
    for to, received in by_destination.items():
        audience = "the team" if to == "team" else to
        out.write(f"  to {shown(audience)}: {len(received)}\n")
        for item in received:
            for line in _wrap(redact(shown(item.subject, TEXT)) or "(no subject)", width - 4, "  "):
                out.write(f"    {line}\n")
            text = redact(item.text[:MESSAGE])
            if item.kind == "sms":
                out.write(f"      {sms_size(item.text)}:\n")
            for part in text.split("\n"):
                for line in _wrap(spaced(part, MESSAGE), width - 8):
                    out.write(f"        {line}\n")
            if len(item.text) > MESSAGE:
                out.write(f"        ... ({len(item.text):,} characters)\n")


# GSM 03.38's basic character set: a text message of only these is sent in GSM-7 (160 characters in one part, 153 a
# part when split); any other character makes it UCS-2 (70, 67 a part). The characters of its extension table count
# twice.
GSM_BASIC = set("@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8"
                "\u03a3\u0398\u039e\u00c6\u00e6\u00df\u00c9 !\"#\u00a4%&'()*+,-./0123456789:;<=>?\u00a1ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "\u00c4\u00d6\u00d1\u00dc\u00a7\u00bfabcdefghijklmnopqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0")
GSM_EXTENSION = set("^{}\\[~]|\u20ac\f")


def sms_size(text: str) -> str:
    """A text message's length and parts as SNS sends it: "text message, 127 characters, 1 SMS part (GSM-7)"."""
    if all(c in GSM_BASIC or c in GSM_EXTENSION for c in text):
        units, single, part, encoding = len(text) + sum(c in GSM_EXTENSION for c in text), 160, 153, "GSM-7"
    else:
        units, single, part, encoding = len(text.encode("utf-16-le")) // 2, 70, 67, "UCS-2"
    parts = 1 if units <= single else -(-units // part)
    return f"text message, {len(text):,} characters, {_count(parts, 'SMS part')} ({encoding})"


def summary(rows: list[dict[str, Any]]) -> str:
    counts = Counter(a["outcome"] for item in rows for a in item["actions"])
    matched = sum(1 for item in rows if item["matched"])
    parts = [f"{counts[o]} {o}" for o in OUTCOMES if counts[o]]
    flawed = sum(1 for item in rows if item.get("problems") or item.get("error"))
    tail = f"; {flawed} with problems (see their rows)" if flawed else ""
    return f"{_count(len(rows), 'event')}, {matched} matched the stack's rule; actions: {', '.join(parts) or 'none'}{tail}"
