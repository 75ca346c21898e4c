"""`rule-actions report`: a deployed stack's figures from CloudWatch (the stack with the monitor rules deployed into
moto, the function's metrics put there as CloudWatch takes them from the function's EMF output: printed by the
function's own emitters under the stack's service name), only its own when another deployment's metrics are there
too, unknown figures said as unknown, bad input in one line with exit status 2. A replay's report:
test_report_replay.py."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from aws_lambda_powertools.metrics import MetricUnit, single_metric
from botocore.stub import Stubber

from rule_actions.contract import (
    COST_METRIC,
    ENV_SERVICE,
    EVALUATED_METRIC,
    EVALUATION_ERRORS_METRIC,
    EVALUATION_PROBLEMS_METRIC,
    EVALUATION_SECONDS_METRIC,
    EVENTS_METRIC,
    FAMILY_DIMENSION,
    FINDINGS_METRIC,
    IGNORED_METRIC,
    NAMESPACE,
    SAVED_METRIC,
    SERVICE,
    UNFINISHED_METRIC,
    Outcome,
)
from rule_actions.observability import emit, metrics, observed
from rule_actions.records import Origin, Planned, Result
from rule_actions.triggers.job_outcome import JobOutcome
from rule_actions.triggers.rule_status import RuleStatus
from rule_actions_cli import report as report_command
from rule_actions_cli.embedded import EmbeddedAccount, LocalContext
from rule_actions_cli.main import main
from rule_actions_cli.synth import asset_bytes, file_assets, synthesize

ROOT = Path(__file__).resolve().parents[2]
MONITOR = {"notify": {"emails": ["ml-team@example.com"]}, "rules": {"*": ["notify"]},
           "job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"]},
           "monitor": {"every_minutes": 10, "rules": {"StalledTraining": {}}}}


def context(config: dict[str, Any], **stack: Any) -> dict[str, Any]:
    from rule_actions_cdk.app import project_context

    found = project_context()
    return {**found, "rule_actions": config, "rule_actions_stack": {**found["rule_actions_stack"], **stack}}


# ------------------------------------------------------------------------------------------ what the function emits


def printed(emitting: Any, service: str) -> list[str]:
    """The EMF lines the function's emitters print (to stdout, as in Lambda) in an invocation of the function of the
    deployment whose service name (POWERTOOLS_SERVICE_NAME) is `service`."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.setenv(ENV_SERVICE, service)
        observed(lambda event, context: emitting())({}, LocalContext(f"{service}-handler", "arn:aws:lambda:x"))
    return out.getvalue().splitlines()


def decisions() -> None:
    """One invocation's decisions through the function's own `emit`: 3 stops done and 1 watched, 4 messages sent, 1
    webhook failed, 2 told twice (duplicate); their triggers."""
    issues, failed = RuleStatus("Debug", "VanishingGradient", "IssuesFound"), JobOutcome(outcome="Failed")

    def result(kind: str, outcome: Outcome, trigger: Any = issues) -> Result:
        return Result(Planned(trigger, kind, "job", Origin.CONFIGURATION), outcome, "", None)

    emit([issues, issues, issues, failed], [
        *(result("stoptraining", Outcome.DONE) for _ in range(2)), result("stop", Outcome.DONE),
        result("stoptraining", Outcome.WATCHED), *(result("notify", Outcome.DONE, failed) for _ in range(4)),
        result("webhook", Outcome.FAILED, failed), *(result("email", Outcome.DUPLICATE) for _ in range(2))])


def figures() -> None:
    """What the cost work emits (test-only, as the contract states it: namespace, name, unit None, dimension family):
    two of the three stops' savings known, two messages' costs."""
    for name, family, value in ((SAVED_METRIC, "training", 120.5), (SAVED_METRIC, "tuning", 30.25),
                                (COST_METRIC, "training", 80.0), (COST_METRIC, "processing", 12.34)):
        with single_metric(name=name, unit=MetricUnit.NoUnit, value=value, namespace=NAMESPACE) as metric:
            metric.add_dimension(name=FAMILY_DIMENSION, value=family)


def invocations() -> None:
    """Six events handled (one ignored), and two evaluator runs, as the handler adds them (one flush each)."""
    for _ in range(6):
        metrics.add_metric(name=EVENTS_METRIC, unit="Count", value=1)
    metrics.add_metric(name=IGNORED_METRIC, unit="Count", value=1)
    metrics.flush_metrics()
    for seconds, jobs, findings, problems in ((12.3, 4, 1, 2), (30.1, 3, 0, 0)):
        for name, value in ((EVALUATED_METRIC, jobs), (FINDINGS_METRIC, findings), (EVALUATION_ERRORS_METRIC, 0),
                            (EVALUATION_PROBLEMS_METRIC, problems), (UNFINISHED_METRIC, 0)):
            metrics.add_metric(name=name, unit="Count", value=value)
        metrics.add_metric(name=EVALUATION_SECONDS_METRIC, unit="Seconds", value=seconds)
        metrics.flush_metrics()


def put(cloudwatch: Any, lines: list[str], at: datetime | None = None) -> int:
    """The lines' metrics into CloudWatch as it takes them from a function's log (one datapoint per dimension set and
    value), with PutMetricData; `at` moves them in time. The number of datapoints."""
    points = [p for line in lines for p in report_command.emf_datapoints(line)]
    for namespace, name, dimensions, stamp, value, unit in points:
        cloudwatch.put_metric_data(Namespace=namespace, MetricData=[{
            "MetricName": name, "Dimensions": [{"Name": k, "Value": v} for k, v in dimensions.items()],
            "Timestamp": at or datetime.fromtimestamp(stamp, UTC), "Value": value, "Unit": unit}])
    return len(points)


def outputs(account: EmbeddedAccount, stack: str) -> dict[str, str]:
    found = account.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    return {output["OutputKey"]: output["OutputValue"] for output in found}


def deploy_beside(account: EmbeddedAccount, config: dict[str, Any], stack_name: str) -> None:
    """Another rule-actions stack, named `stack_name`, deployed into the same embedded account and region (its
    assets, then its template, as `cdk deploy` would)."""
    assembly, stack = synthesize(context(config, stack_name=stack_name))
    s3 = account.client("s3")
    for asset in file_assets(assembly, stack):
        for destination in asset["destinations"].values():
            place = {key: destination[key].replace("${AWS::AccountId}", account.function_arn.split(":")[4]).replace(
                "${AWS::Region}", account.region).replace("${AWS::Partition}", "aws")
                for key in ("bucketName", "objectKey")}
            s3.put_object(Bucket=place["bucketName"], Key=place["objectKey"], Body=asset_bytes(assembly, asset))
    template = json.loads((assembly / f"{stack}.template.json").read_text())
    account.client("cloudformation").create_stack(StackName=stack, TemplateBody=json.dumps(template),
                                                  Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM"])


def audit_figures() -> None:
    """The other deployment's: one stop done that saved $99 (training), two events handled."""
    stop = RuleStatus("Debug", "LossNotDecreasing", "IssuesFound")
    emit([stop], [Result(Planned(stop, "stoptraining", "job", Origin.CONFIGURATION), Outcome.DONE, "", None)])
    with single_metric(name=SAVED_METRIC, unit=MetricUnit.NoUnit, value=99.0, namespace=NAMESPACE) as metric:
        metric.add_dimension(name=FAMILY_DIMENSION, value="training")
    metrics.add_metric(name=EVENTS_METRIC, unit="Count", value=2)


@pytest.fixture(scope="module")
def deployed():
    """The stack with the monitor rules, deployed into moto, with today's metrics, a stop 40 days ago, and Lambda's
    own metrics of the evaluator (144 runs, 1 failed, the longest 45 s); in the same account and region, another
    rule-actions stack (AuditActions) with metrics of its own, and one deployed before the ServiceName output existed
    (OldActions: its function emits the service rule-actions)."""
    assembly, stack = synthesize(context(MONITOR))
    with EmbeddedAccount(assembly, stack) as account:
        cloudwatch = boto3.client("cloudwatch", region_name=account.region)
        service = outputs(account, stack)["ServiceName"]
        assert service == stack != SERVICE  # the stack's own name
        assert put(cloudwatch, printed(decisions, service) + printed(figures, service)
                   + printed(invocations, service)) > 20
        old = printed(lambda: emit([], [Result(Planned(JobOutcome(outcome="Failed"), "stoptraining", "j",
                                                       Origin.CONFIGURATION), Outcome.DONE, "", ())]), service)
        put(cloudwatch, old, datetime.now(UTC) - timedelta(days=40))
        # The other deployments beside it, and their metrics
        deploy_beside(account, MONITOR, "AuditActions")
        assert outputs(account, "AuditActions")["ServiceName"] == "AuditActions"
        put(cloudwatch, printed(audit_figures, "AuditActions"))
        account.client("cloudformation").create_stack(StackName="OldActions", TemplateBody=json.dumps({
            "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
            "Outputs": {"FunctionName": {"Value": "OldActions-handler"}}}))
        put(cloudwatch, printed(lambda: metrics.add_metric(name=EVENTS_METRIC, unit="Count", value=7), SERVICE))
        for name, value, unit in (("Invocations", 144, "Count"), ("Errors", 1, "Count"),
                                  ("Duration", 45_000, "Milliseconds")):
            cloudwatch.put_metric_data(Namespace="AWS/Lambda", MetricData=[{
                "MetricName": name, "Dimensions": [{"Name": "FunctionName", "Value": account.evaluator_name}],
                "Value": value, "Unit": unit}])
        yield account, stack


def report(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["report", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_report_of_a_deployed_stack_has_every_figure(deployed, capsys):
    account, stack = deployed
    # When the report is asked as a script would
    code, out, err = report(capsys, "--stack", stack, "--json")
    # Then exit 0, one JSON object with the figures of the last 30 days (the stop 40 days ago left out)
    assert code == 0 and err == ""
    found = json.loads(out)
    assert found["days"] == 30 and found["service"] == stack
    assert found["scope"].startswith(f"stack {stack} (function {account.function_name}, service {stack})")
    assert found["stops"] == {"carried_out": 3, "watched": 1, "saving_known": 2, "saving_unknown": 1,
                              "saved_usd": 150.75, "saved_by_family": {"training": 120.5, "tuning": 30.25}}
    assert found["costs"] == {"messages": 2, "usd": 92.34, "by_family": {"training": 80.0, "processing": 12.34}}
    assert found["actions"] == {"stoptraining": {"done": 2, "watched": 1}, "stop": {"done": 1},
                                "email": {"duplicate": 2}, "notify": {"done": 4}, "webhook": {"failed": 1}}
    assert found["triggers"] == {"rule:IssuesFound": 3, "job:Failed": 1}
    assert found["events"] == {"handled": 6, "ignored": 1, "test_notifications": 0, "refused_accounts": 0,
                                "restarts": 0}
    # the evaluator's health: Lambda's runs and failures, its longest run (Lambda's 45 s: longer than any it timed)
    assert found["evaluator"] == {
        "function": account.evaluator_name, "timeout_s": 600, "runs": 144, "failed_runs": 1, "timed_runs": 2,
        "longest_run_s": 45.0, "failed_reads": 0, "not_computed": 2, "jobs_not_reached": 0, "most_jobs_in_a_run": 4,
        "findings": 1}
    assert found["unknown"] == [] and found["ledger"] is None


def test_the_text_says_each_figure_on_its_line(deployed, capsys):
    _, stack = deployed
    code, out, _ = report(capsys, "--stack", stack)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"rule-actions report: stack {stack} ")
    said = {line[:14].strip(): line[14:] for line in lines[1:] if line[:14].strip()}
    assert said["jobs stopped"] == "3 stop(s) carried out; 1 watched (watch mode: nothing stopped)"
    assert said["saved"] == ("$150.75 at most, from 2 stop(s) (training $120.50, tuning $30.25); 1 more stop(s), "
                             "saving unknown (price unknown)")
    assert said["job costs"] == "$92.34 stated in 2 message(s) (training $80.00, processing $12.34)"
    assert said["triggers"] == "rule:IssuesFound 3, job:Failed 1"
    assert said["events"] == "6 handled, 1 ignored, 0 test notification(s)"
    assert said["evaluator"] == ("144 run(s), 1 failed; 0 failed read(s), 2 rule evaluation(s) not computed, 0 "
                                 "job(s) not reached")
    assert lines[-1] == "              longest run 45 s (timeout 600 s); at most 4 job(s) judged in a run; 1 rule finding(s)"
    table = lines[lines.index(next(line for line in lines if line.startswith("actions"))):][:6]
    assert table[0].split()[1:] == ["kind", "done", "duplicate", "failed", "watched"]
    assert table[1].split() == ["stoptraining", "2", "0", "0", "1"]


def test_each_stack_reports_its_own_metrics_and_none_of_another_deployments(deployed, capsys):
    # Given AuditActions deployed beside RuleActions in the same account and region, each function emitting under
    # its own service name (RuleActions' figures, asserted above, count none of AuditActions')
    code, out, _ = report(capsys, "--stack", "AuditActions", "--json")
    found = json.loads(out)
    # Then AuditActions' report has its own figures only: its one stop and its saving, its two events
    assert code == 0 and found["service"] == "AuditActions"
    assert found["scope"].startswith("stack AuditActions (function AuditActions-handler, service AuditActions)")
    assert found["stops"] == {"carried_out": 1, "watched": 0, "saving_known": 1, "saving_unknown": 0,
                              "saved_usd": 99.0, "saved_by_family": {"training": 99.0}}
    assert found["actions"] == {"stoptraining": {"done": 1}} and found["triggers"] == {"rule:IssuesFound": 1}
    assert found["events"] == {"handled": 2, "ignored": 0, "test_notifications": 0, "refused_accounts": 0,
                                "restarts": 0}
    assert found["costs"]["messages"] == 0 and found["evaluator"]["function"] == "AuditActions-evaluator"
    assert (found["evaluator"]["runs"], found["evaluator"]["timed_runs"]) == (0, 0)


def test_a_stack_deployed_before_the_service_name_output_reads_what_it_emits(deployed, capsys):
    # Given a stack without the output ServiceName (deployed before it existed): its function emits rule-actions
    code, out, _ = report(capsys, "--stack", "OldActions", "--json")
    found = json.loads(out)
    # Then the report reads that service, and says why
    assert code == 0 and found["service"] == SERVICE == "rule-actions"
    assert found["scope"].startswith(
        "stack OldActions (function OldActions-handler, service rule-actions: the stack has no ServiceName output "
        "(deployed before it existed, it emits that)), us-east-1")
    assert found["events"]["handled"] == 7 and found["stops"]["carried_out"] == 0


def test_days_chooses_the_window(deployed, capsys):
    _, stack = deployed
    code, out, _ = report(capsys, "--stack", stack, "--days", "45", "--json")
    found = json.loads(out)
    # The stop 40 days ago counts now; its saving was never known
    assert code == 0 and found["days"] == 45
    assert found["stops"]["carried_out"] == 4 and found["stops"]["saving_unknown"] == 2


def test_nothing_stopped_is_zero_saved_and_no_known_saving_is_unknown(deployed):
    account, stack = deployed
    cloudwatch = boto3.client("cloudwatch", region_name=account.region)
    # A window before anything happened: no stop, so nothing saved (a known zero), no cost stated, no run
    quiet = report_command.gather(cloudwatch, "x", 5, datetime.now(UTC) - timedelta(days=50), account.evaluator_name, 600,
                           service=stack)
    assert (quiet.stops.carried_out, quiet.stops.saved_usd, quiet.costs.usd) == (0, None, None)
    words = dict((line[:14].strip(), line[14:]) for line in report_command.lines(quiet)[1:] if line[:14].strip())
    assert words["saved"] == "$0.00: no stop carried out"
    assert words["job costs"] == "none stated (no message said a job's known cost)"
    assert report_command.lines(quiet)[-1] == " " * 14 + "no run in the window"
    assert quiet.evaluator.runs == 0 and quiet.evaluator.longest_run_s is None
    # The window of the stop 40 days ago: a stop, no saving known: unknown, never $0
    old = report_command.gather(cloudwatch, "x", 5, datetime.now(UTC) - timedelta(days=38), None, None, service=stack)
    assert (old.stops.carried_out, old.stops.saving_known, old.stops.saved_usd) == (1, 0, None)
    words = dict((line[:14].strip(), line[14:]) for line in report_command.lines(old)[1:] if line[:14].strip())
    assert words["saved"] == "unknown: no stop's saving is known (1 stop(s): their prices unknown)"
    assert words["evaluator"] == "none: the stack runs no monitor rules (no EvaluatorFunctionName output)"


def stubbed_cloudwatch(*answers: dict[str, Any]) -> tuple[Any, Stubber]:
    client = boto3.client("cloudwatch", region_name="us-east-1")
    stub = Stubber(client)
    for answer in answers:
        stub.add_response("get_metric_data", answer)
    return client, stub


def test_a_figure_cloudwatch_answered_in_part_is_unknown_never_zero():
    # Given CloudWatch answers the first query (stoptraining done) with an internal error
    client, stub = stubbed_cloudwatch({"MetricDataResults": [
        {"Id": "q0", "StatusCode": "InternalError", "Timestamps": [], "Values": []}]})
    with stub:
        found = report_command.gather(client, "x", 30, datetime.now(UTC), None, None, service="RuleActions")
    # Then the stops and what they saved are unknown, and the report names the metric
    assert found.stops.carried_out is None and found.stops.saving_unknown is None
    assert found.unknown == ["Actions"]
    text = report_command.lines(found)
    assert "jobs stopped  unknown stop(s) carried out" in text
    assert "saved         unknown (CloudWatch answered in part)" in text
    assert text[-1] == "unknown       CloudWatch answered in part for Actions: their figures are unknown"


def test_when_cloudwatch_answers_nothing_in_full_every_figure_is_unknown():
    asked = report_command.queries("RuleActions-evaluator", "RuleActions").all()
    client, stub = stubbed_cloudwatch({"MetricDataResults": [
        {"Id": f"q{index}", "StatusCode": "Forbidden", "Timestamps": [], "Values": []} for index in range(len(asked))]})
    with stub:
        found = report_command.gather(client, "x", 30, datetime.now(UTC), "RuleActions-evaluator", 600,
                               service="RuleActions")
    evaluator = found.evaluator
    assert (evaluator.runs, evaluator.timed_runs, evaluator.longest_run_s, evaluator.findings) == (None,) * 4
    assert found.events == dict.fromkeys(found.events) and found.costs.messages is None
    text = "\n".join(report_command.lines(found))
    assert "longest run unknown (timeout 600 s); at most unknown job(s) judged in a run; unknown rule finding(s)" in text
    assert " 0 " not in text and "$0" not in text  # nothing unknown is said as 0
    assert found.unknown == sorted({query.name for query in asked})


def test_pages_of_an_answer_are_read_to_the_end():
    now = datetime.now(UTC)
    client, stub = stubbed_cloudwatch(
        {"NextToken": "more", "MetricDataResults": [
            {"Id": "q0", "StatusCode": "PartialData", "Timestamps": [now - timedelta(days=2)], "Values": [2.0]}]},
        {"MetricDataResults": [{"Id": "q0", "StatusCode": "Complete", "Timestamps": [now], "Values": [3.0]}]})
    with stub:
        found = report_command.gather(client, "x", 30, now, None, None, service="RuleActions")
    stub.assert_no_pending_responses()
    assert found.actions == {"stoptraining": {"done": 5}} and found.stops.carried_out == 5


# ------------------------------------------------------------------------------------------ bad input


def one_line(capsys, *args: str) -> str:
    code, out, err = report(capsys, *args)
    assert code == 2 and out == "" and "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.rstrip("\n")


@pytest.mark.parametrize("days", ["0", "456", "abc", "-3", "7.5", ""])
def test_days_outside_the_range_is_one_line_naming_the_value(capsys, days):
    assert one_line(capsys, "--stack", "RuleActions", "--days", days) == (
        f"rule-actions: --days {json.dumps(days)}: not a whole number of days from 1 to 455 (CloudWatch keeps hourly "
        "datapoints 455 days)")


def test_an_unknown_stack_is_one_line(deployed, capsys):
    assert one_line(capsys, "--stack", "Missing") == (
        "rule-actions: stack 'Missing' not found in us-east-1 (CloudFormation DescribeStacks returned "
        "ValidationError): check --stack and --region")


def test_a_stack_of_something_else_is_one_line(deployed, capsys):
    account, _ = deployed
    account.client("cloudformation").create_stack(StackName="Other", TemplateBody=json.dumps({
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}}))
    assert one_line(capsys, "--stack", "Other") == (
        "rule-actions: stack 'Other' has no FunctionName output: is it a rule-actions stack, fully deployed?")


def test_a_stack_of_two_rule_actions_constructs_is_one_line(deployed, capsys):
    # Given a stack holding two RuleActions (each with its own outputs, service and figures)
    account, _ = deployed
    account.client("cloudformation").create_stack(StackName="Both", TemplateBody=json.dumps({
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {f"{prefix}{key}": {"Value": f"{prefix}-{key}"} for prefix in ("Alerts", "Audit")
                    for key in ("FunctionName", "ServiceName")}}))
    # Then the report names them rather than mixing one's function with another's figures
    assert one_line(capsys, "--stack", "Both") == (
        "rule-actions: stack 'Both' has 2 rule-actions functions (outputs AlertsFunctionName, AuditFunctionName): "
        "this command needs a stack with one")


def test_replay_options_with_a_deployed_stack_are_one_line(capsys):
    assert one_line(capsys, "--stack", "RuleActions", "--config", "x.json") == (
        "rule-actions: --config: for --replay only (a deployed stack has its own configuration)")


def test_no_credentials_is_one_line(capsys, monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        (tmp_path / name).write_text("")
        monkeypatch.setenv(name, str(tmp_path / name))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    assert one_line(capsys, "--stack", "RuleActions") == (
        "rule-actions: no AWS credentials: run `aws configure` or set AWS_PROFILE / AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY")


def test_a_replay_with_an_unreadable_event_file_is_one_line(capsys, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    line = one_line(capsys, "--replay", str(broken))
    assert line.startswith(f"rule-actions: {broken}: ")
