"""The sample events of the job families besides training (events/tuning, processing, pipelines, transform): shaped
as AWS documents them, consistent within each lifecycle, readable by the handler's model without a problem."""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from builders import ACCOUNT, EVENTS, REGION
from planning import parse_event

from rule_actions import registry
from rule_actions.jobs.pipelines import STEP

FOLDERS = {"tuning": "tuning", "processing": "processing", "pipelines": "pipeline", "transform": "transform"}
FILES = sorted(path for folder in FOLDERS for path in (EVENTS / folder).glob("*.json"))
LIFECYCLES = [path for path in FILES if path.name.startswith("lifecycle-")]
ALL_FILES = sorted(p for p in EVENTS.rglob("*.json") if "timelines" not in p.parts)  # timelines are no events
ENVELOPE = {"version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"}
AWS_REGISTRIES = {"503895931360", "763104351884", "683313688378"}  # the SDK's public image registries
PIPELINE_TAG = "sagemaker:pipeline-execution-arn"
TRIAL = re.compile(r"(?P<tuning>.+)-[0-9]{3}-[0-9a-f]{8}")
RULE_EVALUATION = re.compile(r"(?P<job>.+)-(?P<rule>[a-z0-9-]+)-(?P<hex>[0-9a-f]{8})")


def events_of(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return data if isinstance(data, list) else [data]


def ids(paths: list[Path]) -> list[str]:
    return [path.relative_to(EVENTS).as_posix() for path in paths]


def family_of(event: dict[str, Any]) -> str:
    return registry.job_family(event).name


def test_every_family_has_lifecycles_with_a_failure():
    # Given the family folders; When their lifecycles are listed; Then each family has two, one ending in a failure
    for folder in FOLDERS:
        lifecycles = [path for path in LIFECYCLES if path.parent.name == folder]
        assert len(lifecycles) >= 2, folder
        assert any(parse_event(events_of(path)[-1]).job_status == "Failed" for path in lifecycles), folder


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_every_event_is_read_without_problems_and_by_its_family(path: Path):
    for index, event in enumerate(events_of(path)):
        # Given an event of the folder; When the handler's model reads it
        parsed = parse_event(event)  # raises IgnoredEvent when it cannot be used

        # Then nothing is reported unreadable, and it is its family's, or a job its family's lifecycle launched
        assert parsed.problems == (), f"event {index}: {parsed.problems}"
        own = FOLDERS[path.parent.name]
        children = {"tuning": {"training"}, "pipeline": {"training", "processing", "tuning"}}.get(own, set())
        assert family_of(event) in {own, *children}, f"event {index}: {family_of(event)}"


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_envelopes_are_aws_shaped_and_name_their_job(path: Path):
    events = events_of(path)
    for index, event in enumerate(events):
        where = f"event {index}"
        assert set(event) == ENVELOPE, where
        assert event["version"] == "0" and event["source"] == "aws.sagemaker", where
        assert str(uuid.UUID(event["id"])) == event["id"], where
        assert event["account"] == ACCOUNT and event["region"] == REGION, where
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", event["time"]), where
        parsed = parse_event(event)
        assert parsed.job_arn in event["resources"], where
        assert parsed.job_arn.startswith(f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:"), where
        if family_of(event) != "pipeline":
            assert parsed.job_arn.endswith("/" + parsed.job_name.lower()), f"{where}: the ARN lower-cases the name"
        if "currentPipelineExecutionStatus" not in event["detail"]:  # (AWS documents no reason on an execution's)
            assert ("FailureReason" in event["detail"] or "failureReason" in event["detail"]) == (
                parsed.job_status == "Failed"), f"{where}: a reason exactly when it failed"
    times = [event["time"] for event in events]
    assert all(a < b for a, b in itertools.pairwise(times)), "times increase"


def test_ids_are_unique_across_every_sample():
    counts = Counter(event["id"] for path in ALL_FILES for event in events_of(path))
    assert not [event_id for event_id, count in counts.items() if count > 1]


@pytest.mark.parametrize("path", LIFECYCLES, ids=ids(LIFECYCLES))
def test_lifecycles_deliver_their_last_change_more_than_once(path: Path):
    # SageMaker may send several events for one change: each lifecycle's end comes at least twice
    events = events_of(path)
    last = events[-1]
    copies = [e for e in events if e["detail"] == last["detail"] and e["detail-type"] == last["detail-type"]]
    assert len(copies) >= 2 and len({e["id"] for e in copies}) == len(copies)


@pytest.mark.parametrize("path", [p for p in FILES if p.parent.name == "tuning"], ids=lambda p: p.name)
def test_a_tuning_lifecycle_is_its_tuning_job_and_its_trials(path: Path):
    events = events_of(path)
    [tuning] = {e["detail"]["HyperParameterTuningJobName"] for e in events if family_of(e) == "tuning"}
    tuning_arn = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:hyper-parameter-tuning-job/{tuning.lower()}"
    trials = [e for e in events if family_of(e) == "training"]
    # Then every trial names its tuning job (TuningJobArn) and has a trial's name (the tuning job's, NNN, 8 hex)
    assert trials and all(e["detail"]["TuningJobArn"] == tuning_arn for e in trials)
    assert all(TRIAL.fullmatch(e["detail"]["TrainingJobName"])["tuning"] == tuning for e in trials)
    # And the tuning job's last counters count its trials as they ended
    final = events[-1]["detail"]
    ended = Counter(e["detail"]["TrainingJobStatus"] for e in trials if e["detail"]["TrainingJobStatus"] != "InProgress"
                    and e is max((x for x in trials if x["detail"]["TrainingJobName"] == e["detail"]["TrainingJobName"]),
                                 key=lambda x: x["time"]))
    counters = final["TrainingJobStatusCounters"]
    assert counters["Completed"] == ended["Completed"] and counters["NonRetryableError"] == ended["Failed"]
    # And, as SageMaker's event schema has it, no tuning event names a best training job (DescribeHyperParameter-
    # TuningJob does); a completed trial reports the objective's final value (the embedded account's best)
    assert not [e for e in events if family_of(e) == "tuning" and "BestTrainingJob" in e["detail"]]
    if counters["Completed"]:
        metric = final["HyperParameterTuningJobConfig"]["HyperParameterTuningJobObjective"]["MetricName"]
        assert all(any(m["MetricName"] == metric for m in e["detail"]["FinalMetricDataList"])
                   for e in trials if e["detail"]["TrainingJobStatus"] == "Completed")


@pytest.mark.parametrize("path", [p for p in FILES if p.parent.name == "pipelines"], ids=lambda p: p.name)
def test_a_pipeline_lifecycle_is_its_execution_its_steps_and_their_jobs(path: Path):
    events = events_of(path)
    [execution] = {e["detail"]["pipelineExecutionArn"] for e in events if family_of(e) == "pipeline"}
    steps = [e for e in events if e["detail-type"] == STEP]
    jobs = [e for e in events if family_of(e) != "pipeline"]
    # Then every step names the execution, its metadata a job whose events are in the file (a job the step launched,
    # tagged with the execution), and every failed step's job failed
    launched = {parse_event(e).job_arn for e in jobs}
    for step in steps:
        detail = step["detail"]
        assert detail["pipelineExecutionArn"] == execution and step["resources"][1] == execution
        for member in detail.get("metadata", {}).values():
            assert member["arn"] in launched, member
        if detail["currentStepStatus"] == "Failed":
            [member] = detail["metadata"].values()
            assert any(parse_event(e).job_arn == member["arn"] and parse_event(e).job_status == "Failed" for e in jobs)
    assert all(e["detail"]["Tags"][PIPELINE_TAG] == execution for e in jobs)
    assert events[-1]["detail"]["currentPipelineExecutionStatus"] == "Failed"


def test_rule_evaluations_are_named_as_debugger_names_them_and_name_their_training_job():
    events = events_of(EVENTS / "processing" / "debugger-rule-evaluations.json")
    for event in events:
        detail = event["detail"]
        found = RULE_EVALUATION.fullmatch(detail["ProcessingJobName"])
        assert found and len(found["job"]) == 26 and "/sagemaker-debugger-rules:" in detail["AppSpecification"]["ImageUri"]
        if "TrainingJobArn" in detail:
            assert detail["TrainingJobArn"].endswith("/" + found["job"] + detail["TrainingJobArn"][-14:])
    assert any("TrainingJobArn" not in e["detail"] for e in events)  # one that only its image tells apart


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_no_real_addresses_or_accounts(path: Path):
    text = re.sub(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "<uuid>", path.read_text())
    assert not re.search(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.", text)
    assert not re.search(r"\+\d{6,}", text)
    numbers = set(re.findall(r"(?<!\d)\d{12}(?!\d)", text))
    assert numbers <= {ACCOUNT, *AWS_REGISTRIES}, numbers - {ACCOUNT, *AWS_REGISTRIES}
