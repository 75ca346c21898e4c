"""The evaluator over the other job families as Lambda runs it: the stack deployed into moto server, the code asset
in a clean interpreter with the evaluator's role's credentials, every request checked by moto's IAM engine against
the evaluator's policy as the template declares it. A hung processing job (StalledJob), a running transform job and
a tuning job whose first trials failed (FailingTrials) are evaluated: every call the evaluation makes for them is
allowed (ListProcessingJobs, DescribeProcessingJob, ListTags, ListTransformJobs, Search of tuning jobs,
ListTrainingJobsForHyperParameterTuningJob, ListMetrics for a transform job's instances, FilterLogEvents on each
family's log group), each finding is its own family's, and its `stop` is allowed: StopProcessingJob and
StopHyperParameterTuningJob, granted because a rule of those families may stop."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import Runner, iam_enforced, served, unzipped

from rule_actions.contract import EVALUATION_KEY
from rule_actions_cli.emulator import monitoring as moto_monitoring
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "examples" / "demo-config.json").read_text())
CONFIG = {**DEMO, "processing_job_prefixes": ["prep-"], "transform_job_prefixes": ["score-"],
          "tuning_job_prefixes": ["hpo-"],
          "rules": {"StalledJob": ["stop", "notify"], "FailingTrials": ["stop", "notify"], **DEMO["rules"]},
          "monitor": {"rules": {"StalledJob": {"mode": "act"}, "FailingTrials": {"mode": "act"}, "IdleInstances": {}}}}
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
T = int(NOW.timestamp())
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "AuthorizationError", "403"}
FAMILY_CALLS = {("sagemaker", "ListProcessingJobs"), ("sagemaker", "DescribeProcessingJob"), ("sagemaker", "ListTags"),
                ("sagemaker", "ListTransformJobs"), ("sagemaker", "DescribeTransformJob"), ("sagemaker", "Search"),
                ("sagemaker", "ListTrainingJobsForHyperParameterTuningJob"), ("logs", "FilterLogEvents"),
                ("cloudwatch", "GetMetricData"), ("cloudwatch", "ListMetrics")}


@pytest.fixture(scope="module")
def deployed():
    with served(CONFIG) as account:
        yield account


@pytest.fixture(scope="module")
def artifact(deployed, tmp_path_factory):
    return unzipped(deployed, tmp_path_factory.mktemp("lambda"))


def test_the_evaluator_reads_every_family_with_its_roles_permissions_only(deployed, artifact):
    # Given a processing job silent for 40 minutes, a transform job logging, a tuning job whose 3 first trials failed
    start = NOW - timedelta(minutes=90)
    moto_sagemaker.put_processing_job("prep-hung-01", "InProgress", start_time=start, cluster={
        "InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30})
    moto_monitoring.put_log_lines("/aws/sagemaker/ProcessingJobs", "prep-hung-01/algo-1-1763970000",
                                  [(T - m * 60, "row") for m in range(80, 40, -1)])
    moto_sagemaker.put_transform_job("score-ok-01", "InProgress", start_time=start)
    moto_monitoring.put_log_lines("/aws/sagemaker/TransformJobs", "score-ok-01/i-0abc-1763970000",
                                  [(T - m * 60, "POST /invocations 200") for m in range(80, 0, -1)])
    arn = moto_sagemaker.put_tuning_job("hpo-bug-01", "InProgress", creation_time=start, objective="Minimize")
    for n in range(1, 4):
        moto_sagemaker.put_training_job(f"hpo-bug-01-00{n}-aaaa", "Failed", tuning_job_arn=arn,
                                        failure_reason="AlgorithmError: KeyError: 'label'")
    # When the evaluator runs from the asset as its role
    asset, runtime = artifact
    env = deployed.function_environment(deployed.role_credentials(deployed.evaluator_name), evaluator=True)
    with iam_enforced():
        runner = Runner(asset, runtime, env)
        try:
            assert runner.hello.get("ready"), runner.hello
            answer = runner.send({EVALUATION_KEY: {"time": NOW.isoformat().replace("+00:00", "Z"), "shard": 0,
                                                   "shards": 1}})
        finally:
            runner.close()
    # Then every call was allowed, and covered each family's reads
    calls = {tuple(call) for call in answer["calls"]}
    assert not [c for c in calls if c[2] in ACCESS_DENIED], calls
    assert FAMILY_CALLS <= {(service, op) for service, op, _ in calls}
    jobs = {job["job"]: job for job in answer["result"]["jobs"] if "job" in job}
    assert jobs["prep-hung-01"]["job_family"] == "processing"
    assert {r["rule"]: r["verdict"] for r in jobs["prep-hung-01"]["rules"]}["StalledJob"] == "IssuesFound"
    assert {r["rule"]: r["verdict"] for r in jobs["score-ok-01"]["rules"]} == {
        "StalledJob": "NoIssuesFound", "IdleInstances": "Pending"}  # no instance of it published CPUUtilization
    assert {r["rule"]: r["verdict"] for r in jobs["hpo-bug-01"]["rules"]} == {"FailingTrials": "IssuesFound"}
    # And each finding's stop went through its family's own call, allowed by the role
    assert {("sagemaker", "StopProcessingJob"), ("sagemaker", "StopHyperParameterTuningJob")} <= {
        (service, op) for service, op, _ in calls}
    assert [(a["kind"], a["outcome"]) for a in jobs["prep-hung-01"]["actions"] if a["kind"] == "stop"] == [
        ("stop", "done")]
    assert [(a["kind"], a["outcome"]) for a in jobs["hpo-bug-01"]["actions"] if a["kind"] == "stop"] == [
        ("stop", "done")]
    assert not [a for a in jobs["score-ok-01"].get("actions", []) if a["kind"] == "stop"]
