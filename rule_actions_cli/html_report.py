"""`rule-actions replay --html FILE`: the replay as one self-contained HTML page a person opens offline.

    page(events, rows)   the page: per timeline replayed, each job's chart (rule_actions_cli.charts: its phases, log
                         lines and silences, GPU use, cost against its budget, findings and the runs that acted) and
                         its findings and actions listed in full; then every other event's row; then the summary
    unwritable(path)     why --html cannot write there (checked before anything is replayed): a line, or none
    write(path, ...)     the page written (UTF-8), through a temporary file beside it, renamed

Inline CSS and inline SVG only: no script, no font, image or stylesheet of elsewhere, no URL to load. Every value
(a job name, a reason, a file name) is untrusted: bounded and HTML-escaped (charts.esc).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rule_actions.text import os_problem
from rule_actions_cli.charts import Story, cost_bar, esc, job_chart, stories
from rule_actions_cli.replay_table import summary
from rule_actions_cli.terminal import TEXT

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;max-width:1000px;
color:#111827;background:#fff;padding:0 12px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 4px;border-bottom:1px solid #e5e7eb}
h3{font-size:15px;margin:20px 0 6px;word-break:break-all}p.meta,p.note{color:#4b5563;font-size:13px;margin:4px 0}
figure{margin:8px 0;overflow-x:auto}svg.ra-chart{display:block;max-width:100%;height:auto}
table{border-collapse:collapse;font-size:12px;width:100%;margin:6px 0 12px}
th,td{border-bottom:1px solid #e5e7eb;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f4f6}td{white-space:nowrap}td.reason{white-space:normal;word-break:break-word}
.o-done{color:#166534;font-weight:600}.o-failed,.o-denied,.o-invalid,.o-error,.o-problem{color:#b91c1c;font-weight:600}
.o-skipped,.o-IssuesFound{color:#92400e;font-weight:600}.o-watched,.o-dry_run{color:#0e7490}
"""


def unwritable(path: str | None) -> list[str]:
    """Why the page cannot be written at `path` (its folder missing, not writable, a directory there): a line, or
    none (none too without --html)."""
    if path is None:
        return []
    found = _unwritable(path)
    return [found] if found else []


def _unwritable(path: str) -> str | None:
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"--html {path}: is a directory; give a file name, e.g. {os.path.join(path, 'replay.html')}"
    if not folder.is_dir():
        return f"--html {path}: the folder {folder} does not exist"
    if not os.access(folder, os.W_OK):
        return f"--html {path}: the folder {folder} is not writable"
    return None


def write(path: str, events: Sequence[tuple[str, Any]], rows: Sequence[Mapping[str, Any]]) -> None:
    """The page at `path`, whole or not at all (a temporary file beside it, renamed); OSError when it cannot be."""
    text = page(events, rows)
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=".rule-actions-", suffix=".html", dir=target.parent or Path("."))
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def problem(path: str, err: OSError) -> str:
    return f"--html {path}: cannot write it ({os_problem(err)})"


def page(events: Sequence[tuple[str, Any]], rows: Sequence[Mapping[str, Any]]) -> str:
    """The whole page: a chart per job of each timeline, its findings and actions, the other events' rows."""
    found = stories(events, rows)
    sources = {story.source for story in found}
    timelines = [source for source, data in events if isinstance(data, dict) and "timeline" in data
                 and "jobs" in data]
    body = ["<h1>rule-actions replay</h1>",
            f'<p class="meta">{esc(summary([dict(row) for row in rows]), TEXT)}. Made by <code>rule-actions replay --html</code> on '
            "the embedded account (moto): the jobs are the inputs' own; costs use the replay's sample prices "
            "(not AWS's).</p>"]
    by_source: dict[str, list[Story]] = {}
    for story in found:
        by_source.setdefault(story.source, []).append(story)
    for source in dict.fromkeys(timelines):
        body.append(f"<h2>Timeline {esc(source.rsplit('/', 1)[-1])}</h2>")
        data = dict(events)[source] if source in dict(events) else {}
        if isinstance(data, dict) and isinstance(data.get("timeline"), str):
            body.append(f'<p class="meta">{esc(data["timeline"], TEXT)}</p>')
        if source not in sources:
            said = [row for row in rows if row.get("source") == source]
            body.append('<p class="note">Not drawn: '
                        + "; ".join(esc(p, TEXT) for row in said for p in [*row.get("problems", []),
                                                                           *[row.get("ignored") or ""]] if p)
                        + "</p>")
            continue
        for story in by_source[source]:
            body += _job_section(story)
    others = [row for row in rows if not any(str(row.get("source", "")) == s or
                                             str(row.get("source", "")).startswith(s + "#+") for s in timelines)]
    if others:
        body.append("<h2>Events</h2>")
        body.append(_rows_table(others))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>rule-actions replay</title><style>" + CSS + "</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _job_section(story: Story) -> list[str]:
    out = [f"<h3>{esc(story.job)}</h3>"]
    for note in story.notes:
        out.append(f'<p class="note">{esc(note, TEXT)}</p>')
    out.append(f"<figure>{job_chart(story)}</figure>")
    bar = cost_bar(story)
    if bar:
        out.append(f"<figure>{bar}</figure>")
    out.append(_marks_table(story))
    return out


def _outcome(word: str) -> str:
    return f'<td class="o-{esc(word)}">{esc(word)}</td>'


def _marks_table(story: Story) -> str:
    """Every finding and action of the job's rows (a duplicate left out: its first is listed), by run."""
    if not story.marks:
        return '<p class="note">The stack found nothing and did nothing about this job.</p>'
    lines = ["<table><tr><th>run</th><th>trigger</th><th>action</th><th>outcome</th><th>reason</th></tr>"]
    for mark in story.marks:
        action = "evaluated" if mark.what == "finding" else mark.kind + (
            f" {mark.target}" if mark.target and mark.target not in ("-", story.job) else "")
        lines.append(f"<tr><td>+{mark.minute} min</td><td>{esc(mark.trigger)}</td><td>{esc(action)}</td>"
                     f"{_outcome(mark.outcome)}<td class=\"reason\">{esc(mark.reason, TEXT)}</td></tr>")
    return "".join(lines) + "</table>"


def _rows_table(rows: Iterable[Mapping[str, Any]]) -> str:
    lines = ["<table><tr><th>event</th><th>job</th><th>trigger</th><th>action</th><th>outcome</th><th>reason</th>"
             "</tr>"]
    for row in rows:
        source = str(row.get("source", "")).rsplit("/", 1)[-1]
        job = row.get("job") or ""
        family = row.get("job_family")
        job = f"{family}:{job}" if job and family and family != "training" else job
        items = [(a.get("trigger") or a.get("rule") or "-", a.get("kind", ""), a.get("outcome", ""),
                  a.get("reason", "")) for a in row.get("actions", [])]
        items += [("problem", "-", "problem", p) for p in row.get("problems", [])]
        if row.get("error") or row.get("ignored"):
            items.append(("-", "-", "error" if row.get("error") else "ignored", row.get("error") or row.get("ignored")))
        if not items:
            items.append(("-", "-", "-", "nothing to act on" if row.get("matched") else "not matched by the stack's "
                          "rule"))
        for index, (trigger, kind, outcome, reason) in enumerate(items):
            head = (f"<td>{esc(source)}</td><td>{esc(job)}</td>" if index == 0 else "<td></td><td></td>")
            lines.append(f"<tr>{head}<td>{esc(trigger)}</td><td>{esc(kind)}</td>{_outcome(str(outcome))}"
                         f"<td class=\"reason\">{esc(reason, TEXT)}</td></tr>")
    return "".join(lines) + "</table>"

