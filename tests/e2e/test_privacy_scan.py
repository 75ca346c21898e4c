"""No address or phone number reaches a log line, a result or an error: a full replay scanned, with the
function's structured logs and EMF metrics (what CloudWatch keeps for 90 days) and every row it reports."""

from __future__ import annotations

import json
import re
import shutil

from builders import EVENTS, event, rule_config, rule_status

from rule_actions_cli.main import main

# Endpoints that reach the function in every way one can: valid, invalid, denied, in the team, in job outcomes.
HOSTILE = [
    "first.last@mail.example.co.uk", "casey@EXAMPLE.com", "not-allowed@elsewhere.example.org", "broken@mail",
    "+15555550142", "+15555550999", "+0123456",
]
CONFIG = {
    "notify": {"emails": ["ml-team@example.com"], "sms": ["+15555550100"]},
    "rules": {"*": ["notify", {"name": "email", "endpoint": "rules-oncall@example.com"}]},
    "job_outcomes": {"Failed": ["notify", {"name": "sms", "endpoint": "+15555550111"}], "Stopped": ["notify"]},
    "allowed_endpoints": ["*@example.com", "*@example.org", "*@mail.example.co.uk", "+1555555*"],
}
ADDRESS = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")
NUMBER = re.compile(r"\+\d{6,15}")


def hostile_events() -> list[dict]:
    actions = json.dumps([{"name": "email", "endpoint": e} if "@" in e else {"name": "sms", "endpoint": e}
                          for e in HOSTILE])
    unreadable = {"RuleConfigurationName": 5, "owner": "casey@EXAMPLE.com"}  # a problem that quotes an address
    return [
        event(job="privacy-job-1", debug=[rule_status("Overfit", job="privacy-job-1"), unreadable],
              debug_configs=[rule_config("Overfit", actions)], event_id="privacy-1"),
        event(job="privacy-job-1", status="Failed", secondary="Failed", debug=[rule_status("Overfit", job="privacy-job-1")],
              debug_configs=[rule_config("Overfit", actions)], event_id="privacy-2",
              FailureReason="ClientError: send logs to casey@EXAMPLE.com or call +15555550142"),
    ]


def test_no_endpoint_in_any_log_line_result_or_error(tmp_path, capsys):
    # Given the sample corpus, events naming every kind of endpoint, and a configuration naming more
    folder = tmp_path / "events"
    shutil.copytree(EVENTS, folder)
    (folder / "zz-privacy.json").write_text(json.dumps(hostile_events()))
    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIG))
    corpus_text = "\n".join(p.read_text() for p in folder.glob("*.json")) + config.read_text()
    endpoints = set(ADDRESS.findall(corpus_text)) | set(NUMBER.findall(corpus_text)) | set(HOSTILE)
    assert len(endpoints) > 20

    # When all of it is replayed, with the function's logs shown
    code = main(["replay", "--json", "--verbose", "--config", str(config), str(folder)])
    out, err = capsys.readouterr()

    # Then the run did act (messages sent, some denied and invalid), and logged every decision
    rows = [json.loads(line) for line in out.splitlines()]
    logs = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    outcomes = {a["outcome"] for r in rows for a in r["actions"]}
    assert code == 0 and {"done", "denied", "invalid"} <= outcomes
    assert any(r.get("problems") for r in rows) and any(line.get("problem") for line in logs)
    assert sum(1 for line in logs if line.get("message") == "action") >= sum(len(r["actions"]) for r in rows)

    # And no endpoint appears whole in any log line, metric, result, reason or error
    for text, where in ((err, "logs"), (out, "results")):
        leaked = sorted(e for e in endpoints if e in text)
        assert not leaked, f"{where} carry {leaked}"
