"""A replayed timeline's jobs as pictures: what each job did minute by minute and what the stack did about it, drawn
as inline SVG (stdlib only: no plotting library, no script, no font or image of elsewhere).

    stories(events, rows)  per job of each timeline replayed: a Story, from the timeline (its phases, its
                           GPUUtilization, its log lines) and the replay's rows (its findings, the actions and their
                           outcomes, the costs the function said); nothing else: a figure the rows do not state is
                           not drawn
    job_chart(story)       the job's chart: phases, log lines and silences, GPU use, cost against its budget,
                           findings and actions, on one time axis (minutes from the timeline's start)
    cost_bar(story)        what the job cost until its stop against its budget and its warnings, and what the stop
                           saved at most (the rest of its MaxRuntimeInSeconds), when the rows say so

What is drawn of the timeline is what the replay seeds (rule_actions_cli.embedded): a job's datapoints and log lines
while it is InProgress, until the run that stopped it. Its costs are the function's own figures, read from what its
rows say (a Budget finding's "its cost $5.55 passed 50% of its budget $10.00", a stop's "cost $10.28 until the stop;
saved at most $18.08"), joined by straight lines from the minute it started on its instances (its billing start, as
the replay's TrainingStartTime); between two figures the line is theirs, never a price of its own. Every text comes
from a file or a result and is untrusted: bounded (terminal.shown) and escaped (html.escape) before it is written.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from rule_actions_cli.terminal import NAME, TEXT, shown
from rule_actions_cli.timeline import Job, Timeline, read

TICK = re.compile(r"#\+(\d+)m$")  # a timeline's row: FILE#+<minute>m
MONEY = r"\$([0-9][0-9,]*\.[0-9]{2})"
COST_SAID = re.compile(rf"its cost {MONEY} (?:passed|is)")  # a Budget rule's reason (monitors/budget.py)
BUDGET_SAID = re.compile(rf"of its budget {MONEY}|passed its budget {MONEY}")
WARNING_SAID = re.compile(rf"passed ([0-9]+(?:\.[0-9]+)?)% of its budget {MONEY}")
STOP_SAID = re.compile(rf"cost {MONEY} until the stop(?:; saved at most {MONEY})?")  # cost.stop_note
UNBILLED = ("Starting", "Pending", "LaunchingMLInstances")  # phases before billing starts (embedded._advance)
STOPS = ("stoptraining", "stop")
GPU = "GPUUtilization"

# Colours: one per phase group, outcome and series (also what the screenshot test looks for).
PHASE_COLOURS = {"Starting": "#9aa5b1", "Pending": "#9aa5b1", "LaunchingMLInstances": "#9aa5b1",
                 "Downloading": "#7fb3e6", "DownloadingTrainingImage": "#7fb3e6", "Training": "#4c9f70",
                 "Uploading": "#a58fd6", "Stopping": "#f4a261", "Stopped": "#e76f51", "Completed": "#2a9d8f",
                 "Failed": "#b5171d", "InProgress": "#4c9f70"}
OTHER_PHASE = "#c9a227"
STOP_COLOUR = "#c1121f"
FINDING_COLOUR = "#e09400"
NOTIFY_COLOUR = "#1d4ed8"
OTHER_ACTION = "#6b7280"
GPU_COLOUR = "#6a4c93"
COST_COLOUR = "#0b6e4f"
SILENCE_COLOUR = "#fbd5d5"
LOG_COLOUR = "#4b5563"
SAVED_COLOUR = "#b7e4c7"

WIDTH = 960
LEFT = 150  # the lanes' labels
RIGHT = 20
FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\""
CHAR = 6.2  # a label's character width at 11 px, about: wider labels are left out of a narrow span
SILENCE_SHOWN = 5  # minutes: a silence this long or longer is shaded and said


@dataclass(frozen=True)
class Mark:
    """Something the stack found or did at a run (`minute`): a monitor rule's verdict, or an action's outcome."""

    minute: int
    what: str  # "finding" | "action"
    trigger: str
    kind: str  # the verdict (IssuesFound...) or the action's kind (stoptraining, notify...)
    outcome: str
    reason: str
    target: str = ""


@dataclass
class Story:
    """One job of a replayed timeline: what the timeline says it did, what the replay's rows say was done."""

    source: str
    title: str
    start: int  # the timeline's start, epoch seconds
    minutes: int
    job: str
    family: str
    resources: str  # "2 x ml.p4d.24xlarge"
    phases: list[tuple[int, int, str]] = field(default_factory=list)  # (from, to, phase) minutes
    gpu: list[tuple[int, float]] = field(default_factory=list)  # (minute, mean of its hosts), as published
    hosts: int = 0
    logs: list[int] = field(default_factory=list)  # the minutes with a log line from some host
    silences: list[tuple[int, int]] = field(default_factory=list)  # (from, to): no line from any host
    marks: list[Mark] = field(default_factory=list)
    stopped: int | None = None  # the run that stopped it
    billing_start: int | None = None
    costs: list[tuple[int, float]] = field(default_factory=list)  # (minute, USD) the function said
    budget: float | None = None
    warnings: list[tuple[int, float]] = field(default_factory=list)  # (minute, the fraction passed)
    stop_cost: float | None = None
    saved: float | None = None
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------ the data


def tick_of(source: str) -> int | None:
    found = TICK.search(source)
    return int(found.group(1)) if found else None


def stories(events: Iterable[tuple[str, Any]], rows: Sequence[Mapping[str, Any]]) -> list[Story]:
    """The stories of every timeline among `events` (a replay's inputs) from its rows; a timeline that cannot be read
    has none (its row says why)."""
    found: list[Story] = []
    for source, data in events:
        if not (isinstance(data, dict) and "timeline" in data and "jobs" in data):
            continue
        timeline, _ = read(data, source)
        if timeline is None:
            continue
        own = [row for row in rows if row.get("source", "").startswith(source + "#+")]
        said = [str(row["ignored"]) for row in rows if row.get("source") == source and row.get("ignored")]
        found += timeline_stories(timeline, own, said)
    return found


def timeline_stories(timeline: Timeline, rows: Sequence[Mapping[str, Any]], said: Sequence[str] = ()) -> list[Story]:
    """A story per job of the timeline, then per job its rows name that the timeline does not list (a tuning job's
    trial, a restart's copy), in the order first named."""
    by_job: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_job.setdefault(str(row.get("job") or ""), []).append(row)
    jobs: list[Job] = list(timeline.jobs)
    names = {job.name for job in jobs}
    copies = _copies(timeline, rows)
    out = []
    for job in jobs:
        out.append(_story(timeline, job, by_job.get(job.name, []), said))
        for trial in job.trials:
            names.add(trial.name)
            story = Story(timeline.source, timeline.title, timeline.start, timeline.minutes, trial.name, "training",
                          f"a trial of {job.name}")
            story.phases = [(trial.start, trial.end, "InProgress")]
            if trial.end < timeline.minutes:
                story.phases.append((trial.end, timeline.minutes, trial.status))
            story.notes.append("a trial of the tuning job: the timeline gives its run, not its metrics, log lines "
                               "or cost")
            _rows_into(story, by_job.get(trial.name, []))
            out.append(story)
    for name, group in by_job.items():
        if name in names or not name:
            continue
        copy = copies.get(name)
        if copy is not None:
            story = _story(timeline, copy, group, said)
            story.notes.append(f"a copy the function created (a restart of {copy.restarted_from}): what the "
                               "timeline's restarts says its attempt does")
        else:
            story = Story(timeline.source, timeline.title, timeline.start, timeline.minutes, name,
                          str(group[0].get("job_family") or ""), "")
            story.notes.append("not a job of the timeline's list: its phases, metrics and log lines are not drawn")
            _rows_into(story, group)
        out.append(story)
    return out


def _copies(timeline: Timeline, rows: Sequence[Mapping[str, Any]]) -> dict[str, Job]:
    """The restarts' copies the rows name (a restart done, its `jobs`), as the replay plays them: their attempt's
    spec (the chain's first job's `restarts`) from the run that created them."""
    roots = {job.name: (job, 0) for job in timeline.jobs}
    found: dict[str, Job] = {}
    for row in sorted(rows, key=lambda r: tick_of(str(r.get("source", ""))) or 0):
        minute = tick_of(str(row.get("source", "")))
        for action in row.get("actions", []):
            if action.get("kind") != "restart" or action.get("outcome") != "done" or minute is None:
                continue
            parent = roots.get(str(row.get("job")))
            for name in action.get("jobs") or []:
                if parent is None or name in roots:
                    continue
                root, attempt = parent[0], parent[1] + 1
                spec = root.restarts[attempt - 1] if attempt <= len(root.restarts) else None
                if spec is None:
                    continue
                copy = spec.attempt(minute, name, root.instance_type, root.instance_count, root.tags, None,
                                    str(row.get("job")))
                roots[name] = (root, attempt)
                found[name] = copy
    return found


def _story(timeline: Timeline, job: Job, rows: Sequence[Mapping[str, Any]], said: Sequence[str]) -> Story:
    story = Story(timeline.source, timeline.title, timeline.start, timeline.minutes, job.name, job.family,
                  f"{job.instance_count} x {job.instance_type}")
    story.notes += list(said)
    _rows_into(story, rows)
    end = story.stopped if story.stopped is not None else timeline.minutes
    stopped_at = min((m.minute for m in story.marks if m.trigger == "job:Stopped"), default=None)
    # Its phases: the timeline's until the stop, then Stopping until its Stopped outcome (the replay's next run).
    spans = [(p[0], p[2] or p[1]) for p in job.phases if p[0] < end]
    if story.stopped is not None and job.family == "training":
        spans.append((story.stopped, "Stopping"))
        if stopped_at is not None and stopped_at > story.stopped:
            spans.append((stopped_at, "Stopped"))
    elif story.stopped is not None:  # another family's state change is not replayed: Stopped by the stack's stop
        spans.append((story.stopped, "Stopped"))
    for index, (first, phase) in enumerate(spans):
        last = spans[index + 1][0] if index + 1 < len(spans) else timeline.minutes
        if last > first:
            story.phases.append((first, last, phase))
    running = [m for m in range(0, end) if (job.phase(m) or (0, ""))[1] == "InProgress"]
    gpu = [s for s in job.metrics if s.metric == GPU]
    hosts = job.hosts
    story.hosts = len(hosts)
    for minute in running:
        values = [v for s in gpu for host in (s.hosts or (None,))
                  if (v := s.at(job.name, host, minute)) is not None]
        if values:
            story.gpu.append((minute, sum(values) / len(values)))
    logged = sorted({m for lines in job.logs for m in range(max(0, lines.start), min(end, lines.end))
                     if not (m - lines.start) % lines.every and (job.phase(m) or (0, ""))[1] == "InProgress"})
    story.logs = logged
    # Its silences: from a line to the next (or to the end of what was published), as StalledTraining counts them;
    # the minutes before its first line (starting, downloading) are no silence of a job that logs.
    if running and logged:
        marks = [*logged, running[-1] + 1]
        for before, after in pairwise(marks):
            if after - before - 1 >= SILENCE_SHOWN:
                story.silences.append((before + 1, after))
    elif running:
        story.notes.append("the timeline gives this job no log line")
    billed = [p[0] for p in job.phases if p[1] == "InProgress" and p[2] not in UNBILLED]
    story.billing_start = billed[0] if billed else None
    if not gpu:
        story.notes.append(f"the timeline gives this job no {GPU}: no GPU panel")
    if not story.costs:
        story.notes.append("its rows state no cost (no Budget rule judged it, no stop said its cost): no cost panel")
    return story


def _money(text: str) -> float:
    return float(text.replace(",", ""))


def _rows_into(story: Story, rows: Sequence[Mapping[str, Any]]) -> None:
    """The rows' findings and actions as marks (a duplicate, a repeat of what was said, left out: its first is
    there), and the costs they state."""
    for row in rows:
        minute = tick_of(str(row.get("source", "")))
        if minute is None:
            continue
        for rule in row.get("rules", []):
            story.marks.append(Mark(minute, "finding", str(rule.get("rule", "")), str(rule.get("verdict", "")),
                                    str(rule.get("verdict", "")), str(rule.get("reason", ""))))
            reason = str(rule.get("reason", ""))
            if rule.get("rule") == "Budget":
                cost, budget = COST_SAID.search(reason), BUDGET_SAID.search(reason)
                if cost:
                    story.costs.append((minute, _money(cost.group(1))))
                if budget:
                    story.budget = _money(budget.group(1) or budget.group(2))
                warning = WARNING_SAID.search(reason)
                if warning and rule.get("verdict") == "IssuesFound":
                    story.warnings.append((minute, float(warning.group(1)) / 100))
        for action in row.get("actions", []):
            if action.get("outcome") == "duplicate":
                continue
            story.marks.append(Mark(minute, "action", str(action.get("trigger") or action.get("rule") or "-"),
                                    str(action.get("kind", "")), str(action.get("outcome", "")),
                                    str(action.get("reason", "")), str(action.get("target") or "")))
            if action.get("kind") in STOPS and action.get("outcome") == "done" and story.job in (
                    action.get("jobs") or [story.job]):
                if story.stopped is None:
                    story.stopped = minute
                stop = STOP_SAID.search(str(action.get("reason", "")))
                if stop:
                    story.stop_cost = _money(stop.group(1))
                    story.saved = _money(stop.group(2)) if stop.group(2) else None
                    story.costs.append((minute, story.stop_cost))
        for problem in row.get("problems", []):
            story.marks.append(Mark(minute, "action", "problem", "-", "problem", str(problem)))
        if row.get("error") or row.get("ignored"):
            story.marks.append(Mark(minute, "action", "-", "-", "error" if row.get("error") else "ignored",
                                    str(row.get("error") or row.get("ignored"))))
    story.costs = sorted(dict(story.costs).items())


# ------------------------------------------------------------------------------------------------ drawing


def esc(value: Any, limit: int | None = NAME) -> str:
    """Untrusted text as SVG or HTML text or attribute: one line, bounded, escaped."""
    return html.escape(shown(value, limit), quote=True)


class Axis:
    """Minutes to x: the timeline's whole length across the plot."""

    def __init__(self, minutes: int) -> None:
        self.minutes = max(1, minutes)
        self.left, self.right = LEFT, WIDTH - RIGHT

    def x(self, minute: float) -> float:
        return round(self.left + (self.right - self.left) * minute / self.minutes, 1)


def _text(x: float, y: float, words: str, size: int = 11, anchor: str = "start", colour: str = "#1f2937",
          weight: str = "normal") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
            f'font-weight="{weight}">{words}</text>')


def _clock(start: int, minute: int) -> str:
    return datetime.fromtimestamp(start + minute * 60, UTC).strftime("%H:%M")


def _step(minutes: int) -> int:
    return next(s for s in (5, 10, 15, 30, 60, 120, 240, 480, 1440) if minutes / s <= 12)


def job_chart(story: Story) -> str:
    """The job's chart as one <svg> element (no blank line in it: Markdown keeps it one HTML block)."""
    axis = Axis(story.minutes)
    parts: list[str] = []
    y = 26
    parts.append(_text(10, 18, esc(story.job), 13, weight="bold")
                 + _text(WIDTH - RIGHT, 18, esc(f"{story.family} job, {story.resources}" if story.resources
                                                else f"{story.family} job"), 11, "end", "#4b5563"))
    lanes: list[tuple[str, int, int]] = []  # (label, top, height)

    # Phases
    top, height = y + 20, 26
    lanes.append(("phase", top, height))
    for first, last, phase in story.phases:
        x0, x1 = axis.x(first), axis.x(last)
        colour = PHASE_COLOURS.get(phase, OTHER_PHASE)
        parts.append(f'<rect x="{x0}" y="{top}" width="{round(x1 - x0, 1)}" height="{height}" fill="{colour}">'
                     f'<title>{esc(phase)}: +{first} to +{last} min</title></rect>')
        if (x1 - x0) > len(phase) * CHAR + 6:
            parts.append(_text(round((x0 + x1) / 2, 1), top + 17, esc(phase), 11, "middle", "#ffffff", "bold"))
    y = top + height

    # Log lines and silences
    top, height = y + 10, 18
    lanes.append(("log lines", top, height))
    parts.append(f'<rect x="{axis.left}" y="{top}" width="{axis.right - axis.left}" height="{height}" '
                 f'fill="#f3f4f6"/>')
    for first, last in story.silences:
        x0, x1 = axis.x(first), axis.x(last)
        parts.append(f'<rect x="{x0}" y="{top}" width="{round(x1 - x0, 1)}" height="{height}" fill="{SILENCE_COLOUR}">'
                     f'<title>no log line from any host: +{first} to +{last} min</title></rect>')
        words = f"silent {last - first} min"
        if x1 - x0 > len(words) * CHAR:
            parts.append(_text(round((x0 + x1) / 2, 1), top + 13, words, 10, "middle", STOP_COLOUR))
    if story.logs:
        path = " ".join(f"M{axis.x(m + 0.5)} {top + 3}v{height - 6}" for m in story.logs)
        parts.append(f'<path d="{path}" stroke="{LOG_COLOUR}" stroke-width="1"/>')
    y = top + height

    # GPU use (a job without its datapoints: no panel, its notes say so)
    top, height = y + 14, 70
    if story.gpu:
        lanes.append(("GPU use", top, height))
        parts.append(_panel(axis, top, height))
        peak = max(100.0, max(v for _, v in story.gpu))
        ceiling = 100 * -(-peak // 100)
        scale = height / ceiling
        parts.append(_text(axis.left - 6, top + 9, f"{ceiling:g}%", 9, "end", "#6b7280")
                     + _text(axis.left - 6, top + height, "0", 9, "end", "#6b7280"))
        for segment in _segments(story.gpu):
            points = " ".join(f"{axis.x(m + 0.5)},{round(top + height - v * scale, 1)}" for m, v in segment)
            parts.append(f'<polyline points="{points}" fill="none" stroke="{GPU_COLOUR}" stroke-width="2"/>')
        y = top + height

    # Cost against the budget
    top, height = y + 14, 70
    figures = ([(story.billing_start, 0.0)] if story.billing_start is not None and story.costs
              and story.billing_start < story.costs[0][0] else []) + [(m, v) for m, v in story.costs]
    if figures:
        lanes.append(("cost", top, height))
        parts.append(_panel(axis, top, height))
        ceiling = max([v for _, v in figures] + [story.budget or 0.0]) * 1.1 or 1.0
        scale = height / ceiling

        def level(usd: float) -> float:
            return round(top + height - usd * scale, 1)

        if story.budget is not None:
            parts.append(f'<line x1="{axis.left}" x2="{axis.right}" y1="{level(story.budget)}" '
                         f'y2="{level(story.budget)}" stroke="{STOP_COLOUR}" stroke-dasharray="6 4"/>'
                         + _text(axis.right - 4, level(story.budget) - 4, esc(f"budget ${story.budget:,.2f}"), 10,
                                 "end", STOP_COLOUR))
            for fraction in sorted({f for _, f in story.warnings}):
                parts.append(f'<line x1="{axis.left}" x2="{axis.right}" y1="{level(story.budget * fraction)}" '
                             f'y2="{level(story.budget * fraction)}" stroke="{FINDING_COLOUR}" '
                             f'stroke-dasharray="2 3"/>'
                             + _text(axis.right - 4, level(story.budget * fraction) - 4,
                                     esc(f"warn at {fraction:.0%}"), 10, "end", FINDING_COLOUR))
        line = " ".join(f"{axis.x(m)},{level(v)}" for m, v in figures)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{COST_COLOUR}" stroke-width="2"/>')
        for m, v in figures:
            parts.append(f'<circle cx="{axis.x(m)}" cy="{level(v)}" r="3" fill="{COST_COLOUR}">'
                         f'<title>+{m} min: ${v:,.2f}</title></circle>')
        m, v = figures[-1]
        parts.append(_text(min(axis.x(m) + 6, axis.right - 60), max(level(v) - 6, top + 10), esc(f"${v:,.2f}"), 10,
                           colour=COST_COLOUR, weight="bold"))
        parts.append(_text(axis.left - 6, top + 9, esc(f"${ceiling:,.0f}"), 9, "end", "#6b7280")
                     + _text(axis.left - 6, top + height, "$0", 9, "end", "#6b7280"))
        y = top + height

    # Findings and actions
    top, height = y + 14, 40
    lanes.append(("found / done", top, height))
    parts.append(f'<rect x="{axis.left}" y="{top}" width="{axis.right - axis.left}" height="{height}" '
                 f'fill="#f9fafb"/>')
    seen: set[tuple[int, str, str]] = set()
    for mark in story.marks:
        key = (mark.minute, mark.what, mark.kind)
        if key in seen:
            continue
        seen.add(key)
        x = axis.x(mark.minute)
        tip = esc(f"+{mark.minute} min {mark.trigger}: {mark.kind} {mark.outcome}: {mark.reason}", TEXT)
        if mark.what == "finding":
            colour = FINDING_COLOUR if mark.kind in ("IssuesFound", "Error") else OTHER_ACTION
            parts.append(f'<path d="M{x} {top + 3}l6 10h-12z" fill="{colour}"><title>{tip}</title></path>')
        elif mark.kind in STOPS and mark.outcome == "done":
            parts.append(f'<rect x="{x - 5}" y="{top + 18}" width="10" height="10" fill="{STOP_COLOUR}">'
                         f'<title>{tip}</title></rect>')
        else:
            colour = NOTIFY_COLOUR if mark.outcome == "done" else OTHER_ACTION
            parts.append(f'<circle cx="{x}" cy="{top + 33}" r="4" fill="{colour}"><title>{tip}</title></circle>')
    y = top + height

    # The stop, across every lane
    if story.stopped is not None:
        x = axis.x(story.stopped)
        parts.append(f'<line x1="{x}" x2="{x}" y1="{lanes[0][1] - 18}" y2="{y + 4}" stroke="{STOP_COLOUR}" '
                     f'stroke-width="2"/>')
        words = f"stopped at +{story.stopped} min ({_clock(story.start, story.stopped)} UTC)"
        anchor = "end" if x + len(words) * CHAR > axis.right else "start"
        parts.append(_text(x + (-4 if anchor == "end" else 4), lanes[0][1] - 7, esc(words), 11, anchor, STOP_COLOUR,
                           "bold"))

    # The time axis
    y += 24
    step = _step(story.minutes)
    ticks = []
    for minute in range(0, story.minutes + 1, step):
        x = axis.x(minute)
        ticks.append(f'<line x1="{x}" x2="{x}" y1="{lanes[0][1]}" y2="{y - 10}" stroke="#e5e7eb"/>'
                     + _text(x, y + 2, f"+{minute}", 10, "middle", "#374151")
                     + _text(x, y + 14, _clock(story.start, minute), 9, "middle", "#6b7280"))
    labels = "".join(_text(LEFT - 44 if height_ > 30 else LEFT - 10, top_ + height_ / 2 + 4, esc(label), 11, "end",
                           "#111827", "bold") for label, top_, height_ in lanes)
    legend, bottom = _legend(y + 30, [phase for phase in dict.fromkeys(p[2] for p in story.phases)])
    total = bottom + 12
    title = esc(f"{story.job}: phases, log lines, {GPU}, cost and what the stack did, minute by minute")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {total}" width="{WIDTH}" '
            f'height="{total}" {FONT} class="ra-chart"><title>{title}</title>'
            f'<rect width="{WIDTH}" height="{total}" fill="#ffffff"/>'
            + "".join(ticks) + labels + "".join(parts) + legend + "</svg>")


def _panel(axis: Axis, top: int, height: int) -> str:
    return (f'<rect x="{axis.left}" y="{top}" width="{axis.right - axis.left}" height="{height}" fill="#fbfbfd" '
            f'stroke="#e5e7eb"/>')


def _segments(points: list[tuple[int, float]]) -> list[list[tuple[int, float]]]:
    """Runs of consecutive minutes (a gap in the datapoints is a gap in the line, never a line across it)."""
    runs: list[list[tuple[int, float]]] = []
    for minute, value in points:
        if runs and runs[-1][-1][0] == minute - 1:
            runs[-1].append((minute, value))
        else:
            runs.append([(minute, value)])
    return runs


def _legend(y: int, phases: list[str]) -> tuple[str, int]:
    """The legend (the job's phases, then the marks), in as many lines as it takes; and its bottom."""
    items = [("rect", PHASE_COLOURS.get(phase, OTHER_PHASE), phase) for phase in phases]
    items += [("rect", SILENCE_COLOUR, "log silence"),
             ("line", GPU_COLOUR, f"{GPU} (% per host, mean)"), ("line", COST_COLOUR, "cost the function said"),
             ("tri", FINDING_COLOUR, "finding"), ("dot", NOTIFY_COLOUR, "action done"),
             ("square", STOP_COLOUR, "stop")]
    out, x = [], LEFT
    for shape, colour, words in items:
        shown_words = shown(words, 40)
        if x + 24 + len(shown_words) * 5.6 > WIDTH - RIGHT:
            x, y = LEFT, y + 16
        if shape == "rect":
            out.append(f'<rect x="{x}" y="{y - 9}" width="14" height="10" fill="{colour}"/>')
        elif shape == "line":
            out.append(f'<line x1="{x}" x2="{x + 14}" y1="{y - 4}" y2="{y - 4}" stroke="{colour}" stroke-width="2"/>')
        elif shape == "tri":
            out.append(f'<path d="M{x + 7} {y - 10}l6 10h-12z" fill="{colour}"/>')
        elif shape == "dot":
            out.append(f'<circle cx="{x + 7}" cy="{y - 4}" r="4" fill="{colour}"/>')
        else:
            out.append(f'<rect x="{x + 2}" y="{y - 9}" width="10" height="10" fill="{colour}"/>')
        out.append(_text(x + 18, y, esc(shown_words), 10, colour="#374151"))
        x += 24 + int(len(shown_words) * 5.6)
    return "".join(out), y


def cost_bar(story: Story) -> str | None:
    """What the stop cost and saved at most, against the budget and its warnings, as one bar; None when the rows
    state neither a stop's cost nor a budget."""
    spent = story.stop_cost if story.stop_cost is not None else (story.costs[-1][1] if story.costs else None)
    if spent is None:
        return None
    saved = story.saved or 0.0
    total = max(spent + saved, story.budget or 0.0) or 1.0
    left, right, top, height = LEFT, WIDTH - RIGHT, 24, 22
    width = right - left

    def x(usd: float) -> float:
        return round(left + width * usd / total, 1)

    until = "until the stop" if story.stop_cost is not None else "at its last figure"
    parts = [f'<rect width="{WIDTH}" height="96" fill="#ffffff"/>',
             _text(LEFT - 10, top + 15, "cost", 11, "end", "#111827", "bold"),
             f'<rect x="{left}" y="{top}" width="{round(x(spent) - left, 1)}" height="{height}" fill="{COST_COLOUR}">'
             f'<title>{esc(f"${spent:,.2f} {until}")}</title></rect>']
    if story.saved is not None:
        parts.append(f'<rect x="{x(spent)}" y="{top}" width="{round(x(spent + saved) - x(spent), 1)}" '
                     f'height="{height}" fill="{SAVED_COLOUR}" stroke="{COST_COLOUR}" stroke-dasharray="3 2">'
                     f'<title>{esc(f"saved at most ${saved:,.2f}")}</title></rect>')
    parts.append(_text(left, top + height + 16, esc(f"${spent:,.2f} {until}"), 11, colour=COST_COLOUR,
                       weight="bold"))
    if story.saved is not None:
        parts.append(_text(right, top + height + 16, esc(f"saved at most ${saved:,.2f} (the rest of its "
                                                          "MaxRuntimeInSeconds)"), 11, "end", "#2d6a4f"))
    if story.budget is not None:
        bx = x(story.budget)
        parts.append(f'<line x1="{bx}" x2="{bx}" y1="{top - 8}" y2="{top + height + 4}" stroke="{STOP_COLOUR}" '
                     f'stroke-width="2"/>' + _text(bx, top - 11, esc(f"budget ${story.budget:,.2f}"), 10, "middle",
                                                    STOP_COLOUR))
        for minute, fraction in story.warnings:
            wx = x(story.budget * fraction)
            parts.append(f'<line x1="{wx}" x2="{wx}" y1="{top - 4}" y2="{top + height + 4}" stroke="{FINDING_COLOUR}" '
                         f'stroke-width="2" stroke-dasharray="3 2"/>'
                         + _text(wx, top + height + 30, esc(f"warned at {fraction:.0%} (+{minute} min)"), 10, "middle",
                                 FINDING_COLOUR))
    title = esc(f"{story.job}: cost against its budget, and what its stop saved")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} 96" width="{WIDTH}" '
            f'height="96" {FONT} class="ra-chart"><title>{title}</title>' + "".join(parts) + "</svg>")
