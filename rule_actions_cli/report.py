"""Output of `replay` and `invoke`: a table a person reads at a glance, or one JSON object per event."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any, TextIO

OUTCOMES = ("done", "duplicate", "skipped", "denied", "invalid", "failed", "dry_run")


def row(source: str, training_job: str | None, matched: bool, result: dict[str, Any] | None) -> dict[str, Any]:
    """The JSON shape: {"source", "training_job", "matched", "actions"} (+ "ignored" / "error" when present)."""
    out: dict[str, Any] = {"source": source, "training_job": training_job, "matched": matched, "actions": []}
    if result:
        out["actions"] = result.get("actions", [])
        out.update({key: result[key] for key in ("ignored", "error") if result.get(key)})
    return out


def write_json(rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    for item in rows:
        out.write(json.dumps(item, ensure_ascii=False) + "\n")


def write_table(rows: list[dict[str, Any]], out: TextIO, width: int = 56) -> None:
    """event | job | matched | rule | action | target | outcome | reason, one line per action."""
    lines = [("EVENT", "JOB", "MATCHED", "RULE", "ACTION", "TARGET", "OUTCOME", "REASON")]
    for item in rows:
        name, _, index = item["source"].rsplit("/", 1)[-1].partition("#")  # the file name (and #index)
        source = _short(name, 36 - len(index) - 1) + f"#{index}" if index else _short(name, 36)
        first = (source, _short(item["training_job"] or "-", 36), "yes" if item["matched"] else "no")
        if not item["actions"]:
            note = item.get("error") or item.get("ignored") or ("no rule to act on" if item["matched"] else "")
            lines.append((*first, "-", "-", "-", "-", _short(note, width)))
        for index, action in enumerate(item["actions"]):
            lead = first if index == 0 else ("", "", "")
            lines.append(
                (*lead, _short(action["rule"], 24), action["kind"], _short(str(action["target"]), 28), action["outcome"],
                 _short(action["reason"], width))
            )
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]) - 1)]
    for line in lines:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(line, widths)) + "  " + line[-1] + "\n")
    out.write(summary(rows) + "\n")


def summary(rows: list[dict[str, Any]]) -> str:
    counts = Counter(a["outcome"] for item in rows for a in item["actions"])
    matched = sum(1 for item in rows if item["matched"])
    parts = [f"{counts[o]} {o}" for o in OUTCOMES if counts[o]]
    return f"{len(rows)} events, {matched} matched the stack's rule; actions: {', '.join(parts) or 'none'}"


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
