"""The replay's pictures (rule_actions_cli/charts.py, html_report.py) from a timeline and rows, without a replay: what
is drawn comes from the timeline and the rows only, every row's finding and action is on the page, and no value can
break out of its text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

from rule_actions_cli import charts, html_report

ROOT = Path(__file__).resolve().parents[2]
HUNG = ROOT / "events" / "timelines" / "hung-job.json"
BUDGET = ROOT / "events" / "timelines" / "budget-job.json"
SVG = "{http://www.w3.org/2000/svg}"
STALL_JOB = "llm-pretrain-2026-11-24-08-00-00-303"
BUDGET_JOB = "budget-ft-2026-11-24-08-00-00-901"


def row(source: str, minute: int, job: str, rules=(), actions=(), **more):
    return {"source": f"{source}#+{minute}m", "training_job": job, "job": job, "job_family": "training",
            "matched": True, "actions": list(actions), **({"rules": list(rules)} if rules else {}), **more}


def action(kind: str, outcome: str, reason: str, trigger: str = "StalledTraining", **more):
    return {"trigger": trigger, "rule": trigger, "kind": kind, "target": more.pop("target", "team"),
            "origin": "config", "outcome": outcome, "reason": reason, **more}


def hung_rows(source: str) -> list[dict]:
    """What the replay of hung-job.json says (its rows, as `replay --json` prints them)."""
    return [row(source, 80, STALL_JOB, [{"rule": "StalledTraining", "verdict": "IssuesFound",
                                         "reason": "no log line from any host for 30 min (threshold 30 min)"}],
                [action("stoptraining", "done", f"stopped {STALL_JOB} (cost $96.73 until the stop; saved at most "
                        "$1,712.29)", target=STALL_JOB, jobs=[STALL_JOB]),
                 action("notify", "done", "sent to the team subscribers (message 1)")]),
            row(source, 85, STALL_JOB, (), [action("notify", "skipped", "stopped by this stack: no second alert",
                                                   trigger="job:Stopped")])]


def budget_rows(source: str) -> list[dict]:
    finding = "its cost $5.55 passed 50% of its budget $10.00 (56%; 1 x ml.g5.12xlarge at $7.09/h for 47 min): " \
              "a warning, nothing is stopped"
    return [row(source, 50, BUDGET_JOB, [{"rule": "Budget", "verdict": "IssuesFound", "reason": finding}],
                [action("stoptraining", "skipped", "Budget warns at 50%: a warning only notifies", "Budget"),
                 action("notify", "done", "sent to the team subscribers (message 2)", "Budget")]),
            row(source, 55, BUDGET_JOB, [{"rule": "Budget", "verdict": "IssuesFound", "reason": finding}],
                [action("notify", "duplicate", "already done", "Budget")]),
            row(source, 90, BUDGET_JOB, [{"rule": "Budget", "verdict": "IssuesFound", "reason": "its cost $10.28 "
                                          "passed its budget $10.00 (103%; 1 x ml.g5.12xlarge at $7.09/h for 1 h 27 "
                                          "min)"}],
                [action("stoptraining", "done", f"stopped {BUDGET_JOB} (cost $10.28 until the stop; saved at most "
                        "$18.08)", "Budget", target=BUDGET_JOB, jobs=[BUDGET_JOB])])]


def test_a_hung_jobs_story_is_its_timeline_until_the_stop_and_its_rows():
    # Given the hung job's timeline and the rows of its replay
    source = str(HUNG)
    events = [(source, json.loads(HUNG.read_text()))]
    # When its story is read
    [story] = charts.stories(events, hung_rows(source))
    # Then it stops at the run that stopped it: Stopping, then Stopped at its Stopped outcome's run
    assert story.stopped == 80
    assert story.phases[-2:] == [(80, 85, "Stopping"), (85, 100, "Stopped")]
    assert [p[2] for p in story.phases[:3]] == ["Starting", "Downloading", "Training"]
    # and what was published ends there: no datapoint nor log line at or after the stop (the replay seeds none)
    assert story.gpu and max(m for m, _ in story.gpu) == 79 and max(story.logs) == 49
    # the silence is the deadlock's, from its last line to the stop, and nothing before its first line
    assert story.silences == [(50, 80)]
    # its GPUs spin at 100% (800 on 8 GPUs) after the deadlock, as the timeline says
    assert {v for m, v in story.gpu if m >= 50} == {800.0}
    # and the costs are the rows': none but the stop's, from its billing start (Downloading, minute 3)
    assert story.billing_start == 3 and story.costs == [(80, 96.73)]
    assert (story.stop_cost, story.saved, story.budget) == (96.73, 1712.29, None)


def test_a_budget_jobs_story_has_its_budget_its_warning_and_its_stop_as_the_rows_say_them():
    # Given the budget job's timeline and the rows of its replay (a duplicate among them)
    source = str(BUDGET)
    [story] = charts.stories([(source, json.loads(BUDGET.read_text()))], budget_rows(source))
    # Then its budget, the warning at 50% and the cost at each run that said one are drawn
    assert story.budget == 10.0 and story.warnings == [(50, 0.5), (55, 0.5)]
    assert story.costs == [(50, 5.55), (55, 5.55), (90, 10.28)] and story.saved == 18.08
    # and the duplicate is not a mark of its own (its first is)
    assert [m.outcome for m in story.marks if m.what == "action"] == ["skipped", "done", "done"]


def test_the_chart_draws_each_lane_and_the_stop_in_well_formed_svg():
    # Given the hung job's story
    source = str(HUNG)
    [story] = charts.stories([(source, json.loads(HUNG.read_text()))], hung_rows(source))
    # When it is drawn
    svg = charts.job_chart(story)
    root = ElementTree.fromstring(svg)
    # Then it is one SVG with a title, its lanes named, a GPU line and a cost line in their colours
    assert root.tag == f"{SVG}svg" and root.find(f"{SVG}title") is not None
    words = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for said in ("phase", "log lines", "GPU use", "cost", "found / done", "silent 30 min", "Training",
                 "stopped at +80 min (09:20 UTC)", "$96.73"):
        assert said in words, said
    strokes = {e.get("stroke") for e in root.iter(f"{SVG}polyline")}
    assert strokes == {charts.GPU_COLOUR, charts.COST_COLOUR}
    # and no blank line: Markdown keeps it one HTML block
    assert "\n" not in svg


def test_the_cost_bar_says_what_the_stop_cost_and_saved_against_the_budget_and_its_warning():
    source = str(BUDGET)
    [story] = charts.stories([(source, json.loads(BUDGET.read_text()))], budget_rows(source))
    root = ElementTree.fromstring(charts.cost_bar(story) or "")
    words = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "$10.28 until the stop" in words and "saved at most $18.08" in words and "budget $10.00" in words
    assert "warned at 50% (+50 min)" in words


def test_a_job_whose_rows_state_no_cost_gets_no_cost_panel_nor_bar_and_its_notes_say_so():
    source = str(HUNG)
    rows = [row(source, 80, STALL_JOB, [{"rule": "StalledTraining", "verdict": "IssuesFound", "reason": "silent"}],
                [action("notify", "done", "sent")])]
    [story] = charts.stories([(source, json.loads(HUNG.read_text()))], rows)
    assert charts.cost_bar(story) is None and story.stopped is None
    assert "its rows state no cost" in " ".join(story.notes)
    svg = charts.job_chart(story)
    assert ">GPU use</text>" in svg and ">cost</text>" not in svg  # its lanes: the GPU's, no cost panel


def test_the_page_lists_every_finding_and_action_of_the_rows_and_every_other_event():
    # Given a timeline's rows and a plain event's
    source = str(HUNG)
    rows = [*hung_rows(source), {"source": "events/x.json", "training_job": "job-x", "job": "job-x",
                                 "job_family": "training", "matched": True,
                                 "actions": [action("notify", "denied", "not allowed here")],
                                 "problems": ["a problem of the event"]}]
    text = html_report.page([(source, json.loads(HUNG.read_text())), ("events/x.json", {})], rows)
    # Then every reason (not a duplicate) is on the page, in a table
    reasons = [r["reason"] for item in rows for r in item.get("rules", [])]
    reasons += [a["reason"] for item in rows for a in item["actions"] if a["outcome"] != "duplicate"]
    reasons += ["a problem of the event"]
    for reason in reasons:
        assert reason in text, reason
    assert "job-x" in text and "denied" in text


def test_a_timeline_not_replayed_is_drawn_from_the_timeline_with_the_reason_it_was_not():
    from rule_actions_cli.replay_table import NO_MONITOR

    # Given a timeline the configuration could not replay (no monitor rules)
    source = str(HUNG)
    text = html_report.page([(source, json.loads(HUNG.read_text()))],
                            [{"source": source, "training_job": None, "job": None, "job_family": None,
                              "matched": False, "actions": [], "ignored": NO_MONITOR}])
    # Then its job's chart is the timeline's (no stop: nothing ran) and the page says why nothing was found
    assert NO_MONITOR in text and "<svg" in text and "stopped at" not in text
    assert "The stack found nothing and did nothing about this job." in text


def test_untrusted_names_and_reasons_are_escaped_and_bounded():
    # Given a timeline whose job is named as SageMaker allows and rows whose reason carries markup and a huge value
    data = json.loads(HUNG.read_text())
    data["timeline"] = "<script>alert(1)</script>"
    source = "x/<img src=x onerror=alert(1)>.json"
    rows = hung_rows(source)
    rows[0]["actions"][1]["reason"] = "</td></table><script>alert(2)</script>" + "A" * 50_000
    rows[0]["actions"][1]["target"] = '"><svg onload=alert(3)>'
    text = html_report.page([(source, data)], rows)
    # Then no tag of theirs reaches the page, and the long reason is cut, saying its length
    assert "<script" not in text and "<img" not in text and "<svg onload" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&lt;/td&gt;&lt;/table&gt;" in text
    assert "A" * 2_001 not in text and "(50,038 characters)" in text


def test_the_page_loads_nothing_from_elsewhere():
    source = str(BUDGET)
    text = html_report.page([(source, json.loads(BUDGET.read_text()))], budget_rows(source))
    # No URL but the SVG namespace, no script, no external stylesheet, font or image
    assert set(re.findall(r"https?://[^\"' )<]+", text)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", text)
    assert not re.search(r"\b(src|href)\s*=", text) and "@import" not in text and "url(" not in text


def test_html_refuses_a_place_it_cannot_write_before_anything_runs(tmp_path):
    assert html_report.unwritable(None) == []
    assert html_report.unwritable(str(tmp_path / "replay.html")) == []
    [missing] = html_report.unwritable(str(tmp_path / "nowhere" / "replay.html"))
    assert "nowhere" in missing and "does not exist" in missing
    [folder] = html_report.unwritable(str(tmp_path))
    assert "is a directory" in folder


def test_the_page_is_written_whole(tmp_path):
    source = str(BUDGET)
    target = tmp_path / "replay.html"
    html_report.write(str(target), [(source, json.loads(BUDGET.read_text()))], budget_rows(source))
    assert target.read_text().endswith("</html>\n") and [p.name for p in tmp_path.iterdir()] == ["replay.html"]


def test_replay_refuses_an_html_path_it_cannot_write_before_replaying(tmp_path, capsys, monkeypatch):
    from rule_actions_cli.main import main

    # Given a folder that does not exist (and no configuration file where the command runs)
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "missing" / "replay.html"
    # When the replay is asked to write its page there
    code = main(["replay", "--html", str(target), str(HUNG)])
    # Then it refuses with one line naming the flag and the folder, exit status 2, and nothing is replayed
    said = capsys.readouterr()
    assert code == 2 and said.out == ""
    assert said.err.strip() == f"rule-actions: --html {target}: the folder {target.parent} does not exist"
