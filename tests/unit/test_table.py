"""The replay's table as a person reads it: fitted to the width given (COLUMNS, the terminal's), a reason wrapped,
never cut, rows that did nothing counted instead of listed (unless --all), colour only on a terminal and never
with NO_COLOR; what the topics' destinations received; and --json unchanged by any of it."""

from __future__ import annotations

import io
import json

import pytest
from replaying import reasons_shown_whole

from rule_actions_cli import replay_table
from rule_actions_cli.main import write
from rule_actions_cli.replay_table import Delivery, write_deliveries, write_table

JOB = "llm-pretrain-2026-11-24-08-00-00-303"
LONG = ("prefix 'nlp-bert-' does not cover this event's job 'cv-detr-ablation-03': it could stop other teams' jobs "
        "(set allow_cross_job_stop to permit), and a reason this long goes on over several lines in any column")


def action(kind: str, target: str, outcome: str, reason: str, trigger: str = "StalledTraining",
           origin: str = "config") -> dict:
    return {"trigger": trigger, "kind": kind, "target": target, "origin": origin, "outcome": outcome, "reason": reason}


ROWS = [
    {"source": "events/hung-job.json#+80m", "training_job": JOB, "job": JOB, "job_family": "training",
     "matched": True, "rules": [{"rule": "StalledTraining", "verdict": "IssuesFound",
                                  "reason": "no log line from any host for 30 min (threshold 30 min)"}],
     "actions": [action("stoptraining", JOB, "done", f"stopped {JOB}", origin="action_json"),
                 action("email", "a***@example.com", "denied", LONG),
                 action("notify", "team", "duplicate", "already done (sent to the team subscribers)")]},
    {"source": "events/a.json#0", "training_job": "x", "job": "x", "job_family": "training", "matched": False,
     "actions": []},
    {"source": "events/a.json#1", "training_job": "x", "job": "x", "job_family": "training", "matched": True,
     "actions": [action("notify", "team", "duplicate", "already done (sent)", "job:Failed")]},
    {"source": "events/bad.json", "training_job": None, "job": None, "job_family": None, "matched": False,
     "actions": [], "problems": ["detail: not an object (" + "x" * 150 + ")"]},
    {"source": "events/" + "a-very-long-file-name-" * 6 + ".json", "training_job": "j" * 63, "job": "j" * 63,
     "job_family": "training", "matched": True, "actions": [action("notify", "team", "done", "sent", "R" * 80)]},
]


def table(width: int, **options) -> str:
    out = io.StringIO()
    write_table(ROWS, out, width=width, **options)
    return out.getvalue()


@pytest.mark.parametrize("width", [40, 60, 80, 120, 200])
def test_every_line_fits_the_width_and_no_reason_is_cut(width):
    # Given rows with a long reason, a long problem, a long trigger, a long file name and a long job
    text = table(width)
    # Then no line is wider than the width asked
    assert max(map(len, text.splitlines())) <= width
    # and every reason is there whole, in one column or on lines of its own below its row
    flat = " ".join(text.split())
    for reason in (LONG, f"stopped {JOB}", ROWS[3]["problems"][0], ROWS[0]["rules"][0]["reason"]):
        words = reason.split()
        assert all(word in flat or any(word.startswith(part) for part in flat.split()) for word in words)
    if width >= 120:  # the reason column is wide enough: the reasons read in it, in order
        assert reasons_shown_whole(text, ROWS) == 5


def test_a_narrow_terminal_gives_the_reason_lines_of_its_own():
    lines = table(60).splitlines()
    assert lines[1] == "  TRIGGER             ACTION             BY      OUTCOME"
    at = lines.index("      prefix 'nlp-bert-' does not cover this event's job")
    assert [line.split() for line in lines[at - 2:at]] == [["StalledTraining", "email", "config", "denied"],
                                                          ["a***@example.com"]]


def test_rows_that_did_nothing_are_counted_unless_all_is_asked():
    # Given an event the rule does not match and a repeated event whose only action is a duplicate
    text = table(120)
    # Then neither is listed: one line counts them, and the summary counts every row
    assert "a.json#0" not in text and "a.json#1" not in text
    assert ("not listed (--all lists them): 1 event the stack's rule does not match; 1 repeated event whose every "
            "action was done or reported before (duplicate)") in " ".join(text.split())
    assert text.splitlines()[-1].startswith("5 events, 3 matched the stack's rule")
    # and a row's duplicates among other actions share one line (BY: mixed when they came from more than one)
    assert [line.split()[:4] for line in text.splitlines() if "duplicate" in line.split()] == [
        ["-", "notify", "config", "duplicate"]]
    mixed = {**ROWS[0], "actions": [action("stoptraining", JOB, "duplicate", "d", origin="action_json"),
                                    action("notify", "team", "duplicate", "d")]}
    out = io.StringIO()
    write_table([mixed], out, width=120)
    assert [line.split()[:4] for line in out.getvalue().splitlines() if line.startswith("  - ")] == [
        ["-", "stoptraining,", "notify", "mixed"]]
    # and the problem row, whose event the rule did not match, is listed
    assert "bad.json  (not matched by the stack's rule)" in text
    # When --all is asked / Then every row is listed, each action with its own reason, and nothing is counted
    every = table(120, show_all=True)
    assert "a.json#0  x  (not matched by the stack's rule)" in every and "a.json#1  x" in every
    assert "already done (sent to the team subscribers)" in every and "not listed" not in every


def test_each_action_says_who_asked_for_it_and_the_table_stays_within_80_to_100_columns():
    # Given a row whose stop the job's action_json asked for and whose email and notify the configuration did, and a
    # test notification's action
    rows = [ROWS[0], {"source": "test-notify", "training_job": None, "job": None, "job_family": None,
                      "matched": True, "actions": [action("notify", "team", "done", "sent", "test", origin="test")]}]
    for width in (80, 100):
        out = io.StringIO()
        write_table(rows, out, width=width)
        lines = out.getvalue().splitlines()
        # Then the BY column says job, config or test for each action, and "-" for the rule's finding
        by = lines[1].index("BY")
        assert [line[by:].split()[0] for line in lines if line.startswith(("  StalledTraining", "  test", "  - "))
                ] == ["-", "job", "config", "config", "test"]  # the finding, stop, email, duplicate notify, test
        # and every line fits the width
        assert max(map(len, lines)) <= width


def test_colour_only_when_asked_and_the_widths_ignore_it():
    plain, coloured = table(120), table(120, colour=True)
    assert "\033[" not in plain
    assert "\033[32mdone" in coloured and "\033[31mdenied" in coloured
    # the same text once the codes are removed
    import re

    assert re.sub(r"\033\[[0-9;]*m", "", coloured) == plain


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("out", "env", "wanted"), [
    (Terminal(), {}, True), (Terminal(), {"NO_COLOR": "1"}, False), (Terminal(), {"TERM": "dumb"}, False),
    (io.StringIO(), {}, False)])
def test_colour_is_wanted_on_a_terminal_without_no_color(monkeypatch, out, env, wanted):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert replay_table.colour_wanted(out) is wanted


def test_the_width_is_columns_when_set(monkeypatch):
    monkeypatch.setenv("COLUMNS", "97")
    assert replay_table.terminal_width() == 97
    out = io.StringIO()
    write_table(ROWS, out)
    assert max(map(len, out.getvalue().splitlines())) <= 97


def test_json_is_one_object_per_row_whatever_the_terminal(monkeypatch):
    # Given a narrow terminal that would want colour
    monkeypatch.setenv("COLUMNS", "40")
    out = Terminal()
    # When --json is asked
    import argparse

    write(argparse.Namespace(json=True, all=False))(ROWS, out)
    # Then each row is its JSON, whole, on one line
    assert [json.loads(line) for line in out.getvalue().splitlines()] == ROWS


def test_what_the_destinations_received_is_grouped_redacted_and_fits():
    deliveries = [Delivery("team", "[rule-actions] StalledTraining issues found in " + JOB, "rule-actions: " + "w " * 80),
                  Delivery("ml.lead@example.com", "[rule-actions] subject", "text for ml.lead@example.com"),
                  Delivery("team", "[rule-actions] second", "second text")]
    out = io.StringIO()
    write_deliveries(deliveries, out, width=70)
    lines = out.getvalue().splitlines()
    assert " ".join(" ".join(lines[:3]).split()) == ("what the topics delivered: 3 message(s) (each: its subject, "
                                                     "then its text message as a phone shows it, or a chat notification as the channel does)")
    assert "  to the team: 2" in lines and "  to m***@example.com: 1" in lines
    assert "ml.lead" not in out.getvalue() and max(map(len, lines)) <= 70
    assert lines[lines.index("  to the team: 2") + 1].startswith("    [rule-actions] StalledTraining issues found")


def test_timelines_a_configuration_without_monitor_cannot_replay_are_said_once_with_what_to_add():
    # Given three timelines the configuration could not replay (no monitor block) and one event that acted
    rows = [replay_table.row(f"events/timelines/t{i}.json", None, False, {"ignored": replay_table.NO_MONITOR}) for i in range(3)]
    rows.append(replay_table.row("events/a.json", "job-1", True,
                           {"actions": [action("notify", "team", "done", "sent to the team")]}))
    out = io.StringIO()
    # When the table is written
    write_table(rows, out, width=120)
    text = out.getvalue()
    # Then no timeline has a row of its own; one line counts them and says what to add, in a configuration's words
    assert "t0.json" not in text and text.count("monitor is null") == 0
    assert "3 timelines not replayed: the configuration runs no monitor rules; add a monitor block" in text
    assert '"monitor": {"rules": {"StalledTraining": {}' in text.replace("\n  ", " ")
    # And --all lists each of them
    everything = io.StringIO()
    write_table(rows, everything, width=120, show_all=True)
    assert everything.getvalue().count("monitor is null") == 3
