"""Every outcome switch against every trigger family (issue 24, "every hung job is reachable").

The switches, `tuning_trials_alert` x `pipeline_step_jobs_alert` x the parents' outcome fields (`tuning_job_outcomes`
and `pipeline_outcomes`) on or off, govern job outcomes only, and only while the parent reports. Each is tried
against every trigger family: a Debugger IssuesFound whose action_json asks for StopTraining (as the SageMaker SDK
writes it), a Profiler IssuesFound whose `rules` entry stops, a monitor rule's IssuesFound whose tag stops (the state
change a scheduled evaluation hands the pipeline, as an event carries it), and the job outcome Failed; each on a tuning job's trial, on a
pipeline step's training job and on a plain training job (the control). Asserted twice: (a) the stack's EventBridge
pattern (plugins.event_pattern, what the stack synthesizes; the project's matcher) matches the event or not, and
(b) the real handler on moto stops and notifies, or skips each action with the reason.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, NamedTuple

import boto3
import pytest
from builders import ACCOUNT, REGION, event, rule_config, rule_status

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.contract import SOURCE
from rule_actions.monitors.block import MonitorSettings
from rule_actions.monitors.evaluation import JobReport, Verdict, _state_change
from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.tags import rules_of
from rule_actions_cdk import plugins
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.matcher import matches
from rule_actions_sdk import StopTraining, monitor_tags, prepare_actions

TEAM = "team@example.com"
TUNING = "xgb-churn-hpo-1124"
EXECUTION = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:pipeline/churn-training-pipeline/execution/k3j9x7a2b1c0"
HELD = {
    "trial": f"a trial of tuning job {TUNING}: its tuning job reports for it (tuning_job_outcomes; tuning_trials_alert "
             "is false)",
    "step job": "a step's job of pipeline execution k3j9x7a2b1c0: the execution reports for it (pipeline_outcomes; "
                "pipeline_step_jobs_alert is false)",
}
NOW = 1795500000  # the evaluation's time (epoch seconds): 2026-11-24T06:00:00Z


class Job(NamedTuple):
    kind: str  # trial | step job | plain job
    name: str
    tuning_job_arn: str | None = None
    tags: Mapping[str, str] = MappingProxyType({})


JOBS = (
    Job("trial", f"{TUNING}-001-0a1b2c3d",
        tuning_job_arn=f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:hyper-parameter-tuning-job/{TUNING}"),
    Job("step job", "pipelines-k3j9x7a2b1c0-train-xgboost-Ab12Cd34Ef", tags={"sagemaker:pipeline-execution-arn": EXECUTION}),
    Job("plain job", "churn-xgb-2026-11-24-09-00-00-001"),
)
TRIGGERS = ("Debug", "Profiler", "Monitor", "job:Failed")
MONITOR_RULE = "StalledTraining"
MONITOR_TAGS = {tag["Key"]: tag["Value"] for tag in monitor_tags(MONITOR_RULE, StopTraining())}  # stops the job


def configuration(trials_alert: bool, steps_alert: bool, parents: bool) -> dict[str, Any]:
    """A team, `rules` that notify (and stop on LowGPUUtilization), job_outcomes.Failed, the monitor rules, the
    switches; the parents' Failed outcomes when `parents`."""
    return {
        "notify": {"emails": [TEAM]},
        "rules": {"LowGPUUtilization": ["stoptraining", "notify"], "*": ["notify"]},
        "job_outcomes": {"Failed": ["notify"]},
        "monitor": {},
        "tuning_trials_alert": trials_alert,
        "pipeline_step_jobs_alert": steps_alert,
        **({"tuning_job_outcomes": {"Failed": ["notify"]}, "pipeline_outcomes": {"Failed": ["notify"]}} if parents
           else {}),
    }


def seeded_event(job: Job, trigger: str, config: Config) -> dict[str, Any]:
    """The job as SageMaker holds it (in moto), and the event of `trigger` about it."""
    failed = trigger == "job:Failed"
    tags = {**job.tags, **MONITOR_TAGS}
    moto_sagemaker.put_training_job(job.name, "Failed" if failed else "InProgress", tuning_job_arn=job.tuning_job_arn,
                                    tags=tags)
    if trigger == "Monitor":  # what a scheduled evaluation hands the handler when the tag's rule holds
        described = boto3.client("sagemaker", region_name=REGION).describe_training_job(TrainingJobName=job.name)
        record = {**described, "Tags": [{"Key": key, "Value": value} for key, value in tags.items()]}  # Search's
        found = RunningJob.of(record)
        applied, problems = rules_of(found, MonitorSettings(), registry.monitors())  # its tag's rule
        assert [a.rule.name for a in applied] == [MONITOR_RULE] and not problems
        report = JobReport(job.name, (Verdict(MONITOR_RULE, "IssuesFound", "no log line for 34 minutes"),), ())
        found = _state_change(registry.monitored_family(), config, record, applied, report, NOW)
        return {"version": "0", "id": found.event_id, "detail-type": found.family.detail_type, "source": SOURCE,
                "account": found.account, "time": found.time, "region": found.region, "resources": [found.job_arn],
                "detail": dict(found.detail)}  # the typed event it hands the pipeline, as an event carries it
    if trigger == "Debug":
        configs = [prepare_actions(rule_config("LossNotDecreasing"), job.name, StopTraining())]
        raw = event(job=job.name, debug=[rule_status("LossNotDecreasing", job=job.name)], debug_configs=configs)
    elif trigger == "Profiler":
        raw = event(job=job.name, profiler=[rule_status("LowGPUUtilization", job=job.name)],
                    profiler_configs=[rule_config("LowGPUUtilization")])
    else:
        raw = event(job=job.name, status="Failed", secondary="Failed")
        raw["detail"]["FailureReason"] = "AlgorithmError: ValueError: bad label"
    detail = raw["detail"]
    if job.tuning_job_arn:
        detail["TuningJobArn"] = job.tuning_job_arn
    if job.tags:
        detail["Tags"] = dict(job.tags)
    return raw


def held_back(job: Job, trials_alert: bool, steps_alert: bool, parents: bool) -> bool:
    """The spec: a trial's outcome is held back while its tuning job reports and tuning_trials_alert is false; a step
    job's while the execution reports and pipeline_step_jobs_alert is false; nothing else ever is."""
    if job.kind == "trial":
        return parents and not trials_alert
    if job.kind == "step job":
        return parents and not steps_alert
    return False


def expected(job: Job, trigger: str, trials_alert: bool, steps_alert: bool, parents: bool
             ) -> tuple[bool, list[tuple[str, str, str]]]:
    """(the pattern matches the event, [(kind, outcome, reason or "") of each action]) as the spec says."""
    if trigger != "job:Failed":  # a rule status: acted on whatever the switches say (the stop first)
        stop = ("stoptraining", "done", ""), ("notify", "done", "")
        return trigger != "Monitor", list(stop)  # a monitor status never comes through EventBridge: no clause
    if held_back(job, trials_alert, steps_alert, parents):
        return False, [("notify", "skipped", HELD[job.kind])]
    return True, [("notify", "done", "")]


CASES = [pytest.param(job, trigger, trials_alert, steps_alert, parents,
                      id=f"{trigger}-{job.kind}-trials_alert={trials_alert}-steps_alert={steps_alert}-"
                         f"parents={'on' if parents else 'off'}".replace(" ", "_"))
         for job, trigger, trials_alert, steps_alert, parents in itertools.product(
             JOBS, TRIGGERS, (False, True), (False, True), (True, False))]


@pytest.mark.parametrize(("job", "trigger", "trials_alert", "steps_alert", "parents"), CASES)
def test_every_switch_against_every_trigger_family(aws, job, trigger, trials_alert, steps_alert, parents):
    # Given the switches, the stack's pattern, and the job SageMaker holds (running, or failed for its outcome)
    data = configuration(trials_alert, steps_alert, parents)
    config = Config.from_dict(data)
    aws.configure(**data)
    raw = seeded_event(job, trigger, config)
    matched, actions = expected(job, trigger, trials_alert, steps_alert, parents)

    # When the event meets the rule, and reaches the handler (a monitor status, and an event the rule would not
    # match, delivered anyway)
    result = aws.invoke(raw)

    # Then the rule matches it, or not
    assert matches(plugins.event_pattern(config), raw) is matched
    # And every action of its trigger is on the row: acted on, or skipped with the reason, never dropped
    label = MONITOR_RULE if trigger == "Monitor" else trigger if trigger == "job:Failed" else raw["detail"][
        f"{trigger}RuleEvaluationStatuses"][0]["RuleConfigurationName"]
    assert "ignored" not in result
    assert [(a["trigger"], a["kind"], a["outcome"], a["reason"] if a["outcome"] == "skipped" else "")
            for a in result["actions"]] == [(label, *action) for action in actions]
    # And what was done is what SageMaker and the team see: the job stopped, one message; nothing for a skip
    stopped = any(kind == "stoptraining" for kind, _, _ in actions)
    assert moto_sagemaker.training_job_status(job.name) == ("Stopping" if stopped else
                                                           "Failed" if trigger == "job:Failed" else "InProgress")
    assert len(aws.inbox(TEAM)) == sum(1 for kind, outcome, _ in actions if kind == "notify" and outcome == "done")
    if stopped:
        [stop] = [a for a in result["actions"] if a["kind"] == "stoptraining"]
        assert stop["jobs"] == [job.name]


def test_the_cases_cover_every_switch_trigger_family_and_job():
    # 2 x 2 x 2 switch settings, 4 trigger families, 3 jobs; each case's expectation can go either way
    assert len(CASES) == 2 * 2 * 2 * len(TRIGGERS) * len(JOBS) == 96
    outcomes = {expected(*case.values)[1][0][1] for case in CASES if case.values[1] == "job:Failed"}
    assert outcomes == {"done", "skipped"}


def test_a_hung_trial_and_a_hung_step_job_are_stopped_by_the_scheduled_evaluation(aws):
    # Given the tuning job and the pipeline execution reporting for their jobs, both switches false (their outcomes
    # held back), and a trial and a step job whose tag attaches StalledTraining with a stop, silent for 34 minutes
    from rule_actions.contract import EVALUATION_KEY
    from rule_actions_cli.emulator import monitoring as moto_monitoring

    moto_monitoring.install()
    aws.configure(**configuration(trials_alert=False, steps_alert=False, parents=True))
    start = datetime.fromtimestamp(NOW - 90 * 60, UTC)
    for job in JOBS[:2]:
        moto_sagemaker.put_training_job(job.name, "InProgress", tuning_job_arn=job.tuning_job_arn,
                                        tags={**job.tags, **MONITOR_TAGS},
                                        resource_config={"InstanceType": "ml.p3.8xlarge", "InstanceCount": 1},
                                        transitions=[{"Status": "Training", "StartTime": start}],
                                        training_start_time=start)
        moto_monitoring.put_log_lines("/aws/sagemaker/TrainingJobs", f"{job.name}/algo-1-1795490000",
                                      [(NOW - minutes * 60, f"step {minutes}") for minutes in range(60, 33, -1)])
    aws.effects().evaluation()  # the evaluator's ports

    # When the evaluator runs
    result = aws.invoke({EVALUATION_KEY: {"time": "2026-11-24T06:00:00Z"}})

    # Then each is stopped and the team told, as any training job would be
    assert sorted((row["training_job"], a["trigger"], a["kind"], a["outcome"]) for row in result["jobs"]
                  for a in row["actions"]) == sorted((job.name, MONITOR_RULE, kind, "done") for job in JOBS[:2]
                                                     for kind in ("stoptraining", "notify"))
    assert [moto_sagemaker.training_job_status(job.name) for job in JOBS[:2]] == ["Stopping", "Stopping"]
