"""What reaches a terminal: a job name, a file name, a reason or a message carrying escape sequences (which would
retitle, clear or rewrite the terminal) is shown with its control characters escaped, whatever the command; a huge
value is bounded, saying how long it was; --json stays JSON whose strings read back as they were."""

from __future__ import annotations

import io
import json
import re

from rule_actions_cli import receiver, replay_table
from rule_actions_cli.main import main
from rule_actions_cli.replay_table import Delivery, write_deliveries, write_json, write_table

# OSC 0 (retitle), ED 2 (clear), CUP (home), a C1 CSI, DEL, BEL, a carriage return, a bidi override
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x9b31m\x7f\r\u202e"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")  # what must never reach the terminal raw (\t and \n may)


def hostile_row(job: str = f"job{HOSTILE}", source: str = f"events/evil{HOSTILE}.json") -> dict:
    return replay_table.row(source, job, True, {"job_family": "training", "ignored": f"reason {HOSTILE} end", "actions": [
        {"kind": "notify", "target": f"team{HOSTILE}", "outcome": "done", "reason": f"sent {HOSTILE}",
         "trigger": f"Rule{HOSTILE}"}]})


def test_the_table_escapes_control_characters_in_every_cell():
    out = io.StringIO()
    write_table([hostile_row()], out, width=200, show_all=True)
    text = out.getvalue()
    assert not RAW.findall(text), [c for c in RAW.findall(text)]
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J" in text and "job\\x1b]0;pwned" in text  # shown, not hidden
    assert "\\u202e" in text


def test_the_tables_colours_survive_and_are_the_only_escape_sequences(monkeypatch):
    out = io.StringIO()
    write_table([hostile_row()], out, width=200, colour=True, show_all=True)
    sequences = set(re.findall(r"\x1b\[[0-9;]*m", out.getvalue()))
    assert sequences and sequences <= {"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[32m"}, sequences
    assert not RAW.findall(re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()))


def test_a_megabyte_job_name_is_bounded_and_says_how_long_it_was():
    out = io.StringIO()
    name = "a" * 1_000_000
    write_table([replay_table.row(f"events/{'f' * 100_000}.json", name, True, {"job_family": "training",
                 "ignored": f"not a SageMaker job name: {name}", "actions": []})], out, width=120, show_all=True)
    text = out.getvalue()
    assert len(text) < 4_000, len(text)
    assert "(1,000,000 characters)" in text and "(100,005 characters)" in text


def test_the_receiver_view_and_the_deliveries_escape_control_characters():
    body = {"source": "rule-actions", "version": 1, "trigger": {"label": f"label{HOSTILE}"},
            "job": {"name": f"job{HOSTILE}", "family": "training"}}
    item = receiver.Received("/hook", {}, json.dumps(body).encode(), True)
    slack = receiver.Received("/hook", {}, json.dumps({"blocks": [], "text": f"chat{HOSTILE}"}).encode(), True)
    out = io.StringIO()
    out.write(receiver.describe(item) + "\n" + receiver.describe(slack) + "\n")
    write_deliveries([Delivery("team", f"subject{HOSTILE}", f"text{HOSTILE}")], out, width=200)
    assert not RAW.findall(out.getvalue()), out.getvalue()
    assert "job\\x1b]0;pwned" in out.getvalue() and "subject\\x1b" in out.getvalue()


def test_json_output_stays_json_and_escapes_every_control_character():
    out = io.StringIO()
    row = hostile_row()
    write_json([row], out)
    assert not RAW.findall(out.getvalue())
    assert json.loads(out.getvalue()) == json.loads(json.dumps(row))  # the same strings, read back


def test_every_command_s_output_goes_through_the_guard(tmp_path, capsys):
    # Given a file name carrying escape sequences, which an error line names
    missing = tmp_path / f"evil{HOSTILE}.json"

    # When invoke refuses it
    assert main(["invoke", "--function-name", "f", str(missing)]) == 2

    # Then the name is shown with its control characters escaped, on one line
    err = capsys.readouterr().err
    assert not RAW.findall(err) and "evil\\x1b]0;pwned\\x07" in err, repr(err)
    assert err.count("\n") == 1

    # And the replay's row of it (every input a row, exit status 1) shows it the same way
    assert main(["replay", str(missing)]) == 1
    out, err = capsys.readouterr()
    assert not RAW.findall(out + err) and "evil\\x1b]0;pwned\\x07" in out, repr(out)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_status_line_shows_inert_text_in_place_cut_to_the_width_and_clears_it(monkeypatch):
    from rule_actions_cli.terminal import Guarded, StatusLine

    # Given a terminal 40 columns wide, behind the command's guard
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("TERM", "xterm")
    tty = Tty()
    status = StatusLine(Guarded(tty))  # type: ignore[arg-type]
    # When a step naming a hostile file, then a long one, are shown, then the line is cleared
    status.show(f"event 1/2 evil{HOSTILE}.json")
    status.show("timeline 2/2 " + "x" * 100)
    status.clear()
    parts = tty.getvalue().split("\r")
    # Then each rewrote the line in place (a carriage return, the text, erase to its end), the file's control
    # characters escaped, nothing wider than the terminal, and the line was left empty
    assert parts[0] == "" and all(part.endswith("\x1b[K") for part in parts[1:])
    shown = [part.removesuffix("\x1b[K") for part in parts[1:]]
    assert shown[0].startswith("event 1/2 evil\\x1b]0;pwned\\x07") and not RAW.findall(shown[0])
    assert shown[1] == ("timeline 2/2 " + "x" * 100)[:39] and shown[2] == ""


def test_the_status_line_writes_nothing_on_a_pipe_or_a_dumb_terminal(monkeypatch):
    from rule_actions_cli.terminal import StatusLine

    monkeypatch.setenv("TERM", "xterm")
    pipe = io.StringIO()
    for stream in (pipe, Tty()):
        if isinstance(stream, Tty):
            monkeypatch.setenv("TERM", "dumb")
        status = StatusLine(stream)
        status.show("deploying stack RuleActions on the embedded AWS")
        status.clear()
        assert stream.getvalue() == ""
