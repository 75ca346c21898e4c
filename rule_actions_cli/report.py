"""Output of `replay` and `invoke`: a table a person reads at a glance, or one JSON object per event."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any, TextIO

from rule_actions.contract import Outcome
from rule_actions.privacy import redact

OUTCOMES = tuple(outcome.value for outcome in Outcome)
NOTABLE = ("IssuesFound", "Skipped", "NotJudged", "Error")  # the monitor rules' verdicts a row shows


TRAINING = "training"  # the family whose job "training_job" names (the key of the first releases)


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


def write_json(rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    for item in rows:
        out.write(json.dumps(item, ensure_ascii=False) + "\n")


def write_table(rows: list[dict[str, Any]], out: TextIO, width: int = 56) -> None:
    """event | job | matched | trigger | action | target | outcome | reason, one line per action; a row's
    problems (parts of the event that could not be read) on lines of their own."""
    lines = [("EVENT", "JOB", "MATCHED", "TRIGGER", "ACTION", "TARGET", "OUTCOME", "REASON")]
    for item in rows:
        name, _, index = item["source"].rsplit("/", 1)[-1].partition("#")  # the file name (and #index)
        source = _short(name, 36 - len(index) - 1) + f"#{index}" if index else _short(name, 36)
        where = item.get("account_alias") or item.get("account")  # organization mode: the job's account
        job = item.get("job", item.get("training_job"))
        family = item.get("job_family")
        job = f"{family}:{job}" if job and family and family != TRAINING else job  # other families say which
        job = f"{where}:{job}" if where and job else job
        first = (source, _short(job or "-", 36), "yes" if item["matched"] else "no")
        for rule in item.get("rules", []):  # a timeline's evaluation: what the monitor rules found
            lines.append((*first, _short(rule["rule"], 24), "evaluated", "-", rule["verdict"],
                          _short(rule["reason"], width)))
            first = ("", "", "")
        if not item["actions"] and not item.get("rules"):
            note = item.get("error") or item.get("ignored") or ("nothing to act on" if item["matched"] else "")
            lines.append((*first, "-", "-", "-", "-", _short(note, width)))
        for index, action in enumerate(item["actions"]):
            lead = first if index == 0 else ("", "", "")
            lines.append(
                (*lead, _short(action.get("trigger") or action.get("rule") or "-", 24), action["kind"],
                 _short(str(action["target"]), 28), action["outcome"], _short(action["reason"], width))
            )
        lines += [("", "", "", "problem", "-", "-", "-", _short(problem, width)) for problem in item.get("problems", [])]
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]) - 1)]
    for line in lines:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=False)) + "  " + line[-1] + "\n")
    out.write(summary(rows) + "\n")


def summary(rows: list[dict[str, Any]]) -> str:
    counts = Counter(a["outcome"] for item in rows for a in item["actions"])
    matched = sum(1 for item in rows if item["matched"])
    parts = [f"{counts[o]} {o}" for o in OUTCOMES if counts[o]]
    flawed = sum(1 for item in rows if item.get("problems") or item.get("error"))
    tail = f"; {flawed} with problems (see their rows)" if flawed else ""
    return f"{len(rows)} events, {matched} matched the stack's rule; actions: {', '.join(parts) or 'none'}{tail}"


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
