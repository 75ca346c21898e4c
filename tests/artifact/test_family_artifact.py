"""The artifact Lambda runs over the job families' sample lifecycles (events/tuning, processing, pipelines,
transform), on moto server with moto's IAM engine enforcing the function role's policy as the template declares it:
every read a family makes (a tuning job described and its failed trials listed, a processing job described, a
pipeline execution's steps listed and each failed step's job described) is allowed by the family's own statement,
under prefixes that leave a pipeline's step jobs to the pipeline's statement alone; the artifact decides what the
sources decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import Runner, iam_enforced, run_events, served, unzipped

from rule_actions_cdk.app import project_context
from rule_actions_cli import inputs
from rule_actions_cli.main import run_replay

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [ROOT / "events" / name for name in ("tuning", "processing", "pipelines", "transform")]
# (moto's SageMaker answers a refused request with its bare HTTP status, 403)
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "AuthorizationError", "403"}
CONFIG = {
    "notify": {"emails": ["ml-team@example.com"]},
    "job_outcomes": {"Failed": ["notify"]},
    "tuning_job_outcomes": {"Failed": ["notify"], "Completed": ["notify"]},
    "processing_job_outcomes": {"Failed": ["notify"]},
    "pipeline_outcomes": {"Failed": ["notify"]},
    "transform_job_outcomes": {"Failed": ["notify"]},
    "pipeline_step_jobs_alert": False,
    # prefixes: the step jobs (pipelines-...) and the pipeline's tuning job are under none of them
    "training_job_prefixes": ["exp-"], "tuning_job_prefixes": ["xgb-", "bert-"],
    "processing_job_prefixes": ["churn-", "feature-"], "pipeline_prefixes": ["churn-"],
    "transform_job_prefixes": ["churn-"],
}
FAMILY_CALLS = {("sagemaker", "DescribeHyperParameterTuningJob"), ("sagemaker", "ListTrainingJobsForHyperParameterTuningJob"),
                ("sagemaker", "DescribeProcessingJob"), ("sagemaker", "ListPipelineExecutionSteps"),
                ("sagemaker", "DescribeTrainingJob")}


@pytest.fixture(scope="module")
def corpus():
    events, errors = inputs.load([str(folder) for folder in FOLDERS])
    assert not errors
    return events


@pytest.fixture(scope="module")
def context():
    return {**project_context(), "rule_actions": CONFIG}


@pytest.fixture(scope="module")
def replayed(context, corpus):
    return run_replay(corpus, context, verbose=False)


@pytest.fixture(scope="module")
def deployed(replayed):
    with served(CONFIG) as account:
        yield account


def test_the_asset_runs_every_family_with_only_its_role_s_permissions(deployed, corpus, replayed, tmp_path):
    asset, runtime = unzipped(deployed, tmp_path)
    env = deployed.function_environment(deployed.role_credentials())
    with iam_enforced():
        runner = Runner(asset, runtime, env)
        try:
            assert runner.hello.get("ready"), runner.hello
            rows = run_events(deployed, runner, corpus)
        finally:
            runner.close()

    calls = [tuple(call) for r in rows for call in r.get("calls", [])]
    assert [c for c in calls if c[2] in ACCESS_DENIED] == []
    assert FAMILY_CALLS <= {(service, op) for service, op, _ in calls}
    assert all("error" not in r for r in rows)

    def decisions(found):
        return [(r["source"], r["job_family"], [(a["trigger"], a["kind"], a["outcome"]) for a in r.get("actions", [])])
                for r in found]

    assert decisions(rows) == decisions(replayed)
    done = [(r["job_family"], a["kind"]) for r in rows for a in r["actions"] if a["outcome"] == "done"]
    assert sorted(done) == sorted([("tuning", "notify")] * 2 + [("processing", "notify")] * 2
                                  + [("pipeline", "notify")] * 3 + [("transform", "notify")])
    # A step job named lower-cased in its ARN is found by its real name under the role (its listing on "*")
    assert ("sagemaker", "ListProcessingJobs") in {(service, op) for service, op, _ in calls}


def test_without_the_pipeline_s_statement_a_step_s_job_is_not_read(deployed, tmp_path):
    # Given the role's policy without the statement on the jobs of a pipeline's steps
    iam = deployed.client("iam")
    role = deployed.client("lambda").get_function_configuration(FunctionName=deployed.function_name)["Role"]
    role_name = role.rsplit("/", 1)[1]
    [policy_name] = iam.list_role_policies(RoleName=role_name)["PolicyNames"]
    document = iam.get_role_policy(RoleName=role_name, PolicyName=policy_name)["PolicyDocument"]
    document = json.loads(document) if isinstance(document, str) else document
    narrowed = {**document, "Statement": [s for s in document["Statement"] if s.get("Sid") != "DescribePipelineStepJobs"]}
    iam.put_role_policy(RoleName=role_name, PolicyName=policy_name, PolicyDocument=json.dumps(narrowed))
    asset, runtime = unzipped(deployed, tmp_path)
    events, _ = inputs.load([str(ROOT / "events" / "pipelines" / "lifecycle-pipeline-parallel-steps-failed.json")])
    env = deployed.function_environment(deployed.role_credentials())
    try:
        with iam_enforced():
            runner = Runner(asset, runtime, env)
            try:
                rows = [row for row in run_events(deployed, runner, events) if row["matched"]]
            finally:
                runner.close()
    finally:
        iam.put_role_policy(RoleName=role_name, PolicyName=policy_name, PolicyDocument=json.dumps(document))
    # Then the describes of the step's jobs were refused, every other call allowed; the execution still reports (its
    # message was sent in the first test, or here, naming what could not be read)
    for row in rows:
        refused = [tuple(c[:2]) for c in row["calls"] if c[2] in ACCESS_DENIED]
        assert refused == [("sagemaker", "DescribeTrainingJob")] * 2 and "error" not in row
        assert [a["outcome"] for a in row["actions"]] in (["done"], ["duplicate"])
