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
    assert code == 1 and {"done", "denied", "invalid"} <= outcomes  # 1: the rows with problems
    assert any(r.get("problems") for r in rows) and any(line.get("problem") for line in logs)
    assert sum(1 for line in logs if line.get("message") == "action") >= sum(len(r["actions"]) for r in rows)

    # And no endpoint appears whole in any log line, metric, result, reason or error
    for text, where in ((err, "logs"), (out, "results")):
        leaked = sorted(e for e in endpoints if e in text)
        assert not leaked, f"{where} carry {leaked}"


# Every phone shape the configuration can carry without a leading '+' (issue 27): a tag's sms entry, an action_json
# endpoint the grammar rejects, a team number in another shape. The tag form allows only letters, digits, spaces and
# _ . : / = + - @.
TAG_NUMBERS = ["15555550143", "1-555-555-0144", "1.555.555.0145", "0015555550146"]
JSON_NUMBERS = [*TAG_NUMBERS, "(555) 555-0147", "555 555 0148", "1 555-555-0149", "tel:15555550150"]


def _digits(number: str) -> str:
    return re.sub(r"\D", "", number)


def _leaked(text: str, numbers: list[str]) -> list[str]:
    """The numbers that appear whole, as written or as their digits (all but the last four are personal)."""
    flat = re.sub(r"[\s().-]", "", text)
    return sorted(n for n in numbers if n in text or _digits(n) in text or _digits(n)[:-4] in flat)


def test_no_phone_number_of_any_shape_in_a_log_line_or_result(tmp_path, capsys):
    # Given events whose rules' action_json text numbers written without '+' (rejected by the grammar), and a
    # job whose monitor tag texts numbers written without '+'
    actions = json.dumps([{"name": "sms", "endpoint": n} for n in JSON_NUMBERS])
    escaped = actions.replace('"', '\\"')  # the SDK's form
    folder = tmp_path / "events"
    folder.mkdir()
    (folder / "numbers.json").write_text(json.dumps([
        event(job="phone-job-1", debug=[rule_status("Overfit", job="phone-job-1")],
              debug_configs=[rule_config("Overfit", actions)], event_id="phone-1"),
        event(job="phone-job-2", debug=[rule_status("Overfit", job="phone-job-2")],
              debug_configs=[rule_config("Overfit", escaped)], event_id="phone-2"),
        event(job="phone-job-3", debug=[rule_status("Overfit", job="phone-job-3")],
              debug_configs=[rule_config("Overfit", "sms=" + " sms=".join(TAG_NUMBERS))], event_id="phone-3"),
    ]))
    timeline = {
        "timeline": "A hung job whose tag texts numbers written without a plus", "minutes": 45,
        "start": "2026-11-24T08:00:00Z",
        "jobs": [{"name": "llm-sms-plain-2026-11-24-08-00-00-405", "instance_type": "ml.g5.2xlarge",
                  "tags": {"rule-actions:StalledTraining": " ".join(f"sms={n}" for n in TAG_NUMBERS)},
                  "phases": [{"at": 0, "secondary": "Starting"}, {"at": 2, "secondary": "Training"}],
                  "metrics": [{"metric": "GPUUtilization", "hosts": "all", "from": 3, "to": 45, "value": 95}],
                  "logs": [{"hosts": "all", "from": 2, "to": 5, "every": 1, "text": "step {minute}00 loss ok"}]}],
    }
    (tmp_path / "timeline.json").write_text(json.dumps(timeline))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({**CONFIG, "monitor": {"rules": {"StalledTraining": {}}}}))

    # When they are replayed, with the function's and the evaluator's logs shown
    code = main(["replay", "--json", "--verbose", "--config", str(config), str(folder), str(tmp_path / "timeline.json")])
    out, err = capsys.readouterr()

    # Then every action was refused or reported (the numbers did reach the function and the evaluator)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and any(a["outcome"] == "invalid" for r in rows for a in r.get("actions", []))
    assert any("StalledTraining" in line for line in out.splitlines()), out[-2000:]
    # And no number appears whole, in any shape, in any log line, result, reason or error
    for text, where in ((err, "logs"), (out, "results")):
        leaked = _leaked(text, JSON_NUMBERS)
        assert not leaked, f"{where} carry {leaked}"
