"""Job outcomes end to end on the embedded AWS: each sample lifecycle delivered through the real handler, with
the team's inbox read back from SNS. The right actions, once, with the message content people need; our own
stop never alerts twice."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import pytest
from builders import event, rule_config, rule_status, sample

from rule_actions.handler import ActionsFailed

TEAM = "team@example.com"
OUTCOMES = {"Failed", "MaxRuntimeExceeded", "MaxWaitTimeExceeded", "Interrupted", "Stopped"}
PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")


def configure(aws, outcomes=OUTCOMES, action: Any = "notify", **extra: Any) -> None:
    aws.configure(notify={"emails": [TEAM]}, job_outcomes={o: [action] for o in outcomes}, **extra)


def deliver(aws, file: str) -> list[dict[str, Any]]:
    """Every event of a lifecycle in order, the job seeded as SageMaker holds it at that moment."""
    results = []
    for raw in sample(file):
        detail = raw["detail"]
        aws.put_job(detail["TrainingJobName"], detail["TrainingJobStatus"], secondary_status=detail["SecondaryStatus"])
        results.append(aws.invoke(raw))
    return results


def done(results: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(a["trigger"], a["kind"]) for r in results for a in r["actions"] if a["outcome"] == "done"]


def test_a_failed_job_notifies_once_with_its_failure_reason_run_time_transitions_and_links(aws):
    # Given job_outcomes notifying the team, and a job without any Debugger rule that fails (AlgorithmError)
    configure(aws)

    # When its lifecycle is delivered, with SageMaker's copies of the Failed event
    results = deliver(aws, "lifecycle-failed-algorithm-error.json")

    # Then the team is notified once, as job:Failed (no rule), and the copies are duplicates
    assert done(results) == [("job:Failed", "notify")]
    outcomes = [a for r in results for a in r["actions"]]
    assert [a["outcome"] for a in outcomes] == ["done", "duplicate", "duplicate"]
    assert all(a["rule"] is None for a in outcomes)
    [message] = aws.inbox(TEAM)

    # And the message says what failed and why, how long it ran, where to look
    job = sample("lifecycle-failed-algorithm-error.json")[-1]["detail"]
    name = job["TrainingJobName"]
    assert message["subject"] == f"[rule-actions] training job failed: {name}"
    body = message["email"]
    assert body.startswith(f"SageMaker training job {name} failed.")
    assert "Failure reason:\n  AlgorithmError: ExecuteUserScriptError:" in body
    assert "CUDA out of memory" in body
    seconds = job["TrainingTimeInSeconds"]
    assert f"Ran for:        {seconds // 60} min {seconds % 60} s (billable" in body
    last = job["SecondaryStatusTransitions"][-1]
    assert f"Failed: {last['StatusMessage']}" in body.split("Last status transitions:")[1]
    console, logs = (line.split(": ", 1)[1].strip() for line in body.splitlines() if line.startswith("Training job ") and "https://" in line)
    assert console.endswith(f"#/jobs/{name}") and "us-east-1.console.aws.amazon.com" in console
    assert "/aws/sagemaker/TrainingJobs" in unquote(logs.replace("$25", "%").replace("$3D", "=")) and logs.endswith(name)
    # And the text message stays short, plain, and carries the reason's start
    assert len(message["sms"]) <= 140 and PRINTABLE_ASCII.fullmatch(message["sms"])
    assert message["sms"].startswith(f"rule-actions: training job failed: {name}: AlgorithmError")


def test_a_timeout_is_told_apart_from_a_stop(aws):
    # Given job_outcomes for MaxRuntimeExceeded and Stopped alike
    configure(aws)

    # When a job reaches its maximum run time (it ends Stopped, SecondaryStatus MaxRuntimeExceeded)
    results = deliver(aws, "lifecycle-max-runtime-exceeded.json")

    # Then it is one MaxRuntimeExceeded alert, never a Stopped one
    assert done(results) == [("job:MaxRuntimeExceeded", "notify")]
    assert not [a for r in results for a in r["actions"] if a["trigger"] == "job:Stopped"]
    [message] = aws.inbox(TEAM)
    assert message["subject"].startswith("[rule-actions] training job timed out: ")
    assert "maximum run time (MaxRuntimeExceeded)" in message["email"]
    assert "Outcome:        MaxRuntimeExceeded" in message["email"]


def test_a_spot_interruption_alerts_once_and_the_resumed_job_is_quiet(aws):
    # Given job_outcomes for Interrupted (Completed is not configured)
    configure(aws)

    # When a spot job is interrupted (two copies), resumes and completes
    results = deliver(aws, "lifecycle-spot-interrupted-resumed.json")

    # Then one alert, while the job is still InProgress, and nothing for its completion
    assert done(results) == [("job:Interrupted", "notify")]
    [message] = aws.inbox(TEAM)
    assert message["subject"].startswith("[rule-actions] spot training job interrupted: ")
    assert "SageMaker resumes it from its last checkpoint" in message["email"]
    assert "Ended:          not yet" in message["email"]


def test_a_completed_job_reports_its_spot_savings(aws):
    # Given job_outcomes for Completed
    configure(aws, outcomes={"Completed"})

    # When the spot job completes (billable time well under training time)
    results = deliver(aws, "lifecycle-spot-interrupted-resumed.json")

    # Then one message, with the saving computed from the event's own numbers
    assert done(results) == [("job:Completed", "notify")]
    [message] = aws.inbox(TEAM)
    detail = sample("lifecycle-spot-interrupted-resumed.json")[-1]["detail"]
    saved = 100 - round(100 * detail["BillableTimeInSeconds"] / detail["TrainingTimeInSeconds"])
    assert f"{saved}% saved by spot capacity" in message["email"]


def test_a_job_stopped_by_a_person_alerts_once(aws):
    configure(aws)
    results = deliver(aws, "lifecycle-stopped-by-person.json")
    assert done(results) == [("job:Stopped", "notify")]
    [message] = aws.inbox(TEAM)
    assert message["subject"].startswith("[rule-actions] training job stopped: ")
    assert "by a person or a tool outside this stack" in message["email"]


def test_our_own_stop_never_alerts_twice(aws):
    # Given the team notified of rules and of Stopped jobs
    configure(aws)

    # When the stack stops a job for a rule (IssuesFound), and the job then ends Stopped (three copies)
    results = deliver(aws, "lifecycle-stopped-after-issues.json")

    # Then the team got the rule's message only; the Stopped outcome is skipped naming the rule, said once (the
    # later copies are duplicates naming it)
    assert ("job:Stopped", "notify") not in done(results)
    stopped = [a for r in results for a in r["actions"] if a["trigger"] == "job:Stopped"]
    assert [a["outcome"] for a in stopped] == ["skipped", "duplicate", "duplicate"]
    assert stopped[0]["reason"].startswith("stopped by this stack (rule LossNotDecreasing of NLP-Bert-Finetune-Exp7)")
    assert all(a["reason"].startswith("already reported: skipped (stopped by this stack (rule LossNotDecreasing")
               for a in stopped[1:])
    assert [m["subject"] for m in aws.inbox(TEAM)] == [
        "[rule-actions] LossNotDecreasing issues found in NLP-Bert-Finetune-Exp7"]


def test_a_stop_by_prefix_records_every_job_it_stopped(aws):
    # Given a family whose rule stops every InProgress job under its prefix, and Stopped outcomes notified
    configure(aws, stop_all_matching=True)
    for job in ("hpo-a-1", "hpo-a-2"):
        aws.put_job(job)
    stop_family = '[{"name": "stoptraining", "training_job_prefix": "hpo-a-"}]'
    aws.invoke(event(job="hpo-a-1", debug=[rule_status("Overfit", job="hpo-a-1")],
                     debug_configs=[rule_config("Overfit", stop_family)]))

    # When the other job of the family ends Stopped
    aws.put_job("hpo-a-2", "Stopped", secondary_status="Stopped")
    result = aws.invoke(event(job="hpo-a-2", status="Stopped", secondary="Stopped"))

    # Then its outcome is skipped too: this stack stopped it, for hpo-a-1's rule
    [action] = result["actions"]
    assert action["outcome"] == "skipped" and "rule Overfit of hpo-a-1" in action["reason"]


def test_outcome_actions_reach_endpoints_too_and_follow_the_allowlist(aws):
    # Given Failed sending an email and a text, and an allowlist that admits the email only
    aws.configure(job_outcomes={"Failed": [{"name": "email", "endpoint": "oncall@example.com"},
                                           {"name": "sms", "endpoint": "+15555550199"}]},
                  allowed_endpoints=["*@example.com", "+15555550199"])
    aws.put_job("demo-job-001", "Failed", secondary_status="Failed")

    # When a job fails
    failed = event(status="Failed", secondary="Failed")
    failed["detail"]["FailureReason"] = "ClientError: Please ensure the S3 bucket exists"
    result = aws.invoke(failed)

    # Then both are sent, each to its own endpoint only
    assert [(a["kind"], a["outcome"]) for a in result["actions"]] == [("email", "done"), ("sms", "done")]
    assert "ClientError: Please ensure" in aws.inbox("oncall@example.com")[0]["email"]
    assert aws.inbox("+15555550199")[0]["sms"].endswith("ClientError: Please ensure the S3 bucket exists")


def test_a_failed_notification_is_retried_and_sent_once(aws):
    # Given job_outcomes for Failed, and SNS failing on the first delivery
    configure(aws)
    aws.put_job("demo-job-001", "Failed", secondary_status="Failed")
    failing = {"on": True}

    def fail_publish(**_):
        if failing["on"]:
            raise RuntimeError("SNS is down")

    aws.effects().notifier.client.meta.events.register("before-call.sns.Publish", fail_publish)
    failed = event(status="Failed", secondary="Failed")

    # When it is delivered (Lambda retries the failed invocation), then delivered again by SageMaker
    with pytest.raises(ActionsFailed, match="job:Failed notify team"):
        aws.invoke(failed)
    failing["on"] = False
    retried, again = aws.invoke(failed), aws.invoke({**failed, "id": "another-delivery"})

    # Then it was sent once
    assert [a["outcome"] for a in retried["actions"]] == ["done"]
    assert [a["outcome"] for a in again["actions"]] == ["duplicate"]
    assert len(aws.inbox(TEAM)) == 1


def test_concurrent_deliveries_of_an_outcome_send_once(aws):
    # Given job_outcomes for Failed, and the Failed event delivered four times at once
    configure(aws)
    aws.put_job("demo-job-001", "Failed", secondary_status="Failed")
    failed = event(status="Failed", secondary="Failed")
    errors = aws.at_once(failed)  # "in progress in a concurrent invocation": Lambda retries those

    # Then the team got one message, and a retry of any of them finds it done
    assert len(aws.inbox(TEAM)) == 1
    assert all("in progress" in str(e) for e in errors)
    assert [a["outcome"] for a in aws.invoke(failed)["actions"]] == ["duplicate"]


def test_an_outcome_not_configured_does_nothing(aws):
    # Given job_outcomes for Failed only
    configure(aws, outcomes={"Failed"})

    # When jobs complete, stop or time out
    results = [aws.invoke(event(status=s, secondary=x)) for s, x in
               (("Completed", "Completed"), ("Stopped", "Stopped"), ("Stopped", "MaxRuntimeExceeded"))]

    # Then nothing is planned, and nothing read or sent
    assert all(r["actions"] == [] for r in results)
    assert aws.published == [] and not {"GetItem", "ListSubscriptionsByTopic"} & set(aws.calls)
