"""`rule-actions replay --receiver` with a PagerDuty webhook (examples/pagerduty-config.json, its secret as
examples/demo-secrets.json holds it, on a free loopback port): the replay's receiver gets the Events API v2 event of
a failed job, checks it as PagerDuty would (its routing key, its shape), says so, and the routing key is nowhere in
what the replay prints."""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
from pathlib import Path

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "pagerduty-config.json"
SECRET = "rule-actions/pagerduty"
KEY = json.loads((ROOT / "examples" / "demo-secrets.json").read_text())[SECRET]["routing_key"]
FAILED = ROOT / "events" / "lifecycle-failed-algorithm-error.json"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_replay_s_receiver_gets_a_valid_pagerduty_event(tmp_path, monkeypatch):
    # Given the example configuration run outside the checkout, its secret pointing at a free loopback port
    secrets = tmp_path / "secrets.json"
    secrets.write_text(json.dumps({SECRET: {"routing_key": KEY,
                                            "url": f"http://127.0.0.1:{free_port()}/v2/enqueue"}}))
    secrets.chmod(0o600)
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    # When a failed job's lifecycle is replayed with the receiver
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", "--config", str(CONFIG), "--secrets", str(secrets), "--receiver", str(FAILED)])
    printed = out.getvalue() + err.getvalue()
    # Then the receiver got one event, checked valid, an error for the job's Failed outcome
    assert code == 0, printed
    assert "1 request(s), 1 valid" in printed
    [line] = [line for line in printed.splitlines() if "pagerduty  " in line]
    assert line.strip().startswith("payload ok") and "pagerduty  error  job:Failed" in line
    # as docs/destinations.md quotes it, spaces and all
    [quoted] = re.findall(r"`(payload ok[^`]+)\.\.\.`", (ROOT / "docs" / "destinations.md").read_text())
    assert line.strip().startswith(quoted.replace("\n", " ")), (quoted, line)
    assert "delivered to webhook oncall (pagerduty; HTTP 200)" in " ".join(printed.split())
    # and the routing key is nowhere in what the replay printed
    assert KEY not in printed
