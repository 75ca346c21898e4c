"""The sample events in events/: valid, consistent with what SageMaker sends, readable by the handler's model."""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from builders import ACCOUNT, EVENTS, REGION, job_arn
from planning import parse_event
from smdebug_rulesconfig.actions.actions import SMS, ActionList, Email, StopTraining

from rule_actions.grammar import decode_action_json, parse_action_json
from rule_actions.records import Action, Invalid

EMAIL, SMS_KIND, STOP = "email", "sms", "stoptraining"

# The organization samples (replayed with examples/organization-config.json) live in their own folder, so that
# `make demo` (which replays events/ with one account) shows what it showed before organizations.
ORGANIZATION = EVENTS / "organization"
FILES = sorted(EVENTS.glob("*.json")) + sorted(ORGANIZATION.glob("*.json"))
LIFECYCLES = [path for path in FILES if path.name.startswith("lifecycle-")]
# The page that describes every sample (events/README.md points to it).
README = EVENTS.parent / "docs" / "sample-events.md"
SCENARIOS = (  # the files the corpus must hold (lifecycle-*.json come on top)
    "vanishing-gradient-sdk-actions.json",
    "profiler-low-gpu-utilization.json",
    "no-issues-found.json",
    "rule-error.json",
    "issues-found-after-completed.json",
    "custom-prefix-stop.json",
    "archive-replay.json",
    "cross-team-prefix.json",
)
FAMILIES = ("Debug", "Profiler")
ENVELOPE_KEYS = {
    "version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail", "replay-name",
}
RULE_STATUSES = {"InProgress", "NoIssuesFound", "IssuesFound", "Error", "Stopping", "Stopped"}
# TrainingJobStatus -> the statuses the next event of the same job may carry.
NEXT_STATUS = {
    "InProgress": {"InProgress", "Stopping", "Completed", "Failed"},
    "Stopping": {"Stopping", "Stopped"},
    "Stopped": {"Stopped"},
    "Completed": {"Completed"},
    "Failed": {"Failed"},
}
SECONDARY = {
    "InProgress": {
        "Starting", "LaunchingMLInstances", "PreparingTrainingStack", "Downloading", "DownloadingTrainingImage",
        "Training", "Uploading", "Pending", "Updating", "Restarting",
        "Interrupted",  # managed spot: the instances were reclaimed; the job stays InProgress and starts again
    },
    "Stopping": {"Stopping"},
    "Stopped": {"Stopped", "MaxRuntimeExceeded", "MaxWaitTimeExceeded"},
    "Completed": {"Completed"},
    "Failed": {"Failed"},
}
FAILURE_KINDS = {"AlgorithmError", "ClientError", "CapacityError", "InternalServerError"}  # FailureReason's prefixes
ISSUES_DETAILS = re.compile(
    r"RuleEvaluationConditionMet: Evaluation of the rule (\w+) at step \d+ resulted in the condition being met\n"
)
PROCESSING_NAME = re.compile(r"(?P<job>.+)-(?P<rule>[a-z0-9-]+)-(?P<hex>[0-9a-f]{8})")
# Public AWS-owned registries the SDK's image URIs name in us-east-1; they are the only other 12-digit numbers allowed,
# and only as the registry of a container image.
AWS_REGISTRIES = {
    "503895931360": "SageMaker Debugger rule evaluator images",
    "763104351884": "AWS Deep Learning Containers",
    "683313688378": "SageMaker built-in XGBoost",
}
# The accounts events may come from: AWS's documentation accounts. 123456789012 is the single-account stack's (moto's
# default); the others are member accounts of an organization deployment (organization/*.json, and only there).
MEMBER_ACCOUNTS = {"111122223333", "444455556666", "777788889999"}
UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TWELVE_DIGITS = re.compile(r"(?<!\d)\d{12}(?!\d)")
EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)")
PHONE_RE = re.compile(r"\+\d[\d ()-]{5,}\d")


def events_of(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return data if isinstance(data, list) else [data]


def corpus() -> list[tuple[str, dict[str, Any]]]:
    return [(path.name, event) for path in FILES for event in events_of(path)]


def ids(paths: list[Path]) -> list[str]:
    return [path.relative_to(EVENTS).as_posix() for path in paths]


def rule_entries(detail: dict[str, Any], kind: str) -> list[tuple[str, dict[str, Any]]]:
    """(family, entry) for every `<family>Rule<kind>` entry: kind is EvaluationStatuses or Configurations."""
    return [(family, entry) for family in FAMILIES for entry in detail.get(f"{family}Rule{kind}") or []]


def action_jsons() -> dict[str, str]:
    """Every distinct action_json in the corpus, keyed by where it was first seen."""
    found: dict[str, str] = {}
    for path in FILES:
        try:  # read at collection: an unreadable file is reported by the file tests, not as a collection error
            events = [event for event in events_of(path) if isinstance(event, dict)]
        except ValueError:
            continue
        for event in events:
            detail = event.get("detail") if isinstance(event.get("detail"), dict) else {}
            for family, config in rule_entries(detail, "Configurations"):
                text = config.get("RuleParameters", {}).get("action_json")
                if text is not None and text not in found.values():
                    found[f"{path.name}:{family}:{config['RuleConfigurationName']}"] = text
    return found


def sdk_serialize(text: str) -> str:
    """What smdebug-rulesconfig writes for the same actions in the same key order (the golden form)."""
    data = json.loads(text.replace('\\"', '"'), object_pairs_hook=list)  # objects become lists of (key, value)
    single = isinstance(data[0], tuple)
    entries = [data] if single else data
    actions = []
    for pairs in entries:
        fields = dict(pairs)
        if fields["name"] == STOP:
            if next(key for key, _ in pairs) == "training_job_prefix":
                actions.append(StopTraining(fields["training_job_prefix"]))  # a prefix the user wrote
            else:
                stop = StopTraining()  # the SDK fills in the job's name at fit(), after `name`
                stop.update_training_job_prefix_if_not_specified(fields["training_job_prefix"])
                actions.append(stop)
        else:
            actions.append({EMAIL: Email, SMS_KIND: SMS}[fields["name"]](fields["endpoint"]))
    return actions[0].serialize() if single else ActionList(*actions).serialize()


def epoch_ms(value: str) -> int:
    assert isinstance(value, str) and value.isdigit() and len(value) == 13, f"not epoch milliseconds: {value!r}"
    return int(value)


def test_the_corpus_holds_every_scenario_and_at_least_five_lifecycles_of_sixty_events():
    # Given the files in events/
    names = {path.name for path in FILES}

    # When the required scenarios are looked up and the lifecycles' events counted
    missing = [name for name in SCENARIOS if name not in names]
    lifecycle_events = sum(len(events_of(path)) for path in LIFECYCLES)

    # Then every scenario has its file, and there are at least five lifecycles of sixty events in all
    assert not missing, f"missing scenario files: {missing}"
    assert len(LIFECYCLES) >= 5, f"only {len(LIFECYCLES)} lifecycle-*.json files"
    assert lifecycle_events >= 60, f"only {lifecycle_events} lifecycle events"


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_every_file_is_an_event_or_a_non_empty_list_of_events(path: Path):
    # Given a file of the corpus
    text = path.read_text()

    # When it is read as JSON
    data = json.loads(text)

    # Then it is one event object, or a non-empty list of event objects (lifecycles are lists)
    if path.name.startswith("lifecycle-"):
        assert isinstance(data, list) and 8 <= len(data) <= 20, "a lifecycle is a list of 8-20 events"
    if isinstance(data, list):
        assert data, "an empty list"
        assert all(isinstance(event, dict) and "detail" in event for event in data)
    else:
        assert isinstance(data, dict) and "detail" in data


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_every_event_parses_without_being_ignored_and_without_problems(path: Path):
    for index, event in enumerate(events_of(path)):
        # Given an event of the corpus; When the handler's model reads it
        parsed = parse_event(event)  # raises IgnoredEvent when the event cannot be used

        # Then nothing is reported, and every rule status and configuration is seen
        detail = event["detail"]
        assert parsed.problems == (), f"event {index}: {parsed.problems}"
        assert parsed.job_name == detail["TrainingJobName"] and parsed.job_status == detail["TrainingJobStatus"]
        assert len(parsed.rules) == len(rule_entries(detail, "EvaluationStatuses")), f"event {index}: rules lost"
        for rule in parsed.rules:
            assert parsed.parameters(rule).get("rule_to_invoke"), f"event {index}: no configuration for {rule.name}"
        assert (parsed.replay_name is not None) == ("replay-name" in event)


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_envelope_fields_are_present_and_consistent(path: Path):
    for index, event in enumerate(events_of(path)):
        # Given an event of the corpus
        detail = event["detail"]
        name = detail["TrainingJobName"]

        # When its envelope is compared with its detail
        arn = detail["TrainingJobArn"]

        # Then they describe the same job, in the one account and region (an organization's: a member account)
        where = f"event {index}"
        assert event["version"] == "0", where
        assert str(uuid.UUID(event["id"])) == event["id"].lower(), where
        assert event["detail-type"] == "SageMaker Training Job State Change", where
        assert event["source"] == "aws.sagemaker", where
        account = event["account"]
        accounts = {ACCOUNT} | (MEMBER_ACCOUNTS if path.parent == ORGANIZATION else set())
        assert account in accounts and event["region"] == REGION, where
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", event["time"]), f"{where}: time {event['time']!r}"
        assert arn == job_arn(name, account), f"{where}: the ARN names the event's account and the lower-cased job name"
        assert event["resources"] == [arn], where
        assert detail["RoleArn"].startswith(f"arn:aws:iam::{account}:role/"), where
        assert set(event) <= ENVELOPE_KEYS, f"{where}: unknown envelope keys {set(event) - ENVELOPE_KEYS}"
        for key in ("CreationTime", "LastModifiedTime", "TrainingStartTime", "TrainingEndTime"):
            if key in detail:
                epoch_ms(detail[key])
        assert epoch_ms(detail["CreationTime"]) <= epoch_ms(detail["LastModifiedTime"]), where
        envelope_ms = datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp() * 1000
        assert epoch_ms(detail["LastModifiedTime"]) <= envelope_ms, f"{where}: the event is older than its detail"
        assert detail["SecondaryStatus"] in SECONDARY[detail["TrainingJobStatus"]], where
        failed = detail["TrainingJobStatus"] == "Failed"
        assert ("FailureReason" in detail) == failed, f"{where}: FailureReason is given exactly when the job Failed"
        if failed:
            assert detail["FailureReason"].split(":")[0] in FAILURE_KINDS, f"{where}: {detail['FailureReason']!r}"
        assert isinstance(detail["Tags"], dict), where


def test_ids_are_unique_across_the_corpus():
    # Given every event of every file
    counts = Counter(event["id"] for _, event in corpus())

    # When the ids are counted
    repeated = sorted(event_id for event_id, count in counts.items() if count > 1)

    # Then no id is used twice (duplicates that SageMaker sends get new ids)
    assert not repeated, f"ids used more than once: {repeated}"


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_rule_statuses_name_their_evaluation_jobs_and_configurations(path: Path):
    for index, event in enumerate(events_of(path)):
        # Given an event's rule statuses and configurations
        detail = event["detail"]
        configured = {(family, c["RuleConfigurationName"]) for family, c in rule_entries(detail, "Configurations")}

        for family, status in rule_entries(detail, "EvaluationStatuses"):
            # When each status is read
            rule = status["RuleConfigurationName"]
            arn = status["RuleEvaluationJobArn"]
            prefix = f"arn:aws:sagemaker:{REGION}:{event['account']}:processing-job/"
            processing = PROCESSING_NAME.fullmatch(arn.removeprefix(prefix))

            # Then it names a configured rule, a processing job as SageMaker names them, a known status
            where = f"event {index}, {family} rule {rule}"
            assert (family, rule) in configured, where
            assert arn.startswith(prefix) and processing, f"{where}: {arn}"
            assert processing["job"] == detail["TrainingJobName"][:26].lower(), f"{where}: {arn}"
            assert processing["rule"] == rule.lower()[:26], f"{where}: {arn}"
            assert status["RuleEvaluationStatus"] in RULE_STATUSES, where
            details = status.get("StatusDetails", "")
            assert len(details) <= 1024, where
            if status["RuleEvaluationStatus"] == "IssuesFound":
                assert (match := ISSUES_DETAILS.fullmatch(details)) and match[1] == rule, f"{where}: {details!r}"
            if status["RuleEvaluationStatus"] == "Error":
                assert details.startswith("ClientError: "), f"{where}: {details!r}"
            epoch_ms(status["LastModifiedTime"])


def test_the_corpus_carries_action_json():
    # Given the corpus; When its action_json parameters are collected; Then there are some to check
    assert len(action_jsons()) >= 5


@pytest.mark.parametrize("where,text", sorted(action_jsons().items()))
def test_every_action_json_is_the_sdks_form_and_decodes_into_valid_actions(where: str, text: str):
    # Given an action_json parameter of the corpus
    assert isinstance(text, str)

    # When it is decoded with the handler's grammar
    actions, invalid = parse_action_json(text)

    # Then every entry is a valid action, the value fits the service's limit, and it is the SDK's exact output
    assert invalid == [], [f"{item.field}: {item.reason}" for item in invalid]
    assert actions and all(isinstance(action, Action) for action in actions)
    assert len(actions) == len(d if isinstance(d := decode_action_json(text), list) else [d])
    assert len(text) <= 256, f"{len(text)} characters: the service allows 256 per rule parameter"
    assert '\\"' in text, "not in the SDK's escaped form (every quote written as backslash-quote)"
    assert text == sdk_serialize(text), "not what smdebug-rulesconfig serializes for these actions"


def test_invalid_action_json_would_be_caught():
    # Given action strings the checks above must refuse; When they are checked; Then each is refused
    _, invalid = parse_action_json('[{\\"name\\": \\"stoptraining\\", \\"training_job_prefix\\": \\"\\"}]')
    assert invalid and isinstance(invalid[0], Invalid)
    user_prefix = '{\\"name\\": \\"stoptraining\\", \\"training_job_prefix\\": \\"exp-fam\\"}'
    assert sdk_serialize(user_prefix) == user_prefix  # the SDK's order when it fills in the prefix itself
    with pytest.raises(ValueError):  # the SDK refuses what it cannot write (dotted local part)
        sdk_serialize('[{\\"endpoint\\": \\"ml.team@example.com\\", \\"name\\": \\"email\\"}]')


def by_job(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """A lifecycle's events per training job, each job's in file order."""
    jobs: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        jobs.setdefault(event["detail"]["TrainingJobName"], []).append(event)
    return jobs


@pytest.mark.parametrize("path", LIFECYCLES, ids=ids(LIFECYCLES))
def test_lifecycle_is_one_job_or_one_concurrent_family_in_order_with_legal_transitions_and_duplicates(path: Path):
    # Given a lifecycle
    events = events_of(path)
    times = [event["time"] for event in events]
    jobs = by_job(events)
    duplicates = 0

    # When each job's events are walked in order
    for job, job_events in jobs.items():
        details = [event["detail"] for event in job_events]
        modified = [epoch_ms(detail["LastModifiedTime"]) for detail in details]
        statuses = [detail["TrainingJobStatus"] for detail in details]
        duplicates += sum(
            1 for a, b in itertools.pairwise(job_events) if a["detail"] == b["detail"] and a["id"] != b["id"]
        )

        # Then each job starts, moves only along legal transitions, never goes back in time, and ends
        assert all(a <= b for a, b in itertools.pairwise(modified)), f"{job}: LastModifiedTime goes back"
        assert statuses[0] == "InProgress" and details[0]["SecondaryStatus"] == "Starting", job
        illegal = [(a, b) for a, b in itertools.pairwise(statuses) if b not in NEXT_STATUS[a]]
        assert not illegal, f"{job}: illegal TrainingJobStatus transitions: {illegal}"
        assert statuses[-1] in ("Completed", "Stopped", "Failed"), f"{job}: the lifecycle does not end"

    # And the file's times increase, and it has duplicates (same detail, new id)
    assert all(a < b for a, b in itertools.pairwise(times)), f"event times do not increase: {times}"
    assert duplicates >= 2, f"only {duplicates} duplicate events (same detail, new id)"

    # And several jobs are one family: one StopTraining prefix of their rules covers them all, and they all
    # train at the same time (a family's jobs running one after the other would be separate lifecycles)
    if len(jobs) > 1:
        prefixes = {prefix for event in events for prefix in _prefixes(event)}
        assert any(all(job.startswith(p) for job in jobs) for p in prefixes), f"no family prefix: {sorted(jobs)}"
        running: set[str] = set()
        together = False
        for event in events:
            (running.add if event["detail"]["TrainingJobStatus"] == "InProgress" else running.discard)(_job(event))
            together = together or running == set(jobs)
        assert together, f"the jobs never train at the same time: {sorted(jobs)}"


@pytest.mark.parametrize("path", LIFECYCLES, ids=ids(LIFECYCLES))
def test_lifecycle_keeps_issues_found_once_reported(path: Path):
    # Given a lifecycle's rule statuses, event by event (a rule is its job's: family lifecycles hold several jobs)
    seen: set[tuple[str, str, str]] = set()
    for index, event in enumerate(events_of(path)):
        entries = rule_entries(event["detail"], "EvaluationStatuses")
        current = {(_job(event), f, s["RuleConfigurationName"]): s["RuleEvaluationStatus"] for f, s in entries}

        # When a rule reported IssuesFound before; Then every later event still carries it
        lost = [rule for rule in seen if rule[0] == _job(event) and current.get(rule) != "IssuesFound"]
        assert not lost, f"event {index}: IssuesFound dropped for {lost}"
        seen |= {rule for rule, status in current.items() if status == "IssuesFound"}


def _statuses(event: dict[str, Any]) -> set[str]:
    return {s["RuleEvaluationStatus"] for _, s in rule_entries(event["detail"], "EvaluationStatuses")}


def _prefixes(event: dict[str, Any]) -> list[str]:
    return [
        action.target or event["detail"]["TrainingJobName"]
        for _, config in rule_entries(event["detail"], "Configurations")
        if "action_json" in config["RuleParameters"]
        for action in parse_action_json(config["RuleParameters"]["action_json"])[0]
        if action.kind == STOP
    ]


def _job(event: dict[str, Any]) -> str:
    return event["detail"]["TrainingJobName"]


def _issues(event: dict[str, Any], family: str = "") -> set[str]:
    return {
        s["RuleConfigurationName"]
        for f, s in rule_entries(event["detail"], "EvaluationStatuses")
        if s["RuleEvaluationStatus"] == "IssuesFound" and family in ("", f)
    }


SCENARIO_CHECKS = {  # each file shows what its name says
    "vanishing-gradient-sdk-actions.json": lambda e: e["detail"]["TrainingJobStatus"] == "InProgress"
    and "VanishingGradient" in _issues(e)
    and _prefixes(e) == [_job(e)],
    "profiler-low-gpu-utilization.json": lambda e: _issues(e, "Profiler") >= {"ProfilerReport", "LowGPUUtilization"},
    "no-issues-found.json": lambda e: _statuses(e) == {"NoIssuesFound"},
    "rule-error.json": lambda e: "Error" in _statuses(e) and not _issues(e),
    "issues-found-after-completed.json": lambda e: e["detail"]["TrainingJobStatus"] == "Completed" and bool(_issues(e)),
    "custom-prefix-stop.json": lambda e: any(p != _job(e) and _job(e).startswith(p) for p in _prefixes(e)),
    "archive-replay.json": lambda e: bool(e.get("replay-name")) and bool(_issues(e)),
    "cross-team-prefix.json": lambda e: any(not _job(e).startswith(p) for p in _prefixes(e)),
}


@pytest.mark.parametrize("name", sorted(SCENARIO_CHECKS))
def test_each_scenario_shows_what_its_name_says(name: str):
    # Given a scenario file; When its event is checked against the scenario; Then it matches
    event = json.loads((EVENTS / name).read_text())
    assert SCENARIO_CHECKS[name](event)


def _status(event: dict[str, Any]) -> str:
    return event["detail"]["TrainingJobStatus"]


def _rule_status(event: dict[str, Any]) -> dict[str, str]:
    entries = rule_entries(event["detail"], "EvaluationStatuses")
    return {s["RuleConfigurationName"]: s["RuleEvaluationStatus"] for _, s in entries}


def _stopped_after_issues(events: list[dict[str, Any]]) -> bool:
    first = next((i for i, e in enumerate(events) if _issues(e)), None)
    statuses = [_status(e) for e in events]
    return first is not None and (
        statuses[first] == "InProgress" and _prefixes(events[first]) == [_job(events[first])]
        and "Stopping" in statuses[first:] and statuses[-1] == "Stopped"
        and events[-1]["detail"]["SecondaryStatus"] == "Stopped"
    )


def _family_stop_while_all_train(events: list[dict[str, Any]]) -> bool:
    jobs, running = set(by_job(events)), set()
    for event in events:
        (running.add if _status(event) == "InProgress" else running.discard)(_job(event))
        if running == jobs and _issues(event) and any(
            p != _job(event) and all(job.startswith(p) for job in jobs) for p in _prefixes(event)
        ):
            return len(jobs) >= 2 and {_status(e[-1]) for e in by_job(events).values()} == {"Completed"}
    return False


def _failed_after_stop(events: list[dict[str, Any]]) -> bool:
    first = next((i for i, e in enumerate(events) if _issues(e)), None)
    statuses = [_status(e) for e in events]
    return first is not None and (
        statuses[first] == "InProgress" and _prefixes(events[first]) == [_job(events[first])]
        and "Stopping" not in statuses and statuses[-1] == "Failed"
    )


def _rule_error_then_completed(events: list[dict[str, Any]]) -> bool:
    last = _rule_status(events[-1])
    return (
        any(_status(e) == "InProgress" and "Error" in _statuses(e) for e in events)
        and not any(_issues(e) for e in events)
        and _status(events[-1]) == "Completed"
        and set(last.values()) == {"Error", "NoIssuesFound"}
    )


def _secondary(event: dict[str, Any]) -> str:
    return event["detail"]["SecondaryStatus"]


def _duplicates_of_last(events: list[dict[str, Any]]) -> int:
    """How many events carry the last event's detail (SageMaker's duplicate deliveries, each with its own id)."""
    last = events[-1]
    return len({e["id"] for e in events if e["detail"] == last["detail"]})


def _failed_algorithm_error(events: list[dict[str, Any]]) -> bool:
    last = events[-1]["detail"]
    rules = [e for e in events for kind in ("EvaluationStatuses", "Configurations") if rule_entries(e["detail"], kind)]
    return (
        not rules  # a job without Debugger or Profiler rules: only its outcome can trigger anything
        and "Stopping" not in [_status(e) for e in events]
        and (_status(events[-1]), _secondary(events[-1])) == ("Failed", "Failed")
        and last.get("FailureReason", "").startswith("AlgorithmError:")
        and last["SecondaryStatusTransitions"][-1]["Status"] == "Failed"
        and bool(last["SecondaryStatusTransitions"][-1].get("StatusMessage"))
        and all(key in last for key in ("TrainingStartTime", "TrainingEndTime", "TrainingTimeInSeconds"))
        and _duplicates_of_last(events) >= 2
    )


def _max_runtime_exceeded(events: list[dict[str, Any]]) -> bool:
    statuses = [_status(e) for e in events]
    last = events[-1]["detail"]
    return (
        "Stopping" in statuses
        and statuses.index("Stopping") < statuses.index("Stopped")
        and (_status(events[-1]), _secondary(events[-1])) == ("Stopped", "MaxRuntimeExceeded")
        and last["SecondaryStatusTransitions"][-1]["Status"] == "MaxRuntimeExceeded"
        and last["TrainingTimeInSeconds"] >= last["StoppingCondition"]["MaxRuntimeInSeconds"]
        and not any(_issues(e) for e in events)
        and _duplicates_of_last(events) >= 2
    )


def _spot_interrupted_resumed(events: list[dict[str, Any]]) -> bool:
    last = events[-1]["detail"]
    interrupted = [i for i, e in enumerate(events) if (_status(e), _secondary(e)) == ("InProgress", "Interrupted")]
    return (
        all(e["detail"]["EnableManagedSpotTraining"] is True for e in events)
        and {"MaxRuntimeInSeconds", "MaxWaitTimeInSeconds"} <= set(last["StoppingCondition"])
        and last["CheckpointConfig"]["S3Uri"].startswith("s3://")
        and len(interrupted) >= 2  # delivered twice
        and any(_secondary(e) == "Training" for e in events[interrupted[-1] :])  # training resumed
        and _status(events[-1]) == "Completed"
        and last["BillableTimeInSeconds"] < last["TrainingTimeInSeconds"]  # spot savings
        and not any(_issues(e) for e in events)
    )


def _stopped_by_person(events: list[dict[str, Any]]) -> bool:
    statuses = [_status(e) for e in events]
    return (
        "Stopping" in statuses
        and (_status(events[-1]), _secondary(events[-1])) == ("Stopped", "Stopped")
        and events[-1]["detail"]["SecondaryStatusTransitions"][-1]["Status"] == "Stopped"
        and not any(_issues(e) for e in events)  # nothing the tool acts on: a person stopped it
        and _duplicates_of_last(events) >= 2
    )


LIFECYCLE_CHECKS = {  # each lifecycle shows what its name (and its line in docs/sample-events.md) says
    "lifecycle-stopped-after-issues.json": _stopped_after_issues,
    "lifecycle-completed-no-issues.json": lambda events: not any(
        _statuses(e) & {"IssuesFound", "Error"} for e in events
    )
    and _status(events[-1]) == "Completed"
    and _statuses(events[-1]) == {"NoIssuesFound"},
    "lifecycle-profiler-and-debug-after-completed.json": lambda events: all(
        _status(e) == "Completed" for e in events if _issues(e)
    )
    and all(_issues(events[-1], family) for family in FAMILIES),
    "lifecycle-concurrent-family-prefix.json": _family_stop_while_all_train,
    "lifecycle-failed-after-issues.json": _failed_after_stop,
    "lifecycle-rule-error-then-completed.json": _rule_error_then_completed,
    "lifecycle-failed-algorithm-error.json": _failed_algorithm_error,
    "lifecycle-max-runtime-exceeded.json": _max_runtime_exceeded,
    "lifecycle-spot-interrupted-resumed.json": _spot_interrupted_resumed,
    "lifecycle-stopped-by-person.json": _stopped_by_person,
}


@pytest.mark.parametrize("path", LIFECYCLES, ids=ids(LIFECYCLES))
def test_each_lifecycle_shows_what_its_name_says(path: Path):
    # Given a lifecycle; When it is checked against what it is there to show; Then it shows it
    assert path.name in LIFECYCLE_CHECKS, f"no check says what {path.name} shows"
    assert LIFECYCLE_CHECKS[path.name](events_of(path))


def test_the_replay_is_the_archived_event_again():
    # Given the replayed event and the original; When their details are compared; Then only the envelope differs
    replay = json.loads((EVENTS / "archive-replay.json").read_text())
    original = json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text())
    assert replay["detail"] == original["detail"] and replay["id"] != original["id"]


def test_readme_lists_every_file_and_only_files_that_exist():
    # Given docs/sample-events.md and the folder's files
    text = README.read_text()
    listed = re.findall(r"^- `([^`]+\.json)`: \S", text, flags=re.MULTILINE)
    mentioned = {m for m in re.findall(r"[\w./-]+\.json", text) if not m.startswith("examples/")}
    examples = {m for m in re.findall(r"[\w./-]+\.json", text) if m.startswith("examples/")}
    assert all((EVENTS.parent / m).is_file() for m in examples), examples  # the configurations it replays with
    present = {path.relative_to(EVENTS).as_posix() for path in EVENTS.rglob("*") if path.is_file()} - {"README.md"}

    # When they are compared; Then each file has exactly one line, and the page names no other file
    assert set(listed) == present, f"listed only: {set(listed) - present}; not listed: {present - set(listed)}"
    assert len(listed) == len(set(listed)), "a file is listed twice"
    assert mentioned <= present, f"the page names files that do not exist: {mentioned - present}"


@pytest.mark.parametrize("path", [*FILES, README], ids=[*ids(FILES), README.name])
def test_no_real_addresses_phone_numbers_or_accounts(path: Path):
    # Given the raw text of a corpus file (UUIDs removed: their last group may be twelve digits)
    text = UUID_RE.sub("<uuid>", path.read_text())

    # When every address, phone number and twelve-digit number is collected
    domains = {match[1].lower() for match in EMAIL_RE.finditer(text)}
    phones = set(PHONE_RE.findall(text))
    accounts = {
        (m.group(), text[m.end() : m.end() + len(".dkr.ecr.")] == ".dkr.ecr.") for m in TWELVE_DIGITS.finditer(text)
    }

    # Then only example.com / example.org, +1555555xxxx, and our account (or a public AWS image registry) appear
    assert domains <= {"example.com", "example.org"}, f"addresses outside example.com/example.org: {domains}"
    assert all(re.fullmatch(r"\+1555555\d{4}", phone) for phone in phones), f"phone numbers: {phones}"
    ours = {ACCOUNT} | (MEMBER_ACCOUNTS if path.parent == ORGANIZATION or path == README else set())
    others = {n for n, registry in accounts if n not in ours and not (registry and n in AWS_REGISTRIES)}
    assert not others, f"accounts other than {sorted(ours)}: {others}"


def test_the_organization_files_show_two_member_accounts_sharing_a_job_name_and_a_stranger():
    # Given the organization samples and the configuration that replays them
    config = json.loads((EVENTS.parent / "examples" / "organization-config.json").read_text())["organization"]
    teams = events_of(ORGANIZATION / "two-teams.json")
    [stranger] = events_of(ORGANIZATION / "unknown-account.json")

    # When their accounts and jobs are collected
    jobs = {(event["account"], event["detail"]["TrainingJobName"]) for event in teams}

    # Then two listed member accounts each run a job of one name; only one of them finds issues and is stopped
    assert {account for account, _ in jobs} == set(config["accounts"]) and len({job for _, job in jobs}) == 1
    stopped = {event["account"] for event in teams if _issues(event) and _prefixes(event)}
    assert len(stopped) == 1 and _status(teams[-1]) == "Failed" and teams[-1]["account"] not in stopped
    # And the stranger is of the organization (its events reach the bus) but not listed, with a stop to refuse
    assert stranger["account"] in MEMBER_ACCOUNTS - set(config["accounts"]) and config["org_id"]
    assert _issues(stranger) and _prefixes(stranger)


@pytest.mark.parametrize(("page", "claim"), [
    ("operations.md", r"rule: (\d+) sample events tested with EventBridge's TestEventPattern"),
    ("security.md", r"its handler run over the (\d+) sample events"),
    ("security.md", r"`dry_run` over all (\d+) sample events"),
])
def test_the_pages_count_the_sample_events_of_events(page: str, claim: str):
    # Given the events of events/ (its own files: what `check`, the artifact tests and the dry run read)
    count = sum(len(events_of(path)) for path in sorted(EVENTS.glob("*.json")))
    # Then each page that counts them says that number
    [said] = re.findall(claim, (README.parent / page).read_text())
    assert int(said) == count, f"docs/{page} says {said} sample events; events/ holds {count}"
