"""What a replay says as it goes, run as a user runs it (the real command, in a process of its own): its first line
names what is replayed and against what; on a terminal (a pseudo-terminal here), stderr's status line says each
slow step (synthesis, the embedded deploy, each event and each timeline's minute) and is cleared before the table;
piped, or with --json, nothing of it is written (--json has no first line either: its rows are for scripts)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVENT = "events/cross-team-prefix.json"
TIMELINE = "events/timelines/hung-job.json"
CONFIG = "examples/demo-webhook-config.json"
HEADING = (f"Replaying 1 event and 1 timeline from {EVENT} and {TIMELINE} against stack RuleActions of {CONFIG} on "
           "the embedded AWS")


def first(text: str) -> str:
    """The first line of `text` as said, unwrapped (it is wrapped to the width, 120 here, as the table is)."""
    lines = text.replace("\r\n", "\n").splitlines()
    end = next((i for i, line in enumerate(lines[1:], 1) if not line.startswith("  ")), len(lines))
    return " ".join(line.strip() for line in lines[:end])


def run(*args: str, terminal: bool) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `rule-actions replay ARGS`, stderr a pseudo-terminal when `terminal`."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "rule_actions_cli.main", "replay", "--config", CONFIG, *args, EVENT, TIMELINE]
    if not terminal:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
        return done.returncode, done.stdout, done.stderr
    leader, follower = os.openpty()
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=follower) as process:
        os.close(follower)
        said = bytearray()
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError as err:  # EIO: the command closed its end
                assert err.errno == errno.EIO
                break
            if not chunk:
                break
            said += chunk
        out = process.stdout.read().decode() if process.stdout else ""
        code = process.wait(timeout=600)
    os.close(leader)
    return code, out, said.decode()


def test_on_a_terminal_the_slow_steps_are_said_on_one_line_cleared_before_the_table():
    # When the command runs with stderr a terminal
    code, out, err = run(terminal=True)
    # Then stdout starts with the line saying what is replayed, then the table, none of the progress in it
    assert code == 0
    assert first(out) == HEADING and out.splitlines()[2] == "EVENT  JOB"
    assert max(len(line) for line in out.splitlines()) <= 120
    assert "\r" not in out and "deploying" not in out
    # and stderr's status line said each slow step, each rewriting the line in place
    steps = [part.removesuffix("\x1b[K") for part in err.split("\r") if part.endswith("\x1b[K")]
    assert "synthesizing stack RuleActions (kept in a cache once done)" in steps
    assert "deploying stack RuleActions on the embedded AWS" in steps
    assert f"event 1/1 {EVENT}" in steps and f"timeline 1/1 {TIMELINE}" in steps
    assert f"timeline 1/1 {TIMELINE}: minute 60 of 100" in steps
    assert steps.index(f"event 1/1 {EVENT}") < steps.index(f"timeline 1/1 {TIMELINE}")
    # and it was cleared at the end: the last thing on the terminal is an empty line
    assert err.endswith("\r\x1b[K")


def test_piped_or_with_json_nothing_of_the_progress_is_written():
    # When stderr is a pipe
    code, out, err = run(terminal=False)
    # Then it holds the configuration's warnings only: no status line, no control character
    assert code == 0 and first(out) == HEADING
    assert "\r" not in err and "\x1b" not in err and "deploying" not in err
    assert err.startswith("rule-actions: the configuration is valid, but:")
    # When --json is asked (stderr a terminal) / Then stdout is JSON only, and stderr has no first line and no progress
    code, out, err = run("--json", terminal=True)
    assert code == 0 and all(line.startswith("{") for line in out.splitlines())
    assert "Replaying" not in err and "\x1b[K" not in err and "deploying" not in err
