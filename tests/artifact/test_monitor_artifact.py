"""The evaluator as Lambda runs it: the stack with the monitor rules deployed into moto server, the code asset in a
clean interpreter with the evaluator's environment and its role's credentials, every request checked by moto's IAM
engine against the evaluator's policy as the template declares it. A hung job (its tag attaches StalledTraining
with a stop) and an idle one (the stack-wide LowGPUUtilization) are evaluated: every call the evaluation makes is
allowed (Search, GetMetricData, FilterLogEvents on the training log group, DescribeTrainingJob, then the actions'
own); without the logs grant, that job's rule is an error on its row and the rest goes on. The same with one Logs
Insights query reading the jobs' logs (StartQuery on the log group, GetQueryResults); without its grant on the
query's results, the jobs are read one FilterLogEvents call each in the same run. A job past its budget: the Price
List read (pricing:GetProducts, answered by the embedded account's sample prices) is allowed and the job stopped;
without that grant its price is unknown, said on its row, and nothing is stopped."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import Runner, iam_enforced, served, unzipped, without_statement

from rule_actions.contract import EVALUATION_KEY
from rule_actions_cli.emulator import monitoring as moto_monitoring
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {**json.loads((ROOT / "examples" / "demo-config.json").read_text()),
          "monitor": {"rules": {"LowGPUUtilization": {}}}}
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
T = int(NOW.timestamp())
# moto answers an IAM refusal of a JSON-protocol service (CloudWatch Logs, CloudWatch) in XML, which botocore reads
# as the bare HTTP status: 403 is AccessDenied there.
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "AuthorizationError", "403"}
EVALUATION_CALLS = {("sagemaker", "Search"), ("cloudwatch", "GetMetricData"), ("logs", "FilterLogEvents"),
                    ("sagemaker", "DescribeTrainingJob"), ("sagemaker", "StopTrainingJob"), ("sns", "Publish")}


@pytest.fixture(scope="module")
def deployed():
    with served(CONFIG) as account:
        yield account


@pytest.fixture(scope="module")
def artifact(deployed, tmp_path_factory):
    return unzipped(deployed, tmp_path_factory.mktemp("lambda"))


def seed(name: str, tags: dict[str, str], silent_minutes: int, gpu: float) -> None:
    start = NOW - timedelta(minutes=90)
    moto_sagemaker.put_training_job(name, "InProgress", tags=tags, transitions=[{"Status": "Training",
                                                                                 "StartTime": start}],
                                    resource_config={"InstanceType": "ml.g5.12xlarge", "InstanceCount": 1})
    moto_monitoring.put_log_lines("/aws/sagemaker/TrainingJobs", f"{name}/algo-1-1763970000",
                                  [(T - m * 60, "step") for m in range(80, silent_minutes, -1)])
    moto_monitoring.put_metrics(("/aws/sagemaker/TrainingJobs", "GPUUtilization", {"Host": f"{name}/algo-1"},
                                 T - m * 60, gpu) for m in range(45, 0, -1))


def run(deployed, artifact, minutes_later: int = 0, insights_from: int | None = None) -> dict:
    asset, runtime = artifact
    env = deployed.function_environment(deployed.role_credentials(deployed.evaluator_name), evaluator=True)
    if insights_from is not None:  # from how many jobs to read one Logs Insights query reads them
        env["RULE_ACTIONS_LOGS_INSIGHTS_FROM"] = str(insights_from)
    with iam_enforced():
        runner = Runner(asset, runtime, env)
        try:
            assert runner.hello.get("ready"), runner.hello
            when = (NOW + timedelta(minutes=minutes_later)).isoformat().replace("+00:00", "Z")
            return runner.send({EVALUATION_KEY: {"time": when, "shard": 0, "shards": 1}})
        finally:
            runner.close()


def test_the_evaluator_reads_and_acts_with_its_roles_permissions_only(deployed, artifact):
    # Given a hung job (StalledTraining by its tag, with a stop) and a job with idle GPUs
    seed("artifact-hung-01", {"rule-actions:StalledTraining": "stoptraining"}, silent_minutes=40, gpu=300)
    seed("artifact-idle-01", {}, silent_minutes=0, gpu=20)
    # When the evaluator runs from the asset as its role
    answer = run(deployed, artifact)
    # Then every call was allowed, and covered what an evaluation does
    calls = {tuple(call) for call in answer["calls"]}
    assert not [c for c in calls if c[2] in ACCESS_DENIED], calls
    assert EVALUATION_CALLS <= {(service, op) for service, op, _ in calls}
    jobs = {job["training_job"]: job for job in answer["result"]["jobs"]}
    assert [(a["kind"], a["outcome"]) for a in jobs["artifact-hung-01"]["actions"]] == [("stoptraining", "done"),
                                                                                        ("notify", "done")]
    assert [(a["trigger"], a["outcome"]) for a in jobs["artifact-idle-01"]["actions"]] == [
        ("LowGPUUtilization", "done")]
    assert moto_sagemaker.training_job_status("artifact-hung-01") == "Stopping"


def test_without_the_logs_grant_that_read_is_refused_and_the_rest_goes_on(deployed, artifact):
    # Given the evaluator's policy without its statement on the training log group
    seed("artifact-hung-02", {"rule-actions:StalledTraining": "stoptraining"}, silent_minutes=40, gpu=20)
    role = deployed.client("lambda").get_function_configuration(FunctionName=deployed.evaluator_name)["Role"]
    with without_statement(deployed.client("iam"), role.rsplit("/", 1)[1], "ReadTrainingLogs"):
        answer = run(deployed, artifact, minutes_later=1)
    # Then FilterLogEvents alone was refused: the stalled rule is an error on the job's row, its GPU rule still ran
    refused = {tuple(c[:2]) for c in answer["calls"] if c[2] in ACCESS_DENIED}
    assert refused == {("logs", "FilterLogEvents")}
    job = next(j for j in answer["result"]["jobs"] if j["training_job"] == "artifact-hung-02")
    verdicts = {r["rule"]: r["verdict"] for r in job["rules"]}
    assert verdicts == {"LowGPUUtilization": "IssuesFound", "StalledTraining": "Error"}
    assert answer["result"]["evaluation"]["findings"] >= 1
    assert moto_sagemaker.training_job_status("artifact-hung-02") == "InProgress"


def test_the_logs_insights_read_is_allowed_by_the_role_and_falls_back_without_its_grant(deployed, artifact):
    # Given a hung job and a run that reads logs by one Logs Insights query from one job on
    seed("artifact-hung-03", {"rule-actions:StalledTraining": "stoptraining"}, silent_minutes=40, gpu=300)
    answer = run(deployed, artifact, minutes_later=2, insights_from=1)
    # Then StartQuery and GetQueryResults were allowed, no FilterLogEvents was needed, the hung job was stopped
    calls = [tuple(c) for c in answer["calls"]]
    assert not [c for c in calls if c[2] in ACCESS_DENIED], calls
    logs = [c[1] for c in calls if c[0] == "logs"]
    assert logs[:2] == ["StartQuery", "GetQueryResults"] and "FilterLogEvents" not in logs
    assert answer["result"]["evaluation"]["log_reads"].startswith("one Logs Insights query read ")
    assert moto_sagemaker.training_job_status("artifact-hung-03") == "Stopping"
    # And given the role without its statement on the query's results, a hung job is read one call each instead
    seed("artifact-hung-04", {"rule-actions:StalledTraining": "stoptraining"}, silent_minutes=40, gpu=300)
    role = deployed.client("lambda").get_function_configuration(FunctionName=deployed.evaluator_name)["Role"]
    with without_statement(deployed.client("iam"), role.rsplit("/", 1)[1], "ReadTrainingLogQueries"):
        answer = run(deployed, artifact, minutes_later=3, insights_from=1)
    refused = {tuple(c[:2]) for c in answer["calls"] if c[2] in ACCESS_DENIED}
    # (StopQuery, which ends a query whose results cannot be read, is in the same statement: refused too)
    assert ("logs", "GetQueryResults") in refused and refused <= {("logs", "GetQueryResults"), ("logs", "StopQuery")}
    assert "FilterLogEvents" in [c[1] for c in answer["calls"] if c[0] == "logs"]
    assert "failed" in answer["result"]["evaluation"]["log_reads"]
    assert moto_sagemaker.training_job_status("artifact-hung-04") == "Stopping"


def seed_budget(name: str, usd: float) -> None:
    """A job on one ml.g5.12xlarge (the embedded account's sample price: $7.09/h), 90 minutes on its instance, whose
    tags give it a budget and a stop."""
    start = NOW - timedelta(minutes=90)
    moto_sagemaker.put_training_job(
        name, "InProgress", tags={"rule-actions:Budget": "stoptraining", "rule-actions:Budget:parameters": f"usd={usd}"},
        transitions=[{"Status": "Training", "StartTime": start}], training_start_time=start,
        resource_config={"InstanceType": "ml.g5.12xlarge", "InstanceCount": 1})


def test_a_budget_reads_prices_with_the_evaluators_role_and_without_its_grant_judges_nothing(deployed, artifact):
    # Given a job past its $5 budget ($10.64 spent)
    seed_budget("artifact-budget-01", 5)
    # When the evaluator runs as its role, IAM enforced
    answer = run(deployed, artifact, minutes_later=4)
    # Then the Price List was read (pricing:GetProducts allowed, once for the one instance type and region), and the
    # job was stopped, its result saying what it cost until the stop
    calls = [tuple(c) for c in answer["calls"]]
    assert [c for c in calls if c[0] == "pricing"] == [("pricing", "GetProducts", None)]
    job = next(j for j in answer["result"]["jobs"] if j["training_job"] == "artifact-budget-01")
    assert {r["rule"]: r["verdict"] for r in job["rules"]}["Budget"] == "IssuesFound"
    stop = job["actions"][0]
    assert (stop["kind"], stop["outcome"]) == ("stoptraining", "done") and "(cost $" in stop["reason"]
    assert moto_sagemaker.training_job_status("artifact-budget-01") == "Stopping"
    # And given the role without its ReadPrices statement, another job past its budget
    seed_budget("artifact-budget-02", 5)
    role = deployed.client("lambda").get_function_configuration(FunctionName=deployed.evaluator_name)["Role"]
    with without_statement(deployed.client("iam"), role.rsplit("/", 1)[1], "ReadPrices"):
        answer = run(deployed, artifact, minutes_later=5)
    # Then the read is refused, the job's row says its price is unknown and why, and nothing is stopped
    refused = {tuple(c[:2]) for c in answer["calls"] if c[2] in ACCESS_DENIED}
    assert refused == {("pricing", "GetProducts")}
    job = next(j for j in answer["result"]["jobs"] if j["training_job"] == "artifact-budget-02")
    budget = next(r for r in job["rules"] if r["rule"] == "Budget")
    assert budget["verdict"] == "Skipped" and budget["reason"].startswith("unknown price, not judged: the price of "
                                                                          "ml.g5.12xlarge in us-east-1 is not known")
    assert not job.get("actions") and moto_sagemaker.training_job_status("artifact-budget-02") == "InProgress"
