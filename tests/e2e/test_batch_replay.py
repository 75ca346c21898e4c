"""`make demo-batch`: the AWS Batch samples (events/batch/) and timeline (events/timelines/batch/) replayed with
examples/batch-config.json on the embedded account (the stack deployed into moto, the emulated Batch installed: the
stack grants Batch): a wait for capacity, a preemption and a failure after three attempts told as Batch means them,
the attempts' own outcomes held back, and the hung attempt stopped through TerminateServiceJob (never
StopTrainingJob), its service job then FAILED, terminated with a reason naming the rule; a hung attempt whose rule
restarts it is restarted through Batch (its service job submitted again, its request verbatim, the new attempt
running), never by CreateTrainingJob."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "batch-config.json"
SAMPLES = ROOT / "events" / "batch"
TIMELINE = ROOT / "events" / "timelines" / "batch" / "preempted-then-hung.json"
RESTARTED = ROOT / "events" / "timelines" / "batch" / "hung-then-restarted.json"
HUNG = "AWSBatchllm-pretrain-nov240a4f78472239f9c5987e8bd5ddee3397"
SAMPLE_JOB_IDS = ["7d3c2f91-4b8e-4c1a-9f20-5e6a8b1d3c47", "2a9e6d14-8c3b-4f7e-a1d5-93c0b7e26f18"]


@pytest.fixture(scope="module")
def replayed():
    """The samples' rows, the timeline's rows, and what the embedded account holds at the end: the timeline's
    service job, and the SageMaker calls made on the hung training job (StopTrainingJob counted)."""
    from moto.sagemaker.models import SageMakerModelBackend

    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.inputs import load
    from rule_actions_cli.synth import synthesize

    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": json.loads(CONFIG.read_text())})
    stops: list[str] = []
    creates: list[str] = []
    with EmbeddedAccount(assembly, stack) as account:
        original = SageMakerModelBackend.stop_training_job  # type: ignore[attr-defined]  # (the emulator's)
        create = SageMakerModelBackend.create_training_job

        def counted(self, training_job_name):
            stops.append(training_job_name)
            return original(self, training_job_name)

        def created(self, *args, **kwargs):
            creates.append(kwargs.get("training_job_name", ""))
            return create(self, *args, **kwargs)

        SageMakerModelBackend.stop_training_job = counted  # type: ignore[attr-defined]
        SageMakerModelBackend.create_training_job = created  # type: ignore[method-assign]
        try:
            samples = account.replay(load([str(SAMPLES)], as_rows=True)[0])
            rows = account.replay_timeline(str(TIMELINE), json.loads(TIMELINE.read_text()))
            restarted = account.replay_timeline(str(RESTARTED), json.loads(RESTARTED.read_text()))
        finally:
            SageMakerModelBackend.stop_training_job = original  # type: ignore[attr-defined]
            SageMakerModelBackend.create_training_job = create  # type: ignore[method-assign]
        from rule_actions_cli.emulator import batch as moto_batch

        every = moto_batch.service_jobs()
        # (the timelines' jobs were submitted: their requests are known; the samples' were seeded from their events)
        jobs = {job["jobName"]: job for job in every if "serviceRequestPayload" in job}
        assert sorted(job["jobId"] for job in every if "serviceRequestPayload" not in job) == sorted(SAMPLE_JOB_IDS)
        service_job = jobs["llm-pretrain-nov24"]
    return samples, rows, service_job, stops, restarted, jobs, creates


def done(rows):
    return [(r["job"], a["trigger"], a["kind"]) for r in rows for a in r["actions"] if a["outcome"] == "done"]


def test_the_samples_are_told_as_batch_means_them_and_the_attempts_held_back(replayed):
    samples = replayed[0]
    assert sorted(done(samples)) == [
        ("llm-pretrain-nov24", "job:Preempted", "notify"), ("llm-pretrain-nov24", "job:Terminated", "notify"),
        ("llm-pretrain-nov24", "job:WaitingForCapacity", "notify"), ("sft-llama-nov24", "job:Failed", "notify")]
    attempts = [a for r in samples if r["job"].startswith("AWSBatch") for a in r["actions"]]
    assert attempts and all(a["outcome"] == "skipped" and "an attempt of an AWS Batch service job" in a["reason"]
                            for a in attempts)


def test_the_timeline_tells_the_wait_and_the_preemption_and_stops_the_hung_attempt_through_batch(replayed):
    _, rows, service_job, stops = replayed[:4]
    told = [(r["source"].rsplit("#+", 1)[1], a["trigger"]) for r in rows for a in r["actions"]
            if a["kind"] == "notify" and a["outcome"] == "done"]
    assert told == [("10m", "job:WaitingForCapacity"), ("200m", "job:Preempted"), ("310m", "StalledTraining")]
    # and the service job's end, this stack's own stop, is not told a second time
    [end] = [a for r in rows for a in r["actions"] if a["trigger"] == "job:Terminated"]
    assert end["outcome"] == "skipped" and end["reason"].endswith(": no second alert")
    [stop] = [(r["source"].rsplit("#+", 1)[1], r["job"], a) for r in rows for a in r["actions"]
              if a["kind"] == "stoptraining" and a["outcome"] == "done"]
    assert stop[:2] == ("310m", HUNG)
    assert "TerminateServiceJob of service job llm-pretrain-nov24" in stop[2]["reason"]
    # Then Batch holds the job terminated with the rule's reason, and StopTrainingJob was never called
    assert service_job["status"] == "FAILED" and service_job["isTerminated"] is True
    assert "StalledTraining" in service_job["statusReason"]
    assert len(service_job["attempts"]) == 3 and service_job["preemptionSummary"]["preemptedAttemptCount"] == 1
    assert stops == []


def test_a_hung_attempt_whose_rule_restarts_it_is_restarted_through_batch_never_by_create_training_job(replayed):
    _, _, _, stops, rows, jobs, creates = replayed
    # Given the timeline's hung attempt, stopped through Batch at 110 with its restart noted
    will = [(r["source"].rsplit("#+", 1)[1], a) for r in rows for a in r["actions"] if a["kind"] == "restart"]
    assert [(at, a["trigger"], a["outcome"]) for at, a in will] == [
        ("110m", "StalledTraining", "done"), ("115m", "job:Stopped", "done")]
    assert will[0][1]["reason"].startswith("will restart through AWS Batch: SubmitServiceJob of service job "
                                           "llm-finetune-nov25-r1 to queue gpu-training")
    assert "restarted through AWS Batch" in will[1][1]["reason"] and "from its checkpoint of" in will[1][1]["reason"]
    # Then its service job was terminated and submitted again, its request verbatim, the new one running its attempt
    first, again = jobs["llm-finetune-nov25"], jobs["llm-finetune-nov25-r1"]
    assert first["status"] == "FAILED" and first["isTerminated"] is True
    assert again["serviceRequestPayload"] == first["serviceRequestPayload"]
    assert json.loads(again["serviceRequestPayload"])["CheckpointConfig"]["S3Uri"].startswith("s3://ml-checkpoints/")
    assert (again["jobQueue"], again["shareIdentifier"], again["retryStrategy"]) == (
        first["jobQueue"], first["shareIdentifier"], first["retryStrategy"])
    assert again["status"] == "RUNNING" and len(again["attempts"]) == 1
    assert again["tags"]["rule-actions:chain"] == "llm-finetune-nov25" and again["tags"]["rule-actions:attempt"] == "1"
    # And no training job was created behind Batch's back, nor stopped
    assert creates == [] and stops == []
    assert len([j for j in jobs if j.startswith("llm-finetune-nov25")]) == 2


def test_the_restart_is_skipped_where_the_hung_attempt_has_no_checkpoint(replayed):
    _, rows, _, _, _, jobs, _ = replayed
    [row] = [a for r in rows for a in r["actions"] if a["kind"] == "restart"]
    assert row["outcome"] == "skipped" and "no CheckpointConfig.S3Uri" in row["reason"]
    assert not [j for j in jobs if j.startswith("llm-pretrain-nov24-r")]


# --- a plain replay seeds the emulated Batch from its events: a stop through Batch finds its service job -----------


@pytest.fixture(scope="module")
def plain_stop(tmp_path_factory):
    """The preempted sample up to its third attempt's RUNNING, then a StalledTraining finding on that attempt's
    training job, replayed as a plain events file (no timeline submits the job); the rows, the service job after."""
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.emulator import batch as moto_batch
    from rule_actions_cli.inputs import load
    from rule_actions_cli.synth import synthesize

    lifecycle = json.loads((SAMPLES / "lifecycle-batch-preempted-then-stopped.json").read_text())
    running = next(i for i, raw in enumerate(lifecycle) if raw["source"] == "aws.batch"
                   and raw["detail"]["status"] == "RUNNING" and len(raw["detail"]["attempts"]) == 3)
    training = copy.deepcopy(lifecycle[running - 1])  # the third attempt's training job, Training
    attempt = training["detail"]["TrainingJobName"]
    training.update(id="f1e2d3c4-0000-4000-8000-000000000003", time="2026-11-24T13:40:00Z")
    training["detail"]["DebugRuleEvaluationStatuses"] = [{
        "RuleConfigurationName": "StalledTraining", "RuleEvaluationStatus": "IssuesFound",
        "StatusDetails": "RuleEvaluationConditionMet: no progress for 30 minutes",
        "LastModifiedTime": "1795527600000"}]
    training["detail"]["DebugRuleConfigurations"] = [{"RuleConfigurationName": "StalledTraining",
                                                      "RuleParameters": {"rule_to_invoke": "StalledTraining"}}]
    path = tmp_path_factory.mktemp("events") / "batch-stalled.json"
    path.write_text(json.dumps([*lifecycle[:running + 1], training]))
    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": json.loads(CONFIG.read_text())})
    with EmbeddedAccount(assembly, stack) as account:
        rows = account.replay(load([str(path)], as_rows=True)[0])
        service_job = moto_batch.service_job(lifecycle[0]["detail"]["jobId"])
    return rows, service_job, attempt


def test_a_plain_replay_seeds_batch_so_a_stop_finds_and_terminates_its_service_job(plain_stop):
    rows, service_job, attempt = plain_stop
    # Given the events alone (the service job never submitted in the embedded Batch)
    # Then the finding's stop went through TerminateServiceJob on the job the events seeded
    [stop] = [a for r in rows if r["job"] == attempt for a in r["actions"] if a["kind"] == "stoptraining"]
    assert stop["outcome"] == "done", stop
    assert "TerminateServiceJob of service job llm-pretrain-nov24" in stop["reason"]
    assert service_job["status"] == "FAILED" and service_job["isTerminated"] is True
    assert "StalledTraining" in service_job["statusReason"]
    # And the seeded job holds what the events said, nothing invented: no request, no tags
    assert len(service_job["attempts"]) == 3 and service_job["jobQueue"].endswith(":job-queue/gpu-training")
    assert "serviceRequestPayload" not in service_job and service_job["tags"] == {}
