"""The job families besides training (jobs/tuning.py, processing.py, pipeline.py, transform.py), without AWS: what
each reads of its events, its outcomes and its pattern, the jobs it holds back, what its messages need read and say,
its payloads and its grants. The readers' answers are given, as planning.py gives them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from builders import EVENTS, event
from planning import find, parse_event
from wording import occasion

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.destinations import base as destinations
from rule_actions.destinations.json import json_payload
from rule_actions.jobs.common import essence
from rule_actions.plan import Plan
from rule_actions.records import (
    Described,
    FailedSteps,
    FailedTrials,
    IgnoredEvent,
    StepFailure,
    StopRecord,
    TeamAudience,
    Unread,
)
from rule_actions_cdk import plugins
from rule_actions_cli.matcher import matches, validate

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
JSON_V1 = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "webhook-json-v1.schema.json").read_text()))
CHAT = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "chat-custom-notification.schema.json").read_text()))
FAMILIES = {family.name: family for family in registry.JOBS}
TEAM = {"notify": {"emails": ["ml-team@example.com"]}}


def lifecycle(path: str) -> list[dict[str, Any]]:
    return json.loads((EVENTS / path).read_text())


def last(path: str, family: str | None = None) -> dict[str, Any]:
    """The last event of a lifecycle (of one family, when given)."""
    events = lifecycle(path)
    return [e for e in events if family is None or registry.job_family(e).name == family][-1]


TUNING_FAILED = last("tuning/lifecycle-tuning-every-trial-failed.json")
TUNING_DONE = last("tuning/lifecycle-tuning-completed-best-trial.json")
PROCESSING_FAILED = last("processing/lifecycle-processing-failed-exit-message.json")
PROCESSING_ERROR = last("processing/lifecycle-processing-internal-error.json")
PIPELINE_FAILED = last("pipelines/lifecycle-pipeline-parallel-steps-failed.json")
TRANSFORM_FAILED = last("transform/lifecycle-transform-failed.json")
STEP_FAILED = next(e for e in lifecycle("pipelines/lifecycle-pipeline-parallel-steps-failed.json")
               if e["detail-type"].endswith("Step Status Change") and e["detail"]["currentStepStatus"] == "Failed")
TRIAL_FAILED = last("tuning/lifecycle-tuning-every-trial-failed.json", "training")
RULE_EVALUATIONS = lifecycle("processing/debugger-rule-evaluations.json")
EVERY_OUTCOME = {family.outcome_actions.key: {o: ["notify"] for o in family.outcomes} for family in registry.JOBS}


def with_detail(raw: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of an event whose detail has these members changed (None: removed)."""
    raw = copy.deepcopy(raw)
    for key, value in changes.items():
        if value is None:
            raw["detail"].pop(key, None)
        else:
            raw["detail"][key] = value
    return raw


def steps_answer(*failures: StepFailure) -> Callable[[Any], Any]:
    return lambda need: tuple(failures) if isinstance(need, FailedSteps) else None


def plan(raw: Any, config: Mapping[str, Any], answer: Callable[[Any], Any] = lambda need: None):
    """(every planned action, decided; the event as its family learned it; every need asked) with `answer` giving
    what each reader would read (None: the defaults below)."""
    parsed, cfg = parse_event(raw), Config.from_dict(config)
    built = Plan.build(parsed.event, find(parsed, cfg), cfg)
    asked = []
    while needs := built.needs():
        asked += needs
        built = built.learn({need: _answer(need, answer) for need in needs})
    return built.decide(), parsed.event.family.learn(parsed.event, built.answers), asked


def _answer(need: Any, answer: Callable[[Any], Any]) -> Any:
    given = answer(need)
    if given is not None:
        return given
    if isinstance(need, TeamAudience):
        return True
    if isinstance(need, StopRecord):
        return None
    if isinstance(need, Described):
        return {}
    if isinstance(need, (FailedTrials, FailedSteps)):
        return ()
    raise AssertionError(need)


def words(raw: Any, config: Mapping[str, Any], answer: Callable[[Any], Any] = lambda need: None):
    """The message, the chat notification and the json payload of the event's outcome."""
    _, learned, _ = plan(raw, config, answer)
    outcome = parse_event(raw).outcome
    seen = occasion(learned, outcome)
    body = json_payload(seen.message, learned, outcome, seen.facts, "us-east-1", (), "0" * 32)
    return seen.message, seen.chat(), body


# ------------------------------------------------------------------------------------------------ reading events


@pytest.mark.parametrize(("raw", "family", "job", "status", "reason"), [
    (TUNING_FAILED, "tuning", "xgb-churn-hpo-1124", "Failed", "No training job succeeded after 3 attempts."),
    (PROCESSING_FAILED, "processing", "churn-preprocess-2026-11-24-11-15-02-118", "Failed", "AlgorithmError:"),
    (PIPELINE_FAILED, "pipeline", "churn-training-pipeline/k3j9x7a2b1c0", "Failed", ""),
    (STEP_FAILED, "pipeline", "churn-training-pipeline/k3j9x7a2b1c0", "Failed", "No training job succeeded"),
    (TRANSFORM_FAILED, "transform", "churn-batch-scoring-2026-11-24-13-05-11-402", "Failed", "ClientError:"),
])
def test_each_family_reads_its_job_status_reason_and_times(raw, family, job, status, reason):
    # Given an event of the family, as AWS documents it; When it is read
    parsed = parse_event(raw)
    # Then it is its family's, names its job (an execution: <pipeline>/<execution id>), its status, reason, times
    assert parsed.event.family.name == family and parsed.job_name == job and parsed.job_status == status
    assert parsed.failure_reason.startswith(reason) and parsed.problems == ()
    assert parsed.created and parsed.ended and parsed.ended >= parsed.created


def test_a_step_event_is_its_execution_s_but_never_an_outcome():
    parsed = parse_event(STEP_FAILED)
    assert parsed.job_arn == STEP_FAILED["detail"]["pipelineExecutionArn"] and parsed.secondary_status == "train-xgboost"
    assert parsed.outcome is None
    assert find(parsed, Config.from_dict({"pipeline_outcomes": {"Failed": ["notify"]}})) == []


@pytest.mark.parametrize(("raw", "member", "value"), [
    (TUNING_FAILED, "HyperParameterTuningJobName", ""),
    (PROCESSING_FAILED, "ProcessingJobStatus", 5),
    (TRANSFORM_FAILED, "TransformJobArn", None),
    (PIPELINE_FAILED, "pipelineExecutionArn", "arn:aws:sagemaker:us-east-1:123456789012:pipeline/only-a-pipeline"),
    (STEP_FAILED, "currentStepStatus", None),
])
def test_an_event_that_names_no_job_or_status_is_ignored_naming_the_field(raw, member, value):
    with pytest.raises(IgnoredEvent, match=f"detail.{member}"):
        parse_event(with_detail(raw, **{member: value}))


@pytest.mark.parametrize(("raw", "member", "value"), [
    (TUNING_FAILED, "FailureReason", ["not", "text"]),
    (PROCESSING_FAILED, "TrainingJobArn", 42),
    (TRANSFORM_FAILED, "Tags", "team=a"),
    (PIPELINE_FAILED, "failureReason", {"x": 1}),
])
def test_an_unreadable_member_is_a_named_problem_not_a_crash(raw, member, value):
    parsed = parse_event(with_detail(raw, **{member: value}))
    assert any(problem.startswith(f"detail.{member}:") for problem in parsed.problems)


# ------------------------------------------------------------------------------------------------ outcomes and pattern


def statuses_of(family: Any) -> tuple[str, ...]:
    return (*family.statuses, "Unknown")


@pytest.mark.parametrize(("family", "raw"), [("tuning", TUNING_FAILED), ("processing", PROCESSING_FAILED),
                                             ("pipeline", PIPELINE_FAILED), ("transform", TRANSFORM_FAILED)])
@pytest.mark.parametrize("configured", ["each", "all"])
def test_the_pattern_invokes_exactly_for_the_outcomes_that_act(family, raw, configured):
    # Given one outcome of the family with actions (each in turn), or all of them
    fam = FAMILIES[family]
    choices = [[o] for o in fam.outcomes] if configured == "each" else [list(fam.outcomes)]
    for outcomes in choices:
        config = Config.from_dict({fam.outcome_actions.key: {o: ["notify"] for o in outcomes}})
        pattern = plugins.event_pattern(config)
        validate(pattern)
        # When an event in every status the API has (and one it has not) is matched
        for status in statuses_of(fam):
            changed = with_detail(raw, **{fam.members.status: status})
            acts = bool(find(parse_event(changed), config))
            # Then the rule invokes the function exactly when the handler finds an outcome to act on
            assert matches(pattern, changed) is acts, (outcomes, status)
            assert acts == (status in outcomes), (outcomes, status)
        # And no other family's event, nor a training event, is matched
        assert not matches(pattern, event(status="Failed", secondary="Failed"))


def test_a_family_that_is_off_is_neither_matched_nor_granted():
    # Given the training defaults, with every other family off
    config = Config.from_dict({"job_outcomes": {"Failed": ["notify"]}})
    pattern = plugins.event_pattern(config)
    # Then the pattern is the training family's alone, and nothing of another family is granted
    assert pattern["detail-type"] == ["SageMaker Training Job State Change"] and "$or" not in pattern
    for raw in (TUNING_FAILED, PROCESSING_FAILED, PIPELINE_FAILED, TRANSFORM_FAILED):
        assert not matches(pattern, raw)
    granted = {a for g in plugins.job_grants(config) for a in g.actions}
    # (a rule's action_json may stop a training job: its warm pool's release follows, release_warm_pools on)
    assert granted <= {"sagemaker:DescribeTrainingJob", "sagemaker:StopTrainingJob", "sagemaker:ListTrainingJobs",
                       "sagemaker:UpdateTrainingJob"}


def test_several_families_are_one_rule_of_one_source_and_a_branch_each():
    config = Config.from_dict(EVERY_OUTCOME)
    pattern = plugins.event_pattern(config)
    validate(pattern)
    assert pattern["source"] == ["aws.sagemaker"]
    assert [b["detail-type"] for b in pattern["$or"]] == [[f.detail_type] for f in registry.JOBS
                                                          if f.source == "aws.sagemaker"]  # (Batch: off)
    for raw in (TUNING_FAILED, PROCESSING_FAILED, PIPELINE_FAILED, TRANSFORM_FAILED):
        assert matches(pattern, raw)
    assert not matches(pattern, STEP_FAILED)  # step events are never a trigger
    assert len(json.dumps(pattern, separators=(",", ":"))) <= 2048  # EventBridge's default quota


@pytest.mark.parametrize(("family", "raw", "prefix", "other"), [
    ("tuning", TUNING_FAILED, "xgb-", "bert-"),
    ("processing", PROCESSING_FAILED, "churn-", "feature-"),
    ("transform", TRANSFORM_FAILED, "churn-batch-", "nightly-"),
    ("pipeline", PIPELINE_FAILED, "churn-training", "churn-hpo"),
])
def test_a_family_s_prefixes_narrow_its_pattern_and_its_scope(family, raw, prefix, other):
    fam = FAMILIES[family]
    for prefixes, inside in (([prefix], True), ([other], False), ([other, prefix], True)):
        config = Config.from_dict({fam.outcome_actions.key: {"Failed": ["notify"]}, fam.scope.key: prefixes})
        assert matches(plugins.event_pattern(config), raw) is inside, prefixes
        assert fam.in_scope(config, parse_event(raw).job_name) is inside


def test_a_pipeline_prefix_matches_the_pipeline_in_any_case():
    config = Config.from_dict({"pipeline_outcomes": {"Failed": ["notify"]}, "pipeline_prefixes": ["Churn-Training"]})
    assert matches(plugins.event_pattern(config), PIPELINE_FAILED)  # the lower-cased prefix too
    assert FAMILIES["pipeline"].in_scope(config, "churn-training-pipeline/k3j9x7a2b1c0")


def test_each_family_s_outcome_keys_are_its_own():
    for family in registry.JOBS:
        key = family.outcome_actions.key
        for outcome in {o for f in registry.JOBS for o in f.outcomes}:
            data = {key: {outcome: ["notify"]}}
            if outcome in family.outcomes:
                Config.from_dict(data)
            else:
                with pytest.raises(ValueError, match=f"unknown {family.outcome_actions.what}"):
                    Config.from_dict(data)
        with pytest.raises(ValueError, match="stoptraining"):
            Config.from_dict({key: {next(iter(family.outcomes)): ["stoptraining"]}})


# ------------------------------------------------------------------------------------------------ held back


HELD_TRIAL = "a trial of tuning job xgb-churn-hpo-1124: its tuning job reports for it (tuning_job_outcomes; " \
             "tuning_trials_alert is false)"


def test_a_trial_s_outcome_is_held_back_while_its_tuning_job_reports_unless_configured():
    # Given job_outcomes that notify Failed, the tuning job reporting (tuning_job_outcomes), and a failed trial of
    # that tuning job (its event names the tuning job)
    config = {**TEAM, "job_outcomes": {"Failed": ["notify"]}, "tuning_job_outcomes": {"Failed": ["notify"]}}
    pattern = plugins.event_pattern(Config.from_dict(config))
    family = FAMILIES["training"]
    # Then the rule never matches it, and the function, asked anyway, skips its notify naming its tuning job
    assert not matches(pattern, TRIAL_FAILED)
    assert family.held_back(parse_event(TRIAL_FAILED).event, Config.from_dict(config), {}) == HELD_TRIAL
    decided, _, _ = plan(TRIAL_FAILED, config)
    assert [(p.trigger.label, p.kind, p.outcome, p.reason) for p in decided] == [
        ("job:Failed", "notify", "skipped", HELD_TRIAL)]
    # And with tuning_trials_alert it alerts as any training job
    alert = {**config, "tuning_trials_alert": True}
    assert matches(plugins.event_pattern(Config.from_dict(alert)), TRIAL_FAILED)
    decided, _, _ = plan(TRIAL_FAILED, alert)
    assert [(p.trigger.label, p.kind, p.outcome) for p in decided] == [("job:Failed", "notify", None)]


def test_a_trial_alerts_on_its_own_while_its_tuning_job_reports_nothing():
    # Given job_outcomes that notify Failed, and no tuning_job_outcomes (the tuning family off), as in 0.1.0
    config = {**TEAM, "job_outcomes": {"Failed": ["notify"]}}
    # Then a failed trial is matched and told to the team through job_outcomes, as any training job
    assert matches(plugins.event_pattern(Config.from_dict(config)), TRIAL_FAILED)
    assert FAMILIES["training"].held_back(parse_event(TRIAL_FAILED).event, Config.from_dict(config), {}) is None
    decided, _, asked = plan(TRIAL_FAILED, config)
    assert [(p.trigger.label, p.kind, p.outcome) for p in decided] == [("job:Failed", "notify", None)]
    assert not [n for n in asked if isinstance(n, Described)]  # nothing to tell apart: nothing is described


def test_a_trial_whose_event_does_not_name_its_tuning_job_is_described_once_before_it_acts():
    # Given a failed trial's event without TuningJobArn (should SageMaker leave it out), under job_outcomes, the
    # tuning job reporting
    raw = with_detail(TRIAL_FAILED, TuningJobArn=None)
    config = {**TEAM, "job_outcomes": {"Failed": ["notify"]}, "tuning_job_outcomes": {"Failed": ["notify"]}}
    tuning_arn = TRIAL_FAILED["detail"]["TuningJobArn"]
    # When the plan is built: DescribeTrainingJob says it is a trial
    decided, _, asked = plan(raw, config, lambda n: {"TuningJobArn": tuning_arn} if isinstance(n, Described) else None)
    # Then it is described once, and its notify is skipped naming its tuning job
    assert [n for n in asked if isinstance(n, Described)] == [Described(FAMILIES["training"].api, raw["detail"]["TrainingJobName"])]
    assert [(p.kind, p.outcome, p.reason) for p in decided] == [("notify", "skipped", HELD_TRIAL)]
    # And a job of its own of the same form (DescribeTrainingJob names no tuning job) acts
    decided, _, _ = plan(raw, config, lambda n: {} if isinstance(n, Described) else None)
    assert [(p.trigger.label, p.kind, p.outcome) for p in decided] == [("job:Failed", "notify", None)]
    # And an unreadable description lets it act (better twice than never)
    decided, _, _ = plan(raw, config, lambda n: Unread("AccessDenied") if isinstance(n, Described) else None)
    assert [(p.kind, p.outcome) for p in decided] == [("notify", None)]


def test_a_job_named_unlike_a_trial_is_never_described_for_it():
    raw = json.loads((EVENTS / "lifecycle-failed-algorithm-error.json").read_text())[-1]
    _, _, asked = plan(raw, {**TEAM, "job_outcomes": {"Failed": ["notify"]}})
    assert not [n for n in asked if isinstance(n, Described)]


@pytest.mark.parametrize("raw", RULE_EVALUATIONS, ids=range(len(RULE_EVALUATIONS)))
def test_a_debugger_rule_evaluation_is_never_reported_as_a_processing_job(raw):
    # Given every processing outcome configured
    config = Config.from_dict({**TEAM, "processing_job_outcomes": {o: ["notify"] for o in ("Failed", "Stopped", "Completed")}})
    parsed = parse_event(raw)
    # Then the rule matches none of a training job's rule evaluations that name it; every one is held back
    assert matches(plugins.event_pattern(config), raw) is ("TrainingJobArn" not in raw["detail"])
    assert parsed.event.family.held_back(parsed.event, config, {}).startswith("a Debugger rule evaluation of ")


def test_a_pipeline_step_s_job_alerts_on_its_own_only_as_configured():
    [training_step_job] = [e for e in lifecycle("pipelines/lifecycle-pipeline-parallel-steps-failed.json")
                           if e["detail"].get("TrainingJobStatus") == "Failed"][:1]
    config = {**TEAM, "job_outcomes": {"Failed": ["notify"]}, "pipeline_outcomes": {"Failed": ["notify"]}}
    # By default it alerts as before (pipeline_step_jobs_alert is true)
    assert matches(plugins.event_pattern(Config.from_dict(config)), training_step_job)
    # With pipeline_step_jobs_alert false, the execution reports for it: never matched, skipped naming it
    quiet = {**config, "pipeline_step_jobs_alert": False}
    assert not matches(plugins.event_pattern(Config.from_dict(quiet)), training_step_job)
    decided, _, _ = plan(training_step_job, quiet)
    assert [(p.kind, p.outcome) for p in decided] == [("notify", "skipped")]
    assert decided[0].reason == ("a step's job of pipeline execution k3j9x7a2b1c0: the execution reports for it "
                                 "(pipeline_outcomes; pipeline_step_jobs_alert is false)")
    # And with no pipeline_outcomes (nothing reports for it) it alerts on its own whatever the switch says
    alone = {key: value for key, value in quiet.items() if key != "pipeline_outcomes"}
    assert matches(plugins.event_pattern(Config.from_dict(alone)), training_step_job)
    decided, _, _ = plan(training_step_job, alone)
    assert [(p.kind, p.outcome) for p in decided] == [("notify", None)]


# ------------------------------------------------------------------------------------------------ reads and words


def test_a_failed_tuning_job_reads_a_bounded_number_of_its_trials_and_words_them():
    # Given a failed tuning job of 12 trials; the event carries no best job
    config = {**TEAM, "tuning_job_outcomes": {"Failed": ["notify"]}}
    raw = with_detail(TUNING_FAILED, TrainingJobStatusCounters={"Completed": 0, "InProgress": 0, "RetryableError": 0,
                                                                 "NonRetryableError": 12, "Stopped": 0})
    trials = [{"TrainingJobName": f"xgb-churn-hpo-1124-{i:03d}-0a1b2c3d",
               "FailureReason": f"AlgorithmError: framework error: \nTraceback (most recent call last):\nValueError: bad {i}\n, exit code: 1"}
              for i in range(1, 6)]
    described = {"BestTrainingJob": None}

    def answer(need):
        return tuple(trials[:need.limit]) if isinstance(need, FailedTrials) else described if isinstance(need, Described) else None

    # When it is planned: one list of at most five failed trials, and one describe (the best job)
    decided, _learned, asked = plan(raw, config, answer)
    assert [n for n in asked if isinstance(n, FailedTrials)] == [FailedTrials("xgb-churn-hpo-1124", 5)]
    assert sum(isinstance(n, Described) for n in asked) == 1 and len(decided) == 1
    # Then one message names the tuning job, its counters, and five trials with the cause of each
    message, chat, body = words(raw, config, answer)
    assert message.subject == "[rule-actions] tuning job failed: xgb-churn-hpo-1124"
    assert "SageMaker hyperparameter tuning job xgb-churn-hpo-1124 failed." in message.body
    assert "12 failed (non-retryable)" in message.body and "Failed training jobs (5 of 12)" in message.body
    assert all(f"ValueError: bad {i}" in message.body for i in range(1, 6))
    assert message.short.startswith("rule-actions: tuning job failed: xgb-churn-hpo-1124: ValueError: bad 1")
    assert body["job"]["family"] == "tuning" and len(body["job"]["details"]["failed_trials"]) == 5
    JSON_V1.validate(body)
    CHAT.validate(chat)
    assert chat["metadata"]["additionalContext"]["job_family"] == "tuning"


BEST = {"TrainingJobName": "bert-lr-hpo-1124-004-e08a5c37", "TrainingJobStatus": "Completed",
        "FinalHyperParameterTuningJobObjectiveMetric": {"Type": "Maximize", "MetricName": "eval:f1", "Value": 0.8731}}


def test_a_completed_tuning_job_names_its_best_training_job_read_once():
    # Given a Completed event as SageMaker sends it (no BestTrainingJob: the event's schema has none), and its
    # description naming the best trial
    config = {**TEAM, "tuning_job_outcomes": {"Completed": ["notify"]}}
    assert "BestTrainingJob" not in TUNING_DONE["detail"]
    described = lambda n: {"BestTrainingJob": BEST} if isinstance(n, Described) else None  # noqa: E731

    # When it is planned and worded
    _, _, asked = plan(TUNING_DONE, config, described)
    message, _, body = words(TUNING_DONE, config, described)

    # Then one describe names the best job (the message said "Best job: none" when it was not read)
    assert [n for n in asked if not isinstance(n, TeamAudience)] == [Described(FAMILIES["tuning"].api, "bert-lr-hpo-1124")]
    assert "Best job:       bert-lr-hpo-1124-004-e08a5c37 (eval:f1 = 0.8731)" in message.body
    assert "Overall best" not in message.body
    assert "4 completed" in message.body and "1 failed (non-retryable)" in message.body
    assert body["job"]["details"]["best_training_job"] == {"name": "bert-lr-hpo-1124-004-e08a5c37",
                                                           "objective_metric": "eval:f1", "value": 0.8731}
    assert body["job"]["details"]["overall_best_training_job"] is None
    JSON_V1.validate(body)
    # And an event that does carry it is not read again
    carrying = with_detail(TUNING_DONE, BestTrainingJob=BEST)
    _, _, asked = plan(carrying, config)
    assert [n for n in asked if not isinstance(n, TeamAudience)] == []


def test_a_completed_tuning_job_whose_best_is_unknown_never_says_none_reached_the_objective():
    # Given a Completed job whose objective succeeded 4 times, and a describe that names no best job or fails
    config = {**TEAM, "tuning_job_outcomes": {"Completed": ["notify"]}}
    for answer, said in ((lambda n: None, "Best job:       unknown (not named by SageMaker)"),
                         (lambda n: Unread("DescribeHyperParameterTuningJob failed: ThrottlingException")
                          if isinstance(n, Described) else None, "Best job:       unknown (not read)")):
        message, _, body = words(TUNING_DONE, config, answer)
        # Then the message says it is unknown, never that no job reached the objective
        assert said in message.body and "none (no training job reached its objective)" not in message.body
        JSON_V1.validate(body)


def test_a_warm_start_names_the_overall_best_when_a_parent_s_trial_beat_its_own():
    # Given a warm start tuning job whose parent's trial beat its own best
    config = {**TEAM, "tuning_job_outcomes": {"Completed": ["notify"]}}
    overall = {**BEST, "TrainingJobName": "bert-lr-hpo-1117-009-3c5e7a9b", "TuningJobName": "bert-lr-hpo-1117",
               "FinalHyperParameterTuningJobObjectiveMetric": {"Type": "Maximize", "MetricName": "eval:f1",
                                                               "Value": 0.8802}}
    warm = {"WarmStartType": "IdenticalDataAndAlgorithm",
            "ParentHyperParameterTuningJobs": [{"HyperParameterTuningJobName": "bert-lr-hpo-1117"}]}
    described = lambda n: {"BestTrainingJob": BEST, "OverallBestTrainingJob": overall,  # noqa: E731
                           "WarmStartConfig": warm} if isinstance(n, Described) else None

    # When it is worded
    message, _, body = words(TUNING_DONE, config, described)

    # Then both are named, the overall best as its parents' trial
    assert "Best job:       bert-lr-hpo-1124-004-e08a5c37 (eval:f1 = 0.8731)" in message.body
    assert ("Overall best:   bert-lr-hpo-1117-009-3c5e7a9b (eval:f1 = 0.8802) (a trial of its warm start's "
            "parents)") in message.body
    assert body["job"]["details"]["overall_best_training_job"]["name"] == "bert-lr-hpo-1117-009-3c5e7a9b"
    JSON_V1.validate(body)
    # And a warm start whose own best is the overall best names it once
    same = lambda n: {"BestTrainingJob": BEST, "OverallBestTrainingJob": BEST,  # noqa: E731
                      "WarmStartConfig": warm} if isinstance(n, Described) else None
    message, _, _ = words(TUNING_DONE, config, same)
    assert "Overall best" not in message.body


def test_a_tuning_job_s_unreadable_trials_are_named_and_the_message_still_goes():
    config = {**TEAM, "tuning_job_outcomes": {"Failed": ["notify"]}}
    answer = lambda n: Unread("ListTrainingJobsForHyperParameterTuningJob failed: ThrottlingException") \
        if isinstance(n, FailedTrials) else None  # noqa: E731
    decided, _, _ = plan(TUNING_FAILED, config, answer)
    assert [(p.kind, p.outcome) for p in decided] == [("notify", None)]
    message, _, body = words(TUNING_FAILED, config, answer)
    assert "Not read: ListTrainingJobsForHyperParameterTuningJob failed: ThrottlingException" in message.body
    JSON_V1.validate(body)


def test_a_failed_processing_job_says_its_exit_message_and_reads_it_only_when_the_event_lacks_it():
    config = {**TEAM, "processing_job_outcomes": {"Failed": ["notify"]}}
    _, _, asked = plan(PROCESSING_FAILED, config)
    assert not [n for n in asked if isinstance(n, Described)]
    message, _, body = words(PROCESSING_FAILED, config)
    assert message.subject.startswith("[rule-actions] processing job failed: churn-preprocess-")
    assert "Exit message:\n  Traceback" in message.body and "FileNotFoundError" in message.body
    assert "#/processing-jobs/churn-preprocess-2026-11-24-11-15-02-118" in message.body
    assert body["job"]["details"] == {"exit_message": PROCESSING_FAILED["detail"]["ExitMessage"]}
    JSON_V1.validate(body)
    # An event without the exit message: one DescribeProcessingJob
    _, _, asked = plan(PROCESSING_ERROR, config, lambda n: {"ExitMessage": "killed"} if isinstance(n, Described) else None)
    assert [n for n in asked if isinstance(n, Described)] == [Described(FAMILIES["processing"].api, PROCESSING_ERROR["detail"]["ProcessingJobName"])]
    message, _, _ = words(PROCESSING_ERROR, config, lambda n: {"ExitMessage": "killed"} if isinstance(n, Described) else None)
    assert "Exit message:\n  killed" in message.body


PARALLEL = (
    StepFailure("train-xgboost", "TrainingJob", "No training job succeeded after 1 attempts.",
                "arn:aws:sagemaker:us-east-1:123456789012:training-job/pipelines-k3j9x7a2b1c0-train-xgboost-m3n8b2v6c0",
                "AlgorithmError: framework error: \nTraceback (most recent call last):\n  File \"x.py\", line 1\n"
                "ValueError: could not convert string to float: 'Month-to-month'\n, exit code: 1"),
    StepFailure("train-lightgbm", "TrainingJob", "No training job succeeded after 1 attempts.",
                "arn:aws:sagemaker:us-east-1:123456789012:training-job/pipelines-k3j9x7a2b1c0-train-lightgbm-z5x1c7v9b4",
                "", "DescribeTrainingJob failed: AccessDeniedException: no"),
    StepFailure("gate", "Fail", "Execution failed: the model's AUC 0.61 is under 0.7"),
)


def test_a_failed_execution_is_one_message_naming_every_failed_step_its_type_and_real_reason():
    config = {**TEAM, "pipeline_outcomes": {"Failed": ["notify"]}}
    decided, learned, asked = plan(PIPELINE_FAILED, config, steps_answer(*PARALLEL))
    assert len(decided) == 1 and next(n for n in asked if isinstance(n, FailedSteps)).execution_arn == \
        PIPELINE_FAILED["detail"]["pipelineExecutionArn"]
    message, chat, body = words(PIPELINE_FAILED, config, steps_answer(*PARALLEL))
    assert message.subject == "[rule-actions] pipeline execution failed: churn-training-pipeline/k3j9x7a2b1c0"
    assert "Failed steps (3):" in message.body
    assert "  - train-xgboost (Training)" in message.body and "  - gate (Fail)" in message.body
    assert "Reason:     ValueError: could not convert string to float: 'Month-to-month'  (the job's own)" in message.body
    assert "Not read:   DescribeTrainingJob failed: AccessDeniedException: no" in message.body
    assert "#/jobs/pipelines-k3j9x7a2b1c0-train-xgboost-m3n8b2v6c0" in message.body
    assert learned.failure_reason.startswith("train-xgboost (Training): ValueError: could not convert")
    assert message.short.startswith("rule-actions: pipeline execution failed: churn-training-pipeline/k3j9x7a2b1c0: ")
    steps = body["job"]["details"]["failed_steps"]
    assert [s["name"] for s in steps] == ["train-xgboost", "train-lightgbm", "gate"] and body["job"]["family"] == "pipeline"
    JSON_V1.validate(body)
    CHAT.validate(chat)


def test_an_execution_s_steps_that_cannot_be_listed_still_give_a_message():
    config = {**TEAM, "pipeline_outcomes": {"Failed": ["notify"]}}
    answer = lambda n: Unread("ListPipelineExecutionSteps failed: ThrottlingException") if isinstance(n, FailedSteps) else None  # noqa: E731
    message, chat, body = words(PIPELINE_FAILED, config, answer)
    assert "Steps not read: ListPipelineExecutionSteps failed: ThrottlingException" in message.body
    assert chat["content"].get("nextSteps") == []  # no links, and not a test: no made-up next step
    JSON_V1.validate(body)


def test_a_stopped_or_succeeded_execution_reads_no_steps():
    # Given an execution that was stopped or succeeded, whose outcome notifies
    for status, expected in (("Stopped", [StopRecord]), ("Succeeded", [])):
        raw = with_detail(PIPELINE_FAILED, currentPipelineExecutionStatus=status)
        # When it is planned
        _, _, asked = plan(raw, {**TEAM, "pipeline_outcomes": {status: ["notify"]}})
        # Then no step is read; a stopped one only looks up whether this stack stopped it
        assert [type(n) for n in asked if not isinstance(n, TeamAudience)] == expected


def test_a_failed_transform_job_says_its_failure_reason_and_reads_nothing():
    config = {**TEAM, "transform_job_outcomes": {"Failed": ["notify"]}}
    _, _, asked = plan(TRANSFORM_FAILED, config)
    assert [n for n in asked if not isinstance(n, TeamAudience)] == []
    message, _, body = words(TRANSFORM_FAILED, config)
    assert message.subject.startswith("[rule-actions] transform job failed: churn-batch-scoring-")
    assert "Too much data for max payload size" in message.body and "#/transform-jobs/" in message.body
    assert body["job"]["family"] == "transform" and body["job"]["details"] is None
    assert body["reason"].startswith("ClientError:")
    JSON_V1.validate(body)


def test_every_family_s_stopped_outcome_looks_up_whether_this_stack_stopped_it():
    # Given a Stopped outcome of each family that `stop` can stop, and its Completed outcome
    for family, raw in (("tuning", TUNING_FAILED), ("processing", PROCESSING_FAILED), ("transform", TRANSFORM_FAILED)):
        fam = FAMILIES[family]
        for status, looked_up in (("Stopped", True), ("Completed", False)):
            ended = with_detail(raw, **{fam.members.status: status})
            # When it is planned
            _, _, asked = plan(ended, {**TEAM, fam.outcome_actions.key: {status: ["notify"]}})
            # Then only the Stopped one reads the ledger's record of this stack's stop of that very job
            records = [n for n in asked if isinstance(n, StopRecord)]
            assert records == ([StopRecord(parse_event(ended).event.job_arn)] if looked_up else []), (family, status)


@pytest.mark.parametrize("reason", [
    "ClientError: one line",
    "AlgorithmError: ExecuteUserScriptError:\nExitCode 1\nErrorMessage \"KeyError: 'label'\"\nCommand \"python t.py\", exit code: 1",
    "AlgorithmError: framework error: \nTraceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nOSError: disk full\n, exit code: 2",
])
def test_a_failure_reason_s_essence_is_the_line_that_names_the_cause(reason):
    assert essence(reason) in {"ClientError: one line", "KeyError: 'label'", "OSError: disk full"}


@pytest.mark.parametrize("raw", [TUNING_FAILED, PROCESSING_FAILED, PIPELINE_FAILED, STEP_FAILED, TRANSFORM_FAILED],
                         ids=["tuning", "processing", "pipeline", "step", "transform"])
def test_organization_mode_acts_for_every_family_in_the_event_s_account_only(raw):
    from rule_actions.organization import Organization, refusal

    org = Organization("123456789012", "us-east-1", accounts=("123456789012",))
    event = parse_event(raw).event
    # A member's event whose job ARN names the event's account, region and its family's resource type is acted on
    assert refusal(org, event) is None
    # and one whose ARN names another account is refused, naming the family's job
    moved = with_detail(raw, **{k: v.replace(":123456789012:", ":111122223333:") for k, v in raw["detail"].items()
                                if k.endswith(("Arn", "arn")) and isinstance(v, str)})
    reason = refusal(org, parse_event(moved).event)
    assert reason and event.family.noun in reason


# ------------------------------------------------------------------------------------------------ names SageMaker never gives (issue 27)

EXECUTION_ARN = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/{pipeline}/execution/{id}"
HOSTILE = {
    "a control character": "churn\x07pipeline",
    "a bidirectional override": "churn\u202epipeline",
    "100,000 characters": "p" * 100_000,
    "JSON": '{"text":"x"}',
    "a space": "churn pipeline",
    "a trailing hyphen": "churn-",
}


def _safe(reason: str) -> None:
    """A refusal quotes the value safely: one short printable ASCII line."""
    assert reason.isascii() and reason.isprintable() and len(reason) < 400, reason


@pytest.mark.parametrize("raw", [PIPELINE_FAILED, STEP_FAILED], ids=["execution", "step"])
@pytest.mark.parametrize("part", ["pipeline", "id"])
@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_pipeline_name_or_execution_id_sagemaker_never_gives_is_refused_naming_the_field(raw, part, value):
    # Given an execution (or step) event whose ARN holds a pipeline name or an execution id SageMaker never gives
    names = {"pipeline": "churn-training-pipeline", "id": "k3j9x7a2b1c0", part: value}
    hostile = with_detail(raw, pipelineExecutionArn=EXECUTION_ARN.format(**names))
    # When it is read; Then it is refused, naming the field and quoting the value safely
    with pytest.raises(IgnoredEvent, match=r"detail\.pipelineExecutionArn: ") as refused:
        parse_event(hostile)
    _safe(str(refused.value))


def test_a_pipeline_execution_arn_longer_than_sagemaker_allows_is_refused():
    # Given names of valid shapes in an ARN longer than PipelineExecutionArn's 2,048 characters
    arn = EXECUTION_ARN.format(pipeline="p" * 256, id="e" * 82) + "x" * 1800
    with pytest.raises(IgnoredEvent, match=r"detail\.pipelineExecutionArn: "):
        parse_event(with_detail(PIPELINE_FAILED, pipelineExecutionArn=arn))


@pytest.mark.parametrize(("raw", "member"), [(TUNING_FAILED, "HyperParameterTuningJobName"),
                                              (PROCESSING_FAILED, "ProcessingJobName"),
                                              (TRANSFORM_FAILED, "TransformJobName"),
                                              (TRIAL_FAILED, "TrainingJobName")],
                         ids=["tuning", "processing", "transform", "training"])
@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_family_refuses_a_job_name_sagemaker_never_gives(raw, member, value):
    with pytest.raises(IgnoredEvent, match=f"detail.{member}: ") as refused:
        parse_event(with_detail(raw, **{member: value}))
    _safe(str(refused.value))


def test_a_tuning_job_name_longer_than_32_is_refused():
    # Given a tuning job named with 33 characters (HyperParameterTuningJobName allows 32)
    with pytest.raises(IgnoredEvent, match=r"detail\.HyperParameterTuningJobName: .*at most 32"):
        parse_event(with_detail(TUNING_FAILED, HyperParameterTuningJobName="t" * 33))
    assert parse_event(with_detail(TUNING_FAILED, HyperParameterTuningJobName="t" * 32)).job_name == "t" * 32


@pytest.mark.parametrize("value", [*HOSTILE.values(), "x" * 33], ids=[*HOSTILE, "33 characters"])
def test_a_trial_s_tuning_job_arn_sagemaker_never_gives_is_a_problem_never_acted_on(value):
    # Given a trial whose TuningJobArn names a tuning job SageMaker never gives
    arn = f"arn:aws:sagemaker:us-east-1:123456789012:hyper-parameter-tuning-job/{value}"
    parsed = parse_event(with_detail(TRIAL_FAILED, TuningJobArn=arn))
    # Then it is a problem naming the field, and no stop may name that tuning job, nor any skip reason
    assert [p for p in parsed.problems if p.startswith("detail.TuningJobArn: ")], parsed.problems
    for problem in parsed.problems:
        _safe(problem)
    assert "tuning_job" not in parsed.event.family.jobs_of(parsed.event)
    config = {**TEAM, "job_outcomes": {"Failed": ["notify"]}, "tuning_job_outcomes": {"Failed": ["notify"]}}
    decided, _, _ = plan(with_detail(TRIAL_FAILED, TuningJobArn=arn), config)
    assert all(value not in (p.reason or "") for p in decided)


@pytest.mark.parametrize("raw", [TRIAL_FAILED, PROCESSING_FAILED, TRANSFORM_FAILED, TUNING_FAILED],
                         ids=["training", "processing", "transform", "tuning"])
@pytest.mark.parametrize("value", [*HOSTILE.values(), "arn:aws:sagemaker:us-east-1:123456789012:pipeline/p"],
                         ids=[*HOSTILE, "no execution"])
def test_a_step_job_s_execution_tag_sagemaker_never_gives_is_a_problem_never_acted_on_or_sent(raw, value):
    # Given a job whose sagemaker:pipeline-execution-arn tag names an execution SageMaker never gives
    arn = value if value.startswith("arn:") else EXECUTION_ARN.format(pipeline=value, id="k3j9x7a2b1c0")
    tags = {**(raw["detail"].get("Tags") or {}), "sagemaker:pipeline-execution-arn": arn}
    hostile = with_detail(raw, Tags=tags)
    parsed = parse_event(hostile)
    # Then it is a problem naming the tag, quoted safely; no stop may name it; no skip reason sends it
    assert [p for p in parsed.problems if p.startswith("detail.Tags.sagemaker:pipeline-execution-arn: ")]
    for problem in parsed.problems:
        _safe(problem)
    assert "pipeline_execution" not in parsed.event.family.jobs_of(parsed.event)
    family = parsed.event.family
    config = {**TEAM, family.outcome_actions.key: {"Failed": ["notify"]}, "pipeline_outcomes": {"Failed": ["notify"]},
              "pipeline_step_jobs_alert": False}
    decided, _, _ = plan(hostile, config)
    assert [(p.kind, p.outcome) for p in decided] == [("notify", None)]


# ------------------------------------------------------------------------------------------------ malformed parts named (issue 27)

@pytest.mark.parametrize(("raw", "member", "value", "named"), [
    (TUNING_FAILED, "TrainingJobStatusCounters", "12 failed", "detail.TrainingJobStatusCounters"),
    (TUNING_FAILED, "TrainingJobStatusCounters", {"Completed": "4", "NonRetryableError": 12},
     "detail.TrainingJobStatusCounters.Completed"),
    (TUNING_FAILED, "TrainingJobStatusCounters", {"Stopped": True}, "detail.TrainingJobStatusCounters.Stopped"),
    (TUNING_FAILED, "ObjectiveStatusCounters", [1, 2, 3], "detail.ObjectiveStatusCounters"),
    (TUNING_FAILED, "ObjectiveStatusCounters", {"Succeeded": 1.5}, "detail.ObjectiveStatusCounters.Succeeded"),
    (TUNING_FAILED, "BestTrainingJob", "bert-lr-hpo-1124-004-e08a5c37", "detail.BestTrainingJob"),
    (TUNING_FAILED, "BestTrainingJob", {"TrainingJobName": 7}, "detail.BestTrainingJob.TrainingJobName"),
    (TUNING_FAILED, "OverallBestTrainingJob", ["x"], "detail.OverallBestTrainingJob"),
    (TUNING_FAILED, "HyperParameterTuningEndTime", {"at": "noon"}, "detail.HyperParameterTuningEndTime"),
    (PROCESSING_FAILED, "ProcessingStartTime", [2026, 11, 24], "detail.ProcessingStartTime"),
    (PROCESSING_FAILED, "ProcessingEndTime", "yesterday", "detail.ProcessingEndTime"),
    (PROCESSING_FAILED, "ExitMessage", {"text": "boom"}, "detail.ExitMessage"),
    (TRANSFORM_FAILED, "TransformEndTime", True, "detail.TransformEndTime"),
    (TRIAL_FAILED, "TrainingEndTime", {"x": 1}, "detail.TrainingEndTime"),
    (PIPELINE_FAILED, "executionEndTime", ["soon"], "detail.executionEndTime"),
    (PIPELINE_FAILED, "pipelineExecutionDisplayName", 42, "detail.pipelineExecutionDisplayName"),
])
def test_a_malformed_part_of_a_family_s_event_is_a_problem_naming_it_and_the_message_still_goes(
        raw, member, value, named):
    # Given an event of the family with one member of the wrong type
    hostile = with_detail(raw, **{member: value})
    # When it is read
    parsed = parse_event(hostile)
    # Then the event's row names the member and quotes the value safely
    found = [p for p in parsed.problems if p.startswith(f"{named}: ")]
    assert found, parsed.problems
    _safe(found[0])
    # And the outcome's message still goes out
    family = parsed.event.family
    config = {**TEAM, family.outcome_actions.key: {o: ["notify"] for o in family.outcomes}}
    decided, _, _ = plan(hostile, config)
    assert [(p.kind, p.outcome) for p in decided] == [("notify", None)]
    message, _, body = words(hostile, config)
    assert message.subject and body["job"]["name"]


def test_a_best_training_job_given_as_a_string_is_read_from_the_tuning_job_instead():
    # Given a Completed tuning event whose BestTrainingJob is a string, and its description naming the best trial
    config = {**TEAM, "tuning_job_outcomes": {"Completed": ["notify"]}}
    hostile = with_detail(TUNING_DONE, BestTrainingJob="bert-lr-hpo-1124-004-e08a5c37")
    described = lambda n: {"BestTrainingJob": BEST} if isinstance(n, Described) else None  # noqa: E731
    # When it is planned and worded
    _, _, asked = plan(hostile, config, described)
    message, _, _ = words(hostile, config, described)
    # Then the tuning job is described for it, and its best job named (not "unknown")
    assert Described(FAMILIES["tuning"].api, "bert-lr-hpo-1124") in asked
    assert "Best job:       bert-lr-hpo-1124-004-e08a5c37 (eval:f1 = 0.8731)" in message.body


def test_a_tuning_event_s_malformed_counters_never_hide_the_described_ones():
    # Given a tuning event whose counters are a string, and a description that has them
    config = {**TEAM, "tuning_job_outcomes": {"Completed": ["notify"]}}
    counters = {"Completed": 4, "InProgress": 0, "RetryableError": 0, "NonRetryableError": 1, "Stopped": 0}
    hostile = with_detail(TUNING_DONE, TrainingJobStatusCounters="4 completed", BestTrainingJob=BEST)
    described = lambda n: {"TrainingJobStatusCounters": counters} if isinstance(n, Described) else None  # noqa: E731
    # When it is worded; Then the message gives the described counters, never "unknown"
    message, _, _ = words(hostile, config, described)
    assert "Training jobs:  4 completed, 0 in progress" in message.body, message.body


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_a_huge_exit_message_is_bounded_in_the_json_webhook_body():
    # Given a failed processing job whose ExitMessage is 100 KB (AWS caps it at 1,024 characters)
    config = {**TEAM, "processing_job_outcomes": {"Failed": ["notify"]}}
    huge = copy.deepcopy(PROCESSING_FAILED)
    huge["detail"]["ExitMessage"] = "Traceback: " + "x" * 100_000
    # When the json webhook payload is built
    _, _, body = words(huge, config)
    # Then every text field is bounded, the exit message at 1,024 characters, and the payload still follows its schema
    assert len(body["job"]["details"]["exit_message"]) <= destinations.TEXT_MAX
    assert body["job"]["details"]["exit_message"].startswith("Traceback: xxx")
    assert max(len(s) for s in _strings(body)) <= destinations.BODY_MAX
    assert len(json.dumps(body)) < 32_000
    JSON_V1.validate(body)
