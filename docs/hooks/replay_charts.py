"""MkDocs hook: charts of the shipped sample timelines, replayed at every build, as `rule-actions replay --html` draws
them.

A page that holds the line `<!-- replay-chart: TIMELINE CONFIG -->` (paths from the project's root, e.g.
`<!-- replay-chart: events/timelines/budget-job.json examples/monitor-config.json -->`) gets, in its place, the
chart of each job of the timeline (rule_actions_cli.charts: its phases, log silences, GPU use, cost against its
budget, findings and the run that acted), the cost bar of a job whose rows state a cost, and a caption with the
command that draws the same page. Nothing is drawn by hand: the build replays the timeline on the embedded account
(moto) with the configuration, as the command does, and draws what its rows say. The markers of every page are
replayed at the first page that needs one, a replay per configuration, each timeline once per build; a timeline or
configuration that cannot be replayed, or a timeline without a job to draw, fails the build (`mkdocs build
--strict`) naming it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = re.compile(r"^<!-- replay-chart: (\S+) (\S+) -->$", re.MULTILINE)
_replayed: dict[tuple[str, str, float, float], str] = {}  # (timeline, config, their mtimes) -> the Markdown


def _root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def on_pre_build(config: Any) -> None:
    _replayed.clear()  # `mkdocs serve`: each build replays what changed since (the files' times are in the key)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if not MARKER.search(markdown):
        return markdown
    root = _root(config)
    _replay_all(root, Path(config["docs_dir"]))
    return MARKER.sub(lambda m: _replayed[_key(root, m[1], m[2])], markdown)


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    server.watch(str(_root(config) / "events" / "timelines"))
    return server


def _key(root: Path, timeline: str, configuration: str) -> tuple[str, str, float, float]:
    try:
        return timeline, configuration, (root / timeline).stat().st_mtime, (root / configuration).stat().st_mtime
    except OSError as err:
        raise PluginError(f"replay_charts: {timeline} with {configuration}: {err}") from err


def _replay_all(root: Path, docs: Path) -> None:
    """Every marker of every page not drawn yet, replayed: one embedded account per configuration."""
    wanted: dict[str, list[str]] = {}
    for page in sorted(docs.rglob("*.md")):
        for match in MARKER.finditer(page.read_text()):
            if _key(root, match[1], match[2]) not in _replayed:
                wanted.setdefault(match[2], [])
                if match[1] not in wanted[match[2]]:
                    wanted[match[2]].append(match[1])
    for configuration, timelines in wanted.items():
        drawn = charts(root, timelines, configuration)
        for timeline in timelines:
            _replayed[_key(root, timeline, configuration)] = drawn[timeline]


def charts(root: Path, timelines: list[str], configuration: str) -> dict[str, str]:
    """timeline -> its charts and caption, in Markdown (raw HTML blocks), replayed together with `configuration`."""
    import os

    from rule_actions_cli import inputs
    from rule_actions_cli.charts import cost_bar, job_chart, stories
    from rule_actions_cli.main import run_replay

    here = os.getcwd()
    os.chdir(root)  # the paths as the command is given them: the rows name them so
    try:
        events, errors = inputs.load(timelines)
        context, config_errors = inputs.replay_context(configuration, False)
        if errors or config_errors:
            raise PluginError(f"replay_charts: {'; '.join(errors + config_errors)}")
        rows = run_replay(events, context, verbose=False)
    finally:
        os.chdir(here)
    drawn = {}
    for timeline in timelines:
        found = [s for s in stories(events, rows) if s.source == timeline]
        if not found:
            said = [row.get("ignored") or row.get("problems") for row in rows if row.get("source") == timeline]
            raise PluginError(f"replay_charts: {timeline} with {configuration}: no job to draw ({said})")
        blocks = []
        for story in found:
            blocks.append(f'<figure class="replay-chart">{job_chart(story)}</figure>')
            bar = cost_bar(story)
            if bar:
                blocks.append(f'<figure class="replay-chart">{bar}</figure>')
        caption = (f"*Drawn at the build from `{timeline}` replayed with `{configuration}` (its rows, the "
                   f"timeline's phases, metrics and log lines); the same page: `rule-actions replay --config "
                   f"{configuration} --html replay.html {timeline}`.*")
        drawn[timeline] = "\n\n".join([*blocks, caption])
    return drawn
