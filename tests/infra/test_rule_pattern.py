"""The rule's event pattern (rule_actions_cdk.plugins.event_pattern, the one the stack synthesizes) against events, with the project's
EventBridge matcher: the function is invoked for outcomes that can lead to an action, and only for those."""

import pytest
from builders import EVENTS, event, rule_status, sample
from planning import find, parse_event

from rule_actions.config import Config
from rule_actions.jobs.training import OUTCOMES as JOB_OUTCOMES
from rule_actions.records import IgnoredEvent
from rule_actions.triggers.job_outcome import JobOutcome
from rule_actions_cdk.plugins import event_pattern
from rule_actions_cli.matcher import matches, validate

DEFAULT = Config()
FAMILIES = ("DebugRuleEvaluationStatuses", "ProfilerRuleEvaluationStatuses")
# The Stopped outcome of a job that keeps a warm pool: a stop of this stack releases it once the job has stopped
# (release_warm_pools, on whenever a stop may be declared: action_json is read by default)
POOL = {"TrainingJobStatus": ["Stopped"],
        "SecondaryStatus": [{"anything-but": ["MaxRuntimeExceeded", "MaxWaitTimeExceeded", "Interrupted"]}],
        "ResourceConfig": {"KeepAlivePeriodInSeconds": [{"numeric": [">", 0]}]}}


def test_the_pattern_is_valid_and_exact():
    for config in (DEFAULT, Config.from_dict({"notify_on_rule_error": False, "training_job_prefixes": ["exp-", "Team-A"]})):
        validate(event_pattern(config))
    assert event_pattern(Config.from_dict({"notify_on_rule_error": False, "training_job_prefixes": ["exp-", "Team-A"]})) == {
        "source": ["aws.sagemaker"],
        "detail-type": ["SageMaker Training Job State Change"],
        "detail": {
            "$or": [
                {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}},
                {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}},
                POOL,
            ],
            "TrainingJobName": [{"prefix": "exp-"}, {"prefix": "Team-A"}],
        },
    }


@pytest.mark.parametrize(("name", "detail", "expected"), [
    ("debug IssuesFound", {"debug": [rule_status("VanishingGradient")]}, True),
    ("profiler IssuesFound", {"profiler": [rule_status("LowGPUUtilization")]}, True),
    ("IssuesFound among others", {"debug": [rule_status("Overfit", "InProgress"), rule_status("LossNotDecreasing")]}, True),
    ("rule Error", {"debug": [rule_status("LossNotDecreasing", "Error")]}, True),
    ("NoIssuesFound", {"debug": [rule_status("VanishingGradient", "NoIssuesFound")]}, False),
    ("InProgress only", {"debug": [rule_status("VanishingGradient", "InProgress")],
                         "profiler": [rule_status("ProfilerReport", "InProgress")]}, False),
    ("NoIssuesFound and InProgress", {"debug": [rule_status("A", "NoIssuesFound"), rule_status("B", "InProgress")]}, False),
    ("rule Stopped", {"debug": [rule_status("VanishingGradient", "Stopped")]}, False),
    ("no rules", {}, False),
    ("empty rule lists", {"debug": [], "profiler": []}, False),
])
def test_default_pattern(name, detail, expected):
    assert matches(event_pattern(DEFAULT), event(**detail)) is expected


def test_rule_errors_do_not_invoke_without_notify_on_rule_error():
    pattern = event_pattern(Config.from_dict({"notify_on_rule_error": False}))
    assert not matches(pattern, event(debug=[rule_status("LossNotDecreasing", "Error")]))
    assert matches(pattern, event(debug=[rule_status("LossNotDecreasing", "IssuesFound")]))


def test_prefixes_narrow_the_jobs():
    pattern = event_pattern(Config.from_dict({"training_job_prefixes": ["exp-", "Team-A"]}))
    issues = [rule_status("VanishingGradient")]
    assert matches(pattern, event(job="exp-42", debug=issues))
    assert matches(pattern, event(job="Team-A-run-1", debug=issues))
    assert not matches(pattern, event(job="team-a-run-1", debug=issues))  # EventBridge's prefix is case-sensitive
    assert not matches(pattern, event(job="other-exp-42", debug=issues))
    assert not matches(pattern, event(job="exp-42", debug=[rule_status("VanishingGradient", "NoIssuesFound")]))


def test_other_sources_and_detail_types_do_not_match():
    issues = event(debug=[rule_status("VanishingGradient")])
    assert not matches(event_pattern(DEFAULT), {**issues, "source": "aws.ec2"})
    assert not matches(event_pattern(DEFAULT), {**issues, "detail-type": "SageMaker Processing Job State Change"})


def actionable(sample_event, config=DEFAULT):
    """The oracle: a rule of either family in a status the handler can act on."""
    statuses = [s["RuleEvaluationStatus"] for family in FAMILIES for s in sample_event["detail"].get(family, [])]
    triggering = ("IssuesFound", "Error") if config.value("notify_on_rule_error") else ("IssuesFound",)
    return any(status in triggering for status in statuses)


SAMPLES = sorted(path.name for path in EVENTS.glob("*.json"))


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_events(name):
    events = sample(name)
    for position, sample_event in enumerate(events if isinstance(events, list) else [events]):
        assert matches(event_pattern(DEFAULT), sample_event) is actionable(sample_event), f"{name}[{position}]"


def test_samples_the_readme_says_invoke_nothing():
    assert not matches(event_pattern(DEFAULT), sample("no-issues-found.json"))
    assert not any(matches(event_pattern(DEFAULT), e) for e in sample("lifecycle-completed-no-issues.json"))
    assert matches(event_pattern(DEFAULT), sample("vanishing-gradient-sdk-actions.json"))
    assert matches(event_pattern(DEFAULT), sample("profiler-low-gpu-utilization.json"))
    assert matches(event_pattern(DEFAULT), sample("rule-error.json"))
    # the first IssuesFound of a lifecycle and every event after it invoke; the events before do not
    lifecycle = [matches(event_pattern(DEFAULT), e) for e in sample("lifecycle-stopped-after-issues.json")]
    first = lifecycle.index(True)
    assert first > 0 and all(lifecycle[first:])


# --- job outcomes ---------------------------------------------------------------------------------------------

ALL_OUTCOMES = Config.from_dict({"job_outcomes": {outcome: ["notify"] for outcome in JOB_OUTCOMES}})
STATUSES = ("InProgress", "Completed", "Failed", "Stopping", "Stopped", "Deleting", None)
SECONDARY = ("Starting", "Downloading", "Training", "Uploading", "Stopping", "Stopped", "MaxRuntimeExceeded",
             "MaxWaitTimeExceeded", "Interrupted", "Completed", "Failed", "Restarting", "Pending", None)


def job_event(status, secondary, **detail):
    raw = event(**detail)
    for key, value in (("TrainingJobStatus", status), ("SecondaryStatus", secondary)):
        if value is None:
            del raw["detail"][key]
        else:
            raw["detail"][key] = value
    return raw


def can_act(raw, config) -> bool:
    """The oracle: the handler's own triggers (rule_actions.triggers.find) for this event and configuration."""
    try:
        return bool(find(parse_event(raw), config))
    except IgnoredEvent:
        return False


def test_without_job_outcomes_the_pattern_is_the_rule_clauses_and_the_warm_pools_of_its_stops():
    assert Config().value("job_outcomes") == ()
    assert event_pattern(Config())["detail"] == {"$or": [
        {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
        {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
        POOL,
    ]}
    # without the release, the rule clauses alone
    assert event_pattern(Config.from_dict({"release_warm_pools": False}))["detail"] == {"$or": [
        {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
        {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
    ]}


@pytest.mark.parametrize("outcome", list(JOB_OUTCOMES))
def test_each_outcome_adds_its_own_clause_and_only_it(outcome):
    # Given job_outcomes with one outcome
    config = Config.from_dict({"job_outcomes": {outcome: ["notify"]}})
    pattern = event_pattern(config)
    validate(pattern)

    # When every TrainingJobStatus x SecondaryStatus pair (or a missing SecondaryStatus) is matched, no rule status
    for status in STATUSES[:-1]:
        for secondary in SECONDARY:
            raw = job_event(status, secondary)
            expected = can_act(raw, config)

            # Then the rule invokes the function exactly when the handler finds that outcome
            assert matches(pattern, raw) is expected, (outcome, status, secondary)
            assert expected == (parse_event(raw).outcome == JobOutcome(outcome))
    # (an event without a TrainingJobStatus is malformed: it may invoke the function, which reports it ignored)


def test_outcomes_exclude_one_another_and_a_timeout_is_not_a_stop():
    # Given every outcome configured
    pattern = event_pattern(ALL_OUTCOMES)

    # When the events of each outcome are read
    # Then each event is at most one outcome; a timeout (Stopped + MaxRuntimeExceeded) is MaxRuntimeExceeded, never
    # Stopped; a spot interruption is Interrupted, never Failed or Stopped
    for status in STATUSES[:-1]:
        for secondary in SECONDARY:
            holding = [name for name, condition in JOB_OUTCOMES.items() if condition.holds(status, secondary)]
            assert len(holding) <= 1, (status, secondary, holding)
            assert matches(pattern, job_event(status, secondary)) is bool(holding)
    assert parse_event(job_event("Stopped", "MaxRuntimeExceeded")).outcome == JobOutcome("MaxRuntimeExceeded")
    assert parse_event(job_event("Stopped", "Stopped")).outcome == JobOutcome("Stopped")
    assert parse_event(job_event("Stopped", "Interrupted")).outcome == JobOutcome("Interrupted")
    assert parse_event(job_event("InProgress", "Interrupted")).outcome == JobOutcome("Interrupted")
    assert parse_event(job_event("Failed", "Failed")).outcome == JobOutcome("Failed")
    assert parse_event(job_event("InProgress", "Training")).outcome is None


def test_outcome_clauses_keep_the_prefixes_and_the_rule_clauses():
    config = Config.from_dict({"job_outcomes": {"Failed": ["notify"]}, "training_job_prefixes": ["exp-"]})
    pattern = event_pattern(config)
    assert pattern["detail"]["TrainingJobName"] == [{"prefix": "exp-"}]
    assert matches(pattern, job_event("Failed", "Failed", job="exp-1"))
    assert not matches(pattern, job_event("Failed", "Failed", job="other-1"))
    assert matches(pattern, event(job="exp-1", debug=[rule_status("Overfit", job="exp-1")]))
    assert not matches(pattern, job_event("Completed", "Completed", job="exp-1"))


def test_an_outcome_with_no_actions_adds_no_clause():
    config = Config.from_dict({"job_outcomes": {"Completed": [], "Failed": ["notify"]}})
    assert len(event_pattern(config)["detail"]["$or"]) == 4  # the rules, Failed, the warm pools of our stops
    assert not matches(event_pattern(config), job_event("Completed", "Completed"))


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_events_with_every_outcome_configured(name):
    # Every sample event invokes the function exactly when the handler finds a trigger in it
    events = sample(name)
    for position, raw in enumerate(events if isinstance(events, list) else [events]):
        assert matches(event_pattern(ALL_OUTCOMES), raw) is can_act(raw, ALL_OUTCOMES), f"{name}[{position}]"


# --- the outcome switches: what they quiet is outcomes, never rule statuses -----------------------------------

DEBUG = {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}}
PROFILER = {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}}
FAILED = {"TrainingJobStatus": ["Failed"],
          "SecondaryStatus": [{"anything-but": ["MaxRuntimeExceeded", "MaxWaitTimeExceeded", "Interrupted"]}]}
QUIET = {"Tags": {"sagemaker:pipeline-execution-arn": [{"exists": False}]}, "TuningJobArn": [{"exists": False}]}
PARENTS = {"tuning_job_outcomes": {"Failed": ["notify"]}, "pipeline_outcomes": {"Failed": ["notify"]},
           "pipeline_step_jobs_alert": False}


def detail_of(config: Config, detail_type: str = "SageMaker Training Job State Change") -> dict:
    """The detail clause of one family's branch of the stack's pattern (validated as EventBridge would)."""
    pattern = event_pattern(config)
    validate(pattern)
    [branch] = [p for p in pattern.get("$or", [pattern]) if p["detail-type"] == [detail_type]]
    return branch["detail"]


def test_while_the_parents_report_the_quiet_clauses_stand_on_the_outcome_clauses_only():
    # Given the tuning job and the pipeline execution reporting for their jobs, both switches false, a prefix
    config = Config.from_dict({**PARENTS, "job_outcomes": {"Failed": ["notify"]}, "training_job_prefixes": ["exp-"]})
    # Then the one outcome clause carries them, the rule statuses' clauses never do; the scope is on the whole
    assert detail_of(config) == {"$or": [DEBUG, PROFILER, {"$or": [FAILED, POOL], **QUIET}],
                                 "TrainingJobName": [{"prefix": "exp-"}]}
    # And with two outcomes they stand once, around a nested $or of the outcome clauses
    two = Config.from_dict({**PARENTS, "job_outcomes": {"Failed": ["notify"], "Interrupted": ["notify"]}})
    assert detail_of(two) == {"$or": [DEBUG, PROFILER, {"$or": [FAILED, {"SecondaryStatus": ["Interrupted"]}, POOL],
                                                        **QUIET}]}


def test_a_trial_s_or_step_job_s_rule_status_is_matched_and_its_held_back_outcome_is_not():
    # Given both parents reporting, both switches false, and job_outcomes on failures and interruptions
    pattern = event_pattern(Config.from_dict({**PARENTS, "job_outcomes": {"Failed": ["notify"], "Interrupted": ["notify"]}}))
    trial = {"TuningJobArn": "arn:aws:sagemaker:us-east-1:123456789012:hyper-parameter-tuning-job/hpo-1"}
    step = {"Tags": {"sagemaker:pipeline-execution-arn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/p/execution/e"}}
    for member in (trial, step):
        issues = event(job="hpo-1-001-0a1b2c3d", debug=[rule_status("Overfit", job="hpo-1-001-0a1b2c3d")])
        failed = job_event("Failed", "Failed", job="hpo-1-001-0a1b2c3d")
        interrupted = job_event("InProgress", "Interrupted", job="hpo-1-001-0a1b2c3d")
        for raw in (issues, failed, interrupted):
            raw["detail"].update(member)
        # Then its rule status is matched (and it would be acted on), its outcomes are not (their parent reports)
        assert matches(pattern, issues)
        assert not matches(pattern, failed) and not matches(pattern, interrupted)
        # And a job of its own's outcomes still are
        assert matches(pattern, job_event("Failed", "Failed")) and matches(pattern, job_event("InProgress", "Interrupted"))


@pytest.mark.parametrize("settings", [
    {"pipeline_step_jobs_alert": False},  # no parent reports: the switch has nothing to quiet
    {"tuning_job_outcomes": {"Failed": ["notify"]}, "tuning_trials_alert": True},
    {"pipeline_outcomes": {"Failed": ["notify"]}},  # pipeline_step_jobs_alert true (the default)
])
def test_no_quiet_clause_while_no_parent_reports_or_the_switches_let_the_jobs_alert(settings):
    config = Config.from_dict({**settings, "job_outcomes": {"Failed": ["notify"]}})
    assert detail_of(config) == {"$or": [DEBUG, PROFILER, FAILED, POOL]}


def test_a_family_without_rule_statuses_keeps_one_clause_standing_alone_or_a_nested_or():
    # Given processing outcomes while the pipeline execution reports for its steps' jobs
    one = Config.from_dict({**PARENTS, "processing_job_outcomes": {"Failed": ["notify"]}})
    two = Config.from_dict({**PARENTS, "processing_job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"]}})
    quiet = {"TrainingJobArn": [{"exists": False}], "Tags": {"sagemaker:pipeline-execution-arn": [{"exists": False}]}}
    # Then one outcome stands alone (EventBridge's $or takes two alternatives or more), two are a $or: the quiet
    # clauses (a Debugger rule evaluation's TrainingJobArn, a step's tag) beside them
    assert detail_of(one, "SageMaker Processing Job State Change") == {"ProcessingJobStatus": ["Failed"], **quiet}
    assert detail_of(two, "SageMaker Processing Job State Change") == {
        "$or": [{"ProcessingJobStatus": ["Failed"]}, {"ProcessingJobStatus": ["Stopped"]}], **quiet}
